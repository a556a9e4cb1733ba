"""Jackpot rules of rules.md 11.6-11.12, shortfall and reset, with amounts worked out by hand.

Every expected amount below is written out from the rule text (rules.md section 2,
Progressive Jackpot) with the arithmetic in a comment, never taken from the code under test.
"""

import pytest

from firmware.jackpot import config as cfg
from firmware.jackpot import hits, paytable, record
from firmware.jackpot import meters as m
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards

C = cards.parse
MAIN, MINOR, MAJOR = cfg.MAIN, cfg.MINOR, cfg.MAJOR

# One flop that gives a royal, a straight flush and a flush at the same table.
HEART_FLOP = "Qh Jh Th"
ROYAL_HOLE = "Ah Kh"      # A-K-Q-J-T hearts
SF_HOLE = "9h 8h"         # Q-J-T-9-8 hearts
FLUSH_HOLE = "2h 3h"      # Q-J-T-3-2 hearts
STRAIGHT_HOLE = "Kd 9c"   # K-Q-J-T-9 straight: no jackpot
# A paired flop for four of a kind and a full house.
PAIR_FLOP = "9h 9s 2d"
QUADS_HOLE = "9c 9d"
FULL_HOUSE_HOLE = "2c 2s"  # 2-2-2-9-9


def table(**pools):
    """A fresh table, wager 100 cents, with pool parameters given per pool key."""
    changes = {"wager": 100}
    changes.update(pools)
    return Jackpot(changes)


def hand(seat, hole, played=True):
    return (seat, C(hole) if hole else None, played)


def snapshot(jp):
    return record.encode(jp)


# ----------------------------------------------------------------------------- 11.9 pay table


@pytest.mark.parametrize("text, expected", [
    ("Ah Kh Qh Jh Th", paytable.ROYAL_FLUSH),
    ("9h 8h Qh Jh Th", paytable.STRAIGHT_FLUSH),
    ("5s 4s As 2s 3s", paytable.STRAIGHT_FLUSH),     # the wheel is a straight flush, not royal
    ("9c 9d 9h 9s 2d", paytable.FOUR_OF_A_KIND),
    ("2c 2s 9h 9s 2d", paytable.FULL_HOUSE),
    ("2h 3h Qh Jh Th", paytable.FLUSH),
    ("Kd 9c Qh Jh Th", paytable.NO_HIT),              # straight: not a jackpot hand
    ("Ac Ad Ah Ks Kd", paytable.FULL_HOUSE),
    ("Ac Ad Ah Ks 2d", paytable.NO_HIT),              # three of a kind
])
def test_jackpot_hand_types(text, expected):
    five = C(text)
    assert paytable.jackpot_hand(five[:2], five[2:]) == expected


def test_jackpot_hand_is_hole_cards_plus_flop_only():
    # rules.md 2 [UTH 10.2]: exactly the two hole cards plus the first three community cards.
    with pytest.raises(ValueError, match="flop"):
        paytable.jackpot_hand(C("Ah Kh"), C("Qh Jh Th 9h"))
    with pytest.raises(ValueError, match="duplicate card Ah"):
        paytable.jackpot_hand(C("Ah Kh"), C("Ah Jh Th"))


def test_default_pay_table_is_rules_11_9():
    # rules.md 11.9: royal 10,000 or 100%; SF 1,000 or 10%; quads 500; FH 150; flush 100.
    c = cfg.default()
    assert c.odds == [100, 150, 500, 1000, 10000]
    assert c.percent == [0, 0, 0, 10, 100]


def test_the_operator_options_are_off_by_default():
    # rules.md, jackpot: "Operator options seen in regulated jurisdictions (make them
    # configuration, off by default): reset (seed) amount, ceiling with overflow to a reserve,
    # a hidden/reserve increment that funds the next reset, envy bonus."
    c = cfg.default()
    for pool in c.pools:
        assert (pool.reset, pool.ceiling, pool.reserve_rate[0]) == (0, 0, 0)
    assert not c.envy_paid()


