"""The hand evaluator against published counts and independent evaluators.

Published category counts are the standard combinatorial counts (e.g. Wikipedia's "Poker
probability" article for five- and seven-card hands; the four- and three-card counts are the
ones quoted in the project's foundation issue, which match Wizard of Odds' Four Card Poker and
Three Card Poker pages). The independent evaluators are `phevaluator` (PyPI, lower rank is a
better hand) and host_tests/reference_rank.py for the four- and three-card orders.
"""

import random
from collections import Counter, defaultdict
from itertools import combinations

import pytest
from phevaluator import evaluate_cards

from firmware.poker import cards, hands
from host_tests.reference_rank import FOUR_ORDER, THREE_ORDER, four_card_key, three_card_key

FIVE_COUNTS = {  # category -> number of the 2,598,960 five-card hands
    hands.STRAIGHT_FLUSH: 40, hands.FOUR_OF_A_KIND: 624, hands.FULL_HOUSE: 3744,
    hands.FLUSH: 5108, hands.STRAIGHT: 10200, hands.THREE_OF_A_KIND: 54912,
    hands.TWO_PAIR: 123552, hands.ONE_PAIR: 1098240, hands.HIGH_CARD: 1302540,
}
FOUR_COUNTS = {  # category -> number of the 270,725 four-card hands
    hands.FOUR_FOUR_OF_A_KIND: 13, hands.FOUR_STRAIGHT_FLUSH: 44, hands.FOUR_THREE_OF_A_KIND: 2496,
    hands.FOUR_FLUSH: 2816, hands.FOUR_STRAIGHT: 2772, hands.FOUR_TWO_PAIR: 2808,
    hands.FOUR_ONE_PAIR: 82368, hands.FOUR_HIGH_CARD: 177408,
}
THREE_COUNTS = {  # category -> number of the 22,100 three-card hands
    hands.THREE_STRAIGHT_FLUSH: 48, hands.THREE_THREE_OF_A_KIND: 52, hands.THREE_STRAIGHT: 720,
    hands.THREE_FLUSH: 1096, hands.THREE_ONE_PAIR: 3744, hands.THREE_HIGH_CARD: 16440,
}
SEVEN_COUNTS = {  # category -> number of the 133,784,560 seven-card hands (royal: 4,324 of the SFs)
    hands.STRAIGHT_FLUSH: 37260 + 4324, hands.FOUR_OF_A_KIND: 224848, hands.FULL_HOUSE: 3473184,
    hands.FLUSH: 4047644, hands.STRAIGHT: 6180020, hands.THREE_OF_A_KIND: 6461620,
    hands.TWO_PAIR: 31433400, hands.ONE_PAIR: 58627800, hands.HIGH_CARD: 23294460,
}


def assert_order_matches(pairs, better_is_lower):
    """pairs: (our value, oracle key). Same value <=> same key, and the orders agree."""
    by_value = defaultdict(set)
    for value, key in pairs:
        by_value[value].add(key)
    clashes = {v: k for v, k in by_value.items() if len(k) != 1}
    assert not clashes, "one value, several oracle ranks: %r" % list(clashes.items())[:3]
    ordered = sorted(by_value)
    keys = [next(iter(by_value[v])) for v in ordered]
    assert len(set(keys)) == len(keys), "two values share one oracle rank"
    for low, high in zip(keys, keys[1:]):
        assert (high < low) if better_is_lower else (high > low), (low, high)
    return len(ordered)


# ---- cards -------------------------------------------------------------------------------

def test_parse_accepts_every_spelling():
    assert cards.parse("As Td 10h 2c") == [51, 33, 34, 0]
    assert cards.parse("as,TD  10H") == [51, 33, 34]
    assert cards.parse("") == []


def test_parse_round_trips_every_card():
    for card in range(52):
        assert cards.parse(cards.name(card)) == [card]
    assert len({cards.name(c) for c in range(52)}) == 52


@pytest.mark.parametrize("token", ["Xs", "A", "1h", "11c", "Asd", "Ax", "10", "♠A", "AS5", "0s"])
def test_parse_rejects_bad_token_naming_it(token):
    with pytest.raises(ValueError) as error:
        cards.parse("Kd " + token)
    assert repr(token) in str(error.value)


def test_parse_rejects_duplicate_naming_it():
    with pytest.raises(ValueError, match="duplicate card 'as'"):
        cards.parse("As Kd as")


