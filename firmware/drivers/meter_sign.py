"""The progressive meter sign: chained MAX7219 8-digit 7-segment modules over SPI.

One module (one line of 8 digits) per pool; module 0 is wired to the controller, the others
follow it in the chain.

    sign = MeterSign(spi, cs, lines=2)
    sign.begin(now_ms)                         # configure every module, blank the digits
    sign.set_amount(line, cents, now_ms)       # new target: the digits count up to it, paced
    sign.show_win(line, seat, win_cents, new_cents, now_ms)
    sign.end_wins(line)                        # the line's wins stop: its amount again
    sign.set_fault(line, "LINK DN")            # alternate the amount with this text
    sign.clear_fault(line)
    sign.blank(line, True)                     # a line no pool uses shows no amount (False: back)
    sign.tick(now_ms)                          # every loop tick; sends only changed digits,
                                               # allocates nothing

What a person sees on a line:

- the amount as dollars and cents with the decimal point, right-aligned: ``1234.56``
  (``0.00`` at least; from $1,000,000.00 up, whole dollars only);
- a rise counted up in steps of at least one cent every ``step_ms`` (100 ms), so the
  sign catches up with any new target within ``catch_up_ms`` (5 s) instead of jumping;
  a fall (the pool was won and reset) is shown at once;
- after ``show_win``: the win amount (2 s) and ``SEAt 3`` (1 s) alternately for ``win_ms``
  (15 s), starting at the moment of the hit, then the new amount.  Wins of one round on the
  same line (two flushes, a royal and a flush...) are shown in turn, each amount with its
  seat, round and round again until ``win_ms`` after the last of them, and at least once
  each: with the most wins a line holds (``_MAX_WINS``, 9) the last appears 24 s after the
  first; ``end_wins`` ends them at once (wins withdrawn, or shown again when paid);
- with a fault set: the amount (2 s) and the fault text (1 s) alternately;
- a blank line (no pool on it): nothing, or with a fault set the fault text alone (there is
  no amount to show: a table in RAM ERROR, or a game without a progressive).

Text uses this module's own segment font (code-B decoding is switched off): digits,
letters in either case, each with one shape (b d o q r t y lower case, the others capitals:
``dn`` shows ``dN``), space, ``-`` ``_`` ``=``, and ``.`` lighting the decimal point of the
character before it.  ``S`` and ``5`` share a shape, as do ``2`` and ``Z``, ``V`` and ``u``.
Characters with no shape (W, X, ...) are a ValueError.

The digit register DIGIT0 drives the rightmost digit of a module (the usual 8-digit board).
Every ``refresh_ms`` (10 s) the configuration and all digits are sent again, so a module
glitched by noise on a long cable, or plugged in late, recovers on its own.
"""

from firmware.compat import const
from firmware.drivers.ticks import ticks_add, ticks_diff

# MAX7219 registers.
_REG_NOOP = const(0x00)
_REG_DIGIT0 = const(0x01)      # DIGIT0..DIGIT7 are 0x01..0x08
_REG_DECODE_MODE = const(0x09)
_REG_INTENSITY = const(0x0A)
_REG_SCAN_LIMIT = const(0x0B)
_REG_SHUTDOWN = const(0x0C)
_REG_DISPLAY_TEST = const(0x0F)

_DECODE_NONE = const(0x00)
_SCAN_ALL_DIGITS = const(0x07)
_SHUTDOWN_OFF = const(0x01)    # normal operation
_SHUTDOWN_ON = const(0x00)
_INTENSITY_MAX = const(0x0F)

_DIGITS = const(8)
_MAX_LINES = const(8)

# Segment bits in no-decode mode: DP A B C D E F G from bit 7 down to bit 0.
_SEG_DP = const(0x80)
_SEG_A = const(0x40)
_SEG_B = const(0x20)
_SEG_C = const(0x10)
_SEG_D = const(0x08)
_SEG_E = const(0x04)
_SEG_F = const(0x02)
_SEG_G = const(0x01)

