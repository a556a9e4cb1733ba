"""tools/build.py makes a deploy folder the board and the program check accept, and
tools/deploy.py turns it into the right mpremote commands."""

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

# MicroPython docs, "MicroPython .mpy files" (docs/reference/mpyfiles.rst): the header is
# b"M", the version (6), then a byte whose upper 6 bits are the native architecture
# (4 = armv6m, 10 = xtensawin; 0 for bytecode only).
MPY_MAGIC = ord("M")
MPY_VERSION = 6
MPY_ARCH_CODE = {"armv6m": 4, "xtensawin": 10}
KEY = b"provisioned-key-for-table-7"


@pytest.fixture(scope="module", params=sorted(builder.BOARD_ARCH))
def built(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / request.param
    return builder.build(request.param, out, build_id="test-1")


def test_layout(built):
    out = built.out
    assert (out / "main.py").read_text() == builder.MAIN_PY
    assert "import firmware.startup" in builder.MAIN_PY and "firmware.startup.main()" in builder.MAIN_PY
    assert "firmware.app.run(*started)" in builder.MAIN_PY
    assert (out / "board.mpy").is_file()
    for support in builder.BOARD_SUPPORT:
        assert (out / support.replace(".py", ".mpy")).is_file()
    for source in builder.firmware_sources():
        if source.endswith(".py"):
            assert (out / (source[:-3] + ".mpy")).is_file(), source
    assert not list(out.rglob("*.py"))[1:], "only main.py ships as source"
    assert not list(out.rglob("__pycache__"))
    # No other board's module ships.
    assert not (out / "boards" / "pico_w.mpy").exists() and not (out / "boards" / "esp32_s3.mpy").exists()


def test_every_mpy_targets_the_board(built):
    arch = builder.BOARD_ARCH[built.board]
    hot = {h[:-3] + ".mpy" for h in builder.HOT_MODULES}
    for path in built.out.rglob("*.mpy"):
        header = path.read_bytes()[:3]
        relative = path.relative_to(built.out).as_posix()
        assert header[0] == MPY_MAGIC and header[1] == MPY_VERSION, relative
        expected = MPY_ARCH_CODE[arch] if relative in hot else 0
        assert header[2] >> 2 == expected, "%s: arch code %d" % (relative, header[2] >> 2)


def test_manifest_lists_every_file_and_verifies(built):
    record = json.loads((built.out / "manifest.json").read_bytes())
    on_disk = sorted(p.relative_to(built.out).as_posix() for p in built.out.rglob("*")
                     if p.is_file() and p.name != "manifest.json")
    assert sorted(record["files"]) == on_disk
    assert (record["board"], record["build_id"], record["digest"]) == (built.board, "test-1", built.digest)
    assert "hmac" not in record
    result = manifest.check_device(str(built.out), board=built.board)
    assert result.ok, result.message()


def test_the_real_micropython_vm_verifies_and_imports_the_build(built, tmp_path):
    # Bytecode .mpy files run on any port of the same .mpy version, so the unix VM can load
    # the build (not the native modules, which are machine code for the board's CPU).
    script = (
        "from firmware.heap import collect_often\n"
        "collect_often(True)\n"                    # as main() does before the checks
        "from firmware import manifest\n"
        "r = manifest.check_device(%r, board=%r)\n"
        "print(r.reason, r.digest)\n"
        "import firmware.poker.cards\n"
        "import board\n"
        "print(board.NAME)\n"
        "try:\n"
        "    import firmware.poker.hands\n"
        "    print('native loaded')\n"
        "except ValueError as e:\n"
        "    print('native refused')\n"
    ) % (str(built.out), built.board)
    env = {"MICROPYPATH": str(built.out), "PATH": "/usr/bin:/bin"}
    empty = tmp_path / "cwd"
    empty.mkdir()
    # 64 KB of heap: the boot-time check must fit well inside what a Pico W has free (with
    # the boot's garbage collection every 4 KB it fits in 48 KB; without it, the heap's
    # fragmentation decides, and 56 KB could fail where 52 KB passed).
    command = [micropython_binary(), "-X", "heapsize=64k", "-c", script]
    result = subprocess.run(command, env=env, cwd=str(empty), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["ok " + built.digest, built.board, "native refused"]


def test_tampering_with_the_build_is_caught(built, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(built.out, copy)
    target = copy / "firmware" / "poker" / "cards.mpy"
    target.write_bytes(target.read_bytes() + b"\0")
    result = manifest.check_device(str(copy))
    assert (result.reason, result.path) == ("changed-file", "firmware/poker/cards.mpy")


def test_reproducible(tmp_path):
    root = _mini_project(tmp_path, broken=False)
    first = builder.build("pico_w", tmp_path / "first", build_id="r", root=root)
    again = builder.build("pico_w", tmp_path / "again", build_id="r", root=root)
    assert again.digest == first.digest
    first_bytes = (tmp_path / "first" / "manifest.json").read_bytes()
    assert (tmp_path / "again" / "manifest.json").read_bytes() == first_bytes
    other = builder.build("pico_w", tmp_path / "other", build_id="r2", root=root)
    assert other.digest != first.digest, "the build id is part of the digest"


def test_cli_builds_a_keyed_manifest_and_prints_the_summary(tmp_path):
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(KEY)
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "tools.build", "--board", "esp32_s3", "--out", str(out),
                             "--key", str(key_file), "--build-id", "cli"], cwd=str(ROOT),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    record = json.loads((out / "manifest.json").read_bytes())
    assert "digest    " + record["digest"] in result.stdout
    assert "firmware/poker/hands.mpy  native" in result.stdout
    assert "board     esp32_s3 (xtensawin)" in result.stdout
    assert "authenticated with HMAC-SHA256" in result.stdout
    (out / "manifest.key").write_bytes(KEY)
    verified = manifest.check_device(str(out), board="esp32_s3")
    assert verified.ok and verified.authenticated
    (out / "manifest.key").write_bytes(b"a-different-key-entirely")
    assert manifest.check_device(str(out)).reason == "bad-hmac"


def test_short_key_file_fails_with_a_message(tmp_path, capsys):
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(b"short")
    assert builder.main(["--board", "pico_w", "--out", str(tmp_path / "o"), "--key", str(key_file)]) == 1
    assert "key is 5 bytes; at least 16" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_unknown_board_is_refused(capsys):
    with pytest.raises(SystemExit):
        builder.main(["--board", "uno"])
    assert "invalid choice: 'uno'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown board 'uno'"):
        builder.board_arch("uno")


def test_a_folder_that_is_not_a_build_is_not_wiped(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(builder.BuildError, match="not overwriting"):
        builder.build("pico_w", tmp_path, build_id="x")
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def _mini_project(tmp_path, broken):
    """A project root with the real boards/ and a two-module firmware/."""
    root = tmp_path / "project"
    shutil.copytree(ROOT / "boards", root / "boards", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "firmware" / "poker").mkdir(parents=True)
    (root / "firmware" / "__init__.py").write_text("")
    (root / "firmware" / "poker" / "__init__.py").write_text("")
    (root / "firmware" / "poker" / "hands.py").write_text("def f(:\n" if broken else "X = 1\n")
    (root / "firmware" / "presets.json").write_text('{"a": 1}\n')
    return root


def test_a_module_that_does_not_compile_is_named(tmp_path):
    root = _mini_project(tmp_path, broken=True)
    with pytest.raises(builder.BuildError, match="mpy-cross failed on firmware/poker/hands.py"):
        builder.build("pico_w", tmp_path / "out", build_id="x", root=root)


def test_data_files_ship_verbatim_and_are_covered(tmp_path):
    root = _mini_project(tmp_path, broken=False)
    result = builder.build("pico_w", tmp_path / "out", build_id="x", root=root)
    assert (tmp_path / "out" / "firmware" / "presets.json").read_text() == '{"a": 1}\n'
    assert "firmware/presets.json" in result.files


@pytest.mark.parametrize("board", sorted(builder.BOARD_ARCH))
def test_board_modules_declare_the_arch_the_build_uses(board):
    assert builder.declared_arch((ROOT / "boards" / (board + ".py")).read_text()) == builder.BOARD_ARCH[board]


def test_hot_modules_exist():
    for source in builder.HOT_MODULES:
        assert (ROOT / source).is_file(), source


# --- deploy --------------------------------------------------------------------------------

def test_deploy_dry_run_prints_the_mpremote_commands_and_runs_nothing(tmp_path, capsys):
    def must_not_run(command):
        raise AssertionError("dry run ran %s" % command)

    out = tmp_path / "pico"
    steps = deploy.deploy("pico_w", port="/dev/ttyACM0", out=out, build_id="d", dry_run=True,
                          run=must_not_run, root=_mini_project(tmp_path, broken=False))
    printed = capsys.readouterr().out
    mpremote = deploy.mpremote_program()
    connect = [mpremote, "connect", "/dev/ttyACM0"]
    assert [s[:3] for s in steps] == [connect] * 4
    assert steps[0][3] == "exec"
    assert steps[1][3:] == ["fs", "cp", "-r", str(out / "board.mpy"), str(out / "boards"),
                            str(out / "firmware"), str(out / "manifest.json"), str(out / "main.py"), ":"]
    assert steps[2][3:] == ["mip", "install", "umqtt.simple"]
    assert steps[3][3:] == ["reset"]
    for step in steps:
        assert "would run: " + shlex.join(step) in printed


def test_deploy_with_key_provisions_it_and_without_port_uses_auto(tmp_path, capsys):
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(KEY)
    steps = deploy.deploy("esp32_s3", out=tmp_path / "s3", key_file=str(key_file), build_id="d",
                          mip=False, dry_run=True, root=_mini_project(tmp_path, broken=False))
    assert all(step[1:3] == ["connect", "auto"] for step in steps)
    assert [step[3] for step in steps] == ["exec", "fs", "fs", "reset"]
    assert steps[2][3:] == ["fs", "cp", str(key_file), ":manifest.key"]
    assert json.loads((tmp_path / "s3" / "manifest.json").read_bytes())["hmac"]


def test_deploy_runs_the_steps_and_stops_at_a_failure(tmp_path, capsys):
    ran = []

    def fake_run(command):
        ran.append(command)
        return subprocess.CompletedProcess(command, 1 if command[3:5] == ["mip", "install"] else 0)

    with pytest.raises(deploy.DeployError, match="mip install umqtt.simple"):
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=fake_run,
                      root=_mini_project(tmp_path, broken=False))
    assert [c[3] for c in ran] == ["exec", "fs", "mip"], "stopped before reset"


def test_deploy_cli_dry_run(tmp_path, capsys):
    code = deploy.main(["--board", "pico_w", "--out", str(tmp_path / "p"), "--dry-run", "--build-id", "c"])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.count("would run: ") == 4 and "mip install umqtt.simple" in printed


def test_remove_script_clears_the_old_program_and_keeps_data(tmp_path):
    # Run the cleanup step's script on the real MicroPython VM, in a folder laid out like a
    # board's filesystem.
    board_fs = tmp_path / "fs"
    (board_fs / "firmware" / "poker").mkdir(parents=True)
    (board_fs / "firmware" / "poker" / "old.mpy").write_bytes(b"M")
    (board_fs / "boards").mkdir()
    (board_fs / "main.py").write_text("print(1)\n")
    (board_fs / "manifest.json").write_text("{}")
    (board_fs / "config.json").write_text("{}")
    (board_fs / "lib" / "umqtt").mkdir(parents=True)
    (board_fs / "lib" / "umqtt" / "simple.mpy").write_bytes(b"M")
    build_out = tmp_path / "build"
    builder.build("pico_w", build_out, build_id="r", root=_mini_project(tmp_path, broken=False))
    script = deploy.commands(build_out)[0][-1]     # after the board check's script
    result = subprocess.run([micropython_binary(), "-c", script], cwd=str(board_fs),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    left = sorted(p.relative_to(board_fs).as_posix() for p in board_fs.rglob("*"))
    assert left == ["config.json", "lib", "lib/umqtt", "lib/umqtt/simple.mpy"]


def _vm_board(board_fs, ran):
    """A stand-in for run_mpremote whose board is the MicroPython unix VM working in the folder
    board_fs: each `exec SCRIPT` of a command runs there in turn, and a script that raises
    ends the command as mpremote ends it (the board's traceback on stdout, exit status 1);
    the other mpremote commands are only recorded in `ran` (as they would have run)."""
    def fake_run(command):
        ran.append(command)
        words = command[3:]
        while words:
            if words[0] != "exec":
                ran.append(("reached", words[0]))
                break
            result = subprocess.run([micropython_binary(), "-c", words[1]], cwd=str(board_fs),
                                    capture_output=True, text=True, timeout=60)
            if result.returncode != 0:
                return subprocess.CompletedProcess(command, 1, stdout=result.stdout + result.stderr,
                                                   stderr="")
            words = words[2:]
        return subprocess.CompletedProcess(command, 0, stdout="", stderr="")
    return fake_run


def _board_fs_with_a_program(tmp_path):
    board_fs = tmp_path / "fs"
    (board_fs / "firmware").mkdir(parents=True)
    (board_fs / "firmware" / "app.mpy").write_bytes(b"M")
    (board_fs / "main.py").write_text("print(1)\n")
    (board_fs / "manifest.json").write_text("{}")
    return board_fs


@pytest.mark.parametrize("romfs", [False, True])
def test_a_board_of_another_kind_is_refused_before_anything_on_it_changes(tmp_path, romfs):
    # The unix VM is not an RP2040 running rp2: to a pico_w deploy it is a board of another
    # kind (an ESP32-S3 would be too), whose own program must stay as it is.
    board_fs = _board_fs_with_a_program(tmp_path)
    before = _tree(board_fs)
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran),
                      root=_mini_project(tmp_path, broken=False), romfs=romfs)
    message = str(caught.value)
    first = "writing the ROMFS image to partition 0" if romfs else "removing the old program"
    assert message.startswith("step 1 of %d, %s: the board refused it, wrong board: it is a linux "
                              % (5 if romfs else 4, first)), message
    assert "(linux), this build is for pico_w (RP2040)" in message.splitlines()[0]
    assert "state: the board is untouched" in message
    assert "hint: connect a pico_w board (RP2040)" in message and "--board" in message
    assert "<script checking the board>" in message and "import sys" not in message
    assert len(ran) == 1, "no mpremote command after the check, nor the rest of its own"
    assert _tree(board_fs) == before


