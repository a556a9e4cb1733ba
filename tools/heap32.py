"""The firmware's heap on a 32-bit MicroPython VM beside the x64 unix VM:
`python -m tools.heap32 [--rounds N] [--heap KB]`.

The unix VM this project tests on is x86-64 (8-byte words, 32-byte GC blocks); the boards are
32-bit.  This plays the table (tools/mp/table_ticks.py: boot as the board's main.py does, then
N seven-seat rounds from the shoe, with a supervisor's void and audit menu halfway) from a
ROMFS image of the bytecode-only .mpy files, in place, on both the unix VM and MicroPython's
webassembly port (1.29, 32-bit, under Node; the npm package
@micropython/micropython-webassembly-pyscript, installed into .deps/wasm on first use), which
takes the image as a board takes its ROMFS partition: outside the heap.

That port cannot collect garbage inside a call from JavaScript (a collection asked for there
waits for the call to end) and grows its heap when an allocation does not fit, instead of
failing, so the table is played one tick per call and the garbage collected between ticks,
on both VMs alike.  A heap size is tried by giving the firmware exactly the free heap a fresh
VM of that size has where a program starts (a ballast takes the rest), and it is enough when
the VM's heap never grew: every tick's own work fitted beside what the firmware held, with no
collection inside the tick, which a board's VM would make.  The boot's program check runs in a
VM of its own, the x64 one, and its findings are given to both runs: in one call its 200 KB
of garbage, which a board's VM collects as it goes, would grow the webassembly VM's heap, and
that port's file system reports a missing file with Emscripten's error number (44), not
MicroPython's ENOENT (2) as a board's littlefs does, so the check would take the board's
absent provisioned key for an unreadable one.

It prints, side by side: the heap the firmware's modules and the table's objects take, the most
the firmware held live at a tick's end (and in which phase); then whether the rounds complete in
the heap under test on the 32-bit VM, and the smallest heap that plays them (8 KB steps).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from host_tests.runtimes import micropython_binary
from tools.build import romfs_image
from tools.cli import at_least
from tools.table_bench import MIN_HEAP_K, build_tree, write_config

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@micropython/micropython-webassembly-pyscript@1.29.0-6"
PACKAGE_DIR = ROOT / ".deps" / "wasm"
RUNNER = ROOT / "tools" / "wasm" / "ticks.mjs"
SCRIPT = ROOT / "tools" / "mp" / "table_ticks.py"
HEAP_K = 128
STEP_K = 8            # the smallest heap is searched in steps of this many KB
FIRST_AREA = 256 * 1024  # the webassembly VM's first heap area: the heap under test, the
                      # simulated board and this program; the ballast takes what is left
UNIX_HEAP = "1m"      # the unix VM's heap: figures only, no ballast (the table_bench budgets)
ROWS = (("heap_firmware_modules", "firmware modules (bytes)"),
        ("heap_table_objects", "the table's objects after App() (bytes)"),
        ("live_max", "most held live at a tick's end (bytes)"))


def ensure_package():
    """Install the webassembly MicroPython package once (npm from the registry)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("heap32 needs node and npm (Debian: apt-get install nodejs npm)")
    marker = PACKAGE_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    if not (marker / "package.json").exists() or \
            json.loads((marker / "package.json").read_text())["version"] != PACKAGE.rsplit("@", 1)[1]:
        PACKAGE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                        str(PACKAGE_DIR), PACKAGE], check=True)


def figures(output):
    """The "key value" lines of the program as a dict."""
    return dict(line.split(None, 1) for line in output.splitlines() if " " in line.strip())


def _done(run, what):
    if run.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (what, (run.stdout + run.stderr)[-2000:]))
    return run.stdout


def unix(args, image):
    env = dict(os.environ, MICROPYPATH=".frozen")
    return _done(subprocess.run([micropython_binary(), "-X", "heapsize=" + UNIX_HEAP, str(SCRIPT)]
                                + [str(a) for a in args] + [image], env=env, capture_output=True,
                                text=True, timeout=600), "the unix VM run")


