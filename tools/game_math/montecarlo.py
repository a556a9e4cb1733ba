"""Fixed-seed Monte Carlo for the one figure that cannot be enumerated in the time budget.

The UTH Blind pays only when the player's hand beats the dealer's, so its value needs the
dealer's two cards as well: 1,326 x 1,225 x 1,712,304 deals, far beyond a two-minute run.
The estimate is stratified: the probability p_c of each Blind pay line c of the player's
hand is known exactly (from the exact enumeration), and only the chance q_c that a hand of
line c beats the dealer is sampled.  Every deal is dealt from a ``random.Random`` seeded by
(seed, chunk number), so a run is reproducible and does not depend on how many workers ran it.
"""

import math
import random

from firmware.poker import hands

DECK = 52
Z95 = 1.959963984540054  # two-sided 95% normal quantile


def player_dealer(hand_rule):
    """The function (player hole, dealer hole, board) -> (player value, dealer value)."""
    if hand_rule == "best5of7":
        def both(deal):
            board = deal[4:9]
            return hands.best5(deal[0:2] + board), hands.best5(deal[2:4] + board)
    elif hand_rule == "hole2_board3":
        def both(deal):
            board = deal[4:9]
            return hands.hole2_board3(deal[0:2], board), hands.hole2_board3(deal[2:4], board)
    else:
        raise ValueError("unknown hand rule %r (known: best5of7, hole2_board3)" % (hand_rule,))
    return both


def chunk_seed(seed, chunk):
    """The seed of one chunk: depends only on the run's seed and the chunk number."""
    return seed * 1000003 + chunk


def stratum(value):
    """The stratum of a five-card value: its category, with the royal flush apart (9)."""
    return ROYAL_STRATUM if hands.is_royal(value) else hands.category(value)


ROYAL_STRATUM = 9


def blind_chunk(hand_rule, trials, seed, chunk):
    """Deal `trials` showdowns; per stratum of the player's hand: [hands, wins, ties] (a worker task).

    A deal is 9 cards from the shuffled deck: player hole, dealer hole, then the board.
    """
    rng = random.Random(chunk_seed(seed, chunk))
    both = player_dealer(hand_rule)
    deck = list(range(DECK))
    out = {}
    for _ in range(trials):
        deal = rng.sample(deck, 9)
        mine, theirs = both(deal)
        line = stratum(mine)
        cell = out.get(line)
        if cell is None:
            cell = out[line] = [0, 0, 0]
        cell[0] += 1
        if mine > theirs:
            cell[1] += 1
        elif mine == theirs:
            cell[2] += 1
    return out


def merge_cells(parts):
    """Add up the per-line [hands, wins, ties] of several chunks."""
    out = {}
    for part in parts:
        for line, cell in part.items():
            mine = out.setdefault(line, [0, 0, 0])
            for i in range(3):
                mine[i] += cell[i]
    return out


def stratified_given_win(exact_p, pays, cells):
    """Estimate E[Blind pay | the player's hand wins] from exact probabilities and sampled win rates.

    exact_p: stratum -> exact probability of the player's hand being in it;
    pays: stratum -> Blind pay per unit (0 for a push);  cells: stratum -> [hands, wins, ties]
    sampled.  Returns a dict with the estimate, its 95% interval (delta method: the strata
    are sampled independently given their counts) and, per stratum, q (win rate) and
    P(stratum | win).
    """
    q = {}
    var_q = {}
    for line in exact_p:
        n, wins = (cells.get(line) or [0, 0, 0])[:2]
        if n:
            q[line] = wins / n
        else:
            q[line] = 0.5  # never dealt: no information, so the widest variance
        # (wins + 1) / (n + 2) keeps a non-zero variance for lines that always won or lost.
        shrunk = (wins + 1) / (n + 2)
        var_q[line] = shrunk * (1 - shrunk) / max(n, 1)
    win = sum(exact_p[c] * q[c] for c in exact_p)
    paid = sum(exact_p[c] * q[c] * pays[c] for c in exact_p)
    theta = paid / win
    variance = sum((exact_p[c] * (pays[c] - theta) / win) ** 2 * var_q[c] for c in exact_p)
    half = Z95 * math.sqrt(variance)
    return {
        "estimate": theta,
        "low": theta - half,
        "high": theta + half,
        "win_probability": win,
        "paid_per_hand": paid,
        "win_rate": q,
        "given_win": dict((c, exact_p[c] * q[c] / win) for c in exact_p),
    }