def test_the_board_check_names_each_kind_by_platform_and_chip():
    assert sorted(deploy.BOARD_KIND) == sorted(builder.BOARD_ARCH)
    # sys.implementation._machine is "<board> with <MCU>" (MicroPython's boards' names).
    script = deploy.check_script("esp32_s3")
    assert "sys.platform != 'esp32'" in script and "endswith('ESP32S3')" in script
    with pytest.raises(deploy.DeployError, match="no board check for 'uno'"):
        deploy.check_script("uno")


def test_the_board_check_lets_a_board_of_the_builds_kind_through(tmp_path, monkeypatch):
    # The same script, told that the VM's kind is the build's: it passes and the removal runs.
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    ran = []
    deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran),
                  root=_mini_project(tmp_path, broken=False), mip=False)
    assert not (board_fs / "firmware").exists() and not (board_fs / "main.py").exists()
    assert [c[3] if isinstance(c, list) else c for c in ran] == ["exec", "fs", ("reached", "fs"), "reset",
                                                                 ("reached", "reset")]


def _vm_is_the_builds_kind(monkeypatch, board):
    """Make the unix VM pass `board`'s kind check (BOARD_KIND: the VM's platform and machine)."""
    machine = subprocess.run([micropython_binary(), "-c", "import sys; print(sys.implementation._machine)"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    monkeypatch.setitem(deploy.BOARD_KIND, board, ("linux", machine[-6:]))
    monkeypatch.setitem(deploy.STOP_WATCHDOG, board, "")   # no RP2040 registers on the VM
    # nor a ROMFS partition: the room check runs in-process (test_romfs.py)
    monkeypatch.setattr(deploy, "ROOM_CHECK_SCRIPT", "")


def test_a_plain_deploy_onto_a_board_running_from_romfs_is_refused(tmp_path, monkeypatch):
    # A board whose program is a ROMFS image (/rom/manifest.json) and gets a plain install
    # would boot the new files from flash while the program check, finding /rom/manifest.json,
    # reports every one of them as extra: the table refuses jackpot wagers after a deploy that
    # said it succeeded.  The deploy refuses it first and says what to do.
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "rom").mkdir()
    (board_fs / "rom" / "manifest.json").write_text("{}")
    before = _tree(board_fs)
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran),
                      root=_mini_project(tmp_path, broken=False))
    message = str(caught.value)
    assert message.startswith("step 1 of 4, removing the old program: the board refused it, its program "
                              "is a ROMFS image (/rom/manifest.json)"), message
    assert "state: the board is untouched" in message
    assert "--romfs" in message.split("hint:")[1] and "docs/romfs.md" in message.split("hint:")[1]
    assert len(ran) == 1 and _tree(board_fs) == before


