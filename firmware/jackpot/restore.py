"""Rebuilding a Jackpot from the bytes of firmware.jackpot.record.encode, checked: what
record.decode does, loaded for each call and let go after, as the table decodes its state
only at boot and after a failed commit.  See record.py for the format; this module also
reads versions 1 and 2, written before the envy bonus and the shortfall option.  The
configuration checks it needs (firmware.jackpot.configcheck) load with it and are let go
with it."""

from firmware.compat import const
from firmware.jackpot import config as cfg
from firmware.jackpot import configcheck, paytable  # configcheck: once for a whole decode
from firmware.jackpot import meters as m
from firmware.jackpot.codec import Reader
from firmware.jackpot.pools import MAX_SEATS, MAX_TIME, Jackpot, mask_seats
from firmware.jackpot.record import MAGIC, VERSION
from firmware.poker import cards as cardlib

_VERSION_1 = const(1)
# Lengths of versions 1 (before the envy bonus: meters.ENVY_*, T_ENVY_*, H_ENVY_*) and 2
# (before the shortfall option: meters.CUT, T_CUT, H_CUT, H_ENVY_CUT), and of this one
_CONFIG_INTS = (cfg.CONFIG_INTS_V1, cfg.CONFIG_INTS_V2, cfg.CONFIG_INTS)
_POOL_METERS = (30, 32, m.POOL_METERS)
_TABLE_METERS = (24, 26, m.TABLE_METERS)
_HIT_FIELDS = (14, 17, m.HIT_FIELDS)
_PREFIX = "jackpot state: "
# the pool meters that count at least what the recorded hits of the pool hold, in the order
# _check_hits_on_meters sums them
_HIT_METERS = (tuple(m.HIT_COUNT + h for h in range(paytable.HAND_TYPES))
               + tuple(m.HIT_AMOUNT + h for h in range(paytable.HAND_TYPES))
               + (m.ENVY_COUNT, m.ENVY_AMOUNT, m.SHORTFALL, m.CUT))


def _range(what, value, low, high=None):
    if value < low or (high is not None and value > high):
        raise ValueError("jackpot state: %s %d out of range %d..%s"
                         % (what, value, low, "" if high is None else high))
    return value


def _padded(reader, count, size, what):
    """count ints read, then zeros up to size (an older version's list, which had fewer)."""
    values = reader.ints(count, what)
    while len(values) < size:
        values.append(0)
    return values


def _check_meters(values, what):
    """ValueError naming the first negative meter of a pool's meters or the table's (what:
    "<pool> meter" or "table meter"); the names are loaded only to say what is wrong."""
    for i in range(len(values)):
        if values[i] < 0:
            from firmware.jackpot import meternames as mn

            names = mn.TABLE_METER_NAMES if what == "table meter" else mn.POOL_METER_NAMES
            _range(what + " " + names[i], values[i], 0)


