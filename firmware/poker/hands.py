"""Compact integer poker hand evaluator: five-card, four-card and three-card rankings.

A hand value is one int below 2**23: higher is better, equal means a tie, for two values of
the same ranking.  Layout::

    bits 21-22  ranking: 0 five-card, 1 four-card (Four Card Poker), 2 three-card
    bits 17-20  category in that ranking's own order (0 = high card)
    bits 0-16   what breaks ties inside the category: rank indexes (0 = deuce .. 12 = ace)
                in 4-bit fields, or 13-bit rank masks (bit r set for rank r).  Two masks
                with the same number of bits compare like their ranks listed high to low.

Evaluation works on rank masks built card by card (ranks seen at least once, twice, three,
four times), never on combinations, and allocates nothing: no lists, tuples or big ints.
Cards are the ints of ``firmware.poker.cards``.
"""

from firmware.compat import const

# Five-card categories [rules.md 1].
HIGH_CARD = const(0)
ONE_PAIR = const(1)
TWO_PAIR = const(2)
THREE_OF_A_KIND = const(3)
STRAIGHT = const(4)
FLUSH = const(5)
FULL_HOUSE = const(6)
FOUR_OF_A_KIND = const(7)
STRAIGHT_FLUSH = const(8)

# Four-card categories (Four Card Poker): trips and quads rank above flushes and straights.
FOUR_HIGH_CARD = const(0)
FOUR_ONE_PAIR = const(1)
FOUR_TWO_PAIR = const(2)
FOUR_STRAIGHT = const(3)
FOUR_FLUSH = const(4)
FOUR_THREE_OF_A_KIND = const(5)
FOUR_STRAIGHT_FLUSH = const(6)
FOUR_FOUR_OF_A_KIND = const(7)

# Three-card categories (Three Card Extra): straights rank above flushes.
THREE_HIGH_CARD = const(0)
THREE_ONE_PAIR = const(1)
THREE_FLUSH = const(2)
THREE_STRAIGHT = const(3)
THREE_THREE_OF_A_KIND = const(4)
THREE_STRAIGHT_FLUSH = const(5)

KIND_FIVE = const(0)
KIND_FOUR = const(1)
KIND_THREE = const(2)

_CAT_SHIFT = const(17)
_KIND_SHIFT = const(21)
_ACE = const(12)
_RANK_BITS = const(0x1FFF)

# Number of set bits of every 7-bit number, so a 13-bit rank mask costs two lookups.
_POP7 = const(
    b"\x00\x01\x01\x02\x01\x02\x02\x03\x01\x02\x02\x03\x02\x03\x03\x04"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x03\x04\x04\x05\x04\x05\x05\x06\x04\x05\x05\x06\x05\x06\x06\x07"
)
# Index of a single set bit b (b = 1 << r, r < 14) at _BIT_INDEX[b % 37]: the powers of two
# are all different modulo 37, so one small table replaces a loop.
_BIT_INDEX = const(
    b"\x00\x00\x01\x00\x02\x00\x00\x00\x03\x00\x00\x00\x00\x0b\x00\x0d\x04\x07\x00"
    b"\x00\x00\x00\x00\x00\x00\x0a\x0c\x06\x00\x00\x00\x09\x05\x00\x08\x00\x00"
)

_FIVE_NAMES = const((
    "High Card", "One Pair", "Two Pair", "Three of a Kind", "Straight", "Flush",
    "Full House", "Four of a Kind", "Straight Flush",
))
_FOUR_NAMES = const((
    "High Card", "One Pair", "Two Pair", "Straight", "Flush", "Three of a Kind",
    "Straight Flush", "Four of a Kind",
))
_THREE_NAMES = const((
    "High Card", "One Pair", "Flush", "Straight", "Three of a Kind", "Straight Flush",
))
ROYAL_FLUSH_NAME = "Royal Flush"

# The best possible five-card value: the royal flush.
ROYAL_FLUSH = const((8 << 17) | 12)


