"""Heap of the firmware on a 32-bit MicroPython VM beside the x64 unix VM:
`python -m tools.heap32 [--rounds N]`.

The unix VM this project tests on is x86-64 (8-byte words, 32-byte GC blocks); the boards are
32-bit.  This runs the table benchmark's program (tools/mp/table_bench.py) from the same
bytecode-only .mpy files on both the unix VM and MicroPython's webassembly port (32-bit, under
Node; npm package @micropython/micropython-webassembly-pyscript, installed into .deps/wasm on
first use) and prints, side by side, the heap the firmware's modules, the simulated board and
the table's objects take once imported.  It is a cross-check of word size, not a budget: the
webassembly port grows its heap on demand (no -X heapsize) and collects garbage only between
calls from JavaScript, so only the figures taken right after imports compare.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from host_tests.runtimes import micropython_binary
from tools.table_bench import build_tree

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@micropython/micropython-webassembly-pyscript@1.27.0"
PACKAGE_DIR = ROOT / ".deps" / "wasm"
RUNNER = ROOT / "tools" / "wasm" / "run.mjs"
SCRIPT = ROOT / "tools" / "mp" / "table_bench.py"
ROWS = (("heap_firmware_modules", "firmware modules (UTH table, no boot checks)"),
        ("heap_simulated_board", "simulated board (fakes)"),
        ("heap_table_objects", "the table's objects after App()"))


def ensure_package():
    """Install the webassembly MicroPython package once (npm from the registry)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("heap32 needs node and npm (Debian: apt-get install nodejs npm)")
    marker = PACKAGE_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    if not marker.exists():
        PACKAGE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                        str(PACKAGE_DIR), PACKAGE], check=True)


def figures(output):
    """The "key value" lines of the benchmark program as a dict."""
    return dict(line.split(None, 1) for line in output.splitlines() if len(line.split()) == 2)


def run_unix(tree, rounds):
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, MICROPYPATH=".frozen:" + tree)
        done = subprocess.run([micropython_binary(), "-X", "heapsize=4m", str(SCRIPT), str(rounds),
                               state, "-"], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit("unix VM run failed:\n" + (done.stdout + done.stderr)[-2000:])
    return figures(done.stdout)


def run_wasm(tree, rounds):
    done = subprocess.run(["node", str(RUNNER), str(PACKAGE_DIR), tree, str(SCRIPT), str(rounds),
                           "/state", "-"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit("webassembly VM run failed:\n" + (done.stdout + done.stderr)[-2000:])
    return figures(done.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    ensure_package()
    with tempfile.TemporaryDirectory() as tree:
        count = build_tree(tree, arch=None)
        unix = run_unix(tree, args.rounds)
        wasm = run_wasm(tree, args.rounds)
    print("%d modules as bytecode-only .mpy (the evaluator too), heap in bytes after import"
          % count)
    print("%-48s %14s %14s %7s" % ("", "x64 unix VM", "32-bit wasm VM", "32/64"))
    for key, label in ROWS:
        a, b = int(unix[key]), int(wasm[key])
        print("%-48s %14d %14d %6d%%" % (label, a, b, b * 100 // a))
    for name, f in (("x64 unix VM", unix), ("32-bit wasm VM", wasm)):
        print("%-15s played %s rounds, %s jackpot wagers, books balance: %s" % (
            name, f["rounds"], f["jackpot_wagers"], "yes" if f["audit_problems"] == "0" else "NO"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
