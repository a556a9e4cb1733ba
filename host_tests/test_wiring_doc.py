"""docs/wiring.md says what the board modules drive: its tables are parsed and compared with
the pin maps, so the document cannot drift from the code."""

import importlib
import sys
import types

import pytest

from boards import base
from host_tests.runtimes import ROOT

DOC = ROOT / "docs" / "wiring.md"
BOARD_NAMES = ("pico_w", "esp32_s3")


def table(text, anchor):
    """Rows (lists of cell strings) of the Markdown table just after <!-- table: anchor -->."""
    marker = "<!-- table: %s -->" % anchor
    assert text.count(marker) == 1, "docs/wiring.md needs exactly one %s" % marker
    lines = text.split(marker, 1)[1].strip().splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    assert len(rows) >= 3, "no table after %s" % marker
    assert set(rows[1][0]) <= set("-: "), "second row of %s must be the separator" % anchor
    return rows[0], rows[2:]


@pytest.fixture
def board_module(monkeypatch):
    # The pin maps are module constants; make() is never called, so `machine` can be empty.
    monkeypatch.setitem(sys.modules, "machine", types.ModuleType("machine"))

    def load(name):
        monkeypatch.delitem(sys.modules, "boards." + name, raising=False)
        return importlib.import_module("boards." + name)
    return load


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_pin_table_matches_the_board_module(board_module, name):
    module = board_module(name)
    header, rows = table(DOC.read_text(), "%s pins" % name)
    assert header == ["Signal", "GPIO", "Connects to"]
    documented = [(signal, int(gpio), connects) for signal, gpio, connects in rows]
    assert documented == list(module.PIN_TABLE)


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_reserved_table_matches_the_board_module(board_module, name):
    module = board_module(name)
    header, rows = table(DOC.read_text(), "%s reserved" % name)
    assert header == ["GPIO", "Used by"]
    assert {int(gpio): use for gpio, use in rows} == module.RESERVED


def test_parts_list_matches_the_shared_constants():
    header, rows = table(DOC.read_text(), "parts")
    assert header == ["Part", "Qty", "Role", "Connection"]
    parts = {row[0]: row for row in rows}

    def row(prefix):
        found = [r for name, r in parts.items() if name.startswith(prefix)]
        assert len(found) == 1, prefix
        return found[0]

    assert "0x%02X" % base.MCP23017_ADDR in row("MCP23017")[3]
    assert "0x%02X" % base.FRAM_ADDR in row("MB85RC256V")[3]
    assert "0x%02X" % base.OLED_ADDR in row("SSD1306")[3]
    assert int(row("MAX7219")[1]) == base.METER_MODULES
    ring = row("WS2812 ring of %d" % base.PIXELS_PER_SEAT)
    assert int(ring[1]) == base.SEATS and "(%d pixels)" % base.PIXEL_COUNT in ring[2]
    buttons = row("Push button")
    assert int(buttons[1]) == len(base.BUTTON_NAMES)
    assert ", ".join(base.BUTTON_NAMES) in buttons[2]
    assert "%d baud" % base.SHOE_BAUD in row("Card-reading shoe")[3]
    assert "%d baud" % base.LINK_BAUD in row("MAX3485")[3]


def test_sensor_table_matches_the_spot_sensor_wiring():
    from firmware.drivers import spot_sensors

    _, rows = table(DOC.read_text(), "mcp23017 sensors")
    documented = dict(rows)
    expected = {}
    for bit in range(16):
        expected["GP%s%d" % ("AB"[bit // 8], bit % 8)] = "spare"
    for seat in range(1, base.SEATS + 1):
        spots = ((spot_sensors.jackpot_spot(seat), "jackpot"), (spot_sensors.ante_spot(seat), "Ante"))
        for bit, spot in spots:
            expected["GP%s%d" % ("AB"[bit // 8], bit % 8)] = "seat %d %s spot" % (seat, spot)
    assert documented == expected


def test_a_drifted_table_is_caught(board_module):
    # The check itself: a doc with one pin changed no longer matches.
    module = board_module("pico_w")
    text = DOC.read_text().replace("| Key switch | 12 |", "| Key switch | 27 |")
    _, rows = table(text, "pico_w pins")
    assert [(s, int(g), c) for s, g, c in rows] != list(module.PIN_TABLE)


def test_bus_speeds_are_the_ones_the_boards_set():
    # What a technician's scope or logic analyser should show on each line.
    text = " ".join(DOC.read_text().split())
    assert "I2C bus at %d kHz" % (base.I2C_FREQ // 1000) in text
    assert "SPI at %d MHz, mode 0" % (base.SPI_BAUD // 1000000) in text
    assert "buzzer's PWM at %d Hz" % base.BUZZER_FREQ in text
    assert "WS2812 data at 800 kHz" in text and base.WS2812_TIMING_NS == (400, 850, 800, 450)
