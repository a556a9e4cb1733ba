"""The board modules type-check against their own port's official MicroPython stubs.

tools/check_boards.py builds one MicroPython typeshed per port (micropython-rp2-stubs for the
Pico W, micropython-esp32-stubs for the ESP32-S3) and runs mypy with it; these tests run that
check, prove it can fail, and prove the two ports' stubs are really kept apart.
"""

import base64
import csv
import hashlib
import importlib.metadata
import shutil

import pytest

from host_tests.runtimes import ROOT
from tools import check_boards

BOARDS = sorted(check_boards.BOARD_STUBS)


def _copy_boards(tmp_path):
    """A copy of the boards package in tmp_path, to edit without touching the tree."""
    shutil.copytree(ROOT / "boards", tmp_path / "boards",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "boards"


@pytest.mark.parametrize("board", BOARDS)
def test_board_module_passes_mypy_against_its_port_stubs(board):
    result = check_boards.run_mypy(board, ["boards/%s.py" % board])
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("board", BOARDS)
def test_a_wrong_pin_keyword_is_rejected(board, tmp_path):
    boards = _copy_boards(tmp_path)
    module = boards / (board + ".py")
    source = module.read_text()
    good = "machine.Pin(KEY_PIN, machine.Pin.IN, machine.Pin.PULL_UP)"
    assert good in source
    module.write_text(source.replace(good, "machine.Pin(KEY_PIN, machine.Pin.IN, pullup=True)"))
    result = check_boards.run_mypy(board, ["boards/%s.py" % board], cwd=tmp_path)
    assert result.returncode != 0
    assert 'Unexpected keyword argument "pullup" for "Pin"' in result.stdout


@pytest.mark.parametrize("board", BOARDS)
def test_a_wrong_argument_type_is_rejected(board, tmp_path):
    boards = _copy_boards(tmp_path)
    module = boards / (board + ".py")
    source = module.read_text()
    good = "freq=base.BUZZER_FREQ, duty_u16=0)"
    assert good in source
    module.write_text(source.replace(good, 'freq="2700 Hz", duty_u16=0)'))
    result = check_boards.run_mypy(board, ["boards/%s.py" % board], cwd=tmp_path)
    assert result.returncode != 0
    assert "PWM" in result.stdout and "arg-type" in result.stdout


# A module only one port has: each board's check must see its own port and not the other's.
PORT_ONLY = {"pico_w": ("rp2", "esp32"), "esp32_s3": ("esp32", "rp2")}


@pytest.mark.parametrize("board", BOARDS)
def test_each_board_sees_only_its_own_port(board, tmp_path):
    own, other = PORT_ONLY[board]
    (tmp_path / "own.py").write_text("import %s\n" % own)
    (tmp_path / "other.py").write_text("import %s\n" % other)
    assert check_boards.run_mypy(board, ["own.py"], cwd=tmp_path).returncode == 0
    result = check_boards.run_mypy(board, ["other.py"], cwd=tmp_path)
    assert result.returncode != 0
    assert 'module named "%s"' % other in result.stdout


@pytest.mark.parametrize("board", BOARDS)
def test_machine_stub_is_the_one_the_port_package_ships(board):
    # The wheel's RECORD (written by pip from the published package) gives the SHA-256 of
    # its machine.pyi; the typeshed must hold exactly that file, not the other port's.
    distribution = importlib.metadata.distribution(check_boards.BOARD_STUBS[board])
    rows = list(csv.reader(distribution.read_text("RECORD").splitlines()))
    recorded = [row[1] for row in rows if row[0] == "machine.pyi"]
    assert len(recorded) == 1
    algorithm, _, expected = recorded[0].partition("=")
    assert algorithm == "sha256"
    data = (check_boards.typeshed_for(board) / "stdlib" / "machine.pyi").read_bytes()
    got = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert got == expected


def test_unknown_board_is_refused():
    with pytest.raises(ValueError, match="unknown board 'uno'"):
        check_boards.typeshed_for("uno")


def test_an_unknown_board_is_refused_by_name_without_a_traceback(monkeypatch, capsys):
    # check_boards nope had ended in a ValueError traceback from typeshed_for
    monkeypatch.setattr(check_boards, "run_mypy", lambda board, files: pytest.fail("ran mypy"))
    with pytest.raises(SystemExit) as done:
        check_boards.main(["pico_w", "nope"])
    assert done.value.code == 2
    assert "unknown board 'nope' (known: esp32_s3, pico_w)" in capsys.readouterr().err
