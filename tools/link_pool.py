"""The linked pool(s) a link controller keeps for many tables, on firmware/jackpot's pieces.

A table's own ``firmware.jackpot.pools.Jackpot`` has one open round at a time; a linked pool
takes contributions from many tables whose rounds interleave, so it is built from the same
parts instead: ``config`` (rates, reset, ceiling, pay table), ``carry.share`` (exact shares,
the fraction of a cent carried) and ``hits.plan_pool`` (rules.md 11.10 order, shortfall).
After each call the state is ``to_dict()`` (JSON for SQLite) and ``audit()`` lists any
broken equation.
"""

from firmware.jackpot import config as cfg
from firmware.jackpot import hits as hitplan
from firmware.jackpot import paytable
from firmware.jackpot.carry import owed_cents, share
from firmware.link import codec

# Per-slot meters, cents unless marked.
METERS = ("wagered", "wagers", "reversed_wagers", "contrib", "reversed", "reserve_contrib",
          "reserve_reversed", "overflow", "additions", "reserve_funded", "paid", "shortfall",
          "hits", "resets", "reverse_shortfall")


class LinkedPool:
    """Pool values, reserves, carried fractions and meters for every linked table."""

    def __init__(self, config=None):
        if config is None:
            config = cfg.default()
        elif isinstance(config, dict):
            config = cfg.build(config)
        if config.envy_paid():
            raise ValueError("config envy: the envy bonus is a standalone table's option; "
                             "a linked pool does not pay it (value %r)" % (config.envy,))
        if config.shortfall:
            # the tables show a linked hit's amount as paid: no cut travels on the link
            raise ValueError("config shortfall: %r is a standalone table's option; a linked "
                             "pool pays in full, the shortfall operator-funded"
                             % cfg.SHORTFALLS[config.shortfall])
        self.config = config
        self.value = [0, 0, 0]
        self.reserve = [0, 0, 0]
        self.carry = [0, 0, 0]
        self.reserve_carry = [0, 0, 0]
        self.meters = [dict.fromkeys(METERS, 0) for _ in range(cfg.POOL_SLOTS)]
        for slot in config.active_slots():
            self._add(slot, config.pools[slot].reset)

    def amounts(self):
        """Values of the active pools (what every meter sign shows), in cents."""
        return [self.value[s] for s in self.config.active_slots()]

    def _add(self, slot, amount):
        self.value[slot] += amount
        self.meters[slot]["additions"] += amount

    def contribute(self, amount, count):
        """Take count jackpot wagers totalling amount cents; returns the pool increments."""
        if amount < 0 or count < 0:
            raise ValueError("contribution amount %r / count %r must not be negative" % (amount, count))
        incs = []
        for slot in self.config.active_slots():
            pc = self.config.pools[slot]
            pm = self.meters[slot]
            inc, self.carry[slot] = share(amount, pc.rate_ppm(), self.carry[slot])
            rinc, self.reserve_carry[slot] = share(amount, pc.reserve_ppm(), self.reserve_carry[slot])
            value = self.value[slot] + inc
            if pc.ceiling and value > pc.ceiling:
                pm["overflow"] += value - pc.ceiling
                self.reserve[slot] += value - pc.ceiling
                value = pc.ceiling
            self.value[slot] = value
            self.reserve[slot] += rinc
            pm["wagered"] += amount
            pm["wagers"] += count
            pm["contrib"] += inc
            pm["reserve_contrib"] += rinc
            incs.append(inc)
        return incs

    def reverse(self, amount):
        """Undo the shares of amount cents of voided wagers exactly (the carry goes back too).

        The pool gives back at most what it holds; anything more comes from its reserve and
        then counts as operator-funded shortfall (a void after a big hit is rare)."""
        if amount < 0:
            raise ValueError("reversal amount %r must not be negative" % (amount,))
        for slot in self.config.active_slots():
            pc = self.config.pools[slot]
            pm = self.meters[slot]
            inc, self.carry[slot] = share(-amount, pc.rate_ppm(), self.carry[slot])
            rinc, self.reserve_carry[slot] = share(-amount, pc.reserve_ppm(), self.reserve_carry[slot])
            back = -inc
            from_pool = back if back <= self.value[slot] else self.value[slot]
            self.value[slot] -= from_pool
            pm["reversed"] += from_pool
            pm["reverse_shortfall"] += back - from_pool
            self.reserve[slot] += rinc
            pm["reserve_reversed"] += -rinc
            pm["reversed_wagers"] += amount

    def pay(self, hits, wager):
        """Pay one round's hits from one table by rules.md 11.10 (per pool).

        hits: [[seat, hand type, wager], ...] in dealing order.  Returns (rows, before, after):
        rows [[seat, hand, amount, shortfall], ...] in payment order and the active pools'
        values before and after (resets included).  ValueError (nothing changed) for a wager
        other than the linked one or a hand the linked pay table does not pay.
        """
        before = self.amounts()
        winners = [[], [], []]
        for seat, hand, w in hits:
            why = self.refusal([seat, hand, w], wager)
            if why is not None:
                raise ValueError(why[1])
            winners[self.config.pool_for(hand)].append((seat, hand))
        rows = []
        for slot in self.config.active_slots():
            if not winners[slot]:
                continue
            payouts, left, royal = hitplan.plan_pool(self.value[slot], winners[slot], wager,
                                                     self.config.odds, self.config.percent)
            pm = self.meters[slot]
            for p in payouts:
                pm["paid"] += p[hitplan.AMOUNT]
                pm["shortfall"] += p[hitplan.SHORTFALL]
                pm["hits"] += 1
                rows.append([p[hitplan.SEAT], p[hitplan.HAND], p[hitplan.AMOUNT], p[hitplan.SHORTFALL]])
            pc = self.config.pools[slot]
            if (royal or left == 0) and left < pc.reset:
                need = pc.reset - left
                from_reserve = need if need <= self.reserve[slot] else self.reserve[slot]
                self.reserve[slot] -= from_reserve
                pm["reserve_funded"] += from_reserve
                pm["resets"] += 1
                left += from_reserve
                self.value[slot] = left
                self._add(slot, need - from_reserve)
            else:
                self.value[slot] = left
        return rows, before, self.amounts()

    def refusal(self, hit, wager):
        """None when the pool can pay hit [seat, hand type, wager], else (codec.REFUSED_*,
        the reason in words); ValueError for a hand type that does not exist."""
        seat, hand, w = hit
        paytable.check_type(hand)
        if w != wager:
            return codec.REFUSED_WAGER, ("hit at seat %d has wager %d, the linked wager is %d"
                                         % (seat, w, wager))
        if not self.config.pays(hand):
            # the table's pay table differs from the link's: refused, not "paid" 0 as a hit
            return codec.REFUSED_HAND, ("hit at seat %d: the linked pay table does not pay a %s"
                                        % (seat, paytable.type_name(hand)))
        return None

    def audit(self, net_wagers=None):
        """Broken accounting equations (empty when every cent is accounted for).

        net_wagers, when given, is the tables' own total of wagers less reversals (cents).
        """
        problems = []
        for slot in self.config.active_slots():
            pm = self.meters[slot]
            expect = (pm["additions"] + pm["reserve_funded"] + pm["contrib"] - pm["reversed"]
                      - pm["overflow"] - (pm["paid"] - pm["shortfall"]))
            if expect != self.value[slot]:
                problems.append("%s value %d != meters %d" % (cfg.POOL_KEYS[slot], self.value[slot], expect))
            pc = self.config.pools[slot]
            net = pm["wagered"] - pm["reversed_wagers"]
            if net_wagers is not None and net != net_wagers:
                problems.append("%s wagers %d != tables' %d" % (cfg.POOL_KEYS[slot], net, net_wagers))
            # exact shares: every millionth of a cent of net wagers x rate is credited or carried
            credited = pm["contrib"] - pm["reversed"] - pm["reverse_shortfall"]
            if credited * cfg.RATE_UNIT + self.carry[slot] != net * pc.rate_ppm():
                problems.append("%s increments %d + carry %d do not match wagers %d at %d ppm"
                                % (cfg.POOL_KEYS[slot], credited, self.carry[slot], net, pc.rate_ppm()))
        return problems

    def carried_cents(self):
        return owed_cents(self.carry + self.reserve_carry)

    def to_dict(self):
        """JSON-ready state (the configuration is stored beside it)."""
        return {"value": self.value, "reserve": self.reserve, "carry": self.carry,
                "reserve_carry": self.reserve_carry, "meters": self.meters}

    @classmethod
    def from_dict(cls, config, state):
        """Rebuild from to_dict() output; ValueError if it does not balance."""
        pool = cls(config)
        try:
            pool.value = [int(v) for v in state["value"]]
            pool.reserve = [int(v) for v in state["reserve"]]
            pool.carry = [int(v) for v in state["carry"]]
            pool.reserve_carry = [int(v) for v in state["reserve_carry"]]
            pool.meters = [{k: int(m[k]) for k in METERS} for m in state["meters"]]
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError("stored pool state is not readable: %s" % error) from error
        if len(pool.value) != cfg.POOL_SLOTS or len(pool.meters) != cfg.POOL_SLOTS:
            raise ValueError("stored pool state has the wrong number of pools")
        broken = [p for p in pool.audit() if "value" in p]
        if broken:
            raise ValueError("stored pool state does not balance: " + "; ".join(broken))
        return pool
