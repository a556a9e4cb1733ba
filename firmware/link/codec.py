"""Link messages: a compact JSON body signed with HMAC-SHA256 under the table's key.

Wire form of every message (MQTT payload)::

    <64 hex digits: HMAC-SHA256(key, body)><body>

The body is one JSON object whose fields are written in a fixed order (``encode``) and read
back with strict checks (``decode``): only the fields of its kind, integers only (no bool,
no float), each in its range.  Every body carries the protocol version ``v``, the kind
``k``, the table number ``tb``, the sender's message sequence number ``sq`` and the sender's
clock ``ts`` in seconds.  docs/link.md describes every kind.

A bad message raises ``LinkError`` whose ``reason`` is one of REJECT_REASONS and whose
text names what was wrong; nothing is applied from it.
"""

import json

from firmware.compat import const
from firmware.link import hmac256

VERSION = const(1)
MAX_PAYLOAD = const(1024)
_MAC_HEX = const(64)
MAX_TABLE = const(9999)
MAX_U32 = 0xFFFFFFFF
MAX_SEQ = (1 << 53) - 1  # controller numbers start at clock seconds x 1024 (see link_controller)
MAX_MONEY = const(0x3FFFFFFF)
MAX_TOTAL = 1 << 48  # lifetime ledger totals in cents
_REPLAY_WINDOW = const(32)
_MAX_HITS = const(7)
MAX_WAIT = const(8)
_MAX_SLOTS = const(2)
TOTALS = const(5)

# Kinds, table to controller ("up") and controller to table ("down").
HELLO = "hello"
ENTRY = "entry"
PING = "ping"
STATUS = "status"
PAID = "paid"
PAYS = "pays"       # the sender's jackpot pay table, both ways (a table's, the link's reply)
UP_KINDS = (HELLO, ENTRY, PING, PAYS)
DOWN_KINDS = (STATUS, PAID, PAYS)

# Ledger entry types carried by an ENTRY message.
CONTRIBUTION = const(1)
REVERSAL = const(2)
HIT = const(3)

# Indexes of the ledger totals list ``tot``: wagers in cents, wager count, reversed cents,
# paid cents, paid hit count.
T_WAGERS = const(0)
T_COUNT = const(1)
T_REVERSED = const(2)
T_PAID = const(3)
T_HITS = const(4)

# How two ledgers' totals for the same applied entries compare (compare_totals)
AGREE = const(0)
TOTALS_DIFFER = const(1)      # wagers, their count or the reversals
PAYOUTS_DIFFER = const(2)     # fewer hits paid than the table counts, or other amounts
UNCLAIMED_PAID = const(3)     # the link paid hits the table has no claim waiting for
PAYOUT_COMING = const(4)      # the link paid a hit the table still waits to hear of

HAND_TYPES = const(5)  # firmware.jackpot.paytable: flush .. royal flush = 0..4
_MAX_SEAT = const(7)

# Why the link refused one hand of a claim (a ``paid`` row [seat, hand, why]): its wager is
# not the linked wager, or the linked pay table does not pay that hand
REFUSED_WAGER = const(1)
REFUSED_HAND = const(2)

MALFORMED = "malformed"
FORGED = "forged"
REPLAYED = "replayed"
STALE = "stale"
UNKNOWN_TABLE = "unknown table"
REJECT_REASONS = (MALFORMED, FORGED, REPLAYED, STALE, UNKNOWN_TABLE)

_COMMON = ("v", "k", "tb", "sq", "ts")
# Field order of each kind after the common fields.
FIELDS = {
    HELLO: ("n", "tot", "hw"),
    ENTRY: ("n", "e", "r", "lt", "a", "c", "h"),
    PING: ("n", "hw"),
    STATUS: ("n", "tot", "pool", "w"),
    PAID: ("n", "pay", "pb", "pa"),
    PAYS: ("pt",),
}


class LinkError(ValueError):
    """A message that must not be applied; ``reason`` says which rejection class it is."""

    def __init__(self, reason, text):
        super().__init__("%s: %s" % (reason, text))
        self.reason = reason
        self.text = text


class Message:
    """A decoded, authenticated message: ``kind``, ``table``, ``seq``, ``ts`` and ``fields``."""

    def __init__(self, kind, table, seq, ts, fields):
        self.kind = kind
        self.table = table
        self.seq = seq
        self.ts = ts
        self.fields = fields

    def get(self, name):
        return self.fields[name]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def to_json(value):
    """Compact JSON text of an int, a short ASCII string or a (nested) list of those."""
    if _is_int(value):
        return "%d" % value
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ",".join([to_json(v) for v in value]) + "]"
    raise ValueError("link field value %r is not an int, text or list" % (value,))