def test_a_romfs_deploy_onto_a_board_running_from_romfs_goes_ahead(tmp_path, monkeypatch):
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "rom").mkdir()
    (board_fs / "rom" / "manifest.json").write_text("{}")
    ran = []
    deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran),
                  root=_mini_project(tmp_path, broken=False), mip=False, romfs=True)
    assert ("reached", "romfs") in ran and not (board_fs / "firmware").exists()


@pytest.mark.parametrize("romfs", [False, True])
def test_a_deploy_without_a_key_onto_a_keyed_board_is_refused(tmp_path, monkeypatch, romfs):
    # A board holding manifest.key rejects a manifest without a valid HMAC: a deploy without
    # --key would replace a program the board accepts by one it refuses (no jackpot wagers).
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "manifest.key").write_bytes(KEY)
    if romfs:
        (board_fs / "rom").mkdir()
        (board_fs / "rom" / "manifest.json").write_text("{}")
    before = _tree(board_fs)
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran),
                      root=_mini_project(tmp_path, broken=False), romfs=romfs)
    message = str(caught.value)
    assert ("the board refused it, it holds an HMAC key (/manifest.key) and this build's manifest has no "
            "HMAC") in message.splitlines()[0], message
    assert "state: the board is untouched" in message and "--key" in message.split("hint:")[1]
    assert len(ran) == 1 and _tree(board_fs) == before


