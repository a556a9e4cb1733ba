"""Table budgets on the MicroPython VM: `python -m tools.table_bench [--rounds N]`.

Compiles the whole firmware (the evaluator as native code, as the board build does), the
simulated board and its fakes to .mpy for the unix VM (x64), then runs
tools/mp/table_bench.py under `micropython -X heapsize=128k`: boot, RAM clear, N full
seven-seat rounds from the shoe, and prints

- micropython.mem_peak() after the rounds (the whole firmware fits a 128 KB heap or fails);
- whether 400 idle main-loop ticks run under heap_lock (no allocation in steady state);
- the main-loop tick time on this host's VM (median, max) against the 20 ms tick;
- how many ticks from a chip put on a spot to its ring lighting (40 ms of it is debounce);
- the time to settle a full seven-seat UTH table with Trips and the jackpot wager.
The VM runs on the host's x86 core, many times faster than an RP2040 at 125 MHz: the tick
and settle times are upper bounds only for this VM, not figures for the board.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from host_tests.runtimes import micropython_binary
from tools.build import HOT_MODULES, compile_module

ROOT = Path(__file__).resolve().parent.parent
HEAP = "128k"
TREES = ("firmware", "boards", "host_tests/fakes")
EXTRA = ("host_tests/__init__.py",)
SIM_BOARD = ("boards/__init__.py", "boards/base.py", "boards/simulated.py")
TICK_BUDGET_US = 20000


def build_tree(out, arch="x64"):
    """Compile every module the benchmark imports to .mpy under out (for arch, hot ones
    native; arch None: all bytecode)."""
    sources = list(EXTRA)
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if tree == "boards" and rel not in SIM_BOARD:
                continue
            sources.append(rel)
    for rel in sources:
        compile_module(rel, Path(out) / (rel[:-3] + ".mpy"), arch,
                       arch is not None and rel in HOT_MODULES, ROOT)
    return len(sources)


def run_vm(tree, rounds, heap):
    """Run the benchmark with a heap of `heap` (e.g. "128k"); (ok, figures or error text)."""
    env = dict(os.environ, MICROPYPATH=".frozen:" + tree)
    with tempfile.TemporaryDirectory() as state:
        result = subprocess.run([micropython_binary(), "-X", "heapsize=" + heap,
                                 str(ROOT / "tools/mp/table_bench.py"), str(rounds), state],
                                env=env, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines()
        return False, lines[-1] if lines else "exit %d" % result.returncode
    return True, dict(line.split(None, 1) for line in result.stdout.splitlines() if line.strip())


def smallest_heap(tree, rounds, low_k, high_k, step_k=16):
    """The smallest heap (KB, in step_k steps) in which the rounds complete, or None."""
    ok, _ = run_vm(tree, rounds, "%dk" % high_k)
    if not ok:
        return None
    while high_k - low_k > step_k:
        mid = (low_k + high_k) // 2 // step_k * step_k
        if run_vm(tree, rounds, "%dk" % mid)[0]:
            high_k = mid
        else:
            low_k = mid
    return high_k


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--heap", default=HEAP, help="heap size to try first (default 128k)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tree:
        count = build_tree(tree)
        ok, f = run_vm(tree, args.rounds, args.heap)
        heap = args.heap
        if not ok:
            print("MicroPython unix VM, -X heapsize=%s: FAILED (%s)" % (args.heap, f))
            needed = smallest_heap(tree, args.rounds, int(args.heap.rstrip("k")), 2048)
            if needed is None:
                raise SystemExit("the rounds did not complete even with a 2 MB heap")
            heap = "%dk" % needed
            print("smallest heap that plays the rounds (16 KB steps): %s" % heap)
            ok, f = run_vm(tree, args.rounds, heap)
    print("MicroPython unix VM (x64: 8-byte words), -X heapsize=%s, %d modules loaded from .mpy"
          % (heap, count))
    print("rounds played             %s (%s jackpot wagers, jackpot rounds %s, books balance: %s)" % (
        f["rounds"], f["jackpot_wagers"], f["jackpot_rounds"],
        "yes" if f["audit_problems"] == "0" else "NO"))
    print("mem_peak                  %s bytes" % f["mem_peak"])
    print("heap in use after rounds  %s bytes: firmware modules %s, simulated board (fakes) %s,"
          % (f["mem_alloc_after"], f["heap_firmware_modules"], f["heap_simulated_board"]))
    print("                          the table's objects after App() %s" % f["heap_table_objects"])
    print("idle tick allocates       %s" % ("nothing (400 ticks under heap_lock)"
                                            if f["steady_tick_no_alloc"] == "1" else "YES"))
    print("tick time (VM, this host) median %s us, max %s us (budget %d us)" % (
        f["tick_us_median"], f["tick_us_max"], TICK_BUDGET_US))
    print("chip to lit ring          %s ticks (debounce 40 ms = 2 ticks, then lit in the next)"
          % f["chip_to_light_ticks"])
    print("settle 7-seat UTH table   %s us (Ante, Blind, Play, Trips, jackpot)" % f["settle7_us"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
