"""The board's boot (firmware.startup): which configuration it boots with, what its checks keep."""

import json
import shutil
from pathlib import Path

import pytest

from firmware import heap, startup
from firmware.table import controller as tc

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "table-config.example.json"


def test_no_config_file_means_the_defaults(tmp_path):
    table, ok, text = startup.load_config(str(tmp_path / "config.json"), "pico_w")
    assert table is None and ok and "defaults" in text


def test_a_config_file_that_cannot_be_read_is_not_taken_for_a_missing_one(tmp_path, monkeypatch):
    # a file that is there but unreadable (a damaged flash: EIO; here also a directory) is not
    # "no file": the defaults would silently replace the table's own rules with the jackpot open
    path = tmp_path / "config.json"
    path.mkdir()
    table, ok, text = startup.load_config(str(path), "pico_w")
    assert table is None and not ok
    assert str(path) in text and "unreadable" in text and "defaults" not in text
    path.rmdir()
    path.write_text("{}")

    def broken(name, mode="r"):
        raise OSError(5, "EIO")
    monkeypatch.setattr("builtins.open", broken)
    table, ok, text = startup.load_config(str(path), "pico_w")
    assert table is None and not ok and "unreadable" in text and "5" in text


def test_a_valid_config_file_is_used(tmp_path):
    path = tmp_path / "config.json"
    shutil.copyfile(EXAMPLE, path)
    board = json.loads(EXAMPLE.read_text()).get("board") or "pico_w"
    table, ok, text = startup.load_config(str(path), board)
    assert ok and table is not None and table.game in text


def test_a_bad_config_file_is_refused_with_the_key_and_value(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["table_max"] = -1
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    table, ok, text = startup.load_config(str(path), data.get("board") or "pico_w")
    assert table is None and not ok
    assert "table_max" in text and "-1" in text


def test_a_four_card_poker_config_runs_the_table_as_that_game(tmp_path):
    fcp = EXAMPLE.parent / "table-config.fcp.example.json"
    path = tmp_path / "config.json"
    shutil.copyfile(fcp, path)
    board = json.loads(fcp.read_text()).get("board") or "pico_w"
    table, ok, text = startup.load_config(str(path), board)
    assert ok and table.game == "fcp" and "fcp" in text


def test_a_five_seat_table_plays_five_seats(tmp_path):
    # rules.seats: the table is set up for fewer seats than the board has rings and sensors
    from boards import simulated
    from firmware.app import App
    from firmware.drivers import spot_lights as lights
    from firmware.store.slots import PathFS

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"format": 1, "game": "uth", "board": simulated.NAME,
                                "rules": {"seats": 5}}))
    options, link, ok, text = startup.check_config(simulated.NAME, str(path))
    assert ok and options["seats"] == 5
    table = simulated.make(str(tmp_path / "state"))
    app = App(table.board, PathFS(table.flash_dir), now=0, **options)
    c = app.controller
    assert c.seats == 5 and len(c.view.seat_light) == 5
    assert app.lights.seats == table.board.seats == 7      # rings 6 and 7 driven, and OFF
    assert app.lights.state(5) == app.lights.state(6) == lights.OFF
    assert "seat 6" not in str(c._dest_buffer(6)[1])       # no seat 6 to deal to



@pytest.mark.parametrize("alone", [False, True])
def test_a_four_card_poker_table_without_aces_up_alone_refuses_cards_to_a_seat_without_an_ante(
        tmp_path, alone):
    # rules.aces_up_alone false [FCP 5.1]: the operator does not offer Aces Up without an
    # Ante, so a seat whose Ante spot is empty has no wager and a card dealt to it is
    # discarded ("S2 no wager") [FCP 11.4], as at Big Raise Stud; offered, the card is taken.
    from boards import simulated
    from firmware.app import App
    from firmware.drivers import buttons as btn
    from firmware.drivers import spot_sensors as sens
    from firmware.poker import cards
    from firmware.store.slots import PathFS

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"format": 1, "game": "fcp", "board": simulated.NAME,
                                "rules": {"aces_up_alone": alone}}))
    options, link, ok, text = startup.check_config(simulated.NAME, str(path))
    assert ok
    table = simulated.make(str(tmp_path / "state"))
    c = App(table.board, PathFS(table.flash_dir), now=0, **options).controller
    c.boot(0, 1000)
    now = 0
    for kind, button in ((btn.KEY_ON, 0), (btn.PRESS, btn.OK), (btn.LONG, btn.OK),
                         (btn.RELEASE, btn.OK), (btn.PRESS, btn.OK), (btn.RELEASE, btn.OK),
                         (btn.KEY_OFF, 0)):                       # the RAM clear
        now += 200
        c.panel(kind, button, now)
    c.spot(sens.PLACED, sens.ante_spot(1), now + 200)             # seat 1's Ante
    c.panel(btn.PRESS, btn.LOCK, now + 400)
    c.panel(btn.RELEASE, btn.LOCK, now + 500)
    assert c.phase == tc.LOCKED
    c.card(1, cards.parse("Ah")[0], now + 600)
    c.card(2, cards.parse("Kh")[0], now + 700)
    assert c._hole(0) == cards.parse("Ah")
    assert c._hole(1) == ([] if not alone else cards.parse("Kh"))
    assert (c.last_refusal == "Card refused: S2 no wager") is not alone


# ------------------------------------------------------------------ boot-time checks

def _run(runtime, script, args, path=None):
    """Run host_tests/<script> under `runtime` with the project (or `path`) on its module path."""
    from host_tests import runtimes
    script = runtimes.ROOT / "host_tests" / script
    if runtime == "micropython":
        return runtimes.run_micropython(script, args, path=path, timeout=120)
    return runtimes.run_cpython(script, args, timeout=120, path=path)


def _startup(runtime, root, config, board="pico_w"):
    done = _run(runtime, "startup_mp.py", [str(root), str(config), board])
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(line.split(None, 1) for line in done.stdout.splitlines())


