"""Order and amounts of the jackpot payouts of one round inside one pool [rules.md 11.10, 11.6D].

Pure planning: nothing here changes a pool.  The order is rules.md 11.10:

1. every four of a kind, full house and flush at fixed odds, deducted from the pool;
2. every straight flush gets the greater of its odds or its percent of the pool left after 1;
3. every royal flush gets the greater of its odds or an equal share of its percent of the
   pool left after 2;
4. (operator option, docs/jackpot.md) for each of these hands whose type has an envy bonus,
   every other seat that played with a jackpot wager gets the bonus from what is left, so an
   envy bonus never lowers a winner's share.

The pool never goes negative (Decision: shortfall): a payout larger than what is left is paid
in full and the difference is recorded as operator-funded; with the shortfall option "cut" it
is paid what is left, and the difference recorded as cut (not paid).  An envy bonus the pool
cannot pay to all its seats is then shared equally among them (whole cents, the rest stays
in the pool).  Winners of one step are paid in the order given (the dealing order).
"""

from firmware.compat import const
from firmware.jackpot import meters as m
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
FROM = const(7)               # an envy bonus: the seat whose hand paid it (0: its own hand)
CUT = const(8)                # what the pay table gave above what was paid (option "cut")


def _pay(out, seat, hand, amount, left, envy_for=0, cut=False):
    from_pool = amount if amount <= left else left
    paid = from_pool if cut else amount
    out.append([seat, hand, paid, from_pool, paid - from_pool, left, left - from_pool,
                envy_for, amount - paid])
    return left - from_pool


def plan_pool(value, winners, wager, odds, percent, envy=None, players=(), cut=False):
    """Plan the payouts of one pool.

    value: the pool in cents; winners: list of (seat, hand type) paid by this pool, in dealing
    order; wager: the jackpot wager in cents; odds, percent: per hand type (rules.md 11.9);
    envy: the envy bonus in cents per hand type (None: none), paid to each seat of players
    (the seats that played with a jackpot wager, in dealing order) other than the winner's;
    cut: the shortfall option "cut" (pay what the pool holds, else "operator").
    Returns (payouts, value left, royal paid?) with each payout a list
    [seat, hand, amount paid, from pool, shortfall, pool before, pool after, from seat, cut].
    """
    out = []
    left = value
    for seat, hand in winners:
        if hand < paytable.STRAIGHT_FLUSH:
            left = _pay(out, seat, hand, odds[hand] * wager, left, 0, cut)
    base = left
    for seat, hand in winners:
        if hand == paytable.STRAIGHT_FLUSH:
            amount = odds[hand] * wager
            share = percent_of(base, percent[hand])
            left = _pay(out, seat, hand, share if share > amount else amount, left, 0, cut)
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
                left = _pay(out, seat, hand, share if share > amount else amount, left, 0, cut)
    if envy is not None:
        for step in range(len(out)):
            winner, hand = out[step][SEAT], out[step][HAND]
            bonus = envy[hand]
            if bonus:
                others = [seat for seat in players if seat != winner]
                each = bonus
                if cut and bonus * len(others) > left:
                    each = left // len(others)      # what the pool holds, shared equally
                for seat in others:
                    left = _pay(out, seat, hand, each, left, winner)
                    out[-1][CUT] = bonus - each
    return out, left, royals > 0


def hit_records(time, round_no, slot, payouts, five_of):
    """The planned payouts of pool `slot` as recorded hits (meters.H_* fields), one for each
    jackpot hand, with its five jackpot cards (five_of: seat -> cards) and the envy bonuses
    it paid (seats paid, each one's bonus, the part the pool could not cover, the part cut)."""
    records = []
    by_seat = {}
    for p in payouts:
        winner = p[FROM]
        if winner:
            record = by_seat[winner]
            if p[AMOUNT]:               # a bonus cut to nothing pays no seat
                record[m.H_ENVY_SEATS] |= 1 << (p[SEAT] - 1)
                record[m.H_ENVY_EACH] = p[AMOUNT]
            record[m.H_ENVY_SHORTFALL] += p[SHORTFALL]
            record[m.H_ENVY_CUT] += p[CUT]
            continue
        record = [time, round_no, p[SEAT], p[HAND], slot]
        record.extend(five_of[p[SEAT]])
        record.extend([p[AMOUNT], p[SHORTFALL], p[BEFORE], p[AFTER], 0, 0, 0, p[CUT], 0])
        by_seat[p[SEAT]] = record
        records.append(record)
    return records