@pytest.mark.parametrize("hole, flop, reset, paid", [
    (FLUSH_HOLE, HEART_FLOP, 2_000_000, 10_000),          # 100 x 100
    (FULL_HOUSE_HOLE, PAIR_FLOP, 2_000_000, 15_000),      # 150 x 100
    (QUADS_HOLE, PAIR_FLOP, 2_000_000, 50_000),           # 500 x 100
    (SF_HOLE, HEART_FLOP, 500_000, 100_000),              # 1,000 x 100 > 10% of 500,000 = 50,000
    (SF_HOLE, HEART_FLOP, 2_000_000, 200_000),            # 10% of 2,000,000 > 100,000
    (ROYAL_HOLE, HEART_FLOP, 2_000_000, 2_000_000),       # 100% of the pool > 1,000,000
])
def test_single_winner_pays(hole, flop, reset, paid):
    jp = table(main={"rate": (0, 1), "reset": reset})
    jp.contribute(1, [3])
    s = jp.settle(1, 500, C(flop), [hand(3, hole)])
    assert len(s.hits) == 1
    h = s.hits[0]
    assert h[m.H_AMOUNT] == paid
    assert h[m.H_SHORTFALL] == 0
    assert h[m.H_BEFORE] == reset and h[m.H_AFTER] == reset - paid
    assert h[m.H_SEAT] == 3 and h[m.H_ROUND] == 1 and h[m.H_TIME] == 500


def test_royal_pays_10000_to_1_when_greater_than_the_pool_with_shortfall():
    # Pool 400,000 < 10,000 x 100 = 1,000,000: pays 1,000,000, the pool covers 400,000 and
    # 600,000 is operator-funded; the pool is empty and resets to 400,000 (an addition).
    jp = table(main={"rate": (0, 1), "reset": 400_000})
    jp.contribute(1, [1])
    s = jp.settle(1, 7, C(HEART_FLOP), [hand(1, ROYAL_HOLE)])
    assert s.hits[0][m.H_AMOUNT] == 1_000_000
    assert s.hits[0][m.H_SHORTFALL] == 600_000
    assert s.resets == [[MAIN, 0, 400_000]]
    assert jp.value[MAIN] == 400_000
    pm = jp.pool_meters(MAIN)
    assert pm["shortfall"] == 600_000
    assert pm["operator_additions"] == 800_000   # RAM clear seed + reset
    assert pm["paid_royal_flush"] == 1_000_000 and pm["hits_royal_flush"] == 1
    assert jp.table_meters()["shortfall"] == 600_000


# ----------------------------------------------------------------------------- 11.6 pool


def test_pool_is_wagers_less_retention_plus_reset_money():
    # 11.6: rate 70/100, three 100-cent wagers: 300 x 0.7 = 210 to the pool, 90 retained.
    jp = table(main={"rate": (70, 100), "reset": 500_000})
    c = jp.contribute(1, [1, 4, 7])
    assert c.amount == 300 and c.pool[MAIN] == 210 and c.retention == 90
    assert jp.value[MAIN] == 500_210
    t = jp.table_meters()
    assert (t["wagers"], t["wagered"], t["retention"], t["carried"]) == (3, 300, 90, 0)
    pm = jp.pool_meters(MAIN)
    assert (pm["wagers"], pm["wagered"], pm["contributions"]) == (3, 300, 210)


def test_fractions_of_a_cent_are_carried_not_lost():
    # rate 7/1000 of a 100-cent wager is 0.7 cent.  Ten single wagers owe exactly 7 cents:
    # after 1: 0 paid in, 0.7 carried (1 whole cent held back), retention 99;
    # after 2: 1.4 -> 1 in, 0.4 carried, retention floor(200 - 1.4) = 198;
    # after 10: 7 in, nothing carried, retention 993.
    jp = table(main={"rate": (7, 1000), "reset": 0})
    jp.contribute(1, [1])
    assert (jp.value[MAIN], jp.carry[MAIN], jp.carried_cents()) == (0, 700_000, 1)
    assert jp.table_meters()["retention"] == 99
    jp.settle(1, 0, C("2c 3d 4h"), [hand(1, "5s 7c")])
    jp.contribute(2, [1])
    assert (jp.value[MAIN], jp.carry[MAIN], jp.table_meters()["retention"]) == (1, 400_000, 198)
    for round_no in range(3, 11):
        jp.settle(round_no - 1, 0, C("2c 3d 4h"), [hand(1, "5s 7c")])
        jp.contribute(round_no, [1])
    assert jp.value[MAIN] == 7 and jp.carry[MAIN] == 0
    t = jp.table_meters()
    assert (t["wagered"], t["retention"], t["carried"]) == (1000, 993, 0)


