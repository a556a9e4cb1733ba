"""Power cuts at every write and bit flips in every copy, on the real MicroPython littlefs.

Run by pytest under CPython: each test starts the MicroPython unix VM on this same file, which
mounts ``vfs.VfsLfs2`` on ``host_tests.fakes.flash.FlashDevice`` and drives critical memory
through the stand-in scenario rounds (test_store_standin.script: every seat betting, a flush
and a royal with a shortfall and a reset, a void, an operator addition).  For each cut point:
cut the power there (the operation is torn), reboot on the same memory, check the state is
exactly the one before or after the interrupted commit with the meters reconciling to the
cent, resume, and check the finished run equals the uncut one (nothing counted twice or lost).
The VM prints one ``RESULT`` line that the test parses.
"""

import sys

MICROPYTHON = sys.implementation.name == "micropython"


def model_named(name):
    """The stand-in state, or the real jackpot pools (firmware/jackpot)."""
    if name == "jackpot":
        from host_tests.test_store_jackpot import JackpotModel
        return JackpotModel
    from host_tests.test_store_standin import StandIn
    return StandIn


def sweep(model, kind, cut_on, stride, first=0, wrapped=False):
    """Cut at every `stride`-th operation of the script; print the RESULT line."""
    from host_tests import test_store_standin as h
    board = h.new_board(kind, model=model, wrapped=wrapped)
    reference = h.run_reference(board, cut_on, model)
    failed = 0
    tried = 0
    for cut in range(first, reference[0], stride):
        tried += 1
        error = h.cut_and_check(board, cut, reference, cut_on, model)
        if error:
            failed += 1
            if failed <= 5:
                print("FAIL", error)
    print("RESULT tried=%d failed=%d ops=%d" % (tried, failed, reference[0]))


def fram_points(model, kind):
    """Cut points of the FRAM writes worth trying every time: for each copy written to the
    FRAM, the first 13 bytes (nothing written, header), the last 5 (CRC) and one past the end."""
    from host_tests import test_store_standin as h
    from host_tests.fakes.flash import Supply
    board = h.new_board(kind, model=model)
    supply = Supply()
    cm = board.copy().power_on(supply, "fram")
    slot = cm.copies[0]
    spans = []
    write = slot.write

    def spy(data):
        start = supply.ops
        write(data)
        spans.append((start, supply.ops))

    slot.write = spy
    cm.boot(2000, 1)
    state = model.decode(cm.section("jackpot"))
    for i, item in enumerate(model.script()):
        _done, state = h.apply(cm, item, state, 2000 + i, model)
    points = []
    for start, end in spans:
        for cut in list(range(start, start + 13)) + list(range(end - 5, end + 1)):
            if cut not in points and cut < supply.ops:
                points.append(cut)
    return board, points


def fram_sweep(model, kind, stride):
    """Cut at the FRAM header/CRC bytes of every commit plus every `stride`-th FRAM byte."""
    from host_tests import test_store_standin as h
    board, points = fram_points(model, kind)
    reference = h.run_reference(board, "fram", model)
    for cut in range(0, reference[0], stride):
        if cut not in points:
            points.append(cut)
    failed = 0
    for cut in points:
        error = h.cut_and_check(board, cut, reference, "fram", model)
        if error:
            failed += 1
            if failed <= 5:
                print("FAIL", error)
    print("RESULT tried=%d failed=%d ops=%d" % (len(points), failed, reference[0]))


