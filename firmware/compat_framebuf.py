"""A small pure-Python stand-in for MicroPython's ``framebuf``, for CPython only.

MicroPython has ``framebuf`` built in; CPython does not.  Modules that draw do::

    try:
        import framebuf
    except ImportError:
        from firmware import compat_framebuf as framebuf

Only what the dealer display uses is here: the MONO_VLSB format (one byte holds 8 pixels
of a column, least significant bit at the top; rows of 8 pixels form "pages" of
``stride`` bytes), with ``fill``, ``pixel``, ``hline``, ``vline``, ``rect``, ``fill_rect``
and ``text``.  ``text`` uses this module's own 8x8 font (a 5x7 glyph in each 8x8 cell), so
its letters differ in shape from MicroPython's built-in font, never in size or place.
"""

MONO_VLSB = 0
MVLSB = MONO_VLSB
GLYPH_SIZE = 8

# The font: each glyph is 7 rows of 5 columns ('#' lit), drawn from column 1 and row 0 of
# its 8x8 cell.  Characters outside 32..126 are drawn as a hollow box.
_GLYPHS = """
  ..... ..... ..... ..... ..... ..... .....
! ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..
" .#.#. .#.#. ..... ..... ..... ..... .....
# .#.#. ##### .#.#. .#.#. ##### .#.#. .....
$ ..#.. .#### #.#.. .###. ..#.# ####. ..#..
% ##..# ##.#. ..#.. ..#.. .#... #.### #..##
& .##.. #..#. .##.. .#... #.#.# #..#. .##.#
' ..#.. ..#.. ..... ..... ..... ..... .....
( ...#. ..#.. .#... .#... .#... ..#.. ...#.
) .#... ..#.. ...#. ...#. ...#. ..#.. .#...
* ..... ..#.. #.#.# .###. #.#.# ..#.. .....
+ ..... ..#.. ..#.. ##### ..#.. ..#.. .....
, ..... ..... ..... ..... .##.. ..#.. .#...
- ..... ..... ..... ##### ..... ..... .....
. ..... ..... ..... ..... ..... .##.. .##..
/ ....# ...#. ...#. ..#.. .#... .#... #....
0 .###. #...# #..## #.#.# ##..# #...# .###.
1 ..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.
2 .###. #...# ....# ..##. .#... #.... #####
3 ##### ...#. ..#.. ...#. ....# #...# .###.
4 ...#. ..##. .#.#. #..#. ##### ...#. ...#.
5 ##### #.... ####. ....# ....# #...# .###.
6 ..##. .#... #.... ####. #...# #...# .###.
7 ##### ....# ...#. ..#.. .#... .#... .#...
8 .###. #...# #...# .###. #...# #...# .###.
9 .###. #...# #...# .#### ....# ...#. .##..
: ..... .##.. .##.. ..... .##.. .##.. .....
; ..... .##.. .##.. ..... .##.. ..#.. .#...
< ...#. ..#.. .#... #.... .#... ..#.. ...#.
= ..... ..... ##### ..... ##### ..... .....
> .#... ..#.. ...#. ....# ...#. ..#.. .#...
? .###. #...# ....# ...#. ..#.. ..... ..#..
@ .###. #...# ....# .##.# #.#.# #.#.# .###.
A .###. #...# #...# ##### #...# #...# #...#
B ####. #...# #...# ####. #...# #...# ####.
C .###. #...# #.... #.... #.... #...# .###.
D ###.. #..#. #...# #...# #...# #..#. ###..
E ##### #.... #.... ####. #.... #.... #####
F ##### #.... #.... ####. #.... #.... #....
G .###. #...# #.... #.### #...# #...# .####
H #...# #...# #...# ##### #...# #...# #...#
I .###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
J ..### ...#. ...#. ...#. ...#. #..#. .##..
K #...# #..#. #.#.. ##... #.#.. #..#. #...#
L #.... #.... #.... #.... #.... #.... #####
M #...# ##.## #.#.# #.#.# #...# #...# #...#
N #...# #...# ##..# #.#.# #..## #...# #...#
O .###. #...# #...# #...# #...# #...# .###.
P ####. #...# #...# ####. #.... #.... #....
Q .###. #...# #...# #...# #.#.# #..#. .##.#
R ####. #...# #...# ####. #.#.. #..#. #...#
S .#### #.... #.... .###. ....# ....# ####.
T ##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
U #...# #...# #...# #...# #...# #...# .###.
V #...# #...# #...# #...# #...# .#.#. ..#..
W #...# #...# #...# #.#.# #.#.# #.#.# .#.#.
X #...# #...# .#.#. ..#.. .#.#. #...# #...#
Y #...# #...# .#.#. ..#.. ..#.. ..#.. ..#..
Z ##### ....# ...#. ..#.. .#... #.... #####
[ .###. .#... .#... .#... .#... .#... .###.
\\ #.... .#... .#... ..#.. ...#. ...#. ....#
] .###. ...#. ...#. ...#. ...#. ...#. .###.
^ ..#.. .#.#. #...# ..... ..... ..... .....
_ ..... ..... ..... ..... ..... ..... #####
` .#... ..#.. ..... ..... ..... ..... .....
a ..... ..... .###. ....# .#### #...# .####
b #.... #.... #.##. ##..# #...# #...# ####.
c ..... ..... .###. #.... #.... #...# .###.
d ....# ....# .##.# #..## #...# #...# .####
e ..... ..... .###. #...# ##### #.... .###.
f ..##. .#..# .#... ###.. .#... .#... .#...
g ..... .#### #...# #...# .#### ....# .###.
h #.... #.... #.##. ##..# #...# #...# #...#
i ..#.. ..... .##.. ..#.. ..#.. ..#.. .###.
j ...#. ..... ..##. ...#. ...#. #..#. .##..
k #.... #.... #..#. #.#.. ##... #.#.. #..#.
l .##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
m ..... ..... ##.#. #.#.# #.#.# #...# #...#
n ..... ..... #.##. ##..# #...# #...# #...#
o ..... ..... .###. #...# #...# #...# .###.
p ..... ..... ####. #...# ####. #.... #....
q ..... ..... .##.# #..## .#### ....# ....#
r ..... ..... #.##. ##..# #.... #.... #....
s ..... ..... .###. #.... .###. ....# ####.
t .#... .#... ###.. .#... .#... .#..# ..##.
u ..... ..... #...# #...# #...# #..## .##.#
v ..... ..... #...# #...# #...# .#.#. ..#..
w ..... ..... #...# #...# #.#.# #.#.# .#.#.
x ..... ..... #...# .#.#. ..#.. .#.#. #...#
y ..... ..... #...# #...# .#### ....# .###.
z ..... ..... ##### ...#. ..#.. .#... #####
{ ...#. ..#.. ..#.. .#... ..#.. ..#.. ...#.
| ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
} .#... ..#.. ..#.. ...#. ..#.. ..#.. .#...
~ ..... ..... .#... #.#.# ...#. ..... .....
"""

