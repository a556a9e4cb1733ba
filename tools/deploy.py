"""Build the firmware for a board and install it on the connected board with mpremote.

`python -m tools.deploy --board pico_w [--port /dev/ttyACM0] [--key FILE] [--romfs] [--dry-run]`

Steps, each one mpremote command (--dry-run builds, then prints them and runs none); the first one's
command starts by checking the board's kind (BOARD_KIND: MicroPython's platform and chip), so a
build for another kind of board is refused before anything on the board changes, and so,
without --romfs, is a board whose program is a ROMFS image (docs/romfs.md), without --key a
board holding an HMAC key, and a board holding program files the deploy would not replace
(outside lib/): each would make the board refuse the new program at boot.  A board that passes
has the running table's watchdog stopped where the port allows it (STOP_WATCHDOG: the Pico W),
so it does not reset itself in the middle of the deploy:
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
4. with --key, provision the HMAC key as manifest.key, so the board checks the manifest's HMAC
   (and, once it has run keyed, keeps asking for it: docs/wiring.md, "Program verification");
5. reset the board, which then verifies the program and starts it.

A step that fails stops the deploy before the next one; the message names the step in words
("step 2 of 4, copying the new program"), repeats what mpremote said, says what state the board
is left in (untouched, old program removed but new one not copied, ...) and what to do (for a
board mpremote cannot reach: connect it or name its port with --port).  Without mpremote the
deploy stops before building and says how to install it.
"""

import argparse
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from firmware import manifest
from tools import build as builder

MQTT_PACKAGE = "umqtt.simple"
# boards whose RAM cannot hold the program loaded from files (docs/romfs.md): only --romfs runs
NEEDS_ROMFS = ("pico_w",)
ROMFS_NOTE = ("note: a %s cannot hold the program loaded from files in its RAM: install it with "
              "--romfs (docs/romfs.md)")
FIRST_PROGRAM_FILE = "main.py"     # copied last: nothing starts until the rest is in place
ROMFS_PARTITION = 0                # the partition MicroPython mounts at /rom at boot

# board -> (sys.platform, the end of sys.implementation._machine) of the boards its build runs
# on.  MicroPython names the machine "<board> with <MCU>" ("Raspberry Pi Pico W with RP2040",
# "Generic ESP32S3 module with ESP32S3"): the chip is what the pin map and the native code
# need, so a Pico W build is refused on an ESP32-S3 and the other way round.
BOARD_KIND = {
    "pico_w": ("rp2", "RP2040"),
    "esp32_s3": ("esp32", "ESP32S3"),
}
WRONG_BOARD = "wrong board: "

# board -> lines that stop the watchdog a running table started, run once every check passed
# (a board refused keeps it, and it restarts the table mpremote interrupted).  mpremote
# interrupts the table to reach the REPL, but machine.WDT cannot be stopped and keeps
# counting: without this the board resets itself about 2 s into the deploy (in the middle of
# the ROMFS image or the copy).  The RP2040's watchdog stops when its CTRL register's ENABLE
# bit (30) is cleared, here through the register's atomic clear alias at +0x3000 (RP2040
# datasheet 2.1.2 and 4.7.6; the pico-sdk's watchdog_disable()).  The ESP32-S3's task
# watchdog cannot be stopped from Python (docs/romfs.md says what to do).
STOP_WATCHDOG = {
    "pico_w": "import machine\nmachine.mem32[%d] = %d\n" % (0x40058000 + 0x3000, 1 << 30),
    "esp32_s3": "",
}

# Runs on the board first: refuse a board of another kind before anything on it changes.
CHECK_SCRIPT = """\
import sys
m = getattr(sys.implementation, "_machine", "")
if sys.platform != %(platform)r or not m.endswith(%(chip)r):
    raise Exception(%(wrong)r %% (m, sys.platform))
"""

# Added when the build's .mpy version is known (build_mpy): a .mpy file loads only on a VM of
# its version, and one with native code (the hand evaluator) only on the same sub-version
# (MicroPython docs, mpyfiles.rst); sys.implementation._mpy holds the board's (the version in
# bits 0..7, the sub-version in bits 8..9).  An older MicroPython on the board would stop at
# boot on "incompatible .mpy file".
OLD_MICROPYTHON = "its MicroPython loads .mpy version "
MPY_CHECK_SCRIPT = """\
v = getattr(sys.implementation, "_mpy", 0)
if v & 0xFF != %(version)d or (v >> 8) & 3 != %(sub)d:
    raise Exception(%(old)r %% (v & 0xFF, (v >> 8) & 3))
"""

