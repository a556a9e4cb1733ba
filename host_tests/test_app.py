"""The app shell's own decisions: which configuration the board boots with."""

import json
import shutil
from pathlib import Path

from firmware import app

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "table-config.example.json"


def test_no_config_file_means_the_defaults(tmp_path):
    table, ok, text = app.load_config(str(tmp_path / "config.json"), "pico_w")
    assert table is None and ok and "defaults" in text


def test_a_valid_config_file_is_used(tmp_path):
    path = tmp_path / "config.json"
    shutil.copyfile(EXAMPLE, path)
    board = json.loads(EXAMPLE.read_text()).get("board") or "pico_w"
    table, ok, text = app.load_config(str(path), board)
    assert ok and table is not None and table.game in text


def test_a_bad_config_file_is_refused_with_the_key_and_value(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["table_max"] = -1
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    table, ok, text = app.load_config(str(path), data.get("board") or "pico_w")
    assert table is None and not ok
    assert "table_max" in text and "-1" in text


def test_a_four_card_poker_config_runs_the_table_as_that_game(tmp_path):
    fcp = EXAMPLE.parent / "table-config.fcp.example.json"
    path = tmp_path / "config.json"
    shutil.copyfile(fcp, path)
    board = json.loads(fcp.read_text()).get("board") or "pico_w"
    table, ok, text = app.load_config(str(path), board)
    assert ok and table.game == "fcp" and "fcp" in text
