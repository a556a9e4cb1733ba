"""The ROMFS install: tools/build.py --romfs packs the build into an image, tools/deploy.py
--romfs writes it to partition 0 with main.py alone on the flash filesystem, and
firmware/manifest.py check_device verifies that layout at boot (docs/romfs.md)."""

import argparse
import hashlib
import json
import shlex
import shutil
import subprocess
import sys

import pytest

from firmware import manifest
from host_tests.runtimes import ROOT, micropython_binary
from tools import build as builder
from tools import deploy

KEY = b"provisioned-key-for-table-7"
# MicroPython docs, reference/romfs.rst ("ROMFS image format"): every image starts with these.
ROMFS_MAGIC = b"\xd2\xcd\x31"

# Runs on the MicroPython unix VM: mount the image at /rom as a board does at boot, then print
# every file under /rom with the SHA-256 the VM computes of what it reads there.
MOUNT = """\
import os, sys, vfs
image = bytearray(os.stat(sys.argv[1])[6])   # one allocation: a board maps it from flash
with open(sys.argv[1], "rb") as f:
    f.readinto(image)
vfs.mount(vfs.VfsRom(image), "/rom")
"""
LIST_ROM = MOUNT + """\
import hashlib, binascii
def walk(path, rel):
    for name in sorted(os.listdir(path)):
        full = path + "/" + name
        if os.stat(full)[0] & 0x4000:
            walk(full, rel + name + "/")
        else:
            with open(full, "rb") as f:
                print(rel + name, binascii.hexlify(hashlib.sha256(f.read()).digest()).decode())
walk("/rom", "")
"""


def sha(data):
    return hashlib.sha256(data).hexdigest()


