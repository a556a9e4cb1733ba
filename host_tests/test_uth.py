"""Ultimate Texas Hold'em settlement, one test per rule of rules.md section 2 (and 5 for UTH).

Every expected amount is worked out by hand in the test from the pay tables in rules.md; the
hands named in the comments are read off the cards by a person, not by the evaluator.
"""

import copy

import pytest

from firmware.poker import cards, hands, uth

BOARD_DRY = "2c 7d 9h Js 4c"   # no pair, no straight or flush draw that the hands below use


def spot(hole, ante=1000, decision="preflop", play=None, trips=0, jackpot=0, seat=1):
    if play is None:
        play = {"preflop": 4, "flop": 2, "river": 1}.get(decision, 0) * ante
    return {"seat": seat, "cards": hole, "ante": ante, "blind": ante, "play": play,
            "decision": decision, "trips": trips, "jackpot": jackpot}


def settle(seats, board, dealer, **options):
    return uth.settle(uth.Config(**options), seats, board, dealer)


def one(seat, board, dealer, **options):
    return settle([seat], board, dealer, **options).seat(seat["seat"])


def outcomes(seat_result):
    """wager -> (outcome, returned, won)"""
    return {w.wager: (w.outcome, w.returned, w.won) for w in seat_result.wagers}


# --- [UTH 10.1-10.8] settlement ---------------------------------------------------------------

def test_uth_10_1_dealer_not_qualified_ante_pushes():
    # Dealer Kd 3s + J 9 7: king high, no pair: does not qualify.  Player Ah 8d + J 9 7: ace high
    # beats it.  Ante pushes; Play 4000 wins 1:1; the Blind on a high card (below a straight) pushes.
    result = settle([spot("Ah 8d")], BOARD_DRY, "Kd 3s")
    assert result.dealer_qualifies is False
    assert outcomes(result.seat(1)) == {
        "ante": ("push", 1000, 0), "blind": ("push", 1000, 0), "play": ("win", 4000, 4000)}
    assert result.seat(1).paid == 10000


def test_uth_10_1_unqualified_dealer_who_beats_player_still_pushes_ante():
    # Dealer king high (not qualified) beats player queen high: Ante pushes [10.1], Play and Blind lose.
    seat = one(spot("Qh 8d", decision="flop"), BOARD_DRY, "Kd 3s")
    assert outcomes(seat) == {
        "ante": ("push", 1000, 0), "blind": ("lose", 0, 0), "play": ("lose", 0, 0)}


def test_uth_player_beats_qualified_dealer_ante_play_even_money_blind_pushes_below_straight():
    # Dealer Jd 3s + Js: pair of jacks, qualifies.  Player 9s 9c + 9h: three nines wins.
    # Ante 1000 wins 1000, Play 1x (river) 1000 wins 1000, Blind: trips is below a straight: push.
    # Trips 100 at 3 to 1 (trips_a) wins 300.
    seat = one(spot("9s 9c", decision="river", trips=100), BOARD_DRY, "Jd 3s")
    assert outcomes(seat) == {
        "ante": ("win", 1000, 1000), "blind": ("push", 1000, 0), "play": ("win", 1000, 1000),
        "trips": ("win", 100, 300)}
    assert seat.won == 2300 and seat.wagered == 3100 and seat.paid == 5400


def test_uth_10_7_dealer_beats_player_ante_play_blind_lose():
    # Dealer Jd Jh + Js: three jacks beats the player's three nines; Trips still pays 3 to 1.
    seat = one(spot("9s 9c", trips=100), BOARD_DRY, "Jd Jh")
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "blind": ("lose", 0, 0), "play": ("lose", 0, 0),
        "trips": ("win", 100, 300)}


def test_uth_10_6_equal_hands_push_ante_play_blind():
    # Both make A A K Q 3 with their hole cards (Ah 3c / Ad 3d) and As Ks Qd: a tie; the dealer
    # qualifies with the pair of aces.  Trips on one pair loses.
    result = settle([spot("Ah 3c", trips=100)], "As Ks Qd Jc 2h", "Ad 3d")
    assert result.dealer_qualifies is True
    assert outcomes(result.seat(1)) == {
        "ante": ("push", 1000, 0), "blind": ("push", 1000, 0), "play": ("push", 4000, 0),
        "trips": ("lose", 0, 0)}