def _top(mask, keep):
    """Keep only the `keep` highest set bits of a 13-bit mask."""
    n = _POP7[mask & 127] + _POP7[mask >> 7]
    while n > keep:
        mask &= mask - 1
        n -= 1
    return mask


def _high_index(mask):
    """Rank index of the highest set bit of a non-zero 13-bit mask."""
    while mask & (mask - 1):
        mask &= mask - 1
    return _BIT_INDEX[mask % 37]


def _straight_top(mask, length):
    """Rank index of the top card of the highest `length`-card straight in mask, or -1.

    The ace also plays low: it is copied below the deuce before looking for a run.
    """
    m = ((mask << 1) | (mask >> _ACE)) & 0x3FFF
    run = m
    for shift in range(1, length):
        run &= m >> shift
    if run == 0:
        return -1
    return _high_index(run) + length - 2


def _five_from_masks(s1, s2, s3, s4, fm):
    """Five-card value from rank masks (ranks seen >= 1..4 times) and the flush suit's mask."""
    if fm:
        top = _straight_top(fm, 5)
        if top >= 0:
            return (STRAIGHT_FLUSH << _CAT_SHIFT) | top
        return (FLUSH << _CAT_SHIFT) | _top(fm, 5)
    if s4:
        quad = _top(s4, 1)
        return ((FOUR_OF_A_KIND << _CAT_SHIFT) | (_BIT_INDEX[quad % 37] << 4)
                | _high_index(s1 & ~quad))
    if s3:
        trips = _top(s3, 1)
        pair = s2 & ~trips
        if pair:
            return ((FULL_HOUSE << _CAT_SHIFT) | (_BIT_INDEX[trips % 37] << 4)
                    | _high_index(pair))
    # Straight, inline because it is tested on most hands: the ace is copied below the deuce.
    run = (s1 << 1) | (s1 >> _ACE)
    run &= (run >> 1) & (run >> 2) & (run >> 3) & (run >> 4)
    if run:
        return (STRAIGHT << _CAT_SHIFT) | (_high_index(run) + 3)
    pop = _POP7
    if s3:
        rest = s1 & ~trips
        n = pop[rest & 127] + pop[rest >> 7]
        while n > 2:
            rest &= rest - 1
            n -= 1
        return (THREE_OF_A_KIND << _CAT_SHIFT) | (_BIT_INDEX[trips % 37] << 13) | rest
    if s2:
        n = pop[s2 & 127] + pop[s2 >> 7]
        if n == 1:
            rest = s1 & ~s2
            n = pop[rest & 127] + pop[rest >> 7]
            while n > 3:
                rest &= rest - 1
                n -= 1
            return (ONE_PAIR << _CAT_SHIFT) | (_BIT_INDEX[s2 % 37] << 13) | rest
        while n > 2:
            s2 &= s2 - 1
            n -= 1
        rest = s1 & ~s2
        while rest & (rest - 1):
            rest &= rest - 1
        return (TWO_PAIR << _CAT_SHIFT) | (s2 << 4) | _BIT_INDEX[rest % 37]
    n = pop[s1 & 127] + pop[s1 >> 7]
    while n > 5:
        s1 &= s1 - 1
        n -= 1
    return s1


def _five(a, b, c, d, e):
    """Value of exactly five cards given one by one (no list needed)."""
    s1 = 1 << (a >> 2)
    bit = 1 << (b >> 2)
    s2 = s1 & bit
    s1 |= bit
    bit = 1 << (c >> 2)
    s3 = s2 & bit
    s2 |= s1 & bit
    s1 |= bit
    bit = 1 << (d >> 2)
    s4 = s3 & bit
    s3 |= s2 & bit
    s2 |= s1 & bit
    s1 |= bit
    bit = 1 << (e >> 2)
    s4 |= s3 & bit
    s3 |= s2 & bit
    s2 |= s1 & bit
    s1 |= bit
    suit = a & 3
    if (b & 3) == suit and (c & 3) == suit and (d & 3) == suit and (e & 3) == suit:
        return _five_from_masks(s1, 0, 0, 0, s1)
    return _five_from_masks(s1, s2, s3, s4, 0)


