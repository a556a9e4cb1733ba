"""Order and amounts of the jackpot payouts of one round inside one pool [rules.md 11.10, 11.6D].

Pure planning: nothing here changes a pool.  The order is rules.md 11.10:

1. every four of a kind, full house and flush at fixed odds, deducted from the pool;
2. every straight flush gets the greater of its odds or its percent of the pool left after 1;
3. every royal flush gets the greater of its odds or an equal share of its percent of the
   pool left after 2.

The pool never goes negative (Decision: shortfall): a payout larger than what is left is paid
in full and the difference is recorded as operator-funded.  Winners of one step are paid in
the order given (the dealing order).
"""

from firmware.compat import const
from firmware.jackpot import paytable
from firmware.jackpot.carry import percent_of

# Fields of a planned payout (a list, so the round controller and the log read them by name).
SEAT = const(0)
HAND = const(1)
AMOUNT = const(2)
_FROM_POOL = const(3)
SHORTFALL = const(4)
BEFORE = const(5)
AFTER = const(6)
_PAYOUT_FIELDS = const(7)


def _pay(out, seat, hand, amount, left):
    from_pool = amount if amount <= left else left
    out.append([seat, hand, amount, from_pool, amount - from_pool, left, left - from_pool])
    return left - from_pool


def plan_pool(value, winners, wager, odds, percent):
    """Plan the payouts of one pool.

    value: the pool in cents; winners: list of (seat, hand type) paid by this pool, in dealing
    order; wager: the jackpot wager in cents; odds, percent: per hand type (rules.md 11.9).
    Returns (payouts, value left, royal paid?) with each payout a list
    [seat, hand, amount, from pool, shortfall, pool before, pool after].
    """
    out = []
    left = value
    for seat, hand in winners:
        if hand < paytable.STRAIGHT_FLUSH:
            left = _pay(out, seat, hand, odds[hand] * wager, left)
    base = left
    for seat, hand in winners:
        if hand == paytable.STRAIGHT_FLUSH:
            amount = odds[hand] * wager
            share = percent_of(base, percent[hand])
            left = _pay(out, seat, hand, share if share > amount else amount, left)
    royals = 0
    for winner in winners:
        if winner[1] == paytable.ROYAL_FLUSH:
            royals += 1
    if royals:
        base = left
        share = percent_of(base, percent[paytable.ROYAL_FLUSH]) // royals
        amount = odds[paytable.ROYAL_FLUSH] * wager
        for seat, hand in winners:
            if hand == paytable.ROYAL_FLUSH:
                left = _pay(out, seat, hand, share if share > amount else amount, left)
    return out, left, royals > 0
