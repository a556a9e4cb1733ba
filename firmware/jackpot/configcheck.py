"""Validating a jackpot configuration: what firmware.jackpot.config.build and from_ints do
(see that module for the keys), and the operator's changes to a table's jackpot between
rounds (Jackpot.set_config: a pool's change pending, pools merged or split; Jackpot.add).
Loaded for each call and let go after (config._checked): the table builds a configuration
only at boot, at a RAM clear and for a supervisor's change, so its checks and their messages
take no heap while the table plays."""

from firmware.compat import const
from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot import paytable
from firmware.jackpot.config import (
    CONFIG_INTS,
    CONFIG_INTS_V1,
    CONFIG_INTS_V2,
    MAX_AMOUNT,
    MAX_ENVY,
    MAX_WAGER,
    POOL_FIELDS,
    POOL_INTS,
    POOL_KEYS,
    POOL_SLOTS,
    RATE_UNIT,
    SHORTFALLS,
    Config,
    PoolConfig,
    default,
)

_MAX_ODDS = const(1000000)
_TOP_KEYS = ("wager", "split", "pay", "main", "minor", "major", "envy", "shortfall")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _int(key, value, low, high):
    if not _is_int(value) or value < low or value > high:
        raise ValueError("config %s: %r is not an integer in %d..%d" % (key, value, low, high))
    return value


def _fraction(key, value):
    if (not isinstance(value, (tuple, list)) or len(value) != 2 or not _is_int(value[0])
            or not _is_int(value[1])):
        raise ValueError("config %s: %r is not a (numerator, denominator) pair of integers"
                         % (key, value))
    num, den = value[0], value[1]
    if den <= 0 or RATE_UNIT % den != 0:
        raise ValueError("config %s: denominator %r must be a positive divisor of %d"
                         % (key, den, RATE_UNIT))
    if num < 0 or num > den:
        raise ValueError("config %s: %r is not a fraction between 0 and 1" % (key, value))
    return (num, den)


def _pool(key, changes, base):
    if not isinstance(changes, dict):
        raise ValueError("config %s: %r is not a dict of pool parameters" % (key, changes))
    rate, reserve_rate, reset, ceiling = base.rate, base.reserve_rate, base.reset, base.ceiling
    for name in changes:
        if name not in POOL_FIELDS:
            raise ValueError("config %s.%s: unknown pool parameter (value %r)"
                             % (key, name, changes[name]))
    if "rate" in changes:
        rate = _fraction(key + ".rate", changes["rate"])
    if "reserve_rate" in changes:
        reserve_rate = _fraction(key + ".reserve_rate", changes["reserve_rate"])
    if "reset" in changes:
        reset = _int(key + ".reset", changes["reset"], 0, MAX_AMOUNT)
    if "ceiling" in changes:
        ceiling = _int(key + ".ceiling", changes["ceiling"], 0, MAX_AMOUNT)
    pool = PoolConfig(rate, reserve_rate, reset, ceiling)
    if pool.rate_ppm() + pool.reserve_ppm() > RATE_UNIT:
        raise ValueError("config %s: rate %r plus reserve_rate %r exceed the whole wager"
                         % (key, rate, reserve_rate))
    if ceiling and ceiling < reset:
        raise ValueError("config %s.ceiling: %r is below the reset amount %r" % (key, ceiling, reset))
    return pool


def _by_hand(changes, section, what):
    """[(hand type, key, value)] of changes[section], a dict of jackpot hand: `what`."""
    values = changes[section]
    if not isinstance(values, dict):
        raise ValueError("config %s: %r is not a dict of hand: %s" % (section, values, what))
    out = []
    for name in values:
        if name not in paytable.KEYS:
            raise ValueError("config %s.%s: unknown hand (value %r)" % (section, name, values[name]))
        out.append((paytable.KEYS.index(name), section + "." + name, values[name]))
    return out


