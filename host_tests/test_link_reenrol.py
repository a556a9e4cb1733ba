"""Re-enrolling a linked table that lost its link section (tools/link_reenrol.py), with the
table's real TableLink and the real controller joined in memory (test_link_units.Wire)."""

import json
import sqlite3

import pytest

from firmware.link.tablelink import UP, TableLink
from host_tests.link_support import ControllerProcess, free_port
from host_tests.test_link_units import NOW, Wire
from tools import link_controller, link_reenrol
from tools.link_controller import Controller, read_ledger


def played(tmp_path):
    """A table that contributed twice and was paid a full house, all acknowledged."""
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 3, 300)
    link.contribute(2, NOW + 60, 2, 200)
    link.hit(2, NOW + 60, [[2, 1, 100]])  # a full house: 150 to 1
    w.step(100, 10)
    assert link.state == UP and link.entries == [] and link.awaiting == []
    return w


def restart_controller(w):
    w.controller = Controller(w.db, w.keys, lambda t, p: w.to_tables.append((t, p)),
                              clock_s=lambda: w.clock[0], order_window=0, broadcast_every=0)


def test_a_table_that_lost_its_section_is_refused_until_re_enrolled_then_plays_on(tmp_path, capsys):
    w = played(tmp_path)
    old_totals = w.controller.totals(1)
    assert old_totals == [500, 5, 0, 15000, 1]
    pool_before = w.controller.pool.amounts()
    # the table's critical memory is gone: a new link, numbered from 1, totals 0
    fresh = TableLink(1, w.keys[1], w._sender(), lambda c, x: w.events[1].append(c))
    w.links[1] = fresh
    w.step(100, 20)
    assert fresh.state != UP and not fresh.wagers_open()

    w.controller.close()
    assert link_reenrol.main(["--db", w.db, "--table", "1"]) == 0   # a dry run changes nothing
    assert "would retire table 1: last entry 3" in capsys.readouterr().out
    assert read_ledger(w.db)["tables"][1]["totals"] == old_totals
    assert link_reenrol.main(["--db", w.db, "--table", "1", "--yes"]) == 0
    assert "re-enrolled table 1" in capsys.readouterr().out

    restart_controller(w)
    w.step(100, 20)
    assert fresh.state == UP and fresh.wagers_open()
    fresh.contribute(1, NOW + 600, 2, 200)   # its round numbers start again too
    w.step(100, 5)
    assert w.controller.totals(1) == fresh.totals == [200, 2, 0, 0, 0]
    ledger = read_ledger(w.db)
    assert ledger["pool"][0] > pool_before[0]          # the pool kept its money and grew
    # the books balance once the retired totals are counted with the live ones
    assert ledger["pool_object"].audit(net_wagers=500 + 200) == []
    assert ledger["pool_object"].audit(net_wagers=200) != []
    assert w.controller.ledger()["audit"] == []        # the controller's report counts them too
    reenrols = [e for e in ledger["events"] if e[1] == "reenrol"]
    assert len(reenrols) == 1 and "wagers 500" in reenrols[0][2] and "paid 15000" in reenrols[0][2]
    db = sqlite3.connect(w.db)
    row, entries, hits = db.execute("SELECT row, entries, hits FROM retired WHERE tb=1").fetchone()
    db.close()
    assert json.loads(row)["wagers"] == 500 and len(json.loads(entries)) == 3
    assert len(json.loads(hits)) == 1


def test_a_table_with_a_hit_waiting_to_be_paid_is_not_re_enrolled(tmp_path, capsys):
    w = played(tmp_path)
    w.controller.close()
    db = sqlite3.connect(w.db)
    db.execute("UPDATE hits SET status='pending' WHERE tb=1")   # as if the payout had not happened
    db.commit()
    db.close()
    before = read_ledger(w.db)
    with pytest.raises(link_reenrol.ReenrolError, match="1 jackpot hit.*waiting to be paid"):
        link_reenrol.reenrol(w.db, 1)
    assert link_reenrol.main(["--db", w.db, "--table", "1", "--yes"]) == 2
    assert "refused: table 1 has 1 jackpot hit" in capsys.readouterr().err
    after = read_ledger(w.db)
    assert after["tables"] == before["tables"] and after["events"] == before["events"]


@pytest.mark.parametrize("table,words", [(7, "table 7 is not in this ledger (tables: 1)"),
                                         (0, "table must be a number from 1"),
                                         (True, "table must be a number from 1")])
def test_unknown_or_bad_table_numbers_are_refused(tmp_path, table, words):
    w = played(tmp_path)
    w.controller.close()
    with pytest.raises(link_reenrol.ReenrolError, match=words.replace("(", r"\(").replace(")", r"\)")):
        link_reenrol.reenrol(w.db, table)


def test_a_missing_ledger_file_is_refused_by_name(tmp_path):
    with pytest.raises(link_reenrol.ReenrolError, match="cannot open the ledger .*nowhere.db"):
        link_reenrol.reenrol(str(tmp_path / "nowhere.db"), 1)


def test_re_enrolment_is_refused_while_the_link_controller_runs(tmp_path, capsys):
    # the running controller keeps the table's numbers in memory and would go on from them
    # over the rewritten ledger: the rewrite waits until it is stopped (its lock file says)
    w = played(tmp_path)
    w.controller.close()
    before = read_ledger(w.db)
    running = ControllerProcess(tmp_path, free_port(), [1]).start()   # same ledger.db, no broker
    try:
        assert link_reenrol.main(["--db", w.db, "--table", "1", "--yes"]) == 2
        err = capsys.readouterr().err
        assert "in use by process %d" % running.proc.pid in err
        assert "stop the link controller first" in err
        # a second controller on the same ledger is refused too
        assert link_controller.main(["--db", w.db, "--keys", str(running.keys), "--port", "1"]) == 2
        assert "refused: the ledger" in capsys.readouterr().err
        after = read_ledger(w.db)
        assert after["tables"] == before["tables"] and after["events"] == before["events"]
    finally:
        running.stop()
    assert link_reenrol.main(["--db", w.db, "--table", "1", "--yes"]) == 0   # stopped: done
    assert "re-enrolled table 1" in capsys.readouterr().out


@pytest.mark.parametrize("content", [b"x" * 4096, None])
def test_a_file_that_is_not_a_link_ledger_is_refused_and_left_as_it_was(tmp_path, content):
    # a damaged ledger ended on a traceback; another SQLite file (a wrong --db) was given the
    # ledger's tables, even on a dry run, then called "not in this ledger"
    path = tmp_path / "other.db"
    if content is None:
        db = sqlite3.connect(str(path))
        db.execute("CREATE TABLE notes (t TEXT)")
        db.commit()
        db.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    for apply in (False, True):
        with pytest.raises(link_reenrol.ReenrolError, match="other.db"):
            link_reenrol.reenrol(str(path), 1, apply=apply)
    assert path.read_bytes() == before