# Added for a plain install: a board whose program is a ROMFS image keeps /rom/manifest.json,
# so the program check at boot would verify /rom and report the new files on the flash
# filesystem as extra (docs/romfs.md): refused until the image is replaced.
ROMFS_PROGRAM = "its program is a ROMFS image (/rom/manifest.json)"
PLAIN_CHECK_SCRIPT = """\
import os
try:
    os.stat("rom/manifest.json")
except OSError:
    pass
else:
    raise Exception(%r)
""" % ROMFS_PROGRAM

# Added for a build without an HMAC: a board holding manifest.key rejects its manifest at
# boot (firmware/manifest.py), so the program it accepts is not replaced by one it refuses.
KEYED_BOARD = "it holds an HMAC key (/%s) and this build's manifest has no HMAC" % manifest.KEY_NAME
UNKEYED_CHECK_SCRIPT = """\
import os
try:
    os.stat(%r)
except OSError:
    pass
else:
    raise Exception(%r)
""" % (manifest.KEY_NAME, KEYED_BOARD)

# Added for a ROMFS install (the image's size known): a board with no ROMFS partition 0, or
# one smaller than the image, is refused here, as `mpremote romfs query` finds the partition,
# before the board's watchdog is stopped (mpremote would refuse it too, but only then).
NO_ROOM = "no room for the ROMFS image: "
ROOM_CHECK_SCRIPT = """\
try:
    import vfs
    n = vfs.rom_ioctl(1) if hasattr(vfs, "rom_ioctl") else 0
except ImportError:
    n = 0
dev = vfs.rom_ioctl(2, 0) if n > 0 else -1
if isinstance(dev, int):
    raise Exception(%(none)r)
size = dev.ioctl(4, 0) * dev.ioctl(5, 0) if hasattr(dev, "ioctl") else len(dev)
if size < %(image)d:
    raise Exception(%(small)r %% size)
"""

# Added to every check: program files on the flash filesystem that the deploy does not replace
# (outside the build's own entries, lib/ and the /rom mount, and in lib/ those standing in for a
# built-in module: manifest.BUILTIN_NAMES) would be extra files to the check
# at boot (firmware/manifest.py), which would then refuse the new program; they are named for
# the technician to look at, never removed unseen.
STRAY_PROGRAM = "it holds program files that are not part of the program: "
STRAY_CHECK_SCRIPT = """\
import os
def program(n):
    for s in %(suffixes)r:
        if n.endswith(s):
            return True
    return False
def walk(p, found):
    for n in os.listdir(p):
        q = p + "/" + n
        if os.stat(q)[0] & 0x4000:
            walk(q, found)
        elif program(n):
            found.append(q)
found = []
for n in os.listdir():
    if n in %(skip)r:
        continue
    if os.stat(n)[0] & 0x4000:
        walk(n, found)
    elif program(n):
        found.append(n)
for u in %(unverified)r:
    try:
        names = os.listdir(u)
    except OSError:
        names = ()
    for n in names:
        t = n
        for s in %(suffixes)r:
            if t.endswith(s):
                t = t[:-len(s)]
        if t not in %(builtins)r:
            continue
        q = u + "/" + n
        if os.stat(q)[0] & 0x4000:
            walk(q, found)
        elif program(n):
            found.append(q)
if found:
    found.sort()
    raise Exception(%(stray)r + ", ".join("/" + f for f in found))
"""