def test_one_cent_wager_half_rate_carry():
    # wager 1 cent, rate 1/2: first round 0 in and half a cent carried (1 cent held, 0
    # retained); second round 1 cent in, 1 cent retained: 2 = 1 + 1 + 0.
    jp = Jackpot({"wager": 1, "main": {"rate": (1, 2), "reset": 0}})
    c1 = jp.contribute(1, [1])
    assert (c1.pool[MAIN], c1.retention, jp.carried_cents()) == (0, 0, 1)
    jp.void_seat(1, 1)
    assert (jp.value[MAIN], jp.carry[MAIN], jp.carried_cents()) == (0, 0, 0)
    s = jp.settle(1, 0, C("2c 3d 4h"), [])   # the round goes on without seat 1
    assert s.collected == 0
    jp.contribute(2, [1, 2])
    assert (jp.value[MAIN], jp.table_meters()["retention"], jp.carried_cents()) == (1, 1, 0)


# ----------------------------------------------------------------------------- 11.6A-D sub-pools


def split_table(**extra):
    changes = {"wager": 100, "split": True,
               "minor": {"rate": (20, 100), "reset": 100_000},
               "major": {"rate": (50, 100), "reset": 1_000_000}}
    changes.update(extra)
    return Jackpot(changes)


def test_sub_pools_each_take_their_rate():
    # 11.6A-B: two wagers of 100: Minor 20% = 40, Major 50% = 100, retention 60.
    jp = split_table()
    c = jp.contribute(1, [2, 5])
    assert (c.pool[MINOR], c.pool[MAJOR], c.retention) == (40, 100, 60)
    assert (jp.value[MINOR], jp.value[MAJOR]) == (100_040, 1_000_100)
    assert jp.value[MAIN] == 0


def test_minor_pays_flush_full_house_quads_and_major_pays_sf_royal():
    jp = split_table(minor={"rate": (0, 1), "reset": 100_000},
                     major={"rate": (0, 1), "reset": 1_000_000})
    jp.contribute(1, [1, 2, 3])
    s = jp.settle(1, 0, C(PAIR_FLOP), [hand(1, QUADS_HOLE), hand(2, FULL_HOUSE_HOLE),
                                       hand(3, "Ac Kd")])
    # Minor pays quads 50,000 then full house 15,000 (dealing order): 100,000 - 65,000.
    assert [(h[m.H_POOL], h[m.H_AMOUNT]) for h in s.hits] == [(MINOR, 50_000), (MINOR, 15_000)]
    assert (jp.value[MINOR], jp.value[MAJOR]) == (35_000, 1_000_000)
    jp.contribute(2, [1, 2, 3])
    s = jp.settle(2, 0, C(HEART_FLOP), [hand(1, ROYAL_HOLE), hand(2, SF_HOLE), hand(3, FLUSH_HOLE)])
    # Minor: flush 10,000 from 35,000.  Major 1,000,000: SF max(100,000, 10% = 100,000) =
    # 100,000, left 900,000; royal max(1,000,000, 900,000) = 1,000,000: 900,000 from the pool,
    # 100,000 shortfall; Major empty: reset 1,000,000 from the operator.
    got = [(h[m.H_POOL], h[m.H_HAND], h[m.H_AMOUNT], h[m.H_SHORTFALL]) for h in s.hits]
    assert got == [(MINOR, paytable.FLUSH, 10_000, 0),
                   (MAJOR, paytable.STRAIGHT_FLUSH, 100_000, 0),
                   (MAJOR, paytable.ROYAL_FLUSH, 1_000_000, 100_000)]
    assert s.resets == [[MAJOR, 0, 1_000_000]]
    assert (jp.value[MINOR], jp.value[MAJOR]) == (25_000, 1_000_000)


def test_merge_and_split_move_the_money():
    # 11.6C: merging puts both sub-pools into one; splitting makes the pool the Major pool and
    # starts the Minor pool at its reset amount.
    jp = split_table()
    jp.contribute(1, [1])          # Minor 100,020, Major 1,000,050
    jp.void_round(1)
    jp.contribute(2, [1])
    jp.settle(2, 0, C("2c 3d 4h"), [hand(1, "5s 7c")])
    change = jp.set_config({"split": False, "main": {"rate": (70, 100), "reset": 900_000}})
    assert [c[0] for c in change.changes][:1] == ["split"]
    assert change.moves == [[MINOR, MAIN, 100_020, 0], [MAJOR, MAIN, 1_000_050, 0]]
    assert jp.value == [1_100_070, 0, 0]
    change = jp.set_config({"split": True})
    assert change.moves == [[MAIN, MAJOR, 1_100_070, 0]]
    assert jp.value == [0, 100_000, 1_100_070]
    assert jp.pool_meters(MINOR)["operator_additions"] == 200_000   # two Minor starts
    assert jp.audit() == []


