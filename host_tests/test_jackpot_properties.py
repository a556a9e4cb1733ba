"""Property tests: long random sequences of rounds, voids, hits, operator additions and
configuration changes keep the books exact to the cent.

The oracle is an independent model kept by this test with exact fractions
(``fractions.Fraction``): every wager times the share rates in force when it was taken,
every operator addition and every payout the table reported.  After every step:

- money:  sum of pools and reserves == additions + whole cents of the exact shares
          - what the pools paid (payouts less shortfall)                        [11.6, Decision]
- carry:  wagers == pool and reserve increments + retention + carried cents, and the
          retention is exactly floor(wagers - exact shares): no fraction is lost
- meters: every pool and table meter equation (Jackpot.audit)
- bytes:  decode(encode(state)) encodes to the same bytes
- a whole-round void restores pools, reserves and carries exactly              [rules.md 5]
"""

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot import paytable, record
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards

UNIT = 1_000_000

# Deals with many jackpot hands: (flop, hole cards of seats 1..7).
PRESET_DEALS = [
    ("Qh Jh Th", ["Ah Kh", "9h 8h", "2h 3h", "Kd 9c", "4h 5h", "2c 2d", "Ac Ad"]),
    ("9h 9s 2d", ["9c 9d", "2c 2s", "Ah Ad", "Kh Kd", "2h Qs", "3c 4c", "5d 6d"]),
    ("5s 4s 3s", ["As 2s", "7s 6s", "Ks Qs", "5c 5d", "Jd Td", "8s 9h", "2c 6h"]),
    ("Kc Kd Ks", ["Kh 2c", "Ac Ad", "3c 3d", "Qc Jc", "4h 5h", "6h 7h", "8h 9h"]),
]