def _check_hit(h, previous, last_round):
    """ValueError naming what is wrong with one recorded hit (previous: the round of the hit
    before it)."""
    _range("hit time", h[m.H_TIME], 0, MAX_TIME)
    _range("hit round", h[m.H_ROUND], 1, last_round)
    _range("hit seat", h[m.H_SEAT], 1, MAX_SEATS)
    _range("hit hand", h[m.H_HAND], 0, paytable.HAND_TYPES - 1)
    _range("hit pool", h[m.H_POOL], 0, cfg.POOL_SLOTS - 1)
    if h[m.H_POOL] != cfg.MAIN and (h[m.H_HAND] >= paytable.STRAIGHT_FLUSH) != (h[m.H_POOL] == cfg.MAJOR):
        # sub-pools [11.6A-B]: Minor pays flush, full house and quads, Major the rest
        raise ValueError("jackpot state: a %s paid by the %s pool" % (
            paytable.NAMES[h[m.H_HAND]], cfg.POOL_KEYS[h[m.H_POOL]]))
    cardlib.check(h[m.H_CARDS:m.H_CARDS + 5], 5, "jackpot state hit cards")
    _range("hit amount", h[m.H_AMOUNT], 0)
    _range("hit shortfall", h[m.H_SHORTFALL], 0, h[m.H_AMOUNT])
    _range("hit pool before", h[m.H_BEFORE], 0)
    if h[m.H_SHORTFALL] != max(0, h[m.H_AMOUNT] - h[m.H_BEFORE]):
        # the pool pays what it holds; only the rest is operator-funded
        raise ValueError("jackpot state: hit shortfall %d for %d paid from a pool of %d"
                         % (h[m.H_SHORTFALL], h[m.H_AMOUNT], h[m.H_BEFORE]))
    if h[m.H_ROUND] < previous:
        raise ValueError("jackpot state: hit of round %d recorded after one of round %d"
                         % (h[m.H_ROUND], previous))
    envied = _range("hit envy seats", h[m.H_ENVY_SEATS], 0, (1 << MAX_SEATS) - 1)
    if envied & (1 << (h[m.H_SEAT] - 1)):
        raise ValueError("jackpot state: seat %d paid an envy bonus for its own hand"
                         % h[m.H_SEAT])
    each = _range("hit envy bonus", h[m.H_ENVY_EACH], 0, cfg.MAX_ENVY)
    if (envied == 0) != (each == 0):
        raise ValueError("jackpot state: hit envy bonus %d for seats mask %d"
                         % (each, envied))
    paid = each * len(mask_seats(envied))
    _range("hit envy shortfall", h[m.H_ENVY_SHORTFALL], 0, paid)
    if h[m.H_AFTER] == 0 and h[m.H_ENVY_SHORTFALL] != paid:
        # the hand emptied its pool: every bonus after it was operator-funded
        raise ValueError("jackpot state: hit envy shortfall %d of %d paid after the pool "
                         "was emptied" % (h[m.H_ENVY_SHORTFALL], paid))
    if h[m.H_AFTER] != h[m.H_BEFORE] - (h[m.H_AMOUNT] - h[m.H_SHORTFALL]):
        raise ValueError("jackpot state: hit record pool after %d does not follow from "
                         "before %d" % (h[m.H_AFTER], h[m.H_BEFORE]))
    _range("hit cut", h[m.H_CUT], 0)
    _range("hit envy cut", h[m.H_ENVY_CUT], 0)
    if h[m.H_CUT] and (h[m.H_SHORTFALL] or h[m.H_AFTER]):
        # cut to what the pool held: it emptied the pool, and the operator funded nothing
        raise ValueError("jackpot state: hit cut %d with shortfall %d, pool after %d"
                         % (h[m.H_CUT], h[m.H_SHORTFALL], h[m.H_AFTER]))
    if h[m.H_ENVY_CUT] and h[m.H_ENVY_SHORTFALL]:
        raise ValueError("jackpot state: hit envy cut %d with envy shortfall %d"
                         % (h[m.H_ENVY_CUT], h[m.H_ENVY_SHORTFALL]))


def _check_hits_on_meters(jp):
    """ValueError if the recorded hits hold more than their pools' meters counted (the
    record keeps the last 25: each pool's meters count at least those)."""
    for slot in range(cfg.POOL_SLOTS):
        pm = jp.meters[slot]
        found = [0] * (2 * paytable.HAND_TYPES + 4)  # counts, amounts, envy seats, envy, short, cut
        for h in jp.hits:
            if h[m.H_POOL] != slot:
                continue
            found[h[m.H_HAND]] += 1
            found[paytable.HAND_TYPES + h[m.H_HAND]] += h[m.H_AMOUNT]
            seats = len(mask_seats(h[m.H_ENVY_SEATS]))
            found[-4] += seats
            found[-3] += seats * h[m.H_ENVY_EACH]
            found[-2] += h[m.H_SHORTFALL] + h[m.H_ENVY_SHORTFALL]
            found[-1] += h[m.H_CUT] + h[m.H_ENVY_CUT]
        for i, meter in enumerate(_HIT_METERS):
            if found[i] > pm[meter]:
                from firmware.jackpot import meternames as mn

                raise ValueError("jackpot state: the hits on record hold %s %d, pool %s meter "
                                 "%d" % (mn.POOL_METER_NAMES[meter], found[i],
                                         cfg.POOL_KEYS[slot], pm[meter]))