def test_merge_turns_two_carried_fractions_into_a_cent():
    # Minor rate 3/10 and Major 3/10 of a 5-cent wager: 1.5 cents each, so each carries 0.5.
    # Merged, the two halves make one whole cent owed to the pool.
    jp = Jackpot({"wager": 5, "split": True, "minor": {"rate": (3, 10), "reset": 0},
                  "major": {"rate": (3, 10), "reset": 0}})
    jp.contribute(1, [1])
    jp.settle(1, 0, C("2c 3d 4h"), [hand(1, "5s 7c")])
    assert jp.value == [0, 1, 1] and jp.carry == [0, 500_000, 500_000]
    assert jp.carried_cents() == 1
    jp.set_config({"split": False})
    assert jp.value == [3, 0, 0] and jp.carry == [0, 0, 0] and jp.carried_cents() == 0
    assert jp.audit() == []


# ----------------------------------------------------------------------------- 11.7, 11.8, 10.2


def test_folded_seat_cannot_win_and_seat_without_wager_is_ignored():
    jp = table(main={"rate": (0, 1), "reset": 1_000_000})
    jp.contribute(1, [1, 2])
    s = jp.settle(1, 0, C(HEART_FLOP), [hand(1, ROYAL_HOLE, played=False), hand(2, "4c 4d"),
                                        hand(3, SF_HOLE)])
    assert s.hits == [] and jp.value[MAIN] == 1_000_000
    assert s.collected == 200   # 11.12: both jackpot wagers collected


def test_every_wagering_seat_must_be_given():
    jp = table()
    jp.contribute(1, [1, 2])
    before = snapshot(jp)
    with pytest.raises(ValueError, match="seat 2"):
        jp.settle(1, 0, C(HEART_FLOP), [hand(1, "4c 4d")])
    assert snapshot(jp) == before


# ----------------------------------------------------------------------------- 11.10 several winners


def test_several_winners_at_one_table_in_rule_order():
    # Pool 2,000,000 (rate 0).  Fixed odds first: flush 10,000 -> 1,990,000.  SF: max(100,000,
    # 10% of 1,990,000 = 199,000) = 199,000 -> 1,791,000.  Royal: max(1,000,000, 1,791,000) =
    # 1,791,000 -> 0, then reset to 2,000,000 by the operator.  Seat order on the table does
    # not change the rule order.
    jp = table(main={"rate": (0, 1), "reset": 2_000_000})
    jp.contribute(1, [1, 2, 3, 4, 5])
    s = jp.settle(1, 99, C(HEART_FLOP), [hand(1, ROYAL_HOLE), hand(2, SF_HOLE), hand(3, FLUSH_HOLE),
                                         hand(4, STRAIGHT_HOLE), hand(5, "4h 5h", played=False)])
    got = [(h[m.H_SEAT], h[m.H_AMOUNT], h[m.H_BEFORE], h[m.H_AFTER]) for h in s.hits]
    assert got == [(3, 10_000, 2_000_000, 1_990_000), (2, 199_000, 1_990_000, 1_791_000),
                   (1, 1_791_000, 1_791_000, 0)]
    assert s.resets == [[MAIN, 0, 2_000_000]]
    assert s.total_paid() == 2_000_000
    t = jp.table_meters()
    assert (t["hits"], t["paid"], t["paid_straight_flush"], t["collected"]) == (3, 2_000_000, 199_000, 500)