# Blind table [rules.md 2]: royal 500, SF 50, quads 10, full house 3, flush 3 to 2, straight 1.
# Blind 1000 each time; every dealer hand here qualifies and loses.
BLIND_CASES = [
    ("royal", "As Ks", "Qs Js Ts 2d 3c", "2h 2c", "royal_flush", 500000),
    ("straight_flush", "9s 8s", "Qs Js Ts 2d 3c", "2h 2c", "straight_flush", 50000),
    ("quads", "Kc Kd", "Kh Ks 5c 2d 3c", "Qh Qd", "four_of_a_kind", 10000),
    ("full_house", "Kc Kd", "Kh 5s 5c 2d 8h", "Qh Qd", "full_house", 3000),
    ("flush", "Ah 7h", "Kh 4h 2h 9c Tc", "Qd Qs", "flush", 1500),
    ("straight", "9c 8d", "7h 6s 5c Ad Kd", "As Ac", "straight", 1000),
]


@pytest.mark.parametrize("hole, board, dealer, line, blind_won",
                         [c[1:] for c in BLIND_CASES], ids=[c[0] for c in BLIND_CASES])
def test_uth_blind_table_pays_each_line(hole, board, dealer, line, blind_won):
    result = settle([spot(hole)], board, dealer)
    assert result.dealer_qualifies is True
    seat = result.seat(1)
    blind = seat.wager("blind")
    assert (blind.outcome, blind.returned, blind.won, blind.line) == ("win", 1000, blind_won, line)
    assert outcomes(seat)["ante"] == ("win", 1000, 1000)
    assert outcomes(seat)["play"] == ("win", 4000, 4000)


def test_uth_blind_flush_3_to_2_on_odd_amount_rounds_down():
    # Blind 125 on a flush: 125 * 3 / 2 = 187.5, paid 187 (the half cent is never created).
    # Ante 125 wins 125, Play 3x = 375 wins 375.
    seat = one(spot("Ah 7h", ante=125, play=375), "Kh 4h 2h 9c Tc", "Qd Qs")
    assert outcomes(seat) == {
        "ante": ("win", 125, 125), "blind": ("win", 125, 187), "play": ("win", 375, 375)}
    assert seat.won == 687 and seat.paid == 125 + 125 + 375 + 687


def test_uth_blind_loses_when_dealer_wins_even_with_a_blind_hand():
    # Player 9c 8d + 7h 6d 5c: straight, nine high.  Dealer Kd Qd + Ad 6d 2d: ace-high flush,
    # which beats the straight; the Blind loses, it only pays on a winning hand.
    seat = one(spot("9c 8d"), "7h 6d 5c Ad 2d", "Kd Qd")
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "blind": ("lose", 0, 0), "play": ("lose", 0, 0)}


# --- [UTH 10.2] folds, [UTH 10.3-10.4] Trips --------------------------------------------------

def test_uth_10_2_fold_loses_ante_and_blind_and_jackpot_cannot_win():
    # Folded with four aces (Ah Ad + Ac As): Ante and Blind lost, the jackpot wager is collected
    # with no claim; [10.3-10.4] Trips 100 still pays four of a kind 30 to 1 = 3000.
    result = settle([spot("Ah Ad", decision="fold", trips=100, jackpot=100)],
                    "Ac As 5c 2d 8h", "Kd Kc")
    seat = result.seat(1)
    assert seat.status == "folded"
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "blind": ("lose", 0, 0), "trips": ("win", 100, 3000),
        "jackpot": ("lose", 0, 0)}
    assert result.claims == []
    assert seat.paid == 3100


@pytest.mark.parametrize("trips_preset, flush_won, straight_won", [
    ("trips_a", 700, 400), ("trips_b", 600, 500), ("trips_c", 600, 400)])
