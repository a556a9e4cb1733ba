"""A linked table's round work: what the round controller does with its TableLink
(docs/link.md "Integration"; the controller's docstring says what a linked round is).

The controller loads this module when it boots with a ``link_factory`` and keeps a
LinkedRound as ``c.linked``: a standalone table never loads it, so its code takes no room in
that table's heap.
"""

from firmware.compat import const
from firmware.drivers.ticks import ticks_add, ticks_diff
from firmware.jackpot import hits as hitplan
from firmware.jackpot import meters as jm
from firmware.jackpot import paytable as jpay
from firmware.jackpot import pools
from firmware.link.codec import to_json
from firmware.link.tablelink import MISMATCH, ROUND_ENTRIES
from firmware.poker import hands
from firmware.store import critical
from firmware.store import eventlog as ev
from firmware.table.controller import SECTION_LINK, SECTION_LINK_ROUND
from firmware.table.phases import (
    BEEP_ERROR,
    BEEP_JACKPOT,
    CONFIRM,
    FLOP,
    LOCKED,
    RESULTS,
    WIDTH,
)
from firmware.table.screens import money, paid_lines

_RETRY_MS = const(1000)        # wait before committing the link section again after a failure
# section_bounds: a ledger entry's characters besides its amount and hits ("[n,e,r,lt,a,c,[]],"
# with three 32-bit numbers), an awaited hit's ("[n,r],"), and the ledger's own numbers at
# their widest, in the list section_bounds writes them in (message numbers to 2**53, entry
# numbers 32 bits, five totals to 2**48, two pools' amounts 30 bits: codec)
_ENTRY = const(13 + 3 * 10)
_AWAITED = const(24)
# a payout not yet taken ("[n,r,[rows],[pb],[pa]],": two 32-bit numbers, two pools' amounts
# before and after, 30 bits) and each of its rows ("[7,4,amount,funded],", amounts to 2**48)
_RESULT = const(75)
_RESULT_ROW = const(38)
_NUMBERS = const(2 * 16 + 2 * 10 + (5 * 15 + 6) + (2 * 10 + 3) + 7)
# LINK_REJECT entries: the first at once, then at most one a window, the rejects between
# counted into it; the window doubles while rejects keep coming (a flood, a clock that is off)
# up to an hour, and is back to its shortest after a window without any
_REJECT_LOG_MS = const(10000)
_REJECT_LOG_MAX_MS = const(3600000)
# Why the link refused a hand (codec.REFUSED_WAGER, REFUSED_HAND), for the service's status
_REFUSALS = ("jackpot wager differs from the link's", "the link's pay table does not pay it")
# Link ledger totals (firmware.link.codec T_*): wagers, count, reversed, paid, hits.
TOTAL_NAMES = ("wagered", "wagers", "reversed", "paid", "hits")