_FIRST = 32
_LAST = 126
_UNKNOWN = (0x7F, 0x41, 0x41, 0x41, 0x41, 0x41, 0x7F, 0x00)


def _build_font():
    # Returns bytes: 8 column bytes per character 32..126 (bit 0 = top row).
    font = bytearray(GLYPH_SIZE * (_LAST - _FIRST + 1))
    for line in _GLYPHS.split("\n"):
        if not line:
            continue
        char = line[0]
        rows = line[2:].split()
        if line.startswith("\\\\"):
            char = "\\"
            rows = line[3:].split()
        base = (ord(char) - _FIRST) * GLYPH_SIZE
        for y, row in enumerate(rows):
            for x, mark in enumerate(row):
                if mark == "#":
                    font[base + 1 + x] |= 1 << y
    return bytes(font)


FONT = _build_font()


class FrameBuffer:
    """A monochrome frame buffer over a caller's buffer (MONO_VLSB only)."""

    def __init__(self, buffer, width, height, format, stride=None):
        if format != MONO_VLSB:
            raise ValueError("compat_framebuf supports MONO_VLSB only, got format %r" % (format,))
        stride = width if stride is None else stride
        if width < 1 or height < 1 or stride < width:
            raise ValueError("bad frame size %dx%d stride %d" % (width, height, stride))
        # The last page needs only ``width`` bytes, as in MicroPython.
        needed = ((height + 7) // 8 - 1) * stride + width
        if len(buffer) < needed:
            raise ValueError("buffer too small: %d bytes, need %d" % (len(buffer), needed))
        self.buffer = buffer
        self.width = width
        self.height = height
        self.stride = stride

    def pixel(self, x, y, c=None):
        """Return the pixel at (x, y) (0 outside), or set it to c."""
        if x < 0 or y < 0 or x >= self.width or y >= self.height:
            return None if c is not None else 0
        index = (y >> 3) * self.stride + x
        bit = 1 << (y & 7)
        if c is None:
            return 1 if self.buffer[index] & bit else 0
        if c:
            self.buffer[index] |= bit
        else:
            self.buffer[index] &= ~bit & 0xFF
        return None

    def fill_rect(self, x, y, w, h, c):
        """Set every pixel of the rectangle (clipped to the frame) to c."""
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, self.width), min(y + h, self.height)
        for yy in range(y0, y1):
            for xx in range(x0, x1):
                self.pixel(xx, yy, c)

    def fill(self, c):
        """Set every pixel to c."""
        self.fill_rect(0, 0, self.width, self.height, c)

    def hline(self, x, y, w, c):
        """A horizontal line of w pixels from (x, y)."""
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        """A vertical line of h pixels from (x, y)."""
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c, f=False):
        """A rectangle outline (or filled when f is true)."""
        if f:
            self.fill_rect(x, y, w, h, c)
            return
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)

    def text(self, s, x, y, c=1):
        """Draw s with the 8x8 font, top-left at (x, y); lit pixels only (background kept)."""
        for char in s:
            code = ord(char)
            for col in range(GLYPH_SIZE):
                if _FIRST <= code <= _LAST:
                    bits = FONT[(code - _FIRST) * GLYPH_SIZE + col]
                else:
                    bits = _UNKNOWN[col]
                for row in range(GLYPH_SIZE):
                    if bits >> row & 1:
                        self.pixel(x + col, y + row, c)
            x += GLYPH_SIZE
