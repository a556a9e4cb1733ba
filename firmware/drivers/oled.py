"""SSD1306 128x64 monochrome OLED over I2C (the dealer display), drawn with ``framebuf``.

    oled = SSD1306(i2c, address=0x3C)
    oled.begin()                       # init sequence, clear, display on
    oled.fill(0); oled.text("BETS OPEN", 0, 0); oled.rect(...); oled.hline(...)
    oled.write_line(3, "SEAT 3  AK", invert=True)   # a whole 16-character text row (0..7)
    oled.update()                      # every tick: sends at most one changed page
    oled.show()                        # send every changed page now
    oled.refresh()                     # every few seconds: settings again, every page again

Drawing goes into a frame buffer allocated once in the constructor; the drawing methods
note which 8-pixel pages they touched, and ``update`` sends one such page per call
(129 bytes, about 3.3 ms at 400 kHz) so the loop tick stays short.  ``update`` and ``show``
allocate nothing.  Frame data uses page addressing: for each page the commands
``0xB0 | page`` and the column start, then a data write of the page's 128 bytes.

The buffer holds each page with its I2C control byte in front (``0x40``, "data follows"),
laid out with a stride of 129 bytes, and ``framebuf`` draws into it from offset 1, so a page
is sent straight from the frame buffer without copying.  The ``framebuf`` module is
MicroPython's; on CPython ``firmware.compat_framebuf`` stands in for it.  ``self.framebuf``
is the FrameBuffer for drawing anything else (call ``touch()`` after drawing on it directly).
"""

from firmware.compat import const

try:
    import framebuf
except ImportError:
    from firmware import compat_framebuf as framebuf

_ADDRESS = const(0x3C)

# Control bytes (first byte of every I2C write).
_CONTROL_COMMANDS = const(0x00)
_CONTROL_DATA = const(0x40)

# Commands.
_SET_LOW_COLUMN = const(0x00)      # | low nibble (page addressing mode)
_SET_HIGH_COLUMN = const(0x10)     # | high nibble
_SET_MEM_ADDR_MODE = const(0x20)
_MEM_ADDR_PAGE = const(0x02)
_SET_SCROLL_OFF = const(0x2E)
_SET_START_LINE = const(0x40)      # | line 0..63
_SET_CONTRAST = const(0x81)
_SET_CHARGE_PUMP = const(0x8D)
_CHARGE_PUMP_ON = const(0x14)
_CHARGE_PUMP_OFF = const(0x10)
_SET_SEG_REMAP = const(0xA0)       # | 1: column 127 is SEG0 (the usual module mounting)
_SET_ENTIRE_ON = const(0xA4)       # | 1: every pixel on regardless of RAM
_SET_NORM_INV = const(0xA6)        # | 1: inverted
_SET_MUX_RATIO = const(0xA8)
_SET_DISP = const(0xAE)            # | 1: display on
_SET_PAGE = const(0xB0)            # | page 0..7 (page addressing mode)
_SET_COM_OUT_DIR = const(0xC0)     # | 8: scan from COM[N-1] to COM0
_SET_DISP_OFFSET = const(0xD3)
_SET_DISP_CLK_DIV = const(0xD5)
_SET_PRECHARGE = const(0xD9)
_SET_COM_PIN_CFG = const(0xDA)
_SET_VCOM_DESEL = const(0xDB)

_WIDTH = const(128)
_HEIGHT = const(64)
_CONFIG_CONTRAST = const(17)      # where the contrast and the inversion are in _config
_CONFIG_NORM_INV = const(23)
_CHARS_PER_LINE = const(16)
_TEXT_LINES = const(8)
_GLYPH = const(8)


