"""The link controller: the authoritative linked pool for many tables, over MQTT, in SQLite.

Run it::

    python -m tools.link_controller --db link.db --keys keys.json --port 1883

``keys.json`` maps table numbers to their hex keys (``{"1": "00ff..", ...}``; at least 16
bytes each).  Every table entry (contribution, reversal, hit) is applied exactly once, in the
table's numbering, in one SQLite transaction with the pool, so a crash at any instant
(SIGKILL included) leaves the entry applied or not, and the table's resend finishes the job.
Jackpot hits wait ``--order-window`` ms, then every waiting hit is paid in the order the
rounds were locked, then by arrival (rules.md 11.11), each round by 11.10.  The pool goes to
every table after each change (at most every ``--broadcast`` ms) and in reply to its pings.
docs/link.md documents topics, payloads and failure behaviour.
"""

import argparse
import json
import os
import select
import signal
import sqlite3
import sys
import time

from firmware.jackpot import config as cfg
from firmware.link import codec, hmac256, mqtt
from firmware.link.tablelink import MAX_SKEW, TOPIC_DOWN, TOPIC_UP
from tools.link_pool import LinkedPool

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    tb INTEGER PRIMARY KEY, last_n INTEGER NOT NULL, wagers INTEGER NOT NULL,
    count INTEGER NOT NULL, reversed INTEGER NOT NULL, paid INTEGER NOT NULL,
    hits INTEGER NOT NULL, up_top INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    tb INTEGER NOT NULL, n INTEGER NOT NULL, kind INTEGER NOT NULL, round INTEGER NOT NULL,
    lock_time INTEGER NOT NULL, amount INTEGER NOT NULL, count INTEGER NOT NULL,
    body TEXT NOT NULL, applied_at REAL NOT NULL, PRIMARY KEY (tb, n));
CREATE TABLE IF NOT EXISTS hits (
    tb INTEGER NOT NULL, n INTEGER NOT NULL, round INTEGER NOT NULL,
    lock_time INTEGER NOT NULL, arrival INTEGER NOT NULL, rows TEXT NOT NULL,
    status TEXT NOT NULL, paid_order INTEGER, result TEXT, paid_at REAL,
    PRIMARY KEY (tb, n));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, tb INTEGER, kind TEXT NOT NULL,
    text TEXT NOT NULL);
"""

# the tables of a ledger (retired: tools/link_reenrol.py); a file with any other is not one
LEDGER_TABLES = ("meta", "tables", "entries", "hits", "events", "sqlite_sequence", "retired")
DOWN_LEASE = 1024  # down-link sequence numbers reserved per write of the floor (one second of clock)
SEQ_PER_SECOND = 1024
ORDER_WINDOW = 1000  # ms a hit waits for earlier-locked hits from other tables
MAX_MS = 3600000  # the longest --order-window, --broadcast or --commit-delay (one hour)
BROADCAST_EVERY = 1000  # ms between pool broadcasts while the pool changes (hits go out at once)
MAX_EVENTS_KEPT = 100000  # the newest events kept when rejects are pruned
_PRUNE_EVERY = 1000        # rejects between two prunes


def now_ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


# What a table's hello shows differs, by codec.compare_totals's answer (as the table says it)
_DIFFER = {codec.TOTALS_DIFFER: "", codec.PAYOUTS_DIFFER: "payouts differ: ",
           codec.UNCLAIMED_PAID: "ledger paid hits the table never claimed: "}


class _Pairs(list):
    """A JSON object's (name, value) pairs in file order, repeats kept."""


def load_keys(path):
    """{table: key bytes} from a JSON file of {"table": "hex key"}; ValueError names a bad line."""
    with open(path) as f:
        # the pairs as written: a table given twice must not lose one of its keys unseen
        raw = json.load(f, object_pairs_hook=_Pairs)
    if not isinstance(raw, _Pairs) or not raw:
        raise ValueError("%s: expected a JSON object of table number -> hex key" % path)
    keys = {}
    for name, text in raw:
        try:
            table = int(name)
            key = bytes.fromhex(text)
        except (TypeError, ValueError) as error:
            raise ValueError("%s: table %r: %s" % (path, name, error)) from error
        if table < 1 or table > codec.MAX_TABLE:
            raise ValueError("%s: table %r is not 1..%d" % (path, name, codec.MAX_TABLE))
        if table in keys:
            # "1" and "01" (or " 1") are the same table: which key would win is not for JSON
            # order to decide
            raise ValueError("%s: table %r is given twice" % (path, name))
        keys[table] = hmac256.check_key(key)
    return keys


