"""Four Card Poker settlement, one test per rule of rules.md section 3 (and 5 for FCP).

Expected amounts are worked out by hand from the pay tables in rules.md; hands named in the
comments are read off the cards by a person.
"""

import copy

import pytest

from firmware.poker import fcp

DEALER_LOW = "2d 3d 4s 8d Jc Qs"   # best four: Q J 8 4, queen high (three diamonds only)


def spot(hand, ante=1000, play=None, aces_up=0, decision="play", seat=1, **extra):
    if play is None:
        play = ante if decision == "play" else 0
    result = {"seat": seat, "cards": hand, "ante": ante, "play": play, "aces_up": aces_up,
              "decision": decision}
    result.update(extra)
    return result


def settle(seats, dealer, **options):
    return fcp.settle(fcp.Config(**options), seats, dealer)


def one(seat, dealer, **options):
    return settle([seat], dealer, **options).seat(seat["seat"])


def outcomes(seat_result):
    return {w.wager: (w.outcome, w.returned, w.won) for w in seat_result.wagers}


# --- [FCP 5.7, 10.2] Ante and Play -------------------------------------------------------------

def test_fcp_5_7_equal_hands_player_wins():
    # Player Ac Ad Kc 7h (2s) and dealer Ah As Kd 7s (3c 2h): both A A K 7, a tie: the player wins
    # Ante 1000 and Play 3x = 3000 at 1 to 1; Aces Up 500 on a pair of aces pays 1 to 1.
    seat = one(spot("Ac Ad Kc 7h 2s", play=3000, aces_up=500), "Ah As Kd 7s 3c 2h")
    assert outcomes(seat) == {
        "ante": ("win", 1000, 1000), "play": ("win", 3000, 3000), "aces_up": ("win", 500, 500)}


def test_fcp_10_2_lower_hand_loses_ante_and_play():
    # Dealer Kh Ks Kd: three kings beat the player's pair of aces.  Aces Up still pays 1 to 1.
    seat = one(spot("Ac Ad Qc 7h 2s", aces_up=500), "Kh Ks Kd 3c 4d 9s")
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "play": ("lose", 0, 0), "aces_up": ("win", 500, 500)}


@pytest.mark.parametrize("multiple", [1, 2, 3])
def test_fcp_9_1_play_is_1x_to_3x_the_ante(multiple):
    # Player pair of aces beats the dealer's queen high: Play wins its own size.
    seat = one(spot("Ac Ad 5c 7h 9s", ante=500, play=500 * multiple), DEALER_LOW)
    assert outcomes(seat)["play"] == ("win", 500 * multiple, 500 * multiple)


@pytest.mark.parametrize("play, decision, message", [
    (4000, "play", "Play \\(4000\\) must be 1x, 2x or 3x the Ante \\(1000\\)"),
    (1500, "play", "must be 1x, 2x or 3x"),
    (0, "play", "must be 1x, 2x or 3x"),
    (1000, "fold", "folded cannot have a Play wager"),
    (1000, "absent", "absent cannot have a Play wager"),
])
def test_fcp_9_1_wrong_play_is_rejected(play, decision, message):
    with pytest.raises(ValueError, match=message):
        settle([spot("Ac Ad 5c 7h 9s", play=play, decision=decision)], DEALER_LOW)


def test_fcp_10_1_dealer_best_four_of_six():
    # The dealer's sixth card Kh makes three kings (Kc Kd Kh 7c), which beat the player's three
    # queens; with five cards only the dealer would hold a pair of kings and lose.  The Ante
    # Bonus on the queens still pays trips 2 to 1 = 2000.
    seat = one(spot("Qc Qd Qh 8s 2c"), "Kc Kd 2h 3s 7c Kh")
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "play": ("lose", 0, 0), "ante_bonus": ("win", 0, 2000)}


def test_fcp_9_4_player_best_four_of_five_uses_four_card_ranking():
    # Jc Jd Jh 4h 4s: in four-card poker the best four are J J J 4, three of a kind (no full
    # house exists), which beats the dealer's two pair A A K K.  Ante Bonus trips 2 to 1 = 2000.
    seat = one(spot("Jc Jd Jh 4h 4s"), "Ac Ad Kc Kd 2h 3s")
    assert outcomes(seat) == {
        "ante": ("win", 1000, 1000), "play": ("win", 1000, 1000), "ante_bonus": ("win", 0, 2000)}