_DIGIT_SHAPES = const(b"\x7e\x30\x6d\x79\x33\x5b\x5f\x70\x7f\x7b")
_FONT = {
    " ": 0x00, "-": 0x01, "_": 0x08, "=": 0x09,
    "A": 0x77, "B": 0x1F, "C": 0x4E, "D": 0x3D, "E": 0x4F, "F": 0x47, "G": 0x5E, "H": 0x37,
    "I": 0x06, "J": 0x3C, "K": 0x57, "L": 0x0E, "M": 0x54, "N": 0x76, "O": 0x1D, "P": 0x67,
    "Q": 0x73, "R": 0x05, "S": 0x5B, "T": 0x0F, "U": 0x3E, "V": 0x1C, "Y": 0x3B, "Z": 0x6D,
}

# Timing, milliseconds.
_STEP_MS = const(100)
_CATCH_UP_MS = const(5000)
_WIN_MS = const(15000)
_WIN_AMOUNT_MS = const(2000)
_WIN_SEAT_MS = const(1000)
_WIN_CYCLE_MS = const(3000)            # _WIN_AMOUNT_MS + _WIN_SEAT_MS: one win's turn
_MAX_WINS = const(9)                    # wins shown together on a line (seats 1..9)
_FAULT_AMOUNT_MS = const(2000)
_FAULT_TEXT_MS = const(1000)
_REFRESH_MS = const(10000)

MAX_CENTS = const(0x3FFFFFFF)          # the largest amount set_amount and show_win take
_CENTS_SHOWN_MAX = const(99999999)    # 999999.99 is the largest amount shown with cents


def encode_text(text, out=None):
    """Return 8 segment bytes (rightmost digit first) showing text right-aligned.

    ValueError names a character with no 7-segment shape or text longer than 8 digits.
    """
    if not isinstance(text, str):
        raise ValueError("sign text must be a str, got %r" % (text,))
    shapes = []
    for ch in text:
        if ch == ".":
            if shapes and not shapes[-1] & _SEG_DP:
                shapes[-1] |= _SEG_DP
            else:
                shapes.append(_SEG_DP)
            continue
        if "0" <= ch <= "9":
            shapes.append(_DIGIT_SHAPES[ord(ch) - 48])
            continue
        shape = _FONT.get(ch.upper())
        if shape is None:
            raise ValueError("no 7-segment shape for %r in sign text %r" % (ch, text))
        shapes.append(shape)
    if len(shapes) > _DIGITS:
        raise ValueError("sign text %r needs %d digits, a line has %d" % (text, len(shapes), _DIGITS))
    if out is None:
        out = bytearray(_DIGITS)
    for i in range(_DIGITS):
        out[i] = shapes[len(shapes) - 1 - i] if i < len(shapes) else 0
    return out


def render_amount(cents, out, offset=0):
    """Write the 8 segment bytes (rightmost first) of an amount in cents into out[offset:]."""
    with_cents = cents <= _CENTS_SHOWN_MAX
    value = cents if with_cents else cents // 100
    lowest = 2 if with_cents else 0     # digits always shown: "0.00" or "0"
    for i in range(_DIGITS):
        if value or i <= lowest:
            shape = _DIGIT_SHAPES[value % 10]
            if with_cents and i == 2:
                shape |= _SEG_DP
            value //= 10
        else:
            shape = 0
        out[offset + i] = shape


def _check_cents(cents, what):
    if not isinstance(cents, int) or isinstance(cents, bool) or cents < 0 or cents > MAX_CENTS:
        raise ValueError("%s must be int cents 0..%d, got %r" % (what, MAX_CENTS, cents))