class LedgerBusy(RuntimeError):
    """Another process holds the ledger's lock: a running link controller, or a re-enrolment."""


def lock_ledger(db_path):
    """Hold the ledger's lock file (``<db>.lock``, holding the holder's process id) for as long
    as the returned file stays open; LedgerBusy names the process that holds it.  The lock is
    the kernel's (flock): it ends with its process however that ends (SIGKILL, power cut), so
    a file left behind never blocks anything."""
    import fcntl

    f = open(db_path + ".lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read(20).strip() or "?"
        f.close()
        raise LedgerBusy("the ledger %s is in use by process %s (a link controller, or a "
                         "re-enrolment; %s.lock)" % (db_path, holder, db_path)) from None
    f.truncate(0)
    f.write("%d\n" % os.getpid())
    f.flush()
    return f



def sent(amounts):
    """Pool amounts as a message carries them: the link's money fields are 30-bit
    (codec.MAX_MONEY, $10,737,418.23), so a larger pool is sent at that, as the tables' 8-digit
    signs show it anyway; the ledger keeps the true value.  (A pool without a ceiling that
    grew past it made every status fail to encode and stopped the controller at each start.)"""
    return [min(a, codec.MAX_MONEY) for a in amounts]

class Controller:
    """Message handling and the SQLite ledger; transport and clocks are passed in.

    publish(topic, payload) sends; clock_s() gives wall seconds; service(now) and
    on_message(topic, payload, now) take ms ticks.
    """

    def __init__(self, db_path, keys, publish, clock_s=time.time, config=None,
                 order_window=ORDER_WINDOW, broadcast_every=BROADCAST_EVERY, commit_delay=0.0,
                 log=None):
        self.keys = dict(keys)
        self.publish = publish
        self.clock_s = clock_s
        self.order_window = order_window
        self.broadcast_every = broadcast_every
        self.commit_delay = commit_delay
        self.log_line = log
        self.db = sqlite3.connect(db_path, isolation_level=None)
        foreign = [name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type="
                                                        "'table'") if name not in LEDGER_TABLES]
        if foreign:     # a wrong --db: another program's file gets no ledger written into it
            self.db.close()
            raise ValueError("not a link controller's ledger (it has tables %s)" % ", ".join(foreign))
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.rejects = {}
        self.windows = {}  # table -> (top, bitmask) of accepted up-link sequence numbers
        self.down_seq = {}
        self.due = {}  # (tb, n) -> ms tick when the hit may be paid
        self.mismatches = {}  # table -> the disagreement last logged for it (None: agrees)
        self.pay_mismatches = {}  # table -> its pay table's difference last logged, likewise
        self.pool_dirty = True
        self.last_broadcast = None
        self.hold_until = None  # ms tick before which the waiting hits cannot be paid (_pay_waiting)
        self.applied = 0
        self.outbox = None
        self._load(config)

    # ------------------------------------------------------------------ state

    def _meta(self, name, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE name=?", (name,)).fetchone()
        return default if row is None else row[0]

    def _load(self, config):
        stored = self._meta("config")
        if stored is None and self.db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]:
            raise ValueError("it has entries but no configuration (meta 'config')")
        for name in ("pool", "down_floor", "arrival") if stored is not None else ():
            if self._meta(name) is None:
                raise ValueError("it has no %r (meta)" % name)
        if stored is None:
            self.config = cfg.build(config or {})
            pool = LinkedPool(self.config)
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(self.config.as_dict()),))
            self.db.execute("INSERT INTO meta VALUES ('pool', ?)", (json.dumps(pool.to_dict()),))
            self.db.execute("INSERT INTO meta VALUES ('down_floor', '0')")
            self.db.execute("INSERT INTO meta VALUES ('arrival', '0')")
            self._event(None, "start", "new ledger, pool %r" % pool.amounts())
            self.db.execute("COMMIT")
        else:
            self.config = cfg.build(json.loads(stored))
            if config is not None and cfg.diff(self.config, cfg.build(config)):
                raise ValueError("the ledger's configuration differs from the one given")
        self.pool = LinkedPool.from_dict(self.config, json.loads(self._meta("pool")))
        # Numbers also start above clock seconds x 1024, so a ledger restored from a backup (whose
        # stored lease is behind) still sends numbers the tables have not seen, as long as no
        # table was sent more than 1,024 messages a second.
        base = max(int(self._meta("down_floor")) + 1, int(self.clock_s()) * SEQ_PER_SECOND)
        self.db.execute("UPDATE meta SET value=? WHERE name='down_floor'", (str(base + DOWN_LEASE),))
        self.down_floor = base + DOWN_LEASE
        for table in self.keys:
            self.down_seq[table] = base
            if self._row(table) is None:
                self.db.execute("INSERT INTO tables VALUES (?,0,0,0,0,0,0,0)", (table,))
            self.windows[table] = (self._row(table)["up_top"], 0)
        self.arrival = int(self._meta("arrival"))
        # tables that sent their pay table (pays): their firmware takes a paid's refused rows
        self.pays_tables = set(json.loads(self._meta("pays_tables", "[]")))
        start = now_ms()
        for tb, n in self.db.execute("SELECT tb, n FROM hits WHERE status='pending'"):
            self.due[(tb, n)] = start + self.order_window
        self._say("controller up: %d tables, pool %r, %d hits waiting"
                  % (len(self.keys), self.pool.amounts(), len(self.due)))

    def _row(self, table):
        cur = self.db.execute("SELECT tb,last_n,wagers,count,reversed,paid,hits,up_top FROM tables "
                              "WHERE tb=?", (table,))
        r = cur.fetchone()
        if r is None:
            return None
        return dict(zip(("tb", "last_n", "wagers", "count", "reversed", "paid", "hits", "up_top"), r))

    def totals(self, table):
        """The controller's ledger totals for a table, in the order of codec.T_*."""
        r = self._row(table)
        return [r["wagers"], r["count"], r["reversed"], r["paid"], r["hits"]]

    def _event(self, table, kind, text):
        self.db.execute("INSERT INTO events (at, tb, kind, text) VALUES (?,?,?,?)",
                        (time.time(), table, kind, text))

    def _say(self, text):
        if self.log_line:
            self.log_line(text)

    # ------------------------------------------------------------------ sending

    def _send(self, table, kind, values):
        seq = self.down_seq[table]
        self.down_seq[table] = seq + 1
        if seq + 1 >= self.down_floor:
            self.down_floor += DOWN_LEASE
            self.db.execute("UPDATE meta SET value=? WHERE name='down_floor'", (str(self.down_floor),))
        payload = codec.encode(self.keys[table], kind, table, seq, int(self.clock_s()), values)
        if self.outbox is not None:
            self.outbox.append((TOPIC_DOWN % table, payload))
        else:
            self.publish(TOPIC_DOWN % table, payload)

    def send_status(self, table):
        r = self._row(table)
        self._send(table, codec.STATUS, [r["last_n"], self.totals(table), sent(self.pool.amounts()),
                                         self.config.wager])

    def broadcast(self, now):
        for table in sorted(self.keys):
            self.send_status(table)
        self.last_broadcast = now
        self.pool_dirty = False

    def _send_paid(self, table, n):
        if table not in self.keys:
            return False  # taken off keys.json with a hit waiting: paid in the ledger, not sent
        row = self.db.execute("SELECT status, result FROM hits WHERE tb=? AND n=?", (table, n)).fetchone()
        if row is None or row[0] != "paid":
            return False
        result = json.loads(row[1])
        # a table before the refused rows (which came with pays) rejects a paid with them as
        # malformed and would keep the round's paid hands unpaid: it is sent those alone
        refused = result.get("refused", []) if table in self.pays_tables else []
        self._send(table, codec.PAID, [n, result["rows"] + refused,
                                       sent(result["before"]), sent(result["after"])])
        return True

    # ------------------------------------------------------------------ receiving

    def reject(self, table, reason, text):
        self.rejects[reason] = self.rejects.get(reason, 0) + 1
        self._event(table, "reject " + reason, text)
        if sum(self.rejects.values()) % _PRUNE_EVERY == 0:
            # a flood of forged messages must not fill the disk: the oldest rejects go, the
            # money's records (entries, hits, payments) and every other event stay
            self.db.execute("DELETE FROM events WHERE kind LIKE 'reject %' AND id <= "
                            "(SELECT MAX(id) FROM events) - ?", (MAX_EVENTS_KEPT,))
        self._say("reject from table %s: %s: %s" % (table, reason, text))

    def on_message(self, topic, payload, now):
        """Authenticate and apply one table message; returns True if it was accepted."""
        return self.handle([(topic, payload)], now)[0]

    def handle(self, messages, now):
        """Apply a batch of (topic, payload) in one SQLite transaction (group commit).

        Replies (acknowledgements) are published only after the COMMIT, so a table never
        hears of an entry that a crash could still lose.  Returns one accepted flag per message.
        """
        self.outbox = []
        self.db.execute("BEGIN IMMEDIATE")
        try:
            accepted = [self._on_message(topic, payload, now) for topic, payload in messages]
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            self.outbox = None
            self._reload()
            raise
        out, self.outbox = self.outbox, None
        for topic, payload in out:
            self.publish(topic, payload)
        return accepted

    def _reload(self):
        """Forget what a rolled-back batch did in memory: pool, arrival counter, due hits, the
        tables heard to send their pay table."""
        self.pool = LinkedPool.from_dict(self.config, json.loads(self._meta("pool")))
        self.arrival = int(self._meta("arrival"))
        self.pays_tables = set(json.loads(self._meta("pays_tables", "[]")))
        pending = set(self.db.execute("SELECT tb, n FROM hits WHERE status='pending'").fetchall())
        self.due = {k: v for k, v in self.due.items() if k in pending}

    def _on_message(self, topic, payload, now):
        parts = topic.split("/")
        # the table number the topic names, if it is one a table can have (1..MAX_TABLE): any
        # other is refused before it goes anywhere near the database
        table = None
        # ASCII digits only: str.isdigit() also takes '²', which int() refuses
        if len(parts) == 4 and 0 < len(parts[2]) <= 4 and all(ch in "0123456789" for ch in parts[2]):
            table = int(parts[2])
            if not 1 <= table <= codec.MAX_TABLE or TOPIC_UP % table != topic:
                table = None
        try:
            if table is None:
                raise codec.LinkError(codec.MALFORMED, "topic %r is not a table's up topic"
                                      % topic[:80])
            claimed = codec.peek_table(payload)
            if claimed != table:
                raise codec.LinkError(codec.MALFORMED, "table %d's message on table %d's topic"
                                      % (claimed, table))
            if table not in self.keys:
                raise codec.LinkError(codec.UNKNOWN_TABLE, "table %d has no key here" % table)
            msg = codec.decode(self.keys[table], payload, codec.UP_KINDS)
            if abs(msg.ts - self.clock_s()) > MAX_SKEW:
                raise codec.LinkError(codec.STALE, "sent at %d, now %d" % (msg.ts, self.clock_s()))
            top, window = self.windows[table]
            ok, top, window = codec.replay_check(msg.seq, top, window)
            if not ok:
                raise codec.LinkError(codec.REPLAYED, "sequence %d already seen or too old (latest %d)"
                                      % (msg.seq, top))
        except codec.LinkError as error:
            self.reject(table, error.reason, error.text)
            return False
        except (ValueError, UnicodeError) as error:
            self.reject(None, codec.MALFORMED, "topic or payload unreadable: %s" % error)
            return False
        self.windows[table] = (top, window)
        if msg.kind == codec.PAYS:
            if table not in self.pays_tables:
                self.pays_tables.add(table)
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('pays_tables', ?)",
                                (json.dumps(sorted(self.pays_tables)),))
            self._compare_pays(table, msg.get("pt"))
            self._send(table, codec.PAYS, [self.pays()])    # the table compares it too
            return True
        if msg.kind == codec.ENTRY:
            self._entry(table, msg, now)
        elif msg.kind == codec.HELLO:
            self._compare(table, msg.get("n"), msg.get("tot"), msg.get("hw"))
        # the payouts the table still waits for, then the status: each paid message carries the
        # pool as it was after that payment, so the status, with the pool now, must come last
        for n in msg.get("hw") if msg.kind != codec.ENTRY else ():
            self._send_paid(table, n)
        if msg.kind != codec.ENTRY:
            self.send_status(table)
        return True

    def _compare(self, table, n, tot, waiting):
        """A table's hello against the ledger, as the table compares the ledger's status with
        its own (TableLink._status): a disagreement is logged as a `mismatch` event with both
        sides' figures, once until it changes or ends (a table in MISMATCH says hello every
        second)."""
        last_n = self._row(table)["last_n"]
        mine = self.totals(table)
        text = None
        if last_n > n:
            text = "ledger applied entry %d, the table made only %d" % (last_n, n)
        elif n > last_n:
            pass  # entries on their way: compared when they are applied
        else:
            found = codec.compare_totals(tot, mine, waiting)
            if found in _DIFFER:
                text = _DIFFER[found] + "table totals %r, ledger %r" % (tot, mine)
        if text is not None and self.mismatches.get(table) != text:
            self._event(table, "mismatch", text)
        self.mismatches[table] = text

    def pays(self):
        """The linked pay table as a pays message carries it: odds, then percent, per hand."""
        return list(self.config.odds) + list(self.config.percent)

    def _compare_pays(self, table, theirs):
        """A table's pay table against the link's: a difference is logged as a `mismatch`
        event (the table closes its jackpot wagering on it), once until it changes or ends."""
        text = codec.pays_differ(theirs, self.pays()) or None
        if text is not None and self.pay_mismatches.get(table) != text:
            self._event(table, "mismatch", text)
            self._say("mismatch at table %d: %s" % (table, text))
        self.pay_mismatches[table] = text

    def _entry(self, table, msg, now):
        f = msg.fields
        n = f["n"]
        row = self._row(table)
        if n <= row["last_n"]:
            stored = self.db.execute("SELECT body FROM entries WHERE tb=? AND n=?", (table, n)).fetchone()
            body = self._body(f)
            if stored is not None and stored[0] != body:
                self._event(table, "conflict", "entry %d resent with different contents" % n)
            self.send_status(table)  # the ack was lost: say it again
            return
        if n > row["last_n"] + 1:
            self.send_status(table)  # a gap: the table resends from last_n + 1
            return
        self._apply(table, row, f, now)
        self.send_status(table)
        self.pool_dirty = True

    @staticmethod
    def _body(f):
        return json.dumps([f["e"], f["r"], f["lt"], f["a"], f["c"], f["h"]])

    def _apply(self, table, row, f, now):
        """Apply entry last_n + 1 of a table: ledger, pool and entry row, inside handle()'s
        transaction (a rollback reloads the pool from the database)."""
        pool = self.pool
        e = f["e"]
        row = dict(row)
        if e == codec.CONTRIBUTION:
            pool.contribute(f["a"], f["c"])
            row["wagers"] += f["a"]
            row["count"] += f["c"]
        elif e == codec.REVERSAL:
            pool.reverse(f["a"])
            row["reversed"] += f["a"]
        row["last_n"] = f["n"]
        row["up_top"] = self.windows[table][0]
        self.db.execute("INSERT INTO entries VALUES (?,?,?,?,?,?,?,?,?)",
                        (table, f["n"], e, f["r"], f["lt"], f["a"], f["c"], self._body(f), time.time()))
        self.db.execute("UPDATE tables SET last_n=?, wagers=?, count=?, reversed=?, up_top=? WHERE tb=?",
                        (row["last_n"], row["wagers"], row["count"], row["reversed"], row["up_top"], table))
        self.db.execute("UPDATE meta SET value=? WHERE name='pool'", (json.dumps(pool.to_dict()),))
        if e == codec.HIT:
            self.arrival += 1
            self.db.execute("INSERT INTO hits (tb, n, round, lock_time, arrival, rows, status) "
                            "VALUES (?,?,?,?,?,?,'pending')",
                            (table, f["n"], f["r"], f["lt"], self.arrival, json.dumps(f["h"])))
            self.db.execute("UPDATE meta SET value=? WHERE name='arrival'", (str(self.arrival),))
            self._event(table, "hit claimed", "entry %d round %d locked %d: %r"
                        % (f["n"], f["r"], f["lt"], f["h"]))
        self._pause("entry %d %d" % (table, f["n"]))
        self.pool = pool
        self.applied += 1
        if e == codec.HIT:
            self.due[(table, f["n"])] = (now + self.order_window) & 0x3FFFFFFF

    def _pause(self, what):
        """Test hook: hold the open transaction so a test can kill the process mid-commit."""
        if self.commit_delay:
            print("IN-COMMIT %s" % what, flush=True)
            time.sleep(self.commit_delay)

    # ------------------------------------------------------------------ time

    def service(self, now):
        """Pay the hits whose ordering window has passed; broadcast the pool when it changed."""
        if self.due and (self.hold_until is None or mqtt.ticks_diff(now, self.hold_until) >= 0):
            first = min(self.due.values(), key=lambda t: mqtt.ticks_diff(t, now))
            if mqtt.ticks_diff(now, first) >= 0:
                self._pay_waiting(now)
        if self.pool_dirty and (self.last_broadcast is None
                                or mqtt.ticks_diff(now, self.last_broadcast) >= self.broadcast_every):
            self.broadcast(now)

    def _pay_waiting(self, now):
        """Pay the waiting hits by lock time, then arrival [11.11], each round by 11.10, up to
        the first whose own ordering window has not passed: it may still hear of a hit locked
        before it, and every hit after it in that order must wait for it."""
        waiting = self.db.execute("SELECT tb, n, round, lock_time, arrival, rows FROM hits "
                                  "WHERE status='pending' ORDER BY lock_time, arrival").fetchall()
        order = int(self._meta("paid_order", "0"))
        paid_any = False
        self.hold_until = None
        for tb, n, round_no, lock_time, arrival, rows in waiting:
            due = self.due.get((tb, n))
            if due is not None and mqtt.ticks_diff(now, due) < 0:
                self.hold_until = due       # nothing can be paid before this one can
                break
            pool = LinkedPool.from_dict(self.config, self.pool.to_dict())
            payable, refused = [], []
            # the refusals' events, logged in the payout's transaction: a commit that fails
            # (and is made again) never logs one twice
            why_refused = []
            try:
                for hit in json.loads(rows):
                    why = pool.refusal(hit, self.config.wager)
                    if why is None:
                        payable.append(hit)
                    else:
                        # a hand the pay table cannot pay: refused alone, for the supervisor;
                        # the round's other hands are paid
                        refused.append([hit[0], hit[1], why[0]])
                        why_refused.append(why[1])
                paid_rows, before, after = pool.pay(payable, self.config.wager)
            except ValueError as error:
                why_refused = [str(error)]
                paid_rows, refused = [], []
                before = after = pool.amounts()
            total = sum(r[2] for r in paid_rows)
            order += 1
            result = {"rows": paid_rows, "before": before, "after": after}
            if paid_rows and refused:
                # sent after the paid rows; a claim refused whole is answered with no rows
                # (docs/link.md: a table's firmware before the refused rows rejects them)
                result["refused"] = refused
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("UPDATE hits SET status='paid', paid_order=?, result=?, paid_at=? "
                                "WHERE tb=? AND n=?", (order, json.dumps(result), time.time(), tb, n))
                self.db.execute("UPDATE tables SET paid=paid+?, hits=hits+? WHERE tb=?",
                                (total, len(paid_rows), tb))
                self.db.execute("UPDATE meta SET value=? WHERE name='pool'", (json.dumps(pool.to_dict()),))
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('paid_order', ?)", (str(order),))
                for why in why_refused:
                    self._event(tb, "hit refused", "entry %d round %d: %s" % (n, round_no, why))
                self._event(tb, "hit paid", "order %d entry %d round %d locked %d arrival %d: %r "
                            "pool %r -> %r"
                            % (order, n, round_no, lock_time, arrival, paid_rows, before, after))
                self._pause("pay %d %d" % (tb, n))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.pool = pool
            self.due.pop((tb, n), None)
            for why in why_refused:
                self._say("hit refused: table %d entry %d: %s" % (tb, n, why))
            self._say("paid table %d round %d (locked %d): %r, pool %r -> %r"
                      % (tb, round_no, lock_time, paid_rows, before, after))
            self._send_paid(tb, n)
            paid_any = True
        if paid_any:
            self.pool_dirty = True
            self.last_broadcast = None  # the new amount goes to every sign now

    # ------------------------------------------------------------------ reading

    def ledger(self):
        """Everything a reconciliation needs: pool, per-table totals, payment order."""
        tables = {}
        # every table of the ledger, one taken off keys.json too: its wagers stay in the pool
        for (table,) in self.db.execute("SELECT tb FROM tables ORDER BY tb").fetchall():
            tables[table] = {"last_n": self._row(table)["last_n"], "totals": self.totals(table)}
        net = sum(t["totals"][codec.T_WAGERS] - t["totals"][codec.T_REVERSED] for t in tables.values())
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name='retired'").fetchone():
            # a re-enrolled table's old totals (tools/link_reenrol.py): their money stayed in the pool
            for (row,) in self.db.execute("SELECT row FROM retired").fetchall():
                row = json.loads(row)
                net += row["wagers"] - row["reversed"]
        paid = self.db.execute("SELECT tb, n, round, lock_time, arrival, paid_order, result FROM hits "
                               "WHERE status='paid' ORDER BY paid_order").fetchall()
        return {"pool": self.pool.amounts(), "meters": self.pool.meters, "tables": tables,
                "paid": [list(p[:6]) + [json.loads(p[6])] for p in paid],
                "pending": self.db.execute("SELECT COUNT(*) FROM hits WHERE status='pending'").fetchone()[0],
                "audit": self.pool.audit(net)}

    def close(self):
        self.db.close()