# --- Ante Bonus [FCP 10.2] ---------------------------------------------------------------------

def test_fcp_ante_bonus_pays_regardless_of_the_dealer():
    # Four nines lose to the dealer's four aces: Ante and Play lose, but the Ante Bonus pays
    # quads 25 to 1 on the 1000 Ante = 25000, and Aces Up 500 pays quads 50 to 1 = 25000.
    seat = one(spot("9c 9d 9h 9s 2c", aces_up=500), "Ac Ad Ah As Kc Qd")
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "play": ("lose", 0, 0), "ante_bonus": ("win", 0, 25000),
        "aces_up": ("win", 500, 25000)}
    assert seat.paid == 50500 and seat.wagered == 2500
    assert seat.wager("ante_bonus").base == 1000 and seat.wager("ante_bonus").odds == (25, 1)


@pytest.mark.parametrize("hand, bonus", [
    ("5h 6h 7h 8h Kc", 20000),   # straight flush 20 to 1
    ("7c 7d 7h Kc 2s", 2000),    # three of a kind 2 to 1
    ("Ac Ad 7h Kc 2s", None),    # a pair gets no bonus
])
def test_fcp_ante_bonus_table(hand, bonus):
    seat = one(spot(hand), DEALER_LOW)
    got = seat.wager("ante_bonus")
    assert (got.won if got else None) == bonus


def test_fcp_ante_bonus_not_on_a_folded_hand_but_aces_up_is_kept():
    # Folding three sevens: the Ante is lost, no Ante Bonus; the Aces Up 500 stays and pays
    # trips 8 to 1 (aces_a) = 4000.
    seat = one(spot("7c 7d 7h Kc 2s", decision="fold", aces_up=500), DEALER_LOW)
    assert seat.status == "folded"
    assert outcomes(seat) == {"ante": ("lose", 0, 0), "aces_up": ("win", 500, 4000)}


# --- Aces Up [FCP 5.1, 10.2] -------------------------------------------------------------------

ACES_HANDS = {
    "straight_flush": "5h 6h 7h 8h Kc",
    "three_of_a_kind": "7c 7d 7h Kc 2s",
    "flush": "2d 6d 9d Jd Kc",
    "straight": "9c Td Jh Qs 2c",
    "two_pair": "3c 3d 8h 8s Kc",
    "pair_of_aces": "Ac Ad 4h 8s Kc",
}
# rules.md 3: quads-SF-trips-flush-straight-two pair-pair of aces; Aces Up 100 -> won = 100 x odds.
ACES_WON = {
    "aces_a": {"straight_flush": 4000, "three_of_a_kind": 800, "flush": 600, "straight": 400,
               "two_pair": 200, "pair_of_aces": 100},
    "aces_b": {"straight_flush": 4000, "three_of_a_kind": 800, "flush": 500, "straight": 400,
               "two_pair": 300, "pair_of_aces": 100},
    "aces_c": {"straight_flush": 3000, "three_of_a_kind": 700, "flush": 600, "straight": 500,
               "two_pair": 200, "pair_of_aces": 100},
    "aces_d": {"straight_flush": 4000, "three_of_a_kind": 900, "flush": 600, "straight": 400,
               "two_pair": 200, "pair_of_aces": 100},
}


@pytest.mark.parametrize("preset", sorted(ACES_WON))
@pytest.mark.parametrize("line", sorted(ACES_HANDS))
def test_fcp_aces_up_presets(preset, line):
    # An Aces-Up-only seat: no decision needed, no Play; the dealer does not matter.
    seat = one({"seat": 1, "cards": ACES_HANDS[line], "aces_up": 100}, "As Ks Qc Js 9h 3s",
               aces_up_table=preset)
    assert outcomes(seat) == {"aces_up": ("win", 100, ACES_WON[preset][line])}
    assert seat.wager("aces_up").line == line


def test_fcp_aces_up_loses_below_a_pair_of_aces():
    seat = one({"seat": 1, "cards": "Kc Kd 4h 8s 2c", "aces_up": 100}, DEALER_LOW)
    assert outcomes(seat) == {"aces_up": ("lose", 0, 0)}


def test_fcp_5_1_aces_up_alone_may_not_have_a_play_wager():
    with pytest.raises(ValueError, match="seat 1: a Play wager \\(1000\\) is not allowed from an "
                                         "Aces-Up-only seat"):
        settle([{"seat": 1, "cards": "Ac Ad 4h 8s Kc", "aces_up": 100, "play": 1000,
                 "decision": "play"}], DEALER_LOW)