def folder_hashes(folder):
    return {p.relative_to(folder).as_posix(): sha(p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


def vm(script, image, *args, cwd, heap=64 * 1024):
    """Run script on the MicroPython VM with `heap` bytes of heap beyond the image it mounts."""
    heapsize = "-X", "heapsize=%d" % (heap + image.stat().st_size)
    command = [micropython_binary(), *heapsize, "-c", script, str(image), *map(str, args)]
    # An empty module path: whatever the script imports comes from the /rom it mounts.
    env = {"MICROPYPATH": "", "PATH": "/usr/bin:/bin"}
    return subprocess.run(command, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", params=sorted(builder.BOARD_ARCH))
def built(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("romfs") / request.param
    return builder.build(request.param, out, build_id="romfs-1", romfs=True)


# --- build --romfs -------------------------------------------------------------------------

def test_image_sits_beside_the_folder_and_the_result_names_it(built):
    assert built.romfs == built.out.parent / (built.board + ".romfs")
    data = built.romfs.read_bytes()
    assert data.startswith(ROMFS_MAGIC)
    assert built.romfs_size == len(data)
    # Every file is inside the image, so it cannot be smaller than their sum.
    assert len(data) > sum(len(d) for d in built.files.values())


def test_the_image_size_docs_romfs_md_gives_is_the_builds_and_fits_the_partition(built):
    # A technician sizes the board's ROMFS partition from docs/romfs.md: its figure must be
    # the image's (within 5%), and the image must fit the 256 KB partition it recommends.
    import re

    text = " ".join((ROOT / "docs" / "romfs.md").read_text().split())
    sizes = dict((board, int(kb)) for kb, board in re.findall(r"(\d+) KB for (\w+)", text))
    assert abs(sizes[built.board] * 1024 - built.romfs_size) <= built.romfs_size // 20, (
        "docs/romfs.md says %d KB, the image is %d bytes" % (sizes[built.board], built.romfs_size))
    assert "256 KB" in text and built.romfs_size <= 256 * 1024


def test_the_micropython_vm_mounts_the_image_and_reads_the_build_byte_for_byte(built, tmp_path):
    result = vm(LIST_ROM, built.romfs, cwd=tmp_path, heap=1024 * 1024)
    assert result.returncode == 0, result.stderr
    in_rom = dict(line.split(" ") for line in result.stdout.splitlines())
    expected = folder_hashes(built.out)
    assert set(expected) >= {"main.py", "board.mpy", "manifest.json", "boards/base.mpy",
                             "firmware/app.mpy", "firmware/manifest.mpy"}
    assert in_rom == expected


def test_romfs_image_is_reproducible_and_packs_files_verbatim(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("X = 1\n")     # not compiled: mpy_cross is off
    (tree / "data.bin").write_bytes(bytes(range(256)))
    image = builder.romfs_image(tree)
    assert image == builder.romfs_image(tree)
    assert image.startswith(ROMFS_MAGIC)
    result = vm(LIST_ROM, _write(tmp_path / "t.romfs", image), cwd=tmp_path, heap=1024 * 1024)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["data.bin " + sha(bytes(range(256))),
                                          "pkg/mod.py " + sha(b"X = 1\n")]


def _write(path, data):
    path.write_bytes(data)
    return path


def test_romfs_image_refuses_what_it_cannot_pack(tmp_path):
    with pytest.raises(builder.BuildError, match="not a folder"):
        builder.romfs_image(tmp_path / "absent")
    (tmp_path / "café.py").write_text("")
    with pytest.raises(builder.BuildError, match="café.py is not an ASCII name"):
        builder.romfs_image(tmp_path)


def test_build_without_romfs_writes_no_image(tmp_path):
    result = builder.build("pico_w", tmp_path / "p", build_id="x", root=_mini_project(tmp_path))
    assert (result.romfs, result.romfs_size) == (None, None)
    assert not (tmp_path / "p.romfs").exists()


def test_a_build_without_romfs_leaves_no_image_of_an_older_build_beside_it(tmp_path):
    # build/pico_w.romfs of an earlier --romfs build no longer holds the folder beside it: a
    # technician who deploys it by hand (`mpremote romfs deploy build/pico_w.romfs`) would
    # install the older program.  Once the new folder is in place, the stale image goes.
    root = _mini_project(tmp_path)
    builder.build("pico_w", tmp_path / "p", build_id="old", root=root, romfs=True)
    (root / "firmware" / "poker" / "hands.py").write_text("X = 2\n")
    builder.build("pico_w", tmp_path / "p", build_id="new", root=root)
    assert not (tmp_path / "p.romfs").exists()
    # A failed build keeps the previous pair, and a file that is not an image is never touched.
    builder.build("pico_w", tmp_path / "p", build_id="old", root=root, romfs=True)
    (root / "firmware" / "poker" / "hands.py").write_text("def f(:\n")
    with pytest.raises(builder.BuildError):
        builder.build("pico_w", tmp_path / "p", build_id="bad", root=root)
    assert (tmp_path / "p.romfs").read_bytes().startswith(ROMFS_MAGIC)
    (tmp_path / "q.romfs").write_text("my notes")
    (root / "firmware" / "poker" / "hands.py").write_text("X = 3\n")
    builder.build("pico_w", tmp_path / "q", build_id="q", root=root)
    assert (tmp_path / "q.romfs").read_text() == "my notes"


def test_an_existing_file_that_is_not_an_image_is_not_overwritten(tmp_path):
    (tmp_path / "p.romfs").write_text("my notes")
    with pytest.raises(builder.BuildError, match="p.romfs exists and is not a ROMFS image"):
        builder.build("pico_w", tmp_path / "p", build_id="x", root=_mini_project(tmp_path), romfs=True)
    assert (tmp_path / "p.romfs").read_text() == "my notes"
    # An earlier image is replaced.
    (tmp_path / "p.romfs").write_bytes(ROMFS_MAGIC + b"old")
    result = builder.build("pico_w", tmp_path / "p", build_id="x", root=_mini_project(tmp_path), romfs=True)
    assert result.romfs.read_bytes() == builder.romfs_image(tmp_path / "p")


def test_cli_reports_the_image_and_its_size(tmp_path):
    out = tmp_path / "s3"
    result = subprocess.run([sys.executable, "-m", "tools.build", "--board", "esp32_s3", "--out", str(out),
                             "--build-id", "cli", "--romfs"], cwd=str(ROOT),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    size = (tmp_path / "s3.romfs").stat().st_size
    assert "romfs     %s, %d bytes" % (tmp_path / "s3.romfs", size) in result.stdout


def _failed_rebuild_keeps_the_previous_build(tmp_path, spoil, error):
    """Build, spoil the project (spoil(root)), build again: the second build fails with
    `error` and leaves the folder, the image and nothing else as the first made them."""
    root = _mini_project(tmp_path)
    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="good", root=root, romfs=True)
    image = (tmp_path / "p.romfs").read_bytes()
    before = folder_hashes(out)
    spoil(root)
    with pytest.raises(builder.BuildError, match=error):
        builder.build("pico_w", out, build_id="bad", root=root, romfs=True)
    assert (tmp_path / "p.romfs").read_bytes() == image
    assert folder_hashes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p", "p.romfs", "project"]


def test_a_failed_build_keeps_the_previous_folder_and_image(tmp_path):
    _failed_rebuild_keeps_the_previous_build(
        tmp_path, lambda root: (root / "firmware" / "poker" / "hands.py").write_text("def f(:\n"),
        "mpy-cross failed on firmware/poker/hands.py")


def test_no_image_is_written_when_the_build_fails(tmp_path):
    root = _mini_project(tmp_path)
    (root / "firmware" / "poker" / "hands.py").write_text("def f(:\n")
    with pytest.raises(builder.BuildError, match="firmware/poker/hands.py"):
        builder.build("pico_w", tmp_path / "p", build_id="bad", root=root, romfs=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_an_image_that_cannot_be_made_keeps_the_previous_build(tmp_path):
    # The firmware compiles but a data file's name cannot go into an image: neither the
    # folder nor the image may change, or they would no longer match.
    _failed_rebuild_keeps_the_previous_build(
        tmp_path, lambda root: (root / "firmware" / "café.json").write_text("{}"),
        "café.json is not an ASCII name")


def _mini_project(tmp_path):
    """A project root with the real boards/ and a one-module firmware/."""
    root = tmp_path / "project"
    if not root.exists():
        shutil.copytree(ROOT / "boards", root / "boards", ignore=shutil.ignore_patterns("__pycache__"))
        (root / "firmware" / "poker").mkdir(parents=True)
        (root / "firmware" / "__init__.py").write_text("")
        (root / "firmware" / "poker" / "__init__.py").write_text("")
        (root / "firmware" / "poker" / "hands.py").write_text("X = 1\n")
    return root


# --- deploy --romfs ------------------------------------------------------------------------

def test_deploy_romfs_dry_run_writes_the_image_then_main_py_only(tmp_path, capsys):
    def must_not_run(command):
        raise AssertionError("dry run ran %s" % command)

    key_file = _write(tmp_path / "key.bin", KEY)
    out = tmp_path / "pico"
    steps = deploy.deploy("pico_w", port="/dev/ttyACM0", out=out, key_file=str(key_file), build_id="d",
                          dry_run=True, run=must_not_run, root=_mini_project(tmp_path), romfs=True)
    printed = capsys.readouterr().out
    connect = [deploy.mpremote_program(), "connect", "/dev/ttyACM0"]
    assert [s[:3] for s in steps] == [connect] * 6
    image = tmp_path / "pico.romfs"
    # the board first (deploy.check_script), then the image
    check = deploy.check_script("pico_w", entries=deploy.top_level_entries(out), mpy=deploy.build_mpy(out),
                                romfs_size=image.stat().st_size)
    assert steps[0][3:5] == ["exec", check]
    assert steps[0][5:] == ["romfs", "--partition", "0", "deploy", str(image)]
    assert steps[1][3] == "exec" and '"firmware"' in steps[1][4] and '"main.py"' in steps[1][4]
    assert steps[2][3:] == ["fs", "cp", str(out / "main.py"), ":main.py"]
    assert steps[3][3:] == ["mip", "install", "umqtt.simple"]
    assert steps[4][3:] == ["fs", "cp", str(key_file), ":manifest.key"]
    assert steps[5][3:] == ["reset"]
    # Nothing but main.py and the key is copied to the flash filesystem.
    assert [s[5] for s in steps if s[3] == "fs"] == [str(out / "main.py"), str(key_file)]
    assert image.read_bytes() == builder.romfs_image(out)
    assert "ROMFS image %s, %d bytes" % (image, image.stat().st_size) in printed
    for step in steps:
        assert "would run: " + shlex.join(step) in printed


def test_the_romfs_step_means_partition_0_and_this_image_to_mpremote(tmp_path):
    # Parsed by mpremote's own parser for the romfs command, as its main() does.
    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="x", root=_mini_project(tmp_path), romfs=True)
    step = deploy.commands(out, romfs=tmp_path / "p.romfs", mip=False)[0]
    from mpremote.main import argparse_romfs
    parser = argparse_romfs()
    parser.add_argument("next_command", nargs=argparse.REMAINDER)
    check = deploy.check_script("pico_w", unkeyed=True, entries=deploy.top_level_entries(out),
                                mpy=deploy.build_mpy(out), romfs_size=(tmp_path / "p.romfs").stat().st_size)
    assert step[3:5] == ["exec", check]
    args = parser.parse_args(step[6:])
    assert (args.command, args.partition, args.path, args.next_command) == (
        ["deploy"], 0, str(tmp_path / "p.romfs"), [])


def test_mpremote_reads_the_first_step_as_the_board_check_then_the_image(tmp_path):
    # Split as mpremote's main() splits a command line into its commands: exec (the check,
    # whose failure ends mpremote before the next command), then romfs deploy.
    from mpremote.main import _COMMANDS
    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="x", root=_mini_project(tmp_path), romfs=True)
    words = deploy.commands(out, romfs=tmp_path / "p.romfs", mip=False)[0][3:]
    read = []
    while words:
        name = words.pop(0)
        parser = _COMMANDS[name][1]()
        parser.add_argument("next_command", nargs=argparse.REMAINDER)
        args = parser.parse_args(words)
        read.append((name, args.expr[0] if name == "exec" else args.command))
        words = args.next_command
    assert [name for name, _ in read] == ["exec", "romfs"]
    assert deploy.WRONG_BOARD in read[0][1] and read[1][1] == ["deploy"]


def test_a_failed_image_write_stops_before_the_old_program_is_removed(tmp_path):
    ran = []

    def fake_run(command):
        ran.append(command)
        return subprocess.CompletedProcess(command, 1 if "romfs" in command else 0)

    with pytest.raises(deploy.DeployError, match="romfs --partition 0 deploy"):
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=fake_run,
                      root=_mini_project(tmp_path), romfs=True)
    assert [c[5] for c in ran] == ["romfs"]


def test_board_lost_after_the_image_names_the_removal_step_and_what_is_on_the_board(tmp_path):
    ran = []

    def fake_run(command):
        ran.append(command)
        if command[3] == "exec" and "romfs" not in command:
            return subprocess.CompletedProcess(command, 1, stderr="mpremote: no device found\n")
        return subprocess.CompletedProcess(command, 0, stderr="")

    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=fake_run,
                      root=_mini_project(tmp_path), romfs=True)
    message = str(caught.value)
    assert message.startswith("step 2 of 5, removing the old program: mpremote says: no device found\n")
    assert ("state: the new ROMFS image is written, but the old program is not removed, main.py is not "
            "copied, umqtt.simple is not installed and the board is not reset") in message
    assert "--port" in message
    assert [c[5] if "romfs" in c else c[3] for c in ran] == ["romfs", "exec"]


def test_an_image_the_board_refuses_says_so_and_what_to_do(tmp_path):
    def fake_run(command):
        return subprocess.CompletedProcess(command, 1, stderr="mpremote: ROMFS image is too big\n")

    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=fake_run,
                      root=_mini_project(tmp_path), romfs=True)
    message = str(caught.value)
    assert message.startswith("step 1 of 5, writing the ROMFS image to partition 0: mpremote says: ROMFS "
                              "image is too big\n")
    assert ("state: the new ROMFS image is not (or only partly) written, the old program is not "
            "removed") in message
    assert "deploy without --romfs" in message