def _install(root, board):
    """A verified install under root: one program file and its manifest."""
    from firmware import manifest
    program = b"print('table')\n"
    (root / "main.py").write_bytes(program)
    (root / manifest.MANIFEST_NAME).write_bytes(manifest.make(board, "test-1", {"main.py": program}))


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_startup_checks_verify_configure_and_forget_their_modules(runtime, tmp_path):
    data = json.loads(EXAMPLE.read_text())
    board = data.get("board") or "pico_w"
    config = tmp_path / "config.json"
    shutil.copyfile(EXAMPLE, config)
    root = tmp_path / "install"
    root.mkdir()
    _install(root, board)
    f = _startup(runtime, root, config, board)
    assert (f["program_ok"], f["program_reason"]) == ("1", "ok")
    assert (f["config_ok"], f["game"], f["linked"]) == ("1", data["game"], "0")
    # the verifier, the file's parser and every game's rules are not kept
    assert (f["loaded_manifest"], f["loaded_config_file"]) == ("0", "0")
    assert (f["loaded_fcp"], f["loaded_brs"]) == ("0", "0")
    # the table's own game's rules too: it evaluates hands and pays the jackpot, but never
    # settles the players' wagers with them
    assert (f["loaded_uth"], f["loaded_settle"]) == ("0", "0")
    # nor the presets' pay tables: only Big Raise Stud's results read one, and load it then
    assert f["loaded_paytables"] == "0"
    assert f["config_class_current"] == "1"
    if runtime == "micropython":
        # what forgetting saves: those modules' code, had the checks kept them
        assert int(f["modules_bytes"]) > 8192 and int(f["kept_bytes"]) < int(f["modules_bytes"])


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
@pytest.mark.parametrize("game, rules, expected", [
    ("uth", {"hand_rule": "best5of7"}, "game=uth,hand_rule=best5of7,seats=7"),
    ("fcp", {"aces_up_alone": False, "seats": 5}, "aces_up_alone=False,game=fcp,seats=5"),
    ("brs", {"seats": 6}, "game=brs,seats=6"),
])
def test_startup_checks_give_the_table_the_file_s_game_and_rules(runtime, tmp_path, game, rules,
                                                                  expected):
    # the table's keyword arguments come from config_file's controller_args on both runtimes
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"format": 1, "game": game, "rules": rules}))
    root = tmp_path / "install"
    root.mkdir()
    _install(root, "pico_w")
    f = _startup(runtime, root, config)
    assert (f["config_ok"], f["options"]) == ("1", expected)


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_startup_checks_report_a_changed_program_and_a_missing_config(runtime, tmp_path):
    root = tmp_path / "install"
    root.mkdir()
    _install(root, "pico_w")
    (root / "main.py").write_bytes(b"print('tampered')\n")
    f = _startup(runtime, root, tmp_path / "absent.json")
    assert (f["program_ok"], f["program_reason"]) == ("0", "changed-file")
    assert (f["config_ok"], f["game"]) == ("1", "None")       # no file: the defaults


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_startup_checks_refuse_a_config_file_they_cannot_read(runtime, tmp_path):
    root = tmp_path / "install"
    root.mkdir()
    _install(root, "pico_w")
    config = tmp_path / "config.json"
    config.mkdir()                  # there, but no file can be read from it (EISDIR)
    f = _startup(runtime, root, config)
    assert (f["config_ok"], f["game"]) == ("0", "None")     # the defaults, jackpot closed
    assert "unreadable" in f["config_text"]


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_startup_checks_refuse_a_bad_config_file_and_still_forget_its_parser(runtime, tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["table_max"] = -1
    config = tmp_path / "config.json"
    config.write_text(json.dumps(data))
    root = tmp_path / "install"
    root.mkdir()
    _install(root, "pico_w")
    f = _startup(runtime, root, config)
    assert (f["program_ok"], f["config_ok"], f["game"]) == ("1", "0", "None")   # the defaults
    assert "table_max" in f["config_text"] and "-1" in f["config_text"]
    assert (f["loaded_config_file"], f["loaded_fcp"], f["loaded_brs"]) == ("0", "0", "0")
    assert (f["loaded_uth"], f["loaded_settle"]) == ("0", "0")


def test_forget_drops_a_module_and_the_next_import_loads_it_afresh(monkeypatch):
    import sys

    import firmware.poker
    from firmware.poker import brs
    # both restored after the test, whatever it does
    monkeypatch.setitem(sys.modules, "firmware.poker.brs", brs)
    monkeypatch.setattr(firmware.poker, "brs", brs)
    heap.forget("firmware.poker.brs")
    assert "firmware.poker.brs" not in sys.modules and not hasattr(firmware.poker, "brs")
    from firmware.poker import brs as again
    assert again is not brs and again.Config.__name__ == "Config"


STAND_IN_APP = '''\
import sys


def run(hw, checks):
    import gc

    program, options, link_settings, ok, text = checks
    print("gc threshold", gc.threshold() if hasattr(gc, "threshold") else "none")
    print("board", hw.name)
    print("program", program["reason"])
    print("config", int(ok), options.get("game"))
    for name in ("firmware.manifest", "firmware.config_file", "firmware.poker.fcp",
                 "firmware.table.controller", "firmware.startup"):
        print("loaded", name, int(name in sys.modules))
'''

BOARD_PY = '''\
from boards import simulated


def make():
    return simulated.make(%r).board
'''


def _run_main(runtime, tmp_path, stand_in):
    """Run main.py as tools/build.py writes it (host_tests/startup_main_mp.py) with
    `stand_in` as firmware.app."""
    from host_tests import runtimes
    from tools.build import MAIN_PY
    data = json.loads(EXAMPLE.read_text())
    data["board"] = "simulated"
    (tmp_path / "config.json").write_text(json.dumps(data))
    flash = tmp_path / "flash"
    flash.mkdir()
    _install(flash, "simulated")
    (tmp_path / "state").mkdir()
    (tmp_path / "board.py").write_text(BOARD_PY % str(tmp_path / "state"))
    (tmp_path / "stand_in_app.py").write_text(stand_in)
    (tmp_path / "main.py").write_text(MAIN_PY)
    return _run(runtime, "startup_main_mp.py", [str(flash), str(tmp_path / "config.json"),
                                                str(tmp_path / "main.py")],
                path="%s:%s" % (runtimes.ROOT, tmp_path))


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_main_checks_before_the_table_code_loads(runtime, tmp_path):
    """main.py's path: the board, then the checks, and only then firmware.app: when the table
    is started, the checks' modules are gone and the round controller has not loaded yet."""
    done = _run_main(runtime, tmp_path, STAND_IN_APP)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # the checks and the table's code load with the garbage collected every few KB (below)
    assert lines[0] == "gc threshold %s" % (
        heap.LOADING_GC_BYTES if runtime == "micropython" else "none")
    lines = lines[1:]
    assert lines[:3] == ["board simulated", "program ok", "config 1 uth"]
    assert lines[3:] == ["loaded firmware.manifest 0", "loaded firmware.config_file 0",
                         "loaded firmware.poker.fcp 0", "loaded firmware.table.controller 0",
                         "loaded firmware.startup 0"]


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_main_says_on_the_console_why_the_table_stopped(runtime, tmp_path):
    """A failure while starting or running the table is printed as one line for the
    technician (with the heap on MicroPython) before it ends main.py."""
    done = _run_main(runtime, tmp_path, "def run(hw, checks):\n    raise MemoryError('no 2048 bytes')\n")
    assert done.returncode != 0
    said = [line for line in done.stdout.splitlines() if line.startswith("table controller")]
    assert len(said) == 1 and said[0].startswith("table controller stopped: MemoryError: no 2048 bytes")
    assert ("(heap: " in said[0] and "bytes free of" in said[0]) == (runtime == "micropython")
    assert "Traceback" in done.stdout + done.stderr      # and the traceback still follows


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_an_empty_board_folder_beside_the_board_module_is_an_extra_file_not_a_stop(
        runtime, tmp_path):
    """An empty folder /board/ on the flash (a technician's mkdir, a botched copy): MicroPython
    imports it, as a namespace package with no make(), in place of board.mpy, and the boot
    stopped before any check.  The board module is imported past it, and the program check
    reports the folder as an extra file: the table starts with jackpot wagering closed and
    PROGRAM ERROR on its display."""
    from firmware import manifest
    from host_tests import runtimes
    from tools.build import MAIN_PY
    data = json.loads(EXAMPLE.read_text())
    data["board"] = "simulated"
    (tmp_path / "config.json").write_text(json.dumps(data))
    flash = tmp_path / "flash"                   # the board's filesystem, first on the path
    flash.mkdir()
    (tmp_path / "state").mkdir()
    files = {"main.py": MAIN_PY.encode(),
             "board.py": (BOARD_PY % str(tmp_path / "state")).encode()}
    for name, content in files.items():
        (flash / name).write_bytes(content)
    (flash / manifest.MANIFEST_NAME).write_bytes(manifest.make("simulated", "test-1", files))
    (flash / "board").mkdir()
    (tmp_path / "stand_in_app.py").write_text(STAND_IN_APP)
    done = _run(runtime, "startup_main_mp.py", [str(flash), str(tmp_path / "config.json"),
                                                str(flash / "main.py")],
                path="%s:%s:%s" % (flash, runtimes.ROOT, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:2] == ["board simulated", "program extra-file"]
    assert "loaded firmware.startup 0" in lines


BOARD_KEPT_PY = '''\
from boards import simulated

table = None            # the simulated table: its display, once the boot stopped


def make():
    global table
    table = simulated.make("/state")
    return table.board
'''


def _program(tree, app=None, mpy=()):
    """The project's sources in folder `tree` as a build installs them (the simulated board
    as `board`, `app` in place of firmware/app.py when given) with main.py and their
    manifest; the modules in `mpy` ("board.py") compiled, as the build compiles them all."""
    import subprocess

    from firmware import manifest
    from host_tests import runtimes
    from tools import programs
    from tools.build import MAIN_PY
    for folder in ("firmware", "boards", "host_tests/fakes"):
        for source in (runtimes.ROOT / folder).rglob("*.py"):
            target = tree / source.relative_to(runtimes.ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    (tree / "host_tests" / "__init__.py").write_text("")
    if app is not None:
        (tree / "firmware" / "app.py").write_text(app)
    (tree / "board.py").write_text(BOARD_KEPT_PY)
    (tree / "main.py").write_text(MAIN_PY)
    for name in mpy:
        subprocess.run([programs.mpy_cross(), "-o", str(tree / name) + "c", str(tree / name)],
                       check=True)
        (tree / name).unlink()
        (tree / (name + "c")).rename(tree / (name[:-3] + ".mpy"))
    files = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*")
             if p.suffix in (".py", ".mpy")}
    (tree / manifest.MANIFEST_NAME).write_bytes(manifest.make("simulated", "rom-1", files))


def _boot_board(tmp_path, flash, stray, image="-"):
    """Run host_tests/board_boot_mp.py: the board's start-up with `flash` as its filesystem
    (and `image` as its ROMFS), after adding `stray` there, folders ("name/") and files."""
    from host_tests import runtimes
    (flash / "state").mkdir(parents=True)
    data = json.loads(EXAMPLE.read_text())
    data["board"] = "simulated"
    (flash / "config.json").write_text(json.dumps(data))
    for name in stray:
        if name.endswith("/"):
            (flash / name).mkdir(parents=True)
        else:
            (flash / name).parent.mkdir(parents=True, exist_ok=True)
            (flash / name).write_text("X = 1\n")
    return runtimes.run_micropython(runtimes.ROOT / "host_tests" / "board_boot_mp.py",
                                    [str(image), str(flash)],
                                    heapsize=16 * 1024 * 1024, timeout=120)


def _romfs_board(tmp_path, stray=()):
    """Boot a board whose program is a ROMFS image: the image holds the project's sources
    (_program, the stand-in as firmware.app); the flash holds main.py, the configuration and
    `stray`.  Returns the VM's CompletedProcess."""
    from tools.build import MAIN_PY, romfs_image
    tree = tmp_path / "image"
    _program(tree, STAND_IN_APP + '    print("path", program["path"])\n')
    (tmp_path / "board.romfs").write_bytes(romfs_image(tree))
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text(MAIN_PY)
    return _boot_board(tmp_path, flash, stray, tmp_path / "board.romfs")


def test_a_romfs_install_boots_from_its_image(tmp_path):
    """The board's own start-up (the image at /rom, the flash at / and first on sys.path):
    main.py runs the checked program from the image."""
    done = _romfs_board(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program ok", "config 1 uth"]
    assert lines[-1] == "path None" and "loaded firmware.startup 0" in lines


@pytest.mark.parametrize("stray", [["firmware/"], ["boards/"], ["board/"], ["firmware.py"],
                                   ["firmware/", "firmware/startup.py"]])
def test_a_stray_folder_or_file_on_the_flash_of_a_romfs_install_is_named_not_a_stop(
        tmp_path, stray):
    """An empty /firmware/ or /boards/ folder on the flash of a ROMFS install (a technician's
    mkdir, what a plain install's removal left): the flash comes first on sys.path, and
    MicroPython imported the folder, empty, in place of the image's package: the boot stopped
    at main.py ("no module named 'firmware.startup'") with nothing on the display.  main.py
    now puts /rom first, the checked image always wins, and the check names what is on the
    flash: jackpot wagering closed, PROGRAM ERROR on the display."""
    done = _romfs_board(tmp_path, stray)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program extra-file", "config 1 uth"]
    # a program file in it is named before the folder
    assert lines[-1] == "path /" + stray[-1] and "loaded firmware.startup 0" in lines


@pytest.mark.parametrize("folder", ["firmware/table/controller/", "firmware/jackpot/pools/",
                                    "firmware/poker/uth/", "firmware/drivers/oled/"])
def test_a_folder_in_place_of_a_table_module_stops_the_boot_with_program_error_shown(
        tmp_path, folder):
    """A plain install with an empty folder beside one of the table's modules (a
    technician's mkdir, a botched copy): the check names it, but MicroPython imports the
    folder in place of the module, and the table's code stopped on it ("module
    'firmware.table.controller' has no attribute 'LOCKED'"), or the configuration's
    check on one of its modules, with a blank display.  No more of the program is now
    loaded once the program check named it: the display alone says PROGRAM ERROR and names
    the folder, and the console says why (jackpot wagering closed: no table runs)."""
    flash = tmp_path / "flash"
    _program(flash)
    done = _boot_board(tmp_path, flash, [folder])
    said = [line for line in done.stdout.splitlines() if line.startswith("table controller")]
    assert said and said[0].startswith(
        "table controller stopped: RuntimeError: program check failed: extra-file: " + folder)
    assert "stopped RuntimeError" in done.stdout.splitlines()
    shown = [line[8:].rstrip() for line in done.stdout.splitlines() if line.startswith("display")]
    if "oled" in folder:        # the display's own driver: the console alone says it
        assert not "".join(shown).strip()
        return
    assert shown[:2] == ["PROGRAM ERROR", "extra-file"]
    assert "".join(shown[2:]) == folder


@pytest.mark.parametrize("stray,named", [
    (["json/"], None), (["os/"], None), (["time/"], None), (["lib/json/"], None),
    (["hashlib/", "binascii/"], None), (["lib/time.py"], "lib/time.py")])
def test_a_folder_or_file_named_as_a_built_in_module_never_stands_in_for_it(
        tmp_path, stray, named):
    """An empty /json/ or /os/ folder on the flash (or in /lib): MicroPython looks for these
    built-in modules on sys.path first and imported the folder in their place, empty: the
    boot stopped ("module 'json' has no attribute 'loads'") with a blank display, or the
    program check failed on it without naming it.  The boot binds the built-in modules
    first: the folder changes nothing, and a file named as one is still named by the check."""
    from firmware import manifest
    flash = tmp_path / "flash"
    _program(flash, STAND_IN_APP + '''    import json, os, time
    print("path", program["path"], hasattr(json, "loads") and hasattr(os, "stat")
          and hasattr(time, "ticks_ms"))
''')
    done = _boot_board(tmp_path, flash, stray)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program " + ("extra-file" if named else "ok"),
                         "config 1 uth"]
    assert lines[-1] == "path %s True" % named
    assert startup.BUILTINS == manifest.BUILTIN_NAMES


def test_a_folder_in_place_of_the_verifier_is_a_failed_check_not_a_stop(tmp_path):
    """An empty /firmware/manifest/ beside manifest.py: MicroPython imports the folder in
    place of the verifier, and the check's own fallback (the verifier's Result) stopped the
    boot ("no attribute 'Result'") with a blank display.  The check fails, saying it could
    not run: the table starts with jackpot wagering closed and PROGRAM ERROR."""
    flash = tmp_path / "flash"
    _program(flash, STAND_IN_APP + '    print("text", program["text"])\n')
    done = _boot_board(tmp_path, flash, ["firmware/manifest/"])
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program bad-manifest", "config 1 uth"]
    assert lines[-1].startswith("text program check failed: bad-manifest: the check stopped: "
                                "AttributeError")
    assert lines[-1].endswith("(firmware/manifest)")       # where the technician looks


@pytest.mark.parametrize("broken", ["mpy", "py"])
def test_a_verifier_the_vm_refuses_is_a_failed_check_not_a_stop(tmp_path, broken):
    """A firmware/manifest.mpy the VM refuses (built by another mpy-cross, its header
    damaged) or a manifest.py beside it that does not compile (a botched copy): the import
    of the verifier stopped the boot before any check, blank display.  The check fails,
    saying why: the table starts with jackpot wagering closed and PROGRAM ERROR."""
    flash = tmp_path / "flash"
    _program(flash, STAND_IN_APP + '    print("text", program["text"])\n',
             mpy=["firmware/manifest.py"])
    compiled = flash / "firmware" / "manifest.mpy"
    if broken == "mpy":
        data = bytearray(compiled.read_bytes())
        data[1] -= 1                                    # the .mpy version
        compiled.write_bytes(bytes(data))
    else:
        (flash / "firmware" / "manifest.py").write_text("def check_device(:\n")
    done = _boot_board(tmp_path, flash, [])
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program bad-manifest", "config 1 uth"]
    assert lines[-1].startswith("text program check failed: bad-manifest: the check stopped: "
                                + ("ValueError" if broken == "mpy" else "SyntaxError"))


def _assert_program_error(done, reason, path):
    """The boot stopped on the program check's `reason` for `path`: the console says so,
    and the dealer display alone shows PROGRAM ERROR, the reason and the path."""
    said = [line for line in done.stdout.splitlines() if line.startswith("table controller")]
    assert said and said[0].startswith(
        "table controller stopped: RuntimeError: program check failed: %s: %s" % (reason, path))
    shown = [line[8:].rstrip() for line in done.stdout.splitlines() if line.startswith("display")]
    assert shown[:2] == ["PROGRAM ERROR", reason] and "".join(shown[2:]) == path


LINKED_APP = """\
from firmware import real_app
from firmware.link.setup import LinkSetup
from firmware.store.slots import PathFS


def opener():
    raise OSError(113)          # no broker: the link stays down


def run(hw, checks):
    program = checks[0]
    c = real_app.App(hw, PathFS("/state"), now=0).controller     # commissioned first
    c.boot(0, 1000)
    ram_clear(c, 0)
    setup = LinkSetup(1, b"link-key-of-table-1", opener)
    app = real_app.App(hw, PathFS("/state"), now=0, link=setup)
    app.boot(0, 1000, program)
    c = app.controller
    print("program", program["reason"])
    print("text", program["text"])
    print("phase", c.phase)
    print("lines", "|".join(c.view.lines))
    print("refusal", c.last_refusal or "-")
    if c.phase == real_app.tc.RAM_ERROR:     # the supervisor's RAM clear, as the display asks
        ram_clear(c, 2000)
        print("cleared", c.phase, c.last_refusal or "-")


def ram_clear(c, ms):
    from firmware.drivers import buttons as btn

    c.panel(btn.KEY_ON, 0, ms)          # key + long OK, then OK
    for kind, at in ((btn.PRESS, 10), (btn.LONG, 1100), (btn.RELEASE, 1200),
                     (btn.PRESS, 1300), (btn.RELEASE, 1400)):
        c.panel(kind, btn.OK, ms + at)
    c.panel(btn.KEY_OFF, 0, ms + 1500)
"""


def _linked_board(tmp_path, module, lie=False):
    """Boot a linked table (LINKED_APP, its critical memory commissioned) whose `module`
    ("firmware/manifest.py") is compiled and refused by the VM (its .mpy version changed),
    the manifest written before (the check names it) or, with lie, after (it matches);
    returns what LINKED_APP printed, by its first word."""
    from firmware import manifest
    from host_tests import runtimes
    flash = tmp_path / "flash"
    _program(flash, LINKED_APP, mpy=[module])
    (flash / "firmware" / "real_app.py").write_bytes((runtimes.ROOT / "firmware" / "app.py").read_bytes())
    compiled = flash / (module[:-3] + ".mpy")
    data = bytearray(compiled.read_bytes())
    data[1] -= 1                                    # the .mpy version
    if lie:
        compiled.write_bytes(bytes(data))
    files = {p.relative_to(flash).as_posix(): p.read_bytes() for p in flash.rglob("*")
             if p.suffix in (".py", ".mpy")}
    (flash / manifest.MANIFEST_NAME).write_bytes(manifest.make("simulated", "rom-1", files))
    compiled.write_bytes(bytes(data))
    done = _boot_board(tmp_path, flash, [])
    assert done.returncode == 0, done.stdout + done.stderr
    said = dict(line.split(None, 1) for line in done.stdout.splitlines()
                if line.split(None, 1)[0] in ("program", "text", "phase", "lines", "refusal",
                                              "cleared"))
    assert "phase" in said, done.stdout + done.stderr
    return said


def test_a_verifier_the_vm_refuses_shows_the_program_fault_at_a_linked_table(tmp_path):
    """A firmware/manifest.mpy the VM refuses at a linked table: the program check fails,
    but the link loaded the verifier again for its HMAC, so the table stopped in RAM ERROR
    "bad record: incompatible .mpy file", which a supervisor's RAM clear would not cure.
    The link's HMAC is its own module: the table shows PROGRAM ERROR, jackpot closed, and
    the check's text names the module it could not load."""
    said = _linked_board(tmp_path, "firmware/manifest.py")
    assert said["program"] == "bad-manifest"
    assert "firmware/manifest" in said["text"] and "incompatible .mpy" in said["text"]
    assert said["phase"] == str(tc.OPEN), said
    assert said["lines"].split("|")[1] == "PROGRAM ERROR"


@pytest.mark.parametrize("lie", [False, True])
@pytest.mark.parametrize("module", ["firmware/table/linked.py", "firmware/link/codec.py",
                                    "firmware/link/station.py"])
def test_link_code_the_vm_refuses_is_a_program_error_not_a_bad_record(tmp_path, module, lie):
    """A linked table's own code the VM refuses (a damaged .mpy, or one from another
    mpy-cross that the manifest lists as it is): its import's ValueError passed for a bad
    record, RAM ERROR "bad record: incompatible .mpy file", which sends the supervisor to a
    RAM clear for what is a program fault.  The boot says PROGRAM ERROR and names the
    module it cannot load."""
    said = _linked_board(tmp_path, module, lie)
    assert said["program"] == ("ok" if lie else "changed-file")
    assert said["phase"] == str(tc.RAM_ERROR)
    shown = said["lines"].split("|")
    assert shown[2:4] == ["PROGRAM ERROR - ", "cannot load firm"], shown
    assert said["refusal"].startswith("RAM ERROR: PROGRAM ERROR - cannot load firmware.")
    assert "incompatible .mpy file" in said["refusal"] and "bad record" not in said["refusal"]
    # the RAM clear cannot mend it: refused, or the link still fails, said as such, and the
    # table goes on (no NotLoaded out of the supervisor's action, which stopped the loop)
    assert said["cleared"].startswith(("%d Link failed: cannot load firmware." % tc.OPEN,
                                       "%d RAM clear failed: " % tc.RAM_ERROR)), said


def test_a_source_file_beside_the_board_module_is_an_extra_file_not_a_stop(tmp_path):
    """A board.py beside board.mpy (a source copied for a look, a botched copy): MicroPython
    imports the .py first, and the boot stopped before any check ("no attribute 'make'").
    The board module is imported past it, and the check names it: jackpot wagering closed."""
    flash = tmp_path / "flash"
    _program(flash, STAND_IN_APP + '    print("path", program["path"])\n', mpy=["board.py"])
    done = _boot_board(tmp_path, flash, ["board.py"])
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program extra-file", "config 1 uth"]
    assert lines[-1] == "path board.py"


@pytest.mark.parametrize("stray", ["boards/base/", "boards/simulated/", "boards/base.py"])
def test_a_folder_or_file_in_place_of_a_board_support_module_is_named_not_a_blank_stop(
        tmp_path, stray):
    """An empty boards/base/ beside base.mpy (or a base.py): the board module imports it, and
    the boot stopped before any check ("no attribute 'MCP23017_ADDR'"), blank display.  The
    board's files are now imported past it, and the check names it: as for any folder or
    file in place of a module inside a package, the display alone says PROGRAM ERROR."""
    flash = tmp_path / "flash"
    _program(flash, mpy=["boards/base.py"] if stray.endswith(".py") else ())
    done = _boot_board(tmp_path, flash, [stray])
    _assert_program_error(done, "extra-file", stray)


@pytest.mark.parametrize("stray", [["board/", "firmware/table/controller/"],
                                   ["boot.py", "firmware/table/controller/"],
                                   ["a.py", "firmware/table/controller.py"]])
def test_a_stray_in_a_package_is_named_before_a_top_level_one_and_stops_the_boot(
        tmp_path, stray):
    """A stray folder (or .py) in place of a table module, and another extra file or folder
    at the top level that sorts before it (an ESP32's own /boot.py, a /board/ folder): the
    check named the top-level one only, so the boot went on and the table's code stopped on
    the folder ("no attribute 'LOCKED'"), blank display.  The check names first what would
    stop the code that imports it, and the display says PROGRAM ERROR with its path."""
    flash = tmp_path / "flash"
    _program(flash, mpy=[stray[-1]] if stray[-1].endswith(".py") else ())
    done = _boot_board(tmp_path, flash, stray)
    _assert_program_error(done, "extra-file", stray[-1])


@pytest.mark.parametrize("fault", ["changed", "no manifest"])
def test_a_stray_in_a_package_is_named_before_another_failure_and_stops_the_boot(
        tmp_path, fault):
    """A changed file (or no manifest) and an empty firmware/table/controller/ folder: the
    check named the changed file only, so the boot went on and the table's code stopped on
    the folder ("no attribute 'LOCKED'") with a blank display.  The folder is named first,
    and the display says PROGRAM ERROR with its path."""
    flash = tmp_path / "flash"
    _program(flash)
    if fault == "changed":
        cards = flash / "firmware" / "poker" / "cards.py"
        cards.write_text(cards.read_text() + "# edited\n")
    else:
        (flash / "manifest.json").unlink()
    stray = "firmware/table/controller/"
    done = _boot_board(tmp_path, flash, [stray])
    _assert_program_error(done, "extra-file", stray)


def test_a_folder_named_init_in_a_package_is_harmless_and_the_table_starts(tmp_path):
    """An empty firmware/__init__/ (or firmware/table/__init__/): MicroPython never imports
    it (a package's __init__ is a file), yet the check named it as standing in for a
    module and the boot stopped on it.  The check passes, and the table's code loads."""
    flash = tmp_path / "flash"
    _program(flash, STAND_IN_APP + "    from firmware.table import controller\n"
             '    print("path", program["path"], hasattr(controller, "LOCKED"))\n')
    done = _boot_board(tmp_path, flash, ["firmware/__init__/", "firmware/table/__init__/"])
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[1:]
    assert lines[:3] == ["board simulated", "program ok", "config 1 uth"]
    assert lines[-1] == "path None True"


@pytest.mark.parametrize("name", ["firmware/table/controller.py", "firmware/config_file.py"])
def test_a_missing_table_module_stops_the_boot_with_program_error_shown(tmp_path, name):
    """A module of the table missing from the flash (a botched copy, a removed file): the
    check names it, but the table's code (or the configuration's check) then stopped on
    its import ("no module named 'firmware.table.controller'") with a blank display.  As
    for a folder in its place, no more of the program loads: the display alone says
    PROGRAM ERROR and names the file."""
    flash = tmp_path / "flash"
    _program(flash)
    (flash / name).unlink()
    done = _boot_board(tmp_path, flash, [])
    _assert_program_error(done, "missing-file", name)


def test_a_table_whose_code_cannot_load_says_why_on_the_display(tmp_path):
    """No manifest (the check can name no module) and a table module missing: the boot
    went on and stopped on the import of the table's code, with the console alone saying
    why and the dealer display blank.  The display says TABLE STOPPED and the error."""
    flash = tmp_path / "flash"
    _program(flash)
    (flash / "manifest.json").unlink()
    (flash / "firmware" / "table" / "controller.py").unlink()
    done = _boot_board(tmp_path, flash, [])
    said = [line for line in done.stdout.splitlines() if line.startswith("table controller")]
    why = "no module named 'firmware.table.controller'"
    assert said and said[0].startswith("table controller stopped: ImportError: " + why)
    shown = [line[8:] for line in done.stdout.splitlines() if line.startswith("display")]
    assert [line.rstrip() for line in shown[:2]] == ["TABLE STOPPED", "ImportError"]
    assert "".join(shown[2:]).replace(" ", "") == why.replace(" ", "")


def test_a_source_file_beside_a_table_module_stops_the_boot_with_program_error_shown(tmp_path):
    """A firmware/table/controller.py beside controller.mpy: the check names it, but
    MicroPython imports the .py in place of the module, and the table's code stopped on it
    with a blank display.  As for a folder so named, no more of the program loads: the
    display alone says PROGRAM ERROR and names the file."""
    flash = tmp_path / "flash"
    name = "firmware/table/controller.py"
    _program(flash, mpy=[name])
    done = _boot_board(tmp_path, flash, [name])
    _assert_program_error(done, "extra-file", name)


def test_main_py_says_why_also_when_the_table_code_cannot_load():
    """A full heap while the table's code loads (import firmware.app) is the failure the
    boot is most likely to meet: main.py imports it inside the try that says why."""
    import ast

    from tools.build import MAIN_PY

    tree = ast.parse(MAIN_PY)
    guarded = [node for node in tree.body if isinstance(node, ast.Try)]
    assert len(guarded) == 1
    inside = [n for n in ast.walk(guarded[0]) if isinstance(n, ast.Import)]
    assert [alias.name for n in inside for alias in n.names] == ["firmware.app"]
    assert not [n for n in tree.body if isinstance(n, ast.Import)
                and any(a.name == "firmware.app" for a in n.names)]
    handler = guarded[0].handlers[0]
    assert isinstance(handler.type, ast.Name) and handler.type.id == "BaseException"


def test_heap_collected_often_while_loading_and_only_when_full_in_the_loop(tmp_path):
    """While the program loads, MicroPython collects garbage every LOADING_GC_BYTES bytes,
    which keeps the heap in one piece; app.start(), the last step before the table's loop,
    turns that off again (-1, MicroPython's default), so collections do not lengthen ticks
    more often than the heap requires.  (app.start is the board's path, on MicroPython's
    time.ticks_ms; CPython runs the table through the simulator's loop instead.)"""
    done = _run("micropython", "app_start_mp.py", [str(tmp_path)])
    assert done.returncode == 0, done.stdout + done.stderr
    said = dict(line.split(None, 1) for line in done.stdout.splitlines())
    assert said["loading"] == str(heap.LOADING_GC_BYTES)
    assert said["loop"] == "-1"
    assert said["link"] == "None"
    assert said["phase"] == str(tc.RAM_ERROR)   # booted: blank memory waits for a RAM clear
    assert said["files"] == "-"                 # (its flash, the scratch folder's, untouched)
    assert said["clock"] == "1735689600 False"  # 2025-01-01: earlier was never set


def test_a_program_check_that_stops_on_an_error_fails_instead_of_stopping_the_boot(monkeypatch):
    # Whatever a tampered filesystem makes the verifier raise, the table boots with jackpot
    # wagering closed and says why, rather than stopping (and the watchdog resetting it) again
    # and again with nothing on the display.
    from firmware import manifest

    def broken(root, board=None):
        raise RuntimeError("maximum recursion depth exceeded")
    monkeypatch.setattr(manifest, "check_device", broken)
    facts = startup.check_program("pico_w", "/nowhere")
    assert (facts["ok"], facts["reason"], facts["digest"]) == (False, "bad-manifest", None)
    assert facts["text"] == ("program check failed: bad-manifest: the check stopped: "
                             "RuntimeError maximum recursion depth exceeded")


def test_a_refused_or_missing_file_leaves_the_game_to_critical_memory(tmp_path):
    """No game from the file: the table stays the game its round record names (the built-in
    default, UTH, only when none is recorded), never silently the default's."""
    path = tmp_path / "config.json"
    options, link, ok, text = startup.check_config("pico_w", str(path))
    assert ok and options == {"game": None}
    path.write_text('{"format": 1, "game": "fcp",}')
    options, link, ok, text = startup.check_config("pico_w", str(path))
    assert not ok and options == {"game": None} and "line 1" in text


def boot_app_with_file(tmp_path, path):
    """(App, simulated table): a simulated table (its flash and FRAM in tmp_path/state) booted
    through the App with firmware.startup's check of the configuration file `path`, as
    firmware.app.start wires them."""
    from boards import simulated
    from firmware.app import App
    from firmware.store.slots import PathFS

    options, link, ok, text = startup.check_config(simulated.NAME, str(path))
    table = simulated.make(str(tmp_path / "state"))
    app = App(table.board, PathFS(table.flash_dir), now=0, **options)
    app.boot(0, 1000)
    app.controller.set_config_status(ok, text)
    app.controller.draw()       # the view as the loop's first pass draws it (controller.batch)
    return app, table


def test_a_corrupted_file_at_a_four_card_poker_table_boots_it_as_four_card_poker(tmp_path):
    """The boot's checks through the App, as firmware.app.start wires them: the file good
    at the first boot, corrupted at the next, and the table still Four Card Poker."""
    from boards import simulated
    from firmware.drivers import buttons as btn

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"format": 1, "game": "fcp", "board": simulated.NAME}))

    def boot():
        return boot_app_with_file(tmp_path, path)[0].controller

    c = boot()
    assert c.phase == tc.RAM_ERROR and c.config_ok
    c.panel(btn.KEY_ON, 0, 10)          # the RAM clear: key + long OK, then OK
    for kind, ms in ((btn.PRESS, 20), (btn.LONG, 1100), (btn.RELEASE, 1200),
                     (btn.PRESS, 1300), (btn.RELEASE, 1400)):
        c.panel(kind, btn.OK, ms)
    assert c.phase == tc.OPEN and c.game == tc.FCP
    path.write_text('{"format": 1, "game": "fcp", "board": "simulated",}')
    c = boot()
    assert c.phase == tc.OPEN and c.game == tc.FCP and not c.config_ok
    assert c.view.lines[1] == "CONFIG ERROR" and c.view.lines[6] == "FOUR CARD POKER"


