"""The pay-table math tool (tools/game_math) against published figures and brute force.

Oracles from outside the code under test, each named where it is used:
- the standard poker combinatorics: 7-card category counts over C(52, 7) = 133,784,560 hands
  (as quoted in issue 2), 5-card counts over 2,598,960 hands, 3-card counts over 22,100 hands;
- Wizard of Odds, Ultimate Texas Hold'em page: Trips 50-40-30-8-7-4-3 (best five of seven)
  has a 3.50% house edge;
- Wikipedia, "Four Card Poker": Aces Up house edges range from 1.98% (the best table,
  50-40-9-6-4-2-1, our aces_d) to 6.15%;
- rules.md 11.9 jackpot odds with the published 5-card counts;
- brute force with the evaluator over every deal, where the tool uses suit symmetry.
"""

import json
import random
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path

import pytest

from firmware.poker import hands, paytables
from tools.game_math import brs, exact, montecarlo, run

ROOT = Path(__file__).resolve().parent.parent

# Standard counts (issue 2 quotes the 7-card ones; the 5- and 3-card ones are textbook).
SEVEN_CARD = {"Royal Flush": 4324, "Straight Flush": 37260, "Four of a Kind": 224848,
              "Full House": 3473184, "Flush": 4047644, "Straight": 6180020,
              "Three of a Kind": 6461620, "Two Pair": 31433400, "One Pair": 58627800,
              "High Card": 23294460}
FIVE_CARD = {"Royal Flush": 4, "Straight Flush": 36, "Four of a Kind": 624, "Full House": 3744,
             "Flush": 5108, "Straight": 10200, "Three of a Kind": 54912, "Two Pair": 123552,
             "One Pair": 1098240, "High Card": 1302540}
THREE_CARD = {"Straight Flush": 48, "Three of a Kind": 52, "Straight": 720, "Flush": 1096,
              "One Pair": 3744, "High Card": 16440}


def by_name(counts):
    """{category name (royal apart): count} of a {value: count} map."""
    out = {}
    for value, n in counts.items():
        out[hands.name(value)] = out.get(hands.name(value), 0) + n
    return out


def one_row(**kw):
    rows = run.compute(jobs=1, **kw)
    assert len(rows) == 1
    return rows[0]


# --- distributions against published counts -------------------------------------------------

def test_seven_card_counts_match_the_published_133784560_hand_counts():
    counts = run.distribution("seven", "best5of7")
    assert sum(counts.values()) == comb(52, 7)
    assert by_name(counts) == SEVEN_CARD


def test_five_card_counts_match_the_published_2598960_hand_counts():
    counts = exact.five_card_counts()
    assert sum(counts.values()) == comb(52, 5)
    assert by_name(counts) == FIVE_CARD
    assert len(counts) == 7462  # distinct five-card values [rules.md 1]


def test_three_card_counts_match_the_published_22100_hand_counts():
    counts = exact.three_card_counts()
    assert sum(counts.values()) == comb(52, 3)
    assert by_name(counts) == THREE_CARD


def test_best_four_of_five_counts_that_follow_from_the_five_card_counts():
    # Derived from the published 5-card counts, not from the tool: quads stay quads (624);
    # every full house or trips holds trips and nothing better in four cards (3,744 + 54,912);
    # a 5-card two pair has 3 ranks, so no 4-card straight or flush: it stays two pair.
    got = by_name(exact.four_of_five_counts())
    assert sum(got.values()) == comb(52, 5)
    assert got["Four of a Kind"] == 624
    assert got["Three of a Kind"] == 3744 + 54912
    assert got["Two Pair"] == 123552


@pytest.mark.slow
def test_best_four_of_five_matches_brute_force_over_every_five_card_hand():
    brute = {}
    for five in combinations(range(52), 5):
        v = hands.best4(five)
        brute[v] = brute.get(v, 0) + 1
    assert exact.four_of_five_counts() == brute


def test_hole2_board3_symmetry_matches_brute_force_on_a_rank_restricted_board():
    # Every board made only of A K Q J T (so royal and other straight flushes, flushes with a
    # suited hole, quads and full houses all occur), for the hole ranks A-K and Q-Q: the
    # suit-symmetric counting must equal dealing every card.
    ranks = (8, 9, 10, 11, 12)
    boards = [m for m in exact.board_multisets() if all(m[r] == 0 for r in range(13) if r not in ranks)]
    for a, b in ((11, 12), (10, 10)):
        got = exact.hole2_board3_chunk([(a, b)], boards)
        brute = {}
        holes = [(x, y) for x, y in combinations(range(52), 2) if sorted((x >> 2, y >> 2)) == [a, b]]
        for hole in holes:
            rest = [c for c in range(52) if c not in hole and (c >> 2) in ranks]
            for board in combinations(rest, 5):
                v = hands.hole2_board3(hole, board)
                brute[v] = brute.get(v, 0) + 1
        assert got == brute, (a, b)