def test_uth_10_3_trips_presets_pay_on_the_players_hand(trips_preset, flush_won, straight_won):
    # Trips 100: flush pays 7/6/6 to 1 and straight 4/5/4 to 1 in presets a/b/c.
    flush = one(spot("Ah 7h", trips=100), "Kh 4h 2h 9c Tc", "Qd Qs", trips_table=trips_preset)
    straight = one(spot("9c 8d", trips=100), "7h 6s 5c Ad Kd", "As Ac", trips_table=trips_preset)
    assert outcomes(flush)["trips"] == ("win", 100, flush_won)
    assert outcomes(straight)["trips"] == ("win", 100, straight_won)


def test_uth_10_3_trips_full_house_differs_in_trips_c():
    # Full house: 8 to 1 in trips_a, 9 to 1 in trips_c; Trips 100.
    a = one(spot("Kc Kd", trips=100), "Kh 5s 5c 2d 8h", "Qh Qd")
    c = one(spot("Kc Kd", trips=100), "Kh 5s 5c 2d 8h", "Qh Qd", trips_table="trips_c")
    assert outcomes(a)["trips"] == ("win", 100, 800)
    assert outcomes(c)["trips"] == ("win", 100, 900)


def test_uth_10_4_trips_pays_on_a_push_and_loses_below_three_of_a_kind():
    # best5of7, board Kc Kd Kh Qs Jc: both the player (2d 3d) and the dealer (2h 3h) play
    # K K K Q J, a tie, and the dealer qualifies.  Trips pays three of a kind 3 to 1 = 300.
    seat = one(spot("2d 3d", trips=100), "Kc Kd Kh Qs Jc", "2h 3h", hand_rule="best5of7")
    assert outcomes(seat) == {
        "ante": ("push", 1000, 0), "blind": ("push", 1000, 0), "play": ("push", 4000, 0),
        "trips": ("win", 100, 300)}


# --- [UTH 10.5] hand rule and the separate Trips hand rule -------------------------------------

def test_uth_10_5_hole2_board3_is_the_default_hand_rule():
    # Board Ks Qs Js Ts 2d.  Player As 3c must use the 3c: A K Q J 3, ace high.  The dealer 2c 2h
    # + 2d: three deuces.  Dealer wins everything.
    seat = one(spot("As 3c", trips=100), "Ks Qs Js Ts 2d", "2c 2h")
    assert seat.hand_name == "High Card"
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "blind": ("lose", 0, 0), "play": ("lose", 0, 0),
        "trips": ("lose", 0, 0)}


def test_uth_10_5_best5of7_option():
    # Same cards, US rule: the player plays As Ks Qs Js Ts, a royal flush: Blind 500 to 1,
    # Trips 50 to 1 (trips_a).
    seat = one(spot("As 3c", trips=100), "Ks Qs Js Ts 2d", "2c 2h", hand_rule="best5of7")
    assert seat.hand_name == "Royal Flush"
    assert outcomes(seat) == {
        "ante": ("win", 1000, 1000), "blind": ("win", 1000, 500000), "play": ("win", 4000, 4000),
        "trips": ("win", 100, 5000)}


def test_uth_10_5_trips_hand_rule_is_separate():
    # Main hand by hole2_board3 loses; Trips by best5of7 is the royal: 50 to 1 on 100.
    seat = one(spot("As 3c", trips=100), "Ks Qs Js Ts 2d", "2c 2h", trips_hand_rule="best5of7")
    assert outcomes(seat)["ante"] == ("lose", 0, 0)
    assert outcomes(seat)["trips"] == ("win", 100, 5000)
    # And the other way round: main best5of7 (royal wins), Trips hole2_board3 (ace high loses).
    seat = one(spot("As 3c", trips=100), "Ks Qs Js Ts 2d", "2c 2h", hand_rule="best5of7",
               trips_hand_rule="hole2_board3")
    assert outcomes(seat)["blind"] == ("win", 1000, 500000)
    assert outcomes(seat)["trips"] == ("lose", 0, 0)