def build(changes, base=None):
    """Validate changes (a dict of the module's keys) applied on base (default config).

    Returns a new Config; raises ValueError naming the key and value at the first error.
    """
    if base is None:
        base = default()
    if not isinstance(changes, dict):
        raise ValueError("config: %r is not a dict" % (changes,))
    for key in changes:
        if key not in _TOP_KEYS:
            raise ValueError("config %s: unknown key (value %r)" % (key, changes[key]))
    wager = base.wager
    if "wager" in changes:
        wager = _int("wager", changes["wager"], 1, MAX_WAGER)
    split = base.split
    if "split" in changes:
        split = changes["split"]
        if split not in (True, False, 0, 1) or not isinstance(split, (bool, int)):
            raise ValueError("config split: %r is not True or False" % (split,))
        split = bool(split)
    odds = list(base.odds)
    percent = list(base.percent)
    if "pay" in changes:
        for hand, key, line in _by_hand(changes, "pay", "(odds, percent)"):
            if not isinstance(line, (tuple, list)) or len(line) != 2:
                raise ValueError("config %s: %r is not an (odds, percent) pair" % (key, line))
            odds[hand] = _int(key + " odds", line[0], 0, _MAX_ODDS)
            top = 100 if hand >= paytable.STRAIGHT_FLUSH else 0
            percent[hand] = _int(key + " percent", line[1], 0, top)
    envy = list(base.envy)
    if "envy" in changes:
        for hand, key, cents in _by_hand(changes, "envy", "cents"):
            envy[hand] = _int(key, cents, 0, MAX_ENVY)
    for hand in range(paytable.HAND_TYPES):
        if odds[hand] * wager > MAX_AMOUNT:
            # the table logs each award as a 32-bit number: a larger one could never be paid
            raise ValueError("config pay.%s: %d to 1 on a %d-cent wager is %d cents, above %d"
                             % (paytable.KEYS[hand], odds[hand], wager, odds[hand] * wager,
                                MAX_AMOUNT))
        if envy[hand] and not (odds[hand] or percent[hand]):
            raise ValueError("config envy.%s: %d cents for a hand the pay table does not pay "
                             "(pay.%s is 0 to 1 and 0%%)" % (paytable.KEYS[hand], envy[hand],
                                                             paytable.KEYS[hand]))
    shortfall = base.shortfall
    if "shortfall" in changes:
        name = changes["shortfall"]
        if not isinstance(name, str) or name not in SHORTFALLS:
            raise ValueError("config shortfall: %r is not one of %s" % (name, ", ".join(SHORTFALLS)))
        shortfall = SHORTFALLS.index(name)
    pools = []
    for slot in range(POOL_SLOTS):
        key = POOL_KEYS[slot]
        if key in changes:
            pools.append(_pool(key, changes[key], base.pools[slot]))
        else:
            pools.append(base.pools[slot])
    config = Config(wager, split, odds, percent, pools, envy, shortfall)
    check_shares(config)
    return config


def check_shares(config):
    """Raise ValueError unless the active pools' shares of a wager add up to at most all of it."""
    total = 0
    for slot in config.active_slots():
        total += config.pools[slot].rate_ppm() + config.pools[slot].reserve_ppm()
    if total > RATE_UNIT:
        raise ValueError("config minor+major: rates and reserve rates add up to %d ppm, over the "
                         "whole wager (%d)" % (total, RATE_UNIT))


def from_ints(values):
    """Rebuild a Config from CONFIG_INTS integers (or CONFIG_INTS_V1, written before the envy
    bonus: none, or CONFIG_INTS_V2, before the shortfall option: "operator"); ValueError
    names what is wrong."""
    if len(values) not in (CONFIG_INTS, CONFIG_INTS_V2, CONFIG_INTS_V1):
        raise ValueError("config: expected %d integers, got %d" % (CONFIG_INTS, len(values)))
    if values[1] not in (0, 1):
        raise ValueError("config split: %r is not 0 or 1" % (values[1],))
    pay = {}
    for hand in range(paytable.HAND_TYPES):
        pay[paytable.KEYS[hand]] = (values[2 + hand], values[7 + hand])
    changes = {"wager": values[0], "split": values[1] == 1, "pay": pay}
    at = 12
    for slot in range(POOL_SLOTS):
        v = values[at:at + POOL_INTS]
        changes[POOL_KEYS[slot]] = {"rate": (v[0], v[1]), "reserve_rate": (v[2], v[3]),
                                    "reset": v[4], "ceiling": v[5]}
        at += POOL_INTS
    if len(values) > CONFIG_INTS_V1:
        changes["envy"] = dict(zip(paytable.KEYS, values[at:at + paytable.HAND_TYPES]))
    if len(values) == CONFIG_INTS:
        if values[-1] not in (0, 1):
            raise ValueError("config shortfall: %r is not 0 or 1" % (values[-1],))
        changes["shortfall"] = SHORTFALLS[values[-1]]
    return build(changes)


def add(jp, slot, amount):
    """Operator addition of amount cents to an active pool (not above its ceiling)."""
    jp._check_slot(slot)
    if slot not in jp.active_slots():
        raise ValueError("pool %s is not in use" % POOL_KEYS[slot])
    if not _is_int(amount) or amount < 1 or amount > MAX_AMOUNT:
        raise ValueError("bad addition %r: expected cents 1..%d" % (amount, MAX_AMOUNT))
    ceiling = jp.config.pools[slot].ceiling
    if ceiling and jp.value[slot] + amount > ceiling:
        raise ValueError("addition %d would take pool %s to %d, above its ceiling %d"
                         % (amount, POOL_KEYS[slot], jp.value[slot] + amount, ceiling))
    if jp.value[slot] + amount > MAX_AMOUNT:
        # the most a pool parameter may be; the table logs the pools as 32-bit numbers
        raise ValueError("addition %d would take pool %s to %d, above %d, the most a pool "
                         "may hold" % (amount, POOL_KEYS[slot], jp.value[slot] + amount,
                                       MAX_AMOUNT))
    jp._addition(slot, amount)
    return jp.value[slot]


