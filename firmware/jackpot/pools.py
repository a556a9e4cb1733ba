"""The jackpot state of one table: pools, reserves, carried fractions, meters, last hits.

``Jackpot`` is pure: no clock, no I/O.  Time and round numbers come in as arguments.  Every
method validates all of its input before it changes anything, so a ValueError leaves the
state exactly as it was.  The round controller calls, per round::

    contribute(round_no, seats)            at "No more bets": the accepted jackpot wagers
    void_seat(round_no, seat)              a seat's hand declared void [rules.md 5]
    void_round(round_no)                   a misdeal: every contribution reversed [rules.md 5]
    preview(round_no, time, flop, hands)   the payouts settle() would make (for the supervisor)
    settle(round_no, time, flop, hands)    jackpot payouts after all other wagers [11.12]

and between rounds ``set_config(changes)`` and ``add(pool, amount)``.  The critical-memory
store saves the state with ``firmware.jackpot.record.encode`` after each call.
"""

from firmware.compat import const
from firmware.jackpot import config as cfg
from firmware.jackpot import hits as hitplan
from firmware.jackpot import meters as m
from firmware.jackpot import paytable
from firmware.jackpot.carry import owed_cents, share
from firmware.poker import cards as cardlib
from firmware.poker import hands as evaluator

MAX_SEATS = const(7)
# seconds (the table passes seconds since 1970): u32 as the event log keeps them, so a table
# still pays after 2038-01-19 (2**31); not a const, a big int on 32-bit ports
MAX_TIME = 0xFFFFFFFF


def _books(name, jp):
    """firmware.jackpot.meternames's `name` of jp (the books for people, loaded on use as
    for pool_meters; heap.NotLoaded when it cannot be loaded: a full heap, or a damaged .mpy,
    whose ValueError must not pass for books that do not balance)."""
    try:
        from firmware.jackpot import meternames as mn
    except Exception as error:  # noqa: BLE001
        from firmware.heap import not_loaded

        raise not_loaded("firmware.jackpot.meternames", error) from None
    return getattr(mn, name)(jp)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_round(round_no):
    if not _is_int(round_no) or round_no < 1:
        raise ValueError("bad round number %r: expected an integer >= 1" % (round_no,))


def _check_seat(seat):
    if not _is_int(seat) or seat < 1 or seat > MAX_SEATS:
        raise ValueError("bad seat %r: expected 1..%d" % (seat, MAX_SEATS))


def seat_mask(seats):
    """Bit mask (bit seat-1) of a list of distinct seats 1..7; ValueError names a bad seat."""
    if not isinstance(seats, (list, tuple)):
        raise ValueError("seats must be a list of seat numbers, got %r" % (seats,))
    mask = 0
    for seat in seats:
        _check_seat(seat)
        if mask & (1 << (seat - 1)):
            raise ValueError("seat %d given twice" % seat)
        mask |= 1 << (seat - 1)
    return mask


def mask_seats(mask):
    """Seats 1..7 of a seat bit mask, in order."""
    return [s for s in range(1, MAX_SEATS + 1) if mask & (1 << (s - 1))]