def test_a_table_that_ran_keyed_refuses_an_unkeyed_program_until_a_ram_clear(tmp_path):
    """The test lab's attack on the program check: the key file deleted, a module edited and
    the manifest's digests recomputed without an HMAC.  The files match their manifest, but
    critical memory says the table ran keyed: RAM ERROR naming the key (jackpot closed) at
    every boot, until the key is back or a supervisor's RAM clear re-commissions the table
    unkeyed.  A table that never had a key runs an unkeyed program as before."""
    from boards import simulated
    from firmware import manifest
    from firmware.app import App
    from firmware.drivers import buttons as btn
    from firmware.store.slots import PathFS

    install = tmp_path / "install"
    install.mkdir()
    key = b"table-7-provisioned-key!"

    def deploy(program, keyed):
        (install / "main.py").write_bytes(program)
        (install / "manifest.json").write_bytes(manifest.make(
            simulated.NAME, "b-1", {"main.py": program}, key if keyed else None))
        if keyed:
            (install / "manifest.key").write_bytes(key)
        elif (install / "manifest.key").exists():
            (install / "manifest.key").unlink()

    def boot(state="state"):
        facts = startup.check_program(simulated.NAME, str(install))
        table = simulated.make(str(tmp_path / state))
        app = App(table.board, PathFS(table.flash_dir), now=0)
        app.boot(0, 1000, facts)
        return app.controller, facts

    def ram_clear(c):
        c.panel(btn.KEY_ON, 0, 10)          # key + long OK, then OK
        for kind, ms in ((btn.PRESS, 20), (btn.LONG, 1100), (btn.RELEASE, 1200),
                         (btn.PRESS, 1300), (btn.RELEASE, 1400)):
            c.panel(kind, btn.OK, ms)
        c.panel(btn.KEY_OFF, 0, 1500)

    # never keyed: an unkeyed program runs, commissioned and after
    deploy(b"print('table')\n", False)
    c, facts = boot("never")
    ram_clear(c)
    assert c.phase == tc.OPEN and c.jackpot_open() and not c.memory.keyed
    c, facts = boot("never")
    assert c.phase == tc.OPEN and c.jackpot_open() and facts["text"].endswith("verified (no key)")

    deploy(b"print('table')\n", True)
    c, facts = boot()
    assert facts["authenticated"] and c.phase == tc.RAM_ERROR     # a new board's blank memory
    ram_clear(c)
    assert c.phase == tc.OPEN and c.jackpot_open() and c.memory.keyed
    assert c.memory.status_text().endswith(" KEYED")
    c.panel(btn.KEY_ON, 0, 2000)          # the supervisor's audit menu shows the mark
    for kind, ms in ((btn.PRESS, 2010), (btn.LONG, 3100), (btn.RELEASE, 3200)):
        c.panel(kind, btn.OK, ms)
    assert c.phase == tc.AUDIT and "keyed table" in list(c.menu)
    deploy(b"print('rigged')\n", False)
    for _ in range(2):
        c, facts = boot()
        assert facts["ok"] and not facts["authenticated"]       # files match their manifest
        assert c.phase == tc.RAM_ERROR and not c.jackpot_open()
        assert c.last_refusal == "RAM ERROR: PROGRAM ERROR - no /manifest.key (keyed table)"
        assert c.view.lines[2:5] == ["PROGRAM ERROR - ", "no /manifest.key", " (keyed table)"]
        assert c.memory.status_text().endswith(" KEYED")        # memory itself is good
    # the key back (a keyed deploy): the table runs again, nothing reset
    deploy(b"print('table')\n", True)
    c, facts = boot()
    assert c.phase == tc.OPEN and c.jackpot_open()
    # unkeyed on purpose: the supervisor's RAM clear re-commissions it, and it stays unkeyed
    deploy(b"print('table 2')\n", False)
    c, facts = boot()
    assert c.phase == tc.RAM_ERROR
    ram_clear(c)
    assert c.phase == tc.OPEN and c.jackpot_open() and not c.memory.keyed
    c, facts = boot()
    assert c.phase == tc.OPEN and c.jackpot_open()
    assert "KEYED" not in c.memory.status_text()


