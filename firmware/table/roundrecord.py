"""The round section of critical memory: which round is open and what it has seen.

Layout (bytes)::

    magic "RD", version, round number (4 bytes, little end first), marks,
    accepted seat mask, folded seat mask, voided seat mask,
    35 seat cards (seat 1 first, 5 places per seat), 6 dealer cards, 5 board (community)
    cards (NO_CARD = empty), the game the round is dealt under (the controller's code:
    bits 0-2 the game and UTH's hand rule, bits 3-5 the seats in play, 0 in a record
    written before they were kept, bit 6 ANTES_SENSED, bit 7 UTH's Trips on the other hand
    rule; UNKNOWN in a version 2 record, which has no such byte and is still read)

Version 1 (the first firmware with critical memory, UTH only) had 2 places a seat and 2 for
the dealer; it is still read, its cards put in the first places, the game UNKNOWN.

The places fit the largest hand of each kind in the three games (a Four Card Poker seat holds
5 cards and its dealer 6; a UTH board 5); a game uses the first places of each.

decode() raises ValueError naming what is wrong: bad magic, version, length, a card that is
neither a card nor NO_CARD, a card given twice, a mask with bits beyond seat 7.

The marks byte is the seats with an Ante (Risk) at LOCK, with MARKS_KEPT (0x80) set: a
resumed round still asks for their hands.  At a table with Ante sensors (ANTES_SENSED, 0x40,
set in the game byte) they are the Antes sensed, marked on the panel or unseen (spot in
fault) then, so a seat left out had none (no_ante); without it, the panel's marks only (a
table without Ante sensors, or the firmware before ANTES_SENSED, which ignores the bit and
reads the marks as the panel's).  Without MARKS_KEPT the marks are not known: firmware before
it wrote the controller's phase there (0..9), which it never read back, so a record of either
reads in the other.

The game byte keeps a round locked before a power cut under its own game when the
configuration file was changed meanwhile, and the table its game and seats when the file is
missing or refused (RoundController.boot); a RAM clear writes the file's.
"""

from firmware.compat import const

MAGIC = b"RD"
_VERSION = const(3)
_OLD_VERSION = const(2)   # no game byte
_V1 = const(1)            # UTH only: 2 places a seat, 2 for the dealer (read, not written)
_V1_HOLE = const(2)
_V1_DEALER_AT = const(11 + 7 * 2)
_V1_BOARD_AT = const(11 + 7 * 2 + 2)
_V1_SIZE = const(11 + 7 * 2 + 2 + 5)
NO_CARD = const(0xFF)
UNKNOWN = const(0xFF)     # game: not recorded
MARKS_KEPT = const(0x80)  # marks: the Antes at LOCK are recorded in the low bits
ANTES_SENSED = const(0x40)  # game: ... by a table with Ante sensors (every Ante, not the marks)
SEATS = const(7)
HOLE = const(5)           # places per seat
_DEALER_CARDS = const(6)   # places for the dealer
_BOARD_CARDS = const(5)    # places for the board
_HEADER = const(11)
_DEALER_AT = const(11 + 7 * 5)
_BOARD_AT = const(11 + 7 * 5 + 6)
_CARDS_END = const(11 + 7 * 5 + 6 + 5)
SIZE = const(11 + 7 * 5 + 6 + 5 + 1)
_SEAT_BITS = const(0x7F)


class RoundRecord:
    """Round number, seat masks and the cards seen, as the controller keeps them."""

    def __init__(self):
        self.round_no = 0
        self.marks = 0
        self.accepted = 0
        self.folded = 0
        self.voided = 0
        self.hole = bytearray([NO_CARD] * (SEATS * HOLE))
        self.dealer = bytearray([NO_CARD] * _DEALER_CARDS)
        self.board = bytearray([NO_CARD] * _BOARD_CARDS)
        self.game = UNKNOWN

    def clear_cards(self):
        """Forget every card (a new round)."""
        for buf in (self.hole, self.dealer, self.board):
            for i in range(len(buf)):
                buf[i] = NO_CARD