class SSD1306:
    """The dealer display: drawing methods plus page-at-a-time transfer over I2C."""

    def __init__(self, i2c, address=_ADDRESS, width=_WIDTH, height=_HEIGHT, external_vcc=False):
        if width < 1 or width > 128 or height not in (16, 32, 64):
            raise ValueError("SSD1306 size must be up to 128 wide and 16/32/64 high, got %dx%d"
                             % (width, height))
        self._i2c = i2c
        self.address = address
        self.width = width
        self.height = height
        self.pages = height // 8
        self.external_vcc = external_vcc
        stride = width + 1
        self._buffer = bytearray(self.pages * stride)
        view = memoryview(self._buffer)
        self._page_data = []
        self._page_select = []
        for page in range(self.pages):
            self._buffer[page * stride] = _CONTROL_DATA
            self._page_data.append(view[page * stride:(page + 1) * stride])
            self._page_select.append(bytes((_CONTROL_COMMANDS, _SET_PAGE | page, _SET_LOW_COLUMN,
                                            _SET_HIGH_COLUMN)))
        self.framebuf = framebuf.FrameBuffer(view[1:], width, height, framebuf.MONO_VLSB, stride)
        self._command = bytearray(2)
        self._command[0] = _CONTROL_COMMANDS
        # The settings begin and refresh send (after display off / before display on); the
        # contrast and the inversion bytes are kept up to date by contrast() and invert().
        self._config = bytearray((
            _CONTROL_COMMANDS,
            _SET_DISP_CLK_DIV, 0x80,
            _SET_MUX_RATIO, height - 1,
            _SET_DISP_OFFSET, 0x00,
            _SET_START_LINE | 0,
            _SET_CHARGE_PUMP, _CHARGE_PUMP_OFF if external_vcc else _CHARGE_PUMP_ON,
            _SET_MEM_ADDR_MODE, _MEM_ADDR_PAGE,
            _SET_SEG_REMAP | 1,
            _SET_COM_OUT_DIR | 8,
            _SET_COM_PIN_CFG, 0x12 if height == 64 else 0x02,
            _SET_CONTRAST, 0xCF,
            _SET_PRECHARGE, 0x22 if external_vcc else 0xF1,
            _SET_VCOM_DESEL, 0x30,
            _SET_ENTIRE_ON,
            _SET_NORM_INV,
            _SET_SCROLL_OFF,
        ))
        self._dirty = 0
        self._next = 0
        self.pages_sent = 0
        # What write_line last put on each text row (None: unknown or drawn over since).
        self._row_text = [None] * self.pages
        self._row_invert = bytearray(self.pages)

    # --- wire -----------------------------------------------------------------------------

    def _cmd(self, command):
        self._command[1] = command
        self._i2c.writeto(self.address, self._command)

    def begin(self):
        """Send the init sequence (display on, page addressing) and a blank screen."""
        self._cmd(_SET_DISP)
        self._i2c.writeto(self.address, self._config)
        self.fill(0)
        self.show()
        self._cmd(_SET_DISP | 1)

    def refresh(self):
        """Send the settings again (display on, the inversion and contrast in force) and mark
        every page to be sent again by ``update``: a display that lost its power for a moment
        (unplugged and back, a glitch on the cable) comes back at its power-on state, dark,
        and the driver cannot tell, since a write to it still succeeds.  Called every few
        seconds from the loop; allocates nothing, and keeps the picture drawn."""
        self._i2c.writeto(self.address, self._config)
        self._cmd(_SET_DISP | 1)
        self._dirty = (1 << self.pages) - 1

    def power(self, on):
        """Switch the panel on or off (RAM is kept)."""
        self._cmd(_SET_DISP | (1 if on else 0))

    def contrast(self, level):
        """Set the contrast 0..255."""
        if not isinstance(level, int) or level < 0 or level > 255:
            raise ValueError("contrast must be 0..255, got %r" % (level,))
        self._config[_CONFIG_CONTRAST] = level
        self._cmd(_SET_CONTRAST)
        self._cmd(level)

    def invert(self, on):
        """Show the whole screen inverted (lit background) or normal."""
        # kept first: a display that misses this write gets it with begin or refresh
        self._config[_CONFIG_NORM_INV] = _SET_NORM_INV | (1 if on else 0)
        self._cmd(_SET_NORM_INV | (1 if on else 0))

    def _send_page(self, page):
        self._i2c.writeto(self.address, self._page_select[page])
        self._i2c.writeto(self.address, self._page_data[page])
        self._dirty &= ~(1 << page)
        self.pages_sent = (self.pages_sent + 1) & 0x3FFFFFFF    # a small int, however long

    def update(self):
        """Send the next changed page, if any; return True if one was sent."""
        if not self._dirty:
            return False
        for _ in range(self.pages):
            page = self._next
            self._next = page + 1 if page + 1 < self.pages else 0
            if self._dirty >> page & 1:
                self._send_page(page)
                return True
        return False

    def show(self):
        """Send every changed page now."""
        for page in range(self.pages):
            if self._dirty >> page & 1:
                self._send_page(page)

    def pending(self):
        """True if some drawing has not been sent yet."""
        return self._dirty != 0

    # --- drawing --------------------------------------------------------------------------

    def touch(self, y=0, h=_HEIGHT):
        """Mark the pages covering rows y..y+h-1 as changed (all pages by default)."""
        if h <= 0:
            return
        first = y >> 3 if y > 0 else 0
        last = (y + h - 1) >> 3
        if last >= self.pages:
            last = self.pages - 1
        for page in range(first, last + 1):
            self._dirty |= 1 << page
            self._row_text[page] = None

    def fill(self, c):
        """Set every pixel to c (0 dark, 1 lit)."""
        self.framebuf.fill(c)
        self.touch()

    def pixel(self, x, y, c):
        """Set one pixel."""
        self.framebuf.pixel(x, y, c)
        self.touch(y, 1)

    def hline(self, x, y, w, c):
        """A horizontal line."""
        self.framebuf.hline(x, y, w, c)
        self.touch(y, 1)

    def rect(self, x, y, w, h, c, fill=False):
        """A rectangle outline, or a filled one."""
        if fill:
            self.framebuf.fill_rect(x, y, w, h, c)
        else:
            self.framebuf.rect(x, y, w, h, c)
        self.touch(y, h)

    def text(self, s, x, y, c=1):
        """Draw text with the 8x8 font, top-left at (x, y)."""
        self.framebuf.text(s, x, y, c)
        self.touch(y, _GLYPH)

    def write_line(self, row, s, invert=False):
        """Replace text row 0..7 with s (cut at 16 characters); invert gives a lit bar.

        Writing the same text as last time changes nothing and sends nothing.
        """
        if not isinstance(row, int) or row < 0 or row >= self.height // _GLYPH:
            raise ValueError("text row must be 0..%d, got %r" % (self.height // _GLYPH - 1, row))
        invert_flag = 1 if invert else 0
        if self._row_text[row] == s and self._row_invert[row] == invert_flag:
            return
        y = row * _GLYPH
        background = 1 if invert else 0
        self.framebuf.fill_rect(0, y, self.width, _GLYPH, background)
        shown = s
        if len(s) > self.width // _GLYPH:
            shown = s[:self.width // _GLYPH]      # only a too-long line costs a new string
        self.framebuf.text(shown, 0, y, 1 - background)
        self.touch(y, _GLYPH)
        self._row_text[row] = s
        self._row_invert[row] = invert_flag
