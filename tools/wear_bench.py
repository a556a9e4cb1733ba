"""Flash wear of critical memory per round, and the flash lifetime it implies.

    python -m tools.wear_bench [--rounds N] [--board fram+lfs|lfs2|both] [--rename] [--blocks]

Runs the real store (firmware/store) with the real jackpot pools (firmware/jackpot) inside
the MicroPython unix VM, on ``vfs.VfsLfs2`` over a counting NOR-flash block device
(host_tests/fakes/flash.py): by default the 1 MB littlefs region issue 4 names (256 blocks of
4 KB); ``--region-blocks 148`` is the Pico W's own, 592 KB once a ROMFS install has taken its
partition; ``progsize=256`` as the rp2 port mounts it.
Each round commits LOCK (contributions of 7 seats) and SETTLE, with their events, like the
round controller; every 50th round has a flush hit and a supervisor confirmation step.
Prints bytes programmed and blocks erased per round, the most-erased block, and the lifetime
at 60 rounds an hour, 24 h a day, every day, for an erase endurance of 100,000 cycles per
sector (Winbond W25Q16JV datasheet: "Minimum 100K Program-Erase cycles per sector"; the Pico
W's flash).
"""

import sys

MICROPYTHON = sys.implementation.name == "micropython"
BLOCK_SIZE = 4096
# The Pico W's filesystem: MicroPython's RPI_PICO_W board gives it 848 KB of the 2 MB flash
# (MICROPY_HW_FLASH_STORAGE_BYTES, ports/rp2/boards/RPI_PICO_W/mpconfigboard.h: the rest holds
# the firmware and the Wi-Fi chip's), and the ROMFS partition docs/romfs.md asks for is taken
# from it (MICROPY_HW_ROMFS_BYTES): 592 KB for critical memory's flash copy and the files.
PICO_W_STORAGE = 848 * 1024
ROMFS_PARTITION = 256 * 1024
PICO_W_BLOCKS = (PICO_W_STORAGE - ROMFS_PARTITION) // BLOCK_SIZE
REGION_BLOCKS = 256            # issue 4's measure: a 1 MB littlefs region
PROGSIZE = 256                 # rp2 port: vfs.VfsLfs2(bdev, progsize=256)
ENDURANCE = 100000             # W25Q16JV: minimum 100K program-erase cycles per sector
ROUNDS_PER_YEAR = 60 * 24 * 365
WARMUP = 50
RENAME = "--rename" in sys.argv
ROUND_SECTION = 160            # bytes of the round controller's own section (an estimate)


def measure(board, rounds, blocks=REGION_BLOCKS):
    """Run `rounds` rounds after a warm-up on a region of `blocks` blocks; print the counters
    of the flash device."""
    import vfs

    from firmware.drivers.fram import FRAM
    from firmware.jackpot import record as jrecord
    from firmware.jackpot.pools import Jackpot
    from firmware.poker import cards
    from firmware.store import eventlog
    from firmware.store.critical import STEP_CONFIRM, STEP_LOCK, STEP_SETTLE, CriticalMemory
    from firmware.store.slots import FileSlot, FramSlot
    from host_tests.fakes.flash import FlashDevice
    from host_tests.fakes.fram import FramBus

    memory = bytearray(b"\xff" * (blocks * BLOCK_SIZE))
    flash = FlashDevice(memory, BLOCK_SIZE)
    vfs.VfsLfs2.mkfs(flash, progsize=PROGSIZE)
    fs = vfs.VfsLfs2(flash, progsize=PROGSIZE)
    bus = FramBus()
    if board == "fram+lfs":
        copies = [FramSlot(FRAM(bus), 0, 16384), FileSlot(fs, "cm_b.bin", RENAME)]
    else:
        copies = [FileSlot(fs, "cm_a.bin", RENAME), FileSlot(fs, "cm_b.bin", RENAME)]
    cm = CriticalMemory(copies, fs)
    cm.boot(0, 1)
    cm.ram_clear({"jackpot": jrecord.encode(Jackpot()), "round": bytes(ROUND_SECTION)}, 0, 1, True)
    jp = Jackpot()
    seats = [1, 2, 3, 4, 5, 6, 7]
    flop = cards.parse("Ah Kh 2c")
    miss = [(s, cards.parse(["3d 4s", "5d 6s", "7d 8s", "9d Ts", "Jd Qs", "3c 5s", "6c 8d"][s - 1]), True)
            for s in seats]
    hit = [(1, cards.parse("Qh 9h"), True)] + miss[1:]
    flop_hit = cards.parse("Ah Kh 2h")
    start = None
    for r in range(1, WARMUP + rounds + 1):
        if r == WARMUP + 1:
            start = (flash.programs, flash.erases, flash.bytes_programmed, list(flash.erase_counts),
                     bus.bytes_written)
        jp.contribute(r, seats)
        round_bytes = bytes([r & 0xFF]) * ROUND_SECTION
        cm.commit(r, STEP_LOCK, {"jackpot": jrecord.encode(jp), "round": round_bytes},
                  [(eventlog.LOCK, 0, 7, 700)], r)
        if r % 50 == 0:
            cm.commit(r, STEP_CONFIRM, None, [(eventlog.SUPERVISOR_CONFIRM, 1, 1, 0)], r)
            settled = jp.settle(r, r, flop_hit, hit)
        else:
            settled = jp.settle(r, r, flop, miss)
        events = [(eventlog.JACKPOT_HIT, h[2], h[3], h[10]) for h in settled.hits]
        cm.commit(r, STEP_SETTLE, {"jackpot": jrecord.encode(jp), "round": round_bytes},
                  events + [(eventlog.SETTLE, 0, settled.total_paid(), jp.value[0])], r)
    hottest = 0
    for i in range(flash.block_count):
        hottest = max(hottest, flash.erase_counts[i] - start[3][i])
    if "--blocks" in sys.argv:
        counts = sorted([(flash.erase_counts[i] - start[3][i], i) for i in range(flash.block_count)])
        print("hottest blocks", counts[-6:], "coldest", counts[:3])
    print("BENCH board=%s blocks=%d rounds=%d programs=%d erases=%d bytes=%d hottest=%d"
          " fram_bytes=%d record=%d log=%d"
          % (board, blocks, rounds, flash.programs - start[0], flash.erases - start[1],
             flash.bytes_programmed - start[2], hottest, bus.bytes_written - start[4],
             len(cm._record), cm.log.count))


