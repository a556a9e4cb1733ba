"""A fake SSD1306 OLED controller for FakeI2C: decodes command and data bytes into pixels.

It keeps the controller's display RAM (8 pages x 128 columns) and the settings that decide
what a person sees: display on/off, charge pump, segment and COM remap (the usual module is
mounted so that remap 0xA1 with COM scan 0xC8 is upright), normal/inverse, entire-display-on.
Page, horizontal and vertical addressing modes are all decoded.

    oled = bus.attach(0x3C, FakeSSD1306())
    oled.visible(x, y)      # 1 if the pixel at (x, y) glows
    oled.text_row(row)      # the characters shown in text row 0..7 (8x8 cells), read back
                            # by comparing each cell with the font's glyphs
    oled.lines()            # all 8 text rows, right-stripped
    oled.art()              # the screen as 64 lines of '#' and '.'
    oled.errors             # unknown commands, data before init, etc. (empty when all is well)

Reading text: the reference glyphs come from the ``framebuf`` of the runtime (MicroPython's
built-in font, or firmware.compat_framebuf on CPython), the same font the driver draws with;
a cell that matches a glyph in inverse video reads as that character too.  A cell that
matches nothing reads as ``?``.
"""

try:
    import framebuf
except ImportError:
    from firmware import compat_framebuf as framebuf

from firmware.compat import const

_WIDTH = const(128)
_HEIGHT = const(64)
_PAGES = const(8)

# Commands followed by this many argument bytes.
_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1,
         0xDA: 1, 0xDB: 1, 0xA3: 2, 0xAD: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}

_glyphs = None


def _reference_glyphs():
    # {column bytes of the 8x8 cell: character} for printable ASCII, built once.
    global _glyphs
    if _glyphs is None:
        _glyphs = {}
        cell = bytearray(8)
        fb = framebuf.FrameBuffer(cell, 8, 8, framebuf.MONO_VLSB)
        for code in range(32, 127):
            fb.fill(0)
            fb.text(chr(code), 0, 0, 1)
            key = bytes(cell)
            if key not in _glyphs:
                _glyphs[key] = chr(code)
    return _glyphs