def deal(index):
    """Flop and seven hole-card pairs: a preset with hits, or a shuffled deck."""
    if index % 3 == 0:
        flop, holes = PRESET_DEALS[(index // 3) % len(PRESET_DEALS)]
        return cards.parse(flop), [cards.parse(h) for h in holes]
    deck = list(range(52))
    random.Random(index).shuffle(deck)
    return deck[:3], [deck[3 + 2 * i:5 + 2 * i] for i in range(7)]


def seats_of(mask):
    return [s for s in range(1, 8) if mask & (1 << (s - 1))]


class Model:
    """What the books must say, kept with exact fractions outside the code under test."""

    def __init__(self, jp):
        self.wagers = 0
        self.exact = Fraction(0)
        self.additions = sum(jp.value)   # the RAM clear seeds
        self.paid_from_pools = 0
        self.steps = 0

    def share_rate(self, jp):
        total = Fraction(0)
        for slot in jp.active_slots():
            p = jp.config.pools[slot]
            total += Fraction(p.rate[0], p.rate[1]) + Fraction(p.reserve_rate[0], p.reserve_rate[1])
        return total

    def check(self, jp):
        self.steps += 1
        carries = sum(jp.carry) + sum(jp.reserve_carry)
        for c in jp.carry + jp.reserve_carry:
            assert 0 <= c < UNIT
        credited = self.exact - Fraction(carries, UNIT)
        assert credited.denominator == 1, "whole cents credited must be an integer"
        credited = int(credited)
        money = sum(jp.value) + sum(jp.reserve)
        assert money == self.additions + credited - self.paid_from_pools
        t = jp.table_meters()
        retention = t["retention"] - t["retention_reversed"]
        carried = -(-carries // UNIT)
        assert self.wagers == credited + retention + carried
        assert retention == (self.wagers - self.exact).__floor__()
        assert t["wagered"] - t["voided"] == self.wagers
        for slot in range(3):
            assert jp.value[slot] >= 0 and jp.reserve[slot] >= 0
            ceiling = jp.config.pools[slot].ceiling
            if ceiling and slot in jp.active_slots():
                assert jp.value[slot] <= ceiling
        assert jp.audit() == []
        data = record.encode(jp)
        assert record.encode(record.decode(data)) == data


def state_of(jp):
    return (list(jp.value), list(jp.reserve), list(jp.carry), list(jp.reserve_carry))


def play_round(jp, model, round_no, mask, deal_index, played_bits, void_kind, time):
    model.wagers += len(seats_of(mask)) * jp.config.wager
    model.exact += len(seats_of(mask)) * jp.config.wager * model.share_rate(jp)
    before = state_of(jp)
    jp.contribute(round_no, seats_of(mask))
    model.check(jp)
    wager = jp.open_wager
    rate = model.share_rate(jp)
    if void_kind == 1:
        jp.void_round(round_no)
        model.wagers -= len(seats_of(mask)) * wager
        model.exact -= len(seats_of(mask)) * wager * rate
        assert state_of(jp) == before
        model.check(jp)
        return
    if void_kind == 2 and mask:
        seat = seats_of(mask)[0]
        jp.void_seat(round_no, seat)
        model.wagers -= wager
        model.exact -= wager * rate
        mask &= ~(1 << (seat - 1))
        model.check(jp)
    flop, holes = deal(deal_index)
    hands = [(s, holes[s - 1], bool(played_bits & (1 << s))) for s in seats_of(mask)]
    s = jp.settle(round_no, time, flop, hands)
    for h in s.hits:
        model.paid_from_pools += h[m.H_AMOUNT] - h[m.H_SHORTFALL]
    for reset in s.resets:
        model.additions += reset[2]
    assert s.collected == len(seats_of(mask)) * wager
    model.check(jp)


rates = st.tuples(st.sampled_from([1, 2, 10, 100, 1000, 8, 1_000_000]), st.integers(0, 1_000_000)).map(
    lambda t: (t[1] % (t[0] + 1), t[0]))
pool_changes = st.fixed_dictionaries({}, optional={
    "rate": rates, "reserve_rate": rates,
    "reset": st.sampled_from([0, 1, 999, 5_000, 100_000, 1_000_000]),
    "ceiling": st.sampled_from([0, 1000, 50_000, 1_000_010, 3_000_000]),
})
config_changes = st.fixed_dictionaries({}, optional={
    "wager": st.sampled_from([1, 3, 5, 100, 500, 1000]),
    "split": st.booleans(),
    "main": pool_changes, "minor": pool_changes, "major": pool_changes,
})
steps = st.lists(st.one_of(
    st.tuples(st.just("round"), st.integers(0, 127), st.integers(0, 200), st.integers(0, 255),
              st.sampled_from([0, 0, 0, 1, 2])),
    st.tuples(st.just("add"), st.integers(0, 2), st.integers(1, 300_000)),
    st.tuples(st.just("config"), config_changes),
), min_size=1, max_size=80)


def run_steps(jp, ops):
    model = Model(jp)
    model.check(jp)
    round_no = 0
    time = 1_000
    for op in ops:
        time += 37
        if op[0] == "round":
            round_no += 1
            play_round(jp, model, round_no, op[1], op[2], op[3], op[4], time)
        elif op[0] == "add":
            before = record.encode(jp)
            try:
                jp.add(op[1], op[2])
                model.additions += op[2]
            except ValueError:
                assert record.encode(jp) == before
            model.check(jp)
        else:
            before = record.encode(jp)
            try:
                change = jp.set_config(op[1])
                for start in change.starts:
                    model.additions += start[2]
            except ValueError:
                assert record.encode(jp) == before
            model.check(jp)
    return model


def start_table(start):
    try:
        return Jackpot(start)
    except ValueError:
        return Jackpot()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=config_changes, ops=steps)
def test_books_balance_over_random_sequences(start, ops):
    run_steps(start_table(start), ops)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=config_changes, ops=steps)
def test_books_balance_over_many_more_random_sequences(start, ops):
    run_steps(start_table(start), ops)


@settings(max_examples=100, deadline=None)
@given(wager=st.integers(1, 1000), rate=rates, reserve=rates, seats=st.integers(1, 127))
def test_one_round_or_seat_by_seat_gives_the_same_books(wager, rate, reserve, seats):
    # The whole cents credited are the floor of the exact cumulative share, whatever the path.
    changes = {"wager": wager, "main": {"rate": rate, "reserve_rate": reserve, "reset": 0}}
    try:
        together = Jackpot(changes)
    except ValueError:
        return
    one_by_one = Jackpot(changes)
    together.contribute(1, seats_of(seats))
    for i, seat in enumerate(seats_of(seats)):
        one_by_one.contribute(i + 1, [seat])
        one_by_one.settle(i + 1, 0, [0, 5, 10], [(seat, None, False)])
    assert (together.value, together.reserve, together.carry, together.reserve_carry) == (
        one_by_one.value, one_by_one.reserve, one_by_one.carry, one_by_one.reserve_carry)


def test_long_seeded_run_balances_to_the_cent():
    # 2,000 rounds with awkward rates (ppm-level fractions), a ceiling, a reserve, and the
    # pools split and merged every 250 rounds.
    rng = random.Random(20261130)
    jp = Jackpot({"wager": 7, "main": {"rate": (333_333, 1_000_000), "reserve_rate": (3, 1000),
                                       "reset": 50_000, "ceiling": 2_000_000},
                  "minor": {"rate": (123_457, 1_000_000), "reset": 10_000},
                  "major": {"rate": (1, 8), "reserve_rate": (7, 125), "reset": 60_000,
                            "ceiling": 900_000}})
    model = Model(jp)
    split = False
    for round_no in range(1, 2001):
        if round_no % 250 == 0:
            split = not split
            change = jp.set_config({"split": split})
            for start in change.starts:
                model.additions += start[2]
        if round_no % 97 == 0:
            jp.add(jp.active_slots()[0], 1234)
            model.additions += 1234
        play_round(jp, model, round_no, rng.randrange(128), rng.randrange(600), rng.randrange(256),
                   rng.choice([0, 0, 0, 0, 1, 2]), 5_000 + round_no)
    t = jp.table_meters()
    assert t["hits"] > 100 and t["voids"] > 100 and t["resets"] > 0
    assert model.steps > 4000


def test_split_while_reserve_and_carries_are_held():
    jp = Jackpot({"wager": 3, "main": {"rate": (142_857, 1_000_000), "reserve_rate": (1, 1000),
                                       "reset": 100}})
    ops = [("round", 127, 1, 0, 0), ("config", {"split": True}), ("round", 5, 2, 0, 2),
           ("config", {"split": False}), ("round", 3, 3, 255, 0)]
    run_steps(jp, ops)
    assert jp.pool_meters(cfg.MAJOR)["moved_in"] > 0


# ------------------------------------------------------------- payouts against the rule text

def _jackpot_type(five):
    """rules.md 11.9 hand type of five cards (0 flush .. 4 royal, None), worked out here."""
    ranks = sorted(c // 4 for c in five)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    flush = len({c % 4 for c in five}) == 1
    straight = len(set(ranks)) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
    if flush and straight:
        return 4 if ranks[0] == 8 else 3
    if counts[0] == 4:
        return 2
    if counts[:2] == [3, 2]:
        return 1
    return 0 if flush else None


def _rule_payouts(value, reserve, winners, players, wager, odds, percent, envy, reset):
    """rules.md 11.10 and the shortfall and reset decisions for one pool, with exact fractions:
    (payouts [(seat, hand, amount, shortfall)], envy [(winner, seat, amount)], value, reserve)."""
    left, out, bonuses = value, [], []

    def pay(amount):
        nonlocal left
        taken = min(amount, left)
        left -= taken
        return amount - taken
    for seat, hand in winners:                        # fixed odds first, deducted
        if hand < 3:
            out.append((seat, hand, odds[hand] * wager, pay(odds[hand] * wager)))
    base = left
    for seat, hand in winners:                        # straight flushes, all on one base
        if hand == 3:
            amount = max(odds[3] * wager, int(Fraction(base * percent[3], 100)))
            out.append((seat, hand, amount, pay(amount)))
    royals = [w for w in winners if w[1] == 4]
    for seat, hand in royals:                         # royals: an equal share of what is left
        amount = max(odds[4] * wager, int(Fraction(left * percent[4], 100 * len(royals))))
        out.append((seat, hand, amount, pay(amount)))
    for seat, hand, _, _ in list(out):                # envy bonus last, from what is left
        for other in players:
            if envy[hand] and other != seat:
                bonuses.append((seat, other, envy[hand], pay(envy[hand])))
    if (royals or left == 0) and left < reset:
        reserve -= min(reset - left, reserve)
        left = reset
    return out, bonuses, left, reserve


@settings(max_examples=300, deadline=None)
@given(wager=st.sampled_from([1, 5, 100, 2500]), start=st.integers(0, 3_000_000),
       reset=st.sampled_from([0, 1, 5_000, 2_000_000]),
       pays=st.lists(st.tuples(st.sampled_from([0, 1, 100, 500, 10_000]), st.integers(0, 100)),
                     min_size=5, max_size=5),
       envy=st.lists(st.sampled_from([0, 0, 1, 700, 9_999_999]), min_size=5, max_size=5),
       deal_index=st.integers(0, 3), seats=st.one_of(st.just(127), st.integers(1, 127)),
       played=st.one_of(st.just(127), st.integers(0, 127)))
def test_payouts_follow_the_rule_text(wager, start, reset, pays, envy, deal_index, seats, played):
    pay = {}
    for hand, key in enumerate(("flush", "full_house", "four_of_a_kind", "straight_flush",
                                "royal_flush")):
        odds, percent = pays[hand]
        pay[key] = (odds, percent if hand >= 3 else 0)
        if not (odds or pay[key][1]):
            envy[hand] = 0
    # the reserve comes from a reserve rate of 100% on one round of seven wagers
    jp = Jackpot({"wager": 1000, "main": {"rate": (0, 1), "reserve_rate": (1, 1), "reset": 0}})
    jp.contribute(1, [1, 2, 3, 4, 5, 6, 7])
    jp.settle(1, 0, cards.parse("2c 7d 9h"), [(s, None, False) for s in range(1, 8)])
    if start:
        jp.add(cfg.MAIN, start)
    jp.set_config({"wager": wager, "pay": pay, "main": {"reserve_rate": (0, 1), "reset": reset},
                   "envy": dict(zip(paytable.KEYS, envy))})
    assert jp.pending[cfg.MAIN] is not None           # the new reset waits for this hit
    flop, holes = deal(3 * deal_index)
    seated = seats_of(seats)
    jp.contribute(2, seated)       # pool rate 0: it stays at start; the reserve takes it all
    hands = [(s, holes[s - 1], bool(played >> (s - 1) & 1)) for s in seated]
    players = [s for s, _, p in hands if p]
    winners = []
    for s in players:
        hand = _jackpot_type(holes[s - 1] + flop)
        if hand is not None and (pay[paytable.KEYS[hand]] != (0, 0)):
            winners.append((s, hand))
    odds = [pay[k][0] for k in paytable.KEYS]
    percent = [pay[k][1] for k in paytable.KEYS]
    want, bonuses, value, reserve_after = _rule_payouts(
        start, 7000 + len(seated) * wager, winners, players, wager, odds, percent, envy,
        reset if winners else 0)
    s = jp.settle(2, 0, flop, hands)
    assert [(h[m.H_SEAT], h[m.H_HAND], h[m.H_AMOUNT], h[m.H_SHORTFALL]) for h in s.hits] == want
    for h in s.hits:
        mine = [b for b in bonuses if b[0] == h[m.H_SEAT]]
        assert seats_of(h[m.H_ENVY_SEATS]) == [b[1] for b in mine]
        assert h[m.H_ENVY_SHORTFALL] == sum(b[3] for b in mine)
        assert h[m.H_ENVY_EACH] == (mine[0][2] if mine else 0)
    assert (jp.value[cfg.MAIN], jp.reserve[cfg.MAIN]) == (value, reserve_after)
    assert jp.audit() == []