def set_config(jp, changes):
    """Change the configuration between rounds.  Returns a ConfigChange.

    Wager and pay table change at once.  A pool's parameters change at once while the
    pool is not in use, else after that pool's next hit (pending).  Merging or splitting
    the pools changes every parameter at once and moves the money: on a split the pool
    becomes the Major pool and the Minor pool starts at its reset amount; on a merge both
    sub-pools (values, reserves and carried fractions) go into the one pool.
    """
    from firmware.jackpot.pools import ConfigChange

    if jp.open_round:
        raise ValueError("config: cannot change while round %d is open" % jp.open_round)
    requested = jp.requested_config()
    new = cfg.build(changes, requested)
    result = ConfigChange()
    if new.split == jp.config.split:
        _check_mixed_shares(jp, new)
    result_changes = cfg.diff(requested, new)
    if not result_changes:
        return result
    if new.split != jp.config.split:
        result.changes = cfg.diff(jp.config, new)
        _change_layout(jp, new, result)
        jp.pending = [None, None, None]
    else:
        pools = list(jp.config.pools)
        for slot in range(cfg.POOL_SLOTS):
            if new.pools[slot].same(jp.config.pools[slot]):
                jp.pending[slot] = None
            elif slot in jp.active_slots():
                jp.pending[slot] = new.pools[slot]
            else:
                pools[slot] = new.pools[slot]
        old = jp.config
        jp.config = cfg.Config(new.wager, new.split, new.odds, new.percent, pools, new.envy,
                               new.shortfall)
        result.changes = cfg.diff(old, jp.config)
        result.pending = cfg.diff(jp.config, jp.requested_config())
    jp.table[m.T_CONFIG_CHANGES] += 1
    return result


def _check_mixed_shares(jp, new):
    """While a change waits for a hit, old and new rates may be in force together."""
    total = 0
    for slot in new.active_slots():
        a = jp.config.pools[slot].rate_ppm() + jp.config.pools[slot].reserve_ppm()
        b = new.pools[slot].rate_ppm() + new.pools[slot].reserve_ppm()
        total += a if a > b else b
    if total > cfg.RATE_UNIT:
        raise ValueError("config minor/major: the rates now in force and the new ones, which "
                         "take effect at each pool's next hit, could add up to %d ppm of a wager "
                         "(over %d)" % (total, cfg.RATE_UNIT))


def _move(jp, src, dst, result):
    """Move a pool's value, reserve and carried fractions into another slot."""
    value = jp.value[src]
    reserve = jp.reserve[src]
    jp.meters[src][m.MOVED_OUT] += value
    jp.meters[dst][m.MOVED_IN] += value
    jp.meters[src][m.RESERVE_MOVED_OUT] += reserve
    jp.meters[dst][m.RESERVE_MOVED_IN] += reserve
    jp.value[dst] += value
    jp.reserve[dst] += reserve
    jp.value[src] = 0
    jp.reserve[src] = 0
    carry = jp.carry[dst] + jp.carry[src]
    reserve_carry = jp.reserve_carry[dst] + jp.reserve_carry[src]
    jp.carry[src] = 0
    jp.reserve_carry[src] = 0
    # Two carried fractions can add up to a whole cent: it is owed to the pool now.
    if carry >= cfg.RATE_UNIT:
        carry -= cfg.RATE_UNIT
        jp.value[dst] += 1
        jp.meters[dst][m.CONTRIB] += 1
    if reserve_carry >= cfg.RATE_UNIT:
        reserve_carry -= cfg.RATE_UNIT
        jp.reserve[dst] += 1
        jp.meters[dst][m.RESERVE_CONTRIB] += 1
    jp.carry[dst] = carry
    jp.reserve_carry[dst] = reserve_carry
    result.moves.append([src, dst, value, reserve])


def _change_layout(jp, new, result):
    jp.config = new
    if new.split:
        _move(jp, cfg.MAIN, cfg.MAJOR, result)
        minor = new.pools[cfg.MINOR]
        if jp.value[cfg.MINOR] < minor.reset:
            need = minor.reset - jp.value[cfg.MINOR]
            from_reserve = need if need <= jp.reserve[cfg.MINOR] else jp.reserve[cfg.MINOR]
            jp.value[cfg.MINOR] += from_reserve
            jp.reserve[cfg.MINOR] -= from_reserve
            jp.meters[cfg.MINOR][m.RESERVE_FUNDED] += from_reserve
            jp._addition(cfg.MINOR, need - from_reserve)
            result.starts.append([cfg.MINOR, from_reserve, need - from_reserve])
    else:
        _move(jp, cfg.MINOR, cfg.MAIN, result)
        _move(jp, cfg.MAJOR, cfg.MAIN, result)
    for slot in new.active_slots():
        ceiling = new.pools[slot].ceiling
        if ceiling and jp.value[slot] > ceiling:
            over = jp.value[slot] - ceiling
            jp.value[slot] -= over
            jp.reserve[slot] += over
            jp.meters[slot][m.OVERFLOW] += over