def test_uth_10_5_dealer_hand_uses_the_same_rule():
    # Board 7h 8h 9h Th 2c; dealer Ah 3d.  hole2_board3: the dealer must use the 3d: A 3 + 9 8 7,
    # ace high, not qualified.  best5of7: Ah + 7h 8h 9h Th flush, qualifies.
    result = settle([spot("Kc Kd")], "7h 8h 9h Th 2c", "Ah 3d")
    assert result.dealer_qualifies is False
    assert result.dealer_name == "High Card"
    result = settle([spot("Kc Kd")], "7h 8h 9h Th 2c", "Ah 3d", hand_rule="best5of7")
    assert result.dealer_qualifies is True
    assert result.dealer_name == "Flush"


# --- Progressive jackpot qualification [UTH 10.2, 11.1, 11.2, 11.7, 11.8, 11.12] -------------

def test_uth_10_2_jackpot_claim_on_hole_cards_and_flop_even_if_dealer_not_qualified():
    # Ah Kh + flop Qh Jh Th: royal flush on the flop.  Dealer 4s 5d + 2c 3d + a high card: no pair,
    # not qualified [11.8 pays whether or not the dealer qualifies].
    result = settle([spot("Ah Kh", decision="flop", jackpot=100)], "Qh Jh Th 2c 3d", "4s 5d")
    assert result.dealer_qualifies is False
    assert len(result.claims) == 1
    claim = result.claims[0]
    assert claim.seat == 1
    assert claim.hand == hands.ROYAL_FLUSH and claim.hand_name == "Royal Flush"
    assert claim.cards == tuple(cards.parse("Ah Kh Qh Jh Th"))
    # [11.12] the jackpot wager itself is collected; the prize comes from the jackpot module.
    assert outcomes(result.seat(1)) == {
        "ante": ("push", 1000, 0), "blind": ("win", 1000, 500000), "play": ("win", 2000, 2000),
        "jackpot": ("lose", 0, 0)}
    assert result.seat(1).wager("jackpot").line == "jackpot_claim"


def test_uth_10_2_jackpot_hand_ignores_turn_and_river():
    # Jackpot hand Ah Kh + flop 2h 7c 9d: ace high, no claim.  The turn and river Qh Jh give the
    # player a flush for the other wagers, which must not count for the jackpot.
    result = settle([spot("Ah Kh", jackpot=100)], "2h 7c 9d Qh Jh", "3s 3c")
    assert result.seat(1).hand_name == "Flush"
    assert result.claims == []
    assert result.seat(1).wager("jackpot").hand_name == "High Card"


def test_uth_11_9_claims_start_at_a_flush():
    # Ks Kd + flop Kc 7s 7d: full house on the flop -> claim.  Qs Js + flop: Q J K 7 7, one pair -> no claim.
    result = settle([spot("Ks Kd", jackpot=100), spot("Qs Js", jackpot=100, seat=2)],
                    "Kc 7s 7d 2h 3h", "4c 5c")
    assert [(c.seat, c.hand_name) for c in result.claims] == [(1, "Full House")]


def test_uth_11_9_a_straight_is_no_jackpot_hand_a_flush_is_the_lowest_that_is():
    # rules.md 11.9 pays flush and up: the hand just below it must not claim.  Flop 9h 8h 7h:
    # seat 1 Tc 6d makes 6-7-8-9-T, a straight of two suits; seat 2 Ah 3h five hearts, a
    # flush (no straight: A 3 7 8 9).  Only seat 2 claims; seat 1's jackpot wager is
    # collected with no claim line.
    result = settle([spot("Tc 6d", jackpot=100), spot("Ah 3h", jackpot=100, seat=2)],
                    "9h 8h 7h 2c 3d", "Kc Ks")
    assert [(c.seat, c.hand_name) for c in result.claims] == [(2, "Flush")]
    wager = result.seat(1).wager("jackpot")
    assert (wager.hand_name, wager.outcome, wager.returned, wager.line) == ("Straight", "lose", 0, None)
    assert result.seat(2).wager("jackpot").line == "jackpot_claim"


