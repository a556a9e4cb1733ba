"""The dealer display: SSD1306 command and page data bytes decoded by a fake controller into
the pixels a dealer sees, read back as text; plus the CPython framebuf stand-in."""

import pytest

from firmware import compat_framebuf
from firmware.drivers.oled import SSD1306
from host_tests.fakes.i2c import FakeI2C
from host_tests.fakes.ssd1306 import FakeSSD1306


def make():
    bus = FakeI2C()
    panel = bus.attach(0x3C, FakeSSD1306())
    oled = SSD1306(bus)
    oled.begin()
    return bus, panel, oled


def test_begin_turns_the_panel_on_blank_and_upright():
    bus, panel, oled = make()
    assert panel.errors == []
    assert panel.display_on and panel.charge_pump
    assert panel.seg_remap and panel.com_remap
    assert panel.mode == 2                       # page addressing
    assert "#" not in panel.art()


def test_text_rows_read_back_as_the_dealer_sees_them():
    bus, panel, oled = make()
    oled.write_line(0, "BETS OPEN")
    oled.write_line(2, "SEAT 3  As Kd")
    oled.write_line(7, "Pool $1234.56")
    oled.show()
    assert panel.lines() == ["BETS OPEN", "", "SEAT 3  As Kd", "", "", "", "", "Pool $1234.56"]
    assert panel.errors == []


def test_an_inverted_bar_reads_as_text_too():
    bus, panel, oled = make()
    oled.write_line(1, "NO MORE BETS", invert=True)
    oled.show()
    assert panel.text_row(1).rstrip() == "NO MORE BETS"
    assert panel.inverted_row(1) and not panel.inverted_row(0)


def test_a_long_line_is_cut_at_16_characters():
    bus, panel, oled = make()
    oled.write_line(3, "0123456789ABCDEFGHIJ")
    oled.show()
    assert panel.text_row(3) == "0123456789ABCDEF"


def test_pixels_lines_and_rectangles_land_where_drawn():
    bus, panel, oled = make()
    oled.pixel(0, 0, 1)
    oled.pixel(127, 63, 1)
    oled.hline(10, 20, 5, 1)
    oled.rect(40, 30, 4, 3, 1)
    oled.show()
    assert panel.visible(0, 0) and panel.visible(127, 63)
    assert [panel.visible(x, 20) for x in range(9, 16)] == [0, 1, 1, 1, 1, 1, 0]
    art = panel.art().split("\n")
    assert art[30][40:44] == "####"
    assert art[31][40:44] == "#..#"
    assert art[32][40:44] == "####"


def test_update_sends_one_changed_page_per_call():
    bus, panel, oled = make()
    oled.write_line(0, "A")
    oled.write_line(5, "B")
    assert oled.update() is True
    assert panel.text_row(0).rstrip() == "A"
    assert panel.text_row(5).rstrip() == ""      # not sent yet
    assert oled.update() is True
    assert panel.text_row(5).rstrip() == "B"
    assert oled.update() is False
    assert not oled.pending()


def test_a_page_transfer_is_the_page_select_then_129_bytes():
    bus, panel, oled = make()
    before_data = panel.data_bytes
    oled.write_line(4, "X")
    oled.update()
    assert panel.data_bytes - before_data == 128


def test_display_off_invert_and_contrast():
    bus, panel, oled = make()
    oled.write_line(0, "HELLO")
    oled.show()
    oled.power(False)
    assert panel.lines()[0] == ""
    oled.power(True)
    oled.invert(True)
    assert panel.inverse
    oled.contrast(10)
    assert panel.contrast == 10
    with pytest.raises(ValueError, match="contrast"):
        oled.contrast(256)


def test_a_missing_display_raises_at_begin():
    with pytest.raises(OSError):
        SSD1306(FakeI2C()).begin()


def test_bad_row_and_size():
    bus, panel, oled = make()
    with pytest.raises(ValueError, match="text row"):
        oled.write_line(8, "x")
    with pytest.raises(ValueError, match="SSD1306 size"):
        SSD1306(bus, height=48)