# ------------------------------------------------------------------ a fault at every boot

class _PowerCut(BaseException):
    """The test's end of a boot that does not stop by itself (a BaseException: never a fault
    the table logs)."""


class _ShoeUART:
    """The shoe's UART failing from its `fail_at`-th read on (never with None): the loop's
    pass raises."""

    def __init__(self, fail_at):
        self.fail_at = fail_at
        self.reads = 0

    def any(self):
        self.reads += 1
        if self.fail_at is not None and self.reads >= self.fail_at:
            raise RuntimeError("shoe UART lost")
        return 0


def _commissioned(state, root=None):
    """A simulated table (FRAM in `state`, flash files in `root`, default `state`/root)
    RAM-cleared, as a supervisor commissions it: its log holds the RAM clear."""
    from boards import simulated
    from firmware.app import App
    from firmware.drivers import buttons as btn
    from firmware.store.slots import PathFS

    root = root or state / "root"
    root.mkdir(parents=True, exist_ok=True)
    c = App(simulated.make(str(state)).board, PathFS(str(root)), now=0).controller
    c.boot(0, 1000)
    c.panel(btn.KEY_ON, 0, 10)          # key + long OK, then OK
    for kind, ms in ((btn.PRESS, 20), (btn.LONG, 1100), (btn.RELEASE, 1200),
                     (btn.PRESS, 1300), (btn.RELEASE, 1400)):
        c.panel(kind, btn.OK, ms)
    c.panel(btn.KEY_OFF, 0, 1500)
    assert c.phase == tc.OPEN
    return root