def _count(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


class Contribution:
    """What contribute() or a void did, per pool slot (0 main, 1 minor, 2 major).

    amount is the wagers' total (negative for a reversal); pool, reserve and overflow are the
    whole cents that went to (or came back from) each pool, its reserve, and from the pool to
    its reserve above the ceiling; retention is the operator's whole cents.
    """

    def __init__(self, round_no, seats, amount):
        self.round = round_no
        self.seats = seats
        self.amount = amount
        self.pool = [0, 0, 0]
        self.reserve = [0, 0, 0]
        self.overflow = [0, 0, 0]
        self.retention = 0


class Settlement:
    """The jackpot payouts of one round and what followed them.

    hits: meters.HIT_FIELDS lists in payment order; resets: [slot, from reserve, operator
    addition]; overflow: [slot, cents moved to the reserve by a new ceiling]; applied: [slot,
    list of (key, old, new)] pool parameters that took effect after the hit; collected: the
    jackpot wagers collected after the payout [11.12]; values: each slot's value after.
    """

    def __init__(self, round_no, time, collected):
        self.round = round_no
        self.time = time
        self.collected = collected
        self.hits = []
        self.resets = []
        self.overflow = []
        self.applied = []
        self.values = [0, 0, 0]
        self.reserves = [0, 0, 0]

    def total_paid(self):
        """All jackpot awards of the round, envy bonuses and shortfall included (what was
        paid: a cut is not)."""
        return sum([h[m.H_AMOUNT] + _count(h[m.H_ENVY_SEATS]) * h[m.H_ENVY_EACH]
                    for h in self.hits])


class ConfigChange:
    """Result of set_config: changes [(key, old, new)] that took effect now, pending
    [(key, old, new)] waiting for their pool's next hit, moves [slot from, slot to, value,
    reserve] made by a merge or split, and starts [slot, from reserve, operator addition]
    of a pool that a split brought into use at its reset amount."""

    def __init__(self):
        self.changes = []
        self.pending = []
        self.moves = []
        self.starts = []


class Jackpot:
    """Pools, reserves, carried fractions, meters and the last jackpot hits of one table."""

    def __init__(self, config=None, fresh=True):
        """A table after a RAM clear: each active pool starts at its reset amount, recorded
        as an operator addition.  fresh=False gives an all-zero state (for decoding)."""
        if config is None:
            config = cfg.default()
        elif isinstance(config, dict):
            config = cfg.build(config)
        elif not isinstance(config, cfg.Config):
            raise ValueError("jackpot config must be a dict or a Config, got %r" % (config,))
        self.config = config
        self.pending = [None, None, None]
        self.value = [0, 0, 0]
        self.reserve = [0, 0, 0]
        self.carry = [0, 0, 0]
        self.reserve_carry = [0, 0, 0]
        self.meters = [[0] * m.POOL_METERS for _ in range(cfg.POOL_SLOTS)]
        self.table = [0] * m.TABLE_METERS
        self.last_round = 0
        self.open_round = 0
        self.open_wager = 0
        self.open_seats = 0
        self.open_overflow = [0, 0, 0]
        self.hits = []
        if fresh:
            for slot in config.active_slots():
                self._addition(slot, config.pools[slot].reset)

    # ----------------------------------------------------------------- reading

    def active_slots(self):
        """Pool slots in use: (MAIN,) or (MINOR, MAJOR)."""
        return self.config.active_slots()

    def carried_cents(self):
        """Whole cents held for the carried fractions of all shares (0..4)."""
        return owed_cents(self.carry + self.reserve_carry)

    def pool_meters(self, slot):
        """Dict of one pool's meters, with its value, reserve and carried fractions."""
        from firmware.jackpot import meternames as mn

        self._check_slot(slot)
        out = mn.named(self.meters[slot], mn.POOL_METER_NAMES)
        out["value"] = self.value[slot]
        out["reserve"] = self.reserve[slot]
        out["carry_ppm"] = self.carry[slot]
        out["reserve_carry_ppm"] = self.reserve_carry[slot]
        return out

    def table_meters(self):
        """Dict of the lifetime table meters, with the cents held for carried fractions."""
        from firmware.jackpot import meternames as mn

        out = mn.named(self.table, mn.TABLE_METER_NAMES)
        out["carried"] = self.carried_cents()
        return out

    def last_hits(self):
        """The last (up to 25) jackpot hits as dicts, oldest first (firmware.jackpot.meternames)."""
        return _books("last_hits", self)

    def requested_config(self):
        """The configuration with every pending pool change in place (what was last asked)."""
        c = self.config
        for slot in range(cfg.POOL_SLOTS):
            if self.pending[slot] is not None:
                c = c.with_pool(slot, self.pending[slot])
        return c

    def audit(self):
        """List of broken accounting equations (empty when the books balance to the cent;
        firmware.jackpot.meternames)."""
        return _books("audit", self)

    # ----------------------------------------------------------------- rounds

    def contribute(self, round_no, seats):
        """Take the accepted jackpot wagers of a round (seats 1..7) into the pools.

        Opens the round; each seat's wager is the configured amount.  Returns a Contribution.
        """
        _check_round(round_no)
        if self.open_round:
            raise ValueError("round %d is still open: settle or void it before round %r"
                             % (self.open_round, round_no))
        if round_no <= self.last_round:
            raise ValueError("round %d already taken (last round %d)" % (round_no, self.last_round))
        mask = seat_mask(seats)
        count = _count(mask)
        wager = self.config.wager
        amount = count * wager
        result = Contribution(round_no, mask_seats(mask), amount)
        owed_before = self.carried_cents()
        credited = 0
        for slot in self.active_slots():
            pc = self.config.pools[slot]
            pm = self.meters[slot]
            inc, self.carry[slot] = share(amount, pc.rate_ppm(), self.carry[slot])
            rinc, self.reserve_carry[slot] = share(amount, pc.reserve_ppm(), self.reserve_carry[slot])
            over = self._credit(slot, inc)
            self.reserve[slot] += rinc
            pm[m.WAGERS] += count
            pm[m.WAGERED] += amount
            pm[m.CONTRIB] += inc
            pm[m.RESERVE_CONTRIB] += rinc
            self.open_overflow[slot] = over
            credited += inc + rinc
            result.pool[slot] = inc
            result.reserve[slot] = rinc
            result.overflow[slot] = over
        retention = amount - credited - (self.carried_cents() - owed_before)
        self.table[m.T_RETENTION] += retention
        result.retention = retention
        if count:
            self.table[m.T_ROUNDS] += 1
        self.table[m.T_WAGERS] += count
        self.table[m.T_WAGERED] += amount
        self.last_round = round_no
        self.open_round = round_no
        self.open_wager = wager
        self.open_seats = mask
        return result

    def void_seat(self, round_no, seat):
        """Void one seat's jackpot wager of the open round: its contribution is reversed."""
        self._check_open(round_no)
        _check_seat(seat)
        bit = 1 << (seat - 1)
        if not self.open_seats & bit:
            raise ValueError("seat %d has no jackpot wager in round %d" % (seat, round_no))
        result = self._reverse(bit)
        self.open_seats &= ~bit
        return result

    def void_round(self, round_no):
        """Void the open round (misdeal): every contribution is reversed, the round closed."""
        self._check_open(round_no)
        result = self._reverse(self.open_seats)
        self._close()
        return result

    def preview(self, round_no, time, flop, hands):
        """The Settlement settle() would make, without changing anything."""
        return self._plan(round_no, time, flop, hands)

    def settle(self, round_no, time, flop, hands):
        """Pay the jackpot hits of the open round and close it [11.7-11.12].

        flop: the first three community cards; hands: list of (seat, hole cards, played) for
        every seat with a jackpot wager (others are ignored); a seat that did not place a Play
        wager (folded) cannot win [10.2] and may give None for its cards.  Returns a Settlement.
        """
        plan = self._plan(round_no, time, flop, hands)
        self._apply(plan)
        return plan

    # ----------------------------------------------------------------- operator

    def add(self, slot, amount):
        """Operator addition of amount cents to an active pool (not above its ceiling);
        firmware.jackpot.configcheck does it, loaded for the call."""
        return cfg._checked("add", self, slot, amount)

    def set_config(self, changes):
        """Change the configuration between rounds; returns a ConfigChange.  What changes
        when, and how a merge or split moves the money: firmware.jackpot.configcheck's
        set_config, which does it, loaded for the call."""
        return cfg._checked("set_config", self, changes)

    # ----------------------------------------------------------------- internals

    def _check_slot(self, slot):
        if not _is_int(slot) or slot < 0 or slot >= cfg.POOL_SLOTS:
            raise ValueError("bad pool %r: expected 0 (main), 1 (minor) or 2 (major)" % (slot,))

    def _check_open(self, round_no):
        _check_round(round_no)
        if not self.open_round:
            raise ValueError("round %d is not open (no contributions to settle or void)" % round_no)
        if round_no != self.open_round:
            raise ValueError("round %d is not the open round %d" % (round_no, self.open_round))

    def _close(self):
        self.open_round = 0
        self.open_wager = 0
        self.open_seats = 0
        self.open_overflow = [0, 0, 0]

    def _credit(self, slot, inc):
        """Add inc to a pool; what goes above its ceiling overflows to the reserve."""
        value = self.value[slot] + inc
        ceiling = self.config.pools[slot].ceiling
        over = 0
        if ceiling and value > ceiling:
            over = value - ceiling
            value = ceiling
            self.reserve[slot] += over
            self.meters[slot][m.OVERFLOW] += over
        self.value[slot] = value
        return over

    def _addition(self, slot, amount):
        self.value[slot] += amount
        self.meters[slot][m.ADDITIONS] += amount
        self.table[m.T_ADDITIONS] += amount

    def _reverse(self, mask):
        """Undo the shares of the seats in mask exactly (the carry goes back too)."""
        count = _count(mask)
        amount = count * self.open_wager
        result = Contribution(self.open_round, mask_seats(mask), -amount)
        owed_before = self.carried_cents()
        back_total = 0
        for slot in self.active_slots():
            pc = self.config.pools[slot]
            pm = self.meters[slot]
            inc, self.carry[slot] = share(-amount, pc.rate_ppm(), self.carry[slot])
            rinc, self.reserve_carry[slot] = share(-amount, pc.reserve_ppm(), self.reserve_carry[slot])
            back = -inc
            # What overflowed to the reserve this round comes back first, so a whole-round
            # void restores the pool and the reserve exactly.
            from_over = back if back < self.open_overflow[slot] else self.open_overflow[slot]
            self.open_overflow[slot] -= from_over
            self.reserve[slot] -= from_over + (-rinc)
            self.value[slot] -= back - from_over
            pm[m.OVERFLOW_REVERSED] += from_over
            pm[m.REVERSED] += back
            pm[m.RESERVE_REVERSED] += -rinc
            pm[m.VOIDS] += count
            pm[m.VOIDED] += amount
            back_total += back - rinc
            result.pool[slot] = inc
            result.reserve[slot] = rinc
            result.overflow[slot] = -from_over
        retention_back = amount - back_total + self.carried_cents() - owed_before
        self.table[m.T_RETENTION_REVERSED] += retention_back
        self.table[m.T_VOIDS] += count
        self.table[m.T_VOIDED] += amount
        result.retention = -retention_back
        return result

    def _plan(self, round_no, time, flop, hands):
        self._check_open(round_no)
        if not _is_int(time) or time < 0 or time > MAX_TIME:
            raise ValueError("bad time %r: expected an integer 0..%d" % (time, MAX_TIME))
        cardlib.check(flop, 3, "jackpot flop")
        if not isinstance(hands, (list, tuple)):
            raise ValueError("hands must be a list of (seat, hole cards, played), got %r" % (hands,))
        seen_seats = 0
        seen_cards = bytearray(cardlib.DECK_SIZE)   # not a 52-bit mask: a big int on 32 bits
        for c in flop:
            seen_cards[c] = 1
        entries = []
        for entry in hands:
            if not isinstance(entry, (list, tuple)) or len(entry) != 3:
                raise ValueError("hand %r is not (seat, hole cards, played)" % (entry,))
            seat, hole, played = entry[0], entry[1], entry[2]
            _check_seat(seat)
            if seen_seats & (1 << (seat - 1)):
                raise ValueError("seat %d given twice" % seat)
            seen_seats |= 1 << (seat - 1)
            if played not in (True, False) or not isinstance(played, bool):
                raise ValueError("seat %d: played must be True or False, got %r" % (seat, played))
            if hole is None and not played:
                continue
            cardlib.check(hole, 2, "seat %d hole cards" % seat)
            for c in hole:
                if seen_cards[c]:
                    raise ValueError("seat %d: card %s dealt twice" % (seat, cardlib.name(c)))
                seen_cards[c] = 1
            if played and self.open_seats & (1 << (seat - 1)):
                entries.append((seat, hole))
        missing = self.open_seats & ~seen_seats
        if missing:
            raise ValueError("round %d: no hand given for seat %d, which has a jackpot wager"
                             % (round_no, mask_seats(missing)[0]))
        wager = self.open_wager
        plan = Settlement(round_no, time, _count(self.open_seats) * wager)
        winners = [[], [], []]
        five_of = {}
        for seat, hole in entries:
            five = paytable.jackpot_cards(hole, flop)
            hand = paytable.hand_type(evaluator.best5(five))
            if hand != paytable.NO_HIT and self.config.pays(hand):
                winners[self.config.pool_for(hand)].append((seat, hand))
                five_of[seat] = five
        for slot in range(cfg.POOL_SLOTS):
            plan.values[slot] = self.value[slot]
            plan.reserves[slot] = self.reserve[slot]
        envy = self.config.envy if self.config.envy_paid() else None
        players = [entry[0] for entry in entries]
        for slot in self.active_slots():
            if not winners[slot]:
                continue
            payouts, left, royal = hitplan.plan_pool(self.value[slot], winners[slot], wager,
                                                     self.config.odds, self.config.percent,
                                                     envy, players, self.config.shortfall == 1)
            plan.hits.extend(hitplan.hit_records(time, round_no, slot, payouts, five_of))
            pool_cfg = self.config.pools[slot]
            if self.pending[slot] is not None:
                plan.applied.append([slot, cfg.diff(self.config.with_pool(slot, pool_cfg),
                                                    self.config.with_pool(slot, self.pending[slot]))])
                pool_cfg = self.pending[slot]
            reserve = self.reserve[slot]
            if (royal or left == 0) and left < pool_cfg.reset:
                need = pool_cfg.reset - left
                from_reserve = need if need <= reserve else reserve
                plan.resets.append([slot, from_reserve, need - from_reserve])
                left += need
                reserve -= from_reserve
            if pool_cfg.ceiling and left > pool_cfg.ceiling:
                over = left - pool_cfg.ceiling
                plan.overflow.append([slot, over])
                left -= over
                reserve += over
            plan.values[slot] = left
            plan.reserves[slot] = reserve
        return plan

    def _apply(self, plan):
        for h in plan.hits:
            slot = h[m.H_POOL]
            hand = h[m.H_HAND]
            amount = h[m.H_AMOUNT]
            shortfall = h[m.H_SHORTFALL]
            envied = _count(h[m.H_ENVY_SEATS])
            envy = envied * h[m.H_ENVY_EACH]
            envy_short = h[m.H_ENVY_SHORTFALL]
            cut = h[m.H_CUT] + h[m.H_ENVY_CUT]
            pm = self.meters[slot]
            t = self.table
            self.value[slot] -= amount - shortfall + envy - envy_short
            pm[m.PAID] += amount + envy
            pm[m.SHORTFALL] += shortfall + envy_short
            pm[m.HITS] += 1
            pm[m.HIT_COUNT + hand] += 1
            pm[m.HIT_AMOUNT + hand] += amount
            pm[m.ENVY_COUNT] += envied
            pm[m.ENVY_AMOUNT] += envy
            pm[m.CUT] += cut
            t[m.T_CUT] += cut
            t[m.T_PAID] += amount + envy
            t[m.T_SHORTFALL] += shortfall + envy_short
            t[m.T_HITS] += 1
            t[m.T_HIT_COUNT + hand] += 1
            t[m.T_HIT_AMOUNT + hand] += amount
            t[m.T_ENVY_COUNT] += envied
            t[m.T_ENVY_AMOUNT] += envy
            self.hits.append(h)
        while len(self.hits) > m.LAST_HITS:
            self.hits.pop(0)
        for applied in plan.applied:
            slot = applied[0]
            self.config = self.config.with_pool(slot, self.pending[slot])
            self.pending[slot] = None
        for slot, from_reserve, addition in plan.resets:
            self.value[slot] += from_reserve
            self.reserve[slot] -= from_reserve
            self.meters[slot][m.RESERVE_FUNDED] += from_reserve
            self.meters[slot][m.RESETS] += 1
            self.table[m.T_RESETS] += 1
            self._addition(slot, addition)
        for slot, over in plan.overflow:
            self.value[slot] -= over
            self.reserve[slot] += over
            self.meters[slot][m.OVERFLOW] += over
        self.table[m.T_COLLECTED] += plan.collected
        self._close()