def test_fake_decodes_horizontal_addressing_as_well():
    # The fake follows the datasheet, not just what this driver sends.
    bus = FakeI2C()
    panel = bus.attach(0x3C, FakeSSD1306())
    bus.writeto(0x3C, bytes([0x00, 0x8D, 0x14, 0xA1, 0xC8, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7, 0xAF]))
    bus.writeto(0x3C, bytes([0x40]) + bytes([0x01]) * 129)   # wraps onto page 1, column 0
    assert panel.visible(0, 0) and panel.visible(127, 0) and panel.visible(0, 8)
    assert not panel.visible(1, 8)
    bus.writeto(0x3C, bytes([0x00, 0x99]))
    assert panel.errors == ["unknown command 0x99"]


# --- the framebuf stand-in --------------------------------------------------------------------

def test_compat_framebuf_glyphs_are_5x7_in_an_8x8_cell():
    lines = [line for line in compat_framebuf._GLYPHS.split("\n") if line]
    assert len(lines) == 95
    for line in lines:
        rows = line[3:].split() if line.startswith("\\\\") else line[2:].split()
        assert len(rows) == 7 and all(len(r) == 5 and set(r) <= {"#", "."} for r in rows), line


def test_compat_framebuf_draws_an_H_as_drawn_by_hand():
    buf = bytearray(8)
    fb = compat_framebuf.FrameBuffer(buf, 8, 8, compat_framebuf.MONO_VLSB)
    fb.text("H", 0, 0)
    rows = ["".join("#" if fb.pixel(x, y) else "." for x in range(8)) for y in range(8)]
    assert rows == [".#...#..", ".#...#..", ".#...#..", ".#####..", ".#...#..", ".#...#..",
                    ".#...#..", "........"]


def test_compat_framebuf_clips_and_checks():
    buf = bytearray(16)
    fb = compat_framebuf.FrameBuffer(buf, 16, 8, compat_framebuf.MONO_VLSB)
    fb.fill_rect(-5, -5, 8, 8, 1)
    assert fb.pixel(2, 2) == 1 and fb.pixel(3, 3) == 0
    assert fb.pixel(100, 100) == 0
    with pytest.raises(ValueError, match="too small"):
        compat_framebuf.FrameBuffer(bytearray(10), 16, 8, compat_framebuf.MONO_VLSB)
    with pytest.raises(ValueError, match="MONO_VLSB"):
        compat_framebuf.FrameBuffer(buf, 16, 8, 3)


def test_writing_the_same_line_again_sends_nothing():
    bus, panel, oled = make()
    oled.write_line(2, "BETS OPEN")
    oled.show()
    sent = oled.pages_sent
    oled.write_line(2, "BETS OPEN")
    assert not oled.pending()
    oled.write_line(2, "BETS OPEN", invert=True)       # same text, now a lit bar
    oled.show()
    assert oled.pages_sent == sent + 1
    assert panel.inverted_row(2)
    oled.fill(0)                                     # drawn over: the next write_line redraws
    oled.write_line(2, "BETS OPEN", invert=True)
    oled.show()
    assert panel.text_row(2).rstrip() == "BETS OPEN"


def test_refresh_brings_back_a_panel_that_lost_its_power_with_its_picture():
    # Unplugged and back (or glitched) between two writes: the panel is at its power-on state,
    # dark, and every write to it still succeeds; refresh and a few updates show it all again.
    bus, panel, oled = make()
    oled.write_line(0, "ROUND 7 OPEN")
    oled.write_line(7, "Pool $1234.56")
    oled.invert(True)
    oled.show()
    fresh = bus.attach(0x3C, FakeSSD1306())
    assert fresh.lines() == [""] * 8 and not fresh.display_on
    oled.refresh()
    while oled.update():
        pass
    assert fresh.errors == []
    assert fresh.display_on and fresh.charge_pump and fresh.seg_remap and fresh.com_remap
    assert fresh.lines()[0] == "ROUND 7 OPEN" and fresh.lines()[7] == "Pool $1234.56"
    assert fresh.inverse                         # the inversion in force is kept
    oled.invert(False)
    oled.refresh()
    assert not fresh.inverse


def test_an_inversion_the_display_missed_is_sent_when_it_is_started_again():
    # Test mode inverts the screen on odd steps; a display that did not answer then is
    # started again by the app (begin) and must show the step's inversion.
    bus, panel, oled = make()
    bus.detach(0x3C)
    with pytest.raises(OSError):
        oled.invert(True)
    fresh = bus.attach(0x3C, FakeSSD1306())
    oled.begin()
    assert fresh.inverse
