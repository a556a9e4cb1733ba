"""Big Raise Stud Poker settlement, one test per rule of rules.md section 4 (and 5 for BRS).

Expected amounts are worked out by hand from the pay tables in rules.md; hands named in the
comments are read off the cards by a person.
"""

import copy

import pytest

from firmware.poker import brs


def spot(hand, risk=1000, raise_=None, extra=0, decision="raise", seat=1, **more):
    if raise_ is None:
        raise_ = 4 * risk if decision == "raise" else 0
    result = {"seat": seat, "cards": hand, "risk": risk, "raise": raise_, "extra": extra,
              "decision": decision}
    result.update(more)
    return result


def settle(seats, community, **options):
    return brs.settle(brs.Config(**options), seats, community)


def one(seat, community, **options):
    return settle([seat], community, **options).seat(seat["seat"])


def outcomes(seat_result):
    return {w.wager: (w.outcome, w.returned, w.won) for w in seat_result.wagers}


# [BRS 5.2-5.4] Risk 1000 and Raise 4000 both paid by: royal 500, straight flush 100, quads 40,
# full house 8, flush 6, straight 4, trips 3, two pair 2, pair of tens or better 1.
RISK_CASES = [
    ("royal", "As Qs Js", "Ks Ts", 500000, 2000000),
    ("straight_flush", "9h 8h 7h", "6h 5h", 100000, 400000),
    ("quads", "8c 8d 8h", "8s 2c", 40000, 160000),
    ("full_house", "8c 8d 8h", "2s 2c", 8000, 32000),
    ("flush", "2d 7d 9d", "Jd Kd", 6000, 24000),
    ("straight", "9c Td Jh", "Qs Kc", 4000, 16000),
    ("trips", "5c 5d 5h", "Ks 2c", 3000, 12000),
    ("two_pair", "5c 5d Kh", "Ks 2c", 2000, 8000),
    ("pair_of_tens", "Tc Td 3h", "8s 2d", 1000, 4000),
    ("pair_of_aces_with_the_community", "Ac 7d 3h", "As 2d", 1000, 4000),
]


@pytest.mark.parametrize("hand, community, risk_won, raise_won",
                         [c[1:] for c in RISK_CASES], ids=[c[0] for c in RISK_CASES])
def test_brs_5_2_risk_and_raise_pay_by_the_table(hand, community, risk_won, raise_won):
    seat = one(spot(hand), community)
    assert outcomes(seat) == {"risk": ("win", 1000, risk_won), "raise": ("win", 4000, raise_won)}


@pytest.mark.parametrize("hand, community", [
    ("9c 9d 3h", "Ks 2d"),   # pair of nines
    ("6c 6d 3h", "Ks 2d"),   # pair of sixes
    ("7c 2h 3h", "7s Kd"),   # pair of sevens made with a community card
])
def test_brs_5_3_pair_of_sixes_to_nines_pushes(hand, community):
    seat = one(spot(hand), community)
    assert outcomes(seat) == {"risk": ("push", 1000, 0), "raise": ("push", 4000, 0)}
    assert seat.wager("risk").line == "pair_sixes_to_nines"


@pytest.mark.parametrize("hand, community", [
    ("5c 5d 3h", "Ks 2d"),   # pair of fives
    ("2c 2d 3h", "Ks 9d"),   # pair of deuces
    ("Ac Qd 3h", "9s 2d"),   # ace high
])
def test_brs_5_4_anything_lower_loses(hand, community):
    seat = one(spot(hand), community)
    assert outcomes(seat) == {"risk": ("lose", 0, 0), "raise": ("lose", 0, 0)}


def test_brs_5_1_hand_is_three_cards_plus_both_community_cards():
    # 9c Td Jh alone is nothing; with Qs Kc it is a king-high straight: Risk 4 to 1 on 500,
    # Raise 1x = 500 at 4 to 1.
    seat = one(spot("9c Td Jh", risk=500, raise_=500), "Qs Kc")
    assert seat.hand_name == "Straight"
    assert outcomes(seat) == {"risk": ("win", 500, 2000), "raise": ("win", 500, 2000)}


# --- Decision [BRS 4.1-4.2] ---------------------------------------------------------------------

@pytest.mark.parametrize("multiple", [1, 2, 3, 4])
def test_brs_4_2_raise_1x_to_4x(multiple):
    seat = one(spot("Tc Td 3h", risk=300, raise_=300 * multiple), "8s 2d")
    assert outcomes(seat)["raise"] == ("win", 300 * multiple, 300 * multiple)