def flips(model, kind, positions_stride):
    """Flip bits in each copy, then in every copy, and check detection and recovery."""
    from firmware.store import eventlog
    from firmware.store.errors import RamError
    from host_tests import test_store_standin as h
    from host_tests.fakes.flash import Supply
    board = h.new_board(kind, model=model)
    reference = h.run_reference(board, "all", model)
    # the board after the uncut script
    done = board.copy()
    cm = done.power_on(Supply())
    cm.boot(2000, 1)
    state = model.decode(cm.section("jackpot"))
    for i, item in enumerate(model.script()):
        _ok, state = h.apply(cm, item, state, 2000 + i, model)
    raw = cm._record
    done.power_off()  # nothing of that boot may change the memory every case copies

    # Where each flash copy sits: littlefs may keep the two files in either order, and an old
    # block may still hold the same bytes, so each place the record occurs is tried: the copy
    # whose read changes when a byte there is changed is the one stored there.
    flash_at = {}
    image = bytes(done.flash_memory)
    at = image.find(raw)
    while at >= 0:
        probe = done.copy()
        probe.flash_memory[at + len(raw) // 2] ^= 0x01
        probed = probe.power_on(Supply())
        for index in range(len(probed.copies)):
            if probed.copies[index].physical == "flash" and probed.copies[index].read() != raw:
                flash_at[index] = at
        probe.power_off()
        at = image.find(raw, at + 1)

    def locate(target, index):
        """(memory, offset) where copy `index` of the record sits on `target`."""
        if target.fram_memory is not None and index == 0:
            return target.fram_memory, 0
        return target.flash_memory, flash_at.get(index, -1)

    tried = 0
    failed = 0

    def fail(text):
        print("FAIL", text)
        return 1

    single = (list(range(0, 12)) + list(range(12, len(raw) - 4, positions_stride))
              + list(range(len(raw) - 4, len(raw))))
    for index in range(2):
        memory, at = locate(done, index)
        if at < 0:
            failed += fail("copy %d not found in memory" % index)
            continue
        cases = [[p] for p in single] + [[p, (p * 7 + 13) % len(raw), (p * 31 + 5) % len(raw)]
                                          for p in single[::3]]
        for flips_at in cases:
            tried += 1
            work = done.copy()
            memory, at = locate(work, index)
            for p in flips_at:
                memory[at + p] ^= 1 << (p % 8)
            cm = work.power_on(Supply())
            status = cm.boot(3000, 2)
            kinds = [(e[3], e[4]) for e in cm.log.events(cm.log.count - 4)]
            if status != "repaired":
                failed += fail("flip %r in copy %d: status %s" % (flips_at, index, status))
            elif (eventlog.CM_ERROR, index) not in kinds or (eventlog.CM_RECOVERED, index) not in kinds:
                failed += fail("flip %r in copy %d: not logged %r" % (flips_at, index, kinds))
            elif model.decode(cm.section("jackpot")) != reference[1]:
                failed += fail("flip %r in copy %d: state changed" % (flips_at, index))
            elif work.power_on(Supply()).boot(3001, 2) != "ok":
                failed += fail("flip %r in copy %d: copy not rebuilt" % (flips_at, index))
    # a flip in every copy: RAM ERROR until a supervisor RAM clear
    for p in single[::5]:
        tried += 1
        work = done.copy()
        places = [locate(work, index) for index in range(2)]
        for memory, at in places:
            memory[at + p] ^= 1 << (p % 8)
        cm = work.power_on(Supply())
        if cm.boot(3000, 2) != "RAM ERROR" or cm.wagering_allowed:
            failed += fail("flip at %d in both copies not a RAM ERROR" % p)
            continue
        try:
            cm.commit(99, 1, {"jackpot": model.encode(model.fresh())}, (), 3000)
            failed += fail("commit accepted in RAM ERROR")
            continue
        except RamError:
            pass
        cm.ram_clear({"jackpot": model.encode(model.fresh())}, 3001, 9, True)
        again = work.power_on(Supply())
        if again.boot(3002, 2) != "ok" or model.decode(again.section("jackpot")) != model.fresh():
            failed += fail("RAM clear at %d did not take" % p)
        elif again.log.verify() is not None:
            failed += fail("log broken after RAM clear at %d" % p)
        elif eventlog.RAM_CLEAR not in [e[3] for e in again.log.events(again.log.count - 3)]:
            failed += fail("RAM clear not logged")
        elif not 0 < again.round_no == max(e[2] for e in again.log.events()):
            # the script's rounds are on a page the clear keeps: the next round comes after them
            failed += fail("RAM clear at %d numbers rounds from %d under the kept log's"
                           % (p, again.round_no + 1))
    print("RESULT tried=%d failed=%d ops=%d" % (tried, failed, len(raw)))


if MICROPYTHON and __name__ == "__main__":
    mode, chosen = sys.argv[1], model_named(sys.argv[2])
    if mode == "sweep":
        sweep(chosen, sys.argv[3], sys.argv[4], int(sys.argv[5]),
              wrapped=len(sys.argv) > 6 and sys.argv[6] == "wrapped")
    elif mode == "fram":
        fram_sweep(chosen, sys.argv[3], int(sys.argv[4]))
    elif mode == "flips":
        flips(chosen, sys.argv[3], int(sys.argv[4]))

if not MICROPYTHON:
    import re
    from pathlib import Path

    import pytest

    from host_tests.runtimes import run_micropython

    _HARNESS_TIMEOUT_S = 2700

    def run(*args):
        """Run this file's harness in the MicroPython VM; return (tried, failed, ops)."""
        # the slow sweeps reboot the table at every cut point: on a machine shared with other
        # work the real pool's every-FRAM-byte sweep outlasted 900 s (ninth session)
        proc = run_micropython(Path(__file__), [str(a) for a in args], heapsize="16M",
                               timeout=_HARNESS_TIMEOUT_S)
        found = re.search(r"RESULT tried=(\d+) failed=(\d+) ops=(\d+)", proc.stdout)
        if not found:
            said = [line for line in proc.stdout.splitlines() if not line.startswith("OSError: ")]
            raise AssertionError("no RESULT from MicroPython (exit status %r):\n%s\n%s"
                                 % (proc.returncode, "\n".join(said[-20:]), proc.stderr[-3000:]))
        tried, failed, ops = (int(x) for x in found.groups())
        fails = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
        assert failed == 0, "\n".join(fails)
        print("%s: %d cut points / cases tried of %d" % (" ".join(str(a) for a in args), tried, ops))
        return tried, failed, ops

    @pytest.mark.parametrize("kind", ["fram+lfs", "lfs2"])
    def test_cut_at_every_flash_operation(kind):
        # every program and erase of the whole script (including the boot commit) is a cut point
        tried, _failed, ops = run("sweep", "standin", kind, "flash" if kind == "fram+lfs" else "all", 1)
        assert tried == ops and ops >= 50

    @pytest.mark.parametrize("kind", ["fram+lfs", "lfs2"])
    def test_cut_at_every_flash_operation_with_the_real_jackpot(kind):
        tried, _failed, ops = run("sweep", "jackpot", kind, "flash" if kind == "fram+lfs" else "all", 1)
        assert tried == ops and ops >= 40

    def test_cut_at_every_flash_operation_with_a_wrapped_event_log():
        # the page the script completes moves the oldest entry held on: the link before it is
        # read from its page and committed with the record; a cut anywhere must leave a chain
        # that verifies from the oldest entry held
        tried, _failed, ops = run("sweep", "standin", "fram+lfs", "flash", 1, "wrapped")
        assert tried == ops and ops >= 50

    @pytest.mark.parametrize("model", ["standin", "jackpot"])
    def test_cut_fram_header_crc_and_sampled_bytes(model):
        tried, _failed, ops = run("fram", model, "fram+lfs", 211)
        assert tried >= 250 and ops > 5000

    @pytest.mark.slow
    @pytest.mark.parametrize("model", ["standin", "jackpot"])
    def test_cut_at_every_fram_byte(model):
        tried, _failed, ops = run("sweep", model, "fram+lfs", "fram", 1)
        assert tried == ops

    @pytest.mark.slow
    @pytest.mark.parametrize("model", ["standin", "jackpot"])
    def test_cut_at_every_operation_of_both_devices_sampled(model):
        run("sweep", model, "fram+lfs", "all", 7)

    @pytest.mark.parametrize("kind", ["fram+lfs", "lfs2"])
    def test_bit_flips_in_each_copy_and_in_both(kind):
        tried, _failed, _size = run("flips", "standin", kind, 61)
        assert tried >= 100

    def test_bit_flips_with_the_real_jackpot():
        tried, _failed, _size = run("flips", "jackpot", "fram+lfs", 29)
        assert tried >= 100

    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["fram+lfs", "lfs2"])
    def test_bit_flips_at_every_byte(kind):
        run("flips", "standin", kind, 1)
