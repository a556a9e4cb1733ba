"""The board's boot (firmware.startup): which configuration it boots with, what its checks keep."""

import json
import shutil
from pathlib import Path

import pytest

from firmware import startup

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "table-config.example.json"


def test_no_config_file_means_the_defaults(tmp_path):
    table, ok, text = startup.load_config(str(tmp_path / "config.json"), "pico_w")
    assert table is None and ok and "defaults" in text


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


# ------------------------------------------------------------------ boot-time checks

def _startup(runtime, root, config, board="pico_w"):
    from host_tests import runtimes
    script = runtimes.ROOT / "host_tests" / "startup_mp.py"
    args = [str(root), str(config), board]
    done = (runtimes.run_micropython(script, args) if runtime == "micropython"
            else runtimes.run_cpython(script, args))
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
    # the verifier, the file's parser and the other games' rules are not kept
    assert (f["loaded_manifest"], f["loaded_config_file"]) == ("0", "0")
    assert (f["loaded_fcp"], f["loaded_brs"]) == ("0", "0")
    assert f["config_class_current"] == "1"
    if runtime == "micropython":
        # what forgetting saves: those modules' code, had the checks kept them
        assert int(f["modules_bytes"]) > 8192 and int(f["kept_bytes"]) < int(f["modules_bytes"])


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_startup_checks_report_a_changed_program_and_a_missing_config(runtime, tmp_path):
    root = tmp_path / "install"
    root.mkdir()
    _install(root, "pico_w")
    (root / "main.py").write_bytes(b"print('tampered')\n")
    f = _startup(runtime, root, tmp_path / "absent.json")
    assert (f["program_ok"], f["program_reason"]) == ("0", "changed-file")
    assert (f["config_ok"], f["game"]) == ("1", "None")       # no file: the defaults


def test_forget_drops_a_module_and_the_next_import_loads_it_afresh(monkeypatch):
    import sys

    import firmware.poker
    from firmware.poker import brs
    # both restored after the test, whatever it does
    monkeypatch.setitem(sys.modules, "firmware.poker.brs", brs)
    monkeypatch.setattr(firmware.poker, "brs", brs)
    startup.forget("firmware.poker.brs")
    assert "firmware.poker.brs" not in sys.modules and not hasattr(firmware.poker, "brs")
    from firmware.poker import brs as again
    assert again is not brs and again.Config.__name__ == "Config"
