"""Jackpot configuration: the table's wager, pay table, pool layout and pool parameters.

A configuration is given as a dict (only the keys that change) and validated into a
``Config``; every error is a ValueError naming the key and the bad value, and builds nothing.

Keys::

    wager          jackpot wager in cents, fixed by the table sign [UTH 11.2] (default 100)
    split          False: one pool "main"; True: "minor" and "major" sub-pools [11.6A-D]
    pay            {hand key: (odds, percent)}: "N to 1", or percent of the pool when that is
                   greater; only straight_flush and royal_flush may have a percent [11.9]
    envy           {hand key: cents}: the envy bonus (operator option, default 0: off), paid
                   for a seat's jackpot hand of that type to every other seat of the table
                   that made its Play wager with an accepted jackpot wager (docs/jackpot.md)
    main / minor / major   pool parameters, a dict of:
        rate          (numerator, denominator): share of each wager added to the pool
        reserve_rate  (numerator, denominator): hidden share that funds the next reset (off)
        reset         reset (seed) amount in cents
        ceiling       cents; above it contributions overflow to the reserve (0: off)

Rates are exact fractions whose denominator divides RATE_UNIT (1,000,000), so every rate is
a whole number of parts per million; what a wager leaves after the pool and reserve rates
is the operator's retention.  The default rates and reset amounts are examples for tests
and the simulator, not approved values: an operator sets them.
"""

from firmware.compat import const
from firmware.jackpot import paytable

RATE_UNIT = const(1000000)
MAX_WAGER = const(100000)
_MAX_ODDS = const(1000000)
MAX_AMOUNT = const(0x3FFFFFFF)  # pool parameters stay small ints on 32-bit ports
MAX_ENVY = const(9999999)       # an envy bonus up to $99,999.99 (fits an audit-menu line)

MAIN = const(0)
MINOR = const(1)
MAJOR = const(2)
POOL_SLOTS = const(3)
POOL_KEYS = ("main", "minor", "major")
POOL_NAMES = ("Jackpot", "Minor", "Major")

POOL_FIELDS = ("rate", "reserve_rate", "reset", "ceiling")
_TOP_KEYS = ("wager", "split", "pay", "main", "minor", "major", "envy")

_DEFAULT_POOLS = (
    # rate, reserve_rate, reset, ceiling
    ((70, 100), (0, 1), 1000000, 0),
    ((20, 100), (0, 1), 100000, 0),
    ((50, 100), (0, 1), 1000000, 0),
)
DEFAULT_WAGER = const(100)

# Number of ints in Config.ints(): wager, split, odds and percent per hand type, six per pool,
# and the envy bonus per hand type (appended in the jackpot state's version 2).
POOL_INTS = const(6)
CONFIG_INTS_V1 = const(2 + 2 * 5 + 3 * 6)
CONFIG_INTS = const(CONFIG_INTS_V1 + 5)


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