def _fake_mpremote(tmp_path, script):
    """An executable stand-in for the mpremote program: `script` (Python) runs with the
    command's arguments in sys.argv[1:] (after `connect PORT`: sys.argv[3:])."""
    program = tmp_path / "bin" / "mpremote"
    program.parent.mkdir(exist_ok=True)
    program.write_text("#!%s\nimport sys\n%s" % (sys.executable, script))
    program.chmod(0o755)
    return program


def test_an_image_too_big_for_the_partition_is_quoted_from_what_mpremote_printed(tmp_path, monkeypatch,
                                                                                  capfd):
    # mpremote 1.29 (commands.py, _do_romfs_deploy) refuses an image larger than the partition
    # with print() on stdout and exit status 1, before erasing anything; the deploy's error
    # must say so, not "said nothing", and the technician still sees the output as it comes.
    program = _fake_mpremote(tmp_path, (
        "if 'romfs' in sys.argv:\n"
        "    print('Image size is 300000 bytes')\n"
        "    print('ROMFS image is too big for the target partition')\n"
        "    sys.exit(1)\n"))
    monkeypatch.setattr(deploy, "mpremote_program", lambda: str(program))
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", root=_mini_project(tmp_path), romfs=True)
    message = str(caught.value)
    assert message.startswith("step 1 of 5, writing the ROMFS image to partition 0: mpremote says: ROMFS "
                              "image is too big for the target partition\n")
    assert "the old program is not removed" in message and "deploy without --romfs" in message
    assert "ROMFS image is too big for the target partition" in capfd.readouterr().out


