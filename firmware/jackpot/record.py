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
from firmware.jackpot.codec import Writer

MAGIC = b"JP"
VERSION = const(3)


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
