"""Bet-spot sensors: debounce, and chatter / stuck / bus fault detection.

The sensor bits come from any source (an MCP23017 read, or ``PinInputs`` over direct GPIO):
one int per scan, bit n set when spot n is covered by a chip.  ``scan`` turns that stream into
events; it never allocates.

    spots = SpotSensors(count=16)
    spots.scan(bits, now_ms)       # once per tick; bits = -1 means "the read failed"
    event = spots.events.pop()     # -1 when none; kind(event) in PLACED, REMOVED, FAULT, CLEARED
    spot = event_detail(event)     # which spot (0-based: bit number)
    spots.fault(spot)              # 0, or CHATTER / STUCK / BUS: why the spot is not counted
    spots.covered(spot)            # the debounced state (False while faulted)

Wiring on the reference board (MCP23017): GPA0..GPA6 are the jackpot spots of seats 1..7 and
GPB0..GPB6 their Ante spots, so ``jackpot_spot(seat)`` is bit seat-1 and ``ante_spot(seat)`` is
bit 8+seat-1; GPA7 and GPB7 are spare (pulled up, they never report).

Rules, with times in milliseconds (constructor arguments):

- debounce: a spot changes state only after its raw bit has held the new value for
  ``debounce_ms``; bounce while a chip settles produces no event.
- chatter: more than ``chatter_limit`` raw changes within ``chatter_window_ms`` puts the
  spot in fault CHATTER (event FAULT).  A faulted spot produces no PLACED/REMOVED events:
  it is reported, not counted.
- stuck: a spot covered without a break for ``stuck_ms`` goes to fault STUCK (a wager is
  never left on a spot that long; the default is 15 minutes).  While ``chips_stay`` is set
  (the round holds its wagers on their spots, from "No more bets" to the next round: a
  jackpot waiting for the supervisor may take longer) no spot goes STUCK; one covered that
  long goes STUCK as soon as ``chips_stay`` is unset.  A sensor stuck *uncovered* cannot be told from an
  empty spot here; the test mode (every sensor) finds it.
- bus: ``bus_fault_scans`` failed reads in a row put every spot in fault BUS.
- recovery: a faulted spot whose raw bit has been steady for ``recover_ms`` (and, for
  STUCK, is uncovered) is cleared (event CLEARED).  A covered spot is then reported PLACED
  again, even if it was covered before the fault: a consumer stops counting a faulted spot, so
  a chip that stayed put must be announced anew.  An uncovered spot last reported covered
  gets REMOVED.  A good read clears BUS faults the same way.
"""

from firmware.compat import const
from firmware.drivers.events import EventRing
from firmware.drivers.ticks import ticks_diff

# Event kinds.
PLACED = const(1)
REMOVED = const(2)
FAULT = const(3)
CLEARED = const(4)

# Fault reasons.
_NO_FAULT = const(0)
CHATTER = const(1)
STUCK = const(2)
BUS = const(3)

FAULT_NAMES = ("ok", "chatter", "stuck", "bus")

_MAX_SPOTS = const(16)
_ALL_BITS = const(0xFFFF)
ANTE_FIRST = const(8)


def jackpot_spot(seat):
    """Sensor bit of a seat's (1..7) jackpot spot on the reference wiring."""
    return seat - 1


def ante_spot(seat):
    """Sensor bit of a seat's (1..7) Ante spot on the reference wiring."""
    return ANTE_FIRST + seat - 1


class PinInputs:
    """Direct GPIO sensors: ``read()`` packs the given pins into one int (bit n = pins[n]).

    ``active_low`` (the default) makes a pin reading 0 a covered spot.
    """

    def __init__(self, pins, active_low=True):
        if not pins or len(pins) > _MAX_SPOTS:
            raise ValueError("PinInputs needs 1..%d pins, got %d" % (_MAX_SPOTS, len(pins) if pins else 0))
        self._pins = tuple(pins)
        self._invert = 1 if active_low else 0

    def read(self):
        """Return the covered bits of all pins."""
        bits = 0
        bit = 1
        invert = self._invert
        for pin in self._pins:
            if pin.value() ^ invert:
                bits |= bit
            bit <<= 1
        return bits