def wasm(args, image, state, heap=FIRST_AREA):
    return _done(subprocess.run(["node", str(RUNNER), str(PACKAGE_DIR), str(heap), image, state,
                                 str(SCRIPT)] + [str(a) for a in args], capture_output=True,
                                text=True, timeout=600), "the webassembly VM run")


def wasm_free(heap_k, image, state):
    """What a fresh webassembly VM of heap_k KB has free where a program starts (as its
    gc.mem_free() counts it, which adds the room it could still grow by)."""
    return int(wasm(["free"], image, state, heap_k * 1024).split()[1])


def prepared_state(work, program):
    """A new state folder (the table's FRAM and flash, config.json, program.json)."""
    state = tempfile.mkdtemp(dir=work)
    write_config(state)
    Path(state, "program.json").write_text(program)
    return state


def wasm_rounds(work, image, program, rounds, heap_k):
    """The 32-bit run's figures with the firmware's room of a heap_k KB VM."""
    state = prepared_state(work, program)
    return figures(wasm([rounds, "/state", wasm_free(heap_k, image, state)], image, state))


def plays(f, rounds):
    """The rounds completed, every jackpot wager taken, the supervisor's void and audit menu
    done, the table back in OPEN, the books balanced, the heap never grew."""
    return (f.get("rounds") == str(rounds) and f.get("jackpot_wagers") == str(7 * rounds)
            and f.get("voids") == "1" and f.get("audit_opened") == "1"
            and f.get("phase_at_end") == "OPEN" and f.get("audit_problems") == "0"
            and f.get("heap_grew") == "never")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=at_least(1), default=100)
    parser.add_argument("--heap", type=at_least(MIN_HEAP_K), default=HEAP_K, help="heap KB under test (128)")
    args = parser.parse_args(argv)
    ensure_package()
    with tempfile.TemporaryDirectory() as work:
        tree = os.path.join(work, "tree")
        count = build_tree(tree, arch=None)
        image = os.path.join(work, "tree.romfs")
        Path(image).write_bytes(romfs_image(tree))
        program = unix(["program", prepared_state(work, "{}")], image).split(None, 1)[1]
        x64 = figures(unix([args.rounds, prepared_state(work, program), 0], image))
        heap_k = args.heap
        first = b32 = wasm_rounds(work, image, program, args.rounds, heap_k)
        if plays(first, args.rounds):
            while heap_k > STEP_K:
                f = wasm_rounds(work, image, program, args.rounds, heap_k - STEP_K)
                if not plays(f, args.rounds):
                    break
                heap_k, b32 = heap_k - STEP_K, f
        else:
            while not plays(b32, args.rounds) and heap_k < 4 * args.heap:
                heap_k += STEP_K
                b32 = wasm_rounds(work, image, program, args.rounds, heap_k)
    print("%d modules as bytecode-only .mpy in a ROMFS image, run in place; %d rounds, the "
          "garbage collected between ticks" % (count, args.rounds))
    print("%-44s %16s %16s %7s" % ("", "x64 unix VM", "32-bit wasm VM", "32/64"))
    for key, label in ROWS:
        a, b = int(x64[key]), int(first[key])
        print("%-44s %16d %16d %6d%%" % (label, a, b, b * 100 // a))
    print("%-44s %16s %16s" % ("  in phase", x64["live_max_phase"], first["live_max_phase"]))
    for name, f in (("x64 unix VM", x64), ("32-bit wasm VM", first)):
        print("%-15s boot checks: %s, %s; played %s rounds, %s jackpot wagers, %s void, audit "
              "menu opened %s, books balance: %s" % (
                  name, json.loads(program)["reason"],
                  f["config_check"], f.get("rounds", 0), f.get("jackpot_wagers", 0),
                  f.get("voids", 0), f.get("audit_opened", 0),
                  "yes" if f.get("audit_problems") == "0" else "NO"))
    print("32-bit wasm VM, the firmware's room of a %d KB heap: %s" % (
        args.heap, "rounds complete, the heap never grew" if plays(first, args.rounds)
        else "FAILED (the heap grew: %s)" % first.get("heap_grew")))
    print("32-bit wasm VM, smallest heap that plays (%d KB steps): %s" % (
        STEP_K, "%d KB" % heap_k if plays(b32, args.rounds) else "over %d KB" % heap_k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