def test_uth_11_10_several_claims_in_one_round_are_listed_by_seat():
    # Flop Kc 7s 7d: seat 5 Ks Kd makes a full house, seat 2 7c 7h four sevens.
    result = settle([spot("Ks Kd", jackpot=100, seat=5), spot("7c 7h", jackpot=100, seat=2)],
                    "Kc 7s 7d 2h 3h", "4c 5c")
    assert [(c.seat, c.hand_name) for c in result.claims] == [(2, "Four of a Kind"), (5, "Full House")]


def test_uth_jackpot_hands_for_the_jackpot_module():
    # Seat 1 played, seat 2 folded, seat 3 void, seat 4 no jackpot wager.
    void = spot("2s 3s", seat=3, jackpot=100)
    void["void"] = True
    result = settle([spot("Ah Kh", jackpot=100), spot("Qc Qd", decision="fold", jackpot=100, seat=2),
                     void, spot("5c 5d", seat=4)], "Qh Jh Th 2c 3d", "4s 5s")
    assert uth.jackpot_hands(result) == [(1, cards.parse("Ah Kh"), True), (2, None, False)]
    assert uth.jackpot_hands(uth.void_round(uth.Config(), [spot("Ah Kh", jackpot=100)])) == []


def test_uth_11_1_jackpot_wager_needs_ante_and_blind():
    with pytest.raises(ValueError, match="seat 1: a jackpot wager needs Ante and Blind"):
        settle([{"seat": 1, "cards": "Ah Kh", "jackpot": 100, "decision": "fold"}],
               BOARD_DRY, "Kd 3s")


def test_uth_11_2_jackpot_wager_is_fixed_by_the_table_sign():
    with pytest.raises(ValueError, match="jackpot wager must be 100"):
        settle([spot("Ah Kh", jackpot=200)], BOARD_DRY, "Kd 3s")
    seat = one(spot("Ah Kh", jackpot=200), BOARD_DRY, "Kd 3s", jackpot_wager=200)
    assert outcomes(seat)["jackpot"] == ("lose", 0, 0)


# --- Wagers [rules.md 2] ---------------------------------------------------------------------

@pytest.mark.parametrize("decision, multiple", [
    ("preflop", 3), ("preflop", 4), ("flop", 2), ("river", 1)])
def test_uth_play_sizes_per_street_are_accepted(decision, multiple):
    # Player ace high beats the unqualified dealer: Play wins its own size.
    seat = one(spot("Ah 8d", decision=decision, play=multiple * 500, ante=500), BOARD_DRY, "Kd 3s")
    assert outcomes(seat)["play"] == ("win", multiple * 500, multiple * 500)


@pytest.mark.parametrize("decision, play, message", [
    ("preflop", 2000, "Play \\(2000\\) on the preflop must be 3x or 4x the Ante \\(1000\\)"),
    ("preflop", 5000, "must be 3x or 4x"),
    ("flop", 3000, "on the flop must be 2x"),
    ("river", 2000, "on the river must be 1x"),
    ("river", 0, "on the river must be 1x"),
    ("fold", 1000, "folded cannot have a Play wager"),
    ("absent", 1000, "absent cannot have a Play wager"),
])
def test_uth_wrong_play_size_for_its_street_is_rejected(decision, play, message):
    with pytest.raises(ValueError, match=message):
        settle([spot("Ah 8d", decision=decision, play=play)], BOARD_DRY, "Kd 3s")


def test_uth_ante_and_blind_must_be_equal():
    seat = spot("Ah 8d")
    seat["blind"] = 500
    with pytest.raises(ValueError, match="seat 1: Ante \\(1000\\) and Blind \\(500\\) must be equal"):
        settle([seat], BOARD_DRY, "Kd 3s")


def test_uth_trips_needs_ante_and_blind():
    with pytest.raises(ValueError, match="seat 2: a Trips wager needs Ante and Blind"):
        settle([{"seat": 2, "cards": "Ah 8d", "trips": 100}], BOARD_DRY, "Kd 3s")