class SpotSensors:
    """Debounced spot states with fault detection for up to 16 spots."""

    def __init__(self, count=16, debounce_ms=40, chatter_limit=8, chatter_window_ms=1000,
                 stuck_ms=900000, recover_ms=3000, bus_fault_scans=3, queue=48):
        if not isinstance(count, int) or count < 1 or count > _MAX_SPOTS:
            raise ValueError("spot count must be 1..%d, got %r" % (_MAX_SPOTS, count))
        for name, value in (("debounce_ms", debounce_ms), ("chatter_limit", chatter_limit),
                            ("chatter_window_ms", chatter_window_ms), ("stuck_ms", stuck_ms),
                            ("recover_ms", recover_ms), ("bus_fault_scans", bus_fault_scans)):
            if not isinstance(value, int) or value < 1 or value >= 0x20000000:
                raise ValueError("%s must be a positive int, got %r" % (name, value))
        if stuck_ms <= debounce_ms or recover_ms <= debounce_ms:
            raise ValueError("stuck_ms and recover_ms must be longer than debounce_ms")
        self.count = count
        self.debounce_ms = debounce_ms
        self.chatter_limit = chatter_limit
        self.chatter_window_ms = chatter_window_ms
        self.stuck_ms = stuck_ms
        self.recover_ms = recover_ms
        self.bus_fault_scans = bus_fault_scans
        self.events = EventRing(queue)
        self._raw = 0            # last raw bits seen
        self._stable = 0         # debounced bits, as last reported
        self._raw_since = [0] * count     # when each raw bit last changed
        self._window_start = [0] * count  # start of each spot's chatter window
        self._changes = bytearray(count)  # raw changes in the current window (saturating)
        self._fault = bytearray(count)
        self._failed_reads = 0
        self._bus_down = False
        self._started = False
        self.chips_stay = False  # chips must stay on their spots now: none goes STUCK
        self.scans = 0

    def covered(self, spot):
        """True if the spot is debounced as covered and not faulted."""
        return bool(self._stable >> spot & 1) and self._fault[spot] == _NO_FAULT

    def fault(self, spot):
        """The spot's fault reason: 0 (no fault), CHATTER, STUCK or BUS."""
        return self._fault[spot]

    def covered_bits(self):
        """All debounced covered spots as one int (faulted spots left out)."""
        bits = self._stable
        for spot in range(self.count):
            if self._fault[spot]:
                bits &= ~(1 << spot)
        return bits

    def scan(self, bits, now):
        """Feed one scan (bits, or -1 for a failed read) taken at tick ``now``; queue events."""
        if bits < -1 or bits > _ALL_BITS:
            raise ValueError("sensor bits must be a 16-bit int or -1, got %r" % (bits,))
        self.scans = (self.scans + 1) & 0x3FFFFFFF    # a small int however long it runs
        if bits < 0:
            self._read_failed(now)
            return
        self._failed_reads = 0
        if not self._started:
            # The first good scan is the starting point, not a stream of changes.
            self._started = True
            self._raw = bits
            for spot in range(self.count):
                self._raw_since[spot] = now
                self._window_start[spot] = now
            return
        if self._bus_down:
            # Recovery from a bus fault counts from this first good read.
            self._bus_down = False
            for spot in range(self.count):
                if self._fault[spot] == BUS:
                    self._raw_since[spot] = now
        changed = bits ^ self._raw
        self._raw = bits
        fault = self._fault
        busy = bits | self._stable  # spots covered now or reported covered need a look
        for spot in range(self.count):
            if changed >> spot & 1:
                self._raw_changed(spot, now)
            if fault[spot] or busy >> spot & 1:
                self._settle(spot, now)

    def _raw_changed(self, spot, now):
        self._raw_since[spot] = now
        elapsed = ticks_diff(now, self._window_start[spot])
        # a window opened more than 2**29 ms ago (6.2 days: a seat left unused) reads as
        # negative: it is over too, not still counting the changes of the spot's last use
        if elapsed >= self.chatter_window_ms or elapsed < 0:
            self._window_start[spot] = now
            self._changes[spot] = 0
        if self._changes[spot] < 255:
            self._changes[spot] += 1
        if self._changes[spot] > self.chatter_limit and self._fault[spot] != CHATTER:
            self._set_fault(spot, CHATTER)

    def _settle(self, spot, now):
        bit = 1 << spot
        raw = self._raw & bit
        steady = ticks_diff(now, self._raw_since[spot])
        fault = self._fault[spot]
        if fault:
            if steady >= self.recover_ms and not (fault == STUCK and raw):
                self._fault[spot] = _NO_FAULT
                self._changes[spot] = 0
                self._window_start[spot] = now
                self.events.push(CLEARED, spot)
                if raw:
                    self._stable &= ~bit    # so that _report announces the chip again
                self._report(spot, raw)
            return
        if raw != (self._stable & bit) and steady >= self.debounce_ms:
            self._report(spot, raw)
        elif raw and steady >= self.stuck_ms and not self.chips_stay:
            self._set_fault(spot, STUCK)

    def _report(self, spot, raw):
        bit = 1 << spot
        if raw == (self._stable & bit):
            return
        if raw:
            self._stable |= bit
            self.events.push(PLACED, spot)
        else:
            self._stable &= ~bit
            self.events.push(REMOVED, spot)

    def _set_fault(self, spot, reason):
        self._fault[spot] = reason
        self.events.push(FAULT, spot)

    def _read_failed(self, now):
        if self._failed_reads >= self.bus_fault_scans:
            return      # faulted: not counted on (a small int however long the bus is out)
        self._failed_reads += 1
        if self._failed_reads != self.bus_fault_scans:
            return
        self._bus_down = True
        for spot in range(self.count):
            if self._fault[spot] != BUS:
                self._fault[spot] = BUS
                self.events.push(FAULT, spot)