def report(line):
    """Turn one BENCH line into the printed figures; return them as a dict."""
    fields = dict(part.split("=") for part in line.split()[1:])
    rounds = int(fields["rounds"])
    erases = int(fields["erases"]) / rounds
    blocks = int(fields.get("blocks", REGION_BLOCKS))
    figures = {
        "board": fields["board"],
        "blocks": blocks,
        "rounds": rounds,
        "record": int(fields["record"]),
        "bytes_per_round": int(fields["bytes"]) / rounds,
        "programs_per_round": int(fields["programs"]) / rounds,
        "erases_per_round": erases,
        "hottest_per_round": int(fields["hottest"]) / rounds,
        "fram_bytes_per_round": int(fields["fram_bytes"]) / rounds,
    }
    # littlefs spreads erases over the region (dynamic wear levelling, block_cycles=100)
    figures["years"] = blocks * ENDURANCE / (erases * ROUNDS_PER_YEAR)
    figures["pico_w_years"] = PICO_W_BLOCKS * ENDURANCE / (erases * ROUNDS_PER_YEAR)
    figures["hottest_years"] = (ENDURANCE / (figures["hottest_per_round"] * ROUNDS_PER_YEAR)
                                if figures["hottest_per_round"] else float("inf"))
    print("board %s (%s), %d rounds measured after %d warm-up rounds, record %d bytes"
          % (figures["board"], "FRAM copy + littlefs file" if figures["board"] == "fram+lfs"
             else "two littlefs files", rounds, WARMUP, figures["record"]))
    print("  flash bytes programmed per round  %8.0f" % figures["bytes_per_round"])
    print("  flash program operations / round  %8.1f" % figures["programs_per_round"])
    print("  flash blocks erased per round     %8.2f" % figures["erases_per_round"])
    print("  most-erased block, erases / round %8.3f" % figures["hottest_per_round"])
    print("  FRAM bytes written per round      %8.0f" % figures["fram_bytes_per_round"])
    print("  lifetime, %d KB region, %d cycles, 60 rounds/h 24/7: %.1f years (even wear)"
          % (blocks * BLOCK_SIZE // 1024, ENDURANCE, figures["years"]))
    if blocks != PICO_W_BLOCKS:
        print("  the same erases on the Pico W's %d KB (848 KB less the ROMFS partition): %.1f years"
              % (PICO_W_BLOCKS * BLOCK_SIZE // 1024, figures["pico_w_years"]))
    print("  lifetime if the most-erased block stayed the hottest:  %.1f years" % figures["hottest_years"])
    return figures


def main(argv=None):
    import argparse
    import subprocess
    from pathlib import Path

    from host_tests.runtimes import ROOT, micropython_binary
    from tools.cli import at_least

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=at_least(1), default=1000)
    parser.add_argument("--board", choices=["fram+lfs", "lfs2", "both"], default="both")
    parser.add_argument("--region-blocks", type=at_least(16), default=REGION_BLOCKS,
                        help="4 KB blocks of the littlefs region (default %d, issue 4's 1 MB; %d is "
                             "the Pico W's with a ROMFS partition)" % (REGION_BLOCKS, PICO_W_BLOCKS))
    parser.add_argument("--rename", action="store_true",
                        help="copies written to a temporary file and renamed (FileSlot rename=True)")
    parser.add_argument("--blocks", action="store_true",
                        help="also list the most- and least-erased blocks (erases, block number)")
    args = parser.parse_args(argv)
    boards = ["fram+lfs", "lfs2"] if args.board == "both" else [args.board]
    results = []
    for board in boards:
        command = [micropython_binary(), "-X", "heapsize=16M", str(Path(__file__)), board, str(args.rounds),
                   str(args.region_blocks)]
        for flag in ("rename", "blocks"):
            if getattr(args, flag):
                command.append("--" + flag)
        proc = subprocess.run(command, cwd=str(ROOT), capture_output=True, text=True,
                              env={"MICROPYPATH": ".frozen:" + str(ROOT)})
        lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH")]
        if proc.returncode or not lines:
            print(proc.stdout + proc.stderr, file=sys.stderr)
            raise SystemExit("wear bench failed under MicroPython")
        results.append(report(lines[0]))
        for line in proc.stdout.splitlines():
            if line.startswith("hottest blocks"):
                print("  " + line)
    return results


if __name__ == "__main__":
    if MICROPYTHON:
        measure(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