@pytest.mark.slow
def test_hole2_board3_matches_brute_force_for_one_hole_rank_pair_over_every_board():
    # A-K: 4 suited and 12 offsuit holes; brute force one of each and weight by symmetry.
    got = exact.hole2_board3_chunk([(11, 12)])
    brute = {}
    for hole, weight in (((48, 44), 4), ((48, 45), 12)):
        rest = [c for c in range(52) if c not in hole]
        for board in combinations(rest, 5):
            v = hands.hole2_board3(hole, board)
            brute[v] = brute.get(v, 0) + weight
    assert got == brute


# --- published house edges ---------------------------------------------------------------------

def test_trips_a_best5of7_reproduces_the_published_3_50_percent():
    # Wizard of Odds, Ultimate Texas Hold'em: Trips 50-40-30-8-7-4-3 has a 3.50% house edge.
    row = one_row(games=["uth"], bet_names=["trips"], presets=["trips_a"], hand_rules=["best5of7"])
    assert row["method"] == "exact"
    assert abs(row["house_edge"] - 0.0350) <= 0.00005  # equal to 0.01 percentage point
    # The exact value from the published 7-card counts and the pays (our own arithmetic).
    pays = {"Royal Flush": 50, "Straight Flush": 40, "Four of a Kind": 30, "Full House": 8,
            "Flush": 7, "Straight": 4, "Three of a Kind": 3}
    back = sum(Fraction(SEVEN_CARD[h] * (p + 1), comb(52, 7)) for h, p in pays.items())
    assert Fraction(row["house_edge_exact"]) == 1 - back


def test_aces_up_best_table_is_the_published_1_98_percent():
    # Wikipedia, "Four Card Poker": Aces Up house edge ranges from 1.98% (50-40-9-6-4-2-1).
    row = one_row(games=["fcp"], bet_names=["aces_up"], presets=["aces_d"])
    assert round(100 * row["house_edge"], 2) == 1.98
    lows = [r["house_edge"] for r in run.compute(games=["fcp"], bet_names=["aces_up"], jobs=1)]
    assert min(lows) == row["house_edge"]
    assert max(lows) < 0.0615  # the published upper end of the range


def test_three_card_extra_from_the_published_three_card_counts():
    # extra_a pays 40-30-6-4-1 (rules.md 4) on the 22,100-hand counts above.
    row = one_row(games=["brs"], bet_names=["three_card_extra"], presets=["extra_a"])
    back = Fraction(48 * 41 + 52 * 31 + 720 * 7 + 1096 * 5 + 3744 * 2, 22100)
    assert Fraction(row["house_edge_exact"]) == 1 - back


def test_jackpot_return_from_the_published_five_card_counts_and_rules_11_9():
    rows = run.compute(bet_names=["jackpot"], pool=10000000, wager=100, jobs=1)
    minimum, pooled = rows
    fixed = (FIVE_CARD["Four of a Kind"] * 500 + FIVE_CARD["Full House"] * 150
             + FIVE_CARD["Flush"] * 100)
    back = Fraction(FIVE_CARD["Royal Flush"] * 10000 + FIVE_CARD["Straight Flush"] * 1000 + fixed,
                    comb(52, 5))
    assert Fraction(minimum["return_exact"]) == back
    # Pool 100,000.00 on a 1.00 wager: royal 100% of the pool = 100,000 to 1; SF 10% = 10,000 to 1.
    back = Fraction(FIVE_CARD["Royal Flush"] * 100000 + FIVE_CARD["Straight Flush"] * 10000 + fixed,
                    comb(52, 5))
    assert Fraction(pooled["return_exact"]) == back
    assert pooled["pool_cents"] == 10000000 and minimum["pool_cents"] is None
    # Above a 10,000 to 1 pool both percent pays are in force, so the return is
    # (4 p + 36 p / 10 + fixed) / 2,598,960 with p = pool / wager: 100% at p below.
    p = Fraction(comb(52, 5) - fixed, FIVE_CARD["Royal Flush"] + Fraction(FIVE_CARD["Straight Flush"], 10))
    assert pooled["break_even_pool_cents"] == pytest.approx(float(p * 100), rel=1e-12)


