"""Slow, obviously-correct reference rankings for the four- and three-card games.

No PyPI evaluator knows Four Card Poker's or Three Card Extra's order, so the tests compare
the firmware against these keys: a tuple (category, tie-break ranks) built the plain way,
with sorting and counting, written independently of firmware/poker/hands.py.
"""

from collections import Counter


def _ranks_suits(cards):
    return [c // 4 for c in cards], [c % 4 for c in cards]


def _straight_top(ranks, length):
    distinct = set(ranks)
    if len(distinct) != length:
        return None
    ordered = sorted(distinct)
    if ordered[-1] - ordered[0] == length - 1:
        return ordered[-1]
    # Ace low: A-2-3(-4) counts the ace as a one.
    low = sorted(-1 if r == 12 else r for r in distinct)
    if low[-1] - low[0] == length - 1:
        return low[-1]
    return None


def _by_count(ranks):
    """Ranks ordered by how often they appear, then by rank, high first."""
    counts = Counter(ranks)
    return sorted(counts, key=lambda r: (counts[r], r), reverse=True), sorted(counts.values(), reverse=True)


# Four-card order, low to high [rules.md 1].
FOUR_ORDER = ["high", "pair", "two pair", "straight", "flush", "trips", "straight flush", "quads"]


def four_card_key(cards):
    """Key of exactly four cards in Four Card Poker order."""
    ranks, suits = _ranks_suits(cards)
    ordered, shape = _by_count(ranks)
    flush = len(set(suits)) == 1
    top = _straight_top(ranks, 4)
    if shape == [4]:
        return (FOUR_ORDER.index("quads"), ordered)
    if top is not None and flush:
        return (FOUR_ORDER.index("straight flush"), [top])
    if shape == [3, 1]:
        return (FOUR_ORDER.index("trips"), ordered)
    if flush:
        return (FOUR_ORDER.index("flush"), ordered)
    if top is not None:
        return (FOUR_ORDER.index("straight"), [top])
    if shape == [2, 2]:
        return (FOUR_ORDER.index("two pair"), ordered)
    if shape == [2, 1, 1]:
        return (FOUR_ORDER.index("pair"), ordered)
    return (FOUR_ORDER.index("high"), ordered)


THREE_ORDER = ["high", "pair", "flush", "straight", "trips", "straight flush"]


def three_card_key(cards):
    """Key of exactly three cards in the three-card (Three Card Extra) order."""
    ranks, suits = _ranks_suits(cards)
    ordered, shape = _by_count(ranks)
    flush = len(set(suits)) == 1
    top = _straight_top(ranks, 3)
    if shape == [3]:
        return (THREE_ORDER.index("trips"), ordered)
    if top is not None and flush:
        return (THREE_ORDER.index("straight flush"), [top])
    if top is not None:
        return (THREE_ORDER.index("straight"), [top])
    if flush:
        return (THREE_ORDER.index("flush"), ordered)
    if shape == [2, 1]:
        return (THREE_ORDER.index("pair"), ordered)
    return (THREE_ORDER.index("high"), ordered)