class FakeSSD1306:
    """Display RAM and settings of an SSD1306, fed by I2C writes."""

    def __init__(self):
        self.ram = bytearray(_PAGES * _WIDTH)
        self.errors = []
        self.display_on = False
        self.charge_pump = False
        self.seg_remap = False
        self.com_remap = False
        self.inverse = False
        self.entire_on = False
        self.contrast = 0x7F
        self.mode = 2            # page addressing after reset
        self.page = 0
        self.column = 0
        self.col_start, self.col_end = 0, _WIDTH - 1
        self.page_start, self.page_end = 0, _PAGES - 1
        self.start_line = 0
        self.offset = 0
        self._command = 0
        self._args = bytearray(6)
        self._need = 0
        self._got = 0
        self.data_bytes = 0
        self.command_bytes = 0

    # --- wire -----------------------------------------------------------------------------

    def i2c_write(self, buf, memaddr=None, addrsize=8):
        # writeto_mem(addr, control, data) also works: the control byte comes as memaddr.
        index = 0
        count = len(buf)
        control = memaddr
        while True:
            if control is None:
                if index >= count:
                    return
                control = buf[index]
                index += 1
            is_data = control & 0x40
            if control & 0x80:         # Co = 1: one byte, then another control byte
                if index >= count:
                    return
                self._byte(buf[index], is_data)
                index += 1
                control = None
                continue
            if control & 0x3F:
                self.errors.append("control byte 0x%02x has reserved bits set" % control)
            while index < count:
                self._byte(buf[index], is_data)
                index += 1
            return

    def i2c_read(self, buf, memaddr=None, addrsize=8):
        # The status byte: bit 6 set while the display is off.
        for i in range(len(buf)):
            buf[i] = 0 if self.display_on else 0x40

    def _byte(self, value, is_data):
        if is_data:
            self._data(value)
        else:
            self._cmd_byte(value)

    def _data(self, value):
        self.data_bytes += 1
        self.ram[self.page * _WIDTH + self.column] = value
        if self.mode == 2:
            self.column = self.column + 1 if self.column < _WIDTH - 1 else 0
        elif self.mode == 0:
            if self.column < self.col_end:
                self.column += 1
            else:
                self.column = self.col_start
                self.page = self.page + 1 if self.page < self.page_end else self.page_start
        else:
            if self.page < self.page_end:
                self.page += 1
            else:
                self.page = self.page_start
                self.column = self.column + 1 if self.column < self.col_end else self.col_start

    def _cmd_byte(self, value):
        self.command_bytes += 1
        if self._need:
            self._args[self._got] = value
            self._got += 1
            if self._got == self._need:
                self._need = 0
                self._command_with_args(self._command)
            return
        need = _ARGS.get(value, 0)
        if need:
            self._command = value
            self._need = need
            self._got = 0
            return
        self._simple_command(value)

    def _simple_command(self, c):
        if c <= 0x0F:
            self.column = (self.column & 0xF0) | c
        elif c <= 0x1F:
            self.column = (self.column & 0x0F) | ((c & 0x07) << 4)
        elif c in (0x2E, 0x2F, 0xE3):
            pass                               # scroll off / on (unused), NOP
        elif 0x40 <= c <= 0x7F:
            self.start_line = c - 0x40
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5
        elif c in (0xA6, 0xA7):
            self.inverse = c == 0xA7
        elif c in (0xAE, 0xAF):
            self.display_on = c == 0xAF
        elif 0xB0 <= c <= 0xB7:
            self.page = c - 0xB0
        elif c in (0xC0, 0xC8):
            self.com_remap = c == 0xC8
        else:
            self.errors.append("unknown command 0x%02x" % c)

    def _command_with_args(self, c):
        a = self._args
        if c == 0x20:
            if a[0] > 2:
                self.errors.append("bad addressing mode %d" % a[0])
            else:
                self.mode = a[0]
        elif c == 0x21:
            self.col_start, self.col_end = a[0] & 0x7F, a[1] & 0x7F
            self.column = self.col_start
        elif c == 0x22:
            self.page_start, self.page_end = a[0] & 7, a[1] & 7
            self.page = self.page_start
        elif c == 0x81:
            self.contrast = a[0]
        elif c == 0x8D:
            self.charge_pump = bool(a[0] & 0x04)
        elif c == 0xA8:
            if a[0] != _HEIGHT - 1:
                self.errors.append("multiplex ratio %d on a 64-row panel" % (a[0] + 1))
        elif c == 0xD3:
            self.offset = a[0] & 0x3F

    # --- what a person sees ---------------------------------------------------------------

    def visible(self, x, y):
        """1 if the pixel at column x, row y (from the top left of the mounted module) glows."""
        if not (self.display_on and self.charge_pump):
            return 0
        if self.entire_on:
            return 1
        column = x if self.seg_remap else _WIDTH - 1 - x
        row = y if self.com_remap else _HEIGHT - 1 - y
        row = (row + self.start_line + self.offset) % _HEIGHT
        lit = self.ram[(row >> 3) * _WIDTH + column] >> (row & 7) & 1
        return lit ^ 1 if self.inverse else lit

    def cell(self, cx, cy):
        """The 8x8 cell at text column cx, text row cy, as 8 column bytes."""
        out = bytearray(8)
        for col in range(8):
            bits = 0
            for row in range(8):
                if self.visible(cx * 8 + col, cy * 8 + row):
                    bits |= 1 << row
            out[col] = bits
        return bytes(out)

    def text_row(self, row):
        """The 16 characters shown in text row 0..7 ('?' for a cell that is no character)."""
        glyphs = _reference_glyphs()
        chars = []
        for cx in range(_WIDTH // 8):
            key = self.cell(cx, row)
            char = glyphs.get(key)
            if char is None:
                char = glyphs.get(bytes([b ^ 0xFF for b in key]))
            chars.append(char if char is not None else "?")
        return "".join(chars)

    def inverted_row(self, row):
        """True if text row is shown as a lit bar (inverse video)."""
        lit = 0
        for x in range(_WIDTH):
            lit += self.visible(x, row * 8 + 7)
        return lit > _WIDTH // 2

    def lines(self):
        """The text of all 8 rows, trailing blanks removed."""
        return [self.text_row(r).rstrip() for r in range(_HEIGHT // 8)]

    def art(self):
        """The screen as text art: 64 lines of 128 characters, '#' lit and '.' dark."""
        rows = []
        for y in range(_HEIGHT):
            rows.append("".join(["#" if self.visible(x, y) else "." for x in range(_WIDTH)]))
        return "\n".join(rows)
