"""Exact shares of a wager: whole cents now, the fraction of a cent carried to the next one.

A share is ``ppm`` parts per million (config.RATE_UNIT) of an amount in cents.  The carry is
what is owed below one cent, in millionths of a cent, always 0 <= carry < RATE_UNIT.  After
any sequence of calls, ``credited * RATE_UNIT + carry == sum(amount * ppm)`` exactly, so no
fraction is ever lost.  A negative amount (a reversal) undoes a share exactly: floor
division and modulo follow the same rule on CPython and MicroPython.
"""

from firmware.compat import const
from firmware.jackpot.config import RATE_UNIT

_SPLIT = const(1000)  # RATE_UNIT == _SPLIT * _SPLIT


def share(amount, ppm, carry):
    """Return (whole cents, new carry) of amount * ppm / RATE_UNIT plus the carry owed.

    Exactly divmod(amount * ppm + carry, RATE_UNIT), computed in two halves of the ppm so
    every intermediate stays below 2**30 for |amount| up to 1,000,000 cents (no big ints on
    32-bit ports): amount * ppm = amount * high * 1000 + amount * low.
    """
    high = amount * (ppm // _SPLIT)
    whole = high // _SPLIT
    rest = (high % _SPLIT) * _SPLIT + amount * (ppm % _SPLIT) + carry
    return whole + rest // RATE_UNIT, rest % RATE_UNIT


def owed_cents(carries):
    """Whole cents held back for the carried fractions: ceil(sum(carries) / RATE_UNIT)."""
    total = 0
    for c in carries:
        total += c
    return (total + RATE_UNIT - 1) // RATE_UNIT


def percent_of(amount, percent):
    """floor(amount * percent / 100) without forming the large product."""
    return (amount // 100) * percent + ((amount % 100) * percent) // 100