# --- exactness and shape -------------------------------------------------------------------

EXACT_DEALS = {("uth", "trips", "best5of7"): comb(52, 7),
               ("fcp", "aces_up", None): comb(52, 5),
               ("fcp", "ante_bonus", None): comb(52, 5),
               ("brs", "three_card_extra", None): comb(52, 3),
               ("uth", "jackpot", None): comb(52, 5)}


def test_every_exact_row_covers_every_deal_and_its_probabilities_sum_to_one():
    rows = run.compute(games=["uth", "fcp", "brs"], bet_names=["trips", "aces_up", "ante_bonus",
                       "three_card_extra", "jackpot"], hand_rules=["best5of7"], jobs=1)
    assert len(rows) == 3 + 4 + 1 + 3 + 2
    for row in rows:
        assert row["method"] == "exact"
        deals = EXACT_DEALS[(row["game"], row["bet"], row["hand_rule"])]
        assert row["deals"] == deals
        assert sum(Fraction(h["count"], deals) for h in row["hands"]) == 1
        if row["kind"] == "wager":
            assert Fraction(row["house_edge_exact"]) + Fraction(row["return_exact"]) == 1


def test_hole2_board3_trips_covers_every_deal_of_two_hole_cards_and_five_board_cards():
    # A chunk of the enumeration: the 13 pocket pairs over every board (6 holes each).
    counts = exact.hole2_board3_chunk([(r, r) for r in range(13)])
    assert sum(counts.values()) == 13 * 6 * comb(50, 5)