class _RomDevice:
    """What vfs.rom_ioctl(2, 0) gives on a port whose ROMFS partition is a block device."""

    def __init__(self, blocks, block_size=4096):
        self.blocks, self.block_size = blocks, block_size

    def ioctl(self, op, arg):
        return {4: self.blocks, 5: self.block_size}[op]


def _fake_vfs(partitions, device=None):
    import types

    vfs = types.ModuleType("vfs")
    if partitions is not None:
        vfs.rom_ioctl = lambda op, *args: partitions if op == 1 else (device if op == 2 else -22)
    return vfs


@pytest.mark.parametrize("vfs_module,says", [
    (_fake_vfs(None), "its MicroPython has no ROMFS partition"),
    (_fake_vfs(0), "its MicroPython has no ROMFS partition"),
    (_fake_vfs(1, -2), "its MicroPython has no ROMFS partition"),
    (_fake_vfs(1, _RomDevice(1)), "ROMFS partition 0 holds 4096 bytes, the image"),
    (_fake_vfs(1, bytes(2048)), "ROMFS partition 0 holds 2048 bytes, the image"),
])
def test_a_board_without_room_for_the_image_is_refused_and_its_table_keeps_its_watchdog(
        tmp_path, monkeypatch, vfs_module, says):
    # mpremote refuses such a board too, but only after the check had stopped the Pico W's
    # watchdog: the table it interrupted would then stay stopped, while the error said the
    # old program was still there.  The check asks first (as `mpremote romfs query` does).
    from host_tests.test_build import _board_fs_with_a_program, _run_check_as_the_board

    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="x", root=_mini_project(tmp_path), romfs=True)
    script = deploy.commands(out, romfs=tmp_path / "p.romfs", mip=False)[0][4]
    board_fs = _board_fs_with_a_program(tmp_path)
    monkeypatch.setitem(sys.modules, "vfs", vfs_module)
    pico = "Raspberry Pi Pico W with RP2040"
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2", pico)
    assert deploy.NO_ROOM in str(error) and says in str(error) and writes == []
    monkeypatch.setitem(sys.modules, "vfs", _fake_vfs(1, _RomDevice(64)))       # 256 KB
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2", pico)
    assert error is None and len(writes) == 1