class LinkedRound:
    """A linked table's round work for the RoundController `c` (c.linked), with the state only
    a linked round has: the LOCK's wall time, link log events waiting for a commit, rejects
    counted since the last entry, and when a failed link commit is tried again."""

    def __init__(self, c):
        """Build the table's link from its critical-memory section (ValueError if unusable)."""
        self.c = c
        self.lock_time = 0       # wall seconds of this round's LOCK
        self.events = []         # (kind, a, b, c) from the link's log, committed by poll
        self.rejects = 0         # link messages rejected since the last LINK_REJECT entry
        self.reject_reason = 0   # the last one's reason (LINK_REASONS index + 1)
        self.reject_logged = False  # a LINK_REJECT entry made less than reject_window ago
        self.reject_logged_ms = 0
        self.reject_window = _REJECT_LOG_MS
        self.retry = 0           # tick after which a failed link commit is tried again
        self.retry_wait = False  # a link commit failed: wait for retry
        self.said = ""           # the link's dealer_text on the display now
        # the round section first: a bad one must leave no link behind (c.tablelink without
        # c.linked), which the RAM clear would keep and the next pass trip over
        data = c.memory.section(SECTION_LINK_ROUND)
        if data is not None:
            words = bytes(data).decode().split()
            if len(words) != 2 or not words[0].isdigit() or not words[1].isdigit():
                raise ValueError("link round section %r is not 'round lock_time'" % (bytes(data),))
            if int(words[0]) == c.rec.round_no or int(words[0]) == c.memory.round_no:
                self.lock_time = int(words[1])
        c.tablelink = c.link_factory(c.memory.section(SECTION_LINK), self._log)
        # one payout waits in the link's section at a time (section_bounds keeps room for it
        # in every commit): the others are asked for again once the poll has taken it
        c.tablelink.max_results = 1
        self.config = None       # the jackpot configuration whose pay table the link has
        if c.jackpot is not None:
            c.tablelink.wager = c.jackpot.config.wager  # closed while the link's differs
            c.tablelink.pools = 2 if c.jackpot.config.split else 1  # and while its pools do
            self._pays(c.jackpot.config)                # and while its pay table does
        c.link_required = True
        c.link_up = False

    def _pays(self, config):
        """Give the link this configuration's pay table (codec PAYS: odds, then percent)."""
        self.config = config
        self.c.tablelink.paytable = config.odds + config.percent

    def _log(self, code, text):
        """The link's log callback: rejects are counted, a mismatch is queued for the log."""
        if code == "link reject":
            self.rejects += 1
            self.reject_reason = 0
            for i in range(len(ev.LINK_REASONS)):
                if text.startswith(ev.LINK_REASONS[i]):
                    self.reject_reason = i + 1
        elif code == "link mismatch":
            self.events.append(self._mismatch_event(0))

    def _mismatch_event(self, a):
        """A LINK_MISMATCH entry (a: 0 found, 1 cleared) with the two sides' linked wagers as
        last known: the table's, then the controller's."""
        lk = self.c.tablelink
        remote = lk.remote
        theirs = remote[0] if remote else 0
        return (ev.LINK_MISMATCH, a, ev.clamp(lk.totals[0]), ev.clamp(theirs))

    def poll(self, now_ms):
        """RoundController.link_poll on a linked table with a jackpot and good memory: payouts
        that arrived, link events, the link section when it changed, and the pool amounts on the
        meter sign.  Allocates nothing while nothing changes."""
        c = self.c
        lk = c.tablelink
        lk.wager = c.jackpot.config.wager  # a RAM clear may have brought another configuration
        lk.pools = 2 if c.jackpot.config.split else 1
        if self.config is not c.jackpot.config:
            self._pays(c.jackpot.config)
        # after a failed commit, nothing is tried again before its retry time (payouts neither:
        # a failing store was tried, alarmed and read back at every tick)
        due = not self.retry_wait or ticks_diff(now_ms, self.retry) >= 0
        if due and lk.results:
            self._results()
            due = False     # one commit a pass (about 110 ms on a board): the rest next pass
        if self.reject_logged and ticks_diff(now_ms, self.reject_logged_ms) >= self.reject_window:
            self.reject_logged = False
            self.reject_window = (min(self.reject_window * 2, _REJECT_LOG_MAX_MS) if self.rejects
                                  else _REJECT_LOG_MS)
        if due and (self.events or (self.rejects and not self.reject_logged)):
            self._log_commit(now_ms)
        elif due and lk.dirty:
            self._commit([])
        said = lk.dealer_text()
        if said != self.said:
            self.said = said
            c._render()
        view = c.view
        amounts = lk.amounts()
        slots = view.meter_slots
        n = len(amounts)
        for i in range(len(slots)):
            if i < n and lk.pool_known and view.meter[slots[i]] != amounts[i]:
                c._refresh_meter()
                return
        if view.meter_fault != c._meter_fault():
            c._refresh_meter()

    def totals(self):
        """The linked table's own ledger meters (a dict of TOTAL_NAMES)."""
        c = self.c
        out = {}
        values = c.tablelink.totals
        for i in range(len(TOTAL_NAMES)):
            out[TOTAL_NAMES[i]] = values[i]
        return out

    def _log_commit(self, now_ms):
        taken = self.events[:ev.MAX_EVENTS_PER_COMMIT - 1]
        self.events = self.events[len(taken):]
        events = list(taken)
        counted = 0
        if self.rejects and not self.reject_logged:
            counted = self.rejects
            events.append((ev.LINK_REJECT, self.reject_reason, counted, 0))
        if not self._commit(events):
            # not logged: they wait for the retry, with the rejects counted since
            self.events = taken + self.events
            return
        if counted:
            self.rejects -= counted
            self.reject_logged = True
            self.reject_logged_ms = now_ms

    def _commit(self, events):
        """Commit events with the link section; on failure keep it dirty and retry later."""
        c = self.c
        lk = c.tablelink
        try:
            if c.jackpot is not None:
                c.fit_record(c.jackpot)     # the ledger changed: a round's room after it
        except MemoryError:
            # that room is the next LOCK's to ask (refused without it); this commit needs only
            # its own, and a round in play commits the same ledger whether this one is or not
            pass
        try:
            problem = c.commit_admin(events, {SECTION_LINK: lk.section()})
        except MemoryError as error:
            problem = str(error) or "MemoryError"
        if problem:
            lk.dirty = True
            self.retry = ticks_add(c.now_ms, _RETRY_MS)
            self.retry_wait = True
            return False
        self.retry_wait = False
        lk.saved()
        return True

    def _results(self):
        """Payouts the link controller confirmed: log, commit, then show them."""
        c = self.c
        lk = c.tablelink
        waiting = lk.take_results()
        results = []
        events = []
        for result in waiting:
            mine = []
            for row in result.rows:
                if len(row) == 3:   # a hand the link refused: [seat, hand, why]
                    mine.append((ev.LINK_REFUSED, row[0], ev.clamp(result.round), row[2]))
                else:
                    mine.append((ev.JACKPOT_HIT, row[0], row[1], ev.clamp(row[2])))
            if not result.rows:
                # the controller answered the claim with no payout (a claim its pay table
                # cannot pay): the supervisor must hear of it, the player was not paid
                mine.append((ev.LINK_REFUSED, 0, ev.clamp(result.round), 0))
            if results and len(events) + len(mine) > ev.MAX_EVENTS_PER_COMMIT:
                break  # one commit takes so many events: the rest are logged next pass
            results.append(result)
            events.extend(mine)
        # those not logged now stay in the link's section, committed with these
        lk.results = waiting[len(results):]
        if not self._commit(events):
            lk.results = waiting
            return
        refused = False
        for result in results:
            paid = []
            if not result.rows:
                refused = True
                paid.append("JP NOT PAID")
                title = "JP NOT PAID r%d" % result.round
                c._refuse(title, "link refused it")
                if len(title) > WIDTH:
                    # the display shows 16 columns: the round goes where it is not cut
                    # ("JP NOT PAID r123" for round 1234 would name another round)
                    why = "r%d refused" % result.round
                    c._say("JP NOT PAID", why if len(why) <= WIDTH else "round %d" % result.round)
            for row in result.rows:
                if len(row) == 3:
                    # this hand alone was refused (the round's others are paid): the dealer
                    # sees the seat and the hand, the technician the reason too
                    refused = True
                    title = "JP S%d NOT PAID" % row[0]
                    paid.append(title)
                    name = jpay.NAMES[row[1]]
                    c._refuse(title, "r%d %s: %s" % (result.round, name, _REFUSALS[row[2] - 1]))
                    line = "r%d %s" % (result.round, name)
                    # an earlier round's hand (paid after an outage): its round too, where the
                    # line has room for it
                    c._say(title, line if result.round != c.rec.round_no and len(line) <= WIDTH
                           else name)
                    continue
                line = c._sign_line(c.jackpot.config.pool_for(row[1]))
                new = result.after[line] if line < len(result.after) else 0
                c._show_win(line, row[0], row[2], new)
                paid.extend(paid_lines("JP", row[0], money(row[2])))
                if result.round == c.rec.round_no:
                    c._say("JACKPOT PAID S%d" % row[0], money(row[2]))
                else:
                    # an earlier round's hand (paid after an outage): its player, who may have
                    # left that seat, is paid
                    title = "JP PAID r%d" % result.round
                    c._say(title if len(title) <= WIDTH else title[3:],
                           "S%d %s" % (row[0], money(row[2])))
            if result.round == c.rec.round_no and c.phase == RESULTS:
                # the estimates' lines (a long one's amount on an indented line of its own)
                keep = [line for line in c.results
                        if not line.startswith("JP") and not line.startswith(" ~")]
                c.results = keep + paid
                c.hits = []
        c._beep(BEEP_ERROR if refused else BEEP_JACKPOT)
        c._refresh_meter()

    def clear_mismatch(self):
        """The supervisor has looked into a link mismatch (key + long BACK between rounds):
        the link reconciles again from DOWN, and the clearing is logged (LINK_MISMATCH with
        a = 1, the two sides' wagers as last known)."""
        c = self.c
        lk = c.tablelink
        if lk.state != MISMATCH:
            c._say("Link has no", "mismatch")
            return
        if not c._log_admin(*self._mismatch_event(1)):
            return
        lk.clear_mismatch()
        c._say("Link mismatch", "cleared: syncing")
        c._refresh_meter()

    def resumed_lines(self, round_no):
        """The round's jackpot lines after a power cut, read back from the event log (the
        last two pages hold them): paid (``JP S1 $10001.40``), claimed and not yet answered
        (``JP S1 claimed``), or refused by the link (``JP NOT PAID``).  A payout is logged when
        it arrives, perhaps rounds later, under that round's number: it counts for this round
        only as the answer to a claim this round made (LINK_CLAIM, logged with the round)."""
        log = self.c.memory.log
        paid = []
        claimed = []
        lines = []
        start = max(log.first_available(), log.count - 2 * ev.PAGE_ENTRIES)
        for entry in log.events(start):
            kind, seat = entry[3], entry[4]
            if kind == ev.LINK_CLAIM:
                if entry[2] == round_no and seat not in claimed:
                    claimed.append(seat)
            elif kind == ev.JACKPOT_HIT:
                if seat in claimed and seat not in paid:
                    lines.extend(paid_lines("JP", seat, money(entry[6])))
                    paid.append(seat)
            elif kind == ev.LINK_REFUSED and entry[5] == round_no:
                # a seat's hand refused alone, or the whole claim (seat 0)
                lines.append("JP S%d NOT PAID" % seat if seat else "JP NOT PAID")
                paid.append(seat)
        for seat in claimed:
            if seat not in paid and "JP NOT PAID" not in lines:
                lines.append("JP S%d claimed" % seat)
        return lines

    def mark(self):
        """Where the link's entries stand, for rollback() if the commit that follows fails."""
        c = self.c
        lk = c.tablelink
        return (lk.last_n, list(lk.totals), len(lk.entries), len(lk.awaiting), lk.dirty)

    def rollback(self, mark):
        """Undo an entry the commit did not take (it was never sent: see _held)."""
        c = self.c
        lk = c.tablelink
        lk.last_n = mark[0]
        for i in range(len(mark[1])):
            lk.totals[i] = mark[1][i]
        while len(lk.entries) > mark[2]:
            lk.entries.pop()
        while len(lk.awaiting) > mark[3]:
            lk.awaiting.pop()
        lk.dirty = mark[4]

    def _held(self, method, *args):
        """Make a link entry without sending it: it goes out once its commit is done, so the
        controller never hears of an entry a power cut or a failed commit could still lose."""
        c = self.c
        lk = c.tablelink
        up = lk.transport_up
        lk.transport_up = False
        try:
            return method(*args)
        finally:
            lk.transport_up = up

    def committed(self):
        """After a commit that carried the link section: it is saved, and the link sends its
        unacknowledged entries at its next service."""
        c = self.c
        lk = c.tablelink
        lk.saved()
        lk.last_resend = ticks_add(c.now_ms, -lk.resend_every)

    def round_section(self):
        """The SECTION_LINK_ROUND bytes of this round."""
        c = self.c
        return ("%d %d" % (c.rec.round_no, self.lock_time)).encode()

    def section_bounds(self, sizes, wager):
        """The link's sections (into `sizes`, for RoundController.fit_record) at the most one
        round makes of them: the ledger as it is, plus the entries a round may add
        (tablelink.ROUND_ENTRIES: its contribution, reversals, one hit claim with a row for
        every seat, awaited) and its numbers at their widest, and a payout arriving before the
        poll takes it (one at a time: TableLink.max_results; a round commit may come first); the
        round section with two 32-bit numbers.  (Sized again at each LOCK and each commit of the
        link's own.)"""
        c = self.c
        lk = c.tablelink
        other = _ENTRY + len("%d" % (7 * wager))
        hit = _ENTRY + 1 + c.seats * len("[7,4,%d]," % wager)
        numbers = to_json([lk.sq_floor, lk.down_sq, lk.last_n, lk.acked, lk.totals, lk.pool])
        sizes[SECTION_LINK] = (len(lk.section()) - len(numbers) + _NUMBERS + hit
                               + (ROUND_ENTRIES - 1) * other + _AWAITED
                               + _RESULT + c.seats * _RESULT_ROW)
        sizes[SECTION_LINK_ROUND] = 21

    def lock(self, seats, amount):
        """LOCK on a linked table: the accepted wagers (`seats`, `amount` cents) become a link
        contribution, not a local one (ValueError if the link refuses, or if the heap has no
        room for the record this round's wagers can make: its ledger grows in its commits);
        returns the mark for rollback()."""
        c = self.c
        try:
            c.fit_record(c.jackpot)
        except MemoryError as error:
            if seats:   # (a round without a wager adds nothing to the ledger: it plays on)
                raise ValueError("no heap for the record: %s" % (str(error) or "MemoryError")) from None
        before = self.mark()
        self.lock_time = c.wall
        if seats:
            self._held(c.tablelink.contribute, c.rec.round_no, c.wall, len(seats), amount)
        return before

    def void_round(self):
        """A void round's reversal on the link: (amount reversed, negative cents; the mark)."""
        c = self.c
        before = self.mark()
        live = c.rec.accepted & ~c.rec.voided
        amount = -len(pools.mask_seats(live)) * c.jackpot.config.wager
        if amount:
            self._held(c.tablelink.reverse, c.rec.round_no, self.lock_time, -amount)
        return amount, before

    def void_seat(self):
        """One void seat's wager reversed on the link: (amount, the mark)."""
        c = self.c
        before = self.mark()
        amount = c.jackpot.config.wager
        self._held(c.tablelink.reverse, c.rec.round_no, self.lock_time, amount)
        return amount, before

    def hits(self, flop):
        """Jackpot hits of this round as HIT_FIELDS records with estimated amounts (the link
        controller pays them), in dealing order."""
        c = self.c
        wager = c.jackpot.config.wager
        config = c.jackpot.config
        winners = [[], [], []]
        five_of = {}
        for seat, hole, played in c._jackpot_hands():
            if not played:
                continue
            five = jpay.jackpot_cards(hole, flop)
            hand = jpay.hand_type(hands.best5(five))
            if hand != jpay.NO_HIT and config.pays(hand):
                winners[config.pool_for(hand)].append((seat, hand))
                five_of[seat] = five
        amounts = c.tablelink.amounts()
        active = config.active_slots()
        out = []
        for i in range(len(active)):
            slot = active[i]
            if not winners[slot]:
                continue
            value = amounts[i] if i < len(amounts) else 0
            payouts = hitplan.plan_pool(value, winners[slot], wager, config.odds, config.percent)[0]
            out.extend(hitplan.hit_records(self.lock_time, c.rec.round_no, slot, payouts, five_of))
        return out

    def plan(self, flop):
        """This round's hits as a Plan (estimated amounts: the link controller pays them)."""
        return Plan(self.hits(flop))

    def pay(self, confirmed):
        """Settle a linked round: claim its confirmed hits on the link (paid later by the link
        controller, rules.md 11.10-11.11) in the same commit as the settlement."""
        c = self.c
        flop = c._cards_of(c.rec.board)[:FLOP]
        lk = c.tablelink
        try:
            found = self.hits(flop)
        except ValueError as error:
            c._beep(BEEP_ERROR)
            c._refuse("Cannot settle", error)
            return
        wager = c.jackpot.config.wager
        claims = []
        events = []
        for hit in found:
            claims.append([hit[jm.H_SEAT], hit[jm.H_HAND], wager])
            events.append((ev.LINK_CLAIM, hit[jm.H_SEAT], hit[jm.H_HAND], wager))
        amounts = lk.amounts()
        events.append((ev.SETTLE, c.rec.folded, 0, ev.clamp(sum(amounts))))
        before = self.mark()
        if claims:
            try:
                self._held(lk.hit, c.rec.round_no, self.lock_time, claims)
            except ValueError as error:
                c._beep(BEEP_ERROR)
                c._refuse("Cannot claim", error)
                return
        c._set_phase(RESULTS)
        if not c._commit(critical.STEP_SETTLE, events):
            self.rollback(before)
            c._back_to(CONFIRM if confirmed is None and found else LOCKED)
            return
        self.committed()
        c.hits = found
        c.hits_estimated = True
        c.message = ""
        c._make_results()
        if found:
            c._beep(BEEP_JACKPOT)
            c._say("JACKPOT CLAIMED", "paid by the link")
        c._refresh_meter()


class Plan:
    """A linked round's hits, shaped like the Settlement that Jackpot.preview() gives."""

    def __init__(self, hits):
        self.hits = hits