def encode(key, kind, table, seq, ts, values):
    """Return the signed payload bytes of a message; values are the kind's fields in order."""
    if kind not in FIELDS:
        raise ValueError("unknown link message kind %r" % (kind,))
    names = FIELDS[kind]
    if len(values) != len(names):
        raise ValueError("link %s needs %d fields %r, got %d" % (kind, len(names), names, len(values)))
    parts = ['"v":%d' % VERSION, '"k":"%s"' % kind, '"tb":%d' % table, '"sq":%d' % seq, '"ts":%d' % ts]
    for i in range(len(names)):
        parts.append('"%s":%s' % (names[i], to_json(values[i])))
    body = ("{" + ",".join(parts) + "}").encode()
    # check what we send with the same rules the receiver applies
    _check(kind, json.loads(body))
    payload = hmac256.hexdigest(key, body) + body
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("link %s message of %d bytes exceeds %d" % (kind, len(payload), MAX_PAYLOAD))
    return payload


def _bad(text):
    raise LinkError(MALFORMED, text)


def _int_in(obj, name, low, high):
    value = obj[name]
    if not _is_int(value) or value < low or value > high:
        _bad("field %s=%r is not an integer in %d..%d" % (name, value, low, high))
    return value


def _int_list(obj, name, length_low, length_high, low, high):
    value = obj[name]
    if not isinstance(value, list) or len(value) < length_low or len(value) > length_high:
        _bad("field %s=%r is not a list of %d..%d integers" % (name, value, length_low, length_high))
    for item in value:
        if not _is_int(item) or item < low or item > high:
            _bad("field %s item %r is not an integer in %d..%d" % (name, item, low, high))
    return value


def _rows(obj, name, width, limits, high_count, short=None):
    """A list of rows of `width` integers within `limits` (low, high per column), or of
    len(short) integers within `short` when given (a paid message's refused hands)."""
    value = obj[name]
    if not isinstance(value, list) or len(value) > high_count:
        _bad("field %s=%r is not a list of at most %d rows" % (name, value, high_count))
    for row in value:
        ok = limits
        if short is not None and isinstance(row, list) and len(row) == len(short):
            ok = short
        elif not isinstance(row, list) or len(row) != width:
            _bad("field %s row %r is not a list of %d integers" % (name, row, width))
        for i in range(len(ok)):
            low, high = ok[i]
            if not _is_int(row[i]) or row[i] < low or row[i] > high:
                _bad("field %s row %r item %d is not an integer in %d..%d" % (name, row, i, low, high))
    return value


def _check(kind, obj):
    """Validate a parsed body of a known kind; LinkError(MALFORMED) names the first problem."""
    names = FIELDS[kind]
    if len(obj) != len(_COMMON) + len(names):
        extra = [n for n in obj if n not in _COMMON and n not in names]
        missing = [n for n in names if n not in obj]
        _bad("%s fields wrong: missing %r, unknown %r" % (kind, missing, extra))
    for name in _COMMON + names:
        if name not in obj:
            _bad("%s has no field %s" % (kind, name))
    _int_in(obj, "v", VERSION, VERSION)
    _int_in(obj, "tb", 1, MAX_TABLE)
    _int_in(obj, "sq", 1, MAX_SEQ)
    _int_in(obj, "ts", 0, MAX_U32)
    if kind == HELLO or kind == STATUS:
        _int_in(obj, "n", 0, MAX_U32)
        _int_list(obj, "tot", TOTALS, TOTALS, 0, MAX_TOTAL)
        if kind == STATUS:
            _int_list(obj, "pool", 1, _MAX_SLOTS, 0, MAX_MONEY)
            _int_in(obj, "w", 1, MAX_MONEY)
    if kind == PING or kind == HELLO:
        _int_in(obj, "n", 0, MAX_U32)
        _int_list(obj, "hw", 0, MAX_WAIT, 1, MAX_U32)
    if kind == ENTRY:
        _int_in(obj, "n", 1, MAX_U32)
        e = _int_in(obj, "e", CONTRIBUTION, HIT)
        _int_in(obj, "r", 0, MAX_U32)
        _int_in(obj, "lt", 0, MAX_U32)
        _int_in(obj, "a", 0, MAX_MONEY)
        _int_in(obj, "c", 0, _MAX_SEAT)
        hits = _rows(obj, "h", 3, ((1, _MAX_SEAT), (0, HAND_TYPES - 1), (1, MAX_MONEY)), _MAX_HITS)
        if e == HIT and not hits:
            _bad("hit entry %d has no hits" % obj["n"])
        if e != HIT and hits:
            _bad("entry %d of type %d carries hits" % (obj["n"], e))
    elif kind == PAID:
        _int_in(obj, "n", 1, MAX_U32)
        # a royal pays a whole pool, which may exceed MAX_MONEY: amounts as the ledger totals;
        # a hand the link refused is [seat, hand, why] (a table before them: malformed)
        _rows(obj, "pay", 4, ((1, _MAX_SEAT), (0, HAND_TYPES - 1), (0, MAX_TOTAL), (0, MAX_TOTAL)),
              _MAX_HITS, ((1, _MAX_SEAT), (0, HAND_TYPES - 1), (REFUSED_WAGER, REFUSED_HAND)))
        _int_list(obj, "pb", 1, _MAX_SLOTS, 0, MAX_MONEY)
        _int_list(obj, "pa", 1, _MAX_SLOTS, 0, MAX_MONEY)
    elif kind == PAYS:
        _int_list(obj, "pt", 2 * HAND_TYPES, 2 * HAND_TYPES, 0, MAX_MONEY)