def test_no_room_for_the_image_names_the_step_and_what_to_do(tmp_path):
    said = ("Traceback (most recent call last):\n  File \"<stdin>\", line 9, in <module>\n"
            "Exception: no room for the ROMFS image: its MicroPython has no ROMFS partition\n")

    def fake_run(command):
        return subprocess.CompletedProcess(command, 1, stdout=said, stderr="")

    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=fake_run, root=_mini_project(tmp_path),
                      romfs=True)
    message = str(caught.value)
    assert message.startswith("step 1 of 5, writing the ROMFS image to partition 0: the board refused it, no "
                              "room for the ROMFS image: its MicroPython has no ROMFS partition\n")
    assert "state: the board is untouched" in message and "docs/romfs.md" in message.split("hint:")[1]


def test_deploy_refuses_an_image_mpremote_would_not_read_as_one(tmp_path):
    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="x", root=_mini_project(tmp_path))
    with pytest.raises(deploy.DeployError, match="is not a ROMFS image file"):
        deploy.commands(out, romfs=out)                       # a folder
    with pytest.raises(deploy.DeployError, match="is not a ROMFS image file"):
        deploy.commands(out, romfs=tmp_path / "missing.romfs")


def test_deploy_cli_romfs_dry_run(tmp_path, capsys):
    code = deploy.main(["--board", "esp32_s3", "--out", str(tmp_path / "s3"), "--dry-run", "--romfs",
                        "--build-id", "c"])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.count("would run: ") == 5
    assert "romfs --partition 0 deploy %s" % (tmp_path / "s3.romfs") in printed
    assert "fs cp -r" not in printed