@pytest.mark.parametrize("value", [-100, 10.5, True, "100", None])
def test_uth_bad_amounts_are_rejected(value):
    seat = spot("Ah 8d")
    seat["trips"] = value
    with pytest.raises(ValueError, match="seat 1: trips must be a whole number of cents"):
        settle([seat], BOARD_DRY, "Kd 3s")


def test_uth_decision_is_checked():
    seat = spot("Ah 8d")
    del seat["decision"]
    with pytest.raises(ValueError, match="seat 1: decision missing"):
        settle([seat], BOARD_DRY, "Kd 3s")
    seat["decision"] = "turn"
    with pytest.raises(ValueError, match="seat 1: decision must be one of"):
        settle([seat], BOARD_DRY, "Kd 3s")


def test_uth_3_1_up_to_seven_seats():
    seats = [spot(h, seat=i + 1) for i, h in enumerate(
        ["Ah 8d", "Qh 8c", "Kc 5d", "Th 6h", "3c 3d", "5h 6s", "Td Tc"])]
    assert len(settle(seats, BOARD_DRY, "Kd 3s").seats) == 7
    with pytest.raises(ValueError, match="seat number must be 1..7, got 8"):
        settle([spot("Ah 8d", seat=8)], BOARD_DRY, "Kd 3s")
    with pytest.raises(ValueError, match="seat 1 appears twice"):
        settle([spot("Ah 8d"), spot("Qh 8c")], BOARD_DRY, "Kd 3s")


def test_uth_unknown_field_and_options_are_rejected():
    seat = spot("Ah 8d")
    seat["tripz"] = 100
    with pytest.raises(ValueError, match="unknown field 'tripz'"):
        settle([seat], BOARD_DRY, "Kd 3s")
    with pytest.raises(ValueError, match="unknown option 'hand_rules'"):
        uth.Config(hand_rules="best5of7")
    with pytest.raises(ValueError, match="option hand_rule must be one of"):
        uth.Config(hand_rule="best5")
    with pytest.raises(ValueError, match="unknown pay table 'trips_x'"):
        uth.Config(trips_table="trips_x")
    with pytest.raises(ValueError, match="pays the aces_up bet, not trips"):
        uth.Config(trips_table="aces_a")
    with pytest.raises(ValueError, match="option max_payout"):
        uth.Config(max_payout=-1)
    with pytest.raises(ValueError, match="config must be a uth.Config"):
        uth.settle({}, [spot("Ah 8d")], BOARD_DRY, "Kd 3s")


# --- Payout cap [FCP 5.10 as in UTH] -----------------------------------------------------------

def test_uth_payout_cap_per_hand_reports_the_cut():
    # Royal: Ante 1000 wins 1000, Blind 500 to 1 = 500000, Play 4000, Trips 100 at 50 = 5000:
    # 510000 in all, capped at 100000 for the hand, taken in wager order: Ante 1000, Blind
    # 99000 (cut 401000), Play 0 (cut 4000), Trips 0 (cut 5000).  Wagers are still returned.
    seat = one(spot("As Ks", trips=100), "Qs Js Ts 2d 3c", "2h 2c", max_payout=100000)
    assert [(w.wager, w.won, w.cap_cut) for w in seat.wagers] == [
        ("ante", 1000, 0), ("blind", 99000, 401000), ("play", 0, 4000), ("trips", 0, 5000)]
    assert seat.won == 100000 and seat.cap_cut == 410000
    assert seat.returned == 1000 + 1000 + 4000 + 100


def test_uth_payout_cap_per_wager_option():
    seat = one(spot("As Ks", trips=100), "Qs Js Ts 2d 3c", "2h 2c", max_payout=100000,
               cap_scope="wager")
    assert [(w.wager, w.won, w.cap_cut) for w in seat.wagers] == [
        ("ante", 1000, 0), ("blind", 100000, 400000), ("play", 4000, 0), ("trips", 5000, 0)]
    assert seat.cap_cut == 400000


# --- Irregularities [rules.md 5] -----------------------------------------------------------------