class MeterSign:
    """Amounts, wins and fault texts on a chain of MAX7219 modules (one line per pool)."""

    def __init__(self, spi, cs, lines=1, intensity=8, step_ms=_STEP_MS, catch_up_ms=_CATCH_UP_MS,
                 win_ms=_WIN_MS, refresh_ms=_REFRESH_MS):
        if not isinstance(lines, int) or lines < 1 or lines > _MAX_LINES:
            raise ValueError("lines must be 1..%d, got %r" % (_MAX_LINES, lines))
        if not isinstance(intensity, int) or intensity < 0 or intensity > _INTENSITY_MAX:
            raise ValueError("intensity must be 0..15, got %r" % (intensity,))
        for name, value in (("step_ms", step_ms), ("catch_up_ms", catch_up_ms), ("win_ms", win_ms),
                            ("refresh_ms", refresh_ms)):
            if not isinstance(value, int) or value < 1 or value >= 0x20000000:
                raise ValueError("%s must be a positive int, got %r" % (name, value))
        if catch_up_ms < step_ms:
            raise ValueError("catch_up_ms must be at least step_ms")
        self._spi = spi
        self._cs = cs
        self.lines = lines
        self.intensity = intensity
        self.step_ms = step_ms
        self.catch_up_steps = catch_up_ms // step_ms
        self.win_ms = win_ms
        self.refresh_ms = refresh_ms
        self._tx = bytearray(2 * lines)
        self._frame = bytearray(_DIGITS * lines)    # what should show, line-major, rightmost first
        self._sent = bytearray(_DIGITS * lines)     # what the modules were last sent
        self._text = bytearray(_DIGITS * lines)     # fault text per line
        self._seat_text = bytearray(_DIGITS * lines * _MAX_WINS)    # "SEAt n" per win slot
        self._shown = [0] * lines
        self._target = [0] * lines
        self._rate = [1] * lines
        self._last_step = [0] * lines
        self._faulted = bytearray(lines)
        self._blank = bytearray(lines)     # lines that show nothing (no pool on them)
        self._win_cents = [0] * (lines * _MAX_WINS)
        self._win_start = [0] * lines      # tick of the line's first win
        self._win_end = [0] * lines        # ms after that tick when the wins stop showing
        self._wins = bytearray(lines)      # wins showing on the line (0: none)
        self._last_refresh = 0
        self._lamp_test = False
        self._started = False
        cs.value(1)

    # --- wire -----------------------------------------------------------------------------

    def _send_all(self, register, value):
        tx = self._tx
        for i in range(self.lines):
            tx[2 * i] = register
            tx[2 * i + 1] = value
        self._transfer()

    def _send_row(self, digit):
        # One transaction sets this digit on every module; module 0 is clocked in last.
        tx = self._tx
        last = self.lines - 1
        for line in range(self.lines):
            at = 2 * (last - line)
            tx[at] = _REG_DIGIT0 + digit
            value = self._frame[line * _DIGITS + digit]
            tx[at + 1] = value
            self._sent[line * _DIGITS + digit] = value
        self._transfer()

    def _transfer(self):
        self._cs.value(0)
        self._spi.write(self._tx)
        self._cs.value(1)

    def _configure(self):
        self._send_all(_REG_DISPLAY_TEST, 1 if self._lamp_test else 0)
        self._send_all(_REG_SCAN_LIMIT, _SCAN_ALL_DIGITS)
        self._send_all(_REG_DECODE_MODE, _DECODE_NONE)
        self._send_all(_REG_INTENSITY, self.intensity)
        self._send_all(_REG_SHUTDOWN, _SHUTDOWN_OFF)

    def begin(self, now):
        """Configure every module and send every digit (blank until an amount is set)."""
        self._configure()
        for digit in range(_DIGITS):
            self._send_row(digit)
        self._last_refresh = now
        self._started = True

    # --- what to show ---------------------------------------------------------------------

    def _check_line(self, line):
        if not isinstance(line, int) or line < 0 or line >= self.lines:
            raise ValueError("sign line must be 0..%d, got %r" % (self.lines - 1, line))

    def set_amount(self, line, cents, now, jump=False):
        """Make cents the line's target; a rise is counted up, a fall (or jump=True) is immediate."""
        self._check_line(line)
        _check_cents(cents, "amount")
        self._target[line] = cents
        gap = cents - self._shown[line]
        if gap <= 0 or jump or not self._started:
            self._shown[line] = cents
            return
        steps = self.catch_up_steps
        self._rate[line] = (gap + steps - 1) // steps
        self._last_step[line] = now

    def amount_shown(self, line):
        """The amount (cents) the line counts at this moment."""
        return self._shown[line]

    def show_win(self, line, seat, win_cents, new_cents, now):
        """Show a jackpot win on a line: the win amount and the seat, then the new amount.
        A win while others still show joins them; with _MAX_WINS showing, the oldest gives way
        (two rounds of many winners close together)."""
        self._check_line(line)
        if not isinstance(seat, int) or seat < 1 or seat > 9:
            raise ValueError("winning seat must be 1..9, got %r" % (seat,))
        _check_cents(win_cents, "win amount")
        _check_cents(new_cents, "new amount")
        count = self._wins[line]
        if count and ticks_diff(now, self._win_start[line]) >= self._win_end[line]:
            count = 0
        if count >= _MAX_WINS:
            base = line * _MAX_WINS
            text = self._seat_text
            text[base * _DIGITS:(base + _MAX_WINS - 1) * _DIGITS] = \
                text[(base + 1) * _DIGITS:(base + _MAX_WINS) * _DIGITS]
            for i in range(base, base + _MAX_WINS - 1):
                self._win_cents[i] = self._win_cents[i + 1]
            count = _MAX_WINS - 1
        if not count:
            self._win_start[line] = now
        slot = line * _MAX_WINS + count
        encode_text("SEAt %d" % seat, memoryview(self._seat_text)[slot * _DIGITS:(slot + 1) * _DIGITS])
        self._win_cents[slot] = win_cents
        self._wins[line] = count + 1
        # until win_ms after this win, and at least one turn of every win
        self._win_end[line] = max(ticks_diff(now, self._win_start[line]) + self.win_ms,
                                  (count + 1) * _WIN_CYCLE_MS)
        self.set_amount(line, new_cents, now, jump=True)

    def end_wins(self, line):
        """Stop showing the line's wins: its amount (or fault) again."""
        self._check_line(line)
        self._wins[line] = 0

    def wins_showing(self, line):
        """How many wins the line is showing in turn (0: its amount or fault)."""
        return self._wins[line]

    def set_fault(self, line, text):
        """Alternate the line's amount with text (ValueError if the text cannot be shown)."""
        self._check_line(line)
        encode_text(text, memoryview(self._text)[line * _DIGITS:(line + 1) * _DIGITS])
        self._faulted[line] = 1

    def clear_fault(self, line):
        """Show only the amount again."""
        self._check_line(line)
        self._faulted[line] = 0

    def blank(self, line, on):
        """Show no amount on the line (on=True: a module with no pool on it; only its fault
        text, if one is set) or its amount again."""
        self._check_line(line)
        self._blank[line] = 1 if on else 0

    def lamp_test(self, on):
        """Light every segment of every module (the test mode) or go back to normal."""
        self._lamp_test = bool(on)
        self._send_all(_REG_DISPLAY_TEST, 1 if on else 0)

    # --- per tick -------------------------------------------------------------------------

    def tick(self, now):
        """Advance counting and alternation to tick now and send the digits that changed."""
        for line in range(self.lines):
            self._count(line, now)
            self._render(line, now)
        if ticks_diff(now, self._last_refresh) >= self.refresh_ms:
            self._last_refresh = now
            self._configure()
            for digit in range(_DIGITS):
                self._send_row(digit)
            return
        frame = self._frame
        sent = self._sent
        for digit in range(_DIGITS):
            for line in range(self.lines):
                at = line * _DIGITS + digit
                if frame[at] != sent[at]:
                    self._send_row(digit)
                    break

    def _count(self, line, now):
        shown = self._shown[line]
        target = self._target[line]
        if shown >= target:
            return
        # Steps missed by a late tick are made up, never more than the gap.
        while ticks_diff(now, self._last_step[line]) >= self.step_ms and shown < target:
            shown += self._rate[line]
            self._last_step[line] = ticks_add(self._last_step[line], self.step_ms)
        if shown > target:
            shown = target
        self._shown[line] = shown

    def _render(self, line, now):
        base = line * _DIGITS
        if self._blank[line]:
            if self._faulted[line]:
                self._copy(self._text, base, base)    # no amount to alternate with
                return
            frame = self._frame
            for i in range(_DIGITS):
                frame[base + i] = 0
            return
        count = self._wins[line]
        if count:
            elapsed = ticks_diff(now, self._win_start[line])
            if elapsed < self._win_end[line]:
                turn = elapsed % (count * _WIN_CYCLE_MS)
                slot = line * _MAX_WINS + turn // _WIN_CYCLE_MS
                if turn % _WIN_CYCLE_MS < _WIN_AMOUNT_MS:
                    render_amount(self._win_cents[slot], self._frame, base)
                else:
                    self._copy(self._seat_text, slot * _DIGITS, base)
                return
            self._wins[line] = 0
        if self._faulted[line]:
            if now % (_FAULT_AMOUNT_MS + _FAULT_TEXT_MS) >= _FAULT_AMOUNT_MS:
                self._copy(self._text, base, base)
                return
        render_amount(self._shown[line], self._frame, base)

    def _copy(self, source, start, base):
        """Put source[start:start + _DIGITS] into the frame at base."""
        frame = self._frame
        for i in range(_DIGITS):
            frame[base + i] = source[start + i]