def decode(data):
    """Rebuild the Jackpot from encode()'s bytes; ValueError names what is wrong."""
    r = Reader(data)
    if len(data) < 3 or bytes(data[:2]) != MAGIC:
        raise ValueError("jackpot state: bad magic %r (expected %r)" % (bytes(data[:2]), MAGIC))
    r.pos = 2
    version = r.int("version")
    if version < _VERSION_1 or version > VERSION:
        raise ValueError("jackpot state: unknown version %d (this firmware reads %d to %d)"
                         % (version, _VERSION_1, VERSION))
    old = version - _VERSION_1          # index in the lengths of each version
    config = configcheck.from_ints(r.ints(_CONFIG_INTS[old], "config"))
    jp = Jackpot(config, fresh=False)
    for slot in range(cfg.POOL_SLOTS):
        flag = r.int("pending flag")
        if flag == 1:
            v = r.ints(cfg.POOL_INTS, "pending config")
            key = cfg.POOL_KEYS[slot]
            pending = configcheck.build({key: {"rate": (v[0], v[1]), "reserve_rate": (v[2], v[3]),
                                       "reset": v[4], "ceiling": v[5]}}, config)
            jp.pending[slot] = pending.pools[slot]
            if slot not in config.active_slots():
                raise ValueError("jackpot state: pending change for unused pool %s" % key)
        elif flag != 0:
            raise ValueError("jackpot state: pending flag %d is not 0 or 1" % flag)
    for slot in range(cfg.POOL_SLOTS):
        key = cfg.POOL_KEYS[slot]
        jp.value[slot] = _range(key + " value", r.int("pool value"), 0)
        jp.reserve[slot] = _range(key + " reserve", r.int("reserve"), 0)
        jp.carry[slot] = _range(key + " carry", r.int("carry"), 0, cfg.RATE_UNIT - 1)
        jp.reserve_carry[slot] = _range(key + " reserve carry", r.int("carry"), 0,
                                        cfg.RATE_UNIT - 1)
        meters = _padded(r, _POOL_METERS[old], m.POOL_METERS,
                         "pool meters")
        _check_meters(meters, key + " meter")
        jp.meters[slot] = meters
        if slot not in config.active_slots() and (jp.value[slot] or jp.reserve[slot]
                                                  or jp.carry[slot] or jp.reserve_carry[slot]):
            raise ValueError("jackpot state: unused pool %s holds money" % key)
    table = _padded(r, _TABLE_METERS[old], m.TABLE_METERS,
                    "table meters")
    _check_meters(table, "table meter")
    jp.table = table
    jp.last_round = _range("last round", r.int("last round"), 0)
    jp.open_round = r.int("open round")
    if jp.open_round not in (0, jp.last_round):
        raise ValueError("jackpot state: open round %d is not the last round %d"
                         % (jp.open_round, jp.last_round))
    jp.open_wager = r.int("open wager")
    jp.open_seats = r.int("open seats")
    jp.open_overflow = r.ints(cfg.POOL_SLOTS, "open overflow")
    if jp.open_round:
        if jp.open_wager != config.wager:
            # the configuration cannot change while a round is open: a void would reverse
            # another amount than the one contributed
            raise ValueError("jackpot state: open wager %d is not the configured wager %d"
                             % (jp.open_wager, config.wager))
        _range("open seats", jp.open_seats, 0, (1 << MAX_SEATS) - 1)
        for slot in range(cfg.POOL_SLOTS):
            _range("open overflow", jp.open_overflow[slot], 0, jp.reserve[slot])
    elif jp.open_wager or jp.open_seats or jp.open_overflow != [0, 0, 0]:
        raise ValueError("jackpot state: round details present with no open round")
    count = _range("hit count", r.int("hit count"), 0, m.LAST_HITS)
    previous = 0
    for i in range(count):
        h = _padded(r, _HIT_FIELDS[old], m.HIT_FIELDS, "hit record")
        try:
            _check_hit(h, previous, jp.last_round)
        except ValueError as error:
            # which of the hits on record, as the supervisor's list numbers them
            text = str(error)
            if text.startswith(_PREFIX):
                text = text[len(_PREFIX):]
            raise ValueError("%shit %d of %d on record (round %d): %s"
                             % (_PREFIX, i + 1, count, h[m.H_ROUND], text)) from None
        previous = h[m.H_ROUND]
        jp.hits.append(h)
    r.end()
    _check_hits_on_meters(jp)
    problems = jp.audit()
    if problems:
        raise ValueError("jackpot state: books do not balance: " + "; ".join(problems))
    return jp
