"""Start a linked table over at the link controller after it lost its link section:
`python -m tools.link_reenrol --db link.db --table N [--yes]`.

A table whose link section was lost (both copies of its critical memory gone, a new board)
starts a new link: entries numbered from 1, message numbers from 1, every total 0.  The
controller refuses that (old message numbers, then totals that do not match its ledger), and
the table's jackpot stays closed.  This is the supervisor's step that lets it back in, run
with the controller stopped (the controller keeps each table's numbers in memory): with
--yes it refuses while a controller holds the ledger's lock (``<db>.lock``,
link_controller.lock_ledger), and holds it itself meanwhile, so no controller starts:

- refused when the table is not in the ledger or has jackpot hits still waiting to be paid
  (start the controller and let it pay them first: that money is the players');
- otherwise, in one SQLite transaction: the table's ledger row, entries and hits are copied
  to the `retired` table (as JSON, with the time), its entries and hits are removed from the
  live tables, its row starts again at zero, and a `reenrol` event records the old totals.
  The pool itself is not touched: contributions already in it stay there.

Without --yes it only prints what it would retire.  It prints the retired totals, which the
supervisor reconciles against the table's own meters and paperwork (docs/link.md).
"""

import argparse
import json
import os
import sqlite3
import sys
import time

from tools.link_controller import SCHEMA, LedgerBusy, lock_ledger

RETIRED = """
CREATE TABLE IF NOT EXISTS retired (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, tb INTEGER NOT NULL,
    row TEXT NOT NULL, entries TEXT NOT NULL, hits TEXT NOT NULL);
"""
ROW_FIELDS = ("tb", "last_n", "wagers", "count", "reversed", "paid", "hits", "up_top")
TOTALS = ("wagers", "count", "reversed", "paid", "hits")


class ReenrolError(Exception):
    """Re-enrolment refused; the message says why and what to do."""


def _open(db_path):
    db = None
    try:
        db = sqlite3.connect("file:%s?mode=rw" % db_path, uri=True, isolation_level=None)
        # a file that is not a link controller's ledger is named, and nothing is written to it
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone() or \
                not db.execute("SELECT 1 FROM meta WHERE name='config'").fetchone():
            raise ReenrolError("%s is not a link controller's ledger (no configuration)" % db_path)
        db.executescript(SCHEMA + RETIRED)
        return db
    except (sqlite3.DatabaseError, ReenrolError) as error:      # OperationalError included
        if db is not None:
            db.close()
        if isinstance(error, ReenrolError):
            raise
        raise ReenrolError("cannot open the ledger %s: %s" % (db_path, error)) from None


def _plan(db, table):
    """(row dict, entry rows, hit rows) of table; ReenrolError when it must not be retired."""
    row = db.execute("SELECT %s FROM tables WHERE tb=?" % ",".join(ROW_FIELDS), (table,)).fetchone()
    if row is None:
        known = [r[0] for r in db.execute("SELECT tb FROM tables ORDER BY tb")]
        raise ReenrolError("table %d is not in this ledger (tables: %s)"
                           % (table, ", ".join(str(t) for t in known) or "none"))
    waiting = db.execute("SELECT n, round FROM hits WHERE tb=? AND status='pending' ORDER BY n",
                         (table,)).fetchall()
    if waiting:
        raise ReenrolError("table %d has %d jackpot hit(s) waiting to be paid (entries %s): start "
                           "the controller and let it pay them, then re-enrol"
                           % (table, len(waiting), ", ".join(str(n) for n, _r in waiting)))
    entries = db.execute("SELECT * FROM entries WHERE tb=? ORDER BY n", (table,)).fetchall()
    hits = db.execute("SELECT * FROM hits WHERE tb=? ORDER BY n", (table,)).fetchall()
    return dict(zip(ROW_FIELDS, row)), entries, hits


def describe(row, n_entries, n_hits):
    """What re-enrolment retires, as text for the supervisor."""
    totals = ", ".join("%s %d" % (name, row[name]) for name in TOTALS)
    return ("table %d: last entry %d, %d entries and %d paid hits retired; totals %s"
            % (row["tb"], row["last_n"], n_entries, n_hits, totals))


def reenrol(db_path, table, now=None, apply=True):
    """Retire table's link ledger (see the module docstring) and return what was retired as
    (row dict, entry count, hit count); with apply=False change nothing.  ReenrolError says
    why it was refused."""
    if not isinstance(table, int) or isinstance(table, bool) or table < 1:
        raise ReenrolError("table must be a number from 1, got %r" % (table,))
    lock = None
    if apply and os.path.exists(db_path):       # a missing ledger is named by _open
        try:
            lock = lock_ledger(db_path)
        except LedgerBusy as error:
            raise ReenrolError("%s: stop the link controller first" % error) from None
        except OSError as error:
            raise ReenrolError("cannot lock the ledger %s: %s" % (db_path, error)) from None
    db = _open(db_path)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            row, entries, hits = _plan(db, table)
            if apply:
                at = time.time() if now is None else now
                db.execute("INSERT INTO retired (at, tb, row, entries, hits) VALUES (?,?,?,?,?)",
                           (at, table, json.dumps(row), json.dumps(entries), json.dumps(hits)))
                db.execute("DELETE FROM entries WHERE tb=?", (table,))
                db.execute("DELETE FROM hits WHERE tb=?", (table,))
                db.execute("UPDATE tables SET last_n=0, wagers=0, count=0, reversed=0, paid=0, "
                           "hits=0, up_top=0 WHERE tb=?", (table,))
                # the new board says again whether its firmware sends its pay table (and so
                # takes a paid's refused rows: link_controller's pays_tables)
                kept = db.execute("SELECT value FROM meta WHERE name='pays_tables'").fetchone()
                if kept is not None:
                    db.execute("UPDATE meta SET value=? WHERE name='pays_tables'", (json.dumps(
                        [tb for tb in json.loads(kept[0]) if tb != table]),))
                text = "supervisor re-enrolment: " + describe(row, len(entries), len(hits))
                db.execute("INSERT INTO events (at, tb, kind, text) VALUES (?,?,?,?)",
                           (at, table, "reenrol", text))
            db.execute("COMMIT" if apply else "ROLLBACK")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.close()
        if lock is not None:
            lock.close()
    return row, len(entries), len(hits)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="the link controller's SQLite ledger")
    parser.add_argument("--table", type=int, required=True, help="the table number to re-enrol")
    parser.add_argument("--yes", action="store_true", help="do it (without: only show what it would do)")
    args = parser.parse_args(argv)
    try:
        row, n_entries, n_hits = reenrol(args.db, args.table, apply=args.yes)
    except ReenrolError as error:
        print("refused: %s" % error, file=sys.stderr)
        return 2
    text = describe(row, n_entries, n_hits)
    if args.yes:
        print("re-enrolled %s; the table starts again at entry 1 when the controller restarts" % text)
    else:
        print("would retire %s (run again with --yes, the controller stopped)" % text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