@pytest.mark.parametrize("raise_, message", [
    (5000, "seat 1: Raise \\(5000\\) is over 4x the Risk bet \\(1000\\)"),
    (1001 * 4, "is over 4x"),
    (2500, "Raise \\(2500\\) must be 1x, 2x, 3x, 4x the Risk bet"),
    (0, "Raise \\(0\\) must be 1x, 2x, 3x, 4x"),
])
def test_brs_4_2_wrong_raise_is_rejected(raise_, message):
    with pytest.raises(ValueError, match=message):
        settle([spot("Tc Td 3h", raise_=raise_)], "8s 2d")


def test_brs_raise_multiples_option():
    with pytest.raises(ValueError, match="must be 1x, 3x the Risk bet"):
        settle([spot("Tc Td 3h", raise_=2000)], "8s 2d", raise_multiples=(1, 3))
    with pytest.raises(ValueError, match="option raise_multiples"):
        brs.Config(raise_multiples=(0, 2))
    # rules.md [BRS 4.1-4.2]: Raise 1x to 4x the Risk bet, each multiple once
    for bad in ((5,), (1, 1), (2, 4, 2)):
        with pytest.raises(ValueError, match=r"option raise_multiples must be distinct whole "
                                             r"multiples 1\.\.4"):
            brs.Config(raise_multiples=bad)
    assert brs.Config(raise_multiples=[4, 1]).raise_multiples == (4, 1)


def test_brs_4_1_fold_loses_risk_and_the_extra_is_still_settled():
    # Folding Ah Kh Qh: Risk lost; Three Card Extra 100 on the mini royal, straight flush 40 to 1.
    seat = one(spot("Ah Kh Qh", decision="fold", extra=100), "2c 7d")
    assert seat.status == "folded"
    assert outcomes(seat) == {"risk": ("lose", 0, 0), "extra": ("win", 100, 4000)}


def test_brs_4_1_a_folded_seat_cannot_have_a_raise():
    with pytest.raises(ValueError, match="folded cannot have a Raise wager"):
        settle([spot("Ah Kh Qh", decision="fold", raise_=1000)], "2c 7d")


def test_brs_3_1_extra_needs_a_risk_bet():
    with pytest.raises(ValueError, match="seat 2: a Three Card Extra wager needs a Risk bet"):
        settle([{"seat": 2, "cards": "Ah Kh Qh", "extra": 100, "decision": "fold"}], "2c 7d")
    with pytest.raises(ValueError, match="a Raise wager needs a Risk bet"):
        settle([{"seat": 2, "cards": "Ah Kh Qh", "raise": 100, "decision": "raise"}], "2c 7d")


# --- Three Card Extra [rules.md 4]: SF-trips-straight-flush-pair ---------------------------------

EXTRA_HANDS = {
    "straight_flush": "Ah Kh Qh",
    "three_of_a_kind": "9c 9d 9h",
    "straight": "Qc Kd Ah",
    "flush": "2h 7h 9h",
    "pair": "2c 2d Ah",
}
# Extra 100 -> won = 100 x odds.
EXTRA_WON = {
    "extra_a": {"straight_flush": 4000, "three_of_a_kind": 3000, "straight": 600, "flush": 400,
                "pair": 100},
    "extra_b": {"straight_flush": 4000, "three_of_a_kind": 2500, "straight": 600, "flush": 400,
                "pair": 100},
    "extra_c": {"straight_flush": 3500, "three_of_a_kind": 2500, "straight": 600, "flush": 400,
                "pair": 100},
}


@pytest.mark.parametrize("preset", sorted(EXTRA_WON))
@pytest.mark.parametrize("line", sorted(EXTRA_HANDS))
def test_brs_three_card_extra_presets(preset, line):
    seat = one(spot(EXTRA_HANDS[line], decision="fold", extra=100), "3s 5s", extra_table=preset)
    assert seat.wager("extra").outcome == "win"
    assert seat.wager("extra").won == EXTRA_WON[preset][line]
    assert seat.wager("extra").line == line


def test_brs_three_card_extra_uses_only_the_players_three_cards():
    # Ac Kd 9h is ace high for the Extra (loses) even though the community pair of aces makes
    # the five-card hand a pair of aces for the Risk bet.
    seat = one(spot("Ac Kd 9h", extra=100), "As 2d")
    assert outcomes(seat) == {
        "risk": ("win", 1000, 1000), "raise": ("win", 4000, 4000), "extra": ("lose", 0, 0)}


# --- Maximum payout [FCP 5.10 as for every game] ------------------------------------------------