def encode(rec):
    """The round record as bytes."""
    out = bytearray(SIZE)
    out[0:2] = MAGIC
    out[2] = _VERSION
    n = rec.round_no
    for i in range(4):
        out[3 + i] = (n >> (8 * i)) & 0xFF
    out[7] = rec.marks
    out[8] = rec.accepted
    out[9] = rec.folded
    out[10] = rec.voided
    out[_HEADER:_DEALER_AT] = rec.hole
    out[_DEALER_AT:_BOARD_AT] = rec.dealer
    out[_BOARD_AT:_CARDS_END] = rec.board
    out[_CARDS_END] = rec.game
    return bytes(out)


def antes_kept(rec):
    """Whether the round record holds every seat with an Ante (Risk) at LOCK (marks): not at
    a table without Ante sensors, nor in a record from before ANTES_SENSED or from before the
    round locked."""
    return rec.game != UNKNOWN and rec.game & ANTES_SENSED and rec.marks & MARKS_KEPT


def no_ante(rec):
    """The seats the round record says had no Ante (Risk) at LOCK: none where it cannot tell
    (antes_kept)."""
    return ~rec.marks & _SEAT_BITS if antes_kept(rec) else 0


def holds_cards(data):
    """True when the encoded round record `data` (None: none) holds a card."""
    if data is None:
        return False
    for i in range(_HEADER, min(len(data), _CARDS_END)):    # version 1's places end sooner
        if data[i] != NO_CARD:
            return True
    return False


def decode(data):
    """A RoundRecord from bytes; ValueError names what is wrong."""
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError("round record must be bytes, got %r" % (data,))
    if len(data) < 3 or bytes(data[0:2]) != MAGIC:
        raise ValueError("round record has bad magic %r" % (bytes(data[0:2]),))
    version = data[2]
    if version != _VERSION and version != _OLD_VERSION and version != _V1:
        raise ValueError("round record version %d, expected %d" % (version, _VERSION))
    size = SIZE if version == _VERSION else _CARDS_END if version == _OLD_VERSION else _V1_SIZE
    if len(data) != size:
        raise ValueError("round record is %d bytes, expected %d" % (len(data), size))
    rec = RoundRecord()
    rec.round_no = data[3] | (data[4] << 8) | (data[5] << 16) | (data[6] << 24)
    rec.marks = data[7]
    for name, index in (("accepted", 8), ("folded", 9), ("voided", 10)):
        if data[index] & ~_SEAT_BITS:
            raise ValueError("round record %s mask 0x%02x names a seat above 7" % (name, data[index]))
    rec.accepted = data[8]
    rec.folded = data[9]
    rec.voided = data[10]
    if version == _V1:
        for s in range(SEATS):
            at = _HEADER + _V1_HOLE * s
            rec.hole[s * HOLE:s * HOLE + _V1_HOLE] = data[at:at + _V1_HOLE]
        rec.dealer[0:_V1_BOARD_AT - _V1_DEALER_AT] = data[_V1_DEALER_AT:_V1_BOARD_AT]
        rec.board[:] = data[_V1_BOARD_AT:_V1_SIZE]
    else:
        rec.hole[:] = data[_HEADER:_DEALER_AT]
        rec.dealer[:] = data[_DEALER_AT:_BOARD_AT]
        rec.board[:] = data[_BOARD_AT:_CARDS_END]
    if size == SIZE:
        rec.game = data[_CARDS_END]
    seen = []
    for buf in (rec.hole, rec.dealer, rec.board):
        for card in buf:
            if card == NO_CARD:
                continue
            if card > 51:
                raise ValueError("round record holds bad card %d" % card)
            if card in seen:
                raise ValueError("round record holds card %d twice" % card)
            seen.append(card)
    return rec