def test_fcp_5_1_aces_up_alone_is_at_the_operators_discretion():
    with pytest.raises(ValueError, match="Aces Up without an Ante is not offered"):
        settle([{"seat": 1, "cards": "Ac Ad 4h 8s Kc", "aces_up": 100}], DEALER_LOW,
               aces_up_alone=False)


def test_fcp_5_1_play_without_ante_is_rejected():
    with pytest.raises(ValueError, match="not allowed from a seat without an Ante"):
        settle([{"seat": 1, "cards": "Ac Ad 4h 8s Kc", "play": 1000, "decision": "play"}],
               DEALER_LOW)


# --- Blind Play [FCP 5.8] ----------------------------------------------------------------------

def test_fcp_5_8_blind_play_only_where_the_operator_allows_it():
    with pytest.raises(ValueError, match="blind Play wager is not offered"):
        settle([spot("Ac Ad 5c 7h 9s", play=3000, blind_play=True)], DEALER_LOW)


def test_fcp_5_8_blind_play_is_withdrawn_on_a_fold():
    # Blind Play 2000 withdrawn (returned), the Ante 1000 lost.
    seat = one(spot("Kc 2h 5c 7h 9s", play=2000, decision="fold", blind_play=True), DEALER_LOW,
               blind_play=True)
    assert outcomes(seat) == {"ante": ("lose", 0, 0), "play": ("void", 2000, 0)}
    assert seat.wager("play").line == "withdrawn"
    assert seat.paid == 2000


def test_fcp_5_8_blind_play_stands_when_the_player_plays():
    seat = one(spot("Ac Ad 5c 7h 9s", play=3000, blind_play=True), DEALER_LOW, blind_play=True)
    assert outcomes(seat) == {"ante": ("win", 1000, 1000), "play": ("win", 3000, 3000)}


def test_fcp_5_8_blind_play_size_is_checked():
    with pytest.raises(ValueError, match="must be 1x, 2x or 3x"):
        settle([spot("Ac Ad 5c 7h 9s", play=4000, decision="fold", blind_play=True)], DEALER_LOW,
               blind_play=True)


# --- Maximum payout [FCP 5.10] -----------------------------------------------------------------

def test_fcp_5_10_maximum_payout_per_hand():
    # Four nines beat queen high: Ante 1000, Play 3000, Ante Bonus 25 x 1000 = 25000, Aces Up
    # 50 x 1000 = 50000: 79000 won, capped at 30000 in wager order: Ante 1000, Play 3000, Bonus
    # 25000, Aces Up 1000 (cut 49000).
    seat = one(spot("9c 9d 9h 9s 2c", play=3000, aces_up=1000), DEALER_LOW, max_payout=30000)
    assert [(w.wager, w.won, w.cap_cut) for w in seat.wagers] == [
        ("ante", 1000, 0), ("play", 3000, 0), ("ante_bonus", 25000, 0), ("aces_up", 1000, 49000)]
    assert seat.won == 30000 and seat.cap_cut == 49000 and seat.returned == 5000


# --- Deal [FCP 8.2-8.4] and irregularities [rules.md 5] ------------------------------------------

@pytest.mark.parametrize("seats, dealer, message", [
    ([spot("Ac Ad 5c 7h")], DEALER_LOW, "seat 1 cards: expected 5 cards, got 4"),
    ([spot("Ac Ad 5c 7h 9s")], "2d 3d 4s 8d Jc", "dealer: expected 6 cards, got 5"),
    ([spot("Ac Ad 5c 7h 2d")], DEALER_LOW, "seat 1 cards: card 2d already dealt"),
    ([spot("Ac Ad 5c 7h 9s"), spot("Ah As 5h 7s 9s", seat=2)], DEALER_LOW,
     "seat 2 cards: card 9s already dealt"),
])
def test_fcp_8_2_deal_sizes_and_11_6_duplicates_are_rejected(seats, dealer, message):
    with pytest.raises(ValueError, match=message):
        settle(seats, dealer)


def test_fcp_11_2_misdeal_voids_the_round():
    seats = [spot("Ac Ad 5c 7h 9s", play=3000, aces_up=500),
             {"seat": 4, "aces_up": 200, "cards": "junk"}]
    result = fcp.void_round(fcp.Config(), seats)
    assert result.void is True
    assert outcomes(result.seat(1)) == {
        "ante": ("void", 1000, 0), "play": ("void", 3000, 0), "aces_up": ("void", 500, 0)}
    assert outcomes(result.seat(4)) == {"aces_up": ("void", 200, 0)}
    assert result.paid == result.wagered == 4700