# What the board says when a check refuses it (failure() gives each its hint).
REFUSALS = (WRONG_BOARD, OLD_MICROPYTHON, NO_ROOM, ROMFS_PROGRAM, KEYED_BOARD, STRAY_PROGRAM)
# What the technician does about each refusal (WRONG_BOARD's takes the board, its kind and
# the boards there are).
REFUSAL_HINTS = {
    WRONG_BOARD: "connect a %s board (%s), or deploy for the board that is connected with its "
                 "--board (%s)",
    OLD_MICROPYTHON: "install on the board the MicroPython of the mpy-cross that made the build "
                     "(`mpy-cross --version`, in the build's report) first: docs/romfs.md, \"The "
                     "MicroPython the boards need\"",
    NO_ROOM: "install on the board a MicroPython with a ROMFS partition large enough "
             "(docs/romfs.md, \"The MicroPython the boards need\"); an ESP32-S3 also takes the "
             "plain install (deploy without --romfs), a Pico W does not fit it in its RAM",
    ROMFS_PROGRAM: "deploy with --romfs, or to go back to the plain install replace the board's "
                   "ROMFS image by an empty one first (`mkdir empty && mpremote romfs deploy "
                   "empty`, docs/romfs.md)",
    KEYED_BOARD: "deploy with --key and the table's key file: the board checks the manifest's "
                 "HMAC with its key (docs/wiring.md, \"Program verification\"); a table that "
                 "ran keyed stays closed without its key until a supervisor's RAM clear",
    STRAY_PROGRAM: "look at each file, then remove it (`mpremote rm :PATH`) and deploy again: the "
                   "check at boot refuses a program file the manifest does not list "
                   "(docs/wiring.md, \"Program verification\")",
}

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
    """A deploy step failed; the message says which, what mpremote said and the board's state."""


class Step:
    """One mpremote command of a deploy: command (the argument list), what (the step in words),
    done / not_done (the board's state once it ran / if it did not), partly (the state if
    it failed after reaching the board) and kind (what mpremote does: "romfs", "mip", ...)."""

    def __init__(self, command, what, done, not_done, partly, kind=None):
        self.command = command
        self.what = what
        self.done = done
        self.not_done = not_done
        self.partly = partly
        self.kind = kind


# mpremote's messages when it could not reach the board: the step changed nothing on it.
NOT_CONNECTED = ("no device found", "failed to access", "no device with serial number",
                 "could not enter raw repl")


