"""A fake WS2812 chain: takes the GRB bytes the driver sends and tells the colours.

    strip = FakeWS2812(pixels=56, per_seat=8)
    lights = SpotLights(strip)
    strip.rgb(i)             # (r, g, b) of pixel i as last sent
    strip.seat_colour(0)     # 'green', 'off', 'mixed', ... for seat index 0's ring
    strip.seat_names(0)      # the colour name of each of its 8 pixels
    strip.level(0)           # the brightest channel value on the ring (how bright it looks)

Colour names come from the channel proportions, not from the driver's palette: a channel
is "high" at 2/3 of the brightest channel or more and "mid" from 1/5, so a colour keeps its
name at any brightness.  Names: off, red, green, blue, white, yellow, amber (red with some
green), magenta, cyan, pink (red with some blue), violet (blue with some red), lime.
"""


def colour_name(r, g, b):
    """The name a person would give the colour (r, g, b)."""
    top = max(r, g, b)
    if top < 4:
        return "off"

    def grade(c):
        if c * 3 >= top * 2:
            return 2
        if c * 5 >= top:
            return 1
        return 0

    key = (grade(r), grade(g), grade(b))
    return _NAMES.get(key, "mixed")


_NAMES = {
    (2, 0, 0): "red", (0, 2, 0): "green", (0, 0, 2): "blue", (2, 2, 2): "white",
    (2, 2, 0): "yellow", (2, 1, 0): "amber", (2, 0, 2): "magenta", (0, 2, 2): "cyan",
    (2, 0, 1): "pink", (1, 0, 2): "violet", (1, 2, 0): "lime",
}


class FakeWS2812:
    """The GRB bytes last sent to a chain of pixels, decoded per seat ring."""

    def __init__(self, pixels=56, per_seat=8):
        self.pixels = pixels
        self.per_seat = per_seat
        self.frame = bytearray(3 * pixels)
        self.writes = 0
        self.bad_lengths = 0

    def write(self, buf):
        """Latch a frame (the driver's transport call)."""
        self.writes += 1
        if len(buf) != len(self.frame):
            self.bad_lengths += 1
        count = len(buf) if len(buf) < len(self.frame) else len(self.frame)
        for i in range(count):
            self.frame[i] = buf[i]

    def rgb(self, pixel):
        """(r, g, b) of one pixel; the wire order is G, R, B."""
        at = 3 * pixel
        return (self.frame[at + 1], self.frame[at], self.frame[at + 2])

    def seat_names(self, seat):
        """Colour names of the seat's pixels, in ring order."""
        first = seat * self.per_seat
        names = []
        for i in range(first, first + self.per_seat):
            r, g, b = self.rgb(i)
            names.append(colour_name(r, g, b))
        return names

    def seat_colour(self, seat):
        """'off', one colour name if every lit pixel has it, or 'mixed'."""
        lit = [n for n in self.seat_names(seat) if n != "off"]
        if not lit:
            return "off"
        for name in lit:
            if name != lit[0]:
                return "mixed"
        return lit[0]

    def lit_count(self, seat):
        """How many of the seat's pixels glow."""
        return len([n for n in self.seat_names(seat) if n != "off"])

    def level(self, seat):
        """The brightest channel value on the seat's ring."""
        top = 0
        for i in range(seat * self.per_seat, (seat + 1) * self.per_seat):
            r, g, b = self.rgb(i)
            top = max(top, r, g, b)
        return top
