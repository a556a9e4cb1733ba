"""WS2812 spot lights: one ring of 8 pixels per seat, 7 seats, one chain.

    lights = SpotLights(strip, seats=7, tick_ms=20, brightness=64)
    lights.set(seat, ACCEPTED)      # seat index 0..6 (seat 1 is index 0, nearest the controller)
    lights.render(tick)             # every tick: compute the frame for loop tick count ``tick``,
                                    # send it if it changed (and every second all the same: a
                                    # ring glitched or plugged back in, dark, shows its pattern
                                    # again); allocates nothing

``strip`` is any object with ``write(buf)`` taking the GRB bytes of the whole chain: on the
board ``BitstreamStrip(machine.bitstream, pin)`` or ``NeoPixelStrip(neopixel.NeoPixel(pin, 56))``; on
the host a fake that decodes the bytes.  The frame buffer (3 bytes per pixel, G R B) is
allocated once.  Patterns, as a person sees them:

    OFF        dark
    IDLE       attract: a dim blue light runs round the ring (one lap a second)
    PLACED     steady amber, every other pixel: a chip is seen on the jackpot spot, not yet
               accepted
    ACCEPTED   steady green, the whole ring: the wager is accepted for this round
    LOCKED     steady dim red, two opposite pixels: no more bets, no wager accepted on this spot

The three steady patterns differ in how much of the ring is lit (4, 8 and 2 pixels) as well
as in colour, so a player or dealer who cannot tell amber, green and red apart (the common
red-green colour blindness) still reads "my wager is taken" from a full ring.
    LATE       red flashing twice a second: a chip placed after LOCK, not accepted
    WINNER     a rainbow turning round the ring: this seat won a jackpot prize
    FAULT      magenta, half the ring at a time, swapping every half second: sensor fault
    TAMPER     red and white alternating four times a second: chip removed after LOCK
"""

from firmware.compat import const

PIXELS_PER_SEAT = const(8)
_MAX_SEATS = const(8)

# Seat states (patterns).
OFF = const(0)
IDLE = const(1)
PLACED = const(2)
ACCEPTED = const(3)
LOCKED = const(4)
LATE = const(5)
WINNER = const(6)
FAULT = const(7)
TAMPER = const(8)
STATE_NAMES = ("OFF", "IDLE", "PLACED", "ACCEPTED", "LOCKED", "LATE", "WINNER", "FAULT", "TAMPER")
_ANIMATED = const((False, True, False, False, False, True, True, True, True))

# Palette entries (full-scale R, G, B; scaled by brightness once).
_BLACK = const(0)
_BLUE = const(1)
_BLUE_TAIL = const(2)
_AMBER = const(3)
_GREEN = const(4)
_RED_DIM = const(5)
_RED = const(6)
_MAGENTA = const(7)
_WHITE = const(8)
_RAINBOW = const(9)   # 8 hues follow
_COLOURS = const((
    (0, 0, 0), (0, 0, 255), (0, 0, 60), (255, 110, 0), (0, 255, 0), (90, 0, 0), (255, 0, 0),
    (255, 0, 255), (255, 255, 255),
    (255, 0, 0), (255, 128, 0), (255, 255, 0), (0, 255, 0), (0, 255, 255), (0, 0, 255),
    (128, 0, 255), (255, 0, 160),
))

# Pattern timing in milliseconds.
_IDLE_STEP_MS = const(125)
_LATE_HALF_MS = const(250)
_WINNER_STEP_MS = const(100)
_FAULT_HALF_MS = const(500)
_TAMPER_HALF_MS = const(125)
_LOCKED_GAP = const(4)    # LOCKED lights every 4th pixel: two dots opposite each other
_CYCLE_MS = const(4000)   # a multiple of every pattern's period
_RESEND_MS = const(1000)  # an unchanged frame is sent again this often


class BitstreamStrip:
    """Sends GRB bytes with ``machine.bitstream`` (passed in) at the WS2812 800 kHz timing."""

    # High/low times in ns for a 0 bit and a 1 bit.
    TIMING_800KHZ = (400, 850, 800, 450)

    def __init__(self, bitstream, pin):
        self._bitstream = bitstream
        self._pin = pin

    def write(self, buf):
        """Send buf to the chain (the chain latches after the line idles low)."""
        self._bitstream(self._pin, 0, self.TIMING_800KHZ, buf)


class NeoPixelStrip:
    """Sends GRB bytes through a ``neopixel.NeoPixel`` object (passed in) of the same length."""

    def __init__(self, neopixel):
        self._np = neopixel

    def write(self, buf):
        """Copy buf into the NeoPixel's own buffer and send it."""
        self._np.buf[:] = buf
        self._np.write()