def test_plan_two_straight_flushes_share_the_same_base():
    # Both SFs get 10% of the pool left after fixed odds (300,000 after quads 50,000 from
    # 350,000): 30,000 < 100,000 so each is paid 100,000: 300,000 -> 200,000 -> 100,000.
    payouts, left, royal = hits.plan_pool(350_000, [(1, paytable.STRAIGHT_FLUSH),
                                                    (4, paytable.FOUR_OF_A_KIND),
                                                    (6, paytable.STRAIGHT_FLUSH)],
                                          100, paytable.DEFAULT_ODDS, paytable.DEFAULT_PERCENT)
    assert [(p[0], p[2], p[5], p[6]) for p in payouts] == [
        (4, 50_000, 350_000, 300_000), (1, 100_000, 300_000, 200_000), (6, 100_000, 200_000, 100_000)]
    assert (left, royal) == (100_000, False)
    # 10% of a 5,000,000 pool is 500,000 each: both from the same base.
    payouts, left, _ = hits.plan_pool(5_000_000, [(1, paytable.STRAIGHT_FLUSH),
                                                  (2, paytable.STRAIGHT_FLUSH)],
                                      100, paytable.DEFAULT_ODDS, paytable.DEFAULT_PERCENT)
    assert [p[2] for p in payouts] == [500_000, 500_000] and left == 4_000_000


def test_plan_royals_share_what_is_left_equally():
    # 3,000,001 left after an SF of 10% (3,333,335 -> SF 333,333 -> 3,000,002); two royals:
    # each max(1,000,000, 3,000,002 // 2 = 1,500,001); nothing left.
    payouts, left, royal = hits.plan_pool(3_333_335, [(2, paytable.ROYAL_FLUSH),
                                                      (5, paytable.STRAIGHT_FLUSH),
                                                      (7, paytable.ROYAL_FLUSH)],
                                          100, paytable.DEFAULT_ODDS, paytable.DEFAULT_PERCENT)
    assert [(p[0], p[2]) for p in payouts] == [(5, 333_333), (2, 1_500_001), (7, 1_500_001)]
    assert (left, royal) == (0, True)
    # Three royals on 3,000,002: 1,000,000 each (10,000 x 100 beats 1,000,000 equal share by 0),
    # odd cents stay: 3,000,002 - 3,000,000 = 2.
    payouts, left, _ = hits.plan_pool(3_000_002, [(1, paytable.ROYAL_FLUSH)] * 3, 100,
                                      paytable.DEFAULT_ODDS, paytable.DEFAULT_PERCENT)
    assert [p[2] for p in payouts] == [1_000_000] * 3 and left == 2


def test_plan_shortfall_across_several_fixed_payouts():
    # Pool 60,000: quads 50,000 (pool 10,000 left), full house 15,000: 10,000 from the pool
    # and 5,000 operator-funded; flush 10,000 all operator-funded.
    payouts, left, _ = hits.plan_pool(60_000, [(1, paytable.FOUR_OF_A_KIND), (2, paytable.FULL_HOUSE),
                                               (3, paytable.FLUSH)],
                                      100, paytable.DEFAULT_ODDS, paytable.DEFAULT_PERCENT)
    assert [(p[2], p[3], p[4]) for p in payouts] == [(50_000, 50_000, 0), (15_000, 10_000, 5_000),
                                                     (10_000, 0, 10_000)]
    assert left == 0


# ------------------------------------------------------------- shortfall, reset, reserve, ceiling


def test_fixed_odds_shortfall_empties_pool_and_resets():
    # Pool 30,000; quads pays 50,000: 30,000 from the pool, 20,000 operator-funded, reset to
    # 30,000 by an operator addition.
    jp = table(main={"rate": (0, 1), "reset": 30_000})
    jp.contribute(1, [1])
    s = jp.settle(1, 0, C(PAIR_FLOP), [hand(1, QUADS_HOLE)])
    assert (s.hits[0][m.H_AMOUNT], s.hits[0][m.H_SHORTFALL]) == (50_000, 20_000)
    assert s.resets == [[MAIN, 0, 30_000]]
    pm = jp.pool_meters(MAIN)
    assert (pm["value"], pm["shortfall"], pm["operator_additions"], pm["resets"]) == (30_000, 20_000,
                                                                                    60_000, 1)


def test_reset_is_funded_from_the_reserve_first():
    # rate 60/100, reserve 10/100, reset 10,000: 2 wagers -> pool +120, reserve +20.  A royal
    # takes max(1,000,000, 10,120) = 1,000,000 (10,120 from the pool); reset needs 10,000:
    # 20 from the reserve, 9,980 from the operator.
    jp = table(main={"rate": (60, 100), "reserve_rate": (10, 100), "reset": 10_000})
    c = jp.contribute(1, [1, 2])
    assert (c.pool[MAIN], c.reserve[MAIN], c.retention) == (120, 20, 60)
    s = jp.settle(1, 0, C(HEART_FLOP), [hand(1, ROYAL_HOLE), hand(2, "4c 5c")])
    assert s.hits[0][m.H_AMOUNT] == 1_000_000 and s.hits[0][m.H_SHORTFALL] == 989_880
    assert s.resets == [[MAIN, 20, 9_980]]
    assert (jp.value[MAIN], jp.reserve[MAIN]) == (10_000, 0)
    assert jp.pool_meters(MAIN)["reserve_funded"] == 20