def test_a_deploy_with_a_key_onto_a_keyed_board_goes_ahead(tmp_path, monkeypatch):
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "manifest.key").write_bytes(KEY)
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(KEY)
    ran = []
    deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran), mip=False,
                  key_file=str(key_file), root=_mini_project(tmp_path, broken=False))
    assert not (board_fs / "firmware").exists() and (board_fs / "manifest.key").exists()


@pytest.mark.parametrize("romfs", [False, True])
def test_a_board_with_stray_program_files_is_refused_and_they_are_named(tmp_path, monkeypatch, romfs):
    # The boot check reports any program file outside the manifest and lib/ as extra (and the
    # table refuses jackpot wagers); the deploy removes only the build's own entries, so a
    # boot.py or a technician's script would survive a deploy that said it succeeded.
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "boot.py").write_text("import firmware\n")
    (board_fs / "tools").mkdir()
    (board_fs / "tools" / "probe.mpy").write_bytes(b"M")
    (board_fs / "lib" / "umqtt").mkdir(parents=True)
    (board_fs / "lib" / "umqtt" / "simple.mpy").write_bytes(b"M")
    (board_fs / "data").mkdir()
    (board_fs / "data" / "cm0.bin").write_bytes(b"\0")
    (board_fs / "config.json").write_text("{}")
    if romfs:
        (board_fs / "rom").mkdir()
        (board_fs / "rom" / "manifest.json").write_text("{}")
        (board_fs / "rom" / "x.mpy").write_bytes(b"M")
    before = _tree(board_fs)
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran), mip=False,
                      root=_mini_project(tmp_path, broken=False), romfs=romfs)
    message = str(caught.value)
    assert message.splitlines()[0].endswith(
        "the board refused it, it holds program files that are not part of the program: /boot.py, "
        "/tools/probe.mpy"), message
    assert "state: the board is untouched" in message and "mpremote rm" in message.split("hint:")[1]
    assert len(ran) == 1 and _tree(board_fs) == before


