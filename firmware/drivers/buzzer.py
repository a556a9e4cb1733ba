"""Piezo buzzer on a PWM pin: beep patterns played from the loop tick.

    buzzer = Buzzer(pwm)                # machine.PWM (or a fake) with freq() and duty_u16()
    buzzer.play(ACCEPT, now_ms)         # start a pattern (replaces the one playing)
    buzzer.tick(now_ms)                 # every loop tick: advances the pattern, allocates nothing
    buzzer.busy()                       # True while a pattern plays

A pattern is a tuple of (frequency_hz, duration_ms) pairs flattened into one tuple; frequency
0 is a silent gap.  ``repeat=True`` loops it until ``stop``.  The tone is square at half duty.
Timing is as good as the tick: a 20 ms tick gives beeps to within 20 ms.
"""

from firmware.compat import const
from firmware.drivers.ticks import ticks_add, ticks_diff

_HALF_DUTY = const(32768)
_MIN_FREQ = const(20)
_MAX_FREQ = const(20000)

# Patterns: (freq_hz, ms, freq_hz, ms, ...).
CLICK = (3000, 15)
ACCEPT = (2500, 60)
LOCKED = (2000, 80, 0, 60, 2000, 80)
ERROR = (400, 300)
LATE_BET = (1500, 100, 0, 100, 1500, 100, 0, 100, 1500, 100)
WINNER = (1800, 120, 2200, 120, 2700, 120, 3300, 300)
JACKPOT = (2000, 150, 2600, 150, 3300, 150, 0, 100)
TAMPER = (3500, 200, 0, 200, 3500, 200, 0, 200, 3500, 200, 0, 200)     # three: an alarm


def check_pattern(pattern):
    """Raise ValueError unless pattern is a non-empty flat tuple of (freq, ms) pairs."""
    if not isinstance(pattern, tuple) or not pattern or len(pattern) % 2:
        raise ValueError("a beep pattern is a flat tuple of (freq_hz, ms) pairs, got %r" % (pattern,))
    for i in range(0, len(pattern), 2):
        freq, ms = pattern[i], pattern[i + 1]
        if not isinstance(freq, int) or (freq != 0 and (freq < _MIN_FREQ or freq > _MAX_FREQ)):
            raise ValueError("beep frequency must be 0 or %d..%d Hz, got %r" % (_MIN_FREQ, _MAX_FREQ, freq))
        if not isinstance(ms, int) or ms < 1 or ms > 60000:
            raise ValueError("beep duration must be 1..60000 ms, got %r" % (ms,))


class Buzzer:
    """Plays beep patterns on an injected PWM object."""

    def __init__(self, pwm):
        self._pwm = pwm
        self._pattern = None
        self._index = 0
        self._step_start = 0
        self._repeat = False
        self._sounding = False
        pwm.duty_u16(0)

    def play(self, pattern, now, repeat=False):
        """Start pattern at tick now (ValueError for a malformed pattern; nothing changes then)."""
        check_pattern(pattern)
        self._pattern = pattern
        self._repeat = repeat
        self._start_step(0, now)

    def stop(self):
        """Silence the buzzer and forget the pattern."""
        self._pattern = None
        self._silence()

    def busy(self):
        """True while a pattern is playing."""
        return self._pattern is not None

    def tick(self, now):
        """Advance the pattern to tick now."""
        pattern = self._pattern
        if pattern is None:
            return
        # Catch up over steps shorter than the tick, but never loop forever on a late call.
        for _ in range(len(pattern) // 2 + 1):
            if ticks_diff(now, self._step_start) < pattern[self._index + 1]:
                return
            start = ticks_add(self._step_start, pattern[self._index + 1])
            index = self._index + 2
            if index >= len(pattern):
                if not self._repeat:
                    self.stop()
                    return
                index = 0
            self._start_step(index, start)

    def _start_step(self, index, start):
        self._index = index
        self._step_start = start
        freq = self._pattern[index]
        if freq:
            self._pwm.freq(freq)
            self._pwm.duty_u16(_HALF_DUTY)
            self._sounding = True
        else:
            self._silence()

    def _silence(self):
        self._pwm.duty_u16(0)
        self._sounding = False