class SpotLights:
    """Per-seat light patterns rendered into one preallocated GRB frame."""

    def __init__(self, strip, seats=7, tick_ms=20, brightness=64):
        if not isinstance(seats, int) or seats < 1 or seats > _MAX_SEATS:
            raise ValueError("seats must be 1..%d, got %r" % (_MAX_SEATS, seats))
        if not isinstance(tick_ms, int) or tick_ms < 1 or tick_ms > 1000:
            raise ValueError("tick_ms must be 1..1000, got %r" % (tick_ms,))
        self._strip = strip
        self.seats = seats
        self.tick_ms = tick_ms
        self._buf = bytearray(seats * PIXELS_PER_SEAT * 3)
        self._palette = bytearray(len(_COLOURS) * 3)
        self._states = bytearray(seats)
        self._frames = [-1] * seats       # animation frame last drawn per seat (-1: redraw)
        self._dirty = True
        self._unsent = 0                  # renders since the frame was last sent
        self._resend = max(1, _RESEND_MS // tick_ms)
        self.writes = 0
        self.set_brightness(brightness)

    def set_brightness(self, level):
        """Scale every colour by level/255 (1..255); redraws everything at the next render."""
        if not isinstance(level, int) or level < 1 or level > 255:
            raise ValueError("brightness must be 1..255, got %r" % (level,))
        for i, (r, g, b) in enumerate(_COLOURS):
            # Keep a lit channel lit at low brightness (never rounds down to 0).
            self._palette[i * 3] = (g * level + 254) // 255
            self._palette[i * 3 + 1] = (r * level + 254) // 255
            self._palette[i * 3 + 2] = (b * level + 254) // 255
        self.brightness = level
        for seat in range(self.seats):
            self._frames[seat] = -1

    def set(self, seat, state):
        """Show a pattern on one seat (index 0..seats-1); ValueError for a bad seat or state."""
        if not isinstance(seat, int) or seat < 0 or seat >= self.seats:
            raise ValueError("seat index must be 0..%d, got %r" % (self.seats - 1, seat))
        if not isinstance(state, int) or state < 0 or state >= len(STATE_NAMES):
            raise ValueError("unknown light state %r" % (state,))
        if self._states[seat] != state:
            self._states[seat] = state
            self._frames[seat] = -1

    def set_all(self, state):
        """Show the same pattern on every seat."""
        for seat in range(self.seats):
            self.set(seat, state)

    def state(self, seat):
        """The pattern a seat shows."""
        return self._states[seat]

    def render(self, tick):
        """Draw the frame for loop tick ``tick`` and send it if any pixel changed, or if it
        has not been sent for a second.

        Returns True if the frame was sent.
        """
        # Every pattern repeats within _CYCLE_MS, so only tick modulo a cycle matters; this
        # keeps the product a small int however long the table runs.
        ms = (tick % _CYCLE_MS) * self.tick_ms
        for seat in range(self.seats):
            state = self._states[seat]
            frame = self._frame_of(state, ms)
            if frame != self._frames[seat]:
                self._frames[seat] = frame
                self._draw(seat, state, frame)
                self._dirty = True
        if not self._dirty:
            # A steady pattern (ACCEPTED all through a round) is sent again now and then: the
            # pixels keep what they were last sent, and a ring that lost its power for a moment
            # or latched noise from the cable would stay dark or wrong until the pattern changed.
            self._unsent += 1
            if self._unsent < self._resend:
                return False
        self._dirty = False
        self._unsent = 0
        self._strip.write(self._buf)
        self.writes = (self.writes + 1) & 0x3FFFFFFF    # a small int however long it runs
        return True

    def _frame_of(self, state, ms):
        # The animation step a pattern is at; static patterns stay at frame 0.
        if not _ANIMATED[state]:
            return 0
        if state == IDLE:
            return (ms // _IDLE_STEP_MS) % PIXELS_PER_SEAT
        if state == WINNER:
            return (ms // _WINNER_STEP_MS) % PIXELS_PER_SEAT
        if state == LATE:
            return (ms // _LATE_HALF_MS) & 1
        if state == FAULT:
            return (ms // _FAULT_HALF_MS) & 1
        return (ms // _TAMPER_HALF_MS) & 1

    def _draw(self, seat, state, frame):
        first = seat * PIXELS_PER_SEAT
        for i in range(PIXELS_PER_SEAT):
            if state == IDLE:
                # Seats run a quarter lap apart so the table shows a wave.
                head = (frame + seat * 2) % PIXELS_PER_SEAT
                colour = _BLUE if i == head else (_BLUE_TAIL if i == (head - 1) % PIXELS_PER_SEAT
                                                  else _BLACK)
            elif state == PLACED:
                colour = _AMBER if i & 1 == 0 else _BLACK
            elif state == ACCEPTED:
                colour = _GREEN
            elif state == LOCKED:
                colour = _RED_DIM if i % _LOCKED_GAP == 0 else _BLACK
            elif state == LATE:
                colour = _RED if frame == 0 else _BLACK
            elif state == WINNER:
                colour = _RAINBOW + (i + frame) % PIXELS_PER_SEAT
            elif state == FAULT:
                colour = _MAGENTA if (i < PIXELS_PER_SEAT // 2) == (frame == 0) else _BLACK
            elif state == TAMPER:
                colour = _RED if (i & 1) == frame else _WHITE
            else:
                colour = _BLACK
            self._put(first + i, colour)

    def _put(self, pixel, colour):
        buf = self._buf
        palette = self._palette
        at = pixel * 3
        src = colour * 3
        buf[at] = palette[src]
        buf[at + 1] = palette[src + 1]
        buf[at + 2] = palette[src + 2]
