"""Hash-chained ring of significant events, kept on a filesystem in pages of 32 entries.

Each entry is 32 bytes::

    seq u32, time u32, round u32, kind u16, a u16, b i32, c i32, link 8 bytes

``link = sha256(previous link + the 24 bytes before it)[:8]`` (the first entry ever chains from
eight zero bytes), so changing any entry, or removing one, breaks the chain from there on.  The
newest link and the entry count (the *anchor*) and the entries of the page still being filled
(the *tail*) travel inside the checked critical-memory record, so a complete page is written to
its file once, and an edited or rolled-back page cannot match the anchor.  The ring holds
``PAGES`` files; at least ``(PAGES - 1) * PAGE_ENTRIES`` = 1,056 events are always readable.

Once the ring has wrapped, the oldest entry held chains from one that has left it: the link of
that entry (the *base*) travels in the record too (its own section, read from the page before
the oldest when the window moves on), so an edit of the oldest entry breaks its link as well.
"""

import hashlib
import struct

from firmware.compat import const
from firmware.store.errors import RecordError

ENTRY_SIZE = const(32)
_BODY_SIZE = const(24)
LINK_SIZE = const(8)
PAGE_ENTRIES = const(32)
PAGES = const(34)
PAGE_BYTES = const(1024)      # PAGE_ENTRIES * ENTRY_SIZE
GENESIS = bytes(LINK_SIZE)
# More would let a cut-short commit overwrite the oldest page still held
MAX_EVENTS_PER_COMMIT = const(32)
_BODY = "<IIIHHii"
_ANCHOR = "<I8s"
_ANCHOR_SIZE = const(12)
MAX_ANCHOR = const(1004)      # anchor section with a full tail: 12 + (PAGE_ENTRIES - 1) * ENTRY_SIZE
# No table logs this many events (one a second for 68 years): a record or a page claiming
# more is not believed (the entries' numbers after it would not fit)
COUNT_LIMIT = 0x80000000
_I32_MIN = -0x80000000
_I32_MAX = 0x7FFFFFFF

# Event kinds, numbered without a gap from POWER_UP to LAST_KIND (stage() accepts that range;
# a new kind comes after the last and LAST_KIND becomes it).  The `a`, `b`, `c` arguments
# each carries are listed with it.
POWER_UP = const(1)         # a the board's reset cause code, b its name (RESET_CAUSES index + 1;
                            # 0: none of them), as the codes differ from port to port
POWER_DOWN = const(2)
CM_ERROR = const(3)         # a copy index, b reason code (REASON_*)
CM_RECOVERED = const(4)     # a copy index rebuilt, b source copy index, c sequence number
RAM_CLEAR = const(5)        # a supervisor id, b sequence number before the clear, c the pools'
                            # seed (cents, operator additions; 0 at a game without the jackpot)
LOCK = const(6)             # b seats with a jackpot wager, c jackpot wager total (cents)
VOID = const(7)             # b seats affected, c amount reversed (cents)
JACKPOT_HIT = const(8)      # a seat, b hand category, c amount (cents)
SUPERVISOR_CONFIRM = const(9)  # a supervisor id, b what was confirmed
CONFIG_CHANGE = const(10)   # a setting id, b old value, c new value
DOOR_OPEN = const(11)       # a door id, b changes it stands for when they came too fast (else 0)
DOOR_CLOSE = const(12)      # a door id, b as DOOR_OPEN
TAMPER = const(13)          # a seat / sensor
LINK_DOWN = const(14)       # b changes it stands for when they came too fast (else 0)
LINK_UP = const(15)         # b as LINK_DOWN
SETTLE = const(16)          # a seats folded (bits), b jackpot paid (cents), c pool after (cents; split: both
                            # pools' total; linked: the link's, before its payouts)