def test_ceiling_overflows_to_the_reserve_and_a_void_takes_it_back():
    # reset 1,000,000, ceiling 1,000,100, rate 70/100: 3 wagers = 210 -> 100 to the pool and
    # 110 overflow to the reserve.  Voiding seat 1 takes back 70 from the overflow first.
    jp = table(main={"rate": (70, 100), "reset": 1_000_000, "ceiling": 1_000_100})
    before = snapshot(jp)
    c = jp.contribute(1, [1, 2, 3])
    assert (c.pool[MAIN], c.overflow[MAIN]) == (210, 110)
    assert (jp.value[MAIN], jp.reserve[MAIN]) == (1_000_100, 110)
    r = jp.void_seat(1, 1)
    assert (r.pool[MAIN], r.overflow[MAIN]) == (-70, -70)
    assert (jp.value[MAIN], jp.reserve[MAIN]) == (1_000_100, 40)
    jp.void_round(1)
    assert (jp.value[MAIN], jp.reserve[MAIN], jp.carry[MAIN]) == (1_000_000, 0, 0)
    pm = jp.pool_meters(MAIN)
    assert (pm["overflow"], pm["overflow_reversed"], pm["voids"], pm["voided"]) == (110, 110, 3, 300)
    assert jp.audit() == []
    assert snapshot(jp) != before   # the voids are recorded on the meters


def test_addition_above_ceiling_rejected():
    jp = table(main={"reset": 1000, "ceiling": 5000})
    with pytest.raises(ValueError, match="ceiling 5000"):
        jp.add(MAIN, 4001)
    assert jp.add(MAIN, 4000) == 5000


def test_additions_never_take_a_pool_without_ceiling_above_the_largest_amount():
    # Two additions of $10,737,418.23 made a pool of $21,484,836.46: the table logs the pool
    # after each settle as a 32-bit signed number, so every later round failed to commit
    # ("MEMORY FAULT event c ...") and stayed locked.  A pool holds at most MAX_AMOUNT.
    jp = table(main={"reset": 1000})
    assert jp.add(MAIN, cfg.MAX_AMOUNT - 1000) == cfg.MAX_AMOUNT
    before = snapshot(jp)
    with pytest.raises(ValueError, match="above %d" % cfg.MAX_AMOUNT):
        jp.add(MAIN, 1)
    assert snapshot(jp) == before


# ----------------------------------------------------------------------------- rules.md 5 voids


def test_void_round_restores_pools_exactly_and_records_it():
    jp = table(main={"rate": (333_333, 1_000_000), "reserve_rate": (1, 8),
                     "reset": 5_000})
    jp.contribute(1, [1])
    jp.settle(1, 0, C("2c 3d 4h"), [hand(1, "5s 7c")])
    state = (list(jp.value), list(jp.reserve), list(jp.carry), list(jp.reserve_carry),
             jp.carried_cents(), jp.table_meters()["retention"] - jp.table_meters()["retention_reversed"])
    jp.contribute(2, [1, 2, 3, 4, 5, 6, 7])
    r = jp.void_round(2)
    assert r.amount == -700
    after = (jp.value, jp.reserve, jp.carry, jp.reserve_carry, jp.carried_cents(),
             jp.table_meters()["retention"] - jp.table_meters()["retention_reversed"])
    assert after == state
    t = jp.table_meters()
    assert (t["voids"], t["voided"], t["wagered"]) == (7, 700, 800)
    with pytest.raises(ValueError, match="not open"):
        jp.settle(2, 0, C(HEART_FLOP), [])


# ----------------------------------------------------------------------------- pending configuration