def test_uth_misdeal_void_round_returns_every_wager():
    seats = [spot("Ah 8d", trips=100, jackpot=100), spot(None, seat=3, decision="fold")]
    seats[1]["cards"] = "Ah Ad As"   # a misdealt hand: cards are not checked in a void round
    result = uth.void_round(uth.Config(), seats)
    assert result.void is True
    assert outcomes(result.seat(1)) == {
        "ante": ("void", 1000, 0), "blind": ("void", 1000, 0), "play": ("void", 4000, 0),
        "trips": ("void", 100, 0), "jackpot": ("void", 100, 0)}
    assert outcomes(result.seat(3)) == {"ante": ("void", 1000, 0), "blind": ("void", 1000, 0)}
    assert result.wagered == result.paid == 6200 + 2000 and result.won == 0


def test_uth_void_round_still_checks_the_wagers():
    seat = spot("Ah 8d")
    seat["blind"] = 999
    with pytest.raises(ValueError, match="must be equal"):
        uth.void_round(uth.Config(), [seat])


def test_uth_void_seat_returns_its_wagers_and_others_settle():
    void = spot("Qh 8c", seat=2, trips=100)
    void["void"] = True
    result = settle([spot("Ah 8d"), void], BOARD_DRY, "Kd 3s")
    assert result.seat(2).status == "void"
    assert outcomes(result.seat(2)) == {
        "ante": ("void", 1000, 0), "blind": ("void", 1000, 0), "play": ("void", 4000, 0),
        "trips": ("void", 100, 0)}
    assert outcomes(result.seat(1))["play"] == ("win", 4000, 4000)


def test_uth_cards_dealt_to_an_empty_spot_are_discarded():
    result = settle([spot("Ah 8d"), {"seat": 5, "cards": "As Ad"}], BOARD_DRY, "Kd 3s")
    assert result.seat(5).status == "empty" and result.seat(5).wagers == []
    assert outcomes(result.seat(1))["play"] == ("win", 4000, 4000)
    # The discarded cards were still dealt: the same card elsewhere is a duplicate.
    with pytest.raises(ValueError, match="seat 5 cards: card 2c already dealt"):
        settle([spot("Ah 8d"), {"seat": 5, "cards": "2c Ad"}], BOARD_DRY, "Kd 3s")


def test_uth_absent_player_is_treated_as_folded():
    seat = one(spot("Ah Ad", decision="absent", trips=100), "Ac As 5c 2d 8h", "Kd Kc")
    assert seat.status == "folded"
    assert outcomes(seat) == {
        "ante": ("lose", 0, 0), "blind": ("lose", 0, 0), "trips": ("win", 100, 3000)}


@pytest.mark.parametrize("seats, board, dealer, message", [
    ([spot("Ah 8d"), spot("Ah 9d", seat=2)], BOARD_DRY, "Kd 3s", "seat 2 cards: card Ah already dealt"),
    ([spot("Ah 2c")], BOARD_DRY, "Kd 3s", "seat 1 cards: card 2c already dealt"),
    ([spot("Ah 8d")], BOARD_DRY, "Kd 2c", "dealer: card 2c already dealt"),
    ([spot("Ah 8d 5d")], BOARD_DRY, "Kd 3s", "seat 1 cards: expected 2 cards, got 3"),
    ([spot("Ah 8d")], "2c 7d 9h Js", "Kd 3s", "board: expected 5 cards, got 4"),
    ([spot("Ah 8d")], BOARD_DRY, "Kd", "dealer: expected 2 cards, got 1"),
    ([spot("Ah Xd")], BOARD_DRY, "Kd 3s", "seat 1 cards: bad card 'Xd'"),
])
def test_uth_bad_cards_are_rejected(seats, board, dealer, message):
    with pytest.raises(ValueError, match=message):
        settle(seats, board, dealer)


def test_uth_rejection_changes_nothing():
    seats = [spot("Ah 8d", trips=100), spot("Ah 9d", seat=2)]
    before = copy.deepcopy(seats)
    with pytest.raises(ValueError):
        settle(seats, BOARD_DRY, "Kd 3s")
    assert seats == before