def _logged(state, root):
    """(kind, a, b, c) of every entry the table in `state` logged (less the power-up of the
    boot that reads them)."""
    from boards import simulated
    from firmware.app import make_memory
    from firmware.store.slots import PathFS

    memory = make_memory(simulated.make(str(state)).board, PathFS(str(root)))
    memory.boot(0)
    events = [entry[3:7] for entry in memory.log.events()]
    assert memory.log.verify() is None
    return events[:-1]                  # less this read's own power-up


def _board_run(monkeypatch, state, root, fail_at=1, passes=10 ** 6, checks=None, start=1000.0):
    """firmware.app.run on a simulated table in `state` as the board runs it (time faked),
    its shoe UART failing at the pass `fail_at` (None: never), the power cut after `passes`
    feeds of the watchdog, its clock reading `start` seconds at the boot.  Returns (how it
    ended: "reset", the fault out of run for the watchdog to reset the board, or "cut"; the
    table; what the console said)."""
    import sys
    import types

    from boards import simulated
    from firmware import app as appmod
    from firmware import console
    from firmware.store import slots
    from host_tests.fakes.pins import FakeWDT

    _PathFS = slots.PathFS

    clock = [start]
    fake = types.SimpleNamespace(
        time=lambda: clock[0], ticks_ms=lambda: int(clock[0] * 1000) & 0x3FFFFFFF,
        ticks_diff=lambda a, b: ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000,
        sleep_ms=lambda ms: clock.__setitem__(0, clock[0] + ms / 1000.0),
        gmtime=lambda t: (1970, 1, 1, 0, 0, 0, 3, 1))
    table = simulated.make(str(state))
    table.board.shoe_uart = _ShoeUART(fail_at)

    class WDT(FakeWDT):
        def feed(self):
            clock[0] += 0.02
            FakeWDT.feed(self)
            if self.feeds >= passes:
                raise _PowerCut()

    table.board.make_wdt = lambda ms: setattr(table, "wdt", WDT(ms)) or table.wdt
    said = []
    monkeypatch.setitem(sys.modules, "time", fake)
    # the board's flash root ("", "/"): here the folder `root`, never the host's "/"
    monkeypatch.setattr(slots, "PathFS", lambda directory: _PathFS(str(root) + directory))
    monkeypatch.setattr(appmod, "_has_dir", lambda path: False)
    monkeypatch.setattr(console, "ConsolePort", lambda: types.SimpleNamespace(any=lambda: 0))
    monkeypatch.setattr("builtins.print", lambda *args: said.append(" ".join(map(str, args))))
    ended = "cut"
    try:
        appmod.run(table.board, checks or (None, {}, None, True, "defaults"))
    except RuntimeError as error:
        assert str(error) == "shoe UART lost"
        ended = "reset"
    except _PowerCut:
        pass
    finally:
        monkeypatch.undo()
    return ended, table, said


