"""Meter layouts: per-pool meters, lifetime table meters and the last jackpot hits (their
names for people are in firmware.jackpot.meternames).

Meters are lists of non-negative ints indexed by the constants below; ``*_COUNT + hand`` and
``*_AMOUNT + hand`` are per jackpot hand type (paytable.FLUSH .. ROYAL_FLUSH).  Gross meters
only grow; a void is recorded on its own meters (VOIDS, REVERSED...), never by decrementing.

Pool equations (checked on decode and by the property tests), all in cents::

    PAID    = HIT_AMOUNT (every hand type) + ENVY_AMOUNT
    HITS    = HIT_COUNT (every hand type)

PAID is what the players were paid; CUT (the shortfall option "cut") is what the pay table
gave above what the pool held, not paid and not in PAID.

    value   = ADDITIONS + RESERVE_FUNDED + CONTRIB - REVERSED - (OVERFLOW - OVERFLOW_REVERSED)
              - (PAID - SHORTFALL) + MOVED_IN - MOVED_OUT
    reserve = RESERVE_CONTRIB - RESERVE_REVERSED + (OVERFLOW - OVERFLOW_REVERSED)
              - RESERVE_FUNDED + RESERVE_MOVED_IN - RESERVE_MOVED_OUT
"""

from firmware.compat import const

# Per pool.
WAGERS = const(0)             # jackpot wagers accepted (count)
WAGERED = const(1)            # jackpot wagers accepted (cents)
VOIDS = const(2)              # wagers voided and returned (count)
VOIDED = const(3)             # wagers voided and returned (cents)
CONTRIB = const(4)            # pool increments from wagers
REVERSED = const(5)           # pool increments reversed by voids
RESERVE_CONTRIB = const(6)    # hidden reserve increments from wagers
RESERVE_REVERSED = const(7)   # reserve increments reversed by voids
OVERFLOW = const(8)           # moved from the pool to the reserve above the ceiling
OVERFLOW_REVERSED = const(9)  # overflow taken back by voids
ADDITIONS = const(10)         # operator additions (reset money and manual additions)
RESERVE_FUNDED = const(11)    # reset money taken from the reserve
PAID = const(12)              # jackpot awards paid (cents, shortfall included)
SHORTFALL = const(13)         # part of PAID the pool could not cover: operator-funded
MOVED_IN = const(14)          # pool value moved in by a merge or split
MOVED_OUT = const(15)
RESERVE_MOVED_IN = const(16)
RESERVE_MOVED_OUT = const(17)
RESETS = const(18)            # resets after a royal or an emptied pool
HITS = const(19)              # awards paid (count)
HIT_COUNT = const(20)         # + hand type: awards paid per hand (count)
HIT_AMOUNT = const(25)        # + hand type: awards paid per hand (cents)
ENVY_COUNT = const(30)        # envy bonuses paid (count of seats paid; not in HITS)
ENVY_AMOUNT = const(31)       # envy bonuses paid (cents; in PAID)
CUT = const(32)               # not paid: what the pay table gave above what the pool held,
                              # with the shortfall option "cut" (not in PAID)
POOL_METERS = const(33)       # (the jackpot state's version 1 had 30: no envy meters; 2: 32)


# Lifetime table meters.
T_ROUNDS = const(0)               # rounds with jackpot wagers contributed
T_WAGERS = const(1)
T_WAGERED = const(2)
T_VOIDS = const(3)
T_VOIDED = const(4)
T_RETENTION = const(5)            # operator retention (whole cents)
T_RETENTION_REVERSED = const(6)
T_ADDITIONS = const(7)            # operator additions, all pools
T_PAID = const(8)
T_SHORTFALL = const(9)
T_HITS = const(10)
T_COLLECTED = const(11)           # jackpot wagers collected after the payout [11.12]
T_RESETS = const(12)
T_CONFIG_CHANGES = const(13)      # configuration requests that changed something (not keys)
T_HIT_COUNT = const(14)           # + hand type
T_HIT_AMOUNT = const(19)          # + hand type
T_ENVY_COUNT = const(24)
T_ENVY_AMOUNT = const(25)
T_CUT = const(26)
TABLE_METERS = const(27)      # (version 1: 24; 2: 26)


# A recorded jackpot hit is a list of HIT_FIELDS ints.
H_TIME = const(0)
H_ROUND = const(1)
H_SEAT = const(2)
H_HAND = const(3)
H_POOL = const(4)
H_CARDS = const(5)        # five card ints: hole, hole, flop, flop, flop
H_AMOUNT = const(10)
H_SHORTFALL = const(11)
H_BEFORE = const(12)
H_AFTER = const(13)
H_ENVY_SEATS = const(14)  # the seats paid the envy bonus for this hand (bit 0 = seat 1)
H_ENVY_EACH = const(15)   # each one's bonus (cents; 0 with no seats)
H_ENVY_SHORTFALL = const(16)  # the part of the bonuses the pool could not cover
H_CUT = const(17)         # shortfall "cut": the hand's pay-table award less what was paid
H_ENVY_CUT = const(18)    # the same for all of its envy bonuses
HIT_FIELDS = const(19)    # (version 1: 14; 2: 17)
LAST_HITS = const(25)


def pool_value_from_meters(m):
    """Pool value that the pool meters m account for."""
    return (m[ADDITIONS] + m[RESERVE_FUNDED] + m[CONTRIB] - m[REVERSED]
            - (m[OVERFLOW] - m[OVERFLOW_REVERSED]) - (m[PAID] - m[SHORTFALL])
            + m[MOVED_IN] - m[MOVED_OUT])


def reserve_from_meters(m):
    """Reserve balance that the pool meters m account for."""
    return (m[RESERVE_CONTRIB] - m[RESERVE_REVERSED] + m[OVERFLOW] - m[OVERFLOW_REVERSED]
            - m[RESERVE_FUNDED] + m[RESERVE_MOVED_IN] - m[RESERVE_MOVED_OUT])