def read_ledger(db_path):
    """The ledger of a controller's SQLite file, read without changing it (for audits/tests)."""
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    try:
        config = cfg.build(json.loads(db.execute("SELECT value FROM meta WHERE name='config'").fetchone()[0]))
        pool = LinkedPool.from_dict(config, json.loads(
            db.execute("SELECT value FROM meta WHERE name='pool'").fetchone()[0]))
        tables = {}
        for r in db.execute("SELECT tb,last_n,wagers,count,reversed,paid,hits FROM tables ORDER BY tb"):
            tables[r[0]] = {"last_n": r[1], "totals": list(r[2:7])}
        paid = db.execute("SELECT tb, n, round, lock_time, arrival, paid_order, result FROM hits "
                          "WHERE status='paid' ORDER BY paid_order").fetchall()
        pending = db.execute("SELECT COUNT(*) FROM hits WHERE status='pending'").fetchone()[0]
        events = db.execute("SELECT tb, kind, text FROM events ORDER BY id").fetchall()
    finally:
        db.close()
    return {"pool": pool.amounts(), "meters": pool.meters, "tables": tables,
            "paid": [list(p[:6]) + [json.loads(p[6])] for p in paid], "pending": pending,
            "events": [list(e) for e in events], "pool_object": pool}


def run(args, keys, config=None):
    """Connect to the broker and serve the tables of `keys` (load_keys), the pool configured
    by `config` (a dict of firmware.jackpot.config keys, or None) until SIGTERM/SIGINT or
    --duration seconds."""
    stop = [False]

    def on_signal(signum, frame):
        stop[0] = True

    try:
        lock = lock_ledger(args.db)
    except LedgerBusy as error:
        print("refused: %s" % error, file=sys.stderr)
        return 2
    except OSError as error:        # its folder missing or not writable
        print("refused: the ledger %s: %s" % (args.db, error), file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    inbox = []
    try:
        opener = mqtt.tcp_opener(args.host, args.port)      # the broker's address, looked up once
    except (OSError, ValueError) as error:  # UnicodeError: a name no DNS query can hold
        print("refused: the broker %s port %d: %s" % (args.host, args.port, error), file=sys.stderr)
        lock.close()
        return 2
    client = mqtt.Client("link-controller", opener,
                         lambda topic, payload: inbox.append((topic, payload)), keepalive=5,
                         log=lambda text: print(text, flush=True),
                         max_messages=mqtt.HOST_BATCH)  # what arrived together: one transaction

    def say(text):
        if not args.quiet:
            print(text, flush=True)

    try:
        controller = Controller(args.db, keys, client.publish, config=config,
                                order_window=args.order_window, broadcast_every=args.broadcast,
                                commit_delay=args.commit_delay / 1000.0, log=say)
    except (sqlite3.DatabaseError, ValueError) as error:
        # a damaged ledger is named, and left as it is for the supervisor
        print("refused: the ledger %s: %s" % (args.db, error), file=sys.stderr)
        lock.close()
        return 2
    client.subscribe("jackpot/link/+/up")
    deadline = time.monotonic() + args.duration if args.duration else None
    print("READY", flush=True)
    while not stop[0]:
        if deadline is not None and time.monotonic() > deadline:
            break
        if client.sock is not None:
            select.select([client.sock], [], [], 0.002)
        else:
            time.sleep(0.01)
        now = now_ms()
        client.service(now)
        if inbox:
            controller.handle(inbox, now)
            inbox.clear()
        if client.connected():
            controller.service(now)
    status = 0
    if args.ledger_out:
        try:
            with open(args.ledger_out + ".tmp", "w") as f:
                json.dump(controller.ledger(), f)
            os.replace(args.ledger_out + ".tmp", args.ledger_out)
        except OSError as error:
            print("cannot write the ledger to %s: %s" % (args.ledger_out, error), file=sys.stderr)
            status = 2
    client.close()
    controller.close()
    lock.close()
    return status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="SQLite ledger file (created if missing)")
    parser.add_argument("--keys", required=True, help="JSON file: table number -> hex key")
    parser.add_argument("--config", help="jackpot configuration JSON (firmware/jackpot/config.py keys) "
                        "for a new ledger; an existing ledger must match it")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--order-window", type=int, default=ORDER_WINDOW,
                        help="ms a hit waits for earlier-locked hits (default %(default)s)")
    parser.add_argument("--broadcast", type=int, default=BROADCAST_EVERY,
                        help="ms between pool broadcasts (default %(default)s)")
    parser.add_argument("--duration", type=float, default=0, help="stop after this many seconds")
    parser.add_argument("--commit-delay", type=float, default=0,
                        help="test hook: ms to hold each transaction open before COMMIT")
    parser.add_argument("--ledger-out", help="write the ledger as JSON here on a clean stop")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    for name, value in (("--order-window", args.order_window), ("--broadcast", args.broadcast),
                        ("--commit-delay", args.commit_delay)):
        if not 0 <= value <= MAX_MS:
            # beyond MAX_MS the 30-bit ms ticks would wrap; a negative window pays out of order
            parser.error("%s %s is not 0..%d ms" % (name, value, MAX_MS))
    if not 1 <= args.port <= 65535:
        parser.error("--port %d is not 1..65535" % args.port)
    if args.ledger_out and not os.path.isdir(os.path.dirname(os.path.abspath(args.ledger_out))):
        # found at the start, not at the stop hours later with the ledger report lost
        parser.error("--ledger-out %s: no folder %s to write it in"
                     % (args.ledger_out, os.path.dirname(os.path.abspath(args.ledger_out))))
    try:
        keys = load_keys(args.keys)
    except (OSError, ValueError) as error:
        # json.JSONDecodeError is a ValueError: a bad file is named, not a traceback
        parser.error("--keys %s: %s" % (args.keys, error))
    config = None
    if args.config:
        try:
            with open(args.config) as f:
                config = json.load(f)
            if not isinstance(config, dict):
                raise ValueError("expected a JSON object of configuration keys, not %.40r" % (config,))
            LinkedPool(config)      # checked as the ledger will take it (no envy bonus)
        except (OSError, ValueError) as error:
            parser.error("--config %s: %s" % (args.config, error))
    return run(args, keys, config)


if __name__ == "__main__":
    sys.exit(main())
