"""A linked table's side of the progressive link: a state machine, time passed in.

The table keeps a ledger of numbered entries (contributions taken at "No more bets",
reversals of void rounds, jackpot hits) and sends each to the link controller until the
controller acknowledges it; entries, totals and payouts live in the table's critical memory
(``section()`` / ``TableLink.restore``), so a power cut loses nothing and the controller's
sequence check makes every resend harmless.

Link states::

    DOWN      no valid controller message within _LINK_TIMEOUT, or no broker: jackpot wagering
              closed for the next round, the sign alternates the last amount with LINK dn
    SYNCING   the controller answers; unacknowledged entries are resent and both sides'
              ledger totals are compared (reconciliation); wagering still closed
    UP        reconciled: wagering open, the sign shows the controller's pool
    MISMATCH  the totals disagree in a way a resend cannot fix: closed until a supervisor acts

Driving it: ``service(now_ms, now_s)`` from the main loop (ms ticks and wall-clock seconds);
``on_message(topic, payload)`` is given to the MQTT client (or any transport) and
``send(topic, payload)`` publishes.  After any call, if ``dirty`` is set the caller commits
``section()`` to critical memory and calls ``saved()``.  ``contribute`` must be committed in
the same atomic commit as the round's LOCK record, ``hit`` with the round's settlement.
"""

import json

from firmware.compat import const
from firmware.link import codec

DOWN = const(0)
SYNCING = const(1)
UP = const(2)
MISMATCH = const(3)
STATE_NAMES = ("DOWN", "SYNCING", "UP", "MISMATCH")

_LINK_TIMEOUT = const(4000)  # ms without a valid controller message -> DOWN
_PING_EVERY = const(1000)  # ms between pings (hello while not UP)
_RESEND_EVERY = const(1000)  # ms between resends of unacknowledged entries
_RESEND_BATCH = const(8)
_SIGN_PHASE = const(1000)  # ms each of amount / fault text on the sign
_MAX_PENDING = const(32)  # unacknowledged entries kept
_NO_PAYS = "no pay table from the link yet (an older link controller sends none)"
DEALER_NO_PAYS = "LINK NO PAYTABLE"  # its words on the dealer display (16 characters)
# entries one locked round makes at most (its contribution, then a void per seat, the last a
# void or a claim instead): wagering closes while fewer are free, so none is refused for room
ROUND_ENTRIES = const(8)
_MAX_RESULTS = const(16)
MAX_SKEW = const(300)  # s between a message's clock and ours before it is stale
_SEQ_LEASE = const(1024)
_SECTION_VERSION = const(1)

# What an 8-digit 7-segment meter line can show (firmware/drivers/meter_sign.py has no W).
SIGN_LINK_DOWN = "LINK dn"
SIGN_LINK_ERROR = "LINK Err"

# Event-log codes handed to log(code, text).
EV_DOWN = "link down"
EV_UP = "link up"
EV_SYNC = "link reconciling"
EV_MISMATCH = "link mismatch"
EV_REJECT = "link reject"
EV_PAID = "link hit paid"

SECTION = "link"  # name of the link's section in the critical-memory record

TOPIC_UP = "jackpot/link/%d/up"
TOPIC_DOWN = "jackpot/link/%d/down"


# What differs, by codec.compare_totals's answer
_DIFFER = (None, "totals differ", "payouts differ", "controller paid hits the table never claimed")


def _section_state(data):
    """The parsed state of section() bytes, or None when they are not a version-1 link state."""
    try:
        s = json.loads(data)
    except (ValueError, TypeError):
        return None
    if isinstance(s, list) and len(s) == 11 and s[0] == _SECTION_VERSION:
        return s
    return None


def section_ok(data):
    """True when data (bytes or None) is a link section TableLink.restore can read."""
    return data is not None and _section_state(data) is not None


def _ticks_diff(later, earlier):
    return ((later - earlier + 0x20000000) & 0x3FFFFFFF) - 0x20000000