@pytest.mark.parametrize("bad", [-1, 52, True, "As", 3.0, None])
def test_name_rejects_non_cards(bad):
    with pytest.raises(ValueError):
        cards.name(bad)


def test_check_names_duplicates_and_counts():
    assert cards.check([0, 1, 2], 3) == [0, 1, 2]
    with pytest.raises(ValueError, match="duplicate card 2c"):
        cards.check([0, 5, 0])
    with pytest.raises(ValueError, match="expected 5 cards, got 4"):
        cards.check([0, 1, 2, 3], 5, "player")
    with pytest.raises(ValueError, match="bad card"):
        cards.check([0, 60])
    # the field the bad card came from is named, as a bad card in text is
    with pytest.raises(ValueError, match="^seat 3 cards: bad card 60: expected an int 0..51$"):
        cards.check([0, 60], 2, "seat 3 cards")


@pytest.mark.parametrize("text", ["As\u00a0Kd", "As\u2003Kd", "As\x1cKd", "As\u3000Kd"])
def test_only_ascii_separators_split_cards_as_on_micropython(text):
    # CPython's str.split() splits on these Unicode spaces, MicroPython's does not: the text
    # must read the same on both, so neither takes them
    with pytest.raises(ValueError, match="bad card"):
        cards.parse(text)


def test_tabs_and_line_ends_separate_cards():
    assert cards.parse("As\tKd\r\n10h") == [51, 45, 34]


# ---- tables and value range ----------------------------------------------------------------

def test_lookup_tables_are_small_bytes_and_right():
    tables = [v for k, v in vars(hands).items() if k.startswith("_") and isinstance(v, bytes)]
    assert tables and sum(len(t) for t in tables) <= 8192
    assert list(hands._POP7) == [bin(i).count("1") for i in range(128)]
    for r in range(14):
        assert hands._BIT_INDEX[(1 << r) % 37] == r


# ---- five cards: every hand ------------------------------------------------------------------

def test_all_five_card_hands_against_published_counts_and_phevaluator():
    counts = Counter()
    pairs = []
    royals = 0
    best5 = hands.best5
    for hand in combinations(range(52), 5):
        value = best5(hand)
        counts[hands.category(value)] += 1
        royals += value == hands.ROYAL_FLUSH
        pairs.append((value, evaluate_cards(*hand)))  # phevaluator uses the same card ints
    assert dict(counts) == FIVE_COUNTS
    assert royals == 4
    assert max(v for v, _ in pairs) < 2**30
    assert assert_order_matches(pairs, better_is_lower=True) == 7462


def test_phevaluator_shares_our_card_numbering():
    from phevaluator import Card
    for card in range(52):
        assert Card(cards.name(card)).id_ == card


# ---- four and three cards: every hand ----------------------------------------------------------

def test_all_four_card_hands_against_counts_and_reference():
    counts = Counter()
    pairs = []
    for hand in combinations(range(52), 4):
        value = hands.best4(hand)
        counts[hands.category(value)] += 1
        key = four_card_key(hand)
        assert hands.name(value) == {
            "high": "High Card", "pair": "One Pair", "two pair": "Two Pair", "straight": "Straight",
            "flush": "Flush", "trips": "Three of a Kind", "straight flush": "Straight Flush",
            "quads": "Four of a Kind"}[FOUR_ORDER[key[0]]]
        pairs.append((value, (key[0], tuple(key[1]))))
    assert dict(counts) == FOUR_COUNTS
    assert assert_order_matches(pairs, better_is_lower=False) == 2535


def test_all_three_card_hands_against_counts_and_reference():
    counts = Counter()
    pairs = []
    for hand in combinations(range(52), 3):
        value = hands.three(hand)
        counts[hands.category(value)] += 1
        key = three_card_key(hand)
        assert hands.name(value) == {
            "high": "High Card", "pair": "One Pair", "flush": "Flush", "straight": "Straight",
            "trips": "Three of a Kind", "straight flush": "Straight Flush"}[THREE_ORDER[key[0]]]
        pairs.append((value, (key[0], tuple(key[1]))))
    assert dict(counts) == THREE_COUNTS
    assert assert_order_matches(pairs, better_is_lower=False) == 741