# --- check_device on a ROMFS install -------------------------------------------------------

FILES = {
    "main.py": b"import firmware.app\nfirmware.app.main()\n",
    "board.mpy": b"M\x06\x00\x1fboard",
    "firmware/__init__.mpy": b"M\x06\x00\x1finit",
    "firmware/poker/hands.mpy": b"M\x06\x0a\x1fnative hands",
}


def _put(root, path, data):
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def romfs_layout(tmp_path, key=None, rom_under_flash=False):
    """(flash, rom) folders as a ROMFS install leaves them: the build in rom, main.py, the key,
    configuration and mip's lib/ on flash."""
    flash = tmp_path / "flash"
    rom = flash / "rom" if rom_under_flash else tmp_path / "rom"
    for path, data in FILES.items():
        _put(rom, path, data)
    _put(rom, "manifest.json", manifest.make("pico_w", "r-1", FILES, key))
    _put(flash, "main.py", FILES["main.py"])
    _put(flash, "config.json", b"{}")
    _put(flash, "lib/umqtt/simple.mpy", b"M\x06mqtt")
    if key is not None:
        _put(flash, "manifest.key", key)
    return flash, rom


def check(flash, rom, **kw):
    return manifest.check_device(str(flash), rom=str(rom), **kw)


def test_intact_romfs_install_verifies_from_rom(tmp_path):
    flash, rom = romfs_layout(tmp_path, KEY)
    result = check(flash, rom, board="pico_w")
    assert (result.reason, result.authenticated) == ("ok", True)
    assert (result.board, result.build_id) == ("pico_w", "r-1")
    assert result.digest == json.loads((rom / "manifest.json").read_bytes())["digest"]
    assert result.unverified == (str(flash / "lib/umqtt/simple.mpy"),)
    # The key on flash is the one used: a wrong one fails the HMAC.
    _put(flash, "manifest.key", b"another-key-of-16+bytes")
    assert check(flash, rom).reason == "bad-hmac"