def peek_table(payload):
    """Table number claimed by an unverified payload (to choose the key); LinkError if unreadable."""
    body = _split(payload)[1]
    obj = _parse(body)
    table = obj.get("tb")
    if not _is_int(table) or table < 1 or table > MAX_TABLE:
        _bad("field tb=%r is not an integer in 1..%d" % (table, MAX_TABLE))
    return table


def _split(payload):
    if not isinstance(payload, (bytes, bytearray)):
        _bad("payload is %s, not bytes" % type(payload).__name__)
    if len(payload) > MAX_PAYLOAD:
        _bad("payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    if len(payload) < _MAC_HEX + 2:
        _bad("payload of %d bytes is too short" % len(payload))
    return bytes(payload[:_MAC_HEX]), bytes(payload[_MAC_HEX:])


def _parse(body):
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeError):
        obj = None
    if not isinstance(obj, dict):
        _bad("body is not a JSON object")
    return obj


def decode(key, payload, kinds):
    """Authenticate and parse payload with key; return a Message of one of ``kinds``.

    Raises LinkError: FORGED if the MAC does not match, MALFORMED for anything unreadable,
    a kind not in ``kinds``, or a field of the wrong type or range.
    """
    mac, body = _split(payload)
    for ch in mac:
        if not (48 <= ch <= 57 or 97 <= ch <= 102):
            _bad("MAC is not 64 lowercase hex digits")
    if not hmac256.equal(mac, hmac256.hexdigest(key, body)):
        raise LinkError(FORGED, "MAC does not match the body under this table's key")
    obj = _parse(body)
    kind = obj.get("k")
    if kind not in kinds:
        _bad("kind %r is not one of %r" % (kind, kinds))
    _check(kind, obj)
    values = {}
    for name in FIELDS[kind]:
        values[name] = obj[name]
    return Message(kind, obj["tb"], obj["sq"], obj["ts"], values)


def replay_check(seq, top, window):
    """Sliding-window replay check: (accepted, new top, new window bitmask).

    ``top`` is the highest sequence number accepted so far; bit i of ``window`` says that
    top-1-i was accepted too.  A number at most _REPLAY_WINDOW below top that was not seen is
    accepted (messages may be reordered); one seen before or older than that is a replay.
    """
    if seq > top:
        shift = seq - top
        if shift > _REPLAY_WINDOW:
            window = 0
        else:
            window = ((window << shift) | (1 << (shift - 1))) & 0xFFFFFFFF
        return True, seq, window
    back = top - seq
    if back == 0 or back > _REPLAY_WINDOW:
        return False, top, window
    bit = 1 << (back - 1)
    if window & bit:
        return False, top, window
    return True, top, window | bit


def compare_totals(table, link, awaiting):
    """How a table's ledger totals and the link controller's compare once both have applied
    the same entries (the table on a status, the controller on a hello: both sides judge
    alike): AGREE, TOTALS_DIFFER, PAYOUTS_DIFFER, UNCLAIMED_PAID, or PAYOUT_COMING when the
    link paid more hits and the table awaits payouts (`awaiting`: any claims waiting)."""
    for i in (T_WAGERS, T_COUNT, T_REVERSED):
        if link[i] != table[i]:
            return TOTALS_DIFFER
    if link[T_HITS] < table[T_HITS] or (link[T_HITS] == table[T_HITS]
                                        and link[T_PAID] != table[T_PAID]):
        return PAYOUTS_DIFFER
    if link[T_HITS] > table[T_HITS]:
        return PAYOUT_COMING if awaiting else UNCLAIMED_PAID
    return AGREE



def pays_differ(table, link):
    """"" when a table's pay table and the link's agree (a pays message's ``pt``: the odds
    per hand type, then the percent), else what differs, its first hand named (the table and
    the controller say it alike)."""
    if table == link:
        return ""
    from firmware.jackpot.paytable import KEYS

    hand = 0
    while table[hand] == link[hand] and table[HAND_TYPES + hand] == link[HAND_TYPES + hand]:
        hand += 1
    return "pay table differs: %s table %d to 1 %d%%, link %d to 1 %d%%" % (
        KEYS[hand], table[hand], table[HAND_TYPES + hand], link[hand], link[HAND_TYPES + hand])
