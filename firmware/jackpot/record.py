"""The jackpot state as bytes for critical memory: encode() and decode().

Compact, versioned, integers only: the magic ``JP``, a format version, then zigzag varints
(codec.py) in this order::

    config (config.CONFIG_INTS ints)
    per pool slot: pending flag, and if 1 the six pool parameters waiting for the next hit
    per pool slot: value, reserve, carry, reserve carry, meters (meters.POOL_METERS ints)
    table meters (meters.TABLE_METERS ints)
    last round, open round, open wager, open seat mask, open overflow per slot
    number of recorded hits (0..25), each meters.HIT_FIELDS ints

Version 2 added the envy bonus: five config ints, two meters per pool and two table meters
(meters.ENVY_*), and the hit record's three H_ENVY_* fields.  Version 3 added the shortfall
option: one config int, the CUT meter per pool and T_CUT, and the hit record's H_CUT and
H_ENVY_CUT.  decode() also reads versions 1 and 2, written before them, as the same state
with no envy bonus (version 1) and the shortfall option "operator", nothing cut, so that an
upgraded table keeps its pools.

decode() rebuilds a Jackpot that encodes to the same bytes, and raises ValueError naming
what is wrong for anything else: bad magic or version, truncation, trailing bytes, a value
out of range, or books that do not balance (the meter equations of meters.py).  The store
adds its own CRC and copies; this check catches what a CRC cannot (a state written wrong).
"""

from firmware.compat import const
from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot.codec import Writer

MAGIC = b"JP"
VERSION = const(3)
# size_bound: bytes of an amount or a count at its widest, any value below 2**34 (far above a
# pool's, or a lifetime meter's), and of a time or a round number (32 bits)
_WIDE = const(5)


def encode(jp):
    """The state of a Jackpot as bytes."""
    w = Writer()
    _write(jp, w)
    return w.bytes()


def encode_into(jp, writer):
    """The state of a Jackpot written from the start of a kept codec.Writer: a memoryview of
    the same bytes encode() gives, valid until the writer is used again (a commit reads it
    at once; no new buffer once the writer's is large enough)."""
    writer.reset()
    _write(jp, writer)
    return writer.view()


def _write(jp, w):
    w.raw(MAGIC)
    w.int(VERSION)
    put = w.int
    jp.config.each_int(put)
    for slot in range(cfg.POOL_SLOTS):
        pending = jp.pending[slot]
        if pending is None:
            w.int(0)
        else:
            w.int(1)
            pending.each_int(put)
    for slot in range(cfg.POOL_SLOTS):
        w.int(jp.value[slot])
        w.int(jp.reserve[slot])
        w.int(jp.carry[slot])
        w.int(jp.reserve_carry[slot])
        w.ints(jp.meters[slot])
    w.ints(jp.table)
    w.int(jp.last_round)
    w.int(jp.open_round)
    w.int(jp.open_wager)
    w.int(jp.open_seats)
    w.ints(jp.open_overflow)
    w.int(len(jp.hits))
    for h in jp.hits:
        w.ints(h)


def decode(data):
    """Rebuild the Jackpot from encode()'s bytes; ValueError names what is wrong.
    (firmware.jackpot.restore does it, loaded for the call: the table decodes its state only
    at boot and after a failed commit.  heap.NotLoaded when it cannot be loaded: a damaged
    .mpy file's ValueError must not pass for a bad record.)"""
    from firmware.heap import let_go, not_loaded

    try:
        from firmware.jackpot import restore
    except Exception as error:  # noqa: BLE001 - a full heap, a damaged .mpy
        raise not_loaded("firmware.jackpot.restore", error) from None
    try:
        return restore.decode(data)
    finally:
        let_go("firmware.jackpot.restore")
        let_go("firmware.jackpot.configcheck")      # restore's, loaded with it
        let_go("firmware.jackpot.meternames")       # its check of the books (Jackpot.audit)


def _width(v):
    """Bytes of v as the writer puts it (a zigzag varint)."""
    v = (v << 1) if v >= 0 else (((-v) << 1) - 1)
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


def _wide(v):
    """Bytes an amount or a count now at v can take as play goes on: _WIDE, or one more than
    now (it grows 64-fold first) when v is already wider."""
    n = _width(v) + 1
    return n if n > _WIDE else _WIDE


def _widths(values):
    n = 0
    for v in values:
        n += _width(v)
    return n


def size_bound(jp):
    """The most bytes encode() gives for `jp` as rounds are played under its configuration
    (the record buffers are made that large before they are needed): the configuration as it
    is; in each pool in use a change waiting (its rates and amounts at their widest), its value,
    reserve and meters at their widest (_wide); the pools out of use as they are (no round
    moves them); the table meters at their widest, the open round's; and the 25 hits kept
    (meters.LAST_HITS), each as wide as one the configuration pays can be, or as the widest on
    record (paid under another configuration).  A configuration change can make it larger:
    it is asked again then."""
    config = jp.config
    active = config.active_slots()
    n = len(MAGIC) + _width(VERSION) + _widths(config.ints()) + _width(m.LAST_HITS)
    rate = _width(cfg.RATE_UNIT)
    for slot in range(cfg.POOL_SLOTS):
        if slot in active:
            n += 1 + 4 * rate + 2 * _width(cfg.MAX_AMOUNT) + 2 * rate
            n += _wide(jp.value[slot]) + 2 * _wide(jp.reserve[slot])    # and its open overflow
            for v in jp.meters[slot]:
                n += _wide(v)
        else:
            pending = jp.pending[slot]
            n += 1 + (_widths(pending.ints()) if pending is not None else 0) + _widths(
                (jp.value[slot], jp.reserve[slot], jp.carry[slot], jp.reserve_carry[slot],
                 jp.open_overflow[slot])) + _widths(jp.meters[slot])
    for v in jp.table:
        n += _wide(v)
    n += 2 * _WIDE + _width(config.wager) + _width((1 << 7) - 1)    # the open round's
    # a hit: time, round, seat, hand, pool, five cards (up to 51), amount, shortfall, pool
    # before and after (at most the larger of a pool and the top award, MAX_AMOUNT), envy
    # seats (7 bits), bonus, envy shortfall (at most six bonuses), cut, envy cut
    money = _wide(max(jp.value))
    envy = max(config.envy)
    bonuses = _width(6 * envy)
    cut = config.shortfall
    hit = (2 * _WIDE + 3 + 5 * _width(51) + 3 * money + (1 if cut else money)
           + (_width((1 << 7) - 1) if envy else 1) + _width(envy) + bonuses
           + (money + bonuses if cut else 2))
    for h in jp.hits:
        width = _widths(h)
        if width > hit:
            hit = width
    return n + m.LAST_HITS * hit