# Scratch for best5: per suit, the rank mask in bits 0-12 and the card count from bit 13.
# Module-level so evaluation allocates nothing; evaluation is never re-entered (no threads,
# never called from an interrupt handler).
_SUITS = [0, 0, 0, 0]
_COUNT_ONE = const(0x2000)
_FIVE_OF_A_SUIT = const(0xA000)


def best5(cards):
    """Value of the best five-card hand among 5, 6 or 7 cards."""
    m = _SUITS
    m[0] = m[1] = m[2] = m[3] = 0
    for card in cards:
        m[card & 3] += (1 << (card >> 2)) + _COUNT_ONE
    c, d, h, s = m
    # With at most seven cards only one suit can hold five, and then no quads or full house
    # is possible, so the flush suit's ranks alone decide between flush and straight flush.
    fm = 0
    if c >= _FIVE_OF_A_SUIT:
        fm = c & _RANK_BITS
    elif d >= _FIVE_OF_A_SUIT:
        fm = d & _RANK_BITS
    elif h >= _FIVE_OF_A_SUIT:
        fm = h & _RANK_BITS
    elif s >= _FIVE_OF_A_SUIT:
        fm = s & _RANK_BITS
    cd = c & d
    hs = h & s
    c |= d
    h |= s
    # A rank is seen twice if two suits hold it, three times if three do, and so on.
    return _five_from_masks((c | h) & _RANK_BITS, (cd | hs | (c & h)) & _RANK_BITS,
                            ((cd & h) | (hs & c)) & _RANK_BITS, cd & hs & _RANK_BITS, fm)


def hole2_board3(hole, board):
    """Value of the best five cards made of both hole cards and exactly three board cards.

    This is the NZ hand rule [UTH 10.5]; board may hold 3 to 5 cards.
    """
    h0 = hole[0]
    h1 = hole[1]
    n = len(board)
    best = 0
    for i in range(n - 2):
        bi = board[i]
        for j in range(i + 1, n - 1):
            bj = board[j]
            for k in range(j + 1, n):
                value = _five(h0, h1, bi, bj, board[k])
                if value > best:
                    best = value
    return best


def best4(cards):
    """Value of the best four-card hand (Four Card Poker ranking) among 4, 5 or 6 cards."""
    s1 = s2 = s3 = s4 = 0
    counts = 0
    for card in cards:
        bit = 1 << (card >> 2)
        s4 |= s3 & bit
        s3 |= s2 & bit
        s2 |= s1 & bit
        s1 |= bit
        counts += 1 << ((card & 3) << 2)
    base = KIND_FOUR << _KIND_SHIFT
    if s4:
        return base | (FOUR_FOUR_OF_A_KIND << _CAT_SHIFT) | _high_index(s4)
    fm = 0
    # Four or more of a suit: 4 + 4 carries into the nibble's top bit (6 + 4 < 16).
    flush = (counts + 0x4444) & 0x8888
    if flush:
        suit = (0 if flush & 0x8 else 1 if flush & 0x80 else 2 if flush & 0x800 else 3)
        for card in cards:
            if (card & 3) == suit:
                fm |= 1 << (card >> 2)
        top = _straight_top(fm, 4)
        if top >= 0:
            return base | (FOUR_STRAIGHT_FLUSH << _CAT_SHIFT) | top
    if s3:
        trips = _top(s3, 1)
        return (base | (FOUR_THREE_OF_A_KIND << _CAT_SHIFT) | (_BIT_INDEX[trips % 37] << 4)
                | _high_index(s1 & ~trips))
    if fm:
        return base | (FOUR_FLUSH << _CAT_SHIFT) | _top(fm, 4)
    top = _straight_top(s1, 4)
    if top >= 0:
        return base | (FOUR_STRAIGHT << _CAT_SHIFT) | top
    if s2:
        pairs = _top(s2, 2)
        if pairs & (pairs - 1):
            return base | (FOUR_TWO_PAIR << _CAT_SHIFT) | pairs
        return (base | (FOUR_ONE_PAIR << _CAT_SHIFT) | (_BIT_INDEX[pairs % 37] << 13)
                | _top(s1 & ~pairs, 2))
    return base | _top(s1, 4)