def test_a_fault_at_every_boot_stops_the_table_at_the_third_and_its_power_ups_stop(
        monkeypatch, tmp_path):
    """A fault in the loop's first pass at every boot reset the board every 3 s (the
    watchdog), each boot logging a power-up: within an hour the jackpot hits, RAM clears and
    voids were out of the event log.  Each fault is logged (LOOP_FAULT: the boots in a row,
    the fault's id, the passes run); the third boot in a row to end in one halts the table:
    TABLE STOPPED and the error on the display, the buzzer silent, the watchdog fed by the
    halt loop alone, STOPPED on the meter sign (not an amount frozen as it counted), the
    rings dark, no more resets and no more power-ups.  A power cycle tries once more."""
    from firmware.app import STOP_FAULTS
    from firmware.store import eventlog as ev
    from firmware.store.crc32 import crc32

    state = tmp_path / "state"
    root = _commissioned(state)
    fault = crc32(b"RuntimeError: shoe UART lost") & 0x7FFFFFFF
    for boot in range(1, 5):
        ended, table, said = _board_run(monkeypatch, state, root, passes=3)
        if boot < STOP_FAULTS:
            assert ended == "reset" and table.wdt.feeds == 0, said    # the watchdog resets it
            continue
        # halted: fed 3 times by the halt loop (the loop itself never fed it: no pass ended)
        assert ended == "cut" and table.wdt.feeds == 3
        assert table.oled.lines()[:3] == ["TABLE STOPPED", "RuntimeError", "shoe UART lost"]
        assert table.pwm.duty_u16() == 0
        assert [table.chain.text(m).strip() for m in range(2)] == ["5toPPEd"] * 2    # STOPPED
        assert not any(table.strip.lit_count(seat) for seat in range(7))
        assert said[-2] == "table controller stopped: RuntimeError: shoe UART lost"
        assert said[-1].startswith("table halted: %d boots in a row ended in a fault" % boot)
    logged = _logged(state, root)
    assert logged[0][0] == ev.RAM_CLEAR         # nothing older lost (a new board logs no
                                                # power-up before its RAM clear)
    assert logged[1:] == [(ev.POWER_UP, 0, 1, 0), (ev.LOOP_FAULT, 1, fault, 1)] + [
        (ev.POWER_UP, 0, 1, 0), (ev.LOOP_FAULT, 2, fault, 1),
        (ev.POWER_UP, 0, 1, 0), (ev.LOOP_FAULT, 3, fault, 1),
        (ev.POWER_UP, 0, 1, 0), (ev.LOOP_FAULT, 4, fault, 1)]