def test_pool_change_waits_for_that_pools_next_hit():
    jp = table(main={"rate": (70, 100), "reset": 100_000})
    change = jp.set_config({"main": {"rate": (50, 100), "reset": 200_000}, "wager": 200})
    assert ("wager", 100, 200) in change.changes
    assert change.pending == [("main.rate", (70, 100), (50, 100)), ("main.reset", 100_000, 200_000)]
    # Old rate still in force; the new wager at once: 200 x 70% = 140.
    c = jp.contribute(1, [1])
    assert c.pool[MAIN] == 140
    # A flush (100 x 200 = 20,000) is the pool's next hit: the new parameters apply after it.
    s = jp.settle(1, 0, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])
    assert s.applied[0][0] == MAIN
    assert jp.config.pools[MAIN].rate == (50, 100) and jp.pending[MAIN] is None
    c = jp.contribute(2, [1])
    assert c.pool[MAIN] == 100


def test_new_reset_amount_is_used_for_the_reset_after_the_hit():
    jp = table(main={"rate": (0, 1), "reset": 100_000})
    jp.set_config({"main": {"reset": 300_000}})
    jp.contribute(1, [1])
    s = jp.settle(1, 0, C(HEART_FLOP), [hand(1, ROYAL_HOLE)])
    # Royal takes max(1,000,000, 100,000): 900,000 shortfall, then reset to the NEW 300,000.
    assert s.resets == [[MAIN, 0, 300_000]] and jp.value[MAIN] == 300_000


def test_split_sub_pool_changes_wait_for_their_own_pool():
    jp = split_table()
    jp.set_config({"minor": {"rate": (10, 100)}, "major": {"rate": (40, 100)}})
    jp.contribute(1, [1])
    # Minor pays a flush: only Minor's change takes effect.
    jp.settle(1, 0, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])
    assert jp.config.pools[MINOR].rate == (10, 100)
    assert jp.config.pools[MAJOR].rate == (50, 100) and jp.pending[MAJOR] is not None
    c = jp.contribute(2, [1])
    assert (c.pool[MINOR], c.pool[MAJOR]) == (10, 50)


def test_mixed_old_and_new_rates_must_fit_in_the_wager():
    jp = split_table()
    before = snapshot(jp)
    # Now 20% + 50%; asking 60% + 30%: while either change waits, 60% + 50% could apply.
    with pytest.raises(ValueError, match="minor/major"):
        jp.set_config({"minor": {"rate": (60, 100)}, "major": {"rate": (30, 100)}})
    assert snapshot(jp) == before


def test_no_config_change_during_a_round():
    jp = table()
    jp.contribute(1, [1])
    with pytest.raises(ValueError, match="round 1 is open"):
        jp.set_config({"wager": 500})


# ----------------------------------------------------------------------------- meters and hit log


def test_last_25_hits_are_kept_oldest_dropped():
    jp = table(main={"rate": (0, 1), "reset": 100_000_000})
    for round_no in range(1, 31):
        jp.contribute(round_no, [2])
        jp.settle(round_no, 1000 + round_no, C(HEART_FLOP), [hand(2, FLUSH_HOLE)])
    log = jp.last_hits()
    assert len(log) == 25
    assert log[0]["round"] == 6 and log[-1]["round"] == 30 and log[-1]["time"] == 1030
    assert log[-1]["cards"] == "2h 3h Qh Jh Th" and log[-1]["hand"] == "Flush"
    assert log[-1]["pool_before"] == 100_000_000 - 29 * 10_000
    assert log[-1]["pool_after"] == 100_000_000 - 30 * 10_000
    assert jp.table_meters()["hits_flush"] == 30


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("changes, words", [
    ({"main": {"rate": (1, 3)}}, ["main.rate", "3"]),
    ({"main": {"rate": (11, 10)}}, ["main.rate", "(11, 10)"]),
    ({"main": {"rate": 0.7}}, ["main.rate", "0.7"]),
    ({"main": {"reset": -1}}, ["main.reset", "-1"]),
    ({"main": {"ceiling": 10, "reset": 100}}, ["main.ceiling", "10"]),
    ({"main": {"speed": 3}}, ["main.speed", "3"]),
    ({"colour": "red"}, ["colour", "red"]),
    ({"wager": 0}, ["wager", "0"]),
    ({"wager": True}, ["wager", "True"]),
    ({"split": "yes"}, ["split", "yes"]),
    ({"pay": {"flush": (100, 5)}}, ["pay.flush", "5"]),
    ({"pay": {"straight_flush": (1000, 101)}}, ["pay.straight_flush", "101"]),
    ({"pay": {"five_aces": (1, 0)}}, ["pay.five_aces"]),
    ({"main": {"rate": (8, 10), "reserve_rate": (3, 10)}}, ["main", "(8, 10)", "(3, 10)"]),
    ({"split": True, "minor": {"rate": (6, 10)}, "major": {"rate": (5, 10)}}, ["minor+major"]),
    # a fixed award the table could not log (32-bit event amounts): the royal would never pay
    ({"wager": 100_000, "pay": {"royal_flush": (25_000, 100)}},
     ["pay.royal_flush", "25000 to 1", "100000", "2500000000"]),
    ({"pay": {"flush": (1_000_000, 0)}, "wager": 2000}, ["pay.flush", "2000000000"]),
])
def test_config_errors_name_key_and_value(changes, words):
    jp = table()
    before = snapshot(jp)
    with pytest.raises(ValueError) as err:
        jp.set_config(changes)
    for word in words:
        assert word in str(err.value)
    assert snapshot(jp) == before