def test_a_board_with_lib_files_standing_in_for_builtin_modules_is_refused(tmp_path, monkeypatch):
    # MicroPython imports /lib/time.py instead of its built-in time: the boot check calls such a
    # file extra, so the deploy refuses the board before changing it, as for a boot.py.
    _vm_is_the_builds_kind(monkeypatch, "pico_w")
    board_fs = _board_fs_with_a_program(tmp_path)
    (board_fs / "lib" / "umqtt").mkdir(parents=True)
    (board_fs / "lib" / "umqtt" / "simple.mpy").write_bytes(b"M")
    (board_fs / "lib" / "time.py").write_text("print(1)\n")
    (board_fs / "lib" / "json").mkdir()
    (board_fs / "lib" / "json" / "__init__.mpy").write_bytes(b"M")
    before = _tree(board_fs)
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_vm_board(board_fs, ran), mip=False,
                      root=_mini_project(tmp_path, broken=False))
    assert caught.value.args[0].splitlines()[0].endswith(
        "not part of the program: /lib/json/__init__.mpy, /lib/time.py"), caught.value
    assert len(ran) == 1 and _tree(board_fs) == before


class _Mem32:
    """machine.mem32 of a board, as the register writes it received."""

    def __init__(self):
        self.writes = []

    def __setitem__(self, address, value):
        self.writes.append((address, value))


# sys.implementation._mpy of MicroPython 1.29 on an RP2040: .mpy version 6.3, armv6m code.
RP2040_1_29_MPY = 6 | 3 << 8 | MPY_ARCH_CODE["armv6m"] << 10


def _run_check_as_the_board(script, monkeypatch, board_fs, platform, machine_name, mpy=RP2040_1_29_MPY):
    """Run a deploy check script in-process as the board would: sys.platform, its machine's
    name and .mpy version, its `machine` module (mem32 writes recorded) and its filesystem as
    the cwd."""
    import types

    fake = types.ModuleType("machine")
    fake.mem32 = _Mem32()
    monkeypatch.setitem(sys.modules, "machine", fake)
    monkeypatch.setattr(sys, "platform", platform)
    implementation = types.SimpleNamespace(_machine=machine_name)
    if mpy is not None:             # None: a MicroPython too old to say
        implementation._mpy = mpy
    monkeypatch.setattr(sys, "implementation", implementation)
    monkeypatch.chdir(board_fs)
    try:
        exec(script, {})
        return fake.mem32.writes, None
    except Exception as error:   # noqa: BLE001 - what the board would print
        return fake.mem32.writes, error


def test_the_pico_w_check_stops_the_tables_watchdog_once_the_board_passes(tmp_path, monkeypatch):
    # A running table's watchdog keeps counting after mpremote interrupts the table (rp2 has no
    # way to stop machine.WDT), so the board reset itself ~2 s into a deploy: in the middle of
    # the ROMFS image or the copy.  The check clears the RP2040 watchdog's ENABLE bit through
    # the CTRL register's atomic clear alias (RP2040 datasheet 2.1.2: +0x3000), as the
    # pico-sdk's watchdog_disable() does.
    board_fs = _board_fs_with_a_program(tmp_path)
    built = builder.build("pico_w", tmp_path / "p", build_id="d", root=_mini_project(tmp_path, broken=False))
    script = deploy.check_script("pico_w", unkeyed=True, entries=deploy.top_level_entries(built.out))
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2",
                                            "Raspberry Pi Pico W with RP2040")
    assert error is None
    assert writes == [(0x40058000 + 0x3000, 1 << 30)]
    # Never on a board of another kind: its registers are elsewhere.
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "esp32",
                                            "Generic ESP32S3 module with ESP32S3")
    assert "wrong board" in str(error) and writes == []
    # Nor on a board a later check refuses: its watchdog restarts the table mpremote interrupted.
    (board_fs / "manifest.key").write_bytes(KEY)
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2",
                                            "Raspberry Pi Pico W with RP2040")
    assert deploy.KEYED_BOARD in str(error) and writes == []
    # The ESP32-S3's task watchdog cannot be stopped from Python: nothing is written there.
    assert "mem32" not in deploy.check_script("esp32_s3", entries=[])