class PoolConfig:
    """Parameters of one pool; rates are (numerator, denominator) pairs."""

    def __init__(self, rate, reserve_rate, reset, ceiling):
        self.rate = rate
        self.reserve_rate = reserve_rate
        self.reset = reset
        self.ceiling = ceiling

    def rate_ppm(self):
        """Pool share of a wager in parts per million."""
        return self.rate[0] * (RATE_UNIT // self.rate[1])

    def reserve_ppm(self):
        """Reserve share of a wager in parts per million."""
        return self.reserve_rate[0] * (RATE_UNIT // self.reserve_rate[1])

    def ints(self):
        out = []
        self.each_int(out.append)
        return out

    def each_int(self, put):
        """put(v) for each of the POOL_INTS integers of ints(), in order, building no list."""
        put(self.rate[0])
        put(self.rate[1])
        put(self.reserve_rate[0])
        put(self.reserve_rate[1])
        put(self.reset)
        put(self.ceiling)

    def same(self, other):
        """True when both have equal parameters (rates compared as written)."""
        return self.ints() == other.ints()

    def items(self, prefix):
        """(key, value) pairs of the parameters with keys such as ``main.rate``."""
        return [(prefix + ".rate", self.rate), (prefix + ".reserve_rate", self.reserve_rate),
                (prefix + ".reset", self.reset), (prefix + ".ceiling", self.ceiling)]


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


class Config:
    """A validated jackpot configuration (see the module docstring for the keys)."""

    def __init__(self, wager, split, odds, percent, pools, envy=None):
        self.wager = wager
        self.split = split
        self.odds = odds
        self.percent = percent
        self.pools = pools
        self.envy = envy or [0] * paytable.HAND_TYPES     # cents per hand type (0: none)

    def active_slots(self):
        """Pool slots in use: (MAIN,) or (MINOR, MAJOR)."""
        return (MINOR, MAJOR) if self.split else (MAIN,)

    def pool_for(self, hand):
        """Pool slot that pays a jackpot hand type."""
        if not self.split:
            return MAIN
        return MAJOR if hand >= paytable.STRAIGHT_FLUSH else MINOR

    def ints(self):
        """The configuration as CONFIG_INTS integers (for encoding)."""
        out = []
        self.each_int(out.append)
        return out

    def each_int(self, put):
        """put(v) for each of the CONFIG_INTS integers of ints(), in order, building no list
        (the jackpot section is encoded at every commit, into a kept buffer)."""
        put(self.wager)
        put(1 if self.split else 0)
        for v in self.odds:
            put(v)
        for v in self.percent:
            put(v)
        for pool in self.pools:
            pool.each_int(put)
        for v in self.envy:
            put(v)

    def items(self):
        """Every parameter as (key, value) pairs, for display and change logs."""
        out = [("wager", self.wager), ("split", self.split)]
        for hand in range(paytable.HAND_TYPES):
            out.append(("pay." + paytable.KEYS[hand], (self.odds[hand], self.percent[hand])))
        for slot in range(POOL_SLOTS):
            out.extend(self.pools[slot].items(POOL_KEYS[slot]))
        for hand in range(paytable.HAND_TYPES):     # after the pools: older setting ids stay
            out.append(("envy." + paytable.KEYS[hand], self.envy[hand]))
        return out

    def as_dict(self):
        """The configuration in the dict form that build() accepts."""
        pay = {}
        for hand in range(paytable.HAND_TYPES):
            pay[paytable.KEYS[hand]] = (self.odds[hand], self.percent[hand])
        out = {"wager": self.wager, "split": self.split, "pay": pay}
        for slot in range(POOL_SLOTS):
            p = self.pools[slot]
            out[POOL_KEYS[slot]] = {"rate": p.rate, "reserve_rate": p.reserve_rate,
                                    "reset": p.reset, "ceiling": p.ceiling}
        out["envy"] = dict(zip(paytable.KEYS, self.envy))
        return out

    def with_pool(self, slot, pool):
        """A copy with one pool's parameters replaced."""
        pools = list(self.pools)
        pools[slot] = pool
        return Config(self.wager, self.split, self.odds, self.percent, pools, self.envy)

    def envy_paid(self):
        """True when the envy bonus is on for some hand type."""
        return max(self.envy) > 0


def default():
    """The default configuration: one pool, rules.md 11.9 pay table, options off."""
    pools = []
    for rate, reserve_rate, reset, ceiling in _DEFAULT_POOLS:
        pools.append(PoolConfig(rate, reserve_rate, reset, ceiling))
    return Config(DEFAULT_WAGER, False, list(paytable.DEFAULT_ODDS),
                  list(paytable.DEFAULT_PERCENT), pools)


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
        pay = changes["pay"]
        if not isinstance(pay, dict):
            raise ValueError("config pay: %r is not a dict of hand: (odds, percent)" % (pay,))
        for name in pay:
            if name not in paytable.KEYS:
                raise ValueError("config pay.%s: unknown hand (value %r)" % (name, pay[name]))
            hand = paytable.KEYS.index(name)
            key = "pay." + name
            line = pay[name]
            if not isinstance(line, (tuple, list)) or len(line) != 2:
                raise ValueError("config %s: %r is not an (odds, percent) pair" % (key, line))
            odds[hand] = _int(key + " odds", line[0], 0, _MAX_ODDS)
            top = 100 if hand >= paytable.STRAIGHT_FLUSH else 0
            percent[hand] = _int(key + " percent", line[1], 0, top)
    envy = list(base.envy)
    if "envy" in changes:
        bonus = changes["envy"]
        if not isinstance(bonus, dict):
            raise ValueError("config envy: %r is not a dict of hand: cents" % (bonus,))
        for name in bonus:
            if name not in paytable.KEYS:
                raise ValueError("config envy.%s: unknown hand (value %r)" % (name, bonus[name]))
            envy[paytable.KEYS.index(name)] = _int("envy." + name, bonus[name], 0, MAX_ENVY)
    pools = []
    for slot in range(POOL_SLOTS):
        key = POOL_KEYS[slot]
        if key in changes:
            pools.append(_pool(key, changes[key], base.pools[slot]))
        else:
            pools.append(base.pools[slot])
    config = Config(wager, split, odds, percent, pools, envy)
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
    bonus: none); ValueError names what is wrong."""
    if len(values) not in (CONFIG_INTS, CONFIG_INTS_V1):
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
    if len(values) == CONFIG_INTS:
        changes["envy"] = dict(zip(paytable.KEYS, values[at:at + paytable.HAND_TYPES]))
    return build(changes)


def diff(old, new):
    """List of (key, old value, new value) for every parameter that differs."""
    out = []
    a = old.items()
    b = new.items()
    for i in range(len(a)):
        if a[i][1] != b[i][1]:
            out.append((a[i][0], a[i][1], b[i][1]))
    return out


SETTING_BASE = const(100)       # CONFIG_CHANGE setting id of a key: 100 + its index in items()
_PAY_SCALE = const(1000)        # a pay line (odds, percent) is logged as odds * 1000 + percent


def logged_value(value):
    """A configuration value as the one integer a CONFIG_CHANGE event carries."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return value
    a, b = value[0], value[1]
    if isinstance(a, int) and isinstance(b, int) and b > 0 and RATE_UNIT % b == 0 and a <= b:
        return a * (RATE_UNIT // b)             # a rate: parts per million
    return a * _PAY_SCALE + b                   # a pay line: odds, percent


def logged_change(config, key, old, new):
    """(setting id, old, new) of a change of `key` (a key of config.items()) as CONFIG_CHANGE
    carries it: the service's changes and those a hit puts in place are logged alike."""
    keys = [item[0] for item in config.items()]
    return SETTING_BASE + keys.index(key), logged_value(old), logged_value(new)