def test_best4_of_five_and_six_is_the_best_four_card_subset():
    rng = random.Random(4)
    for _ in range(20000):
        n = rng.choice((5, 6))
        hand = rng.sample(range(52), n)
        want = max(hands.best4(sub) for sub in combinations(hand, 4))
        assert hands.best4(hand) == want, cards.names(hand)


# ---- seven cards -------------------------------------------------------------------------------

def test_seven_card_hands_compare_like_phevaluator():
    """200,000 random seven-card hands (fixed seed): every pair of hands compares the same way."""
    rng = random.Random(7)
    pairs = []
    for _ in range(200000):
        hand = rng.sample(range(52), 7)
        pairs.append((hands.best5(hand), evaluate_cards(*hand)))
    assert assert_order_matches(pairs, better_is_lower=True) > 4000


def test_six_card_hands_are_the_best_five_card_subset():
    rng = random.Random(6)
    for _ in range(20000):
        hand = rng.sample(range(52), 6)
        assert hands.best5(hand) == max(hands.best5(s) for s in combinations(hand, 5))


def test_nz_rule_is_best_of_the_ten_board_triples():
    rng = random.Random(10)
    differs = 0
    for _ in range(30000):
        deal = rng.sample(range(52), 7)
        hole, board = deal[:2], deal[2:]
        want = max(hands.best5(hole + list(t)) for t in combinations(board, 3))
        got = hands.hole2_board3(hole, board)
        assert got == want, (cards.names(hole), cards.names(board))
        differs += got != hands.best5(deal)
    assert differs > 1000  # the NZ rule really is a different hand rule


def test_nz_rule_works_on_the_flop_alone():
    hole = cards.parse("Ah Kh")
    assert hands.name(hands.hole2_board3(hole, cards.parse("Qh Jh Th"))) == "Royal Flush"


# ---- names and categories ---------------------------------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("As Ks Qs Js Ts", "Royal Flush"), ("Ks Qs Js Ts 9s", "Straight Flush"),
    ("2c 2d 2h 2s 3c", "Four of a Kind"), ("Ac Ad 9h 7s 2c", "One Pair"),
])
def test_name_of_five_card_values(text, want):
    assert hands.name(hands.best5(cards.parse(text))) == want


def test_kinds_are_told_apart():
    five = hands.best5(cards.parse("7c 7d 7h 2s 3c"))
    four = hands.best4(cards.parse("7c 7d 7h 2s"))
    three = hands.three(cards.parse("7c 7d 7h"))
    assert (hands.kind(five), hands.kind(four), hands.kind(three)) == (0, 1, 2)
    assert hands.category(five) == hands.THREE_OF_A_KIND
    assert hands.category(four) == hands.FOUR_THREE_OF_A_KIND
    assert hands.category(three) == hands.THREE_THREE_OF_A_KIND
    assert {hands.name(five), hands.name(four), hands.name(three)} == {"Three of a Kind"}


@pytest.mark.parametrize("text,rank", [
    ("Tc Td 2h 3s 4c", 8), ("Ac Kd Kh Ks Kc", 11), ("Ac 2d 3h 4s 5c", 3),
    ("6c 6d 9h 9s Kc", 7), ("2h 7h 9h Jh Kh", 11), ("Ac Qd 9h 7s 2c", 12),
])
def test_high_rank_names_the_defining_rank(text, rank):
    assert hands.high_rank(hands.best5(cards.parse(text))) == rank


@pytest.mark.slow
def test_all_seven_card_hands_against_published_counts():
    """All 133,784,560 seven-card hands (minutes): tools/count7.py does the enumeration."""
    from tools.count7 import count_seven_card_categories
    counts, royals = count_seven_card_categories()
    assert counts == SEVEN_COUNTS
    assert royals == 4324


def test_count7_help_and_a_bad_option_say_so_without_counting(monkeypatch, capsys):
    # `--help` had been ignored: it started the minutes-long count of 133,784,560 hands
    from tools import count7

    def no_count(processes=None):
        raise AssertionError("counted")
    monkeypatch.setattr(count7, "count_seven_card_categories", no_count)
    with pytest.raises(SystemExit) as done:
        count7.main(["--help"])
    assert done.value.code == 0 and "seven-card hands" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        count7.main(["--processes", "0"])
    assert done.value.code == 2 and "--processes must be 1 or more" in capsys.readouterr().err