@pytest.mark.parametrize("mpy,says", [(6 | 2 << 8 | 4 << 10, "6.2"), (5 | 4 << 10, "5.0"), (None, "0.0")])
def test_a_board_whose_micropython_cannot_load_the_builds_mpy_files_is_refused(tmp_path, monkeypatch, mpy,
                                                                               says):
    # MicroPython docs, mpyfiles.rst: a .mpy file loads only on a VM of its version, and one
    # with native code (the hand evaluator) only on the same sub-version.  A board on an older
    # MicroPython (1.22 takes 6.2; 1.18 and before 5) would fail at boot on every import with
    # "incompatible .mpy file" after its working program had been removed.
    board_fs = _board_fs_with_a_program(tmp_path)
    built = builder.build("pico_w", tmp_path / "p", build_id="d", root=_mini_project(tmp_path, broken=False))
    header = (built.out / "firmware" / "poker" / "hands.mpy").read_bytes()[:3]
    assert (header[1], header[2] & 3) == (6, 3), "mpy-cross 1.29 writes 6.3"
    script = deploy.check_script("pico_w", unkeyed=True, entries=deploy.top_level_entries(built.out),
                                 mpy=deploy.build_mpy(built.out))
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2",
                                            "Raspberry Pi Pico W with RP2040", mpy=mpy)
    assert deploy.OLD_MICROPYTHON in str(error) and writes == []
    assert "loads .mpy version %s, this build's are 6.3" % says in str(error)
    writes, error = _run_check_as_the_board(script, monkeypatch, board_fs, "rp2",
                                            "Raspberry Pi Pico W with RP2040")
    assert error is None


def test_the_deploy_checks_the_mpy_version_of_the_build_it_installs(tmp_path):
    out = tmp_path / "p"
    builder.build("pico_w", out, build_id="d", root=_mini_project(tmp_path, broken=False))
    script = deploy.commands(out)[0][4]
    entries = deploy.top_level_entries(out)
    assert script == deploy.check_script("pico_w", plain=True, unkeyed=True, entries=entries, mpy=(6, 3))


def test_the_watchdog_the_check_stops_is_the_one_the_pico_w_board_reads(monkeypatch):
    import importlib
    import types

    monkeypatch.setitem(sys.modules, "machine", types.ModuleType("machine"))
    monkeypatch.delitem(sys.modules, "boards.pico_w", raising=False)
    pico = importlib.import_module("boards.pico_w")
    assert "machine.mem32[%d] = %d" % (pico.WATCHDOG_CTRL + 0x3000, 1 << 30) in deploy.STOP_WATCHDOG["pico_w"]
    assert pico.WATCHDOG_SCRATCH4 == pico.WATCHDOG_CTRL + 0x1C


def test_deploy_refuses_a_folder_that_is_not_a_build(tmp_path):
    with pytest.raises(deploy.DeployError, match="is not a build folder"):
        deploy.commands(tmp_path)


# --- a failed build keeps the last good one ------------------------------------------------