def test_only_a_reset_loop_stops_the_table(monkeypatch, tmp_path):
    """A fault that happened once never stops the table: a boot that ended otherwise (a
    power cut) between two faults starts the count again, and so does a fault after the
    table ran _QUICK_PASSES passes (a fault that comes back once in a while is not a table
    that cannot run).  Three quick ones in a row after that do."""
    from firmware import app as appmod
    from firmware.store import eventlog as ev

    state = tmp_path / "state"
    root = _commissioned(state)
    runs = [dict(), dict(fail_at=None, passes=20), dict(), dict(), dict(fail_at=60), dict(),
            dict(fail_at=30, passes=40)]
    ended = []
    for run in runs:
        monkeypatch.setattr(appmod, "_QUICK_PASSES", 50)
        ended.append(_board_run(monkeypatch, state, root, **run)[0])
    assert ended == ["reset", "cut", "reset", "reset", "reset", "reset", "cut"]
    faults = [(e[1], e[3]) for e in _logged(state, root) if e[0] == ev.LOOP_FAULT]
    assert faults == [(1, 1), (1, 1), (2, 1), (1, 60), (2, 1), (3, 30)]


def test_a_table_that_ran_past_its_pass_count_s_wrap_is_no_reset_loop(monkeypatch, tmp_path):
    """The loop's pass count starts again at its wrap (1,000,000,000 passes, about 231 days
    of 20 ms): a table that had run that long and then faulted once read as a quick boot,
    and after two quick faults before its long run (nothing logged since, an idle table),
    as the third boot of a reset loop: halted.  A count past its wrap is no quick boot."""
    from firmware import app as appmod
    from firmware.store import eventlog as ev

    state = tmp_path / "state"
    root = _commissioned(state)
    ended = [_board_run(monkeypatch, state, root)[0] for _ in range(2)]    # two quick faults
    boot = appmod.App.boot

    def long_run(app, *args, **kwargs):             # the boot that runs 231 days...
        boot(app, *args, **kwargs)
        app.ticks = appmod._PASS_WRAP - 20

    monkeypatch.setattr(appmod.App, "boot", long_run)
    # ...and faults 40 passes after the count's wrap
    ended.append(_board_run(monkeypatch, state, root, fail_at=60, passes=100)[0])
    assert ended == ["reset", "reset", "reset"]      # not halted
    faults = [e[1] for e in _logged(state, root) if e[0] == ev.LOOP_FAULT]
    assert faults == [1, 2, 1]
    assert appmod._PASS_RESTART >= appmod._QUICK_PASSES    # (whatever _QUICK_PASSES becomes)