class Result:
    """A confirmed jackpot payout for one hit entry: rows are [seat, hand, amount, funded],
    or [seat, hand, why] for a hand the link refused (codec.REFUSED_*), paid nothing."""

    def __init__(self, entry, round_no, rows, before, after):
        self.entry = entry
        self.round = round_no
        self.rows = rows
        self.before = before
        self.after = after

    def total(self):
        t = 0
        for row in self.rows:
            if len(row) == 4:
                t += row[2]
        return t

    def hits(self):
        """How many hands were paid (a refused one is no hit on either ledger)."""
        n = 0
        for row in self.rows:
            if len(row) == 4:
                n += 1
        return n


class TableLink:
    """The table's link state machine (see the module docstring)."""

    def __init__(self, table, key, send, log=None):
        if not isinstance(table, int) or isinstance(table, bool) or table < 1 or table > codec.MAX_TABLE:
            raise ValueError("link table number %r is not 1..%d" % (table, codec.MAX_TABLE))
        self.table = table
        self.key = codec.hmac256.check_key(key)
        self.send = send
        self.log = log
        self.topic_up = TOPIC_UP % table
        self.topic_down = TOPIC_DOWN % table
        self.state = DOWN
        self.transport_up = False
        self.sq = 1
        self.sq_floor = _SEQ_LEASE
        # the lease in critical memory as the caller last committed it (saved()): no number
        # at or above it is sent, since a restart could use it again
        self.saved_floor = _SEQ_LEASE
        self.down_sq = 0
        self.down_window = 0
        self.last_n = 0  # number of the last entry created
        self.acked = 0  # highest entry the controller has applied
        self.entries = []  # unacknowledged entries: [n, e, round, lock_time, amount, count, hits]
        self.totals = [0, 0, 0, 0, 0]
        self.awaiting = []  # [n, round] of hits not yet paid by the controller
        self.results = []  # Result objects not yet taken by the round controller
        # how many may wait (more are dropped, asked for again): a linked table's round
        # controller keeps room in its record for one (firmware.table.linked.section_bounds)
        self.max_results = _MAX_RESULTS
        self.pool = [0]
        self.pool_known = False
        self.remote = None  # controller's last totals
        self.wager = None  # this table's jackpot wager (cents), checked against the link's
        self.pools = None  # how many pools this table's sign shows (2: split), checked likewise
        # this table's pay table (odds, then percent, per hand type: codec PAYS) and the link's
        # as last heard since the link went down: not UP before they are compared
        self.paytable = None
        self.link_pays = None
        self.heard = 0
        self.last_ping = 0
        self.last_resend = 0
        self.started = False
        # a new link's sequence lease is committed at once: numbers sent before it is would
        # be used again after a power cut, and refused as replayed
        self.dirty = True
        self.rejects = {}
        self.now_s = None
        self.mismatch_text = ""
        # timing (ms); the defaults are the module constants, tests may shorten them
        self.link_timeout = _LINK_TIMEOUT
        self.ping_every = _PING_EVERY
        self.resend_every = _RESEND_EVERY

    # -- what the round controller asks ------------------------------------------------------

    def wagers_open(self):
        """True when the next round may accept jackpot wagers (link UP and room for all its
        entries, so that its voids and its claim are never refused for room)."""
        return self.state == UP and self.pool_known and len(self.entries) <= _MAX_PENDING - ROUND_ENTRIES

    def fault_text(self):
        """The text the meter sign alternates with the last amount ("" while UP)."""
        if self.state == UP:
            return ""
        return SIGN_LINK_ERROR if self.state == MISMATCH else SIGN_LINK_DOWN

    def dealer_text(self):
        """What the dealer display says of why the link keeps the jackpot closed ("" for
        nothing): a link controller older than the pay-table check keeps the table SYNCING."""
        if self.state == SYNCING and self.mismatch_text == _NO_PAYS:
            return DEALER_NO_PAYS
        return ""

    def sign_text(self, now):
        """None when the meter sign shows the amount now, else the fault text for this phase."""
        if self.state == UP or (now // _SIGN_PHASE) & 1 == 0:
            return None
        return self.fault_text()

    def amounts(self):
        """Last pool amounts (cents) received from the controller, one per pool."""
        return self.pool

    def state_name(self):
        return STATE_NAMES[self.state]

    def take_results(self):
        """Return and forget confirmed payouts (the caller commits section() afterwards)."""
        out = self.results
        if out:
            self.results = []
            self.dirty = True
        return out

    # -- ledger entries ----------------------------------------------------------------------

    def _entry(self, e, round_no, lock_time, amount, count, hits):
        if len(self.entries) >= _MAX_PENDING:
            raise ValueError("link queue full: %d entries not acknowledged by the controller"
                             % len(self.entries))
        row = [self.last_n + 1, e, round_no, lock_time, amount, count, hits]
        # validate by encoding once; ValueError names the bad field and changes nothing
        codec.encode(self.key, codec.ENTRY, self.table, 1, 0, row)
        self.last_n += 1
        self.entries.append(row)
        self.dirty = True
        return row

    def contribute(self, round_no, lock_time, count, amount):
        """Record jackpot wagers accepted at LOCK (count wagers, amount cents); returns entry n."""
        if count < 1 or amount < 1:
            raise ValueError("contribution needs at least one wager, got count %r amount %r"
                             % (count, amount))
        row = self._entry(codec.CONTRIBUTION, round_no, lock_time, amount, count, [])
        self.totals[codec.T_WAGERS] += amount
        self.totals[codec.T_COUNT] += count
        self._send_entry(row)
        return row[0]

    def reverse(self, round_no, lock_time, amount):
        """Reverse a void round's contribution (amount cents of wagers); returns entry n."""
        if amount < 1:
            raise ValueError("reversal amount %r must be positive" % (amount,))
        row = self._entry(codec.REVERSAL, round_no, lock_time, amount, 0, [])
        self.totals[codec.T_REVERSED] += amount
        self._send_entry(row)
        return row[0]

    def hit(self, round_no, lock_time, hits):
        """Claim confirmed jackpot hits of one round: hits = [[seat, hand type, wager], ...].

        The payout arrives later as a Result (take_results); until then the hit stays queued
        in critical memory, across link outages and power cuts.
        """
        rows = []
        for h in hits:
            rows.append([h[0], h[1], h[2]])
        row = self._entry(codec.HIT, round_no, lock_time, 0, 0, rows)
        self.awaiting.append([row[0], round_no])
        self._send_entry(row)
        return row[0]

    # -- sending ------------------------------------------------------------------------------

    def _next_seq(self):
        seq = self.sq
        self.sq += 1
        if self.sq_floor - self.sq < _SEQ_LEASE // 2:
            self.sq_floor += _SEQ_LEASE
            self.dirty = True
        return seq

    def _publish(self, kind, values):
        if not self.transport_up or self.sq >= self.saved_floor:
            return False    # (past the committed lease: silent until the renewal is saved)
        payload = codec.encode(self.key, kind, self.table, self._next_seq(), self.now_s or 0, values)
        return self.send(self.topic_up, payload)

    def _send_entry(self, row):
        self._publish(codec.ENTRY, row)

    def _ping(self, now):
        self.last_ping = now
        wait = [a[0] for a in self.awaiting[:codec.MAX_WAIT]]
        if self.state == UP:
            self._publish(codec.PING, [self.last_n, wait])
        else:
            if self.paytable is not None and self.link_pays is None:
                # first: the link's answer (its own) comes before the status that may reconcile
                self._publish(codec.PAYS, [self.paytable])
            self._publish(codec.HELLO, [self.last_n, list(self.totals), wait])

    # -- time ---------------------------------------------------------------------------------

    def service(self, now, now_s=None, transport_up=True):
        """Advance timers: link timeout, pings, resends.  now: ms ticks; now_s: wall seconds."""
        self.now_s = now_s
        was = self.transport_up
        self.transport_up = transport_up
        if not self.started:
            self.started = True
            self.heard = now
            self.last_ping = now - self.ping_every
            self.last_resend = now
        if not transport_up:
            if was or self.state != DOWN:
                self._down("no broker connection")
            return self.state
        if not was:
            self.last_ping = now - self.ping_every  # say hello as soon as the broker is back
        if self.state != DOWN and _ticks_diff(now, self.heard) > self.link_timeout:
            self._down("controller silent for %d ms" % _ticks_diff(now, self.heard))
        if _ticks_diff(now, self.last_ping) >= self.ping_every:
            self._ping(now)
        if self.entries and self.state != DOWN and _ticks_diff(now, self.last_resend) >= self.resend_every:
            self.last_resend = now
            for row in self.entries[:_RESEND_BATCH]:
                self._send_entry(row)
        return self.state

    def _down(self, why):
        if self.state != DOWN:
            self._log(EV_DOWN, why)
        self.state = DOWN
        self.link_pays = None   # asked again: the link may come back with another ledger

    def _log(self, code, text):
        if self.log is not None:
            self.log(code, text)

    # -- receiving ----------------------------------------------------------------------------

    def on_message(self, topic, payload, now):
        """Authenticate and apply one controller message; rejects are logged and counted."""
        if topic != self.topic_down:
            return False
        try:
            msg = codec.decode(self.key, payload, codec.DOWN_KINDS)
            if msg.table != self.table:
                raise codec.LinkError(codec.MALFORMED, "message for table %d on table %d's topic"
                                      % (msg.table, self.table))
            if self.now_s is not None and abs(msg.ts - self.now_s) > MAX_SKEW:
                raise codec.LinkError(codec.STALE, "sent at %d, now %d" % (msg.ts, self.now_s))
            ok, top, window = codec.replay_check(msg.seq, self.down_sq, self.down_window)
            if not ok:
                raise codec.LinkError(codec.REPLAYED, "sequence %d already seen or too old (latest %d)"
                                      % (msg.seq, self.down_sq))
        except codec.LinkError as error:
            self.rejects[error.reason] = self.rejects.get(error.reason, 0) + 1
            self._log(EV_REJECT, str(error))
            return False
        late = msg.seq < self.down_sq  # reordered: a newer message was applied already
        self.down_sq = top
        self.down_window = window
        self.heard = now
        if msg.kind == codec.PAID:
            self._paid(msg)
        elif msg.kind == codec.PAYS:
            self.link_pays = msg.get("pt")  # compared at the next status
        elif not late:
            self._status(msg, now)  # a late status is older news than the last one: skipped
        return True

    def _status(self, msg, now):
        n = msg.get("n")
        tot = msg.get("tot")
        pool = msg.get("pool")
        if self.pools is None or len(pool) == self.pools:
            # (other pools than the table's are none of its: never shown as its own, below)
            self.pool = list(pool)
            self.pool_known = True
        self.remote = tot
        if n > self.last_n:
            self._mismatch("controller applied entry %d, table made only %d" % (n, self.last_n))
            return
        if n < self.acked:
            self._mismatch("controller lost entries: it had applied %d, now says %d" % (self.acked, n))
            return
        if n > self.acked:
            self.acked = n
            keep = []
            for row in self.entries:
                if row[0] > n:
                    keep.append(row)
            self.entries = keep
            self.dirty = True
        if self.state == DOWN:
            self.state = SYNCING
            self._log(EV_SYNC, "controller heard; %d entries to confirm" % len(self.entries))
            self.last_resend = now - self.resend_every  # resend at once
        if self.wager is not None and msg.get("w") != self.wager:
            # the link pays claims at its own wager only: every claim would be refused
            self._mismatch("jackpot wager differs: table %d, link %d cents" % (self.wager, msg.get("w")))
            return
        if self.pools is not None and len(pool) != self.pools:
            # the sign would show one pool's amount as another's, or 0.00 for a pool
            self._mismatch("pools differ: table %d, link %d" % (self.pools, len(pool)))
            return
        if self.paytable is not None and self.link_pays != self.paytable:
            if self.link_pays is not None:
                # a hand one side pays and the other does not, or at other odds: the link
                # would refuse or pay other amounts than the table shows
                self._mismatch(codec.pays_differ(self.paytable, self.link_pays))
            # not heard yet: asked with every hello.  Said, as a controller older than the
            # table sends none and keeps the table here (docs/link.md: update it first)
            if self.state != MISMATCH:
                self.mismatch_text = _NO_PAYS
            return
        if n < self.last_n:
            return  # still resending; compare when every entry is applied
        t = self.totals
        found = codec.compare_totals(t, tot, self.awaiting)
        if found == codec.PAYOUT_COMING:
            return  # a payout is on its way; pings name the hits still awaited
        if found != codec.AGREE:
            self._mismatch(_DIFFER[found] + ": table %r, controller %r" % (t, tot))
            return
        if self.state == SYNCING:
            self.state = UP
            self.mismatch_text = ""
            self._log(EV_UP, "reconciled: %d entries, wagers %d, paid %d"
                      % (self.last_n, t[codec.T_WAGERS], t[codec.T_PAID]))

    def clear_mismatch(self):
        """Supervisor action after a mismatch was investigated: reconcile again from DOWN."""
        if self.state == MISMATCH:
            self.state = DOWN
            self.mismatch_text = ""
            self.link_pays = None

    def _mismatch(self, text):
        if self.state != MISMATCH:
            self.mismatch_text = text
            self._log(EV_MISMATCH, text)
        self.state = MISMATCH

    def _paid(self, msg):
        n = msg.get("n")
        at = -1
        for i in range(len(self.awaiting)):
            if self.awaiting[i][0] == n:
                at = i
        if at < 0:
            return  # already recorded (a repeated answer to a ping)
        if len(self.results) >= self.max_results:
            return  # the round controller has not taken earlier ones yet; asked again later
        round_no = self.awaiting[at][1]
        self.awaiting.pop(at)
        result = Result(n, round_no, msg.get("pay"), msg.get("pb"), msg.get("pa"))
        self.results.append(result)
        self.totals[codec.T_PAID] += result.total()
        self.totals[codec.T_HITS] += result.hits()
        if self.pools is None or len(result.after) == self.pools:
            self.pool = list(result.after)
        self.dirty = True
        self._log(EV_PAID, "entry %d round %d paid %d" % (n, round_no, result.total()))

    # -- critical memory ----------------------------------------------------------------------

    def section(self):
        """The link's critical-memory section (bytes): everything that must survive a power cut."""
        results = []
        for r in self.results:
            results.append([r.entry, r.round, r.rows, r.before, r.after])
        state = [_SECTION_VERSION, self.sq_floor, self.down_sq, self.last_n, self.acked,
                 self.totals, self.entries, self.awaiting, results, self.pool,
                 1 if self.pool_known else 0]
        return codec.to_json(state).encode()

    def saved(self):
        """The caller has committed section(): clear the dirty flag."""
        self.dirty = False
        self.saved_floor = self.sq_floor

    @classmethod
    def restore(cls, table, key, send, data, log=None):
        """A TableLink rebuilt from section() bytes; ValueError if they are not a valid section."""
        link = cls(table, key, send, log)
        s = _section_state(data)
        if s is None:
            raise ValueError("link section is not a version %d link state" % _SECTION_VERSION)
        link.sq_floor = s[1]
        link.sq = s[1]  # messages sent before the cut used numbers below the saved lease
        link.sq_floor = s[1] + _SEQ_LEASE
        # the committed lease is still s[1]: nothing is sent until the renewal is saved (at the
        # first poll: dirty, below), or a cut before it would send these numbers again
        link.saved_floor = s[1]
        link.down_sq = s[2]
        link.last_n = s[3]
        link.acked = s[4]
        link.totals = s[5]
        link.entries = s[6]
        link.awaiting = s[7]
        for r in s[8]:
            link.results.append(Result(r[0], r[1], r[2], r[3], r[4]))
        link.pool = s[9]
        link.pool_known = s[10] == 1
        link.dirty = True  # the new lease must be committed before much is sent
        return link
