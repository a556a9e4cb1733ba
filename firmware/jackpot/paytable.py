"""The Progressive Jackpot pay table [rules.md 2, UTH 11.7-11.9] and the jackpot hand.

Hand types are small ints, lowest award first, so they index per-hand meters and pay lists:
flush, full house, four of a kind, straight flush, royal flush.  The default pays are
rules.md 11.9: royal 10,000 to 1 or 100% of the pool, whichever is greater; straight flush
1,000 to 1 or 10% of the pool; four of a kind 500 to 1; full house 150 to 1; flush 100 to 1,
all on the jackpot wager.  The jackpot hand is the two hole cards plus the flop [UTH 10.2].
"""

from firmware.compat import const
from firmware.poker import cards, hands

NO_HIT = const(-1)
FLUSH = const(0)
FULL_HOUSE = const(1)
FOUR_OF_A_KIND = const(2)
STRAIGHT_FLUSH = const(3)
ROYAL_FLUSH = const(4)
HAND_TYPES = const(5)

# Names used in configuration keys, meters and logs, indexed by hand type.
KEYS = ("flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush")
NAMES = ("Flush", "Full House", "Four of a Kind", "Straight Flush", "Royal Flush")

# rules.md 11.9: "N to 1" odds on the jackpot wager, and the percent of the pool that is
# paid instead when it is greater (0: fixed odds only).
DEFAULT_ODDS = (100, 150, 500, 1000, 10000)
DEFAULT_PERCENT = (0, 0, 0, 10, 100)

# Hand types paid at fixed odds first [11.10], and the sub-pool that pays each hand type
# when the pool is split [11.6A-11.6B]: Minor pays flush, full house, four of a kind;
# Major pays straight flush and royal flush.
MINOR_TYPES = (FLUSH, FULL_HOUSE, FOUR_OF_A_KIND)
MAJOR_TYPES = (STRAIGHT_FLUSH, ROYAL_FLUSH)
_JACKPOT_CARDS = const(5)


def hand_type(value):
    """Jackpot hand type of a five-card hand value, or NO_HIT below a flush."""
    if hands.kind(value) != hands.KIND_FIVE:
        raise ValueError("jackpot hand value %r is not a five-card value" % (value,))
    cat = hands.category(value)
    if cat == hands.STRAIGHT_FLUSH:
        return ROYAL_FLUSH if hands.is_royal(value) else STRAIGHT_FLUSH
    if cat == hands.FOUR_OF_A_KIND:
        return FOUR_OF_A_KIND
    if cat == hands.FULL_HOUSE:
        return FULL_HOUSE
    if cat == hands.FLUSH:
        return FLUSH
    return NO_HIT


def jackpot_cards(hole, flop):
    """The five jackpot cards, hole cards then flop, checked valid and distinct."""
    cards.check(hole, 2, "jackpot hole cards")
    cards.check(flop, 3, "jackpot flop")
    five = [hole[0], hole[1], flop[0], flop[1], flop[2]]
    cards.check(five, _JACKPOT_CARDS, "jackpot hand")
    return five


def jackpot_hand(hole, flop):
    """Hand type (or NO_HIT) of the jackpot hand: both hole cards plus the flop [UTH 10.2]."""
    return hand_type(hands.best5(jackpot_cards(hole, flop)))


def type_name(hand):
    """Display name of a jackpot hand type; ValueError for an unknown one."""
    check_type(hand)
    return NAMES[hand]


def check_type(hand):
    """Raise ValueError unless hand is a jackpot hand type 0..4."""
    if not isinstance(hand, int) or isinstance(hand, bool) or hand < 0 or hand >= HAND_TYPES:
        raise ValueError("bad jackpot hand type %r: expected 0..%d" % (hand, HAND_TYPES - 1))
    return hand
