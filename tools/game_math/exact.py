"""Exact hand distributions by complete enumeration, made fast with suit symmetry.

Every function here returns ``{hand value: number of deals}`` with exact integer counts
that add up to the number of deals it covers; the hand values come from the project's own
evaluator (``firmware.poker.hands``), which decides every category.  Nothing is estimated.

The trick for the multi-card counts: a hand's value depends on its suits only through the
set of ranks held in a suit that has enough cards to make a flush (5 of 7 or 5 of 5 for
five-card poker, 4 of 5 for Four Card Poker), and at most one suit can have that many.  So
each rank multiset is evaluated once for "no flush" and once per possible flush-rank set,
and each evaluation is weighted by the number of suit assignments that produce it
(products of binomials).  The weights of one multiset add up to the product of C(4, n)
over its ranks, and all multisets add up to C(52, k): both are checked.
"""

from math import comb

from firmware.poker import hands

RANK_COUNT = 13
SUIT_COUNT = 4
DECK = 52


def rank_multisets(size):
    """Every rank multiset of `size` cards as a 13-tuple of counts (each at most 4)."""
    counts = [0] * RANK_COUNT

    def walk(rank, left):
        if rank == RANK_COUNT - 1:
            if left <= SUIT_COUNT:
                counts[rank] = left
                yield tuple(counts)
                counts[rank] = 0
            return
        for n in range(min(left, SUIT_COUNT), -1, -1):
            counts[rank] = n
            yield from walk(rank + 1, left - n)
        counts[rank] = 0

    yield from walk(0, size)


def subsets_of_size_at_least(items, least):
    """Every subset of items (a list) with at least `least` members, as tuples."""
    n = len(items)
    out = []
    for mask in range(1 << n):
        if bin(mask).count("1") >= least:
            out.append(tuple(items[i] for i in range(n) if mask >> i & 1))
    return out


def balanced_cards(counts, taken=None):
    """Cards for a rank multiset with the suits spread so no suit holds more than its share.

    Each rank's cards go to the least-loaded suits, so the busiest suit holds at most
    ceil(k / 4) cards: too few for any flush.  `taken` maps rank -> suits already used
    (hole cards) that this rank must avoid.
    """
    load = [0] * SUIT_COUNT
    if taken:
        for suits in taken.values():
            for s in suits:
                load[s] += 1
    cards = []
    for rank in range(RANK_COUNT):
        n = counts[rank]
        if not n:
            continue
        banned = taken.get(rank, ()) if taken else ()
        free = sorted((load[s], s) for s in range(SUIT_COUNT) if s not in banned)
        for _, s in free[:n]:
            load[s] += 1
            cards.append(rank * 4 + s)
    return cards


def flush_cards(counts, flush_ranks):
    """Cards for a rank multiset with exactly `flush_ranks` held in suit 0 (the flush suit)."""
    cards = []
    for rank in range(RANK_COUNT):
        n = counts[rank]
        if rank in flush_ranks:
            cards.append(rank * 4)
            n -= 1
        for s in range(1, n + 1):
            cards.append(rank * 4 + s)
    return cards


def flush_weight(counts, flush_ranks):
    """Suit assignments of the multiset whose flush suit holds exactly `flush_ranks` (4 suits)."""
    w = SUIT_COUNT
    for rank in range(RANK_COUNT):
        n = counts[rank]
        if rank in flush_ranks:
            w *= comb(SUIT_COUNT - 1, n - 1)
        else:
            w *= comb(SUIT_COUNT - 1, n)
        if not w:
            return 0
    return w


def multiset_weight(counts):
    """Number of card sets with this rank multiset: product of C(4, n)."""
    w = 1
    for n in counts:
        w *= comb(SUIT_COUNT, n)
    return w


def count_multisets(multisets, evaluate, flush_size, into=None):
    """Add the value counts of every card set whose rank multiset is in `multisets`.

    evaluate(cards) returns a hand value; flush_size is how many cards of one suit make the
    ranking's flush.  Returns {value: count}.
    """
    out = {} if into is None else into
    for counts in multisets:
        total = multiset_weight(counts)
        distinct = [r for r in range(RANK_COUNT) if counts[r]]
        flushed = 0
        if len(distinct) >= flush_size:
            for ranks in subsets_of_size_at_least(distinct, flush_size):
                w = flush_weight(counts, ranks)
                if w:
                    value = evaluate(flush_cards(counts, ranks))
                    out[value] = out.get(value, 0) + w
                    flushed += w
        rest = total - flushed
        if rest:
            value = evaluate(balanced_cards(counts))
            out[value] = out.get(value, 0) + rest
    return out


