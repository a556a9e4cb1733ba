"""A supervisor's and a test lab's check of the accounting, at the wire: the firmware's App
on the simulated board (tools.sim.Simulation: meter sign decoded from the MAX7219 writes,
dealer display from the SSD1306 pixels, chips on the MCP23017 spots, cards down the shoe's
UART, the service protocol on a port of its own) plays many rounds, and the test keeps its
OWN tally of what every jackpot meter, the pool, the last hits and the event log must show.

The tally is worked out here from the wagers placed, the cards dealt and rules.md (section
2: 11.6 contributions with no fraction of a cent lost, 11.7-11.10 pays and the order of
several winners, Decision (shortfall), the reset, the envy bonus of docs/jackpot.md; section
5: voids), never from the firmware's functions: its own 5-card classifier, its own carry.
It is compared with what the service's `meters`, `hits` and `log` answer, what the audit
menu lists, what the dealer display shows at CONFIRM and on the results, and what the meter
sign shows, after rounds with mixed wagers, folds, voided seats, voided rounds, late bets,
hands sent back, configuration changes (split pools, a reserve and a ceiling, the shortfall
option "cut"), clock changes, a RAM clear and power cuts in every phase of a round.

Each session draws its deals from one seeded random stream and the supervisor's choices at
CONFIRM from another; its seed is one with which it goes through what it is about (its last
assertion lists what), so a change to the play that draws differently may need another seed:
the books must hold whatever the seed, only that list depends on it."""

import itertools
import json
import random

import pytest

from firmware.poker import cards as cardlib  # (only to find the cards a cut lost)
from firmware.service import Service
from firmware.table import controller as tc
from host_tests.test_table_payout import BoardRig
from tools.sim import _ServicePort

WALL = 1796083200            # 2026-12-01T00:00:00Z: the board's clock at the first power-up
PICO_EPOCH = 1609459200      # 2021-01-01: where a Pico W's clock starts after a power cut
U = 1000000                  # a rate's parts per million (docs/jackpot.md, RATE_UNIT)
RESET = 1000000              # the simulator's table seeds its pool with $10,000.00
RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]

# rules.md 11.9 (the hand names of docs/critical-memory.md's jackpot hit: 0 Flush .. 4 Royal)
FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL = range(5)
HAND_KEYS = ("flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush")
HAND_NAMES = ("Flush", "Full House", "Four of a Kind", "Straight Flush", "Royal Flush")

# event kinds (docs/critical-memory.md's table of event kinds)
RAM_CLEAR, LOCK, VOID, HIT, CONFIRM = 5, 6, 7, 8, 9
CONFIG_CHANGE, SETTLE, ADDITION, ENVY, SENT_BACK = 10, 16, 18, 27, 28
POWER_UP = 1
BOOKS = (RAM_CLEAR, LOCK, VOID, HIT, CONFIRM, CONFIG_CHANGE, SETTLE, ADDITION, ENVY, SENT_BACK)


def jackpot_hand(five):
    """The jackpot category of five cards ('Ah' ...), or None: the hand pays nothing."""
    ranks = sorted(RANKS.index(c[0]) for c in five)
    flush = len({c[1] for c in five}) == 1
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    straight = len(set(ranks)) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
    if flush and straight:
        return ROYAL if ranks[0] == 8 else STRAIGHT_FLUSH
    if counts[0] == 4:
        return QUADS
    if counts[:2] == [3, 2]:
        return FULL_HOUSE
    return FLUSH if flush else None