def test_brs_maximum_payout_per_hand():
    # Royal: Risk 1000 at 500 = 500000, Raise 4000 at 500 = 2000000; capped at 1000000 for the
    # hand: Risk 500000, Raise 500000 (cut 1500000).
    seat = one(spot("As Qs Js"), "Ks Ts", max_payout=1000000)
    assert [(w.wager, w.won, w.cap_cut) for w in seat.wagers] == [
        ("risk", 500000, 0), ("raise", 500000, 1500000)]
    assert seat.paid == 5000 + 1000000


# --- Deal [BRS 3.3-3.4] and irregularities [rules.md 5] ------------------------------------------

@pytest.mark.parametrize("seats, community, message", [
    ([spot("Tc Td")], "8s 2d", "seat 1 cards: expected 3 cards, got 2"),
    ([spot("Tc Td 3h")], "8s 2d 4c", "community: expected 2 cards, got 3"),
    ([spot("Tc Td 8s")], "8s 2d", "seat 1 cards: card 8s already dealt"),
    ([spot("Tc Td 3h"), spot("Tc 4d 5h", seat=2)], "8s 2d", "seat 2 cards: card Tc already dealt"),
])
def test_brs_3_3_deal_sizes_and_duplicates_are_rejected(seats, community, message):
    with pytest.raises(ValueError, match=message):
        settle(seats, community)


def test_brs_6_2_misdeal_voids_the_round():
    seats = [spot("Tc Td 3h", extra=100), spot("Ac", seat=2, decision="fold", extra=50)]
    result = brs.void_round(brs.Config(), seats)
    assert result.void is True
    assert outcomes(result.seat(1)) == {
        "risk": ("void", 1000, 0), "raise": ("void", 4000, 0), "extra": ("void", 100, 0)}
    assert outcomes(result.seat(2)) == {"risk": ("void", 1000, 0), "extra": ("void", 50, 0)}
    assert result.paid == result.wagered == 6150 and result.won == 0


def test_brs_void_seat_returns_its_wagers():
    result = settle([spot("Tc Td 3h"), spot("Ah Kh Qh", seat=2, extra=100, void=True)], "8s 2d")
    assert outcomes(result.seat(2)) == {
        "risk": ("void", 1000, 0), "raise": ("void", 4000, 0), "extra": ("void", 100, 0)}
    assert outcomes(result.seat(1))["risk"] == ("win", 1000, 1000)


def test_brs_6_9_cards_to_an_empty_spot_are_discarded():
    result = settle([spot("Tc Td 3h"), {"seat": 7, "cards": "Ah Kh Qh"}], "8s 2d")
    assert result.seat(7).status == "empty" and result.seat(7).wagers == []
    assert result.wagered == 5000


def test_brs_6_9_a_spot_without_a_wager_dealt_part_of_a_hand_does_not_stop_play():
    # One card went to seat 7, which has no wager; the dealer discards it and play goes on
    # [BRS 6.9]; a void seat's hand collected after two cards settles void likewise.
    result = settle([spot("Tc Td 3h"), {"seat": 7, "cards": "Ah"},
                     spot("Kh Qh", seat=2, void=True)], "8s 2d")
    assert result.seat(7).status == "empty" and result.seat(7).wagers == []
    assert result.seat(2).status == "void"
    assert outcomes(result.seat(1))["risk"] == ("win", 1000, 1000)
    with pytest.raises(ValueError, match="seat 7 cards: expected at most 3 cards, got 4"):
        settle([spot("Tc Td 3h"), {"seat": 7, "cards": "Ah Kh Qh Jh"}], "8s 2d")


def test_brs_absent_player_is_treated_as_folded():
    seat = one(spot("Ah Kh Qh", decision="absent", extra=100), "2c 7d")
    assert seat.status == "folded"
    assert outcomes(seat) == {"risk": ("lose", 0, 0), "extra": ("win", 100, 4000)}


def test_brs_bad_input_is_rejected_and_changes_nothing():
    seats = [spot("Tc Td 3h", extra=True)]
    before = copy.deepcopy(seats)
    with pytest.raises(ValueError, match="seat 1: extra must be a whole number of cents"):
        settle(seats, "8s 2d")
    assert seats == before
    with pytest.raises(ValueError, match="unknown pay table 'extra_z'"):
        brs.Config(extra_table="extra_z")
    with pytest.raises(ValueError, match="pays the three_card_extra bet, not risk_raise"):
        brs.Config(risk_raise_table="extra_a")
    with pytest.raises(ValueError, match="seat 1: decision must be one of"):
        settle([spot("Tc Td 3h", decision="call")], "8s 2d")
