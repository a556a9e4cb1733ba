"""Type-check each board module against its own port's official MicroPython stubs.

`python -m tools.check_boards [pico_w|esp32_s3 ...]`

The stub packages (micropython-rp2-stubs, micropython-esp32-stubs) are stub-only
distributions that all install `machine.pyi`, `micropython.pyi`, ... at the top of
site-packages, so in one environment the last one installed wins and the other port's
`machine` is gone.  This tool therefore installs each port's stubs, with the
micropython-stdlib-stubs they depend on, into its own folder under build/board-stubs/
(once; pip's cache makes repeats cheap) and turns that folder into a MicroPython
"typeshed": the stdlib stubs plus the port modules under stdlib/, listed in VERSIONS.  mypy
then runs with --custom-typeshed-dir on that folder and --no-site-packages, so a board module
sees exactly its port's `machine` and MicroPython's builtins, and errors inside the stubs
themselves (there are some) are not reported, as for any typeshed.
"""

import argparse
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUB_ROOT = ROOT / "build" / "board-stubs"
STDLIB_STUBS = "micropython-stdlib-stubs"

# board module -> the stub distribution of its MicroPython port
BOARD_STUBS = {
    "pico_w": "micropython-rp2-stubs",
    "esp32_s3": "micropython-esp32-stubs",
}

MYPY_FLAGS = (
    "--check-untyped-defs",     # make() has no annotations; its body must still be checked
    "--no-site-packages",       # never fall back on the merged site-packages stubs
    "--no-error-summary",
    "--hide-error-context",
    "--show-error-codes",
)


class StubError(RuntimeError):
    """The stubs for a board could not be installed."""


def installed_version(distribution):
    """Version of `distribution` in this environment (pinned so the checks match the venv)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError as error:
        raise StubError("%s is not installed in this environment (see pyproject.toml)"
                        % distribution) from error


def _install(requirements, target):
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-deps", "--target", str(target), *requirements]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise StubError("could not install %s:\n%s" % (" ".join(requirements), result.stderr))


def _make_typeshed(source, typeshed):
    """Lay out `typeshed` from an installed stub tree `source` (see the module docstring)."""
    stdlib = typeshed / "stdlib"
    shutil.copytree(source / "stdlib", stdlib)
    shutil.copytree(source / "stubs", typeshed / "stubs")
    added = []
    for entry in sorted(source.iterdir()):
        if entry.name in ("stdlib", "stubs") or entry.name.endswith(".dist-info"):
            continue
        if entry.suffix == ".pyi":
            shutil.copy2(entry, stdlib / entry.name)
            added.append(entry.stem)
        elif entry.is_dir() and any(entry.rglob("*.pyi")):
            shutil.copytree(entry, stdlib / entry.name, dirs_exist_ok=True)
            added.append(entry.name)
    versions = stdlib / "VERSIONS"
    listed = set()
    for line in versions.read_text().splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            listed.add(line.split(":")[0].strip())
    with versions.open("a") as out:
        for name in added:
            if name not in listed:
                out.write("%s: 3.0-\n" % name)


def typeshed_for(board):
    """Path of the MicroPython typeshed for `board`, installing it on first use."""
    if board not in BOARD_STUBS:
        raise ValueError("unknown board %r: expected one of %s" % (board, ", ".join(sorted(BOARD_STUBS))))
    port = BOARD_STUBS[board]
    pins = ["%s==%s" % (port, installed_version(port)),
            "%s==%s" % (STDLIB_STUBS, installed_version(STDLIB_STUBS))]
    folder = STUB_ROOT / ("_".join(pins).replace("==", "-"))
    typeshed = folder / "typeshed"
    if typeshed.is_dir():
        return typeshed
    # Built aside and renamed into place, so an interrupted run never leaves half a typeshed.
    shutil.rmtree(folder, ignore_errors=True)
    _install(pins, folder / "installed")
    _make_typeshed(folder / "installed", folder / "typeshed.partial")
    (folder / "typeshed.partial").rename(typeshed)
    return typeshed


def run_mypy(board, files, cwd=ROOT):
    """Run mypy on `files` against `board`'s stubs; return the CompletedProcess."""
    typeshed = typeshed_for(board)
    empty_config = typeshed.parent / "mypy.ini"
    if not empty_config.exists():
        empty_config.write_text("[mypy]\n")
    command = [sys.executable, "-m", "mypy", "--custom-typeshed-dir", str(typeshed),
               "--config-file", str(empty_config),
               "--cache-dir", str(typeshed.parent / ("mypy-cache-" + board)),
               *MYPY_FLAGS, *[str(f) for f in files]]
    return subprocess.run(command, cwd=str(cwd), capture_output=True, text=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", default=sorted(BOARD_STUBS), metavar="BOARD",
                        help="the boards to check (default all: %s)" % ", ".join(sorted(BOARD_STUBS)))
    args = parser.parse_args(argv)
    for board in args.boards:
        if board not in BOARD_STUBS:
            parser.error("unknown board %r (known: %s)" % (board, ", ".join(sorted(BOARD_STUBS))))
    failed = 0
    for board in args.boards:
        result = run_mypy(board, [ROOT / "boards" / (board + ".py")])
        status = "ok" if result.returncode == 0 else "FAILED"
        print("%-9s %s against %s" % (board, status, BOARD_STUBS[board]))
        if result.returncode != 0:
            failed = 1
            print(result.stdout + result.stderr)
    return failed


if __name__ == "__main__":
    sys.exit(main())
