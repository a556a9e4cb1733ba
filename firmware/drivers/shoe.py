"""Card-reading shoe on a UART: one card per text line, with its destination.

The protocol is in docs/shoe-protocol.md.  In short, each line is ``DEST CARD`` and an
optional ``*HH`` checksum, ended by LF (a CR before it is ignored):

    S3 As        seat 3 (S1..S7) gets the ace of spades
    D Kd         the dealer gets the king of diamonds
    B 10h        a board (community) card, the ten of hearts
    B Th*5E      the same card with its checksum (XOR of the bytes before '*', two hex digits)
    H            heartbeat: the shoe is alive (no card)

    shoe = Shoe(uart)                 # machine.UART (timeout=0) or a fake: any(), readinto(buf, n)
    shoe.poll(now_ms)                 # every tick: reads what has arrived, never blocks
    event = shoe.events.pop()         # -1 when none
    event_kind(event) == CARD:   dest = card_dest(event)   (DEALER 0, seats 1..7, BOARD 8)
                                 card = card_of(event)     (card int 0..51, firmware.poker.cards)
    event_kind(event) == REJECT: reason = event_detail(event); shoe.reject_text() for the log
    event_kind(event) == HEARTBEAT

A bad line is rejected whole, with a reason (GARBAGE, TOO_LONG, BAD_DEST, BAD_CARD,
BAD_FORMAT, BAD_CHECKSUM, PARTIAL), counted in ``rejects[reason]`` and kept in
``last_rejected`` for the event log; the loop is never interrupted.  Most lines are judged at
their LF; a line is rejected as TOO_LONG as soon as it passes MAX_LINE bytes (holding its first
MAX_LINE bytes), and the rest of it, up to the LF or a PARTIAL pause, is dropped silently.
Buffers are allocated in the constructor; ``poll`` and the parser allocate nothing, on good
lines and bad ones.
Whether a card is a duplicate, or arrives for a seat that is not playing, is the round
controller's decision, not the shoe driver's.

Bytes lost: neither board's UART reports an overrun.  When the loop stalls and the receive
buffer fills, the UART drops what comes next, and the pieces on either side of the gap could
join into a good-looking wrong line ("S1 A" + "d" of a later line).  Given the buffer's size
(``rxbuf``), the driver takes a poll that finds it full (at most _RX_SLACK bytes short) as a
sign that bytes may be lost after those waiting: it reads those, then rejects the line the gap
cuts (OVERRUN, once), throws away every byte that may have come before or after the gap (what
was waiting at the next poll that did not find the buffer full), and the rest of that line;
the next line is read normally.
"""

from firmware.compat import const
from firmware.drivers.events import EventRing
from firmware.drivers.ticks import ticks_diff

