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
    shortfall      who pays the part of a payout above what the pool holds (rules.md,
                   Decision (shortfall)): "operator" (default): the payout is paid in full,
                   the difference operator-funded; "cut": the payout, an envy bonus too, is
                   cut to what the pool (or its sub-pool) holds, and the cut is recorded
    main / minor / major   pool parameters, a dict of:
        rate          (numerator, denominator): share of each wager added to the pool
        reserve_rate  (numerator, denominator): hidden share that funds the next reset (off)
        reset         reset (seed) amount in cents (off: 0)
        ceiling       cents; above it contributions overflow to the reserve (0: off)

Rates are exact fractions whose denominator divides RATE_UNIT (1,000,000), so every rate is
a whole number of parts per million; what a wager leaves after the pool and reserve rates
is the operator's retention.  The default rates are examples, not approved values, and the
reset (seed) amounts are off, as rules.md asks of the operator options: an operator sets them.
"""

from firmware.compat import const
from firmware.jackpot import paytable

RATE_UNIT = const(1000000)
MAX_WAGER = const(100000)
MAX_AMOUNT = const(0x3FFFFFFF)  # pool parameters stay small ints on 32-bit ports
MAX_ENVY = const(9999999)       # an envy bonus up to $99,999.99 (fits an audit-menu line)

MAIN = const(0)
MINOR = const(1)
MAJOR = const(2)
POOL_SLOTS = const(3)
POOL_KEYS = ("main", "minor", "major")
POOL_NAMES = ("Jackpot", "Minor", "Major")

POOL_FIELDS = ("rate", "reserve_rate", "reset", "ceiling")
SHORTFALLS = ("operator", "cut")    # the shortfall option's values, as Config.shortfall 0, 1

_DEFAULT_POOLS = (
    # rate, reserve_rate, reset, ceiling
    ((70, 100), (0, 1), 0, 0),
    ((20, 100), (0, 1), 0, 0),
    ((50, 100), (0, 1), 0, 0),
)
DEFAULT_WAGER = const(100)

# Number of ints in Config.ints(): wager, split, odds and percent per hand type, six per pool,
# the envy bonus per hand type (appended in the jackpot state's version 2) and the shortfall
# option (version 3).
POOL_INTS = const(6)
CONFIG_INTS_V1 = const(2 + 2 * 5 + 3 * 6)
CONFIG_INTS_V2 = const(CONFIG_INTS_V1 + 5)
CONFIG_INTS = const(CONFIG_INTS_V2 + 1)


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


class Config:
    """A validated jackpot configuration (see the module docstring for the keys)."""

    def __init__(self, wager, split, odds, percent, pools, envy=None, shortfall=0):
        self.wager = wager
        self.split = split
        self.odds = odds
        self.percent = percent
        self.pools = pools
        self.envy = envy or [0] * paytable.HAND_TYPES     # cents per hand type (0: none)
        self.shortfall = shortfall      # index in SHORTFALLS: 1 ("cut") pays what the pool holds

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
        put(self.shortfall)

    def items(self):
        """Every parameter as (key, value) pairs, for display and change logs."""
        out = [("wager", self.wager), ("split", self.split)]
        for hand in range(paytable.HAND_TYPES):
            out.append(("pay." + paytable.KEYS[hand], (self.odds[hand], self.percent[hand])))
        for slot in range(POOL_SLOTS):
            out.extend(self.pools[slot].items(POOL_KEYS[slot]))
        for hand in range(paytable.HAND_TYPES):     # after the pools: older setting ids stay
            out.append(("envy." + paytable.KEYS[hand], self.envy[hand]))
        out.append(("shortfall", SHORTFALLS[self.shortfall]))
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
        out["shortfall"] = SHORTFALLS[self.shortfall]
        return out

    def with_pool(self, slot, pool):
        """A copy with one pool's parameters replaced."""
        pools = list(self.pools)
        pools[slot] = pool
        return Config(self.wager, self.split, self.odds, self.percent, pools, self.envy,
                      self.shortfall)

    def pays(self, hand):
        """True when the pay table pays jackpot hand type `hand` (a pay line of 0 to 1 and
        0% of the pool takes that hand out of the jackpot: it is no hit)."""
        return self.odds[hand] > 0 or self.percent[hand] > 0

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
    (firmware.jackpot.configcheck does it, loaded for the call: the table builds a
    configuration only at boot, at a RAM clear and for a supervisor's change.)"""
    return _checked("build", changes, base)


def from_ints(values):
    """Rebuild a Config from CONFIG_INTS integers (or CONFIG_INTS_V1, written before the envy
    bonus: none, or CONFIG_INTS_V2, before the shortfall option: "operator"); ValueError names
    what is wrong (configcheck, as build)."""
    return _checked("from_ints", values)


def _checked(name, *args):
    """configcheck's `name`(*args), the module loaded for the call; heap.NotLoaded when it
    cannot be loaded (a ValueError then would pass for a bad setting)."""
    from firmware.heap import let_go, not_loaded

    try:
        from firmware.jackpot import configcheck
    except Exception as error:  # noqa: BLE001 - a full heap, a damaged .mpy
        raise not_loaded("firmware.jackpot.configcheck", error) from None
    try:
        return getattr(configcheck, name)(*args)
    finally:
        let_go("firmware.jackpot.configcheck")


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


def logged_value(key, value):
    """The value of configuration key `key` as the one integer a CONFIG_CHANGE event carries.
    The key says what a pair is: a pay line ("pay.flush": odds, percent), whose numbers may
    look like a fraction too ((0, 100): 100% of the pool only), or a rate (parts per million).
    The shortfall option is its index in SHORTFALLS."""
    if isinstance(value, str):
        return SHORTFALLS.index(value)
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return value
    a, b = value[0], value[1]
    if key.startswith("pay."):
        return a * _PAY_SCALE + b               # a pay line: odds, percent
    return a * (RATE_UNIT // b)                 # a rate: parts per million


def logged_change(config, key, old, new):
    """(setting id, old, new) of a change of `key` (a key of config.items()) as CONFIG_CHANGE
    carries it: the service's changes and those a hit puts in place are logged alike."""
    keys = [item[0] for item in config.items()]
    return SETTING_BASE + keys.index(key), logged_value(key, old), logged_value(key, new)
