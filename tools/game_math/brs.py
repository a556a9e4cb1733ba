"""Big Raise Stud Poker: the best decision for every three-card start, by complete enumeration.

The Risk bet and the Raise (1x to 4x the Risk) are both paid by the same table on the
player's five cards (three own cards plus the two community cards) [rules.md 4].  For a
start whose average outcome per unit over the 1,176 community pairs is ``m`` (a pay of
N to 1 is +N, a push 0, a loss -1), raising R times is worth ``(1 + R) * m`` and folding
``-1``: linear in R, so the best is 4x when m > 0, else 1x when 2m > -1, else fold.
Ties go to the smaller wager (m = 0: 1x; 2m = -1: fold), which has the same value and
less at risk.  Suit symmetry: the 22,100 starts fall into 1,755 classes under the 24
relabelings of the suits; each class is enumerated once and weighted by its size.
"""

from fractions import Fraction
from itertools import permutations
from math import gcd

from firmware.poker import hands

DECK = 52
FOLD = 0
MAX_RAISE = 4


def canonical(cards):
    """The suit-relabeling class of a set of cards: its smallest sorted form over the 24."""
    best = None
    for perm in permutations(range(4)):
        form = tuple(sorted(((c >> 2) << 2) | perm[c & 3] for c in cards))
        if best is None or form < best:
            best = form
    return best


def canonical_starts():
    """[(start cards, number of the 22,100 starts in its class)], sorted by start."""
    classes = {}
    for a in range(DECK):
        for b in range(a + 1, DECK):
            for c in range(b + 1, DECK):
                key = canonical((a, b, c))
                classes[key] = classes.get(key, 0) + 1
    return sorted(classes.items())


def scale_of(table):
    """A common denominator of the table's odds, so outcomes add up as integers."""
    scale = 1
    for line in table.lines:
        scale = scale * line[4] // gcd(scale, line[4])
    return scale


def outcome_of(table, value, scale, cache):
    """Outcome per unit times scale (+odds, 0 push, -1 loss) of a five-card value on the table."""
    got = cache.get(value)
    if got is None:
        line = table.line_for(value)
        got = -scale if line is None else line[3] * scale // line[4]
        cache[value] = got
    return got


def start_sums(table, starts):
    """For each (start, weight): (start, weight, sum of outcomes over the 1,176 pairs) (a worker task).

    The sum is an exact Fraction.
    """
    cache = {}
    scale = scale_of(table)
    out = []
    for start, weight in starts:
        rest = [c for c in range(DECK) if c not in start]
        hand = list(start) + [0, 0]
        total = 0
        n = len(rest)
        for i in range(n):
            hand[3] = rest[i]
            for j in range(i + 1, n):
                hand[4] = rest[j]
                total += outcome_of(table, hands.best5(hand), scale, cache)
        out.append((start, weight, Fraction(total, scale)))
    return out


PAIRS = (DECK - 3) * (DECK - 4) // 2  # community pairs per start: C(49, 2) = 1,176


def decide(total):
    """Best raise (0 = fold, 1 or 4) for a start whose outcomes over the 1,176 pairs sum to total."""
    if total > 0:
        return MAX_RAISE
    if 2 * total > -PAIRS:
        return 1
    return FOLD


def value_of(total, raise_):
    """Expected result per Risk unit of a start played with that raise (fold = -1)."""
    if raise_ == FOLD:
        return Fraction(-1)
    return (1 + raise_) * total / PAIRS


def summarize(sums):
    """House edge per Risk, average total wager, element of risk and decision counts (exact)."""
    starts = 0
    ev = Fraction(0)
    wagered = Fraction(0)
    by_raise = {FOLD: 0, 1: 0, MAX_RAISE: 0}
    for _, weight, total in sums:
        r = decide(total)
        starts += weight
        ev += weight * value_of(total, r)
        wagered += weight * (1 + r)
        by_raise[r] += weight
    edge = -ev / starts
    average = wagered / starts
    return {"starts": starts, "house_edge": edge, "average_wager": average,
            "element_of_risk": edge / average, "by_raise": by_raise}


RANK_TEXT = "23456789TJQKA"
DECISION_TEXT = {FOLD: "fold", 1: "1x", MAX_RAISE: "4x"}


def describe(start):
    """("AKQ", suit pattern) of a start: ranks high to low and which cards share a suit."""
    cards = sorted(start, key=lambda c: (-(c >> 2), c & 3))
    ranks = "".join(RANK_TEXT[c >> 2] for c in cards)
    suits = [c & 3 for c in cards]
    if len(set(suits)) == 1:
        pattern = "suited"
    elif len(set(suits)) == 3:
        pattern = "rainbow"
    else:
        i, j = [(i, j) for i in range(3) for j in range(i + 1, 3) if suits[i] == suits[j]][0]
        pattern = "%s-%s suited" % (ranks[i], ranks[j])
    return ranks, pattern


