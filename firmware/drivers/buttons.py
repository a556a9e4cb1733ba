"""The dealer panel: six push buttons, the supervisor key switch and the logic-door switch.

Every input is a pin object with ``value()`` (machine.Pin with a pull-up, or a fake), wired
active low: pressed / key turned / door open reads 0.  ``poll`` is called every tick with the
current millisecond tick and queues edges as events; it allocates nothing.

    panel = Panel((lock, settle, up, down, ok, back), key=key_pin, door=door_pin)
    panel.poll(now_ms)
    event = panel.events.pop()       # -1 when none
    event_kind(event)                # PRESS, LONG, REPEAT, RELEASE, KEY_ON, KEY_OFF, DOOR_OPEN,
                                     # DOOR_CLOSED
    event_detail(event)              # the button: LOCK, SETTLE, UP, DOWN, OK, BACK (0..5)
    panel.is_down(OK); panel.key_on(); panel.door_open()

Debounce: an input changes state only after its pin has held the new level for
``debounce_ms`` (contact bounce inside that time is ignored), so each real press gives
exactly one PRESS however hard the button is mashed, and never one for a bounce.  A short
press is PRESS then RELEASE; a button held for ``long_ms`` gives PRESS, one LONG, then
RELEASE when let go.  So a PRESS does not yet say whether the press is short or long: a
button with a long meaning must wait for its LONG (long) or a RELEASE with no LONG (short),
as the round controller does (firmware/table/controller.py RoundController.panel).
UP and DOWN (``repeat_buttons``) keep going after their LONG: one REPEAT every
``repeat_ms`` while held, for scrolling through menus and values.
The key switch and the door use a longer ``switch_ms`` debounce.  States at construction
are taken as the starting point (a key already on at boot gives no KEY_ON; ask ``key_on``).
"""

from firmware.compat import const
from firmware.drivers.events import EventRing
from firmware.drivers.ticks import ticks_add, ticks_diff

# Buttons, in the order their pins are given.
LOCK = const(0)
SETTLE = const(1)
UP = const(2)
DOWN = const(3)
OK = const(4)
BACK = const(5)
BUTTON_NAMES = ("LOCK", "SETTLE", "UP", "DOWN", "OK", "BACK")
_BUTTON_COUNT = const(6)
# The two switches are tracked as inputs 6 and 7.
_KEY = const(6)
_DOOR = const(7)
_INPUTS = const(8)

# Event kinds.
PRESS = const(1)
LONG = const(2)
RELEASE = const(3)
KEY_ON = const(4)
KEY_OFF = const(5)
DOOR_OPEN = const(6)
DOOR_CLOSED = const(7)
REPEAT = const(8)
EVENT_NAMES = ("", "PRESS", "LONG", "RELEASE", "KEY_ON", "KEY_OFF", "DOOR_OPEN", "DOOR_CLOSED",
               "REPEAT")
_BUTTON_MASK = const(0x3F)


class Panel:
    """Debounced dealer buttons, key switch and door switch, as events."""

    def __init__(self, buttons, key, door, now=0, debounce_ms=30, long_ms=1000, switch_ms=100,
                 repeat_ms=150, repeat_buttons=(UP, DOWN), queue=32):
        if len(buttons) != _BUTTON_COUNT:
            raise ValueError("the panel needs %d button pins (LOCK SETTLE UP DOWN OK BACK), got %d"
                             % (_BUTTON_COUNT, len(buttons)))
        for name, value in (("debounce_ms", debounce_ms), ("long_ms", long_ms), ("switch_ms", switch_ms),
                            ("repeat_ms", repeat_ms)):
            if not isinstance(value, int) or value < 1 or value >= 0x20000000:
                raise ValueError("%s must be a positive int, got %r" % (name, value))
        if long_ms <= debounce_ms:
            raise ValueError("long_ms (%d) must be longer than debounce_ms (%d)" % (long_ms, debounce_ms))
        self._repeat_mask = 0
        for button in repeat_buttons:
            if not isinstance(button, int) or button < 0 or button >= _BUTTON_COUNT:
                raise ValueError("repeat_buttons must be button numbers 0..5, got %r" % (button,))
            self._repeat_mask |= 1 << button
        self._pins = tuple(buttons) + (key, door)
        self.repeat_ms = repeat_ms
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.switch_ms = switch_ms
        self.events = EventRing(queue)
        self._state = 0                 # debounced: bit n set = input n active (pressed/on/open)
        self._raw = 0
        self._since = [now] * _INPUTS   # when each raw level last changed
        self._pressed_at = [now] * _BUTTON_COUNT
        self._next_repeat = [now] * _BUTTON_COUNT
        self._long_sent = 0             # bit n: LONG already sent for this press
        bits = self._sample()
        self._raw = bits
        self._state = bits
        self._long_sent = bits & _BUTTON_MASK   # a button held at boot gives no LONG
        self._held_at_boot = bits & _BUTTON_MASK

    def _sample(self):
        bits = 0
        bit = 1
        for pin in self._pins:
            if not pin.value():
                bits |= bit
            bit <<= 1
        return bits

    def poll(self, now):
        """Sample every input at tick ``now`` and queue the edges."""
        bits = self._sample()
        changed = bits ^ self._raw
        self._raw = bits
        held = self._state & _BUTTON_MASK
        pending = (changed | (bits ^ self._state) | (held & ~self._long_sent)
                   | (held & self._repeat_mask & ~self._held_at_boot))
        if not pending:
            return
        for n in range(_INPUTS):
            bit = 1 << n
            if changed & bit:
                self._since[n] = now
            if (bits ^ self._state) & bit:
                hold = self.debounce_ms if n < _BUTTON_COUNT else self.switch_ms
                if ticks_diff(now, self._since[n]) >= hold:
                    self._state ^= bit
                    self._edge(n, bits & bit, now)
            elif n < _BUTTON_COUNT and self._state & bit:
                if not self._long_sent & bit:
                    if ticks_diff(now, self._pressed_at[n]) >= self.long_ms:
                        self._long_sent |= bit
                        self._next_repeat[n] = ticks_add(now, self.repeat_ms)
                        self.events.push(LONG, n)
                elif self._repeat_mask & bit and not self._held_at_boot & bit:
                    if ticks_diff(now, self._next_repeat[n]) >= 0:
                        due = ticks_add(self._next_repeat[n], self.repeat_ms)
                        # after a slow loop pass: one REPEAT, then at the pace again, never
                        # the missed ones in a burst (a value scrolled many steps at once)
                        if ticks_diff(now, due) >= 0:
                            due = ticks_add(now, self.repeat_ms)
                        self._next_repeat[n] = due
                        self.events.push(REPEAT, n)

    def _edge(self, n, active, now):
        if n < _BUTTON_COUNT:
            if active:
                self._pressed_at[n] = self._since[n]
                self._long_sent &= ~(1 << n)
                self.events.push(PRESS, n)
            else:
                self._held_at_boot &= ~(1 << n)
                self.events.push(RELEASE, n)
        elif n == _KEY:
            self.events.push(KEY_ON if active else KEY_OFF, 0)
        else:
            self.events.push(DOOR_OPEN if active else DOOR_CLOSED, 0)

    def is_down(self, button):
        """True while the button is (debounced) pressed."""
        return bool(self._state >> button & 1)

    def key_on(self):
        """True while the supervisor key switch is turned on."""
        return bool(self._state >> _KEY & 1)

    def door_open(self):
        """True while the logic door is open."""
        return bool(self._state >> _DOOR & 1)
