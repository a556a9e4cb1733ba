"""Millisecond tick arithmetic that survives wrap-around, without reading a clock.

Drivers are given ``now`` (a millisecond tick count, such as ``time.ticks_ms()`` on the
board or a plain counter in the simulator).  Tick counters wrap; MicroPython's period is
2**30 on 32-bit ports and a multiple of it elsewhere, so differences are taken modulo 2**30.
A difference is exact while the real interval is under 2**29 ms (about 6.2 days).
"""

from firmware.compat import const

_TICKS_PERIOD = const(0x40000000)
_TICKS_MASK = const(0x3FFFFFFF)
_TICKS_HALF = const(0x20000000)


def ticks_diff(later, earlier):
    """Signed milliseconds from ``earlier`` to ``later`` (negative if ``later`` is before)."""
    return ((later - earlier + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


def ticks_add(ticks, delta):
    """The tick count ``delta`` milliseconds after ``ticks`` (wrapped to the 2**30 period)."""
    return (ticks + delta) & _TICKS_MASK
