"""A fixed-size queue of small integer events, shared by the input drivers.

An event is one int: ``kind << 16 | detail`` with kind 1..127 and detail 0..65535 (a spot
number, a button number, a reject reason, a destination and card).  The queue is allocated once; pushing and
popping allocate nothing.  When full, the newest event is dropped and ``dropped`` counts it,
so a flood of input never grows memory or blocks the loop.

    ring = EventRing(32)
    ring.push(KIND, detail)
    event = ring.pop()          # -1 when empty
    kind, detail = event_kind(event), event_detail(event)
"""

from firmware.compat import const

EMPTY = const(-1)
_DETAIL_MASK = const(0xFFFF)
_KIND_SHIFT = const(16)


def make_event(kind, detail):
    """Pack kind (1..127) and detail (0..65535) into one event int."""
    return (kind << _KIND_SHIFT) | detail


def event_kind(event):
    """Kind of an event int."""
    return event >> _KIND_SHIFT


def event_detail(event):
    """Detail of an event int (spot, button, reason or card)."""
    return event & _DETAIL_MASK


class EventRing:
    """A ring buffer of event ints; ``push`` and ``pop`` never allocate."""

    def __init__(self, size):
        if not isinstance(size, int) or size < 1 or size > 1024:
            raise ValueError("event ring size must be an int 1..1024, got %r" % (size,))
        self._items = [0] * size
        self._size = size
        self._head = 0
        self._count = 0
        self.dropped = 0

    def push(self, kind, detail):
        """Queue an event; return False (and count it as dropped) when the ring is full."""
        if self._count == self._size:
            self.dropped += 1
            return False
        index = self._head + self._count
        if index >= self._size:
            index -= self._size
        self._items[index] = (kind << _KIND_SHIFT) | (detail & _DETAIL_MASK)
        self._count += 1
        return True

    def pop(self):
        """Remove and return the oldest event, or EMPTY (-1) if there is none."""
        if self._count == 0:
            return EMPTY
        event = self._items[self._head]
        self._head += 1
        if self._head == self._size:
            self._head = 0
        self._count -= 1
        return event

    def __len__(self):
        return self._count

    def clear(self):
        """Forget every queued event."""
        self._head = 0
        self._count = 0