def test_a_fault_logged_after_a_clock_restart_is_not_timed_before_the_log(monkeypatch,
                                                                          tmp_path):
    """A board whose clock restarted (no battery clock) logs its fault on from the newest
    time the log holds, marked as a time it could not know, as the table's own entries are:
    the fault's entry was timed by the clock's bare reading, before the entries it follows."""
    from boards import simulated
    from firmware.app import make_memory
    from firmware.store import eventlog as ev
    from firmware.store.slots import PathFS

    state = tmp_path / "state"
    root = _commissioned(state)                 # its RAM clear logged at 1000 s
    assert _board_run(monkeypatch, state, root, passes=3, start=400.0)[0] == "reset"
    memory = make_memory(simulated.make(str(state)).board, PathFS(str(root)))
    memory.boot(0)
    raw = [entry for entry in memory.log.entries()][:-1]     # less this read's power-up
    kinds = [ev.unpack(entry)[3] for entry in raw]
    assert kinds == [ev.RAM_CLEAR, ev.POWER_UP, ev.LOOP_FAULT]
    times = [ev.unpack(entry)[1] for entry in raw]
    assert times[2] >= times[1] >= times[0] >= 1000, times
    assert [ev.time_unsure(entry) for entry in raw] == [False, True, True]


def test_a_fault_in_the_boot_after_its_power_up_counts_as_one_in_the_loop(monkeypatch,
                                                                          tmp_path):
    """The boot's own code failing after the power-up's commit (here: a program check's
    facts without their text) reset the board just the same: logged, and halted at the
    third boot in a row."""
    from firmware.store import eventlog as ev

    state = tmp_path / "state"
    root = _commissioned(state)
    checks = ({"ok": True, "authenticated": False}, {}, None, True, "defaults")
    ended = []
    for _ in range(3):
        try:
            ended.append(_board_run(monkeypatch, state, root, checks=checks, passes=2)[0])
        except KeyError as error:
            ended.append("reset %s" % error)
    assert ended == ["reset 'text'", "reset 'text'", "cut"]
    assert [e[1] for e in _logged(state, root) if e[0] == ev.LOOP_FAULT] == [1, 2, 3]


def test_a_table_in_ram_error_logs_no_fault_and_keeps_its_blank_memory(monkeypatch, tmp_path):
    """No commit is possible in RAM ERROR (nor is a power-up committed before the RAM
    clear): the fault resets the board as before, and the memory stays as it was."""
    state = tmp_path / "state"
    root = state / "root"
    root.mkdir(parents=True)
    for _ in range(4):
        assert _board_run(monkeypatch, state, root)[0] == "reset"
    assert sorted(p.name for p in root.iterdir()) == []


FAULT_BOARD_PY = '''\
from boards import simulated
from host_tests.fakes.pins import FakeWDT

table = None


class ShoeLost:
    def any(self):
        raise RuntimeError("shoe UART lost")


class WDT(FakeWDT):
    def feed(self):     # no loop pass ends here: fed by a halted table alone, cut at its 3rd
        FakeWDT.feed(self)
        if self.feeds == 3:
            print("halted", "|".join(table.oled.lines()[:3]), table.chain.text(0).strip())
            raise SystemExit


def make():
    global table
    table = simulated.make("/state")
    table.board.shoe_uart = ShoeLost()
    table.board.make_wdt = WDT
    return table.board
'''


def test_a_fault_at_every_boot_of_the_board_stops_the_table_at_the_third_on_micropython(
        tmp_path):
    """The same through the board's own main.py on the MicroPython VM: the first two boots
    end in the fault (said on the console, main.py stopped: the watchdog resets the board),
    the third and the next (a power cycle) halt with TABLE STOPPED and the error shown, and
    STOPPED on the meter sign; the log holds a power-up and a fault for each boot, nothing
    older lost."""
    from firmware import manifest
    from firmware.store import eventlog as ev
    from host_tests import runtimes

    flash = tmp_path / "flash"
    _program(flash)
    (flash / "board.py").write_text(FAULT_BOARD_PY)
    files = {p.relative_to(flash).as_posix(): p.read_bytes() for p in flash.rglob("*")
             if p.suffix in (".py", ".mpy")}
    (flash / manifest.MANIFEST_NAME).write_bytes(manifest.make("simulated", "rom-1", files))
    _commissioned(flash / "state", flash)
    for boot in range(1, 5):
        done = runtimes.run_micropython(runtimes.ROOT / "host_tests" / "board_boot_mp.py",
                                        ["-", str(flash)], heapsize=16 * 1024 * 1024,
                                        timeout=120)
        out = done.stdout.splitlines()
        said = [line for line in out if line.startswith("table ")]
        assert said[0].startswith("table controller stopped: RuntimeError: shoe UART lost"), out
        if boot < 3:
            assert len(said) == 1 and "stopped RuntimeError" in out, out
            continue
        assert said[1].startswith("table halted: %d boots in a row ended in a fault" % boot)
        assert "halted TABLE STOPPED|RuntimeError|shoe UART lost 5toPPEd" in out, out
    logged = _logged(flash / "state", flash)
    assert logged[0][0] == ev.RAM_CLEAR
    assert [e[0] for e in logged[1:9]] == [ev.POWER_UP, ev.LOOP_FAULT] * 4
    assert [e[1] for e in logged[1:9] if e[0] == ev.LOOP_FAULT] == [1, 2, 3, 4]


def test_a_fault_after_ntp_set_the_time_is_logged_at_that_time(monkeypatch, tmp_path):
    """The loop's NTP answer corrects the wall clock the loop passes on, not the board's RTC
    (set at boot only): a fault after it was logged from the RTC's bare reading (a Pico W's
    2021 after a power cut), before the entries it follows and not marked unsure (the time
    was known).  It is logged at the time the table logs its other entries."""
    import time

    from boards import simulated
    from firmware.app import App, log_fault, make_memory
    from firmware.store import eventlog as ev
    from firmware.store.slots import PathFS

    state = tmp_path / "state"
    root = _commissioned(state)                 # its RAM clear logged at 1000 s
    app = App(simulated.make(str(state)).board, PathFS(str(root)), now=0)
    app.boot(0, 400)                            # the RTC restarted: 400 s
    real = 1800000000
    app.clock_set()                             # NTP answered in the loop
    app.step(20, real)
    monkeypatch.setattr(time, "time", lambda: 401.0)    # the RTC, which NTP did not set
    assert log_fault(app, RuntimeError("shoe UART lost")) == 1
    monkeypatch.undo()
    memory = make_memory(simulated.make(str(state)).board, PathFS(str(root)))
    memory.boot(0)
    raw = [entry for entry in memory.log.entries()][:-1]
    assert ev.unpack(raw[-1])[3] == ev.LOOP_FAULT
    assert real <= ev.unpack(raw[-1])[1] < real + 5, ev.unpack(raw[-1])
    assert not ev.time_unsure(raw[-1])


def test_a_fault_in_a_pass_keeps_the_entries_the_pass_held(tmp_path):
    """The App holds a pass's entries (a sensor fault, a tamper, the door) for one commit at
    its tick; a fault out of the pass before it (the shoe's UART lost) reset the board with
    them in RAM: the sensor fault, which was committed at once before the pass held them, was
    never logged.  The fault's own entry takes them with it."""
    from boards import simulated
    from firmware.app import App, log_fault, make_memory
    from firmware.drivers import spot_sensors as sens
    from firmware.store import eventlog as ev
    from firmware.store.slots import PathFS

    state = tmp_path / "state"
    root = _commissioned(state)
    app = App(simulated.make(str(state)).board, PathFS(str(root)), now=0)
    app.boot(0, 2000)
    app.step(20, 2000)
    app.controller.spot(sens.FAULT, 2, 40, sens.STUCK)     # this pass's, held for its tick
    assert log_fault(app, RuntimeError("shoe UART lost")) == 1
    memory = make_memory(simulated.make(str(state)).board, PathFS(str(root)))
    memory.boot(0)
    kinds = [entry[3] for entry in memory.log.events()][:-1]
    assert kinds[-2:] == [ev.SENSOR_FAULT, ev.LOOP_FAULT], kinds