def seven_card_chunk(multisets):
    """best5 value counts over all 7-card sets of the given rank multisets (a worker task)."""
    return count_multisets(multisets, hands.best5, 5)


def five_card_counts():
    """best5 value counts over all 2,598,960 five-card hands."""
    return count_multisets(rank_multisets(5), hands.best5, 5)


def four_of_five_counts():
    """best4 (Four Card Poker) value counts over all 2,598,960 five-card player hands."""
    return count_multisets(rank_multisets(5), hands.best4, 4)


def three_card_counts():
    """three() value counts over all 22,100 three-card hands, one by one."""
    out = {}
    for a in range(DECK):
        for b in range(a + 1, DECK):
            for c in range(b + 1, DECK):
                value = hands.three((a, b, c))
                out[value] = out.get(value, 0) + 1
    return out


def hole_rank_pairs():
    """The 91 hole-card rank pairs (a <= b)."""
    return [(a, b) for a in range(RANK_COUNT) for b in range(a, RANK_COUNT)]


def board_multisets():
    """Every 5-card board rank multiset, listed once so workers can share it."""
    return list(rank_multisets(5))


def hole2_board3_chunk(pairs, boards=None):
    """hole2_board3 value counts for the given hole rank pairs over every board (a worker task).

    Hole cards are 2 of 52 and the board 5 of the other 50.  A flush needs both hole cards
    in one suit and three board cards of that suit, so: a pocket pair and an offsuit hole
    never make one; a suited hole makes one with the board ranks T held in its suit
    (|T| >= 3).  The hand is then the better of the rank-only value and the flush value of
    the hole plus T, both from the evaluator: every other triple is not a flush, so its
    value is the rank-only one.
    """
    if boards is None:
        boards = board_multisets()
    out = {}
    flush_cache = {}
    for a, b in pairs:
        hole = [0] * RANK_COUNT
        hole[a] += 1
        hole[b] += 1
        for board in boards:
            if any(hole[r] + board[r] > SUIT_COUNT for r in (a, b)):
                continue
            plain = _h2b3_plain_value(a, b, board)
            if a == b:
                w = comb(SUIT_COUNT, 2) * comb(SUIT_COUNT - 2, board[a])
                for r in range(RANK_COUNT):
                    if r != a:
                        w *= comb(SUIT_COUNT, board[r])
                out[plain] = out.get(plain, 0) + w
                continue
            other = 1
            for r in range(RANK_COUNT):
                other *= comb(SUIT_COUNT - 1 if r == a or r == b else SUIT_COUNT, board[r])
            # Offsuit holes: 4 * 3 suit choices; suited: 4.
            plain_weight = (SUIT_COUNT * (SUIT_COUNT - 1) + SUIT_COUNT) * other
            free = [r for r in range(RANK_COUNT) if board[r] and r != a and r != b]
            if len(free) >= 3:
                for ranks in subsets_of_size_at_least(free, 3):
                    w = SUIT_COUNT
                    for r in range(RANK_COUNT):
                        n = board[r]
                        w *= comb(SUIT_COUNT - 1, n - 1) if r in ranks else comb(SUIT_COUNT - 1, n)
                    key = (a, b, ranks)
                    flush = flush_cache.get(key)
                    if flush is None:
                        flush = hands.hole2_board3([a * 4, b * 4], [r * 4 for r in ranks])
                        flush_cache[key] = flush
                    value = flush if flush > plain else plain
                    out[value] = out.get(value, 0) + w
                    plain_weight -= w
            out[plain] = out.get(plain, 0) + plain_weight
    return out


def _h2b3_plain_value(a, b, board):
    """hole2_board3 value of hole ranks a, b (suits 0 and 1) and the board multiset, no flush."""
    hole_cards = [a * 4, b * 4 + 1]
    taken = {a: (0,)} if a != b else {a: (0, 1)}
    if a != b:
        taken[b] = (1,)
    return hands.hole2_board3(hole_cards, balanced_cards(board, taken))


def merge(parts):
    """Sum several {value: count} maps."""
    out = {}
    for part in parts:
        for value, n in part.items():
            out[value] = out.get(value, 0) + n
    return out


def total(counts):
    """Number of deals a {value: count} map covers."""
    return sum(counts.values())