def mpremote_program():
    """The mpremote command installed beside this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "mpremote"
    if beside.exists():
        return str(beside)
    return shutil.which("mpremote") or "mpremote"


def missing_mpremote(program, state="the board is untouched"):
    """The error for an mpremote that cannot be run: what to install and how, and the board's
    state."""
    return DeployError("mpremote not found: install it with `%s -m pip install mpremote` (or put "
                       "mpremote on the PATH; tried %s)\nstate: %s" % (sys.executable, program, state))


SAID_TAIL = 4096                   # characters of mpremote's output kept for an error message


def run_mpremote(command):
    """Run one mpremote command: its output goes to the terminal, its error messages are
    returned in the CompletedProcess's stderr.  A command that runs a script on the board or
    writes a ROMFS image also has the last SAID_TAIL characters of its output returned in
    stdout: mpremote prints the board's error during `exec`, and refusals such as an image too
    big for the ROMFS partition, there.  (The others keep the terminal, where mpremote shows
    its copying progress bars.)"""
    if command[3:4] not in (["exec"], ["romfs"]):
        return subprocess.run(command, stderr=subprocess.PIPE, text=True)
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
        tail = ""
        for chunk in iter(lambda: process.stdout.read1(4096), b""):
            text = chunk.decode("utf-8", "replace")
            sys.stdout.write(text)
            sys.stdout.flush()
            tail = (tail + text)[-SAID_TAIL:]
        process.stdout.close()
        returncode = process.wait()
        errors.seek(0)
        said = errors.read().decode("utf-8", "replace")
    return subprocess.CompletedProcess(command, returncode, stdout=tail, stderr=said)


def top_level_entries(out):
    """Names directly inside the build folder, main.py last."""
    names = sorted(p.name for p in Path(out).iterdir())
    if FIRST_PROGRAM_FILE not in names or manifest.MANIFEST_NAME not in names:
        raise DeployError("%s is not a build folder (no %s or %s)"
                          % (out, FIRST_PROGRAM_FILE, manifest.MANIFEST_NAME))
    names.remove(FIRST_PROGRAM_FILE)
    return names + [FIRST_PROGRAM_FILE]


def check_script(board, plain=False, unkeyed=False, entries=None, mpy=None, romfs_size=None):
    """The script that stops an mpremote command on a board that is not of `board`'s kind; with
    plain (an install on the flash filesystem) on a board whose program is in ROMFS; with
    unkeyed (a build without an HMAC) on a board holding an HMAC key; with entries (the
    build's top-level names, which the deploy replaces) on a board holding other program
    files outside lib/; with mpy (the build's .mpy (version, sub-version)) on a board whose
    MicroPython cannot load them; with romfs_size (the image's bytes) on a board without a
    ROMFS partition 0 that large.  A board that passes has its watchdog stopped
    (STOP_WATCHDOG)."""
    if board not in BOARD_KIND:
        raise DeployError("no board check for %r: expected one of %s"
                          % (board, ", ".join(sorted(BOARD_KIND))))
    platform, chip = BOARD_KIND[board]
    wrong = WRONG_BOARD + "it is a %s (%s), this build is for " + "%s (%s)" % (board, chip)
    script = CHECK_SCRIPT % {"platform": platform, "chip": chip, "wrong": wrong}
    if mpy is not None:
        old = OLD_MICROPYTHON + "%d.%d, this build's are " + "%d.%d" % mpy
        script += MPY_CHECK_SCRIPT % {"version": mpy[0], "sub": mpy[1], "old": old}
    if plain:
        script += PLAIN_CHECK_SCRIPT
    if romfs_size is not None:
        script += ROOM_CHECK_SCRIPT % {
            "none": NO_ROOM + "its MicroPython has no ROMFS partition",
            "small": NO_ROOM + "ROMFS partition 0 holds %d bytes, the image " + "%d" % romfs_size,
            "image": romfs_size}
    if unkeyed:
        script += UNKEYED_CHECK_SCRIPT
    if entries is not None:
        # what the boot check does not count either: the /rom mount and lib/ (mip's packages)
        unverified = tuple(prefix.rstrip("/") for prefix in manifest.UNVERIFIED_PREFIXES)
        skip = ("rom",) + unverified + tuple(entries)
        script += STRAY_CHECK_SCRIPT % {"suffixes": tuple(manifest.PROGRAM_SUFFIXES), "skip": skip,
                                        "stray": STRAY_PROGRAM, "unverified": unverified,
                                        "builtins": manifest.BUILTIN_NAMES}
    # Last: a board refused keeps its watchdog, which restarts the interrupted table.
    return script + STOP_WATCHDOG.get(board, "")


def build_mpy(out):
    """(version, sub-version) of the .mpy files of the build in `out`, from the header of its
    native hot module (MicroPython docs, mpyfiles.rst: b"M", the version, then the
    architecture and the sub-version in the third byte's bits 2..7 and 0..1)."""
    path = Path(out) / (builder.HOT_MODULES[0][:-3] + ".mpy")
    try:
        header = path.read_bytes()[:3]
    except OSError as error:
        raise DeployError("%s: cannot read the build's %s: %s" % (out, path.name, error.strerror)) from None
    if len(header) < 3 or header[:1] != b"M":
        raise DeployError("%s is not a .mpy file" % path)
    return header[1], header[2] & 3


def _image_size(romfs):
    """Bytes of the ROMFS image file `romfs` (None: no image, or none there; plan() refuses it)."""
    if romfs is None or not Path(romfs).is_file():
        return None
    return Path(romfs).stat().st_size


def build_board(out):
    """The board the build in `out` is for, as its manifest says."""
    try:
        return manifest.parse((Path(out) / manifest.MANIFEST_NAME).read_bytes())[0]
    except (OSError, ValueError) as error:
        raise DeployError("%s: cannot read the build's manifest: %s" % (out, error)) from None


def plan(out, port=None, key_file=None, mip=True, mpremote=None, romfs=None):
    """The Steps that install the build in `out`, in order; with romfs (the path of the
    build's ROMFS image) the program goes to ROMFS partition 0 and only main.py to the flash
    filesystem.  The first step's command checks the board's kind (check_script) before it
    changes anything."""
    mpremote = mpremote or mpremote_program()
    connect = [mpremote, "connect", port or "auto"]
    entries = top_level_entries(out)
    check = ["exec", check_script(build_board(out), plain=romfs is None, unkeyed=key_file is None,
                                  entries=entries, mpy=build_mpy(out), romfs_size=_image_size(romfs))]
    names = ", ".join('"%s"' % name for name in entries)
    remove = ["exec", REMOVE_SCRIPT % names]
    removed = ("removing the old program", "the old program is removed", "the old program is not removed",
               "the old program is not (or only partly) removed")
    if romfs is None:
        steps = [Step(connect + check + remove, *removed, kind="exec"),
                 Step(connect + ["fs", "cp", "-r"] + [str(Path(out) / name) for name in entries] + [":"],
                      "copying the new program", "the new program is copied",
                      "the new program is not copied",
                      "the new program is not (or only partly) copied (main.py goes last, so a part does "
                      "not start)")]
    else:
        if not Path(romfs).is_file() or Path(romfs).suffix != builder.ROMFS_SUFFIX:
            # mpremote reads a path as an image only when it is a file named *.romfs
            raise DeployError("%s is not a ROMFS image file (*%s)" % (romfs, builder.ROMFS_SUFFIX))
        # The image goes first: a board without a ROMFS partition, or with one too small,
        # fails this step and keeps its previous program.
        steps = [Step(connect + check + ["romfs", "--partition", str(ROMFS_PARTITION), "deploy", str(romfs)],
                      "writing the ROMFS image to partition %d" % ROMFS_PARTITION,
                      "the new ROMFS image is written", "the new ROMFS image is not written",
                      "the new ROMFS image is not (or only partly) written", kind="romfs"),
                 Step(connect + remove, *removed, kind="exec"),
                 Step(connect + ["fs", "cp", str(Path(out) / FIRST_PROGRAM_FILE), ":" + FIRST_PROGRAM_FILE],
                      "copying main.py", "main.py is copied", "main.py is not copied",
                      "main.py is not (or only partly) copied")]
    if mip:
        steps.append(Step(connect + ["mip", "install", MQTT_PACKAGE],
                          "installing %s with mip" % MQTT_PACKAGE, "%s is installed" % MQTT_PACKAGE,
                          "%s is not installed" % MQTT_PACKAGE,
                          "%s is not (or only partly) installed" % MQTT_PACKAGE, kind="mip"))
    if key_file is not None:
        steps.append(Step(connect + ["fs", "cp", str(key_file), ":" + manifest.KEY_NAME],
                          "provisioning the HMAC key", "the HMAC key is provisioned",
                          "the HMAC key is not provisioned",
                          "the HMAC key is not (or only partly) provisioned"))
    steps.append(Step(connect + ["reset"], "resetting the board", "the board is reset",
                      "the board is not reset", "the board may not have reset"))
    return steps


def commands(out, port=None, key_file=None, mip=True, mpremote=None, romfs=None):
    """The mpremote command lines of plan(), in order."""
    return [step.command for step in plan(out, port, key_file, mip, mpremote, romfs)]


def _words(items):
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else "%s and %s" % (", ".join(items[:-1]), items[-1])


def mpremote_said(completed):
    """What mpremote said about a failure, in one line: its own 'mpremote: ' lines on stderr
    when there are any, else stderr's last line, else the last line it printed on stdout (a
    refusal it prints, or the board's error)."""
    lines = [line.strip() for line in (completed.stderr or "").splitlines() if line.strip()]
    own = [line[len("mpremote: "):] for line in lines if line.startswith("mpremote: ")]
    if own:
        return "mpremote says: " + "; ".join(own)
    if lines:
        return "mpremote says: " + lines[-1]
    printed = [line.strip() for line in (completed.stdout or "").splitlines() if line.strip()]
    if printed:
        return "mpremote says: " + printed[-1]
    return "mpremote exited with status %d and said nothing" % completed.returncode


def _shown(command):
    """The command line as printed in an error: the scripts it runs on the board are named, not
    spelled out."""
    shown = []
    for index, word in enumerate(command):
        if index > 0 and command[index - 1] == "exec":
            word = ("<script checking the board>" if WRONG_BOARD in word
                    else "<script removing the old program>")
        shown.append(word)
    return shlex.join(shown)


def board_state(steps, failed, reached):
    """The board's state in words when steps[failed] failed; `reached` is False when mpremote
    never reached the board (so that step changed nothing)."""
    done = [step.done for step in steps[:failed]]
    not_done = [step.not_done for step in steps[failed:]]
    if not done and not reached:
        return "the board is untouched"
    if reached:
        not_done[0] = steps[failed].partly
    state = "%s, but %s" % (_words(done), _words(not_done)) if done else _words(not_done)
    ran = [step.what for step in steps[:failed]]
    if "removing the old program" in ran and not any(what.startswith("copying") for what in ran):
        state += " (it will not start the table until a deploy succeeds)"
    return state


def failure(steps, failed, completed, port, board=None):
    """The DeployError for steps[failed] of a deploy of `board` having failed with `completed`."""
    step = steps[failed]
    said = mpremote_said(completed)
    refused = [marker for marker in REFUSALS if marker in said]
    if refused:
        # The check ran first and stopped the command: this step changed nothing.
        hint = REFUSAL_HINTS[refused[0]]
        if refused[0] == WRONG_BOARD:
            hint %= (board, BOARD_KIND.get(board, ("?", "?"))[1], ", ".join(sorted(BOARD_KIND)))
        return DeployError("\n".join([
            "step %d of %d, %s: the board refused it, %s"
            % (failed + 1, len(steps), step.what, said[said.index(refused[0]):]),
            "state: %s" % board_state(steps, failed, False),
            "hint: %s" % hint,
            "command: %s" % _shown(step.command)]))
    reached = not any(marker in said for marker in NOT_CONNECTED)
    lines = ["step %d of %d, %s: %s" % (failed + 1, len(steps), step.what, said),
             "state: %s" % board_state(steps, failed, reached)]
    if not reached:
        where = "on %s" % port if port else "by USB"
        lines.append("hint: connect the board %s and close any other program using its port, or name "
                     "its port with --port (`mpremote connect list` lists them), then deploy again"
                     % where)
    elif step.kind == "mip":
        lines.append("hint: mip fetches %s over this computer's internet connection: check it and deploy "
                     "again, or deploy with --no-mip and install it later with `mpremote mip install %s`"
                     % (MQTT_PACKAGE, MQTT_PACKAGE))
    elif step.kind == "romfs":
        lines.append("hint: a board whose MicroPython has no ROMFS partition, or one smaller than the "
                     "image, cannot take it: deploy without --romfs (docs/romfs.md)")
    else:
        lines.append("hint: deploy again once the cause above is fixed")
    lines.append("command: %s" % _shown(step.command))
    return DeployError("\n".join(lines))


def deploy(board, port=None, out=None, key_file=None, build_id=None, mip=True, dry_run=False,
           run=None, echo=print, root=builder.ROOT, romfs=False):
    """Build `board` (from the project at root) and install it, with romfs as a ROMFS image;
    return the command lines, which run only when not dry_run (with `run`, default
    run_mpremote).  A DeployError names the step that failed in words, what mpremote said,
    the state the board is left in, and stops before the next step."""
    run = run or run_mpremote
    mpremote = mpremote_program()
    if not dry_run and shutil.which(mpremote) is None:
        raise missing_mpremote(mpremote)
    key = builder.read_key(key_file) if key_file else None
    result = builder.build(board, out, key, build_id, root, romfs=romfs)
    echo("built %s %s, digest %s" % (board, result.build_id, result.digest))
    if result.romfs is not None:
        echo("ROMFS image %s, %d bytes (mpremote refuses it if the board's ROMFS partition is "
             "smaller)" % (result.romfs, result.romfs_size))
    elif board in NEEDS_ROMFS:
        echo(ROMFS_NOTE % board)
    steps = plan(result.out, port, key_file, mip, mpremote, romfs=result.romfs)
    for index, step in enumerate(steps):
        echo("step %d of %d, %s" % (index + 1, len(steps), step.what))
        echo(("would run: " if dry_run else "$ ") + shlex.join(step.command))
        if dry_run:
            continue
        try:
            completed = run(step.command)
        except FileNotFoundError:
            raise missing_mpremote(step.command[0], board_state(steps, index, False)) from None
        if completed.returncode != 0:
            raise failure(steps, index, completed, port, board)
        if completed.stderr:
            sys.stderr.write(completed.stderr)
    return [step.command for step in steps]


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
    p.add_argument("--dry-run", action="store_true",
                   help="build (into --out), then print the mpremote commands without running them")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        deploy(args.board, args.port, args.out, args.key, args.build_id, not args.no_mip, args.dry_run,
               romfs=args.romfs)
    except builder.BuildError as error:
        print("deploy failed: the build failed, the board is untouched: %s" % error, file=sys.stderr)
        return 1
    except DeployError as error:
        print("deploy failed: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
