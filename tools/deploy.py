"""Build the firmware for a board and install it on the connected board with mpremote.

`python -m tools.deploy --board pico_w [--port /dev/ttyACM0] [--key FILE] [--dry-run]`

Steps, each one mpremote command (--dry-run prints them and runs nothing):
1. remove the previous program (main.py, board.mpy, boards/, firmware/, manifest.json);
   configuration, critical memory and logs on the board are left alone;
2. copy the new build, main.py last, so a copy cut short never starts a half program;
3. install umqtt.simple into /lib with `mpremote mip install`: a linked table's MQTT client
   (firmware/link/umqtt_client.py; without it the board falls back to the own client,
   docs/link.md); files under lib/ are reported by program verification as not covered;
4. with --key, provision the HMAC key as manifest.key, so the board checks the manifest's HMAC;
5. reset the board, which then verifies the program and starts it.
"""

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from firmware import manifest
from tools import build as builder

MQTT_PACKAGE = "umqtt.simple"
FIRST_PROGRAM_FILE = "main.py"     # copied last: nothing starts until the rest is in place

# Runs on the board: delete the named files and folders of the previous program.
REMOVE_SCRIPT = """\
import os
def rm(p):
    try:
        if os.stat(p)[0] & 0x4000:
            for n in os.listdir(p):
                rm(p + "/" + n)
            os.rmdir(p)
        else:
            os.remove(p)
    except OSError:
        pass
for p in (%s,):
    rm(p)
"""


class DeployError(Exception):
    """A deploy step failed; the message says which."""


def mpremote_program():
    """The mpremote command installed beside this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "mpremote"
    if beside.exists():
        return str(beside)
    return shutil.which("mpremote") or "mpremote"


def top_level_entries(out):
    """Names directly inside the build folder, main.py last."""
    names = sorted(p.name for p in Path(out).iterdir())
    if FIRST_PROGRAM_FILE not in names or manifest.MANIFEST_NAME not in names:
        raise DeployError("%s is not a build folder (no %s or %s)"
                          % (out, FIRST_PROGRAM_FILE, manifest.MANIFEST_NAME))
    names.remove(FIRST_PROGRAM_FILE)
    return names + [FIRST_PROGRAM_FILE]


def commands(out, port=None, key_file=None, mip=True, mpremote=None):
    """The mpremote command lines that install the build in `out`, in order."""
    mpremote = mpremote or mpremote_program()
    connect = [mpremote, "connect", port or "auto"]
    entries = top_level_entries(out)
    names = ", ".join('"%s"' % name for name in entries)
    steps = [connect + ["exec", REMOVE_SCRIPT % names]]
    steps.append(connect + ["fs", "cp", "-r"] + [str(Path(out) / name) for name in entries] + [":"])
    if mip:
        steps.append(connect + ["mip", "install", MQTT_PACKAGE])
    if key_file is not None:
        steps.append(connect + ["fs", "cp", str(key_file), ":" + manifest.KEY_NAME])
    steps.append(connect + ["reset"])
    return steps


def deploy(board, port=None, out=None, key_file=None, build_id=None, mip=True, dry_run=False,
           run=subprocess.run, echo=print, root=builder.ROOT):
    """Build `board` (from the project at root) and install it; return the command lines,
    which run only when not dry_run."""
    key = builder.read_key(key_file) if key_file else None
    result = builder.build(board, out, key, build_id, root)
    echo("built %s %s, digest %s" % (board, result.build_id, result.digest))
    steps = commands(result.out, port, key_file, mip)
    for command in steps:
        echo(("would run: " if dry_run else "$ ") + shlex.join(command))
        if dry_run:
            continue
        completed = run(command)
        if completed.returncode != 0:
            raise DeployError("step failed (exit %d): %s" % (completed.returncode, shlex.join(command)))
    return steps


def parser():
    p = argparse.ArgumentParser(prog="python -m tools.deploy",
                                description="Build the firmware and install it on a board with mpremote.")
    p.add_argument("--board", required=True, choices=sorted(builder.BOARD_ARCH))
    p.add_argument("--port", help="serial port of the board (default: mpremote's auto)")
    p.add_argument("--out", help="build folder (default build/BOARD)")
    p.add_argument("--key", help="HMAC key file: authenticates the manifest and is provisioned on the board")
    p.add_argument("--build-id", help="identifier written into the manifest (default: git describe)")
    p.add_argument("--no-mip", action="store_true", help="do not install %s" % MQTT_PACKAGE)
    p.add_argument("--dry-run", action="store_true", help="print the mpremote commands, run nothing")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        deploy(args.board, args.port, args.out, args.key, args.build_id, not args.no_mip, args.dry_run)
    except (builder.BuildError, DeployError) as error:
        print("deploy failed: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
