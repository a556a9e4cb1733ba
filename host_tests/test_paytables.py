"""Pay tables: every preset's odds as rules.md lists them, the hand-to-line lookup, validation."""

import pytest

from firmware.poker import cards, hands, paytables
from firmware.poker.paytables import PayTable


def five(text):
    return hands.best5(cards.parse(text))


def four(text):
    return hands.best4(cards.parse(text))


def three(text):
    return hands.three(cards.parse(text))


def odds_by_line(name):
    return {line[0]: (line[3], line[4]) for line in paytables.get(name).lines}


# Odds copied from rules.md sections 2-4 (N to 1 unless a denominator is shown).
EXPECTED = {
    "blind_a": {"royal_flush": (500, 1), "straight_flush": (50, 1), "four_of_a_kind": (10, 1),
                "full_house": (3, 1), "flush": (3, 2), "straight": (1, 1)},
    "trips_a": {"royal_flush": (50, 1), "straight_flush": (40, 1), "four_of_a_kind": (30, 1),
                "full_house": (8, 1), "flush": (7, 1), "straight": (4, 1), "three_of_a_kind": (3, 1)},
    "trips_b": {"royal_flush": (50, 1), "straight_flush": (40, 1), "four_of_a_kind": (30, 1),
                "full_house": (8, 1), "flush": (6, 1), "straight": (5, 1), "three_of_a_kind": (3, 1)},
    "trips_c": {"royal_flush": (50, 1), "straight_flush": (40, 1), "four_of_a_kind": (30, 1),
                "full_house": (9, 1), "flush": (6, 1), "straight": (4, 1), "three_of_a_kind": (3, 1)},
    "ante_bonus_a": {"four_of_a_kind": (25, 1), "straight_flush": (20, 1), "three_of_a_kind": (2, 1)},
    "aces_a": {"four_of_a_kind": (50, 1), "straight_flush": (40, 1), "three_of_a_kind": (8, 1),
               "flush": (6, 1), "straight": (4, 1), "two_pair": (2, 1), "pair_of_aces": (1, 1)},
    "aces_b": {"four_of_a_kind": (50, 1), "straight_flush": (40, 1), "three_of_a_kind": (8, 1),
               "flush": (5, 1), "straight": (4, 1), "two_pair": (3, 1), "pair_of_aces": (1, 1)},
    "aces_c": {"four_of_a_kind": (50, 1), "straight_flush": (30, 1), "three_of_a_kind": (7, 1),
               "flush": (6, 1), "straight": (5, 1), "two_pair": (2, 1), "pair_of_aces": (1, 1)},
    "aces_d": {"four_of_a_kind": (50, 1), "straight_flush": (40, 1), "three_of_a_kind": (9, 1),
               "flush": (6, 1), "straight": (4, 1), "two_pair": (2, 1), "pair_of_aces": (1, 1)},
    "risk_raise_a": {"royal_flush": (500, 1), "straight_flush": (100, 1), "four_of_a_kind": (40, 1),
                     "full_house": (8, 1), "flush": (6, 1), "straight": (4, 1),
                     "three_of_a_kind": (3, 1), "two_pair": (2, 1), "pair_tens_or_better": (1, 1),
                     "pair_sixes_to_nines": (0, 1)},
    "extra_a": {"straight_flush": (40, 1), "three_of_a_kind": (30, 1), "straight": (6, 1),
                "flush": (4, 1), "pair": (1, 1)},
    "extra_b": {"straight_flush": (40, 1), "three_of_a_kind": (25, 1), "straight": (6, 1),
                "flush": (4, 1), "pair": (1, 1)},
    "extra_c": {"straight_flush": (35, 1), "three_of_a_kind": (25, 1), "straight": (6, 1),
                "flush": (4, 1), "pair": (1, 1)},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_odds_match_rules(name):
    assert odds_by_line(name) == EXPECTED[name]


def test_every_preset_is_listed_and_defaults_match_rules():
    assert set(paytables.names()) == set(EXPECTED)
    assert paytables.names(paytables.BET_TRIPS) == ("trips_a", "trips_b", "trips_c")
    assert paytables.names(paytables.BET_ACES_UP) == ("aces_a", "aces_b", "aces_c", "aces_d")
    assert paytables.names(paytables.BET_EXTRA) == ("extra_a", "extra_b", "extra_c")
    assert paytables.default(paytables.BET_TRIPS).name == "trips_a"
    assert paytables.default(paytables.BET_ACES_UP).name == "aces_a"
    assert paytables.default(paytables.BET_EXTRA).name == "extra_a"
    assert paytables.default(paytables.BET_BLIND).name == "blind_a"


@pytest.mark.parametrize("hand, line", [
    ("As Ks Qs Js Ts", "royal_flush"),
    ("Ks Qs Js Ts 9s", "straight_flush"),
    ("Ad 2d 3d 4d 5d", "straight_flush"),
    ("7c 7d 7h 7s 2c", "four_of_a_kind"),
    ("Kc Kd Kh 2s 2c", "full_house"),
    ("2h 7h 9h Jh Kh", "flush"),
    ("Ac 2d 3h 4s 5c", "straight"),
    ("5c 5d 5h Ks 2c", "three_of_a_kind"),
    ("5c 5d Kh Ks 2c", "two_pair"),
    ("Ac Ad 9h 7s 2c", "pair_tens_or_better"),
    ("Tc Td 9h 7s 2c", "pair_tens_or_better"),
    ("9c 9d Ah 7s 2c", "pair_sixes_to_nines"),
    ("6c 6d Ah 7s 2c", "pair_sixes_to_nines"),
    ("5c 5d Ah 7s 2c", None),
    ("Ac Qd 9h 7s 2c", None),
])
def test_brs_lines_with_pair_thresholds(hand, line):
    got = paytables.pay_line("risk_raise_a", five(hand))
    assert (got[0] if got else None) == line


def test_royal_is_its_own_line_and_weaker_hands_miss_the_blind_table():
    blind = paytables.get("blind_a")
    assert blind.line_for(five("As Ks Qs Js Ts"))[0] == "royal_flush"
    assert blind.line_for(five("Ks Qs Js Ts 9s"))[0] == "straight_flush"
    assert blind.line_for(five("5c 5d 5h Ks 2c")) is None
    assert paytables.get("trips_a").line_for(five("5c 5d 5h Ks 2c"))[0] == "three_of_a_kind"
    assert paytables.get("trips_a").line_for(five("5c 5d Kh Ks 2c")) is None


@pytest.mark.parametrize("hand, line", [
    ("Ac Ad Ah As", "four_of_a_kind"),
    ("5h 6h 7h 8h", "straight_flush"),
    ("Jc Jd Jh 2s", "three_of_a_kind"),
    ("2h 7h 9h Kh", "flush"),
    ("Jc Qd Kh As", "straight"),
    ("3c 3d 2h 2s", "two_pair"),
    ("Ac Ad 2h 3s", "pair_of_aces"),
    ("Kc Kd Ah 3s", None),
    ("Ac Kd Qh 9s", None),
])
def test_aces_up_pair_of_aces_or_better(hand, line):
    got = paytables.pay_line("aces_a", four(hand))
    assert (got[0] if got else None) == line


@pytest.mark.parametrize("hand, line", [
    ("Ac Kc Qc", "straight_flush"),
    ("2c 3c Ac", "straight_flush"),
    ("9c 9d 9h", "three_of_a_kind"),
    ("Qc Kd Ah", "straight"),
    ("2h 7h 9h", "flush"),
    ("2c 2d Ah", "pair"),
    ("Ac Kd 9h", None),
])
def test_three_card_extra_lines(hand, line):
    got = paytables.pay_line("extra_a", three(hand))
    assert (got[0] if got else None) == line


def test_unknown_preset_is_named():
    with pytest.raises(ValueError, match="unknown pay table 'trips_z'"):
        paytables.get("trips_z")
    with pytest.raises(ValueError, match="unknown pay table"):
        paytables.pay_line("nope", five("As Ks Qs Js Ts"))


def test_table_of_another_bet_is_rejected():
    with pytest.raises(ValueError, match="pays the aces_up bet, not trips"):
        paytables.check_bet("aces_a", paytables.BET_TRIPS)
    assert paytables.check_bet("trips_b", paytables.BET_TRIPS).name == "trips_b"


def test_value_of_another_ranking_is_rejected():
    with pytest.raises(ValueError, match="aces_a reads four-card"):
        paytables.pay_line("aces_a", five("As Ks Qs Js Ts"))
    with pytest.raises(ValueError, match="extra_a reads three-card"):
        paytables.pay_line("extra_a", four("Ac Ad Ah As"))


def test_odds_lookup_and_text():
    trips = paytables.get("trips_a")
    assert trips.odds("flush") == (7, 1)
    with pytest.raises(ValueError, match="no line 'pair'"):
        trips.odds("pair")
    assert paytables.odds_text(3, 2) == "3 to 2"
    assert paytables.odds_text(0, 1) == "push"


GOOD_LINE = ("flush", hands.FLUSH, 0, 6, 1)


@pytest.mark.parametrize("lines, message", [
    ([], "non-empty"),
    ([("flush", hands.FLUSH, 0, 6)], "must be"),
    ([("flush", hands.FLUSH, 0, -1, 1)], "bad odds"),
    ([("flush", hands.FLUSH, 0, 6, 0)], "bad odds"),
    ([("flush", hands.FLUSH, 0, 1.5, 1)], "bad odds"),
    ([("flush", hands.FLUSH, 0, True, 1)], "bad odds"),
    ([("flush", 12, 0, 6, 1)], "bad category"),
    ([("flush", hands.FLUSH, 13, 6, 1)], "bad min_rank"),
    ([GOOD_LINE, GOOD_LINE], "repeated"),
    ([("pair", hands.ONE_PAIR, 0, 1, 1), GOOD_LINE], "best hand first"),
])
def test_bad_tables_are_rejected(lines, message):
    with pytest.raises(ValueError, match=message):
        PayTable("custom", paytables.BET_TRIPS, hands.KIND_FIVE, lines)


def test_bad_table_header_is_rejected():
    with pytest.raises(ValueError, match="unknown bet"):
        PayTable("custom", "keno", hands.KIND_FIVE, [GOOD_LINE])
    with pytest.raises(ValueError, match="unknown ranking"):
        PayTable("custom", paytables.BET_TRIPS, 7, [GOOD_LINE])
    with pytest.raises(ValueError, match="the trips bet is paid on five-card hands, not four-card"):
        PayTable("custom", paytables.BET_TRIPS, hands.KIND_FOUR, [GOOD_LINE])
    with pytest.raises(ValueError, match="name"):
        PayTable("", paytables.BET_TRIPS, hands.KIND_FIVE, [GOOD_LINE])


def test_custom_table_works_like_a_preset():
    table = PayTable("house_trips", paytables.BET_TRIPS, hands.KIND_FIVE,
                     [("straight_flush", hands.STRAIGHT_FLUSH, 0, 40, 1),
                      ("three_of_a_kind", hands.THREE_OF_A_KIND, 0, 3, 1)])
    # Without a royal line the royal is paid as a straight flush.
    assert table.line_for(five("As Ks Qs Js Ts"))[0] == "straight_flush"
    assert table.line_for(five("Kc Kd Kh 2s 2c")) is None
    assert paytables.check_bet(table, paytables.BET_TRIPS) is table


def test_presets_are_built_on_first_use_and_kept(monkeypatch):
    """A table holds only the presets its game pays: each is built when first asked for."""
    monkeypatch.setattr(paytables, "_built", {})
    table = paytables.get("trips_b")
    assert list(paytables._built) == ["trips_b"]
    assert paytables.get("trips_b") is table and paytables.check_bet("trips_b", "trips") is table
    for bet in paytables.BETS:
        assert all(paytables.get(n).bet == bet for n in paytables.names(bet))


# --- distinct hands per pay line, counted from first principles --------------------------------
#
# rules.md 1 quotes 7,462 five-card, 2,535 four-card and 741 three-card values.  Counted by
# hand from the ranks alone (a value is a rank pattern, flush or not; k-card straights run
# A-low to A-high: 10 five-card, 11 four-card, 12 three-card ones), each pay line of the Four
# Card Poker and Big Raise Stud presets must be reached by exactly these many values:
#   five: royal 1, other SF 9, quads 13*12, FH 13*12, flush C(13,5)-10, straight 10,
#         trips 13*C(12,2), two pair C(13,2)*11, a pair of a given rank C(12,3) kickers;
#   four: quads 13, SF 11, trips 13*12, flush C(13,4)-11, straight 11, two pair C(13,2),
#         a pair of a given rank C(12,2) kickers, high card C(13,4)-11;
#   three: SF 12, trips 13, straight 12, flush C(13,3)-12, pair 13*12, high C(13,3)-12.
# The evaluator enumerates each ranking's distinct values (every rank multiset, suited and
# not), and line_for sorts them: the counts check both, and the pair thresholds (pair of
# aces; tens or better; sixes to nines) on the lines.

def _c(n, k):
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def _distinct_values(size, evaluate):
    """Every distinct hand value of `size` cards: each rank multiset once unsuited (as far
    as the suits allow) and, with `size` distinct ranks, once in one suit."""
    from itertools import combinations_with_replacement

    values = set()
    for ranks in combinations_with_replacement(range(13), size):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        used = {}
        hand = []
        for r in ranks:                     # suits 0,1,2,3 in turn within a rank: no flush
            suit = used.get(r, (r % 2))     # (alternate the first suit so ranks mix suits)
            hand.append(cards.make(r, suit % 4))
            used[r] = suit + 1
        if len({c & 3 for c in hand}) == 1:  # all one suit by chance: move one card's suit
            hand[0] = cards.make(ranks[0], (hand[0] + 1) & 3)
        values.add(evaluate(hand))
        if len(set(ranks)) == size:
            values.add(evaluate([cards.make(r, 0) for r in ranks]))
    return values


FIRST_PRINCIPLES = {
    "risk_raise_a": (5, {"royal_flush": 1, "straight_flush": 9, "four_of_a_kind": 13 * 12,
                         "full_house": 13 * 12, "flush": _c(13, 5) - 10, "straight": 10,
                         "three_of_a_kind": 13 * _c(12, 2), "two_pair": _c(13, 2) * 11,
                         "pair_tens_or_better": 5 * _c(12, 3),       # T J Q K A
                         "pair_sixes_to_nines": 4 * _c(12, 3),       # 6 7 8 9: a push
                         None: 4 * _c(12, 3) + _c(13, 5) - 10}),     # pairs 2-5, high card
    "aces_a": (4, {"four_of_a_kind": 13, "straight_flush": 11, "three_of_a_kind": 13 * 12,
                   "flush": _c(13, 4) - 11, "straight": 11, "two_pair": _c(13, 2),
                   "pair_of_aces": _c(12, 2), None: 12 * _c(12, 2) + _c(13, 4) - 11}),
    "ante_bonus_a": (4, {"four_of_a_kind": 13, "straight_flush": 11, "three_of_a_kind": 13 * 12,
                         None: 2535 - 13 - 11 - 13 * 12}),
    "extra_a": (3, {"straight_flush": 12, "three_of_a_kind": 13, "straight": 12,
                    "flush": _c(13, 3) - 12, "pair": 13 * 12, None: _c(13, 3) - 12}),
}
_EVALUATE = {5: hands.best5, 4: hands.best4, 3: hands.three}


@pytest.mark.parametrize("name", sorted(FIRST_PRINCIPLES))
def test_each_pay_line_is_reached_by_the_hands_counted_from_first_principles(name):
    size, want = FIRST_PRINCIPLES[name]
    table = paytables.get(name)
    got = {}
    for value in _distinct_values(size, _EVALUATE[size]):
        line = table.line_for(value)
        key = None if line is None else line[paytables.LINE]
        got[key] = got.get(key, 0) + 1
    assert got == want
    assert sum(want.values()) == {5: 7462, 4: 2535, 3: 741}[size]     # rules.md 1