def test_fcp_11_1_void_seat_returns_its_wagers():
    void = spot("Kc Kd 4h 8s 2c", seat=3, aces_up=100, void=True)
    result = settle([spot("Ac Ad 5c 7h 9s"), void], DEALER_LOW)
    assert result.seat(3).status == "void"
    assert outcomes(result.seat(3)) == {
        "ante": ("void", 1000, 0), "play": ("void", 1000, 0), "aces_up": ("void", 100, 0)}
    assert outcomes(result.seat(1))["ante"] == ("win", 1000, 1000)


def test_fcp_11_4_cards_to_an_empty_spot_are_discarded():
    result = settle([spot("Ac Ad 5c 7h 9s"), {"seat": 6, "cards": "Kc Kd 4h 8s 2c"}], DEALER_LOW)
    assert result.seat(6).status == "empty" and result.seat(6).wagers == []
    assert result.wagered == 2000


def test_fcp_11_4_a_spot_without_a_wager_dealt_part_of_a_hand_does_not_stop_play():
    # The dealer sees after two cards that seat 6 has no wager and discards them: play goes
    # on [FCP 11.4], the two cards still count as dealt (a third Kc elsewhere is refused).
    result = settle([spot("Ac Ad 5c 7h 9s"), {"seat": 6, "cards": "Kc Kd"}], DEALER_LOW)
    assert result.seat(6).status == "empty" and result.seat(6).wagers == []
    assert outcomes(result.seat(1))["ante"] == ("win", 1000, 1000)
    with pytest.raises(ValueError, match="Kc already dealt"):
        settle([spot("Ac Ad 5c 7h Kc"), {"seat": 6, "cards": "Kc Kd"}], DEALER_LOW)
    with pytest.raises(ValueError, match="seat 6 cards: expected at most 5 cards, got 6"):
        settle([spot("Ac Ad 5c 7h 9s"), {"seat": 6, "cards": "Kc Kd Kh Ks 2c 6c"}], DEALER_LOW)


def test_fcp_11_15_a_hand_collected_early_is_void_with_the_cards_read():
    # Seat 3's cards were collected after three of them were read: its hand is void, its
    # wagers returned, and the others settle.
    void = spot("Kc Kd 4h", seat=3, aces_up=100, void=True)
    result = settle([spot("Ac Ad 5c 7h 9s"), void], DEALER_LOW)
    assert outcomes(result.seat(3)) == {
        "ante": ("void", 1000, 0), "play": ("void", 1000, 0), "aces_up": ("void", 100, 0)}
    with pytest.raises(ValueError, match="seat 1 cards: expected 5 cards, got 4"):
        settle([spot("Ac Ad 5c 7h"), void], DEALER_LOW)     # a seat in play needs its five


def test_fcp_11_13_absent_player_is_treated_as_folded():
    # Absent with three sevens: Ante lost, no bonus, Aces Up 100 kept: trips 8 to 1 = 800.
    seat = one(spot("7c 7d 7h Kc 2s", decision="absent", aces_up=100), DEALER_LOW)
    assert seat.status == "folded"
    assert outcomes(seat) == {"ante": ("lose", 0, 0), "aces_up": ("win", 100, 800)}


def test_fcp_bad_input_is_rejected_and_changes_nothing():
    seats = [spot("Ac Ad 5c 7h 9s", aces_up=-5)]
    before = copy.deepcopy(seats)
    with pytest.raises(ValueError, match="seat 1: aces_up must be a whole number of cents"):
        settle(seats, DEALER_LOW)
    assert seats == before
    seats = [spot("Ac Ad 5c 7h 9s")]
    del seats[0]["decision"]
    with pytest.raises(ValueError, match="seat 1: decision missing"):
        settle(seats, DEALER_LOW)
    with pytest.raises(ValueError, match="unknown pay table 'aces_e'"):
        fcp.Config(aces_up_table="aces_e")
    with pytest.raises(ValueError, match="option blind_play must be True or False"):
        fcp.Config(blind_play=1)
    with pytest.raises(ValueError, match="blind_play must be True or False"):
        settle([spot("Ac Ad 5c 7h 9s", blind_play="yes")], DEALER_LOW)