def test_json_output_shape():
    out = subprocess.run([sys.executable, "-m", "tools.game_math", "--json", "--jobs", "1",
                          "--game", "fcp", "--game", "brs", "--bet", "aces_up",
                          "--bet", "three_card_extra"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert isinstance(rows, list) and len(rows) == 4 + 3
    for row in rows:
        for key in ("game", "bet", "paytable", "hand_rule", "house_edge", "method", "hands"):
            assert key in row
        assert row["game"] in ("fcp", "brs")
        assert row["paytable"] in paytables.names()
        assert row["hand_rule"] is None
        assert isinstance(row["house_edge"], float) and 0 < row["house_edge"] < 0.1
        assert row["method"] == "exact"
        for h in row["hands"]:
            assert isinstance(h["hand"], str) and isinstance(h["count"], int)
            assert 0 <= h["probability"] <= 1
    assert [r["paytable"] for r in rows] == ["aces_a", "aces_b", "aces_c", "aces_d",
                                             "extra_a", "extra_b", "extra_c"]


def test_text_output_is_an_aligned_table():
    out = subprocess.run([sys.executable, "-m", "tools.game_math", "--jobs", "1", "--game", "brs",
                          "--bet", "three_card_extra", "--paytable", "extra_a"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("GAME"))
    assert lines[header + 1].startswith("brs") and "2.3167%" in lines[header + 1]
    assert lines[header].index("METHOD") == lines[header + 1].index("exact")


@pytest.mark.parametrize("argv, kwargs, word", [
    (["--game", "poker"], {"games": ["poker"]}, "poker"),
    (["--bet", "insurance"], {"bet_names": ["insurance"]}, "insurance"),
    (["--paytable", "trips_z"], {"presets": ["trips_z"]}, "trips_z"),
    (["--hand-rule", "best6"], {"hand_rules": ["best6"]}, "best6"),
    (["--wager", "0"], {"wager": 0}, "wager"),
    (["--pool", "-5"], {"pool": -5}, "pool"),
    (["--trials", "0"], {"trials": 0}, "trials"),
    (["--game", "fcp", "--bet", "trips"], {"games": ["fcp"], "bet_names": ["trips"]}, "matches no bet"),
])
def test_bad_choices_are_rejected_naming_them(argv, kwargs, word):
    out = subprocess.run([sys.executable, "-m", "tools.game_math", "--jobs", "1"] + argv,
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert word in out.stderr
    with pytest.raises(ValueError, match=word):
        run.compute(jobs=1, **kwargs)


# --- Big Raise Stud -------------------------------------------------------------------------

def test_brs_starts_fall_into_1755_suit_classes_covering_22100_starts():
    starts = brs.canonical_starts()
    assert len(starts) == 1755
    assert sum(w for _, w in starts) == comb(52, 3)


def test_brs_start_sums_match_brute_force_and_suit_symmetry():
    table = paytables.get("risk_raise_a")
    rng = random.Random(11)
    for _ in range(3):
        start = tuple(sorted(rng.sample(range(52), 3)))
        total = Fraction(0)
        rest = [c for c in range(52) if c not in start]
        for pair in combinations(rest, 2):
            line = table.line_for(hands.best5(list(start) + list(pair)))
            total += -1 if line is None else Fraction(line[3], line[4])
        swapped = tuple(sorted((c & ~3) | (3 - (c & 3)) for c in start))  # clubs <-> spades etc.
        got = brs.start_sums(table, [(start, 1), (swapped, 1)])
        assert got[0][2] == total and got[1][2] == total


def test_brs_decision_is_the_best_of_fold_and_every_raise():
    for total in (Fraction(-1176), Fraction(-589), Fraction(-588), Fraction(-587), Fraction(0),
                  Fraction(1, 3), Fraction(500)):
        values = [(-1 if r == 0 else (1 + r) * total / 1176, -r) for r in range(5)]
        best = -max(values)[1]  # ties go to the smaller wager
        assert brs.decide(total) == best, total


def test_brs_row_edge_element_of_risk_and_strategy():
    row = one_row(games=["brs"], bet_names=["risk_raise"])
    assert row["method"] == "exact"
    assert sum(row["decisions"].values()) == 22100
    d = row["decisions"]
    average = Fraction(22100 + d["raise_1x"] + 4 * d["raise_4x"], 22100)
    assert row["average_wager"] == float(average)
    assert Fraction(row["element_of_risk_exact"]) == Fraction(row["house_edge_exact"]) / average
    table = dict(row["strategy_table"])
    # Trips always pay at least 3 to 1, and a pair of sixes or better never loses: raise 4x.
    assert table["Three of a kind"] == "raise 4x"
    assert table["Pair of 66-AA"] == "raise 4x"
    assert sum(c["starts"] for c in row["strategy"]) == 22100


# --- the Blind estimate ---------------------------------------------------------------------

def test_blind_estimate_is_reproducible_and_independent_of_the_worker_count():
    kw = dict(games=["uth"], bet_names=["blind"], hand_rules=["best5of7"], trials=30000, seed=5)
    one = run.compute(jobs=1, **kw)[0]
    for key in [k for k in run._MEMO if k[0] == "showdown"]:
        del run._MEMO[key]  # deal the showdowns again, this time on two workers
    two = run.compute(jobs=2, **kw)[0]
    assert one["contribution"] == two["contribution"]
    low, high = one["contribution_interval"]
    assert low < one["contribution"] < high
    assert one["method"].startswith("monte carlo: 95% CI [")
    assert one["house_edge"] is None and one["kind"] == "bonus"
    # A royal flush on the board is the only way a player royal fails to win (1 of C(7,2) = 21
    # ways to split a 7-card royal hand into hole and board): its win rate is near 20/21.
    assert sum(h["probability_given_win"] for h in one["hands"]) == pytest.approx(1)
    assert sum(h["count"] for h in one["hands"]) == comb(52, 7)


def test_stratified_estimate_on_a_known_case():
    # Two strata, every hand of the first wins and pays 2, no hand of the second wins:
    # E[pay | win] is exactly 2 whatever the probabilities.
    est = montecarlo.stratified_given_win({0: 0.25, 1: 0.75}, {0: 2.0, 1: 0.0},
                                          {0: [100, 100, 0], 1: [300, 0, 0]})
    assert est["estimate"] == 2.0
    assert est["win_probability"] == 0.25
    assert est["low"] <= 2.0 <= est["high"]


@pytest.mark.slow
def test_full_default_run_prints_every_bet_and_preset():
    out = subprocess.run([sys.executable, "-m", "tools.game_math", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    keys = {(r["bet"], r["paytable"], r["hand_rule"]) for r in rows}
    for rule in ("best5of7", "hole2_board3"):
        for preset in ("trips_a", "trips_b", "trips_c"):
            assert ("trips", preset, rule) in keys
        assert ("blind", "blind_a", rule) in keys
    for preset in paytables.names(paytables.BET_ACES_UP) + paytables.names(paytables.BET_EXTRA):
        assert any(k[1] == preset for k in keys)
    assert sum(1 for r in rows if r["bet"] == "jackpot") == 2