def test_a_changed_main_py_on_flash_is_named(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(flash, "main.py", FILES["main.py"] + b"import evil\n")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("changed-file", str(flash / "main.py"))
    assert "%s does not match its SHA-256" % (flash / "main.py") in result.detail


def test_main_py_is_read_from_flash_not_from_rom(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    (flash / "main.py").unlink()
    result = check(flash, rom)
    assert (result.reason, result.path) == ("missing-file", str(flash / "main.py"))


def test_a_different_copy_of_main_py_in_rom_is_named(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(rom, "main.py", b"print('other')\n")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("changed-file", str(rom / "main.py"))
    assert result.digest is not None


def test_a_changed_or_missing_file_in_rom_is_named(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(rom, "firmware/poker/hands.mpy", b"patched")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("changed-file", str(rom / "firmware/poker/hands.mpy"))
    (rom / "firmware" / "poker" / "hands.mpy").unlink()
    result = check(flash, rom)
    assert (result.reason, result.path) == ("missing-file", str(rom / "firmware/poker/hands.mpy"))
    assert "is listed but cannot be read" in result.detail


@pytest.mark.parametrize("stray", ["firmware/app.mpy", "firmware/poker/hands.mpy", "board.mpy", "boot.py",
                                   "evil.py"])
def test_a_program_file_on_flash_besides_main_py_is_extra(tmp_path, stray):
    # Even a copy of a listed file: on flash it comes before /rom on sys.path.
    flash, rom = romfs_layout(tmp_path)
    _put(flash, stray, FILES.get(stray, b"print(1)\n"))
    result = check(flash, rom)
    assert (result.reason, result.path) == ("extra-file", str(flash / stray))
    assert "outside the ROMFS image" in result.detail


@pytest.mark.parametrize("stray", ["firmware/", "boards/", "board/", "firmware/poker/"])
def test_a_folder_on_flash_named_as_part_of_the_program_is_extra(tmp_path, stray):
    # An empty /firmware/ on the flash was what MicroPython imported in place of the image's
    # package (the boot stopped, host_tests/test_startup.py); nothing of the program is kept
    # outside the image, so the check names it.
    flash, rom = romfs_layout(tmp_path)
    files = dict(FILES, **{"boards/base.mpy": b"M\x06base"})
    _put(rom, "boards/base.mpy", files["boards/base.mpy"])
    _put(rom, "manifest.json", manifest.make("pico_w", "r-1", files))
    assert check(flash, rom).ok
    (flash / stray).mkdir(parents=True)
    result = check(flash, rom)
    top = str(flash / stray.split("/")[0]) + "/"      # a nested folder: its parent comes first
    assert (result.reason, result.path) == ("extra-file", top)
    assert result.detail == "%s is a folder named as part of the program outside the ROMFS image" % top


def test_other_folders_on_flash_are_not_extra(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(rom, "lib/helper.mpy", b"M")               # the image's lib/ and mip's on the flash
    for folder in ("data", "logs", "lib/umqtt", "firmware_old", "rom"):
        (flash / folder).mkdir(parents=True, exist_ok=True)
    result = check(flash, rom)
    assert result.ok, result.detail


def test_an_unlisted_program_file_in_rom_is_extra_and_other_files_are_not(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(rom, "notes.txt", b"x")
    _put(flash, "manifest.json", b"{}")          # left by an older install: not a program file
    assert check(flash, rom).ok
    _put(rom, "firmware/extra.mpy", b"M")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("extra-file", str(rom / "firmware/extra.mpy"))


def test_lib_in_rom_is_reported_as_unverified(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(rom, "lib/helper.mpy", b"M")
    result = check(flash, rom)
    assert result.ok
    assert result.unverified == (str(rom / "lib/helper.mpy"), str(flash / "lib/umqtt/simple.mpy"))


def test_lib_file_standing_in_for_a_builtin_module_is_extra_on_flash_and_in_rom(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    _put(flash, "lib/binascii.py", b"print(1)\n")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("extra-file", str(flash / "lib/binascii.py"))
    (flash / "lib/binascii.py").unlink()
    _put(rom, "lib/struct.mpy", b"M")
    result = check(flash, rom)
    assert (result.reason, result.path) == ("extra-file", str(rom / "lib/struct.mpy"))


def test_a_broken_rom_manifest_never_falls_back_to_flash(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    # A complete, valid files install on flash as well...
    for path, data in FILES.items():
        _put(flash, path, data)
    _put(flash, "manifest.json", manifest.make("pico_w", "r-1", FILES))
    assert manifest.check_device(str(flash), rom=None).ok
    # ...does not excuse an edited manifest in rom.
    record = json.loads((rom / "manifest.json").read_bytes())
    record["build_id"] = "r-2"
    _put(rom, "manifest.json", json.dumps(record).encode())
    assert check(flash, rom).reason == "bad-manifest"


def test_wrong_board_in_rom(tmp_path):
    flash, rom = romfs_layout(tmp_path)
    assert check(flash, rom, board="esp32_s3").reason == "wrong-board"


def test_the_rom_mount_point_under_flash_is_not_walked_as_flash(tmp_path):
    # On the board rom is /rom, inside the root the flash walk starts from.
    flash, rom = romfs_layout(tmp_path, rom_under_flash=True)
    assert check(flash, rom).ok
    _put(rom, "firmware/extra.mpy", b"M")
    assert check(flash, rom).path == str(rom / "firmware/extra.mpy")


def test_without_a_rom_manifest_the_files_check_is_unchanged(tmp_path):
    flash = tmp_path / "flash"
    for path, data in FILES.items():
        _put(flash, path, data)
    _put(flash, "manifest.json", manifest.make("pico_w", "r-1", FILES))
    empty_rom = tmp_path / "rom"
    empty_rom.mkdir()
    result = check(flash, empty_rom)
    assert (result.ok, result.unverified) == (True, ())
    _put(flash, "firmware/poker/extra.py", b"print(1)\n")
    result = check(flash, empty_rom)
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/extra.py")


def test_program_files_in_a_rom_without_manifest_are_extra(tmp_path):
    # An image without manifest.json leaves the files check, whose walk of / enters /rom.
    flash = tmp_path / "flash"
    for path, data in FILES.items():
        _put(flash, path, data)
    _put(flash, "manifest.json", manifest.make("pico_w", "r-1", FILES))
    _put(flash, "rom/firmware/app.mpy", b"M")
    result = check(flash, flash / "rom")
    assert (result.reason, result.path) == ("extra-file", "rom/firmware/app.mpy")


# --- the boot-time check on the MicroPython VM, from a mounted image -----------------------

BOOT_CHECK = MOUNT + """\
sys.path.insert(0, "/rom")            # as the board's start-up does
from firmware import manifest
print(manifest.__file__)
r = manifest.check_device(sys.argv[2], board=sys.argv[3])
print(r.reason, r.path, r.digest, r.authenticated)
"""


def test_the_vm_verifies_a_romfs_install_with_the_checker_from_the_image(built, tmp_path):
    flash = tmp_path / "flash"
    _put(flash, "main.py", (built.out / "main.py").read_bytes())
    _put(flash, "manifest.key", KEY)       # an unkeyed build: a provisioned key must refuse it
    _put(flash, "lib/umqtt/simple.mpy", b"M")

    def run():
        # 64 KB of heap besides the image, as the files check in test_build: it must fit on a Pico W.
        result = vm(BOOT_CHECK, built.romfs, flash, built.board, cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout.splitlines()

    assert run() == ["/rom/firmware/manifest.mpy", "no-hmac None %s False" % built.digest]
    (flash / "manifest.key").unlink()
    assert run()[1] == "ok None %s False" % built.digest
    _put(flash, "firmware/app.mpy", (built.out / "firmware" / "app.mpy").read_bytes())
    assert run()[1] == "extra-file %s %s False" % (flash / "firmware/app.mpy", built.digest)
    (flash / "firmware" / "app.mpy").unlink()
    _put(flash, "main.py", b"import firmware.app\n")
    assert run()[1] == "changed-file %s %s False" % (flash / "main.py", built.digest)