def test_jackpot_pays_after_2038_and_the_record_keeps_the_time():
    # the table passes seconds since 1970: 2**31 is 2038-01-19 03:14:08 UTC, within the
    # product's life; the event log holds u32 times (to 2106), so must the jackpot
    after_2038 = 2**31 + 3600
    last = 0xFFFFFFFF
    jp = table()
    jp.contribute(1, [1])
    plan = jp.settle(1, after_2038, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])
    assert plan.hits[0][m.H_TIME] == after_2038
    jp.contribute(2, [1])
    jp.settle(2, last, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])
    again = record.decode(record.encode(jp))
    assert [h["time"] for h in again.last_hits()] == [after_2038, last]
    jp.contribute(3, [1])
    with pytest.raises(ValueError, match="bad time"):
        jp.settle(3, last + 1, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])


@pytest.mark.parametrize("action, words", [
    (lambda jp: jp.contribute(0, [1]), ["round number 0"]),
    (lambda jp: jp.contribute(5, [1]), ["round 5 is still open"]),
    (lambda jp: jp.void_seat(5, 8), ["seat 8"]),
    (lambda jp: jp.void_seat(5, 4), ["seat 4"]),
    (lambda jp: jp.void_seat(4, 1), ["round 4 is not the open round 5"]),
    (lambda jp: jp.settle(5, -1, C(HEART_FLOP), []), ["time -1"]),
    (lambda jp: jp.settle(5, 0, C("Qh Jh"), []), ["flop"]),
    (lambda jp: jp.settle(5, 0, C(HEART_FLOP), [hand(1, "Qh 2c"), hand(2, "3c 4c")]), ["Qh"]),
    (lambda jp: jp.settle(5, 0, C(HEART_FLOP), [hand(1, "5c 2c"), hand(1, "3c 4c")]),
     ["seat 1 given twice"]),
    (lambda jp: jp.settle(5, 0, C(HEART_FLOP), [(1, C("5c 2c"), 1), hand(2, "3c 4c")]), ["played"]),
    (lambda jp: jp.settle(5, 0, C(HEART_FLOP), [hand(1, "5c 2c"), hand(2, "5c 4c")]), ["5c"]),
    (lambda jp: jp.add(3, 100), ["pool 3"]),
    (lambda jp: jp.add(MINOR, 100), ["minor is not in use"]),
    (lambda jp: jp.add(MAIN, 0), ["addition 0"]),
])
def test_bad_input_is_rejected_and_changes_nothing(action, words):
    jp = table()
    jp.contribute(4, [1])
    jp.settle(4, 0, C(HEART_FLOP), [hand(1, FLUSH_HOLE)])
    jp.contribute(5, [1, 2])
    before = snapshot(jp)
    with pytest.raises(ValueError) as err:
        action(jp)
    for word in words:
        assert word in str(err.value)
    assert snapshot(jp) == before


def test_round_numbers_only_go_forward():
    jp = table()
    jp.contribute(10, [1])
    jp.void_round(10)
    with pytest.raises(ValueError, match="round 10 already taken"):
        jp.contribute(10, [1])


def test_preview_changes_nothing_and_matches_settle():
    jp = table(main={"rate": (0, 1), "reset": 2_000_000})
    jp.contribute(1, [1, 2])
    before = snapshot(jp)
    hands = [hand(1, ROYAL_HOLE), hand(2, SF_HOLE)]
    p = jp.preview(1, 5, C(HEART_FLOP), hands)
    assert snapshot(jp) == before
    s = jp.settle(1, 5, C(HEART_FLOP), hands)
    assert p.hits == s.hits and p.resets == s.resets and p.values == s.values