def _tree(folder):
    """Relative path -> bytes of every file under folder."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _break(root):
    (root / "firmware" / "poker" / "hands.py").write_text("def f(:\n")


def _mend(root):
    (root / "firmware" / "poker" / "hands.py").write_text("X = 2\n")


def test_a_failed_build_leaves_the_previous_build_as_it_was(tmp_path):
    root = _mini_project(tmp_path, broken=False)
    out = tmp_path / "builds" / "pico_w"
    builder.build("pico_w", out, build_id="good", root=root)
    before = _tree(out)
    _break(root)
    # firmware/__init__.py and firmware/poker/__init__.py compile before hands.py fails.
    with pytest.raises(builder.BuildError) as caught:
        builder.build("pico_w", out, build_id="bad", root=root)
    message = str(caught.value)
    assert "mpy-cross failed on firmware/poker/hands.py" in message
    assert "%s is unchanged" % out in message
    assert _tree(out) == before
    assert manifest.check_device(str(out), board="pico_w").ok
    assert sorted(p.name for p in out.parent.iterdir()) == ["pico_w"], "no temporary folder left"
    _mend(root)
    result = builder.build("pico_w", out, build_id="next", root=root)
    assert json.loads((out / "manifest.json").read_bytes())["build_id"] == "next"
    assert manifest.check_device(str(out), board="pico_w").ok
    assert sorted(result.files) == sorted(set(before) - {"manifest.json"})


def test_a_first_build_that_fails_leaves_nothing_and_does_not_block_the_next(tmp_path):
    root = _mini_project(tmp_path, broken=True)
    out = tmp_path / "builds" / "pico_w"
    with pytest.raises(builder.BuildError, match="firmware/poker/hands.py"):
        builder.build("pico_w", out, build_id="bad", root=root)
    assert not out.exists()
    assert list(out.parent.iterdir()) == []
    _mend(root)
    builder.build("pico_w", out, build_id="good", root=root)
    assert manifest.check_device(str(out), board="pico_w").ok


def test_an_interrupted_build_keeps_the_previous_build_and_cleans_up(tmp_path, monkeypatch):
    root = _mini_project(tmp_path, broken=False)
    out = tmp_path / "builds" / "pico_w"
    builder.build("pico_w", out, build_id="good", root=root)
    before = _tree(out)
    compiled = []
    real_compile = builder.compile_module

    def compile_then_stop(source, *args, **kwargs):
        if compiled:
            raise KeyboardInterrupt       # Ctrl-C at the second module
        compiled.append(source)
        return real_compile(source, *args, **kwargs)

    monkeypatch.setattr(builder, "compile_module", compile_then_stop)
    with pytest.raises(KeyboardInterrupt):
        builder.build("pico_w", out, build_id="cut", root=root)
    assert _tree(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["pico_w"]


def test_leftovers_of_an_interrupted_build_do_not_block_the_next(tmp_path):
    # What a build killed outright (power cut, kill -9) leaves: its temporary folder, and a
    # build folder half-written by the earlier build.py that compiled in place.
    root = _mini_project(tmp_path, broken=False)
    out = tmp_path / "builds" / "pico_w"
    (out / "firmware" / "poker").mkdir(parents=True)
    (out / "firmware" / "__init__.mpy").write_bytes(b"M\x06\x00\x1f")
    (out / "firmware" / "poker" / "__init__.mpy").write_bytes(b"M\x06\x00\x1f")
    partial = builder.partial_path(out)
    assert partial.parent == out.parent and partial.name != out.name
    (partial / "firmware").mkdir(parents=True)
    (partial / builder.PARTIAL_MARK).write_text("")
    (partial / "firmware" / "__init__.mpy").write_bytes(b"M")
    builder.build("pico_w", out, build_id="after", root=root)
    assert manifest.check_device(str(out), board="pico_w").ok
    assert sorted(p.name for p in out.parent.iterdir()) == ["pico_w"]


def test_a_folder_with_files_no_build_writes_is_still_refused(tmp_path):
    root = _mini_project(tmp_path, broken=False)
    out = tmp_path / "pico_w"
    (out / "firmware").mkdir(parents=True)
    (out / "firmware" / "__init__.mpy").write_bytes(b"M")
    (out / "firmware" / "mine.txt").write_text("keep me")
    with pytest.raises(builder.BuildError, match="holds no manifest.json: not overwriting it"):
        builder.build("pico_w", out, build_id="x", root=root)
    assert (out / "firmware" / "mine.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pico_w", "project"]


def test_a_folder_in_the_temporary_place_that_is_not_ours_is_refused(tmp_path):
    root = _mini_project(tmp_path, broken=False)
    out = tmp_path / "pico_w"
    partial = builder.partial_path(out)
    partial.mkdir()
    (partial / "notes.txt").write_text("keep me")
    with pytest.raises(builder.BuildError, match="not overwriting it"):
        builder.build("pico_w", out, build_id="x", root=root)
    assert (partial / "notes.txt").read_text() == "keep me"
    assert not out.exists()


# --- deploy: what a failed step says -------------------------------------------------------

NO_DEVICE = "mpremote: no device found\n"


def _runner(ran, fails_at, stderr):
    """A stand-in for subprocess.run that records each mpremote command and fails the one whose
    subcommand (after `connect PORT`) is fails_at, as mpremote does: exit 1, message on stderr."""
    def fake_run(command):
        ran.append(command)
        if command[3] == fails_at:
            return subprocess.CompletedProcess(command, 1, stdout=None, stderr=stderr)
        return subprocess.CompletedProcess(command, 0, stdout=None, stderr="")
    return fake_run


def test_no_board_names_the_step_says_the_board_is_untouched_and_hints_at_the_port(tmp_path):
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_runner(ran, "exec", NO_DEVICE),
                      root=_mini_project(tmp_path, broken=False))
    message = str(caught.value)
    assert message.startswith("step 1 of 4, removing the old program: mpremote says: no device found")
    assert "state: the board is untouched" in message
    assert "--port" in message and "connect the board" in message
    assert "import os" not in message, "not the removal script"
    assert [c[3] for c in ran] == ["exec"], "no later step ran"


def test_board_lost_after_removal_says_the_old_program_is_gone_and_the_new_not_copied(tmp_path):
    ran = []
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", port="/dev/ttyACM0", out=tmp_path / "p", build_id="d",
                      run=_runner(ran, "fs", "mpremote: failed to access /dev/ttyACM0 (it may be in use by "
                                  "another program)\n"),
                      root=_mini_project(tmp_path, broken=False))
    message = str(caught.value)
    assert message.startswith("step 2 of 4, copying the new program: mpremote says: failed to access "
                              "/dev/ttyACM0")
    assert ("state: the old program is removed, but the new program is not copied, umqtt.simple is not "
            "installed and the board is not reset") in message
    assert "will not start the table until a deploy succeeds" in message
    assert "/dev/ttyACM0" in message.split("hint:")[1] and "--port" in message.split("hint:")[1]
    assert [c[3] for c in ran] == ["exec", "fs"]


def test_mip_failure_says_the_program_is_copied_but_umqtt_is_not_installed(tmp_path):
    ran = []
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(KEY)
    failure = ("mpremote: [Errno -3] Temporary failure in name resolution requesting "
               "https://micropython.org/pi/v2/package/6/umqtt.simple/latest.json\n")
    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", key_file=str(key_file), build_id="d",
                      run=_runner(ran, "mip", failure), root=_mini_project(tmp_path, broken=False))
    message = str(caught.value)
    assert message.startswith("step 3 of 5, installing umqtt.simple with mip: mpremote says: [Errno -3] "
                              "Temporary failure in name resolution")
    assert ("state: the old program is removed and the new program is copied, but umqtt.simple is not "
            "(or only partly) installed, the HMAC key is not provisioned and the board is not "
            "reset") in message
    assert "--no-mip" in message
    assert [c[3] for c in ran] == ["exec", "fs", "mip"], "neither the key nor the reset step ran"


def test_a_failing_step_that_says_nothing_still_gives_its_exit_status(tmp_path):
    with pytest.raises(deploy.DeployError, match="step 4 of 4, resetting the board: mpremote exited with "
                       "status 1 and said nothing"):
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=_runner([], "reset", None),
                      root=_mini_project(tmp_path, broken=False))


def test_mpremote_missing_at_run_time_is_a_clear_error(tmp_path):
    ran = []

    def no_program(command):
        ran.append(command)
        raise FileNotFoundError(2, "No such file or directory", command[0])

    with pytest.raises(deploy.DeployError) as caught:
        deploy.deploy("pico_w", out=tmp_path / "p", build_id="d", run=no_program,
                      root=_mini_project(tmp_path, broken=False))
    message = str(caught.value)
    assert message.startswith("mpremote not found: install it with ")
    assert "pip install mpremote" in message and "the board is untouched" in message
    assert len(ran) == 1


def test_deploy_cli_without_mpremote_fails_without_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(deploy, "mpremote_program", lambda: str(tmp_path / "nowhere" / "mpremote"))
    code = deploy.main(["--board", "pico_w", "--out", str(tmp_path / "p"), "--build-id", "c"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy failed: mpremote not found: install it with ")
    assert "Traceback" not in err
    assert not (tmp_path / "p").exists(), "found missing before building"


def test_deploy_cli_no_board_fails_with_the_step_and_no_traceback(tmp_path, monkeypatch, capsys):
    ran = []
    fake = _runner(ran, "exec", NO_DEVICE)
    monkeypatch.setattr(deploy, "run_mpremote", fake)
    monkeypatch.setattr(deploy, "mpremote_program", lambda: sys.executable)   # "installed"
    code = deploy.main(["--board", "pico_w", "--out", str(tmp_path / "p"), "--build-id", "c"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy failed: step 1 of 4, removing the old program: mpremote says: no device "
                          "found")
    assert "Traceback" not in err and len(ran) == 1


def test_deploy_cli_build_failure_says_the_board_is_untouched(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(deploy, "mpremote_program", lambda: sys.executable)   # "installed"
    monkeypatch.setattr(deploy, "run_mpremote", _runner([], None, ""))
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(b"short")
    code = deploy.main(["--board", "pico_w", "--out", str(tmp_path / "p"), "--key", str(key_file)])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy failed: the build failed, the board is untouched: key file ")


@pytest.mark.parametrize("board, romfs, noted", [("pico_w", False, True), ("pico_w", True, False),
                                                 ("esp32_s3", False, False)])
def test_a_plain_install_on_a_pico_w_is_told_it_needs_romfs(tmp_path, capsys, board, romfs, noted):
    # docs/romfs.md: the program loaded from files does not fit a Pico W's RAM; the deploy had
    # prepared a plain install for one without a word (the README's own dry-run example)
    deploy.deploy(board, out=tmp_path / "b", build_id="d", dry_run=True, romfs=romfs,
                  root=_mini_project(tmp_path, broken=False))
    printed = capsys.readouterr().out
    assert (deploy.ROMFS_NOTE % board in printed) == noted
