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


def _firmware_source():
    return "".join(path.read_text() for path in (ROOT / "firmware").rglob("*.py"))


def _written_by_the_firmware(text, source):
    """Whether a text the fault table quotes is one the firmware writes: a string of its own
    (its numbers as %d, one word as %s: "Seat %d %s spot"), a spot sensor's FAULT line, a shoe
    line's reason, or a seat list ("257"), alone or after a string of its own ("seats
    1234567")."""
    import re

    from firmware.drivers import shoe, spot_sensors

    form = re.sub(r"\d+", "%d", text)
    words = form.split(" ")
    forms = [text, form] + [" ".join(words[:i] + ["%s"] + words[i + 1:]) for i in range(len(words))]
    if any('"%s"' % f in source for f in forms):
        return True
    if text in ["FAULT " + name for name in spot_sensors.FAULT_NAMES[1:]] + list(shoe.REASONS):
        return True
    head = text.rstrip("0123456789")
    return head != text and (head == "" or '"%s"' % head in source)


def test_the_fault_table_quotes_what_the_firmware_shows_and_logs():
    # A technician reads what the table shows off this table: each text must be one the
    # firmware writes (the sign's, the display's), each event one the log names, and the
    # parts' addresses the boards'.
    import re

    from firmware.store import eventnames

    header, rows = table(DOC.read_text(), "faults")
    assert header == ["Part", "What people see", "Event log", "The table meanwhile, and after",
                      "Check"]
    source = _firmware_source()
    shown = [t for row in rows for t in re.findall(r"`([^`]+)`", row[1])]
    assert {"dISP Err", "SIGN FAULT", "JP CLOSED LINK", "MEM Err"} <= set(shown)
    assert [t for t in shown if not _written_by_the_firmware(t, source)] == []
    logged = [t for row in rows for t in re.findall(r"`([^`]+)`", row[2])]
    names = [t for t in logged if t in eventnames.NAMES.values()]
    assert len(names) >= 10
    # the others are what the audit menu shows of an entry
    assert [t for t in logged if t not in names and not _written_by_the_firmware(t, source)] == []
    addresses = dict((row[0].split(" (")[0], int(address, 16)) for row in rows
                     for address in re.findall(r"I2C (0x[0-9A-F]{2})", row[0]))
    assert addresses == {"Dealer display": base.OLED_ADDR, "Sensor expander": base.MCP23017_ADDR,
                         "FRAM": base.FRAM_ADDR}


def test_a_fault_table_quoting_a_text_the_firmware_never_shows_is_caught():
    source = _firmware_source()
    assert _written_by_the_firmware("Seat 2 JP spot", source)
    assert _written_by_the_firmware("seats 1234567", source)
    assert not _written_by_the_firmware("JP CLOSED WIFI", source)
    assert not _written_by_the_firmware("DISPLAY FAULT", source)