LOG_ERROR = const(17)       # b first sequence number whose link failed
OPERATOR_ADDITION = const(18)  # a pool, c amount (cents)
LINK_REJECT = const(19)     # a reason (LINK_REASONS index + 1), b messages rejected since the last entry
LINK_MISMATCH = const(20)   # b table's linked wagers (cents), c controller's linked wagers (cents)
LINK_CLAIM = const(21)      # a seat, b hand category, c jackpot wager (cents): hit sent to the link
SHOE_REJECT = const(22)     # a last reason (drivers.shoe.REASONS index), b lines rejected since the last
SENSOR_FAULT = const(23)    # a seat, b 1 jackpot / 2 Ante spot (both 0: the bus), c spot_sensors reason
DISPLAY_FAULT = const(24)   # a 1: the dealer display stopped answering, 2: the meter sign
CARD_DUPLICATE = const(25)  # a destination (0 dealer, 1..7 seat, 8 board), b card (0..51): a card
                            # dealt a second time in a round, refused (the first of each round)
LINK_REFUSED = const(26)    # b round: the link controller refused the round's claimed hit, paid nothing;
                            # a seat, c why (link codec REFUSED_*): that seat's hand refused alone
JACKPOT_ENVY = const(27)    # a seat whose jackpot hand paid the envy bonus, b seats paid it, c each
                            # seat's bonus (cents)
JACKPOT_SENT_BACK = const(28)  # a supervisor id, b seats whose jackpot hands were sent back unpaid
                            # (a card or a fold to correct), c what they would have been paid (cents)
CARD_REMOVED = const(29)    # a destination (0 dealer, 1..7 seat, 8 board), b card (0..51): taken
                            # out of the round by the supervisor (a misread or mistyped card)
LOOP_FAULT = const(30)      # a boots in a row that ended in a fault (firmware.app: at STOP_FAULTS the
                            # table halts), b the fault's id (CRC-32 of "type: text", 31 bits),
                            # c the boot's loop passes before it
LAST_KIND = const(30)
# The top bit of an entry's kind field: its time was not known (the table's clock read earlier
# than the newest time the log held, or had never been set, after a power cut of a board with
# no battery clock): counted on from the newest time before it, so the entries stay in order,
# but it is no time of day.  `unpack` gives the kind without it; `time_unsure` reads it.
CLOCK_UNSURE = const(0x8000)

# The kinds' and reason codes' names for people are in firmware.store.eventnames.

# The reset causes a board names (boards.base.RESET_CAUSE_NAMES), as POWER_UP's b counts them
RESET_CAUSES = ("power-on", "hard reset", "watchdog", "deep-sleep wake", "soft reset")


