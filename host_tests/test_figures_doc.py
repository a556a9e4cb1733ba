"""A figure quoted in two pages is the same in both: docs/performance.md gathers them."""

import re

from host_tests.runtimes import ROOT


def read(name):
    return (ROOT / "docs" / name).read_text()


def number(text):
    return int(text.replace(",", ""))


def test_power_cut_points_of_the_default_run():
    text = read("critical-memory.md").split("Cut points tried (default run", 1)[1]
    rows = text.split("\n\n", 2)[1].splitlines()[2:]     # after the header and the separator
    tried = [number(re.match(r"([\d,]+) of", row.strip("| ").split("|")[-1].strip()).group(1))
             for row in rows if "**total**" not in row]
    total = number(re.search(r"\*\*([\d,]+)\*\*", rows[-1]).group(1))
    assert sum(tried) == total
    quoted = re.search(r"([\d,]+) cut points on the real MicroPython littlefs",
                       " ".join(read("performance.md").split()))
    assert number(quoted.group(1)) == total


def test_the_encoded_jackpot_state_sizes_are_the_codes():
    # the fresh and the busy table's jackpot section (host_tests/test_jackpot_record.busy_table)
    from firmware.jackpot import record
    from firmware.jackpot.pools import Jackpot
    from host_tests.test_jackpot_record import busy_table

    fresh, busy = len(record.encode(Jackpot())), len(record.encode(busy_table()))
    text = " ".join(read("jackpot.md").split())
    assert "| encoded state, fresh table | %d bytes " % fresh in text
    assert "a pending change and an open round | %d bytes " % busy in text
    text = " ".join(read("performance.md").split())
    assert "after 400 rounds with 25 hits | %d / %d / " % (fresh, busy) in text


def test_the_record_buffers_a_table_is_set_up_with_are_the_ones_the_page_names(tmp_path,
                                                                               monkeypatch):
    # docs/critical-memory.md had said every table record (0.5-2.0 KB) fits the 2,048-byte
    # buffers made at boot; split pools with an envy bonus passed it, and the buffers grew in
    # play.  Now they are made for the configuration's largest record when the table is set
    # up: 40 royal rounds on a heap with no kilobyte in one piece take no new buffer.
    from firmware.jackpot import codec
    from firmware.store import critical
    from firmware.store.critical import RECORD_CAPACITY
    from firmware.table import controller as tc
    from host_tests import test_controller
    from host_tests.test_service import Table, royal_round

    heap = test_controller.scarce_heap(monkeypatch, critical, codec, tc)
    text = " ".join(read("critical-memory.md").split())
    rows = []
    for label, config in (("one pool, seeded", test_controller.SEEDED),
                          ("split pools, envy bonus, $5 wager", test_controller.ENVY_SPLIT)):
        class ConfiguredTable(Table):
            def __init__(self, directory, config=config):
                self.directory = directory
                test_controller.Table.__init__(self, directory, jackpot_config=config)

        heap.limit = None
        directory = tmp_path / str(len(rows))
        directory.mkdir()
        t = ConfiguredTable(directory)
        t.ram_clear()
        memory = t.memory
        made = (len(t.c._jp_writer.buf), len(memory._buf))
        heap.limit = 1024
        passed, longest = None, 0
        for played in range(1, 41):
            royal_round(t)
            t.chip(1, False)
            t.chip(3, False)
            longest = max(longest, memory._length)
            if passed is None and memory._length > RECORD_CAPACITY:
                passed = (played, memory._length)
        assert (len(t.c._jp_writer.buf), len(memory._buf)) == made
        assert "| {} | {:,} bytes | {:,} bytes | {:,} bytes |".format(
            label, made[0], made[1], longest) in text
        rows.append((passed, longest))
    assert RECORD_CAPACITY == 2048 and rows[0][0] is None
    assert "one seeded pool's reaches {:,} bytes".format(rows[0][1]) in text
    (played, size), longest = rows[1]
    assert ("reach {:,} bytes at the {}th royal round and {:,} with a full log tail".format(
        size, played, longest)) in text


def test_the_romfs_page_quotes_the_bench_and_build_figures_of_the_performance_page():
    # docs/romfs.md, which a technician reads to size a board's partition, kept the fourteenth
    # session's table_bench figures (115 KB of modules from ROMFS, 168 KB smallest heap, 392 /
    # 336 KB with a supervisor) and room left (9.1 KB) after docs/performance.md had the
    # fifteenth's (110 KB, 160 KB, 288 / 176 KB, 9.3 KB).
    perf = read("performance.md")
    romfs = " ".join(read("romfs.md").split())
    session = re.search(r"Measured [\d-]+ on the (\w+) session's firmware", perf).group(1)
    modules = re.search(r"\n +firmware modules +(\d+) +(\d+)\n", perf).groups()
    smallest = re.search(r"\n    heap 128 KB .*?: (\d+) KB .*?: (\d+) KB\n", perf).groups()
    supervisor = re.search(r"\n    with a supervisor mid-run .*?: (\d+) KB .*?: (\d+) KB\n",
                           perf).groups()
    assert ("(figures of the %s session, docs/performance.md): the firmware's modules take %d KB"
            " of heap loaded from files and %d KB run from a ROMFS image"
            % (session, int(modules[0]) // 1000, int(modules[1]) // 1000)) in romfs
    assert "drops from %s KB to %s KB (%s KB to %s KB with a supervisor's void" % (
        smallest + supervisor) in romfs
    build = " ".join(perf.split("## Build", 1)[1].split())
    built = re.search(r"end of the (\w+) session\)", build).group(1)
    left = re.search(r"([\d.]+) KB and ([\d.]+) KB are left", build).groups()
    assert "(%s KB and %s KB left, %s session)" % (left + (built,)) in romfs
    assert "partition, at the end of the %s session;" % built in romfs


def test_the_romfs_page_quotes_the_32_bit_unix_vm_figures_of_the_performance_page():
    # the 32-bit unix VM's table (tools.unix32) is the board's figure: docs/romfs.md, which
    # tells a technician the program belongs in ROMFS, must quote the one measured
    perf = read("performance.md")
    romfs = " ".join(read("romfs.md").split())
    table = perf[perf.index("\n    MicroPython unix VM, 32-bit"):]
    modules = re.search(r"\n +firmware modules +(\d+) +(\d+)\n", table).groups()
    plain = re.search(r"\n    heap 128 KB .*?: (\d+) KB .*?: (\d+) KB\n", table).groups()
    supervisor = re.search(r"\n    with a supervisor mid-run .*?: (\d+) KB .*?: (\d+) KB\n",
                           table).groups()
    assert ("the modules take %d KB from files and %d KB from ROMFS"
            % (int(modules[0]) // 1000, int(modules[1]) // 1000)) in romfs
    assert ("the rounds play in 128 KB from ROMFS (smallest %s KB, %s KB with a supervisor) but "
            "not from files (%s KB, %s KB with a supervisor)"
            % (plain[1], supervisor[1], plain[0], supervisor[0])) in romfs