_MAX_LINE = const(16)          # bytes before the LF (a checksummed "S7 10h*HH" is 9)
READ_CHUNK = const(64)        # bytes taken from the UART per poll at most
_PARTIAL_MS = const(500)       # a line left unfinished this long after its last byte is dropped
# A receive buffer this many bytes short of its size may be full: a UART driver may move bytes
# into its buffer a hardware FIFO's worth at a time (128 on the ESP32, 32 on the RP2040) and
# drop a load that does not fit whole.
_RX_SLACK = const(128)
_QUEUE = const(READ_CHUNK // 2 + 1)   # a heartbeat per 2 bytes read, and a loss's reject

# Destinations.
DEALER = const(0)
BOARD = const(8)
SEATS = const(7)

# Event kinds.
CARD = const(1)
REJECT = const(2)
HEARTBEAT = const(3)

# Reject reasons.
GARBAGE = const(1)
TOO_LONG = const(2)
BAD_DEST = const(3)
BAD_CARD = const(4)
BAD_FORMAT = const(5)
BAD_CHECKSUM = const(6)
PARTIAL = const(7)
OVERRUN = const(8)
REASONS = ("", "garbage bytes", "line too long", "bad destination", "bad card", "bad format",
           "bad checksum", "partial line", "bytes lost")

_LF = const(0x0A)
_CR = const(0x0D)
_SPACE = const(0x20)
_STAR = const(0x2A)
_PRINTABLE_LAST = const(0x7E)


def _table(text):
    # Byte -> index + 1 (0: not in text), for both cases of each letter.
    table = bytearray(128)
    for i, ch in enumerate(text):
        table[ord(ch.upper())] = i + 1
        table[ord(ch.lower())] = i + 1
    return bytes(table)


_RANK_OF = _table("23456789TJQKA")
_SUIT_OF = _table("cdhs")
_HEX_OF = _table("0123456789abcdef")


def card_dest(event):
    """Destination of a CARD event: DEALER (0), a seat 1..7, or BOARD (8)."""
    return (event >> 8) & 0xFF


def card_of(event):
    """Card int (rank * 4 + suit, as firmware.poker.cards) of a CARD event."""
    return event & 0xFF


class Shoe:
    """Reads and parses shoe lines from an injected UART."""

    def __init__(self, uart, partial_ms=_PARTIAL_MS, queue=_QUEUE, rxbuf=None):
        """rxbuf: the UART's receive buffer size in bytes, as given to machine.UART (None: not
        known, and a buffer overflow is not looked for).  queue: events kept between polls
        (the default holds all that one poll can make)."""
        if not isinstance(partial_ms, int) or partial_ms < 1:
            raise ValueError("partial_ms must be a positive int, got %r" % (partial_ms,))
        if rxbuf is not None and (not isinstance(rxbuf, int) or rxbuf < _RX_SLACK + 2 * READ_CHUNK):
            raise ValueError("rxbuf must be at least %d bytes, got %r"
                             % (_RX_SLACK + 2 * READ_CHUNK, rxbuf))
        self._uart = uart
        self.partial_ms = partial_ms
        self._rx_full = 0 if rxbuf is None else rxbuf - _RX_SLACK    # 0: not looked for
        self._good = 0             # bytes still to read that came before bytes lost (0: none)
        self._bad = 0              # then bytes that may have come before or after the loss
        self._widen = False        # the last poll found the buffer full: more may be suspect
        self._lost = False         # throwing bytes away: the suspect ones, then up to a LF
        self._edge = True          # the last byte thrown away was a LF
        self.events = EventRing(queue)
        self._rx = bytearray(READ_CHUNK)
        self._line = bytearray(_MAX_LINE)
        self._len = 0
        self._in_line = False      # a byte other than LF arrived since the last LF
        self._garbage = False
        self._cr = False           # a CR came last: fine before the LF, garbage before anything else
        self._overflow = False
        self._last_byte = 0
        self.last_rejected = bytearray(_MAX_LINE)
        self.last_rejected_len = 0
        self.last_reason = 0
        self.rejects = [0] * len(REASONS)        # lines rejected, per reason
        self.cards = 0
        self.last_heard = 0

    def poll(self, now):
        """Read the bytes the UART has (up to READ_CHUNK), parse complete lines, queue events."""
        uart = self._uart
        waiting = uart.any()
        if self._widen:
            # the poll before found the buffer full and its read let bytes in again: whatever
            # was lost lies before the end of what is waiting now
            self._bad = waiting - self._good if waiting > self._good else 0
            self._widen = False
            if self._lost and not self._bad and self._edge:
                self._lost = False
        if self._rx_full and waiting >= self._rx_full:
            if not self._lost and not self._good:
                self._good = waiting        # these came before any byte the UART dropped
            self._widen = True
        if waiting:
            if waiting > READ_CHUNK:
                waiting = READ_CHUNK
            got = uart.readinto(self._rx, waiting)
            if got:
                rx = self._rx
                for i in range(got):
                    if self._lost:
                        self._discard(rx[i], now)
                        continue
                    self._byte(rx[i], now)
                    if self._good:
                        self._good -= 1
                        if not self._good:
                            self._gap()
        if self._in_line and ticks_diff(now, self._last_byte) >= self.partial_ms:
            if self._cr and self._len < _MAX_LINE:
                self._store(_CR)            # kept, so the text shows a shoe ending lines with CR alone
            if not self._overflow:          # a line too long was reported when it overflowed
                self._reject(PARTIAL)
            self._reset()
        elif (self._lost and not self._bad and not self._widen
              and ticks_diff(now, self._last_byte) >= self.partial_ms):
            self._lost = False              # a pause: the next byte starts a line

    def _gap(self):
        # The bytes read so far came before the loss; the line they leave unfinished, and any
        # line lost whole, are reported once, and what may follow the gap is thrown away.
        self._reject(OVERRUN)
        self._edge = not self._in_line
        self._reset()
        self._lost = bool(self._bad or self._widen or not self._edge)

    def _discard(self, byte, now):
        self._last_byte = now
        self._edge = byte == _LF
        if self._bad:
            self._bad -= 1
        if not self._bad and not self._widen and self._edge:
            self._lost = False

    def _byte(self, byte, now):
        if byte == _LF:
            self._finish(now)
            return
        self._in_line = True
        self._last_byte = now
        if self._cr:
            # the CR was inside the line (only CR LF ends one): kept, a byte outside printable
            # ASCII, so the line is garbage and its rejected text shows where the CR was
            self._cr = False
            self._store(_CR)
        if byte == _CR:
            self._cr = True
            return
        self._store(byte)

    def _store(self, byte):
        if self._overflow:
            return
        if self._len == _MAX_LINE:
            # Reported now, not at the LF: a stream that never sends one must not go unseen.
            # The rest of the line is then dropped without another report.
            self._overflow = True
            self._reject(TOO_LONG)
            return
        if byte < _SPACE or byte > _PRINTABLE_LAST:
            self._garbage = True
        self._line[self._len] = byte
        self._len += 1

    def _reset(self):
        self._len = 0
        self._in_line = False
        self._garbage = False
        self._cr = False
        self._overflow = False

    def _finish(self, now):
        if not self._overflow:       # a line too long was rejected when it passed MAX_LINE
            if self._garbage:
                self._reject(GARBAGE)
            elif self._len:
                self._parse(now)
        self._reset()

    def _reject(self, reason):
        count = self._len
        for i in range(count):
            self.last_rejected[i] = self._line[i]
        self.last_rejected_len = count
        self.last_reason = reason
        if self.rejects[reason] < 0x3FFFFFFF:
            self.rejects[reason] += 1
        self.events.push(REJECT, reason)

    def _parse(self, now):
        line = self._line
        end = self._len
        while end and line[end - 1] == _SPACE:
            end -= 1                    # spaces at the end of the line, after a checksum too
        # Optional checksum: "*HH" at the very end.
        checked = False
        for i in range(end):
            if line[i] == _STAR:
                if i != end - 3:
                    self._reject(BAD_FORMAT)
                    return
                high = _HEX_OF[line[i + 1]] if line[i + 1] < 128 else 0
                low = _HEX_OF[line[i + 2]] if line[i + 2] < 128 else 0
                if not high or not low:
                    self._reject(BAD_CHECKSUM)
                    return
                total = 0
                for j in range(i):
                    total ^= line[j]
                if total != ((high - 1) << 4) | (low - 1):
                    self._reject(BAD_CHECKSUM)
                    return
                end = i
                checked = True
                break
        while end and line[end - 1] == _SPACE:
            end -= 1
        start = 0
        while start < end and line[start] == _SPACE:
            start += 1
        if start == end:
            if checked:
                self._reject(BAD_FORMAT)    # a checksum of nothing: no card
            return                      # a line of spaces is an empty line: ignored
        # Destination token.
        dest_end = start
        while dest_end < end and line[dest_end] != _SPACE:
            dest_end += 1
        dest = self._dest(start, dest_end)
        if dest == -2:
            if dest_end == end:
                self.last_heard = now
                self.events.push(HEARTBEAT, 0)
                return
            self._reject(BAD_FORMAT)
            return
        if dest < 0:
            self._reject(BAD_DEST)
            return
        card_start = dest_end
        while card_start < end and line[card_start] == _SPACE:
            card_start += 1
        if card_start == end:
            self._reject(BAD_FORMAT)
            return
        card_end = card_start
        while card_end < end and line[card_end] != _SPACE:
            card_end += 1
        if card_end != end:
            self._reject(BAD_FORMAT)
            return
        card = self._card(card_start, card_end)
        if card < 0:
            self._reject(BAD_CARD)
            return
        self.cards += 1
        self.last_heard = now
        self.events.push(CARD, (dest << 8) | card)

    def _dest(self, start, end):
        # DEALER, a seat, BOARD; -2 for the heartbeat "H"; -1 when unknown.
        line = self._line
        length = end - start
        first = line[start] | 0x20 if length else 0   # lower case
        if length == 1:
            if first == 0x64:      # d
                return DEALER
            if first == 0x62:      # b
                return BOARD
            if first == 0x68:      # h
                return -2
            return -1
        if length == 2 and first == 0x73:   # s
            seat = line[start + 1] - 0x30
            if 1 <= seat <= SEATS:
                return seat
        return -1

    def _card(self, start, end):
        # Card int, or -1.
        line = self._line
        length = end - start
        if length == 3:
            if line[start] != 0x31 or line[start + 1] != 0x30:    # "10"
                return -1
            rank = 9                 # index + 1 of T
        elif length == 2:
            rank = _RANK_OF[line[start]] if line[start] < 128 else 0
        else:
            return -1
        suit_byte = line[end - 1]
        suit = _SUIT_OF[suit_byte] if suit_byte < 128 else 0
        if not rank or not suit:
            return -1
        return (rank - 1) * 4 + (suit - 1)

    def reject_text(self):
        """The last rejected line and its reason, as text for the event log (allocates)."""
        raw = bytes(self.last_rejected[:self.last_rejected_len])
        shown = "".join([chr(b) if 0x20 <= b <= 0x7E else "\\x%02x" % b for b in raw])
        # quoted as it is, not repr'd: repr would double the backslash of each \xNN
        return "shoe line rejected (%s): '%s'" % (REASONS[self.last_reason], shown)