def three(cards):
    """Value of exactly three cards with the three-card ranking (Three Card Extra)."""
    a = cards[0]
    b = cards[1]
    c = cards[2]
    s1 = 1 << (a >> 2)
    bit = 1 << (b >> 2)
    s2 = s1 & bit
    s1 |= bit
    bit = 1 << (c >> 2)
    s3 = s2 & bit
    s2 |= s1 & bit
    s1 |= bit
    base = KIND_THREE << _KIND_SHIFT
    if s3:
        return base | (THREE_THREE_OF_A_KIND << _CAT_SHIFT) | _BIT_INDEX[s3 % 37]
    if s2:
        return (base | (THREE_ONE_PAIR << _CAT_SHIFT) | (_BIT_INDEX[s2 % 37] << 4)
                | _high_index(s1 & ~s2))
    flush = (a & 3) == (b & 3) and (a & 3) == (c & 3)
    top = _straight_top(s1, 3)
    if top >= 0:
        if flush:
            return base | (THREE_STRAIGHT_FLUSH << _CAT_SHIFT) | top
        return base | (THREE_STRAIGHT << _CAT_SHIFT) | top
    if flush:
        return base | (THREE_FLUSH << _CAT_SHIFT) | s1
    return base | s1


def kind(value):
    """Which ranking made the value: KIND_FIVE, KIND_FOUR or KIND_THREE."""
    return value >> _KIND_SHIFT


def category(value):
    """Category of a value as a small int, 0 for high card, rising in its ranking's order."""
    return (value >> _CAT_SHIFT) & 15


def is_royal(value):
    """True for a five-card royal flush (A-K-Q-J-T suited)."""
    return value == ROYAL_FLUSH


def name(value):
    """Display name of the value's category; the five-card royal flush is named apart."""
    k = value >> _KIND_SHIFT
    cat = (value >> _CAT_SHIFT) & 15
    if k == KIND_FIVE:
        if value == ROYAL_FLUSH:
            return ROYAL_FLUSH_NAME
        return _FIVE_NAMES[cat]
    if k == KIND_FOUR:
        return _FOUR_NAMES[cat]
    return _THREE_NAMES[cat]


def high_rank(value):
    """Rank index (0 deuce .. 12 ace) that defines the category: pair rank, trips rank,
    top of a straight, top card of a flush or high card, higher pair of two pair."""
    detail = value & 0x1FFFF
    cat = (value >> _CAT_SHIFT) & 15
    k = value >> _KIND_SHIFT
    if k == KIND_FIVE:
        if cat == ONE_PAIR or cat == THREE_OF_A_KIND:
            return detail >> 13
        if cat == FULL_HOUSE or cat == FOUR_OF_A_KIND:
            return detail >> 4
        if cat == TWO_PAIR:
            return _high_index(detail >> 4)
        if cat == STRAIGHT or cat == STRAIGHT_FLUSH:
            return detail
        return _high_index(detail)
    if k == KIND_FOUR:
        if cat == FOUR_ONE_PAIR:
            return detail >> 13
        if cat == FOUR_THREE_OF_A_KIND:
            return detail >> 4
        if cat == FOUR_STRAIGHT or cat == FOUR_STRAIGHT_FLUSH or cat == FOUR_FOUR_OF_A_KIND:
            return detail
        return _high_index(detail)
    if cat == THREE_ONE_PAIR:
        return detail >> 4
    if cat == THREE_THREE_OF_A_KIND or cat == THREE_STRAIGHT or cat == THREE_STRAIGHT_FLUSH:
        return detail
    return _high_index(detail)
