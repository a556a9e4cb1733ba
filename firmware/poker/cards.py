"""Cards as small ints, and their text form.

A card is ``rank * 4 + suit`` with rank 0..12 for 2..A and suit 0..3 for clubs, diamonds,
hearts, spades, so every card is an int 0..51.  Text is rank ``23456789TJQKA`` (``10`` for
ten too) followed by suit ``cdhs``, in any case: ``As``, ``Td``, ``10h``.
"""

from firmware.compat import const

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = const(52)
_SEPARATORS = const((",", "\t", "\r", "\n"))  # besides the space, between cards in text

_TWO = const(0)
_TEN = const(8)
_JACK = const(9)
_QUEEN = const(10)
_KING = const(11)
ACE = const(12)


def make(rank, suit):
    """Return the card int of rank 0..12 and suit 0..3."""
    return rank * 4 + suit


def rank(card):
    """Rank of a card: 0 for a deuce up to 12 for an ace."""
    return card >> 2


def suit(card):
    """Suit of a card: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card & 3


def parse_card(token):
    """Return the card int for one token such as ``As`` or ``10h``; ValueError names a bad token."""
    if not isinstance(token, str) or len(token) < 2 or len(token) > 3:
        raise ValueError("bad card %r: expected rank 2-9/T/J/Q/K/A/10 and suit c/d/h/s" % (token,))
    rank_text = token[:-1].upper()
    if rank_text == "10":
        rank_text = "T"
    r = RANKS.find(rank_text) if len(rank_text) == 1 else -1
    s = SUITS.find(token[-1].lower())
    if r < 0 or s < 0:
        raise ValueError("bad card %r: expected rank 2-9/T/J/Q/K/A/10 and suit c/d/h/s" % (token,))
    return r * 4 + s


def parse(text):
    """Return the list of card ints in text like ``"As Kd 10h"`` (spaces or commas between).

    Raises ValueError naming the token if a card is malformed or appears twice.
    """
    if not isinstance(text, str):
        raise ValueError("cards must be text, got %r" % (text,))
    result = []
    # ASCII separators only: str.split() with no argument splits on Unicode white space on
    # CPython and not on MicroPython, and the two must read the same text the same way
    for sep in _SEPARATORS:
        text = text.replace(sep, " ")
    for token in text.split(" "):
        if not token:
            continue
        card = parse_card(token)
        if card in result:
            raise ValueError("duplicate card %r" % (token,))
        result.append(card)
    return result


def name(card):
    """Return the two-character text of a card int, such as ``"As"``."""
    if not isinstance(card, int) or isinstance(card, bool) or card < 0 or card >= DECK_SIZE:
        raise ValueError("bad card %r: expected an int 0..51" % (card,))
    return RANKS[card >> 2] + SUITS[card & 3]


def names(cards):
    """Return the cards as space-separated text, such as ``"As Kd Th"``."""
    return " ".join([name(c) for c in cards])


def check(cards, count=None, what="hand"):
    """Raise ValueError unless cards is a list of distinct valid card ints (of the given count)."""
    if not isinstance(cards, (list, tuple)):
        raise ValueError("%s: cards must be a list, got %r" % (what, cards))
    if count is not None and len(cards) != count:
        raise ValueError("%s: expected %d cards, got %d" % (what, count, len(cards)))
    # compared with the cards before it, not marked in a 52-bit mask: on a 32-bit port a bit
    # above 2**30 is a big int, made anew for every card (the check runs at every settlement)
    for i in range(len(cards)):
        card = cards[i]
        if not isinstance(card, int) or isinstance(card, bool) or card < 0 or card >= DECK_SIZE:
            raise ValueError("%s: bad card %r: expected an int 0..51" % (what, card))
        for j in range(i):
            if cards[j] == card:
                raise ValueError("%s: duplicate card %s" % (what, name(card)))
    return cards