def dollars(cents):
    return "%d.%02d" % (cents // 100, cents % 100)


POOL_METERS = ("wagers", "wagered", "voids", "voided", "contributions", "contributions_reversed",
               "reserve_contributions", "reserve_reversed", "overflow", "overflow_reversed",
               "operator_additions", "reserve_funded", "paid", "shortfall", "moved_in",
               "moved_out", "reserve_moved_in", "reserve_moved_out", "resets", "cut",
               "hits", "envy_bonuses", "envy_paid") + tuple(
    what + key for what in ("hits_", "paid_") for key in HAND_KEYS)
SLOTS = ("main", "minor", "major")          # the pools' numbers in the log (a of an addition)
PARAM_KEYS = {"main": 107, "minor": 111, "major": 115}   # CONFIG_CHANGE's a of <pool>.rate


PARAMS = ("rate", "reserve_rate", "reset", "ceiling")   # a pool's, in the log's order


class Pool:
    """One pool's books: its value and reserve, the fractions of a cent owed to them, its
    parameters (and those waiting for its next hit), its meters."""

    def __init__(self, rate, reset=0):
        self.rate = rate               # parts per million of each wager
        self.reserve_rate = 0          # the hidden share that funds the next reset
        self.reset = reset
        self.ceiling = 0               # 0: none; above it contributions overflow to the reserve
        self.pending = {}              # parameter -> value waiting for the pool's next hit
        self.value = self.reserve = 0
        self.carry = self.reserve_carry = 0     # millionths of a cent owed to each
        self.overflow = 0              # what overflowed to the reserve in the open round
        self.meters = dict.fromkeys(POOL_METERS, 0)

    def take(self, amount, rate, reserve_rate):
        """amount (negative: returned) times the rates into the pool and its reserve, the
        fractions carried; above the ceiling the pool's share overflows to the reserve, and
        a share returned takes back first what overflowed in the round."""
        whole, self.carry = divmod(self.carry + amount * rate, U)
        kept, self.reserve_carry = divmod(self.reserve_carry + amount * reserve_rate, U)
        self.reserve += kept
        if amount > 0:
            self.meters["contributions"] += whole
            self.meters["reserve_contributions"] += kept
            over = max(self.value + whole - self.ceiling, 0) if self.ceiling else 0
            self.value += whole - over
            self.reserve += over
            self.overflow += over
            self.meters["overflow"] += over
        else:
            self.meters["contributions_reversed"] -= whole
            self.meters["reserve_reversed"] -= kept
            back = min(-whole, self.overflow)
            self.overflow -= back
            self.reserve -= back
            self.value += whole + back
            self.meters["overflow_reversed"] += back

    def pay_out(self, award, cut=False):
        """award paid from the pool; what it does not hold is operator-funded, or with the
        shortfall option "cut" not paid.  Returns (paid, operator-funded or cut)."""
        from_pool = min(award, self.value)
        self.value -= from_pool
        if cut:
            self.meters["paid"] += from_pool
            self.meters["cut"] += award - from_pool
            return from_pool, award - from_pool
        self.meters["paid"] += award
        self.meters["shortfall"] += award - from_pool
        return award, award - from_pool

    def add(self, amount):
        self.value += amount
        self.meters["operator_additions"] += amount

    def top_up(self):
        """Back to the reset amount: from the reserve first, the rest an operator addition
        (returned)."""
        need = max(self.reset - self.value, 0)
        funded = min(need, self.reserve)
        self.reserve -= funded
        self.value += funded
        self.meters["reserve_funded"] += funded
        self.add(need - funded)
        self.meters["resets"] += 1
        return need - funded


class Books:
    """The tally: what the jackpot's meters, pools, last hits and log must show."""

    def __init__(self):
        self.log = {}                  # round -> list of (kind, a, b, c), kept by a RAM clear
        self.seen = set()              # what the session went through (its coverage)
        self.ram_clear()

    def ram_clear(self):
        """Critical memory's reset values: the configuration file's (the simulator's: the
        defaults with a $10,000.00 seed), the meters and the last hits from nothing."""
        self.wager = 100
        self.pay = {FLUSH: (100, 0), FULL_HOUSE: (150, 0), QUADS: (500, 0),
                    STRAIGHT_FLUSH: (1000, 10), ROYAL: (10000, 100)}
        self.envy = {}
        self.cut = False               # the shortfall option: "operator" (False) or "cut"
        self.pools = {"main": Pool(700000, RESET), "minor": Pool(200000), "major": Pool(500000)}
        self.active = ["main"]
        self.pools["main"].add(RESET)
        self.exact = 0                 # every wager not voided times its rates (ppm-cents)
        self.table = dict.fromkeys(("rounds", "wagers", "wagered", "voids", "voided",
                                    "collected", "config_changes"), 0)
        self.hits = []                 # (round, seat, hand, amount, cards, pool before, after)
        self.times = []                # each hit's time (seconds since 1970), about
        self.hit_cuts = []             # each hit's cut (the shortfall option "cut")
        self.round_wagers = {}         # seat -> {pool: rate} of the open round
        self.payouts = []              # the last round's payout lines

    # the one pool of a table without the split (the tests of one pool read it)
    @property
    def main(self):
        return self.pools["main"]

    def event(self, round_no, kind, a, b, c):
        self.log.setdefault(round_no, []).append((kind, a, b, c))

    def pool_of(self, hand):
        """The pool that pays a hand [11.6A-D]: Minor flush to quads, Major the rest."""
        if self.active == ["main"]:
            return "main"
        return "minor" if hand in (FLUSH, FULL_HOUSE, QUADS) else "major"

    def table_meters(self):
        """The table's meters: its own, and the sums of every pool's (one out of use too)."""
        t = dict(self.table)
        for name in ("operator_additions", "paid", "shortfall", "hits", "resets",
                     "envy_bonuses", "envy_paid", "cut") + POOL_METERS[-10:]:
            t[name] = sum(pool.meters[name] for pool in self.pools.values())
        # rules.md 11.6: the retention is what the pools' exact shares leave, in whole cents
        t["retention"] = t["wagered"] - t["voided"] - -(-self.exact // U)
        t["carried"] = -(-sum(p.carry + p.reserve_carry for p in self.pools.values()) // U)
        return t

    # ---------------------------------------------------------------- a round's money

    def lock(self, round_no, seats):
        self.round_wagers = {}
        for s in seats:
            self.round_wagers[s] = {name: (self.pools[name].rate, self.pools[name].reserve_rate)
                                    for name in self.active}
            for name, rates in self.round_wagers[s].items():
                self.take(name, self.wager, rates)
        if seats:
            for meters in [self.table] + [self.pools[name].meters for name in self.active]:
                meters["wagers"] += len(seats)
                meters["wagered"] += self.wager * len(seats)
            self.table["rounds"] += 1
        self.event(round_no, LOCK, 0, mask(seats), self.wager * len(seats))

    def take(self, name, amount, rates):
        pool = self.pools[name]
        self.exact += amount * (rates[0] + rates[1])
        pool.take(amount, rates[0], rates[1])
        if pool.carry:
            self.seen.add("carry " + name)
        if pool.reserve_carry:
            self.seen.add("reserve carry " + name)
        if pool.meters["overflow_reversed"]:
            self.seen.add("overflow reversed " + name)

    def void(self, seats):
        for s in seats:
            for name, rates in self.round_wagers.pop(s).items():
                self.take(name, -self.wager, rates)
                self.pools[name].meters["voids"] += 1
                self.pools[name].meters["voided"] += self.wager
        self.table["voids"] += len(seats)
        self.table["voided"] += self.wager * len(seats)
        return self.wager * len(seats)

    def void_seat(self, round_no, seat):
        amount = self.void([seat] if seat in self.round_wagers else [])
        if amount:
            self.seen.add("seat void")
        self.event(round_no, VOID, seat, mask([seat]), amount)

    def void_round(self, round_no):
        seats = sorted(self.round_wagers)
        self.event(round_no, VOID, 0, mask(seats), self.void(seats))
        self.payouts = []
        self.seen.add("round void")

    def settle(self, round_no, when, hands, cards, folds=()):
        """hands: seat -> jackpot category (or None) of every seat that played (not folded,
        not void) with a jackpot wager; cards: seat -> its five cards; folds: the seats the
        dealer folded (the settle entry's a, for a dispute over a folded hand)."""
        players = sorted(s for s in hands)
        winners = [(s, hands[s]) for s in players
                   if hands[s] is not None and self.pay[hands[s]] != (0, 0)]
        total = 0
        start = len(self.hits)
        envied = {}                               # seat -> its hand's envy lines
        for name in self.active:                  # [11.10] inside each pool
            pool = self.pools[name]
            mine = [(s, h) for s, h in winners if self.pool_of(h) == name]
            fixed = [(s, h) for s, h in mine if not self.pay[h][1]]
            straights = [(s, h) for s, h in mine if h == STRAIGHT_FLUSH and self.pay[h][1]]
            royals = [(s, h) for s, h in mine if h == ROYAL and self.pay[h][1]]
            paid = [(s, h, self.pay[h][0] * self.wager) for s, h in fixed]   # fixed odds first
            base = max(pool.value - sum(a for _, _, a in paid), 0)
            for s, h in straights:                # each on the pool the fixed odds left
                paid.append((s, h, max(self.pay[h][0] * self.wager, base * self.pay[h][1] // 100)))
            for s, h, award in paid:
                total += self.record_hit(round_no, when, name, s, h, award, cards)
            left = pool.value
            for s, h in royals:                   # an equal share of what is left
                award = max(self.pay[h][0] * self.wager, left * self.pay[h][1] // 100 // len(royals))
                total += self.record_hit(round_no, when, name, s, h, award, cards)
            for s, h in mine:                     # the envy bonus: after the pool's winners
                each = self.envy.get(h, 0)
                others = [o for o in players if o != s]
                if not (each and others):
                    continue
                if self.cut and pool.value < each * len(others):
                    # "cut": the bonuses share what the pool holds, the odd cents left in it
                    share = pool.value // len(others)
                    pool.meters["cut"] += (each - share) * len(others)
                    each = share
                    self.seen.add("envy cut")
                if not each:
                    self.seen.add("envy none paid")
                    continue                      # none paid: no seat among those paid
                for _ in others:
                    if pool.pay_out(each)[1]:
                        self.seen.add("envy shortfall")
                pool.meters["envy_bonuses"] += len(others)
                pool.meters["envy_paid"] += each * len(others)
                total += each * len(others)
                self.event(round_no, ENVY, s, mask(others), each)
                self.seen.add("envy " + name)
                envied[s] = ["envy S%d $%s" % (o, dollars(each)) for o in others]
            if mine:                              # the changes that waited for a hit
                for key in PARAMS:
                    if key in pool.pending:
                        self.event(round_no, CONFIG_CHANGE, PARAM_KEYS[name] + PARAMS.index(key),
                                   getattr(pool, key), pool.pending[key])
                        setattr(pool, key, pool.pending.pop(key))
                        self.seen.add("%s applied %s" % (key, name))
            if royals or (mine and pool.value == 0):    # the reset: the reserve, then the operator
                added = pool.top_up()
                if added:
                    self.event(round_no, ADDITION, SLOTS.index(name), 0, added)
                self.seen.add("reset " + name)
                if pool.meters["reserve_funded"]:
                    self.seen.add("reset from the reserve " + name)
            if pool.ceiling and pool.value > pool.ceiling:   # a new ceiling below the pool
                over = pool.value - pool.ceiling
                pool.value -= over
                pool.reserve += over
                pool.meters["overflow"] += over
                self.seen.add("over a new ceiling " + name)
            pool.overflow = 0
        if winners:
            self.event(round_no, CONFIRM, 1, len(winners), 0)   # supervisor 1: the hands
            self.seen.update(HAND_KEYS[h] for _, h in winners)
            if len(winners) > 1:
                self.seen.add("winners %d" % len(winners))
        # the results' payout lines, what the dealer pays: each hand's, its envy bonuses below
        self.payouts = []
        for _, seat, _, amount, _, _, _ in self.hits[start:]:
            self.payouts += ["JP S%d $%s" % (seat, dollars(amount))] + envied.get(seat, [])
        self.table["collected"] += self.wager * len(self.round_wagers)
        self.round_wagers = {}
        self.event(round_no, SETTLE, mask(folds), total,
                   sum(self.pools[name].value for name in self.active))

    def record_hit(self, round_no, when, name, seat, hand, award, cards):
        pool = self.pools[name]
        before = pool.value
        award, short = pool.pay_out(award, self.cut)
        self.hit_cuts.append(short if self.cut else 0)
        if short:
            self.seen.add(("cut " if self.cut else "shortfall ") + name)
        pool.meters["hits"] += 1
        pool.meters["hits_" + HAND_KEYS[hand]] += 1
        pool.meters["paid_" + HAND_KEYS[hand]] += award
        self.hits.append((round_no, seat, HAND_NAMES[hand], award, cards[seat], before, pool.value))
        self.times.append(when)
        if when is None:
            self.seen.add("hit at a time not known")
        self.event(round_no, HIT, seat, hand, award)
        return award

    # ---------------------------------------------------------------- between rounds

    def apply_waiting(self, round_no):
        """A change of layout puts every parameter in place at once: what waited for a hit
        too (logged again as it takes effect, as at a hit)."""
        for name, pool in self.pools.items():
            for key in PARAMS:
                if key in pool.pending:
                    self.event(round_no, CONFIG_CHANGE, PARAM_KEYS[name] + PARAMS.index(key),
                               getattr(pool, key), pool.pending[key])
                    setattr(pool, key, pool.pending.pop(key))
                    self.seen.add("%s in place at a layout change" % key)

    def split(self, minor_rate, minor_reset, major_rate, major_reset):
        """The pools split [11.6A-D]: the pool with its carried fraction becomes the Major
        pool, the Minor pool starts at its reset (an operator addition: the log's)."""
        main, minor, major = self.pools["main"], self.pools["minor"], self.pools["major"]
        major.meters["moved_in"] += main.value
        main.meters["moved_out"] += main.value
        major.value, major.carry, main.value, main.carry = main.value, main.carry, 0, 0
        minor.rate, minor.reset, major.rate, major.reset = minor_rate, minor_reset, major_rate, major_reset
        minor.add(minor_reset)
        self.active = ["minor", "major"]

    def merge(self):
        """Back to one pool: both sub-pools, their carried fractions too, into it; two
        fractions that make a whole cent are credited to it as a contribution."""
        main = self.pools["main"]
        for name in ("minor", "major"):
            pool = self.pools[name]
            main.meters["moved_in"] += pool.value
            pool.meters["moved_out"] += pool.value
            main.value += pool.value
            main.carry += pool.carry
            pool.value = pool.carry = 0
        if main.carry >= U:
            main.carry -= U
            main.value += 1
            main.meters["contributions"] += 1
            self.seen.add("carries merged into a cent")
        self.active = ["main"]


def mask(seats):
    out = 0
    for s in seats:
        out |= 1 << (s - 1)
    return out


class Rig(BoardRig):
    """The simulated table with the service protocol on a port of its own."""

    def __init__(self, directory, wall):
        super().__init__(directory, wall=wall)
        self.port = _ServicePort()
        self.app.service = Service(self.controller, self.port, shoe=self.app.shoe)

    def ask(self, line):
        self.port.tx[:] = b""
        self.port.rx.inject(line.encode() + b"\n")
        for _ in range(200):
            self.run(20)
            if b"\n" in self.port.tx:
                return json.loads(bytes(self.port.tx))
        raise AssertionError("no reply to %r" % line)

    def log(self):
        """Every entry the log holds, oldest first, page by page."""
        page = self.ask("log")
        entries = []
        while True:
            assert page["ok"] and page["missing"] == [], page
            entries += page["entries"]
            if page["next"] is None:
                return entries
            page = self.ask("log %d" % page["next"])

    def goto(self, seat):
        for _ in range(8):
            if self.controller.cursor == seat - 1:
                return
            self.press("UP")
        raise AssertionError("cursor never on seat %d" % seat)

    def audit_menu(self):
        """Every line of the audit menu (key + long OK in OPEN), then back to OPEN."""
        self.key(True)
        self.press("OK", long=True)
        assert self.controller.phase == tc.AUDIT
        lines = list(self.controller.menu)
        self.press("BACK")
        self.key(False)
        assert self.controller.phase == tc.OPEN
        return lines


def menu_meters(lines, start, end):
    """label -> value (cents or a count) of the audit menu's meter lines between the line
    `start` and the line `end`: ``wagers         5``, or a label with its value below."""
    out = {}
    i = lines.index(start) + 1
    stop = lines.index(end, i)
    while i < stop:
        line = lines[i]
        head, _, tail = line.rpartition(" ")
        if head.strip() and (tail.startswith("$") or tail.isdigit()):
            label, text = head.strip(), tail
            i += 1
        else:
            label, text = line.strip(), lines[i + 1].strip()
            i += 2
        out[label] = int(text[1:].replace(".", "")) if text.startswith("$") else int(text)
    return out


# the audit menu's labels of the meters compared (written out as the menu shows them)
HAND_LABELS = {
    "hits_flush": "hits flush", "hits_full_house": "hits full house",
    "hits_four_of_a_kind": "hits quads", "hits_straight_flush": "hits str flush",
    "hits_royal_flush": "hits royal", "paid_flush": "paid flush",
    "paid_full_house": "paid full house", "paid_four_of_a_kind": "paid quads",
    "paid_straight_flush": "paid str flush", "paid_royal_flush": "paid royal", "cut": "cut",
}
TABLE_LABELS = dict(
    HAND_LABELS, wagers="wagers", wagered="wagered", voids="voids", voided="voided",
    operator_additions="additions", paid="paid", shortfall="shortfall", resets="resets",
    hits="hits", envy_bonuses="envy bonuses", envy_paid="envy paid", rounds="rounds",
    collected="collected", retention="retention", carried="carried", config_changes="config chg")
POOL_LABELS = dict(
    HAND_LABELS, wagers="wagers", wagered="wagered", voids="voids", voided="voided",
    contributions="contrib", contributions_reversed="contrib rev",
    reserve_contributions="rsv contrib", reserve_reversed="rsv rev", overflow="overflow",
    overflow_reversed="overflow rev", operator_additions="additions",
    reserve_funded="rsv funded", paid="paid", shortfall="shortfall", moved_in="moved in",
    moved_out="moved out", reserve_moved_in="rsv moved in", reserve_moved_out="rsv moved out",
    resets="resets", hits="hits", envy_bonuses="envy bonuses", envy_paid="envy paid")


def check(rig, books):
    """The service, the audit menu and the sign against the tally (the table in OPEN)."""
    meters = rig.ask("meters")
    assert meters["ok"] and meters["audit"] == [], meters
    assert sorted(meters["pools"]) == sorted(books.active)
    for name, pool in books.pools.items():
        got = (meters["pools"] if name in books.active else meters["pools_not_in_use"]).get(name)
        if got is None:                   # a pool never used: not listed
            assert pool.meters == dict.fromkeys(POOL_METERS, 0) and not pool.value
            continue
        assert {k: got[k] for k in POOL_METERS} == pool.meters, name
        assert (got["value"], got["carry_ppm"], got["reserve"], got["reserve_carry_ppm"]) == \
            (pool.value, pool.carry, pool.reserve, pool.reserve_carry), name
    table = meters["table"]
    want = books.table_meters()
    got_table = {k: table[k] for k in want if k != "retention"}
    got_table["retention"] = table["retention"] - table["retention_reversed"]
    assert got_table == want
    # the last 25 hits, oldest first
    hits = rig.ask("hits")["hits"]
    assert [(h["round"], h["seat"], h["hand"], h["amount"], h["cards"],
             h["pool_before"], h["pool_after"]) for h in hits] == books.hits[-25:]
    entries = rig.log()
    # each hit as its jackpot hit entry has it: same time, round, seat, hand and amount; its
    # time the one the tally knows, else marked as a time the table did not know, never
    # before the hit before it
    logged = [e for e in entries if e[3] & 0x7FFF == HIT][-len(hits):] if hits else []
    assert [(h["time"], h["round"], h["seat"], HAND_NAMES.index(h["hand"]), h["amount"])
            for h in hits] == [(e[1], e[2], e[4], e[5], e[6]) for e in logged]
    assert [h["cut"] for h in hits] == books.hit_cuts[-25:]
    for h, e, when in zip(hits, logged, books.times[-25:]):
        assert e[8] == (when is None)
        assert when is None or when - 2 <= h["time"] <= when + 1
    assert [h["time"] for h in hits] == sorted(h["time"] for h in hits)
    # the event log's entries that move or account for money, round by round
    assert_log_is_the_books(entries, books)
    # the audit menu: each pool's meters (one out of use as "main off"), the table's, the
    # last hits
    lines = rig.audit_menu()
    heads = []
    for name, pool in books.pools.items():
        head = "%s%s $%s" % (name, "" if name in books.active else " off", dollars(pool.value))
        if name in books.active or head in lines:
            heads.append((lines.index(head), name))
    heads.sort()
    ends = [at for at, _ in heads[1:]] + [lines.index("table meters")]
    for (at, name), end in zip(heads, ends):
        shown = menu_meters(lines, lines[at], lines[end])
        assert {k: shown[POOL_LABELS[k]] for k in POOL_LABELS} == \
            {k: books.pools[name].meters[k] for k in POOL_LABELS}, name
    last = [line for line in lines if line.startswith("last hits")][0]
    shown = menu_meters(lines, "table meters", last)
    assert shown[TABLE_LABELS["retention"]] - shown["retention rev"] == want["retention"]
    assert {k: shown[TABLE_LABELS[k]] for k in TABLE_LABELS if k != "retention"} == \
        {k: want[k] for k in TABLE_LABELS if k != "retention"}
    assert last == "last hits %d" % min(len(books.hits), 25)
    text = " ".join(line.strip() for line in lines[lines.index(last) + 1:])
    at = 0
    for (round_no, seat, _, amount, _, _, _), cut in reversed(list(zip(books.hits[-25:],
                                                                       books.hit_cuts[-25:]))):
        at = text.index("S%d $%s" % (seat, dollars(amount)), at)      # newest first
        at = text.index("r%d" % round_no, at)
        if cut:
            at = text.index("cut $%s of $%s" % (dollars(cut), dollars(amount + cut)), at)
    # every entry that moves money, as the menu lists it, shows the amount the log holds:
    # the wagers locked or returned, a hit, a bonus, an addition, what a settle paid (its
    # pool when it paid nothing), a sent-back hand's amounts, a RAM clear's seed
    assert "events %d" % len(entries) in lines and "held from #0" in lines
    shown = {}
    for i, line in enumerate(lines):
        if line.startswith("#"):
            shown[int(line[1:].split()[0])] = " ".join(x.strip() for x in lines[i + 1:i + 3])
    money_of = {LOCK: 6, VOID: 6, HIT: 6, ENVY: 6, ADDITION: 6, SENT_BACK: 6, RAM_CLEAR: 6,
                SETTLE: 5}
    for e in entries:
        kind = e[3] & 0x7FFF
        if kind in money_of:
            cents = e[money_of[kind]] if kind != SETTLE or e[5] else e[6]
            assert "$" + dollars(cents) in shown[e[0]], (e, shown[e[0]])
    # the meter sign, once the wins it shows are over: a line per pool in use (Minor above
    # Major), the second module dark with one pool
    want = [dollars(books.pools[name].value) for name in books.active] + [""]
    assert rig.run_until(lambda: [rig.meter_text(0), rig.meter_text(1)] == want[:2], 40000), \
        [rig.meter_text(0), rig.meter_text(1)]


def confirm_screen(rig):
    """At CONFIRM: the hands waiting for the supervisor as the dealer display lists them
    (scrolled down to the last), [(seat, amount)], and what each line of the meter sign
    showed for 15 s after; None in any other phase."""
    if rig.controller.phase != tc.CONFIRM:
        return None
    signs = [set(), set()]
    for _ in range(15000 // 20):
        rig.run(20)
        for line in (0, 1):
            signs[line].add(rig.meter_text(line))
    hands = []
    while True:
        shown = rig.display()
        for row in (1, 3, 5):
            if shown[row].startswith("S") and shown[row + 1].startswith(" $"):
                hand = (int(shown[row].split()[0][1:]),
                        int(shown[row + 1].strip()[1:].replace(".", "")))
                if hand not in hands:
                    hands.append(hand)
        if not shown[7].endswith("v"):
            return hands, signs
        rig.press("DOWN")


def payouts(rig):
    """The jackpot lines of the results on the dealer display: ``JP S1 $100.00``, each hand's
    envy bonuses under it (``envy S2 $3.00``)."""
    return [line for line in rig.controller.results if line.startswith(("JP ", "envy "))]


class Session:
    """Rounds of UTH played on a Rig in `directory`, with power cuts, the tally kept."""

    def __init__(self, directory, seed):
        self.directory = directory
        self.rng = random.Random(seed)
        self.supervisor = random.Random(-seed)    # the supervisor's choices at CONFIRM
        self.books = Books()
        self.wall = WALL
        self.rig = self.make(self.wall)
        self.rig.ram_clear()
        self.books.event(0, RAM_CLEAR, 1, 0, RESET)     # supervisor 1, after commit 0
        self.rig.run(4000)
        self.cuts = []
        self.pico = False         # power cuts lose the board's clock
        self.round_no = 0         # the last round played (blocks)
        self.unsure = False       # the table does not know the time

    def make(self, wall):
        return Rig(self.directory, wall)

    def blocks(self, count):
        """Play `count` blocks of ten rounds, the books checked after each; yields each
        block's index, its last round in self.round_no (which the caller may move on)."""
        for block in range(count):
            for _ in range(10):
                self.round_no += 1
                self.play(self.round_no)
            check(self.rig, self.books)
            yield block

    def lose_memory_and_clear(self):
        """Both copies of critical memory lost in a power cut (the FRAM blank, the flash copy
        garbage): RAM ERROR, and the supervisor's RAM clear at the panel.  The log keeps its
        complete pages; the entries of the unfinished one, kept in the record, are lost with
        it, and the rounds logged only there are numbered again (docs/critical-memory.md).
        The tally was just checked against the log: it loses the same entries.  Returns the
        next round's number."""
        entries = self.rig.log()
        assert entries[0][0] == 0                 # (the ring has not wrapped)
        kept = len(entries) // 32 * 32
        for e in entries[kept:]:
            if e[3] & 0x7FFF in BOOKS:
                self.books.log[e[2]].remove((e[3] & 0x7FFF, e[4], e[5], e[6]))
        self.books.log = {r: v for r, v in self.books.log.items() if v}
        last = max(e[2] for e in entries[:kept])
        state = self.directory
        (state / "fram.bin").write_bytes(bytes(len((state / "fram.bin").read_bytes())))
        (state / "flash" / "cm_a.bin").write_bytes(b"CM")
        self.cut("memory lost")
        assert self.rig.controller.phase == tc.RAM_ERROR
        self.rig.ram_clear()
        self.books.ram_clear()
        # b: critical memory's commit number before the clear, none left on the lost copies
        self.books.event(last, RAM_CLEAR, 1, 0, RESET)
        self.rig.run(4000)
        return last + 1

    def cut(self, phase):
        """The power goes and comes back: a new App on the same memory and felt."""
        self.cuts.append(phase)
        elapsed = self.rig.now // 1000 + 5
        self.wall += elapsed
        if self.pico:             # no battery clock: it starts again at 2021-01-01
            self.unsure = True
            self.rig = self.make(PICO_EPOCH)
        else:
            self.rig = self.make(self.wall)

    def when(self):
        """The time the table logs now, as the tally knows it (None: the table did not know
        it, and neither does the tally)."""
        return None if self.unsure else self.now()

    def now(self):
        return self.wall + self.rig.now // 1000

    def maybe_cut(self, phase, chance):
        if self.rng.random() < chance:
            self.cut(phase)
            return True
        return False

    def deal(self, jackpot_seats):
        """Cards for a round: hole cards for the jackpot seats, the board, the dealer's; the
        flop often made to give jackpot hands (suited, paired, a royal's or a straight
        flush's three cards)."""
        rng = self.rng
        deck = DECK[:]
        rng.shuffle(deck)
        style = rng.choice(["random", "suited", "suited", "paired", "trips", "royal", "sf"])
        suit = rng.choice(SUITS)
        if style == "suited":
            flop = [c for c in deck if c[1] == suit][:3]
        elif style == "paired":
            r = rng.choice(RANKS)
            flop = [c for c in deck if c[0] == r][:2] + [c for c in deck if c[0] != r][:1]
        elif style == "trips":
            r = rng.choice(RANKS)
            flop = [c for c in deck if c[0] == r][:3]
        elif style == "royal":
            flop = ["Q" + suit, "J" + suit, "T" + suit]
        elif style == "sf":
            flop = ["9" + suit, "8" + suit, "7" + suit]
        else:
            flop = deck[:3]
        left = [c for c in deck if c not in flop]
        helpful = [c for c in left if c[1] in {f[1] for f in flop} or c[0] in {f[0] for f in flop}
                   or (style == "royal" and c in ("A" + suit, "K" + suit))]
        holes = {}
        if style in ("royal", "sf", "trips") and jackpot_seats and rng.random() < 0.5:
            top = {"royal": ["A" + suit, "K" + suit], "sf": ["T" + suit, "J" + suit],
                   "trips": [c for c in left if c[0] == flop[0][0]] +
                   [c for c in left if c[0] != flop[0][0]][-1:]}[style]
            holes[jackpot_seats[0]] = top          # the straight flush (royal) made
            left = [c for c in left if c not in top]
            helpful = [c for c in helpful if c in left]
        for s in [x for x in jackpot_seats if x not in holes]:
            pool = helpful if rng.random() < 0.6 and len(helpful) >= 2 else left
            hole = rng.sample(pool, 2)
            for c in hole:
                left.remove(c)
                if c in helpful:
                    helpful.remove(c)
            helpful = [c for c in helpful if c in left]
            holes[s] = hole
        rest = rng.sample(left, 4)
        return holes, flop, rest[:2], rest[2:]

    def send_cards(self, holes, flop, turn_river, dealer):
        """The shoe's lines for every card the table does not hold yet."""
        rec = self.rig.controller.rec
        held = set(rec.hole) | set(rec.board) | set(rec.dealer)
        lines = []
        for s, hole in sorted(holes.items()):
            lines += ["S%d %s" % (s, c) for c in hole]
        lines += ["B %s" % c for c in flop + turn_river] + ["D %s" % c for c in dealer]
        for line in lines:
            if cardlib.parse_card(line.split()[1]) not in held:
                self.rig.shoe(line)

    def redo_folds(self, folds):
        c = self.rig.controller
        for s in folds:
            if not c.rec.folded & (1 << (s - 1)):
                self.rig.goto(s)
                self.rig.press("OK")

    def play(self, round_no, cut_chance=0.1):
        rig, rng, books = self.rig, self.rng, self.books
        assert rig.controller.phase == tc.OPEN
        jp, ante = [], []
        for s in range(1, 8):
            kind = rng.choice(["jp+ante", "jp+ante", "jp+ante", "ante", "jp", "none", "none"])
            if "jp" in kind:
                jp.append(s)
                rig.chip(s)
            if "ante" in kind:
                ante.append(s)
                rig.chip(s, ante=True)
        accepted = [s for s in jp if s in ante]
        if self.maybe_cut("open", cut_chance):
            rig = self.rig
            if rig.controller.phase == tc.RESULTS:   # the last round's, "settled before power cut"
                rig.press("SETTLE")
        rig.press("LOCK")
        assert rig.controller.phase == tc.LOCKED, (self.cuts, rig.display())
        assert rig.controller.rec.round_no == round_no
        books.lock(round_no, accepted)
        late = [s for s in range(1, 8) if s not in jp and rng.random() < 0.1]
        for s in late:                                   # after "No more bets": not taken
            rig.chip(s)
        if self.maybe_cut("locked", cut_chance):
            rig = self.rig
        holes, flop, turn_river, dealer = self.deal(accepted)
        self.send_cards(holes, flop, turn_river, dealer)
        folds = [s for s in accepted if rng.random() < 0.15]
        voids = [s for s in accepted + [x for x in ante if x not in jp]
                 if s not in folds and rng.random() < 0.07]
        self.redo_folds(folds)
        for s in voids:
            rig.goto(s)
            rig.key(True)
            rig.press("BACK")
            rig.key(False)
            books.void_seat(round_no, s)
        if self.maybe_cut("decided", cut_chance):
            rig = self.rig
            self.send_cards(holes, flop, turn_river, dealer)
            self.redo_folds(folds)
        if rng.random() < 0.06:                          # a misdeal: the round void
            rig.key(True)
            rig.press("BACK", long=True)
            rig.key(False)
            books.void_round(round_no)
            assert rig.controller.phase == tc.RESULTS
            hands = None
        else:
            rig.press("SETTLE")
            playing = [s for s in accepted if s not in folds and s not in voids]
            hands = {s: jackpot_hand(holes[s] + flop) for s in playing}
            if rig.controller.phase == tc.CONFIRM and self.supervisor.random() < 0.1:
                # a misdeal found at the confirmation: the round void, nothing paid, the
                # waiting wins taken off the sign at once
                rig.run(1000)
                assert "5EAt" in rig.meter_text(0) + rig.meter_text(1) or \
                    rig.run_until(lambda: "5EAt" in rig.meter_text(0) + rig.meter_text(1), 3000)
                rig.key(True)
                rig.press("BACK", long=True)
                rig.key(False)
                books.void_round(round_no)
                assert payouts(rig) == [] and rig.controller.phase == tc.RESULTS
                assert [rig.meter_text(line) for line in (0, 1)] == \
                    ([dollars(books.pools[name].value) for name in books.active] + [""])[:2]
                books.seen.add("round void at CONFIRM")
                hands = None
            waiting = confirm_screen(rig)
            if waiting and self.maybe_cut("confirm", 3 * cut_chance):
                rig = self.rig
                assert rig.controller.phase == tc.LOCKED, rig.display()
                self.send_cards(holes, flop, turn_river, dealer)
                self.redo_folds(folds)
                rig.press("SETTLE")
                waiting = confirm_screen(rig)
            if waiting and self.supervisor.random() < 0.2:
                # the supervisor finds a hand wrong: sent back unpaid (logged with the seats
                # and their amounts), the dealer folds the first, and SETTLE again
                rig.key(True)
                rig.press("LOCK")
                rig.key(False)
                assert rig.controller.phase == tc.LOCKED, rig.display()
                books.event(round_no, SENT_BACK, 1, mask([seat for seat, _ in waiting[0]]),
                            sum(amount for _, amount in waiting[0]))
                books.seen.add("sent back")
                folds.append(waiting[0][0][0])
                self.redo_folds(folds)
                del hands[folds[-1]]
                rig.press("SETTLE")
                waiting = confirm_screen(rig)
            if waiting:
                rig.key(True)
                rig.press("OK")
                rig.key(False)
        if hands is not None:
            assert rig.controller.phase == tc.RESULTS, rig.display()
            cards = {s: " ".join(holes[s] + flop) for s in holes}
            start = len(books.hits)
            books.settle(round_no, self.when(), hands, cards, folds)
            # what the supervisor confirmed is what was paid; the sign showed each win on
            # its pool's line while it waited
            paid = books.hits[start:]
            hands_waiting, signs = waiting or ([], None)
            assert hands_waiting == [(seat, amount) for _, seat, _, amount, _, _, _ in paid]
            for _, seat, hand, amount, _, _, _ in paid:
                line = books.active.index(books.pool_of(HAND_NAMES.index(hand)))
                assert {dollars(amount), "5EAt %d" % seat} <= signs[line], (waiting, paid)
            assert payouts(rig) == books.payouts
        if self.maybe_cut("results", cut_chance):
            rig = self.rig
            assert payouts(rig) == books.payouts           # "settled before power cut"
        for s in range(1, 8):                            # the dealer takes every chip
            if rig.covered(s):
                rig.chip(s, on=False)
            if rig.covered(s, ante=True):
                rig.chip(s, ante=True, on=False)
        rig.press("SETTLE")
        assert rig.controller.phase == tc.OPEN, rig.display()

    def config(self, round_no, payload, changes, pending=None):
        """config_set with the key on, between rounds; changes: (a, b, c) logged at once."""
        self.rig.key(True)
        reply = self.rig.ask("config_set " + json.dumps(payload))
        self.rig.key(False)
        assert reply["ok"], reply
        for a, b, c in changes:
            self.books.event(round_no, CONFIG_CHANGE, a, b, c)
        self.books.table["config_changes"] += 1

    def panel_wager(self, round_no, old, new):
        """The supervisor steps the JP wager on the panel's configuration menu (key + long
        SETTLE, OK: its next value, BACK)."""
        rig = self.rig
        rig.key(True)
        rig.press("SETTLE", long=True)
        assert rig.controller.phase == tc.CONFIG
        rig.press("OK")
        rig.press("BACK")
        rig.key(False)
        assert rig.controller.phase == tc.OPEN
        # setting 100, the wager, as the service logs it (docs/critical-memory.md)
        self.books.event(round_no, CONFIG_CHANGE, 100, old, new)
        self.books.table["config_changes"] += 1
        self.books.wager = new

    def set_clock(self, round_no, text, when):
        """clock_set from the service, key on: the table's time moves to `when`."""
        self.rig.key(True)
        was = self.when()
        reply = self.rig.ask("clock_set " + text)
        self.rig.key(False)
        assert reply["ok"] and reply["time"] == when and reply["was_unsure"] == self.unsure
        if was is not None:
            assert abs(reply["moved"] - (when - was)) <= 1
        self.books.event(round_no, CONFIG_CHANGE, 99, reply["moved"], int(self.unsure))
        self.wall = when - self.rig.now // 1000
        self.unsure = False


def test_many_rounds_with_cuts_voids_and_changes_keep_every_number_to_the_cent(tmp_path):
    s = Session(tmp_path, seed=18)
    books = s.books
    for block in s.blocks(9):
        round_no = s.round_no
        if block == 0:                       # an envy bonus for every flush at the table
            s.config(round_no, {"envy": {"flush": 250}}, [(119, 0, 250)])
            books.envy[FLUSH] = 250
        elif block == 1:                     # the wager and the flush's odds at once
            s.config(round_no, {"wager": 200, "pay": {"flush": [50, 0]}},
                     [(100, 100, 200), (102, 100000, 50000)])
            books.wager = 200
            books.pay[FLUSH] = (50, 0)
        elif block == 2:                     # the pool's rate: at its next hit
            s.config(round_no, {"main": {"rate": [7, 16]}}, [(107, 700000, 437500)])
            books.main.pending["rate"] = 437500
        elif block == 3:
            s.panel_wager(round_no, 200, 500)
            s.pico = True                    # from now on a cut loses the board's clock
        elif block == 4:                     # the supervisor sets the clock 5 hours on
            s.set_clock(round_no, "2026-12-01T05:00:00", WALL + 5 * 3600)
            s.pico = False
        elif block == 5:
            s.round_no = s.lose_memory_and_clear() - 1
        elif block == 6:                     # after the clear: the defaults of the file again
            s.config(round_no, {"envy": {"full_house": 400}, "main": {"rate": [7, 16]}},
                     [(120, 0, 400), (107, 700000, 437500)])
            books.envy[FULL_HOUSE] = 400
            books.main.pending["rate"] = 437500
    assert books.seen >= {"flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
                          "winners 2", "shortfall main", "reset main", "envy main", "carry main",
                          "seat void", "round void", "hit at a time not known",
                          "rate applied main", "sent back", "round void at CONFIRM"}, books.seen
    assert set(s.cuts) == {"open", "locked", "decided", "confirm", "results", "memory lost"}



def test_split_pools_and_the_merge_back_keep_each_pools_books_and_the_signs_two_lines(tmp_path):
    """The pool split into Minor and Major [11.6A-D] between rounds, rates whose shares of a
    wager leave fractions of a cent in both, an envy bonus paid from each, a Minor rate
    waiting for its hit, and the merge back: each pool's meters (the Jackpot pool out of use
    as 'main off'), the table's sums, the hits and the log, and the sign's line per pool."""
    s = Session(tmp_path, seed=27)
    books = s.books
    for block in s.blocks(7):
        round_no = s.round_no
        if block == 0:                       # 3/16 and 5/16 of a wager: 18.75 and 31.25 cents
            s.config(round_no, {"split": True, "minor": {"rate": [3, 16], "reset": 100000},
                                "major": {"rate": [5, 16], "reset": 1000000}},
                     [(101, 0, 1), (111, 200000, 187500), (113, 0, 100000),
                      (115, 500000, 312500), (117, 0, 1000000)])
            books.split(187500, 100000, 312500, 1000000)
            books.event(round_no, ADDITION, 1, 0, 100000)       # the Minor pool's seed
        elif block == 1:
            s.config(round_no, {"envy": {"flush": 300, "straight_flush": 1000,
                                         "royal_flush": 2000}},
                     [(119, 0, 300), (122, 0, 1000), (123, 0, 2000)])
            books.envy.update({FLUSH: 300, STRAIGHT_FLUSH: 1000, ROYAL: 2000})
        elif block == 3:                     # the Minor pool in use: at its next hit
            s.config(round_no, {"minor": {"rate": [1, 8]}}, [(111, 187500, 125000)])
            books.pools["minor"].pending["rate"] = 125000
        elif block == 4:
            # a change that waits for the Minor pool's hit, then the merge: in place with it
            s.config(round_no, {"minor": {"reserve_rate": [1, 16]}}, [(112, 0, 62500)])
            books.pools["minor"].pending["reserve_rate"] = 62500
            s.config(round_no, {"split": False}, [(101, 1, 0)])
            books.apply_waiting(round_no)
            books.merge()
    assert books.seen >= {"carry minor", "carry major", "carries merged into a cent",
                          "envy minor", "envy major", "reset major", "rate applied minor",
                          "reserve_rate in place at a layout change"}, books.seen



def test_a_reserve_and_a_ceiling_keep_every_cent_between_pool_and_reserve(tmp_path):
    """Operator options [rules.md 2]: a hidden reserve share of 1/16 of each wager (fractions
    of a cent carried) and a ceiling, set while the pool is in use, so both wait for its next
    hit; then contributions above the ceiling overflow to the reserve, a void takes back
    first what overflowed in its round, and a royal's reset is funded from the reserve before
    the operator adds the rest."""
    s = Session(tmp_path, seed=13)
    books = s.books
    for block in s.blocks(6):
        round_no = s.round_no
        if block == 0:
            s.config(round_no, {"main": {"reserve_rate": [1, 16], "ceiling": 1000100}},
                     [(108, 0, 62500), (110, 0, 1000100)])
            books.main.pending.update(reserve_rate=62500, ceiling=1000100)
    assert books.seen >= {"reserve_rate applied main", "ceiling applied main",
                          "reserve carry main", "overflow reversed main",
                          "reset from the reserve main"}, books.seen
    assert books.main.meters["overflow"]



def test_the_shortfall_option_cut_pays_what_the_pool_holds_and_meters_the_rest(tmp_path):
    """Decision (shortfall), the other reading: a payout beyond what the pool holds is cut to
    it, the rest metered as cut, nothing operator-funded; envy bonuses the pool cannot all
    pay share what it holds (none paid when it holds nothing).  With a $5 wager a royal's
    10,000 to 1 ($50,000.00) is more than the pool holds."""
    s = Session(tmp_path, seed=7)
    books = s.books
    for block in s.blocks(6):
        round_no = s.round_no
        if block == 0:
            s.config(round_no, {"shortfall": "cut", "wager": 500,
                                "envy": {"straight_flush": 2000, "royal_flush": 5000}},
                     [(124, 0, 1), (100, 100, 500), (122, 0, 2000), (123, 0, 5000)])
            books.cut = True
            books.wager = 500
            funded = books.main.meters["shortfall"]     # before the change: paid in full
            books.envy.update({STRAIGHT_FLUSH: 2000, ROYAL: 5000})
    assert books.seen >= {"cut main", "envy cut", "envy none paid"}, books.seen
    assert books.main.meters["shortfall"] == funded       # nothing operator-funded since


# ------------------------------------------------------------------ Four Card Poker, Big Raise Stud

def four_card_value(four):
    """rules.md 1's four-card ranking as a comparable tuple: (category, ranks that break
    ties), category 7 quads, 6 straight flush, 5 trips, 4 flush, 3 straight, 2 two pair,
    1 pair, 0 high card."""
    ranks = sorted((RANKS.index(c[0]) for c in four), reverse=True)
    by_count = sorted(set(ranks), key=lambda r: (ranks.count(r), r), reverse=True)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    flush = len({c[1] for c in four}) == 1
    straight = None
    if len(set(ranks)) == 4:
        if ranks[0] - ranks[3] == 3:
            straight = ranks[0]
        elif ranks == [12, 2, 1, 0]:              # A-2-3-4, the lowest
            straight = 2
    if counts[0] == 4:
        return (7, by_count)
    if straight is not None:
        return (6 if flush else 3, [straight])
    if counts[0] == 3:
        return (5, by_count)
    if flush:
        return (4, ranks)
    return ({2: 2 if counts[:2] == [2, 2] else 1, 1: 0}[counts[0]], by_count)


def best_four(cards):
    """The best four of the player's five, or of the dealer's six [FCP 9.4, 10.1-10.2]."""
    return max(four_card_value(list(four)) for four in itertools.combinations(cards, 4))


def risk_raise(five):
    """Big Raise Stud's Risk/Raise verdict (rules.md 4): ' 6:1', ' P' or ' L'."""
    ranks = sorted((RANKS.index(c[0]) for c in five), reverse=True)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    category = jackpot_hand(five)
    straight = len(set(ranks)) == 5 and (ranks[0] - ranks[4] == 4 or ranks == [12, 3, 2, 1, 0])
    odds = {ROYAL: 500, STRAIGHT_FLUSH: 100, QUADS: 40, FULL_HOUSE: 8, FLUSH: 6}.get(category)
    if odds is None:
        if straight:
            odds = 4
        elif counts[0] == 3:
            odds = 3
        elif counts[:2] == [2, 2]:
            odds = 2
        elif counts[0] == 2:
            pair = [r for r in ranks if ranks.count(r) == 2][0]
            if pair >= RANKS.index("T"):
                odds = 1
            elif pair >= RANKS.index("6"):
                return " P"
    return " %d:1" % odds if odds else " L"


class GameRig(Rig):
    def __init__(self, directory, wall, game):
        from tools.sim import Simulation
        Simulation.__init__(self, str(directory), game=game, wall=wall)
        self.port = _ServicePort()
        self.app.service = Service(self.controller, self.port, shoe=self.app.shoe)


class OtherSession(Session):
    """Rounds of Four Card Poker or Big Raise Stud: no progressive, so the log is the books
    (a lock, each void, each settle, with no money), and each seat's result line."""

    def __init__(self, directory, seed, game):
        self.game = game
        super().__init__(directory, seed)
        self.books.log = {0: [(RAM_CLEAR, 1, 0, 0)]}       # no pool: nothing seeded

    def make(self, wall):
        return GameRig(self.directory, wall, self.game)

    def play(self, round_no, cut_chance=0.12):
        rig, rng, books = self.rig, self.rng, self.books
        assert rig.controller.phase == tc.OPEN
        ante = [s for s in range(1, 8) if rng.random() < 0.6]
        for s in ante:
            rig.chip(s, ante=True)
        if self.maybe_cut("open", cut_chance):
            rig = self.rig
            if rig.controller.phase == tc.RESULTS:
                rig.press("SETTLE")
        rig.press("LOCK")
        assert rig.controller.phase == tc.LOCKED and rig.controller.rec.round_no == round_no
        books.event(round_no, LOCK, 0, 0, 0)
        late = [s for s in range(1, 8) if s not in ante and rng.random() < 0.1]
        for s in late:                                     # a late bet: no hand, no line
            rig.chip(s, ante=True)
        if self.maybe_cut("locked", cut_chance):
            rig = self.rig
        deck = DECK[:]
        rng.shuffle(deck)
        n = 5 if self.game == "fcp" else 3
        holes = {s: [deck.pop() for _ in range(n)] for s in ante}
        other = [deck.pop() for _ in range(6 if self.game == "fcp" else 2)]
        where = "D" if self.game == "fcp" else "B"
        self.lines = ["S%d %s" % (s, c) for s in ante for c in holes[s]] + \
            ["%s %s" % (where, c) for c in other]
        self.send_lines()
        folds = [s for s in ante if rng.random() < 0.15]
        voids = [s for s in ante if s not in folds and rng.random() < 0.08]
        self.redo_folds(folds)
        for s in voids:
            rig.goto(s)
            rig.key(True)
            rig.press("BACK")
            rig.key(False)
            books.event(round_no, VOID, s, mask([s]), 0)
        if self.maybe_cut("decided", cut_chance):
            rig = self.rig
            self.send_lines()
            self.redo_folds(folds)
        if rng.random() < 0.06:
            rig.key(True)
            rig.press("BACK", long=True)
            rig.key(False)
            books.event(round_no, VOID, 0, 0, 0)
            assert rig.controller.results == ["ROUND VOID", "wagers returned"]
        else:
            rig.press("SETTLE")
            assert rig.controller.phase == tc.RESULTS, rig.display()
            books.event(round_no, SETTLE, mask(folds), 0, 0)
            want = []
            for s in ante:
                if s in voids:
                    want.append("S%d void" % s)
                elif s in folds:
                    want.append("S%d fold" % s)
                elif self.game == "fcp":
                    mine, dealer = best_four(holes[s]), best_four(other)
                    want.append(" W" if mine >= dealer else " L")
                else:
                    want.append(risk_raise(holes[s] + other))
            got = [line for line in rig.controller.results
                   if line[:1] == "S" and " Extra " not in line and " AcesUp " not in line
                   and " Bonus " not in line]
            assert len(got) == len(want), (got, want)
            for line, w in zip(got, want):
                assert line.startswith(w) if w.startswith("S") else line.endswith(w), (got, want)
        if self.maybe_cut("results", cut_chance):
            rig = self.rig
        for s in range(1, 8):
            if rig.covered(s, ante=True):
                rig.chip(s, ante=True, on=False)
        rig.press("SETTLE")
        assert rig.controller.phase == tc.OPEN, rig.display()

    def send_lines(self):
        rec = self.rig.controller.rec
        held = set(rec.hole) | set(rec.board) | set(rec.dealer)
        for line in self.lines:
            if cardlib.parse_card(line.split()[1]) not in held:
                self.rig.shoe(line)


def assert_log_is_the_books(entries, books):
    """The log's entries that move or account for money (BOOKS kinds), round by round, are
    the tally's, in any order within a round."""
    got = {}
    for e in entries:
        if e[3] & 0x7FFF in BOOKS:
            got.setdefault(e[2], []).append((e[3] & 0x7FFF, e[4], e[5], e[6]))
    assert {r: sorted(v) for r, v in got.items()} == {r: sorted(v) for r, v in books.log.items()}


def check_other(rig, books, game):
    """A table without the progressive: no meters nor hits, its log as tallied, the audit
    menu listing every entry, the sign dark."""
    assert rig.ask("meters")["code"] == "no-jackpot" and rig.ask("hits")["code"] == "no-jackpot"
    entries = rig.log()
    assert_log_is_the_books(entries, books)
    lines = rig.audit_menu()
    assert "no jackpot" in lines and "events %d" % len(entries) in lines
    assert not [line for line in lines if "$" in line]            # no amount of any pool
    assert rig.sign() == "" and rig.table.chain.text(1).strip() == ""


@pytest.mark.parametrize("game", ["fcp", "brs"])
def test_rounds_of_a_game_without_the_progressive_log_each_lock_void_and_settle_once(tmp_path, game):
    s = OtherSession(tmp_path, 5, game)
    round_no = 0
    for block in range(5):
        for _ in range(10):
            round_no += 1
            s.play(round_no)
        check_other(s.rig, s.books, game)
        if block == 1:
            s.set_clock(round_no, "2026-12-01T05:00:00", WALL + 5 * 3600)
        elif block == 2:
            round_no = s.lose_memory_and_clear() - 1
            s.books.log[round_no][-1] = (RAM_CLEAR, 1, 0, 0)
    assert set(s.cuts) == {"open", "locked", "decided", "results", "memory lost"}, s.cuts


def test_a_ram_clear_at_a_game_without_the_progressive_names_the_memorys_seq_not_an_entry(tmp_path):
    """The RAM clear entry of a Big Raise Stud table (no seed to show) gives the commit number
    critical memory had before the clear: the SEQ the service's status (and the memory's
    status text) called it, never as '#3', the audit menu's sign for an event's number,
    which here is the RAM clear entry's own."""
    rig = GameRig(tmp_path, WALL, "brs")
    rig.ram_clear()
    rig.chip(1, ante=True)
    rig.press("LOCK")
    rig.deal(1)
    rig.press("SETTLE")
    status = rig.ask("status")
    assert (status["seq"], status["log_count"]) == (3, 3)
    for copy in (tmp_path / "fram.bin", tmp_path / "flash" / "cm_a.bin"):
        data = bytearray(copy.read_bytes())
        data[40] ^= 0xFF                          # both copies fail their CRC
        copy.write_bytes(bytes(data))
    rig = GameRig(tmp_path, WALL + 100, "brs")
    assert rig.controller.phase == tc.RAM_ERROR
    rig.ram_clear()
    entry = rig.log()[-1]
    assert (entry[0], entry[3], entry[5]) == (3, RAM_CLEAR, 3)    # #3: b, the seq before
    lines = rig.audit_menu()
    at = lines.index("#3 00:01:42 r0")
    assert lines[at + 1:at + 3] == [" RAM clear sup 1", " seq 3"]
