"""Build the firmware for a board and install it on the connected board with mpremote.

`python -m tools.deploy --board pico_w [--port /dev/ttyACM0] [--key FILE] [--romfs] [--dry-run]`

Steps, each one mpremote command (--dry-run prints them and runs nothing):
1. remove the previous program (main.py, board.mpy, boards/, firmware/, manifest.json);
   configuration, critical memory and logs on the board are left alone;
2. copy the new build, main.py last, so a copy cut short never starts a half program;
   with --romfs instead: before step 1, write the build's ROMFS image (tools/build.py) to
   ROMFS partition 0 with `mpremote romfs deploy`, so a board without a ROMFS partition, or
   with one smaller than the image (mpremote refuses it), fails before anything is removed;
   then after step 1 copy only main.py to the flash filesystem (MicroPython runs /main.py at
   boot; it imports the program from /rom, docs/romfs.md);
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
ROMFS_PARTITION = 0                # the partition MicroPython mounts at /rom at boot

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


def commands(out, port=None, key_file=None, mip=True, mpremote=None, romfs=None):
    """The mpremote command lines that install the build in `out`, in order; with romfs (the
    path of the build's ROMFS image) the program goes to ROMFS partition 0 and only main.py
    to the flash filesystem."""
    mpremote = mpremote or mpremote_program()
    connect = [mpremote, "connect", port or "auto"]
    entries = top_level_entries(out)
    names = ", ".join('"%s"' % name for name in entries)
    remove = connect + ["exec", REMOVE_SCRIPT % names]
    if romfs is None:
        steps = [remove, connect + ["fs", "cp", "-r"] + [str(Path(out) / name) for name in entries] + [":"]]
    else:
        if not Path(romfs).is_file() or Path(romfs).suffix != builder.ROMFS_SUFFIX:
            # mpremote reads a path as an image only when it is a file named *.romfs
            raise DeployError("%s is not a ROMFS image file (*%s)" % (romfs, builder.ROMFS_SUFFIX))
        # The image goes first: a board without a ROMFS partition, or with one too small,
        # fails this step and keeps its previous program.
        steps = [connect + ["romfs", "--partition", str(ROMFS_PARTITION), "deploy", str(romfs)], remove,
                 connect + ["fs", "cp", str(Path(out) / FIRST_PROGRAM_FILE), ":" + FIRST_PROGRAM_FILE]]
    if mip:
        steps.append(connect + ["mip", "install", MQTT_PACKAGE])
    if key_file is not None:
        steps.append(connect + ["fs", "cp", str(key_file), ":" + manifest.KEY_NAME])
    steps.append(connect + ["reset"])
    return steps


def deploy(board, port=None, out=None, key_file=None, build_id=None, mip=True, dry_run=False,
           run=subprocess.run, echo=print, root=builder.ROOT, romfs=False):
    """Build `board` (from the project at root) and install it, with romfs as a ROMFS image;
    return the command lines, which run only when not dry_run."""
    key = builder.read_key(key_file) if key_file else None
    result = builder.build(board, out, key, build_id, root, romfs=romfs)
    echo("built %s %s, digest %s" % (board, result.build_id, result.digest))
    if result.romfs is not None:
        echo("ROMFS image %s, %d bytes (mpremote refuses it if the board's ROMFS partition is "
             "smaller)" % (result.romfs, result.romfs_size))
    steps = commands(result.out, port, key_file, mip, romfs=result.romfs)
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
    p.add_argument("--romfs", action="store_true",
                   help="install the program as a ROMFS image in partition %d, main.py on the flash "
                   "filesystem (needs a MicroPython built with a ROMFS partition, docs/romfs.md)"
                   % ROMFS_PARTITION)
    p.add_argument("--dry-run", action="store_true", help="print the mpremote commands, run nothing")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        deploy(args.board, args.port, args.out, args.key, args.build_id, not args.no_mip, args.dry_run,
               romfs=args.romfs)
    except (builder.BuildError, DeployError) as error:
        print("deploy failed: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
