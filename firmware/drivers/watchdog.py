"""Hardware watchdog that is fed only while the main loop proves it is healthy.

    dog = Watchdog(machine.WDT(timeout=2000), required=SENSORS | STORE | DISPLAY)
    dog.check_in(SENSORS)      # each part of the loop checks in when its work succeeded
    dog.tick()                 # once per loop pass: feeds only if every required part checked in
    dog.stop_feeding()         # a fatal fault: let the watchdog reset the board
    dog.feed_halted()          # a table halted for good (firmware.app) feeds it, doing nothing else

The wrapped object needs only ``feed()`` (machine.WDT, or a fake).  Passing ``None`` gives a
watchdog that counts but feeds nothing (the simulator, or a board without a WDT).  A pass
where a required part did not check in is a miss; the checks are cleared after every tick, so
a part that stops working stops the feeding within one pass, and the real WDT resets the
board after its timeout.  Nothing here allocates.  The reset cause itself is read by the board
module (``machine.reset_cause()``) and logged by the app at boot; ``reset_cause_text`` names it
from the board's table of ``machine`` constants.
"""

from firmware.compat import const

# Check-in bits for the parts of the loop (the app may define more, up to bit 29).
SENSORS = const(1)
PANEL = const(2)
STORE = const(4)
DISPLAY = const(8)
_SHOE = const(16)
LINK = const(32)
CONTROLLER = const(64)


class Watchdog:
    """Feeds the injected WDT only when every required check-in bit was set since the last tick."""

    def __init__(self, wdt, required=CONTROLLER):
        if not isinstance(required, int) or required <= 0 or required >= 0x40000000:
            raise ValueError("required check-ins must be a non-empty bit mask, got %r" % (required,))
        self._wdt = wdt
        self.required = required
        self._seen = 0
        self._stopped = False
        self.feeds = 0
        self.misses = 0
        self.last_missing = 0

    def check_in(self, bits):
        """Record that the parts in bits did their work this pass."""
        self._seen |= bits

    def tick(self):
        """Feed the WDT if the pass was healthy; return True if it was fed."""
        missing = self.required & ~self._seen
        self._seen = 0
        if missing or self._stopped:
            self.misses = (self.misses + 1) & 0x3FFFFFFF
            self.last_missing = missing
            return False
        if self._wdt is not None:
            self._wdt.feed()
        self.feeds = (self.feeds + 1) & 0x3FFFFFFF    # counted every pass: kept a small int
        return True

    def stop_feeding(self):
        """Never feed again: the hardware watchdog will reset the board."""
        self._stopped = True

    def feed_halted(self):
        """Feed the WDT without any check-in: only the halt loop of a table stopped for good
        (firmware.app), which does nothing else, calls it; a board keeps no reset loop going."""
        if self._wdt is not None:
            self._wdt.feed()


def reset_cause_text(cause, names):
    """Name a machine.reset_cause() value using names, the board's {code: "name"} table.

    An unknown code is named with its number, so the boot log always says something.
    """
    name = names.get(cause)
    if name is None:
        return "unknown reset cause %r" % (cause,)
    return name