def _first_held(count):
    """Sequence number of the oldest event a ring of `count` events holds."""
    return max(0, (count // PAGE_ENTRIES - (PAGES - 1)) * PAGE_ENTRIES)


def clamp(value):
    """value as an entry's b or c field carries it: an amount beyond the signed 32-bit range
    ($21,474,836.47 in cents) is logged as that end, rather than refuse the commit that moves
    the money (the jackpot record keeps the exact amounts)."""
    if value > _I32_MAX:
        return _I32_MAX
    return _I32_MIN if value < _I32_MIN else value

# Reasons of LINK_REJECT (firmware.link.codec.REJECT_REASONS, in its order)
LINK_REASONS = ("malformed", "forged", "replayed", "stale", "unknown table")

# Reason codes of CM_ERROR
REASON_BLANK = const(1)
_REASON_BAD_MAGIC = const(2)
REASON_BAD_CRC = const(3)
_REASON_TRUNCATED = const(4)
REASON_STALE = const(5)       # valid but older than another copy (a commit was cut short)
REASON_READBACK = const(6)    # read-back after a write did not match
REASON_IO = const(7)          # the device raised an I/O error
REASON_OTHER = const(8)
REASON_BAD_STATE = const(9)   # a good CRC, but the application cannot use its sections


def reason_code(message):
    """Map a RecordError message to a REASON_* code."""
    for prefix, code in (("blank", REASON_BLANK), ("bad magic", _REASON_BAD_MAGIC),
                         ("bad crc", REASON_BAD_CRC), ("truncated", _REASON_TRUNCATED),
                         ("short", _REASON_TRUNCATED), ("io error", REASON_IO),
                         ("bad state", REASON_BAD_STATE)):
        if message.startswith(prefix):
            return code
    return REASON_OTHER


def link_of(previous, body):
    """Return the 8-byte chain link of an entry body that follows a link `previous`."""
    h = hashlib.sha256(previous)
    h.update(body)
    return h.digest()[:LINK_SIZE]


def make_body(seq, time, round_no, kind, a=0, b=0, c=0):
    """Return the 24-byte body of an entry; ValueError names a field out of range."""
    for label, value, low, high in (("time", time, 0, 0xFFFFFFFF), ("round", round_no, 0, 0xFFFFFFFF),
                                    ("kind", kind, 1, 0xFFFF), ("a", a, 0, 0xFFFF),
                                    ("b", b, _I32_MIN, _I32_MAX), ("c", c, _I32_MIN, _I32_MAX)):
        if not isinstance(value, int) or value < low or value > high:
            raise ValueError("event %s %r outside %d..%d" % (label, value, low, high))
    return struct.pack(_BODY, seq, time, round_no, kind, a, b, c)


def unpack(entry):
    """Return (seq, time, round, kind, a, b, c, link) of a 32-byte entry (kind without the
    CLOCK_UNSURE mark: time_unsure reads it)."""
    seq, time, round_no, kind, a, b, c = struct.unpack_from(_BODY, entry, 0)
    return (seq, time, round_no, kind & 0x7FFF, a, b, c, bytes(entry[_BODY_SIZE:ENTRY_SIZE]))


def time_unsure(entry):
    """True when the 32-byte entry's time was not known (CLOCK_UNSURE): no time of day."""
    return entry[13] & 0x80 != 0


class EventLog:
    """The event ring: page files on `fs`, anchor and tail held by the caller's checked record.

    The anchor section (count, newest link, tail entries) is kept in one of two preallocated
    buffers, the committed one and the one being staged, swapped by ``confirm``: staging
    events allocates nothing near the size of a page."""

    def __init__(self, fs, prefix="ev"):
        self.fs = fs
        self.prefix = prefix
        self.count = 0            # events ever logged = seq of the next event
        self.head = GENESIS       # link of the newest event
        # anchor section: _ANCHOR header, then the entries of the page being filled
        self._anchor = bytearray(_ANCHOR_SIZE + PAGE_BYTES)
        self._spare = bytearray(_ANCHOR_SIZE + PAGE_BYTES)
        self._length = _ANCHOR_SIZE
        self._staged = None
        # the link before the oldest entry held (GENESIS until the ring wraps); None when not
        # known (a record of older firmware, a page before it unreadable): that entry unchecked
        self.base = GENESIS
        struct.pack_into(_ANCHOR, self._anchor, 0, 0, GENESIS)

    @property
    def tail(self):
        """The entries of the page being filled (count % PAGE_ENTRIES of them), as bytes."""
        return bytes(memoryview(self._anchor)[_ANCHOR_SIZE:self._length])

    # --- the part stored inside the critical-memory record -------------------------------
    def anchor_bytes(self, count=None, head=None, tail=None):
        """Return the record section holding the anchor and the tail."""
        if count is None:
            return bytes(self.anchor_view())
        return struct.pack(_ANCHOR, count, head) + tail

    def anchor_view(self):
        """The committed anchor section as a memoryview of the buffer holding it (valid until
        the second ``confirm`` from now)."""
        return memoryview(self._anchor)[:self._length]

    def load_anchor(self, data, base=None):
        """Restore count, head and tail from a record section, and the base (the link before
        the oldest entry held: its own section, None if the record has none); RecordError if
        inconsistent."""
        if len(data) < _ANCHOR_SIZE:
            raise RecordError("event anchor short: %d bytes" % len(data))
        count, head = struct.unpack_from(_ANCHOR, data, 0)
        tail = len(data) - _ANCHOR_SIZE
        if tail != (count % PAGE_ENTRIES) * ENTRY_SIZE:
            raise RecordError("event tail of %d bytes does not match count %d" % (tail, count))
        if base is not None and len(base) != LINK_SIZE:
            raise RecordError("event base of %d bytes, not %d" % (len(base), LINK_SIZE))
        memoryview(self._anchor)[:len(data)] = data
        self.count, self.head, self._length = count, bytes(head), len(data)
        self._staged = None
        self.base = GENESIS if self.first_available() == 0 else (
            None if base is None else bytes(base))

    def _set_empty_tail(self, count, head):
        struct.pack_into(_ANCHOR, self._anchor, 0, count, head)
        self.count, self.head, self._length = count, head, _ANCHOR_SIZE
        self._staged = None
        self.base = self._link_before(self.first_available())

    # --- appending ------------------------------------------------------------------------
    def stage(self, events, time, round_no, unsure=False):
        """Chain events [(kind, a, b, c), ...] after the committed ones; write any page they
        complete; return the anchor section for the record, as a memoryview of a buffer that
        stays valid until the next ``stage``.  Nothing counts until ``confirm``.  An event
        logged late (kept while it could not be written) carries its own time as a fifth item,
        (kind, a, b, c, time); the others get `time`.  unsure: the times are not known (each
        kind is marked CLOCK_UNSURE)."""
        mark = CLOCK_UNSURE if unsure else 0
        count, head, base = self.count, self.head, self.base
        if len(events) > MAX_EVENTS_PER_COMMIT:
            raise ValueError("%d events in one commit, at most %d" % (len(events), MAX_EVENTS_PER_COMMIT))
        bodies = []
        for event in events:
            if not isinstance(event, tuple) or len(event) < 1 or len(event) > 5:
                raise ValueError("event %r must be a tuple (kind, a, b, c[, time])" % (event,))
            kind = event[0]
            # (a kind may carry the mark itself: an entry kept while the time was unsure)
            if not isinstance(kind, int) or not POWER_UP <= kind & ~CLOCK_UNSURE <= LAST_KIND:
                raise ValueError("unknown event kind %r" % (event[0],))
            # validates before any write
            bodies.append(make_body(0, event[4] if len(event) == 5 else time, round_no,
                                    kind | mark, *event[1:4]))
        buf = self._spare
        view = memoryview(buf)
        pos = self._length
        view[_ANCHOR_SIZE:pos] = memoryview(self._anchor)[_ANCHOR_SIZE:pos]
        for body in bodies:
            view[pos:pos + _BODY_SIZE] = body
            struct.pack_into("<I", buf, pos, count)
            head = link_of(head, view[pos:pos + _BODY_SIZE])
            view[pos + _BODY_SIZE:pos + ENTRY_SIZE] = head
            pos += ENTRY_SIZE
            count += 1
            if count % PAGE_ENTRIES == 0:
                first = _first_held(count)
                if first != _first_held(count - 1):
                    # the oldest page leaves the window: the link before the new oldest entry
                    # is read from the page still on file (the one this page does not replace)
                    base = self._link_before(first)
                self._write_page((count - 1) // PAGE_ENTRIES, view[_ANCHOR_SIZE:pos])
                pos = _ANCHOR_SIZE
        struct.pack_into(_ANCHOR, buf, 0, count, head)
        self._staged = (count, head, pos, base)
        return view[:pos]

    def base_section(self):
        """The base section to commit with the anchor ``stage`` returned: the link before the
        oldest entry held, or None when the record needs none (the ring has not wrapped: the
        chain starts from GENESIS) or it is not known."""
        count, base = (self.count, self.base) if self._staged is None else (
            self._staged[0], self._staged[3])
        return base if _first_held(count) else None

    def confirm(self):
        """Make the staged events part of the log (call once the record is committed)."""
        if self._staged is not None:
            self.count, self.head, self._length, self.base = self._staged
            self._anchor, self._spare = self._spare, self._anchor
            self._staged = None

    def staged(self):
        """True between a ``stage`` and its ``confirm`` or ``abandon``."""
        return self._staged is not None

    def abandon(self):
        """Drop staged events (the record commit did not happen)."""
        self._staged = None

    def _page_name(self, page):
        return "%s%02d.bin" % (self.prefix, page % PAGES)

    def _write_page(self, page, data):
        with self.fs.open(self._page_name(page), "wb") as f:
            f.write(data)

    # --- reading and checking -------------------------------------------------------------
    def first_available(self):
        """Sequence number of the oldest event the ring still holds."""
        return _first_held(self.count)

    def _link_before(self, first):
        """The link of entry first - 1 as its page file holds it (GENESIS before entry 0), or
        None if the file does not hold that entry."""
        if first == 0:
            return GENESIS
        page, index = divmod(first - 1, PAGE_ENTRIES)
        data = self._read_entries(page, index, 1)
        if data is None or len(data) != ENTRY_SIZE or struct.unpack_from("<I", data, 0)[0] != first - 1:
            return None
        return bytes(data[_BODY_SIZE:ENTRY_SIZE])

    def entries(self, start=None, stop=None):
        """Yield the raw 32-byte entries from `start` (default: the oldest held) up to, not
        including, `stop` (default: all).  A page missing or of the wrong length yields None
        for each of its entries it lacks.  Only the entries asked for are read, so a caller
        that wants a few takes a few hundred bytes of heap, not a page."""
        if start is None:
            start = self.first_available()
        if stop is None or stop > self.count:
            stop = self.count
        tail_page = self.count // PAGE_ENTRIES
        seq = start
        while seq < stop:
            page = seq // PAGE_ENTRIES
            first = seq - page * PAGE_ENTRIES
            n = min(stop - seq, PAGE_ENTRIES - first)
            if page == tail_page:
                at = _ANCHOR_SIZE + first * ENTRY_SIZE
                data = bytes(memoryview(self._anchor)[at:at + n * ENTRY_SIZE])
            else:
                data = self._read_entries(page, first, n)
            for i in range(n):
                if data is None or len(data) < (i + 1) * ENTRY_SIZE:
                    yield None
                else:
                    yield data[i * ENTRY_SIZE:(i + 1) * ENTRY_SIZE]
            seq += n

    def _read_entries(self, page, first, n):
        """The bytes of n entries of a page file from its entry `first` (None: no file)."""
        try:
            with self.fs.open(self._page_name(page), "rb") as f:
                if first:
                    f.seek(first * ENTRY_SIZE)
                return f.read(n * ENTRY_SIZE)
        except OSError:
            return None

    def events(self, start=None):
        """Yield the unpacked tuples (seq, time, round, kind, a, b, c, link) from `start`."""
        for entry in self.entries(start):
            if entry is not None:
                yield unpack(entry)

    def highest_round(self):
        """The highest round of the held entries whose link follows from the entry before
        (a garbled one is not believed: its link no longer matches its body), 0 if none."""
        highest = 0
        previous = self.base
        for entry in self.entries():
            link = None if entry is None else bytes(entry[_BODY_SIZE:ENTRY_SIZE])
            if link is not None and previous is not None \
                    and link_of(previous, entry[:_BODY_SIZE]) == link:
                highest = max(highest, struct.unpack_from("<I", entry, 8)[0])
            previous = link
        return highest

    def verify(self):
        """Walk the chain over every held event; return None if intact, else the sequence
        number of the first entry whose link or number is wrong (or that is missing)."""
        expected_seq = self.first_available()
        previous = self.base
        for entry in self.entries(expected_seq):
            if entry is None:
                return expected_seq
            seq = struct.unpack_from("<I", entry, 0)[0]
            link = bytes(entry[_BODY_SIZE:ENTRY_SIZE])
            if seq != expected_seq:
                return expected_seq
            if seq == 0:
                previous = GENESIS
            if previous is not None and link_of(previous, entry[:_BODY_SIZE]) != link:
                return seq
            previous = link
            expected_seq += 1
        if self.count and previous != self.head:
            return self.count - 1
        return None

    def recover_anchor(self):
        """After a RAM clear: continue the chain after the newest complete page on file.
        Returns the number of events recovered into the anchor (0 if none)."""
        best = None
        for slot in range(PAGES):
            try:
                with self.fs.open("%s%02d.bin" % (self.prefix, slot), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if len(data) != PAGE_ENTRIES * ENTRY_SIZE:
                continue
            first = struct.unpack_from("<I", data, 0)[0]
            if first % PAGE_ENTRIES or (first // PAGE_ENTRIES) % PAGES != slot \
                    or first >= COUNT_LIMIT - PAGE_ENTRIES:
                continue
            last = unpack(data[-ENTRY_SIZE:])
            if last[0] != first + PAGE_ENTRIES - 1:
                continue
            if best is None or first > best[0]:
                best = (first, last[7])
        if best is None:
            self._set_empty_tail(0, GENESIS)
        else:
            self._set_empty_tail(best[0] + PAGE_ENTRIES, best[1])
        return self.count