def strategy_classes(sums):
    """Every start class with its decision and value per Risk unit, best value first."""
    out = []
    for start, weight, total in sums:
        ranks, pattern = describe(start)
        r = decide(total)
        out.append({"start": ranks, "suits": pattern, "starts": weight,
                    "decision": DECISION_TEXT[r], "value": float(value_of(total, r))})
    out.sort(key=lambda x: -x["value"])
    return out


def _group(ranks):
    if ranks[0] == ranks[2]:
        return "trips"
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        return "pair"
    return "high"


def _runs(indexes):
    """Rank indexes as text, consecutive ones joined: [12, 11, 10, 6] -> "A-Q 8"."""
    indexes = sorted(indexes, reverse=True)
    parts = []
    i = 0
    while i < len(indexes):
        j = i
        while j + 1 < len(indexes) and indexes[j + 1] == indexes[j] - 1:
            j += 1
        if j - i >= 2:
            parts.append("%s-%s" % (RANK_TEXT[indexes[i]], RANK_TEXT[indexes[j]]))
        else:
            parts.extend(RANK_TEXT[k] for k in indexes[i:j + 1])
        i = j + 1
    return " ".join(parts)


def strategy_table(sums):
    """The implied strategy as a few readable lines: (start group, rule) pairs.

    Pairs are grouped by pair rank; other starts by suit pattern (three suited, or not),
    each with its most common decision and the exceptions listed as "high-second: thirds".
    """
    decisions = {}  # (group, ranks, suited) -> {decision: weight}
    for start, weight, total in sums:
        ranks, pattern = describe(start)
        group = _group(ranks)
        suited = pattern == "suited"
        cell = decisions.setdefault((group, ranks, suited), {})
        r = decide(total)
        cell[r] = cell.get(r, 0) + weight
    lines = []
    trips = {}
    for (group, _, _), cell in decisions.items():
        if group == "trips":
            for r, w in cell.items():
                trips[r] = trips.get(r, 0) + w
    lines.append(("Three of a kind", _mix(trips)))
    by_pair = {}
    for (group, ranks, _), cell in decisions.items():
        if group == "pair":
            pair = RANK_TEXT.index(ranks[1])
            mine = by_pair.setdefault(pair, {})
            for r, w in cell.items():
                mine[r] = mine.get(r, 0) + w
    for text, pairs in _pair_groups(by_pair):
        lines.append(("Pair of %s" % pairs, text))
    for suited, label in ((True, "No pair, three suited"), (False, "No pair, not three suited")):
        cells = dict((ranks, cell) for (group, ranks, s), cell in decisions.items()
                     if group == "high" and s == suited)
        lines.append((label, _exceptions(cells)))
    return lines


def _mix(cell):
    """A decision, or the decisions with their start counts when they differ."""
    if len(cell) == 1:
        return "raise %s" % DECISION_TEXT[list(cell)[0]] if list(cell)[0] else "fold"
    return "mixed: " + ", ".join("%s %d starts" % (DECISION_TEXT[r], w) for r, w in sorted(cell.items()))


def _pair_groups(by_pair):
    """Consecutive pair ranks with the same decision text, high to low."""
    out = []
    for pair in sorted(by_pair, reverse=True):
        text = _mix(by_pair[pair])
        if out and out[-1][0] == text and out[-1][2] == pair + 1:
            out[-1] = (text, out[-1][1], pair)
        else:
            out.append((text, pair, pair))
    return [(text, "%s%s-%s%s" % (RANK_TEXT[lo], RANK_TEXT[lo], RANK_TEXT[hi], RANK_TEXT[hi])
             if hi != lo else RANK_TEXT[hi] * 2) for text, hi, lo in out]


def _exceptions(cells):
    """Most common decision of the rank triples, then the triples that differ, by decision."""
    weight = {}
    for cell in cells.values():
        for r, w in cell.items():
            weight[r] = weight.get(r, 0) + w
    usual = max(weight, key=lambda r: weight[r])
    parts = ["fold" if usual == FOLD else "raise %s" % DECISION_TEXT[usual]]
    for r in (MAX_RAISE, 1, FOLD):
        if r == usual or r not in weight:
            continue
        heads = {}
        for ranks, cell in cells.items():
            if r in cell:
                key = ranks[:2]
                heads.setdefault(key, []).append(RANK_TEXT.index(ranks[2]))
        items = []
        for key in sorted(heads, key=lambda k: (-RANK_TEXT.index(k[0]), -RANK_TEXT.index(k[1]))):
            lows = heads[key]
            every = len(lows) == RANK_TEXT.index(key[1])
            items.append("%s: %s" % (key, "any" if every else _runs(lows)))
        parts.append("%s with %s" % ("fold" if r == FOLD else DECISION_TEXT[r], "; ".join(items)))
    mixed = [ranks for ranks, cell in cells.items() if len(cell) > 1]
    if mixed:
        parts.append("(suits change the decision for %s)" % " ".join(sorted(mixed)))
    if len(parts) == 1:
        return parts[0]
    return parts[0] + ", but " + " / ".join(parts[1:])
