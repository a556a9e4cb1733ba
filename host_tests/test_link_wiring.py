"""The round controller of a LINKED table, joined in memory to the real link controller
(tools/link_controller.Controller on SQLite; lists instead of a broker): contributions,
voids and hit claims travel only after their commit, power cuts resume without losing or
doubling an entry, payouts are logged and shown, the sign follows the linked pool, link
faults close jackpot wagering and are logged.  Also the configuration file's "link" section
and the link key file.

Expected amounts are worked out by hand from the default jackpot configuration
(firmware/jackpot/config.py: $1 wager, no reset) with the link controller's pool seeded at
$10,000.00 (link_support.SEEDED) and rules.md 11.9 (a royal pays the
greater of 10,000 to 1 and 100% of the pool).
"""

import hashlib
import json
import os
import sys
import types

import pytest

from firmware import config_file
from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.link import codec, sntp
from firmware.link import setup as linksetup
from firmware.link.tablelink import MISMATCH, UP, TableLink
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot, PathFS
from firmware.table import controller as tc
from firmware.table.phases import BEEP_ERROR
from host_tests.link_support import SEEDED
from host_tests.test_controller import refuse_copy_writes
from tools.link_controller import Controller, read_ledger

WALL = 1800000000
TABLE = 5
KEY = hashlib.sha256(b"wiring test key").digest()
WAGER = 100
RESET = 1000000
FAST = {"link_timeout": 1200, "ping_every": 200, "resend_every": 300}
ROYAL = [(1, "As Ks"), (2, "2c 3d"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")]
PLAIN = [(1, "2c 3d"), (2, "4h 6s"), (0, "9c 9d"), (8, "Qs Jd 7h 8c Kh")]


class Rig:
    """A RoundController on file-backed critical memory, its TableLink, and the link
    controller in the same process; step() moves the messages both ways."""

    def __init__(self, tmp_path):
        self.fs = PathFS(str(tmp_path))
        self.db = str(tmp_path / "ledger.db")
        self.now = 0
        self.up = []        # (topic, payload) from the table, not yet delivered
        self.down = []
        self.wire_up = True
        self.controller = Controller(self.db, {TABLE: KEY}, lambda t, p: self.down.append((t, p)),
                                     clock_s=lambda: WALL, order_window=0, broadcast_every=0,
                                     config=SEEDED)
        self.link = None
        self.boot()

    def _factory(self, section, log):
        if section is None:
            self.link = TableLink(TABLE, KEY, self._send, log)
        else:
            self.link = TableLink.restore(TABLE, KEY, self._send, section, log)
        for name in FAST:
            setattr(self.link, name, FAST[name])
        return self.link

    def _send(self, topic, payload):
        self.up.append((topic, payload))
        return True

    def boot(self):
        self.up = []
        self.memory = CriticalMemory([FileSlot(self.fs, "a.bin"), FileSlot(self.fs, "b.bin")], self.fs)
        self.c = tc.RoundController(self.memory)
        self.c.link_factory = self._factory
        self.c.boot(self.now, WALL)
        return self.c

    def step(self, ms=100, count=1):
        for _ in range(count):
            self.now += ms
            if self.link is not None:
                self.link.service(self.now, WALL, self.wire_up)
                self.c.link(self.link.wagers_open(), self.now)
                self.c.link_poll(self.now)
            self.c.tick(self.now, WALL)
            up, self.up = self.up, []
            if self.wire_up:
                for topic, payload in up:
                    self.controller.on_message(topic, payload, self.now)
            self.controller.service(self.now)
            down, self.down = self.down, []
            if self.wire_up and self.link is not None:
                for topic, payload in down:
                    self.link.on_message(topic, payload, self.now)

    def press(self, button, long=False):
        self.now += 20
        self.c.panel(btn.PRESS, button, self.now)       # as the panel sends a press
        if long:
            self.c.panel(btn.LONG, button, self.now)
        self.c.panel(btn.RELEASE, button, self.now)

    def key(self, on):
        self.now += 20
        self.c.panel(btn.KEY_ON if on else btn.KEY_OFF, 0, self.now)

    def chips(self, *seats):
        for seat in seats:
            self.c.spot(sens.PLACED, sens.jackpot_spot(seat), self.now)
            self.c.spot(sens.PLACED, sens.ante_spot(seat), self.now)

    def deal(self, deal):
        for dest, text in deal:
            for card in cards.parse(text):
                self.c.card(dest, card, self.now)

    def ram_clear(self):
        self.key(True)
        self.press(btn.OK, long=True)
        self.press(btn.OK)
        self.key(False)

    def ledger(self):
        return read_ledger(self.db)

    def events(self, kind):
        log = self.memory.log
        return [e for e in log.events(log.first_available()) if e[3] == kind]

    def entries_sent(self):
        return [p for t, p in self.up if b'"k":"entry"' in p]


@pytest.fixture
def rig(tmp_path):
    r = Rig(tmp_path)
    r.ram_clear()
    r.step(100, 5)
    assert r.link.state == UP and r.c.jackpot_open()
    return r


def test_a_linked_table_boots_closed_until_the_link_reconciles(tmp_path):
    r = Rig(tmp_path)
    r.ram_clear()
    assert r.c.link_required and not r.c.jackpot_open()
    assert r.c.view.meter_fault == "LINK dn"
    assert r.c.view.seat_light[0] == lights.LOCKED
    r.step(100, 5)
    assert r.c.jackpot_open() and r.c.view.meter_fault == ""
    assert r.c.view.meter[0] == RESET
    assert [e[3] for e in r.events(ev.LINK_UP)] == [ev.LINK_UP]


def test_a_table_kept_syncing_by_an_older_controller_tells_the_dealer_why(tmp_path, monkeypatch):
    # a link controller older than the pays message rejects it and never answers, so the
    # table stays SYNCING with its jackpot closed: the dealer saw JP CLOSED and no reason
    monkeypatch.setattr(codec, "UP_KINDS", (codec.HELLO, codec.ENTRY, codec.PING))
    r = Rig(tmp_path)
    r.ram_clear()
    r.step(100, 40)                     # (past the RAM clear's message on the same lines)
    lines = r.c.view.lines
    assert r.c.message == ""
    assert lines[1] == "JP CLOSED LINK" and lines[6] == "LINK NO PAYTABLE"
    assert r.c.view.meter_fault == "LINK dn"
    # the broker gone: the link is down, which the sign says; the older controller's
    # reason is not the dealer's now
    r.wire_up = False
    r.step(100, 2)
    assert lines[1] == "JP CLOSED LINK" and lines[6] == ""
    r.wire_up = True
    r.step(100, 5)
    assert lines[6] == "LINK NO PAYTABLE"
    monkeypatch.undo()                  # the controller updated: it answers the pays message
    r.step(100, 5)
    assert lines[1] == "JP OPEN" and lines[6] == ""


def test_lock_contributes_to_the_link_only_after_the_commit_and_never_to_the_local_pool(rig):
    local = list(rig.c.jackpot.value)
    meters = list(rig.c.jackpot.table)
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.LOCKED and rig.c.rec.accepted == 0b11
    # committed with the round: the section in critical memory holds the unsent entry
    saved = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert [e[0] for e in saved.entries] == [1] and saved.totals[0] == 2 * WAGER
    assert rig.memory.section(tc.SECTION_LINK_ROUND) == b"%d %d" % (rig.c.rec.round_no, WALL)
    rig.step(100, 3)
    ledger = rig.ledger()
    assert ledger["tables"][TABLE]["totals"][:2] == [2 * WAGER, 2]
    assert rig.link.entries == [] and rig.c.link_totals()["wagered"] == 2 * WAGER
    assert rig.c.jackpot.value == local and rig.c.jackpot.table == meters
    assert rig.c.view.meter[0] == ledger["pool"][0] > RESET


def test_a_failed_lock_commit_leaves_no_entry_and_sends_nothing(rig, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("FRAM write failed")

    monkeypatch.setattr(rig.memory, "commit", broken)
    rig.chips(1)
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.OPEN
    assert rig.link.last_n == 0 and rig.link.entries == [] and rig.link.totals[0] == 0
    rig.step(100, 3)
    assert rig.entries_sent() == [] or rig.ledger()["tables"][TABLE]["last_n"] == 0
    assert rig.ledger()["tables"][TABLE]["totals"][0] == 0


def test_power_cut_after_lock_resends_the_committed_entry_once(rig):
    rig.chips(1, 2, 3)
    rig.press(btn.LOCK)
    assert rig.entries_sent() == []  # held until the commit; the cut comes before any send
    rig.link = None
    rig.boot()                       # the power comes back
    assert rig.c.phase == tc.LOCKED and rig.link.last_n == 1
    rig.step(100, 10)
    row = rig.ledger()["tables"][TABLE]
    assert row["last_n"] == 1 and row["totals"][:2] == [3 * WAGER, 3]
    assert rig.link.state == UP


def test_a_royal_is_claimed_with_the_settlement_and_paid_by_the_link(rig):
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    pool = rig.ledger()["pool"][0]
    rig.deal(ROYAL)
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.CONFIRM
    assert rig.c.view.lines[2] == " ~" + tc.money(pool)  # estimate: 100% of the pool shown
    assert rig.c.view.wins == []     # on the dealer display only: the sign waits for the payout
    rig.key(True)
    rig.press(btn.OK)
    rig.key(False)
    assert rig.c.phase == tc.RESULTS
    assert [e[4:7] for e in rig.events(ev.LINK_CLAIM)] == [(1, 4, WAGER)]
    assert rig.events(ev.JACKPOT_HIT) == []
    serial = rig.c.view.win_serial
    rig.step(100, 5)
    hits = rig.events(ev.JACKPOT_HIT)
    assert [e[4:7] for e in hits] == [(1, 4, pool)]  # 100% of the pool beats 10,000 to 1
    assert rig.c.view.win_serial == serial + 1
    assert rig.c.view.win == (0, 1, pool, RESET)
    assert rig.c.view.meter[0] == RESET
    assert "JP S1 " + tc.money(pool) in rig.c.results
    assert rig.c.link_totals()["paid"] == pool == rig.ledger()["tables"][TABLE]["totals"][3]
    # the service's hits are the table's own pool's: it says so, the link keeps this one
    from firmware.service import Service
    from tools import audit
    service = Service(rig.c)
    reply = service.handle("hits")
    assert (reply["linked"], reply["hits"]) == (True, [])
    data = {"status": service.handle("status"), "program": service.handle("program"),
            "meters": service.handle("meters"), "hits": reply["hits"], "hits_linked": True,
            "log": {"first": 0, "count": 0}, "chain": {"message": ""}}
    assert ("Last jackpot hits: linked table: its hits are the link controller's (1 in the "
            "table's ledger; each one is a jackpot hit entry of the event log); from its own "
            "pool: 0") in audit.report(data)

def test_an_own_pool_win_leaves_the_sign_on_the_links_amount_not_the_frozen_local_pool(tmp_path):
    # A round locked standalone (a $2,000.00 local pool), resumed after the file linked the
    # table: its flush is paid from the local pool, but the sign's line is the link's. The
    # sign ended the waiting win (and a send-back at once) on the local $2,001.40, and the
    # paid one on $1,991.40, in place of the link's $10,000.00 until the link's amount next
    # changed.
    r = Rig(tmp_path)
    r.memory = CriticalMemory([FileSlot(r.fs, "a.bin"), FileSlot(r.fs, "b.bin")], r.fs)
    r.c = tc.RoundController(r.memory, {"main": {"reset": 200000}})
    r.c.boot(r.now, WALL)
    r.ram_clear()
    r.chips(1, 2)
    r.press(btn.LOCK)
    c = r.boot()                             # the file links it now
    r.chips(1, 2)
    r.step(100, 10)
    assert c.own_pool() and r.link.state == UP and c.view.meter[0] == RESET
    r.deal([(1, "Ah Kh"), (2, "2c 3d"), (0, "9c 9d"), (8, "Qh Jh 3h 4c 9s")])
    r.press(btn.SETTLE)
    assert c.phase == tc.CONFIRM
    # (line, seat, win, the line's amount after it): the sign's win and then its amount
    assert c.view.wins == [(0, 1, 10000, RESET)]
    r.key(True)
    r.press(btn.LOCK)                        # sent back: the sign ends the win at once
    r.press(btn.SETTLE)
    r.press(btn.OK)
    assert c.phase == tc.RESULTS and c.jackpot.value[0] == 200140 - 10000
    assert c.view.wins[-1] == (0, 1, 10000, RESET)



def royal_at_seat_1(rig):
    """Seat 1 alone with a jackpot wager, locked, dealt a royal and settled: CONFIRM, with the
    supervisor's key turned (OK will confirm)."""
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.deal(ROYAL[:1] + ROYAL[2:])
    rig.press(btn.SETTLE)
    rig.key(True)


def test_power_cut_after_the_confirmation_claims_the_hit_once(rig):
    royal_at_seat_1(rig)
    real = rig.memory.commit
    calls = []

    def cut_after_confirm(round_no, step, *args, **kwargs):
        if step == 3:  # STEP_SETTLE: the power fails before it is written
            calls.append(step)
            raise OSError("power cut")
        return real(round_no, step, *args, **kwargs)

    rig.memory.commit = cut_after_confirm
    rig.press(btn.OK)
    assert calls and rig.link.awaiting == []  # the claim was taken back, never sent
    rig.link = None
    rig.boot()
    assert rig.c.phase == tc.RESULTS and len(rig.link.awaiting) == 1
    rig.step(100, 8)
    ledger = rig.ledger()
    assert len(ledger["paid"]) == 1 and ledger["tables"][TABLE]["totals"][4] == 1
    assert len(rig.events(ev.JACKPOT_HIT)) == 1 and len(rig.events(ev.LINK_CLAIM)) == 1


def test_voids_reverse_the_linked_contribution(rig):
    rig.chips(1, 2, 3)
    rig.press(btn.LOCK)
    rig.key(True)
    rig.c.cursor = 1
    rig.press(btn.BACK)              # seat 2 void
    rig.press(btn.BACK, long=True)   # then the whole round (misdeal)
    rig.key(False)
    assert rig.c.phase == tc.RESULTS
    rig.step(100, 5)
    totals = rig.ledger()["tables"][TABLE]["totals"]
    assert totals[0] == 3 * WAGER and totals[2] == 3 * WAGER  # seat 2, then seats 1 and 3
    assert rig.link.totals == totals and rig.link.state == UP
    assert [e[6] for e in rig.events(ev.VOID)] == [WAGER, 2 * WAGER]


def test_link_down_closes_wagering_and_a_locked_round_queues_its_hit(rig):
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.wire_up = False
    rig.step(100, 3)
    assert not rig.c.jackpot_open() and rig.c.view.meter_fault == "LINK dn"
    rig.step(1000, 10)      # logged once LINK_LOG_MS has passed since the LINK_UP entry
    assert len(rig.events(ev.LINK_DOWN)) == 1
    rig.deal(ROYAL[:1] + ROYAL[2:])
    rig.press(btn.SETTLE)
    rig.key(True)
    rig.press(btn.OK)
    rig.key(False)
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.OPEN and rig.c.view.seat_light[0] == lights.LOCKED
    rig.press(btn.LOCK)              # closed: no jackpot wager is taken
    assert rig.c.rec.accepted == 0 and rig.link.last_n == 2
    rig.wire_up = True
    rig.step(100, 10)
    assert rig.c.jackpot_open() and rig.link.awaiting == []
    rig.step(1000, 10)
    assert len(rig.events(ev.JACKPOT_HIT)) == 1 and len(rig.events(ev.LINK_UP)) == 2


def test_a_link_that_drops_in_open_is_named_on_the_dealer_display_and_leaves_nothing_behind(rig):
    # The dealer display said "JP CLOSED" with no reason while the link was down, where a
    # copy of memory missing its commit says "JP CLOSED MEMORY": only the sign (LINK dn)
    # said why, and a LOCK said "JACKPOT CLOSED" as for a table whose jackpot is switched off.
    lines = rig.c.view.lines
    rig.wire_up = False                  # the Wi-Fi lost
    rig.step(100, 50)
    assert lines[1] == "JP CLOSED LINK" and rig.c.view.meter_fault == "LINK dn"
    rig.chips(1)
    rig.press(btn.LOCK)                  # chips down while it is out: none taken
    assert rig.c.rec.accepted == 0 and lines[6:8] == ["JP CLOSED LINK", "no wagers taken"]
    rig.press(btn.SETTLE)                # a round nobody wagered the jackpot in: void it
    rig.key(True)
    rig.press(btn.BACK, long=True)
    rig.key(False)
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.OPEN
    rig.step(1000, 10)                   # out for 15 s: one entry (10 s after the LINK_UP one)
    assert len(rig.events(ev.LINK_DOWN)) == 1 and lines[1] == "JP CLOSED LINK"
    rig.wire_up = True                   # back
    rig.step(100, 10)
    rig.step(1000, 10)
    assert lines[1] == "JP OPEN" and lines[6:8] == ["", ""] and rig.c.view.meter_fault == ""
    assert all(len(line) <= 16 for line in lines)
    assert len(rig.events(ev.LINK_DOWN)) == 1 and len(rig.events(ev.LINK_UP)) == 2


def test_a_linked_table_takes_no_wager_while_a_copy_of_its_memory_refuses_writes(
        rig, monkeypatch):
    """The round's contribution to the link is committed in critical memory too: while a
    copy cannot be written LOCK sends the link no wager (the round plays on), and once the
    idle table has written the copy again the next LOCK's wagers reach the link's pool."""
    refuse_copy_writes(rig, monkeypatch)
    rig.c.panel(btn.DOOR_OPEN, 0, rig.now)      # its entry's commit: copy 1 fails
    rig.c.panel(btn.DOOR_CLOSED, 0, rig.now)
    rig.step(100, 3)
    screen = "\n".join(rig.c.view.lines)
    assert rig.link.state == UP and "JP CLOSED MEMORY" in screen
    assert rig.c.view.meter_fault == "MEM Err"
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.LOCKED and rig.c.rec.accepted == 0 and rig.link.totals[0] == 0
    rig.step(100, 3)
    assert rig.ledger()["tables"][TABLE]["totals"][:2] == [0, 0]
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.RESULTS
    monkeypatch.undo()                          # the flash takes writes again
    rig.press(btn.SETTLE)                       # the next round: nothing committed yet
    rig.step(100, 25)                           # the idle table writes copy 1 again
    assert rig.c.jackpot_open() and "JP OPEN" in "\n".join(rig.c.view.lines)
    rig.press(btn.LOCK)
    assert rig.c.rec.accepted == 0b11
    rig.step(100, 3)
    assert rig.ledger()["tables"][TABLE]["totals"][:2] == [2 * WAGER, 2]


def test_a_flapping_link_is_counted_into_one_entry_per_ten_seconds(rig):
    """A link that went down and up again every few hundred ms (a weak Wi-Fi, or the link's
    room for entries filling and emptying) logged an entry per change: two a second pushed
    the jackpot hits and RAM clears out of the 1,056-entry log within minutes.  A change is
    logged at once, the changes after it within LINK_LOG_MS as one entry with their count
    (as the door's), and the last state is the one logged."""
    rig.step(1000, 11)                  # the first LINK_UP logged more than 10 s ago
    before = len(list(rig.memory.log.events(rig.memory.log.first_available())))
    t = rig.now
    for i in range(1, 41):              # 40 changes in 4 s: down first, up last
        rig.c.link(i % 2 == 0, t + 100 * i)
    flaps = [e for e in list(rig.memory.log.events(rig.memory.log.first_available()))[before:]
             if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
    assert [(e[3], e[5]) for e in flaps] == [(ev.LINK_DOWN, 0)]     # the first, at once
    for ms in range(4100, 10200, 100):
        rig.c.tick(t + ms, WALL)
    flaps = [e for e in list(rig.memory.log.events(rig.memory.log.first_available()))[before:]
             if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
    assert [(e[3], e[5]) for e in flaps] == [(ev.LINK_DOWN, 0), (ev.LINK_UP, 39)]
    from firmware.table import audit

    assert audit.values(ev.LINK_UP, 0, 39, 0) == ("x39",)


def test_a_link_flapping_for_an_hour_takes_a_dozen_entries_not_360(rig):
    # A weak Wi-Fi that drops the link every few seconds for hours: an entry every 10 s was
    # 360 an hour, the event log's 1,088 entries gone in three hours.  While the changes keep
    # coming the wait doubles, up to about 10 minutes; every change is still counted.
    rig.step(1000, 11)
    log = rig.memory.log
    before = log.count
    t = rig.now
    changes = 0
    for i in range(1, 1801):            # down and up every 2 s for an hour
        t += 2000
        rig.c.link(i % 2 == 0, t)
        rig.c.tick(t, WALL)
        changes += 1
    rig.c.tick(t + 700 * 1000, WALL)
    flaps = [e for e in log.events(before) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
    assert len(flaps) == 12
    assert sum(max(e[5], 1) for e in flaps) == changes
    assert flaps[-1][3] == ev.LINK_UP                 # the last state is the one logged


def _flap_all_night(rig, period_s):
    """The link changed every period_s for 8 hours, the loop ticking every second: (the log
    count before, the time, the state left, the changes, the log entries of each hour)."""
    rig.step(1000, 11)
    log = rig.memory.log
    before = log.count
    t = rig.now
    up = True
    changes = 0
    hourly = []
    for second in range(1, 8 * 3600 + 1):
        t += 1000
        if second % period_s == 0:
            up = not up
            rig.c.link(up, t)
            changes += 1
        rig.c.tick(t, WALL)
        if second % 3600 == 0:
            hourly.append(log.count - before - sum(hourly))
    return before, t, up, changes, hourly


@pytest.mark.parametrize("period_s", [12, 30, 60])
def test_a_link_flapping_slowly_all_night_takes_five_or_six_entries_an_hour(rig, period_s):
    # A weak Wi-Fi that drops the link, or brings it back, every 12 s to a minute: the wait
    # doubled only while more than one change came within it, so every change made its own
    # entry, 300 to 60 an hour, and a night of it pushed the jackpot hits and tampers out of
    # the 1,088-entry log.  Any entry less than 5 minutes after the one before doubles the
    # wait now: after the first hour the entries come 640 s apart (5 or 6 an hour), each
    # counting the changes since the one before.
    log = rig.memory.log
    before, t, up, changes, hourly = _flap_all_night(rig, period_s)

    def link_entries():
        return [e for e in log.events(before) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]

    assert len(link_entries()) == sum(hourly)     # nothing but the link's entries
    assert all(n in (5, 6) for n in hourly[1:]), hourly
    assert sum(hourly) < 8 * 8
    for _ in range(640):                          # the link stays as it is: its last wait up
        t += 1000
        rig.c.tick(t, WALL)
    flaps = link_entries()
    assert sum(max(e[5], 1) for e in flaps) == changes    # every change counted, none twice
    assert flaps[-1][3] == (ev.LINK_UP if up else ev.LINK_DOWN)    # the state it stayed in
    for _ in range(3600):                         # a quiet hour
        t += 1000
        rig.c.tick(t, WALL)
    rig.c.link(not up, t)                         # a new outage (or return): logged at once
    assert [(e[3], e[5]) for e in link_entries()[len(flaps):]] == [
        (ev.LINK_DOWN if up else ev.LINK_UP, 0)]
    t += 120 * 1000                               # and back two minutes later: at once too
    rig.c.tick(t, WALL)
    rig.c.link(up, t)
    assert [(e[3], e[5]) for e in link_entries()[len(flaps) + 1:]] == [
        (ev.LINK_UP if up else ev.LINK_DOWN, 0)]


@pytest.mark.parametrize("period_s", [90, 150, 240, 290])
def test_a_link_flapping_every_few_minutes_takes_at_most_16_entries_an_hour(rig, period_s):
    # Between the flapping the back-off is for (12 s to a minute: 5 or 6 an hour) and the
    # outages minutes apart that are each logged at once: a change every 1.5 to 5 minutes
    # takes at most 16 entries an hour (every 4 minutes: each of its 15 changes an hour its
    # own entry; a night of it, 120, leaves the 1,088-entry log's records), every change
    # counted.
    log = rig.memory.log
    before, t, up, changes, hourly = _flap_all_night(rig, period_s)
    assert max(hourly[1:]) <= 16, hourly
    for _ in range(640):
        t += 1000
        rig.c.tick(t, WALL)
    flaps = [e for e in log.events(before) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
    assert len(flaps) == log.count - before                # nothing else logged meanwhile
    assert sum(max(e[5], 1) for e in flaps) == changes


@pytest.mark.parametrize("every_min", [6, 10, 20])
def test_outages_minutes_apart_are_each_logged_down_and_up_within_ten_seconds(rig, every_min):
    # An access point that restarts every 6 to 20 minutes: each outage is a fault of its own,
    # a few entries an hour, and a technician reads its times from the log.  A rule that backed
    # off any entry less than 21 minutes after the one before (this session's first try) logged
    # those returns up to 640 s late, counted together ("LINK_UP, 2 changes"): outages of
    # about ten minutes in the log for ones of two seconds (the session's review).
    rig.step(1000, 11)
    log = rig.memory.log
    before = log.count

    def link_entries():
        return [(e[3], e[5]) for e in log.events(before) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]

    t = rig.now
    outages = 0
    for _ in range(4 * 60 // every_min):           # four hours of them
        for _ in range(every_min * 60 - 12):       # the link up, the loop ticking every second
            t += 1000
            rig.c.tick(t, WALL)
        rig.c.link(False, t)
        assert link_entries()[-1] == (ev.LINK_DOWN, 0)           # at once
        t += 2000
        rig.c.link(True, t)                                      # back two seconds later
        for _ in range(10):
            t += 1000
            rig.c.tick(t, WALL)
        assert link_entries()[-1] == (ev.LINK_UP, 0)             # within 10 s, on its own
        outages += 1
    assert link_entries() == [(ev.LINK_DOWN, 0), (ev.LINK_UP, 0)] * outages


def scarce_link_heap(monkeypatch):
    """No new bytearray of 1 KB or more from here on (test_controller.scarce_heap): the heap
    of a table after hours of play, with no piece for larger record buffers."""
    from firmware.jackpot import codec as jcodec
    from firmware.store import critical
    from host_tests.test_controller import scarce_heap

    scarce_heap(monkeypatch, critical, jcodec, tc).limit = 1024


def royal_claimed_while_the_link_is_down(rig):
    """Seats 1 and 2 locked, the link then down, a royal at seat 1 settled and confirmed by
    the supervisor: its claim waits for the link."""
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.wire_up = False
    rig.step(100, 3)
    rig.deal(ROYAL)
    rig.press(btn.SETTLE)
    rig.key(True)
    rig.press(btn.OK)
    rig.key(False)


def link_room_larger_than_the_heap_has(monkeypatch):
    """The link's sections asked 2 KB more room than a round's entries take: a size the
    scarce heap has no piece for, so that sizing the buffers for a round fails."""
    from firmware.table import linked

    bounds = linked.LinkedRound.section_bounds

    def larger(self, sizes, wager):
        bounds(self, sizes, wager)
        sizes[tc.SECTION_LINK] += 2048

    monkeypatch.setattr(linked.LinkedRound, "section_bounds", larger)


def test_a_linked_rounds_commits_need_no_new_record_buffer_and_a_lock_without_room_is_refused(
        rig, monkeypatch):
    # the link's ledger grows in the round's commits (its contribution, the hit claimed while
    # the link is down): the buffers are made for a round's entries at LOCK, before anything
    # is taken, so that a fragmented heap never refuses the round's SETTLE
    scarce_link_heap(monkeypatch)
    kept = {id(rig.memory._buf), id(rig.memory._scratch)}
    royal_claimed_while_the_link_is_down(rig)
    assert rig.c.phase == tc.RESULTS and rig.link.awaiting and rig.memory.step == 3
    assert {id(rig.memory._buf), id(rig.memory._scratch)} == kept
    rig.press(btn.SETTLE)
    link_room_larger_than_the_heap_has(monkeypatch)
    rig.wire_up = True
    rig.step(100, 10)
    assert rig.c.jackpot_open()
    last_n, seq = rig.link.last_n, rig.memory.seq
    rig.chips(1)
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.OPEN and "LOCK refused" in rig.c.last_refusal
    assert "allocating" in rig.c.last_refusal
    assert rig.link.last_n == last_n and rig.memory.seq == seq


def test_payouts_arriving_after_the_polls_take_fit_the_room_the_lock_made_for_the_link(
        rig, monkeypatch):
    # LOCK sizes the record buffers for the link's section at the most the round can make of
    # it, but a payout for an earlier claim sits in that section (its Result) from when it
    # arrives until a poll takes it: one arriving after this pass's poll went into the SETTLE
    # commit in no room made for it (here 16 of them, 2 KB: past the whole room), and a heap
    # with no larger piece then fails the round's commit
    rig.controller.order_window = 600000            # the link holds the payouts a while
    for i in range(16):
        # earlier rounds' flushes at every seat, claimed
        rig.link.hit(100 + i, WALL, [[seat, 0, WAGER] for seat in range(1, 8)])
        rig.step(100, 1)
    assert len(rig.link.awaiting) == 16
    rooms = []
    reserve = rig.memory.reserve

    def spy(sizes):
        rooms.append(sizes[tc.SECTION_LINK])
        return reserve(sizes)

    monkeypatch.setattr(rig.memory, "reserve", spy)
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.deal([(1, "2c 3d"), (0, "4h 6s"), (8, "Qs Jd 7h 8c Kh")])
    for hit in rig.controller.due:
        rig.controller.due[hit] = rig.now           # paid now: after this pass's poll
    rig.step(100, 1)
    written = []
    commit = rig.memory.commit

    def spy_commit(round_no, step, sections=None, *args, **kwargs):
        written.append(len(sections[tc.SECTION_LINK]))
        return commit(round_no, step, sections, *args, **kwargs)

    monkeypatch.setattr(rig.memory, "commit", spy_commit)
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.RESULTS and written
    assert written[-1] <= rooms[-1]
    # every payout is still taken, one a pass, the rest asked for again
    rig.step(100, 60)
    assert rig.link.awaiting == [] and len(rig.events(ev.JACKPOT_HIT)) == 7 * 16
    assert rig.link.totals[3:] == rig.controller.totals(TABLE)[3:] == [7 * 16 * 100 * WAGER, 7 * 16]


def test_rejected_and_mismatching_messages_are_logged(rig):
    forged = b"0" * 64 + b'{"v":1}'
    rig.link.on_message(rig.link.topic_down, forged, rig.now)
    rig.link.on_message(rig.link.topic_down, forged, rig.now)
    rig.step(100, 1)
    rejects = rig.events(ev.LINK_REJECT)
    assert [(e[4], e[5]) for e in rejects] == [(ev.LINK_REASONS.index(codec.FORGED) + 1, 2)]
    # a controller that reports wagers this table never made
    rig.link.totals[0] += 500
    rig.link.state = 1  # SYNCING: compare totals at the next status
    rig.step(100, 3)
    assert rig.link.state == MISMATCH and not rig.c.jackpot_open()
    assert rig.c.view.meter_fault == "LINK Err"
    mismatch = rig.events(ev.LINK_MISMATCH)
    assert [(e[5], e[6]) for e in mismatch] == [(500, 0)]
    # the supervisor looks into it (here: the table's figure was the wrong one), then clears
    # it: key + long BACK between rounds; the link reconciles again and wagering reopens
    rig.link.totals[0] -= 500
    rig.press(btn.BACK, long=True)                # without the key: nothing
    assert rig.link.state == MISMATCH
    rig.key(True)
    rig.press(btn.BACK, long=True)
    rig.key(False)
    assert [e[4] for e in rig.events(ev.LINK_MISMATCH)] == [0, 1]    # found, then cleared
    rig.step(100, 5)
    assert rig.link.state == UP and rig.c.jackpot_open() and rig.c.view.meter_fault == ""


def test_the_configuration_menu_is_refused_on_a_linked_table(rig):
    wager = rig.c.jackpot.config.wager
    rig.key(True)
    rig.press(btn.SETTLE, long=True)
    rig.press(btn.OK)
    assert rig.c.jackpot.config.wager == wager
    assert "Linked" in rig.c.message


def test_ram_clear_keeps_the_link_ledger(rig):
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.memory.status = "RAM ERROR"
    rig.c._set_phase(tc.RAM_ERROR)
    rig.ram_clear()
    section = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert section.last_n == 1 and section.totals[0] == WAGER


def test_a_linked_table_whose_file_went_missing_never_opens_its_frozen_local_pool(rig):
    """The flash erased and the program put back without /config.json (the FRAM kept
    critical memory), or the file deleted: no file means the built-in defaults, a standalone
    table, which at a table whose memory holds a link ledger would take jackpot wagers into
    the local pool frozen since it was linked.  It stays closed until the file is back."""
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    rig.press(btn.SETTLE)
    rig.step(100, 3)
    assert rig.c.phase == tc.OPEN and rig.memory.section(tc.SECTION_LINK) is not None
    memory = CriticalMemory([FileSlot(rig.fs, "a.bin"), FileSlot(rig.fs, "b.bin")], rig.fs)
    c = tc.RoundController(memory, game=None)           # no file: no game, no link
    c.boot(rig.now, WALL)
    c.set_config_status(True, "no /config.json: defaults")
    assert c.phase == tc.RESULTS                        # the linked round's, again
    # the status and the audit menu say why the jackpot stays closed, not only "defaults"
    said = "no /config.json: defaults, link ledger kept: JP closed"
    assert c.config_state() == (True, said)
    from firmware.table import audit
    menu = audit.open_menu(c)
    assert said in "".join([menu[i] for i in range(len(menu))])     # whole, not cut
    c.panel(btn.PRESS, btn.SETTLE, rig.now + 10)
    assert c.phase == tc.OPEN and not c.jackpot_open() and c.view.meter_fault == "LINK dn"
    assert c.view.meter[0] == -1                        # nor its frozen amount on the sign
    c.spot(sens.PLACED, sens.jackpot_spot(1), rig.now + 20)
    c.spot(sens.PLACED, sens.ante_spot(1), rig.now + 20)
    c.panel(btn.PRESS, btn.LOCK, rig.now + 40)
    assert c.phase == tc.LOCKED and c.rec.accepted == 0     # no wager into the frozen pool


def _no_file_boot(rig, unkeyed=False):
    """The rig's table booted again without /config.json (no game, no link); unkeyed: its
    program passed the check without a key."""
    memory = CriticalMemory([FileSlot(rig.fs, "a.bin"), FileSlot(rig.fs, "b.bin")], rig.fs)
    c = tc.RoundController(memory, game=None)
    c.unkeyed = unkeyed
    c.boot(rig.now, WALL)
    c.set_config_status(True, "no /config.json: defaults")
    return c, memory


def _ram_clear_at(c, now):
    c.panel(btn.KEY_ON, 0, now)
    c.panel(btn.PRESS, btn.OK, now + 10)
    c.panel(btn.LONG, btn.OK, now + 10)
    c.panel(btn.RELEASE, btn.OK, now + 20)
    c.panel(btn.PRESS, btn.OK, now + 30)
    c.panel(btn.RELEASE, btn.OK, now + 40)
    c.panel(btn.KEY_OFF, 0, now + 50)


def test_a_ram_clear_at_a_linked_table_without_its_file_keeps_the_link_ledger(rig):
    """A keyed linked table that lost both /manifest.key and /config.json stops in RAM
    ERROR; the supervisor's RAM clear must not drop the link's ledger (a contribution the
    link never acknowledged): the table stays a linked one, closed until its file is back,
    after the clear and after the next boot."""
    rig.memory.key = True                               # it ran keyed
    rig.wire_up = False
    rig.chips(1)
    rig.press(btn.LOCK)                                 # an entry the link has not acknowledged
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    rig.press(btn.SETTLE)
    assert rig.memory.keyed
    c, memory = _no_file_boot(rig, unkeyed=True)
    c.set_program(True, "verified (no key)", "")
    assert c.phase == tc.RAM_ERROR
    _ram_clear_at(c, rig.now + 100)
    assert c.phase == tc.OPEN
    kept = memory.section(tc.SECTION_LINK)
    assert kept is not None and TableLink.restore(TABLE, KEY, None, kept).entries[0][0] == 1
    assert not c.jackpot_open() and c.view.meter[0] == -1
    c, memory = _no_file_boot(rig)                      # and after the next power-up
    assert memory.section(tc.SECTION_LINK) == kept and not c.jackpot_open()


def test_a_ram_clear_of_a_bad_record_without_the_file_keeps_the_link_ledger(rig):
    """The same with a round record the program cannot read (RAM ERROR "bad record") at a
    linked table without /config.json."""
    rig.wire_up = False
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    rig.press(btn.SETTLE)
    rig.memory.commit_admin({tc.SECTION_ROUND: b"RD\x09"})
    c, memory = _no_file_boot(rig)
    assert c.phase == tc.RAM_ERROR and "bad record" in c.last_refusal
    _ram_clear_at(c, rig.now + 100)
    kept = memory.section(tc.SECTION_LINK)
    assert kept is not None and TableLink.restore(TABLE, KEY, None, kept).entries[0][0] == 1
    assert c.phase == tc.OPEN and not c.jackpot_open()


def test_the_audit_menu_of_a_linked_table_without_its_link_says_its_pool_is_frozen(rig):
    """The sign of a linked table booted without /config.json shows no amount; its audit
    menu must not list the local pool, frozen since the table was linked, as a live one
    either: it says the table is linked, without its link, as a linked table's menu does."""
    rig.chips(1)
    rig.press(btn.LOCK)
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    rig.press(btn.SETTLE)
    c, _ = _no_file_boot(rig)
    c.panel(btn.PRESS, btn.SETTLE, rig.now + 10)        # the results again, then OPEN
    c.panel(btn.RELEASE, btn.SETTLE, rig.now + 20)
    c.panel(btn.KEY_ON, 0, rig.now + 30)
    c.panel(btn.PRESS, btn.OK, rig.now + 40)
    c.panel(btn.LONG, btn.OK, rig.now + 40)
    c.panel(btn.RELEASE, btn.OK, rig.now + 50)
    assert c.phase == tc.AUDIT
    menu = list(c.menu)
    assert "LINKED, no link" in menu and "local JP frozen" in menu
    assert menu.index("local JP frozen") < menu.index("main $0.00")


def test_the_meters_reply_of_a_linked_table_without_its_link_says_its_pool_is_frozen(rig):
    # the service and tools.audit must not report the frozen local pool as a live one either
    from firmware.service import Service
    from tools.audit import read_all, report

    c, _ = _no_file_boot(rig)
    service = Service(c, None)
    meters = service.handle("meters")
    assert meters["frozen"] is True and meters["linked"] is False
    link = types.SimpleNamespace(request=service.handle)      # tools.audit's link, in process
    text = report(read_all(link))
    assert "frozen since it was linked, not the live pool" in text


def table_whose_link_was_not_built(tmp_path):
    """The controller of a table RAM-cleared, then booted as firmware.app.start leaves one
    whose link section it could not build (no key file): CONFIG ERROR, link required, down."""
    from host_tests.test_controller import Table

    t = Table(tmp_path)
    t.ram_clear()
    c = t.c
    c.set_config_status(False, "link key /link.key: [Errno 2] ENOENT")
    c.link_required = True
    c.link(False, t.tick())
    return c


def test_a_linked_table_whose_link_was_not_built_shows_no_frozen_amount(tmp_path):
    """firmware.app.start with a link section it could not build (no key file, the broker's
    name not found): CONFIG ERROR, the jackpot closed, and the sign no amount of the local
    pool, frozen since the table was linked (not the link's pool)."""
    c = table_whose_link_was_not_built(tmp_path)
    assert not c.jackpot_open() and c.view.meter_fault == "CONF Err" and c.view.meter[0] == -1


def test_the_audit_of_a_table_whose_link_was_not_built_does_not_say_its_file_is_missing(
        tmp_path):
    # /config.json there, its link not built (no key file): the meters reply says the pool
    # is frozen, and tools.audit must not put it down to a missing configuration file
    from firmware.service import Service
    from tools.audit import read_all, report

    c = table_whose_link_was_not_built(tmp_path)
    service = Service(c, None)
    assert service.handle("meters")["frozen"] is True
    text = report(read_all(types.SimpleNamespace(request=service.handle)))
    assert "frozen since it was linked, not the live pool" in text
    assert "no configuration file)" not in text

# ---------------------------------------------------------------- configuration file, key file

BASE = {"format": 1, "game": "uth"}


def parse(link):
    data = dict(BASE)
    data["link"] = link
    return config_file.parse(json.dumps(data))


def test_link_section_is_read():
    table = parse({"table": 12, "broker": "10.0.0.5", "port": 8883, "key_file": "/keys/link.hex",
                   "wifi_ssid": "pit-3", "wifi_password": "secret"})
    link = table.link
    assert (link.table, link.broker, link.port, link.key_file) == (12, "10.0.0.5", 8883, "/keys/link.hex")
    assert (link.wifi_ssid, link.wifi_password) == ("pit-3", "secret")
    defaults = parse({"table": 1, "broker": "broker.local"}).link
    assert defaults.port == 1883 and defaults.key_file == "/link.key"
    assert parse({"enabled": False, "table": 1}).link is None
    assert config_file.parse(json.dumps(BASE)).link is None


@pytest.mark.parametrize("link, words", [
    ({"table": 0, "broker": "h"}, ("link.table", "0")),
    ({"table": 10000, "broker": "h"}, ("link.table", "10000")),
    ({"table": True, "broker": "h"}, ("link.table", "True")),
    ({"table": 1}, ("link.broker", "missing")),
    ({"table": 1, "broker": ""}, ("link.broker",)),
    ({"table": 1, "broker": "a b"}, ("link.broker", "a b")),
    ({"table": 1, "broker": "h", "port": 70000}, ("link.port", "70000")),
    ({"table": 1, "broker": "h", "key_file": "link.key"}, ("link.key_file", "absolute")),
    ({"table": 1, "broker": "h", "wifi_ssid": "caf\u00e9"}, ("link.wifi_ssid",)),
    ({"table": 1, "broker": "h", "colour": 1}, ("link.colour", "unknown")),
    ({"table": 1, "broker": "h", "enabled": "yes"}, ("link.enabled", "yes")),
    ("on", ("link", "not an object")),
    # switched off, still checked: turning it on must not reveal a bad value
    ({"enabled": False, "table": "x"}, ("link.table", "'x'")),
    ({"enabled": False, "port": 0}, ("link.port", "0")),
])
def test_bad_link_sections_are_refused_naming_key_and_value(link, words):
    with pytest.raises(config_file.ConfigError) as info:
        parse(link)
    for word in words:
        assert word in str(info.value)


def test_only_a_uth_table_can_be_linked():
    with pytest.raises(config_file.ConfigError, match="link: the linked progressive"):
        config_file.parse(json.dumps({"format": 1, "game": "fcp", "link": {"table": 1, "broker": "h"}}))


def test_link_key_file(tmp_path):
    path = tmp_path / "link.key"
    path.write_text(KEY.hex()[:32] + "\n" + KEY.hex()[32:] + "\n")
    assert linksetup.read_link_key(str(path)) == KEY
    for text, word in (("abc", "got 3"), ("zz" * 16, "not hex"), ("0" * 33, "got 33"), ("0" * 130, "130")):
        with pytest.raises(ValueError, match=word):
            linksetup.parse_link_key(text)
    with pytest.raises(OSError):
        linksetup.read_link_key(str(tmp_path / "missing.key"))


class FakeWLAN:
    """network.WLAN as the app uses it: active(), connect(), isconnected()."""

    def __init__(self, joins_after=2):
        self.calls = []
        self.polls = 0
        self.joins_after = joins_after

    def active(self, on):
        self.calls.append(("active", on))

    def connect(self, ssid, password):
        self.calls.append(("connect", ssid, password))

    def isconnected(self):
        self.polls += 1
        return self.polls > self.joins_after


class FakeBoard:
    name = "pico_w"

    def __init__(self, wlan):
        self.make_wlan = (lambda: wlan) if wlan else None


def test_board_link_joins_wifi_reads_the_key_and_builds_the_setup(tmp_path):
    path = tmp_path / "link.key"
    path.write_text(KEY.hex())
    settings = parse({"table": 9, "broker": "127.0.0.1", "key_file": "/link.key", "wifi_ssid": "pit",
                      "wifi_password": "pw"}).link
    settings.key_file = str(path)  # the board's /link.key, here in a temporary directory
    wlan = FakeWLAN()
    clock = [0]

    def sleep(ms):
        clock[0] += ms

    setup, problem = linksetup.board_link(FakeBoard(wlan), settings, lambda: clock[0], sleep)
    assert problem == "" and setup.table == 9 and setup.key == KEY
    assert wlan.calls == [("active", True), ("connect", "pit", "pw")]
    assert clock[0] == 100  # the network joined at the third look: one 100 ms wait
    setup, problem = linksetup.board_link(FakeBoard(None), settings, lambda: 0, sleep)
    assert setup is None and "no Wi-Fi" in problem
    settings.key_file = str(tmp_path / "missing.key")
    setup, problem = linksetup.board_link(FakeBoard(FakeWLAN()), settings, lambda: 0, sleep)
    assert setup is None and "missing.key" in problem and KEY.hex() not in problem
    # Wi-Fi that never comes up: the wait is bounded, the link keeps trying later
    settings.key_file = str(path)
    never = FakeWLAN(joins_after=10 ** 9)
    clock[0] = 0
    setup, problem = linksetup.board_link(FakeBoard(never), settings, lambda: clock[0], sleep, wait_ms=1000)
    assert setup is not None and clock[0] == 1000
    # ... and the loop joins it again (LinkSetup.rejoin, every 30 s)
    assert setup.rejoin() and never.calls[-1] == ("connect", "pit", "pw")


@pytest.mark.parametrize("args, words", [
    (["--link", "127.0.0.1"], "needs --link"),
    (["--link", "127.0.0.1:x", "--table-id", "1", "--key-file", "k"], "HOST:PORT"),
    (["--link", "127.0.0.1:1883", "--table-id", "0", "--key-file", "k"], "1..9999"),
    (["--link", "127.0.0.1:1883", "--table-id", "1", "--key-file", "/nonexistent/k"], "--key-file"),
    (["--table-id", "0"], "needs --link"),      # not a standalone table run without a word
])
def test_sim_link_arguments_are_checked(args, words, capsys):
    from tools import sim
    with pytest.raises(SystemExit):
        sim.main(["--memory"] + args)
    assert words in capsys.readouterr().err


def test_four_jackpot_hits_in_one_round_fit_the_confirm_screen(tmp_path):
    """Standalone or linked, four winners used to run off the 8-line display (IndexError)."""
    fs = PathFS(str(tmp_path))
    memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
    c = tc.RoundController(memory)
    c.boot(0, WALL)
    now = [0]

    def press(button, long=False):
        now[0] += 20
        c.panel(btn.PRESS, button, now[0])
        if long:
            c.panel(btn.LONG, button, now[0])
        c.panel(btn.RELEASE, button, now[0])

    c.panel(btn.KEY_ON, 0, 1)
    press(btn.OK, True)
    press(btn.OK)
    for seat in (1, 2, 3, 4):
        c.spot(sens.PLACED, sens.jackpot_spot(seat), now[0])
        c.spot(sens.PLACED, sens.ante_spot(seat), now[0])
    press(btn.LOCK)
    # four heart flushes with the flop Th Jh Ah: 100 to 1 each (rules.md 11.9)
    for dest, text in ((1, "2h 3h"), (2, "4h 5h"), (3, "6h 7h"), (4, "8h 9h"), (0, "2c 3c"),
                       (8, "Th Jh Ah 2s 3s")):
        for card in cards.parse(text):
            c.card(dest, card, now[0])
    press(btn.SETTLE)
    assert c.phase == tc.CONFIRM and len(c.hits) == 4
    assert c.view.lines[0] == "JACKPOT x4 r1"
    assert c.view.lines[1:7] == ["S1 Flush", " $100.00", "S2 Flush", " $100.00", "S3 Flush", " $100.00"]
    press(btn.OK)
    assert c.phase == tc.RESULTS
    assert [e[4:7] for e in memory.log.events(0) if e[3] == ev.JACKPOT_HIT] == [
        (s, 0, 100 * WAGER) for s in (1, 2, 3, 4)]


def test_service_protocol_on_a_linked_table_reads_the_ledger_and_refuses_config(rig):
    from firmware.service import REFUSED, Service
    service = Service(rig.c)
    rig.key(True)
    reply = service.handle('config_set {"wager": 200}')
    assert reply["ok"] is False and reply["code"] == REFUSED and "link controller" in reply["error"]
    rig.key(False)
    rig.chips(3)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    meters = service.handle("meters")
    assert meters["linked"] is True and meters["link"] == "UP" and meters["link_problem"] == ""
    assert meters["table"]["wagered"] == WAGER
    assert meters["pools"]["linked"][0] == rig.ledger()["pool"][0]


def test_a_failed_link_commit_is_retried_after_a_second_even_across_the_tick_wrap(rig):
    c = rig.c
    wrap = 1 << 30                          # the board's time.ticks_ms() wraps here
    for now in (1000, wrap - 500):          # a plain retry, then one that spans the wrap
        failures = []
        c.commit_admin = lambda events, sections=None, seen=failures: (
            seen.append(1) or "FRAM write failed")
        rig.link.dirty = True
        c.link_poll(now)
        assert failures == [1] and rig.link.dirty
        del c.commit_admin                  # the store works again
        c.link_poll((now + 500) % wrap)     # still waiting
        assert rig.link.dirty
        c.link_poll((now + 1000) % wrap)    # the second is up: committed
        assert not rig.link.dirty


def test_a_flood_of_rejected_messages_cannot_push_the_round_records_out_of_the_log(rig):
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.step(20, 5)
    forged = b"0" * 64 + b'{"v":1}'
    for _ in range(3000 * 10):          # ten minutes of 20 ms passes, a forged message in each
        rig.link.on_message(rig.link.topic_down, forged, rig.now)
        rig.step(20, 1)
    rejects = rig.events(ev.LINK_REJECT)
    # the first at once, then one as each window closes: after 10, 20, 40, 80 and 160 s (the
    # 320 s window that began at 310 s is still open)
    assert len(rejects) == 6
    assert sum(e[5] for e in rejects) + rig.c.linked.rejects == 30000   # every one counted
    assert len(rig.events(ev.LOCK)) == 1                   # the round's record is still there
    rig.step(20, 40000 // 20)           # quiet: the window closes; the count waiting is logged
    rig.step(20, 1)
    assert rig.c.linked.rejects == 0 and sum(e[5] for e in rig.events(ev.LINK_REJECT)) == 30000


def rig_with_link_config(path, config):
    """A Rig whose link controller starts afresh with its own jackpot configuration."""
    r = Rig(path)
    r.controller.close()
    os.remove(r.db)
    r.controller = Controller(r.db, {TABLE: KEY}, lambda t, p: r.down.append((t, p)),
                              clock_s=lambda: WALL, order_window=0, broadcast_every=0,
                              config=config)
    return r


def _refusing_rig(path):
    """A reconciled Rig whose link controller's pay table then stops paying a royal (0 to 1
    and 0%): a table whose pay table differs when they reconcile never opens its jackpot
    (test_a_pay_table_other_than_the_links_is_a_mismatch_that_keeps_the_jackpot_closed), so
    a refused claim is one made before the link's changed."""
    from firmware.jackpot import config as jcfg

    r = Rig(path)
    r.ram_clear()
    r.step(100, 5)
    r.controller.config = jcfg.build({"pay": {"royal_flush": [0, 0]}})
    return r


def test_a_claim_the_link_refuses_is_told_and_logged_not_beeped_as_paid(tmp_path):
    # the controller's pay table does not pay a royal (0 to 1 and 0%), the table's does: it
    # cannot pay the claim, and it answers with no payout (a wager that differs keeps the
    # table closed instead: test_a_link_wager_other_than_the_tables_keeps_the_jackpot_closed)
    r = _refusing_rig(tmp_path)
    royal_at_seat_1(r)
    r.press(btn.OK)
    r.key(False)
    r.step(100, 10)
    assert [e[5] for e in r.events(ev.LINK_REFUSED)] == [r.c.rec.round_no]
    assert r.events(ev.JACKPOT_HIT) == []
    assert r.c.view.beep == BEEP_ERROR
    assert "JP NOT PAID" in r.c.results
    assert r.c.last_refusal.startswith("JP NOT PAID r%d" % r.c.rec.round_no)


def test_a_refused_claim_names_a_four_digit_round_whole_on_the_display(tmp_path):
    # "JP NOT PAID r1234" is one column too many: cut, it named round 123
    r = _refusing_rig(tmp_path)
    r.c.rec.round_no = 1234                 # a table that has played a while
    royal_at_seat_1(r)
    r.press(btn.OK)
    r.key(False)
    r.step(100, 10)
    assert [e[5] for e in r.events(ev.LINK_REFUSED)] == [1234]
    assert r.c.view.lines[6:] == ["JP NOT PAID", "r1234 refused"]
    assert r.c.last_refusal.startswith("JP NOT PAID r1234")


def test_a_hand_the_link_refuses_alone_is_told_with_its_reason_and_the_royal_beside_it_paid(rig):
    # the link's pay table stops paying a flush while the table is up (its ledger made afresh
    # with another pay table): a round with a royal at seat 1 and a flush at seat 2 pays the
    # royal and refuses the flush alone, the seat, hand and reason told and logged
    from firmware.jackpot import config as jcfg

    rig.controller.config = jcfg.build({"main": {"reset": RESET}, "pay": {"flush": [0, 0]}})
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.deal([(1, "As Ks"), (2, "2s 3s"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")])
    rig.press(btn.SETTLE)
    rig.key(True)
    rig.press(btn.OK)
    rig.key(False)
    rig.step(100, 10)
    round_no = rig.c.rec.round_no
    assert [(e[4], e[5], e[6]) for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4, RESET + 140)]
    assert [(e[2], e[4], e[5], e[6]) for e in rig.events(ev.LINK_REFUSED)] == [
        (round_no, 2, round_no, codec.REFUSED_HAND)]
    assert "JP S2 NOT PAID" in rig.c.results and "JP S1 $10001.40" in rig.c.results
    assert rig.c.message == "JP S2 NOT PAID\nFlush"
    assert rig.c.last_refusal == ("JP S2 NOT PAID: r%d Flush: the link's pay table does not pay it"
                                  % round_no)
    assert rig.link.totals[3:] == [RESET + 140, 1] == rig.controller.totals(TABLE)[3:]
    assert rig.link.state == UP and rig.c.view.beep == BEEP_ERROR
    from firmware.table import audit

    refused = rig.events(ev.LINK_REFUSED)[0]
    assert audit.values(ev.LINK_REFUSED, *refused[4:7]) == ("S2", "pay table")
    assert rig.c.linked.resumed_lines(round_no) == ["JP S1 $10001.40", "JP S2 NOT PAID"]
    texts = [e[2] for e in rig.ledger()["events"] if e[1] == "hit refused"]
    assert len(texts) == 1 and "seat 2" in texts[0] and "Flush" in texts[0]


def royal_claimed(rig, link_up):
    """Seats 1 and 2 locked, seat 1 dealt a royal, confirmed by the supervisor and claimed;
    with the link down (link_up False) the claim waits."""
    rig.chips(1, 2)
    rig.press(btn.LOCK)
    rig.step(100, 3)
    rig.wire_up = link_up
    rig.deal(ROYAL)
    rig.press(btn.SETTLE)
    rig.key(True)
    rig.press(btn.OK)
    rig.key(False)
    rig.step(100, 5)


@pytest.mark.parametrize("answered", [True, False])
def test_a_linked_round_shown_again_after_a_power_cut_keeps_its_jackpot_line(rig, answered):
    r = rig
    royal_claimed(r, answered)            # the link down: the claim is still waiting
    before = [line for line in r.c.results if line.startswith("JP ")]
    r.link = None
    r.boot()                              # the power comes back: "settled before power cut"
    assert r.c.phase == tc.RESULTS
    shown = [line for line in r.c.results if line.startswith("JP ")]
    if answered:
        assert shown == before and shown[0].startswith("JP S1 $")
    else:
        assert shown == ["JP S1 claimed"]


def test_link_log_entries_whose_commit_failed_are_logged_when_the_store_works_again(rig):
    forged = b"0" * 64 + b'{"v":1}'
    commits = []
    rig.c.commit_admin = lambda events, sections=None: commits.append(1) or "FRAM write failed"
    rig.link.on_message(rig.link.topic_down, forged, rig.now)
    rig.step(100, 5)                        # tried once, then not before the retry time
    assert len(commits) == 1 and rig.events(ev.LINK_REJECT) == []
    del rig.c.commit_admin                  # the store works again
    rig.step(100, 12)
    assert [e[5] for e in rig.events(ev.LINK_REJECT)] == [1]   # the reject, counted, not lost


def test_a_payout_for_an_earlier_round_is_not_shown_as_this_rounds_after_a_power_cut(rig):
    # round 1's royal is claimed with the link down; round 2 is locked when the link comes
    # back and the payout arrives (logged under round 2); round 2 settles with no hit; the
    # power fails: round 2's results come back without round 1's jackpot line
    royal_claimed(rig, False)
    rig.press(btn.SETTLE)                  # round 2
    rig.step(100, 2)
    rig.press(btn.LOCK)
    rig.wire_up = True
    rig.step(100, 40)
    assert [e[2] for e in rig.events(ev.JACKPOT_HIT)] == [2]      # paid, logged in round 2
    rig.deal(PLAIN)
    rig.press(btn.SETTLE)
    rig.step(100, 5)
    rig.link = None
    rig.boot()
    assert rig.c.rec.round_no == 2 and rig.c.phase == tc.RESULTS
    assert [line for line in rig.c.results if line.startswith("JP ")] == []


def test_more_payouts_than_one_commit_holds_are_all_logged_even_across_a_power_cut(rig):
    # five hit entries answered together, seven seats each: 35 JACKPOT_HIT entries, more than
    # one commit takes (MAX_EVENTS_PER_COMMIT): none may be dropped from the log, whose money
    # must match the link meters
    from firmware.link.tablelink import Result

    for n in range(5):
        rows = [[seat, 0, 10000 + 100 * n + seat, 0] for seat in range(1, 8)]
        rig.link.results.append(Result(100 + n, 1, rows, [RESET], [RESET]))
    rig.c.link_poll(rig.now)                 # the first commit: what fits
    logged = len(rig.events(ev.JACKPOT_HIT))
    assert 0 < logged <= ev.MAX_EVENTS_PER_COMMIT
    rig.link = None
    rig.boot()                               # power cut: the rest come back from the section
    rig.step(100, 5)
    hits = rig.events(ev.JACKPOT_HIT)
    assert len(hits) == 35
    assert sorted(e[6] for e in hits) == sorted(10000 + 100 * n + s for n in range(5) for s in range(1, 8))


class _Stop(Exception):
    pass


UNIX_NOW = 1800000000           # what the NTP server says it is (seconds since 1970)


class FakeClock:
    """The loop's NTP client as app.run drives it: ask(now) starts an exchange, poll(now)
    answers (seconds since 1970, or 0: failed) `wait` seconds later; the server answers from
    up_at on."""

    def __init__(self, clock, up_at, wait):
        self.clock = clock
        self.up_at = up_at
        self.wait = wait
        self.tries = []
        self.asked_at = None
        self.answered_at = None

    def ask(self, now):
        self.tries.append(int(self.clock[0]))
        self.asked_at = self.clock[0]
        return True

    def poll(self, now):
        if self.asked_at is None or self.clock[0] - self.asked_at < self.wait:
            return None
        self.asked_at = None
        if self.clock[0] < self.up_at:
            return 0
        if self.answered_at is None:
            self.answered_at = self.clock[0]
        return UNIX_NOW + int(self.clock[0])


def run_loop(monkeypatch, setup, clock, until=4000, reads=None):
    """app.run with a fake time module and a FakeApp; returns the (clock, wall, pass length)
    of every pass.  reads: a list that gets an item at every time.time() call."""
    import sys
    import types

    from firmware import app as appmod

    def now_s():
        if reads is not None:
            reads.append(clock[0])
        return clock[0]

    fake = types.SimpleNamespace(
        time=now_s, ticks_ms=lambda: int(clock[0] * 1000) & 0x3FFFFFFF,
        ticks_diff=lambda a, b: ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000,
        sleep_ms=lambda ms: clock.__setitem__(0, clock[0] + ms / 1000.0),
        gmtime=lambda t: (2000, 1, 1, 0, 0, 0, 5, 1))
    passes = []

    class FakeApp:
        clock_set_at = None

        def clock_set(self):
            if self.clock_set_at is None:       # the first answer's
                self.clock_set_at = clock[0]

        def step(self, now, wall):
            if passes:
                passes[-1][2] = clock[0] - passes[-1][0]
            passes.append([clock[0], wall, 0])
            clock[0] += 0.02
            if clock[0] > until:
                raise _Stop()

    monkeypatch.setitem(sys.modules, "time", fake)
    app = FakeApp()
    monkeypatch.setattr(appmod, "start", lambda hw, checks: (app, setup))
    with pytest.raises(_Stop):
        appmod.run(None, None)
    if setup is not None:
        setup.clock_set_at = app.clock_set_at
    return passes


@pytest.mark.parametrize("boot_retry, ntp_up_at, wait, expect", [
    # NTP not reachable at boot (the floor's network came up after the boot's wait), failing
    # quickly: tried every minute until it answers, then every hour
    (True, 300, 0, [60, 120, 180, 240, 300, 3900]),
    # a server that does not answer within its second is still tried every minute
    (True, 200, 1.0, [60, 120, 180, 240, 3840]),
    # set at boot: the next in an hour
    (False, 0, 0, [3600]),
    # never answering: every minute, and the loop is never held by it
    (True, 10 ** 9, 1.0, list(range(60, 4000, 60))),
])
def test_a_clock_ntp_could_not_set_at_boot_is_tried_again_within_a_minute(monkeypatch, boot_retry,
                                                                          ntp_up_at, wait, expect):
    # while the clock is not set every controller message is stale: the linked table's jackpot
    # stays closed, so waiting an hour for the next try kept it closed an hour after a power cut
    clock = [0.0]                         # seconds since boot (the board's epoch, unset RTC)
    setup = linksetup.LinkSetup(TABLE, KEY, None)
    setup.clock_retry = boot_retry
    setup.sntp = FakeClock(clock, ntp_up_at, wait)
    passes = run_loop(monkeypatch, setup, clock)
    assert [t - t % 60 for t in setup.sntp.tries] == expect
    assert max(p[2] for p in passes) < 0.05               # no pass held: a tick and its sleep
    # the answer sets the wall clock the loop hands on (the RTC is set at boot only)
    done = setup.sntp.answered_at
    if ntp_up_at < 4000:
        answered = [p for p in passes if p[0] > done + 0.01]
        assert answered and all(abs(p[1] - (UNIX_NOW + p[0])) <= 1 for p in answered)
        # and the table is told: the log's times are real again (critical memory, "Times")
        assert setup.clock_set_at is not None and 0 <= setup.clock_set_at - done < 0.05
    else:
        assert done is None and all(p[1] < UNIX_NOW for p in passes)   # the board's clock
        assert setup.clock_set_at is None


class DroppingWLAN:
    """network.WLAN whose access point goes away at down_at and is back at up_at (seconds of
    the loop's clock): the radio does not join again by itself (the Pico W's, once a join
    failed or the access point dropped it); a connect() while the access point is there
    joins 3 s later."""

    def __init__(self, clock, down_at, up_at):
        self.clock = clock
        self.down_at = down_at
        self.up_at = up_at
        self.joined_at = 0.0          # joined at boot
        self.connects = []

    def isconnected(self):
        now = self.clock[0]
        if self.down_at <= now < self.up_at:
            self.joined_at = None     # dropped, and not joining again by itself
        return self.joined_at is not None and now >= self.joined_at

    def connect(self, ssid, password):
        now = self.clock[0]
        self.connects.append((int(now), ssid, password))
        if not self.down_at <= now < self.up_at:
            self.joined_at = now + 3


def _loop_through_an_outage(monkeypatch, wlan_class):
    """The board's loop run to 400 s on a linked table's Wi-Fi, a wlan_class whose access point
    is gone from 100 s to 200 s: (the WLAN, the loop's passes)."""
    clock = [0.0]
    setup = linksetup.LinkSetup(TABLE, KEY, None)
    setup.sntp = FakeClock(clock, 0, 0)
    wlan = wlan_class(clock, 100, 200)
    setup.wlan, setup.ssid, setup.password = wlan, "pit", "pw"
    return wlan, run_loop(monkeypatch, setup, clock, until=400)


def test_wi_fi_that_drops_is_joined_again_by_the_loop_every_30_s_until_it_is_back(monkeypatch):
    # The access point restarted: the board's radio stayed off the network, the MQTT client
    # retried a broker it could not reach, and the table's jackpot stayed closed (LINK dn)
    # until someone restarted the table.
    wlan, passes = _loop_through_an_outage(monkeypatch, DroppingWLAN)
    # none while it is joined; every 30 s from the drop until the access point is back
    tries = [at for at, _, _ in wlan.connects]
    assert tries and all(100 <= at < 235 for at in tries) and tries[0] < 130
    assert all(b - a in (29, 30, 31) for a, b in zip(tries, tries[1:]))
    assert tries[-1] >= 200 and wlan.connects[0][1:] == ("pit", "pw")
    assert wlan.isconnected()
    assert max(p[2] for p in passes) < 0.05               # no pass held


class Esp32WLAN(DroppingWLAN):
    """The ESP32 port's network.WLAN: an ESP-IDF error it has no OSError for raises
    RuntimeError ('Wifi Unknown Error 0x0101': ESP_ERR_NO_MEM), here at each connect() while
    the access point is gone."""

    def connect(self, ssid, password):
        DroppingWLAN.connect(self, ssid, password)
        if self.down_at <= self.clock[0] < self.up_at:
            raise RuntimeError("Wifi Unknown Error 0x0101")


def test_a_wi_fi_driver_error_of_another_type_leaves_the_loop_running(monkeypatch):
    # A RuntimeError out of connect() came out of the loop: the table reset 30 s into each
    # boot while the access point was gone, and halted at the third boot in a row, for a
    # Wi-Fi outage the link only waits through.
    wlan, passes = _loop_through_an_outage(monkeypatch, Esp32WLAN)
    assert passes[-1][0] >= 399                            # the loop ran on to the end
    tries = [at for at, _, _ in wlan.connects]
    assert len([at for at in tries if at < 200]) >= 3 and tries[-1] >= 200
    assert wlan.isconnected()


@pytest.mark.parametrize("linked", [False, True])
def test_the_loop_reads_the_boards_clock_a_few_times_a_second_not_at_every_pass(monkeypatch, linked):
    # seconds since 1970 are past 2**30: every time.time() is a new int on the heap of a
    # 32-bit board (and so is the wall clock made from it), 100 allocations a second at
    # 50 passes a second, where the idle loop must allocate nothing.  Read a few times a
    # second, the wall clock handed to each pass is the same object, and still on time.
    clock = [0.0]
    setup = None
    if linked:
        setup = linksetup.LinkSetup(TABLE, KEY, None)
        setup.clock_retry = True
        setup.sntp = FakeClock(clock, 30, 0)
    reads = []
    passes = run_loop(monkeypatch, setup, clock, until=100, reads=reads)
    assert len(passes) > 4900
    assert len(reads) <= 400
    for at, wall, _ in passes:
        if linked and 60 <= at < 60.5:      # the clock set by NTP at 60 s
            continue
        base = UNIX_NOW if linked and at > 60 else 946684800    # (the fake board counts from 2000)
        assert 0 <= at - (wall - base) < 1.03     # int(): the second, as before
    if linked:
        assert setup.sntp.tries == [60]


class FakeSockets:
    """The socket module as firmware.link.sntp uses it: UDP sockets whose datagrams go to
    `sent` and whose answers come from `answers` (none: EAGAIN).  getaddrinfo of a name
    hangs, as a board's does on a DNS server that does not answer: it fails the test."""

    AF_INET = 2
    SOCK_DGRAM = 2

    def __init__(self):
        self.sent = []
        self.answers = []
        self.closed = 0

    def getaddrinfo(self, host, port):
        from firmware.link.sntp import _dotted

        assert _dotted(host), "getaddrinfo(%r) in the main loop: it waits for the DNS server" % host
        return [(2, 2, 17, "", (host, port))]

    def socket(self, family, kind):
        return _FakeUdp(self)


class _FakeUdp:
    def __init__(self, net):
        self.net = net
        self.blocking = True

    def setblocking(self, flag):
        self.blocking = flag

    def sendto(self, data, address):
        assert not self.blocking
        self.net.sent.append((bytes(data), address))

    def recv(self, n):
        if not self.net.answers:
            raise OSError(11, "EAGAIN")
        return self.net.answers.pop(0)[:n]

    def close(self):
        self.net.closed += 1


def dns_answer(query, ip, ident_shift=0):
    """A DNS server's answer to query: the question again, a CNAME-like record of another
    type first, then the A record (name compressed)."""
    ident = ((query[0] << 8 | query[1]) + ident_shift) & 0xFFFF
    head = bytes((ident >> 8, ident & 0xFF, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0))
    question = bytes(query[12:])
    other = b"\xc0\x0c\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x02\xc0\x0c"
    record = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + bytes(ip)
    return head + question + other + record


def ntp_answer(query, seconds, echo=True, stratum=2):
    data = bytearray(48)
    data[0] = 0x24                              # version 4, server
    data[1] = stratum
    if echo:
        data[24:32] = query[40:48]              # originate = the query's transmit time
    ntp = seconds + 2208988800
    data[40:44] = bytes(((ntp >> 24) & 0xFF, (ntp >> 16) & 0xFF, (ntp >> 8) & 0xFF, ntp & 0xFF))
    return bytes(data)


def test_the_loops_ntp_client_looks_the_name_up_and_asks_without_ever_waiting():
    from firmware.link import sntp

    net = FakeSockets()
    dns = ["192.168.1.1"]
    client = sntp.Sntp(lambda: dns[0], net)
    assert client.poll(0) is None                           # nothing asked
    dns[0] = "0.0.0.0"                                      # no network yet: nothing sent
    assert not client.ask(0) and net.sent == []
    dns[0] = "192.168.1.1"
    assert client.ask(1000)
    query, where = net.sent[-1]
    assert where == ("192.168.1.1", 53) and b"\x04pool\x03ntp\x03org\x00" in query
    assert client.poll(1100) is None                        # no answer yet
    net.answers.append(dns_answer(query, (9, 9, 9, 9), ident_shift=1))   # not ours
    net.answers.append(b"\x00")                             # a runt
    assert client.poll(1200) is None and client.poll(1201) is None
    net.answers.append(dns_answer(query, (10, 0, 0, 7)))
    assert client.poll(1300) is None                        # resolved: the NTP query is out
    ntp_query, where = net.sent[-1]
    assert where == ("10.0.0.7", 123) and len(ntp_query) == 48 and ntp_query[0] == 0x1B
    net.answers.append(ntp_answer(ntp_query, UNIX_NOW, echo=False))      # not an answer to us
    net.answers.append(ntp_answer(ntp_query, UNIX_NOW, stratum=0))      # kiss-o'-death
    assert client.poll(1400) is None and client.poll(1401) is None
    net.answers.append(ntp_answer(ntp_query, UNIX_NOW))
    assert client.poll(1500) == UNIX_NOW
    # an hour later: the address is known, one datagram, and a server that stays silent is
    # given up after a second (then looked up again, the pool's servers come and go)
    assert client.ask(5000) and net.sent[-1][1] == ("10.0.0.7", 123)
    assert client.poll(5999) is None and client.poll(6000) == 0
    assert client.ask(70000) and net.sent[-1][1] == ("192.168.1.1", 53)
    assert client.poll(71000) == 0                          # the DNS server silent too


def test_the_loops_ntp_client_takes_a_server_given_as_an_address_and_survives_garbage():
    from firmware.link import sntp

    net = FakeSockets()
    client = sntp.Sntp(lambda: None, net, host="10.1.2.3")
    assert client.ask(0) and net.sent[-1][1] == ("10.1.2.3", 123)
    net.answers.append(bytes(range(200)))                   # garbage: ignored, no exception
    assert client.poll(10) is None
    assert client.poll(1000) == 0
    assert client.ask(2000) and net.sent[-1][1] == ("10.1.2.3", 123)   # not looked up
    # a DNS answer cut anywhere never raises
    query = sntp.dns_query("pool.ntp.org", 7)
    whole = dns_answer(query, (1, 2, 3, 4))
    assert sntp.dns_address(whole, 7) == "1.2.3.4"
    for cut in range(len(whole)):
        assert sntp.dns_address(whole[:cut], 7) is None


def test_board_link_says_whether_the_clock_is_to_be_tried_again_soon(tmp_path, monkeypatch):
    path = tmp_path / "link.key"
    path.write_text(KEY.hex())
    settings = parse({"table": 9, "broker": "127.0.0.1", "key_file": "/link.key"}).link
    settings.key_file = str(path)
    clock = [0]
    # a failure that took long (a name lookup that hung, before the watchdog started) is
    # tried again within a minute too: the loop's own client cannot hang
    for answer, took, retry in ((True, 10, False), (False, 10, True), (False, 3000, True)):
        def set_clock(server=None, answer=answer, took=took):
            clock[0] += took
            return answer

        monkeypatch.setattr(linksetup, "set_clock", set_clock)
        setup, problem = linksetup.board_link(FakeBoard(FakeWLAN(0)), settings, lambda: clock[0],
                                              lambda ms: None)
        assert problem == "" and setup.clock_retry is retry
        assert setup.sntp.address is None and not setup.sntp.ask(0)   # no network: not sent


def test_a_casino_network_s_own_ntp_server_is_asked_at_boot_and_by_the_loop(tmp_path, monkeypatch):
    # a table network without the internet cannot reach pool.ntp.org: link.ntp_server names
    # the site's own server, for the boot's ntptime and for the loop's client alike
    path = tmp_path / "link.key"
    path.write_text(KEY.hex())
    settings = parse({"table": 9, "broker": "127.0.0.1", "ntp_server": "10.0.0.5"}).link
    settings.key_file = str(path)
    ntptime = types.ModuleType("ntptime")
    ntptime.host = "pool.ntp.org"
    asked = []
    ntptime.settime = lambda: asked.append(ntptime.host)
    monkeypatch.setitem(sys.modules, "ntptime", ntptime)
    setup, problem = linksetup.board_link(FakeBoard(FakeWLAN(0)), settings, lambda: 0, lambda ms: None)
    assert problem == "" and asked == ["10.0.0.5"] and not setup.clock_retry
    assert setup.sntp.host == "10.0.0.5"
    # without the key, ntptime's and the loop's default server, as before
    ntptime.host = "pool.ntp.org"
    del asked[:]
    settings = parse({"table": 9, "broker": "127.0.0.1"}).link
    settings.key_file = str(path)
    setup, problem = linksetup.board_link(FakeBoard(FakeWLAN(0)), settings, lambda: 0, lambda ms: None)
    assert asked == ["pool.ntp.org"] and setup.sntp.host == sntp.HOST == "pool.ntp.org"


@pytest.mark.parametrize("value, words", [
    ("ntp .example", "link.ntp_server: 'ntp .example' is not a host name"),
    (123, "link.ntp_server: 123 is not text"),
    ("", "link.ntp_server: '' is not text"),
    ("ntp..example", "link.ntp_server: 'ntp..example' is not a host name"),
    (".ntp", "link.ntp_server: '.ntp' is not a host name"),
    ("n" * 64, "is not a host name"),
])
def test_a_bad_ntp_server_is_refused_naming_the_key(value, words):
    with pytest.raises(config_file.ConfigError) as error:
        parse({"table": 9, "broker": "127.0.0.1", "ntp_server": value})
    assert words in str(error.value)


def test_a_server_name_the_dns_query_cannot_hold_never_stops_the_loop():
    # a fully qualified name (a trailing dot) is asked as the name; a name with an empty or
    # over-long label (config refuses it; the client may be given one by other code) is not
    # sent, and ask() says so instead of raising in the loop (app.run does not catch it)
    net = FakeSockets()
    client = sntp.Sntp(lambda: "192.168.1.1", net, host="pool.ntp.org.")
    assert client.ask(1000)
    assert net.sent[-1][0].endswith(b"\x04pool\x03ntp\x03org\x00\x00\x01\x00\x01")
    for host in ("ntp..example", "n" * 64 + ".example", "."):
        assert not sntp.Sntp(lambda: "192.168.1.1", net, host=host).ask(2000)
    # the configuration takes the trailing dot
    assert parse({"table": 9, "broker": "127.0.0.1", "ntp_server": "ntp.example."}).link.ntp_server


def test_a_full_heap_in_the_loops_ntp_client_is_a_failed_exchange_not_a_stopped_loop():
    # the old hourly ntptime call was inside except Exception; the loop's client allocates a
    # 512-byte answer buffer at every poll and a socket at every ask: on a board whose heap is
    # full either raises MemoryError, which app.run does not catch (the table stops)
    net = FakeSockets()
    client = sntp.Sntp(lambda: None, net, host="10.1.2.3")

    def no_socket(family, kind):
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    real_socket, net.socket = net.socket, no_socket
    assert not client.ask(0) and client.state == sntp.IDLE
    net.socket = real_socket
    assert client.ask(1000)

    def no_room(n):
        raise MemoryError("memory allocation failed, allocating 512 bytes")

    client.sock.recv = no_room
    assert client.poll(1020) == 0 and client.state == sntp.IDLE and client.sock is None
    assert client.ask(2000) and client.poll(2010) is None     # the next exchange as usual


def test_a_link_wager_other_than_the_tables_keeps_the_jackpot_closed(tmp_path):
    # the controller's wager (500) is not the table's (100): every claim would be refused, so
    # no jackpot wager may be accepted; the sign says LINK Err, the log has the mismatch, and
    # the link's acknowledgements still go on
    r = rig_with_link_config(tmp_path, {"wager": 500})
    r.ram_clear()
    r.step(100, 10)
    assert r.link.state == MISMATCH and not r.c.jackpot_open()
    assert "wager differs: table 100, link 500" in r.link.mismatch_text
    assert r.c.view.meter_fault == "LINK Err"
    assert len(r.events(ev.LINK_MISMATCH)) == 1
    # the technician can read why (the sign says LINK Err, the log entry has equal wagers)
    from firmware.service import Service
    meters = Service(r.c).handle("meters")
    assert meters["link"] == "MISMATCH" and "wager differs: table 100, link 500" in meters["link_problem"]
    # ... and so can the supervisor, in the audit menu under the link's state
    from firmware.table import audit

    menu = list(audit.open_menu(r.c))
    at = menu.index("link MISMATCH")
    assert "wager differs: table 100, link 500" in " ".join(
        line.strip() for line in menu[at + 1:at + 4])
    r.chips(1, 2)
    r.press(btn.LOCK)
    r.step(100, 5)
    assert r.ledger()["tables"][TABLE]["totals"] == [0, 0, 0, 0, 0]   # no wager taken


def test_a_pay_table_other_than_the_links_is_a_mismatch_that_keeps_the_jackpot_closed(tmp_path):
    # the link pays a four of a kind 400 to 1, the table 500 to 1: they reconciled as if they
    # agreed, and the link then paid other amounts than the table showed, or refused a hand
    # the table paid (a flush the link does not pay) after the round was played
    r = rig_with_link_config(tmp_path, {"main": {"reset": RESET},
                                        "pay": {"four_of_a_kind": [400, 0]}})
    r.ram_clear()
    r.step(100, 10)
    text = "pay table differs: four_of_a_kind table 500 to 1 0%, link 400 to 1 0%"
    assert r.link.state == MISMATCH and not r.c.jackpot_open()
    assert r.link.mismatch_text == text and r.c.view.meter_fault == "LINK Err"
    assert len(r.events(ev.LINK_MISMATCH)) == 1
    from firmware.table import audit

    menu = list(audit.open_menu(r.c))
    at = menu.index("link MISMATCH")
    assert text in " ".join(line.strip() for line in menu[at + 1:at + 7])
    # the controller logs it once, with the same words, though the table asks again
    r.step(100, 30)
    assert [e[2] for e in r.ledger()["events"] if e[1] == "mismatch"] == [text]
    r.chips(1, 2)
    r.press(btn.LOCK)
    r.step(100, 5)
    assert r.ledger()["tables"][TABLE]["totals"] == [0, 0, 0, 0, 0]   # no wager taken
    # a cleared mismatch asks the link again: still the same, still closed
    r.key(True)
    r.press(btn.BACK, long=True)
    r.key(False)
    r.step(100, 10)
    assert r.link.state == MISMATCH and r.link.mismatch_text == text


def test_a_ram_clear_that_brings_another_pay_table_closes_a_linked_jackpot_that_was_up(rig):
    # config.json changed and the RAM cleared with the link up: the table now pays a flush
    # 50 to 1, the link 100 to 1: closed at the next status, not at the next outage
    from firmware.jackpot import config as jcfg

    rig.c.jackpot.config = jcfg.build({"pay": {"flush": [50, 0]}})
    rig.step(100, 5)
    assert rig.link.state == MISMATCH and not rig.c.jackpot_open()
    assert rig.link.mismatch_text == "pay table differs: flush table 50 to 1 0%, link 100 to 1 0%"


def test_a_ram_clear_after_a_bad_record_keeps_the_link_ledger_and_its_waiting_claim(rig):
    # the jackpot record is unreadable at boot (RAM ERROR "bad record"), the link's section is
    # good: the link was never built, and the supervisor's RAM clear must still keep the link's
    # ledger (docs/link.md): its claimed royal waits to be paid, its numbers go on
    royal_claimed(rig, False)                 # the claim is queued, the link down
    claimed = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert claimed.awaiting and claimed.last_n == 2
    rig.memory.commit_admin({tc.SECTION_JACKPOT: b"not a jackpot record"}, (), WALL)
    rig.link = None
    rig.boot()
    assert rig.c.phase == tc.RAM_ERROR and rig.c.tablelink is None
    rig.ram_clear()
    kept = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert kept.awaiting == claimed.awaiting and kept.last_n == 2 and kept.totals == claimed.totals
    rig.wire_up = True
    rig.step(100, 40)
    assert rig.link.state == UP and rig.link.awaiting == []
    assert [e[4:6] for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4)]    # the royal, paid


def test_a_ram_clear_without_the_file_keeps_the_link_ledger_and_its_waiting_claim(rig):
    # the flash erased and the program put back without /config.json, critical memory in RAM
    # ERROR over a bad record: the supervisor's RAM clear dropped the link's ledger with its
    # claimed royal (never paid), and opened the jackpot on a fresh local pool
    royal_claimed(rig, False)                 # the claim is queued, the link down
    claimed = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert claimed.awaiting
    rig.memory.commit_admin({tc.SECTION_JACKPOT: b"not a jackpot record"}, (), WALL)
    rig.memory = CriticalMemory([FileSlot(rig.fs, "a.bin"), FileSlot(rig.fs, "b.bin")], rig.fs)
    rig.c = tc.RoundController(rig.memory, game=None)       # no file: no game, no link
    rig.c.boot(rig.now, WALL)
    rig.c.set_config_status(True, "no /config.json: defaults")
    assert rig.c.phase == tc.RAM_ERROR
    rig.ram_clear()
    assert rig.c.phase == tc.OPEN and not rig.c.jackpot_open()   # never the local pool
    kept = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
    assert kept.awaiting == claimed.awaiting and kept.totals == claimed.totals
    rig.link = None
    rig.boot()                                # the file back: the link is built again
    rig.wire_up = True
    rig.step(100, 40)
    assert rig.link.state == UP and rig.link.awaiting == []
    assert [e[4:6] for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4)]    # the royal, paid


def test_a_ram_clear_after_an_unreadable_link_section_starts_a_new_link_closed(rig):
    # the link's own section is the bad record: the RAM clear cannot keep it; a new link starts
    # (the controller will refuse it until the table is re-enrolled) and the jackpot stays
    # closed: never the frozen local pool
    rig.memory.commit_admin({tc.SECTION_LINK: b"[9, 1]"}, (), WALL)
    rig.link = None
    rig.boot()
    assert rig.c.phase == tc.RAM_ERROR and rig.c.tablelink is None
    rig.ram_clear()
    assert rig.c.tablelink is not None and rig.c.tablelink.last_n == 0
    assert rig.c.link_required and not rig.c.jackpot_open()


def _unreadable_after_a_failed_commit(rig, monkeypatch):
    """The next commit fails and the committed jackpot record cannot be read back."""
    rig.memory.commit_admin({tc.SECTION_JACKPOT: b"not a jackpot record"}, (), WALL)

    def broken(*args, **kwargs):
        raise OSError("FRAM write failed")

    monkeypatch.setattr(rig.memory, "commit", broken)


@pytest.mark.parametrize("step", ["lock", "settle", "void"])
def test_a_failed_commit_that_ends_in_ram_error_stays_in_ram_error(rig, monkeypatch, step):
    # the step put its phase back after the failure (OPEN, LOCKED) over the RAM ERROR that
    # the failure had entered: the table played on with no jackpot, and the next LOCK or
    # SETTLE crashed the main loop on it
    if step != "lock":
        rig.chips(1, 2)
        rig.press(btn.LOCK)
        rig.deal(PLAIN)
    _unreadable_after_a_failed_commit(rig, monkeypatch)
    if step == "lock":
        rig.chips(1)
        rig.press(btn.LOCK)
    elif step == "settle":
        rig.press(btn.SETTLE)
    else:
        rig.key(True)
        rig.press(btn.BACK, long=True)     # misdeal: the round void
        rig.press(btn.OK)
        rig.key(False)
    assert rig.c.phase == tc.RAM_ERROR and rig.c.jackpot is None
    for button in (btn.LOCK, btn.SETTLE, btn.OK):
        rig.press(button)
        rig.step(100, 2)
    assert rig.c.phase == tc.RAM_ERROR and rig.c.view.lines[0] == "RAM ERROR"


def test_a_new_links_numbers_are_committed_before_a_power_cut_can_repeat_them(rig):
    # the link built at the first RAM clear committed its section only at its first entry or
    # lease renewal (512 messages): a power cut before that started it again at 1, and the
    # controller refused every message as replayed until the numbers caught up
    assert rig.memory.section(tc.SECTION_LINK) is not None
    rig.link = None
    rig.boot()                               # the power is cut and comes back
    rig.step(100, 10)
    assert rig.controller.rejects == {} and rig.link.state == UP


def test_a_ram_clear_after_a_bad_link_round_section_plays_on_with_the_link(rig):
    # the "lround" section was read after the link was built: a bad one left the link
    # without its round work, and the first pass after the RAM clear crashed on it
    royal_claimed(rig, False)                 # a claim waits in the link's section
    rig.memory.commit_admin({tc.SECTION_LINK_ROUND: b"garbage"}, (), WALL)
    rig.link = None
    rig.boot()
    assert rig.c.phase == tc.RAM_ERROR and rig.c.tablelink is None
    rig.ram_clear()
    rig.wire_up = True
    rig.step(100, 40)
    assert rig.link.state == UP and rig.link.awaiting == [] and rig.c.jackpot_open()
    assert [e[4:6] for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4)]    # the royal, paid


# ---------------------------------------------------------------- RAM ERROR stops the link

class WireClient:
    """The Station's MQTT client (client_factory) joined to a Rig's in-process link controller."""

    def __init__(self, rig):
        self.rig = rig
        self.on_message = None
        self.open = False
        self.sent = 0
        self.closes = 0

    def make(self, client_id, opener, on_message, keepalive):
        self.on_message = on_message
        return self

    def subscribe(self, topic):
        pass

    def service(self, now):
        self.open = True                     # (re)connects at once
        down, self.rig.down = self.rig.down, []
        for topic, payload in down:
            self.on_message(topic, payload)
        return True

    def publish(self, topic, payload):
        if not self.open:
            return False
        self.sent += 1
        self.rig.controller.on_message(topic, payload, self.rig.now)
        return True

    def close(self):
        self.open = False
        self.closes += 1


def linked_app(rig, table, folder):
    """An App on the simulated board `table` (critical memory in its FRAM and `folder`),
    linked through a WireClient to rig's controller; rig.c and rig.memory become the App's."""
    from firmware.app import App

    client = WireClient(rig)
    setup = linksetup.LinkSetup(TABLE, KEY, None, timings={"ping_every": 10},
                                client_factory=client.make)
    app = App(table.board, PathFS(str(folder)), now=rig.now, link=setup)
    app.boot(rig.now, WALL)
    rig.c, rig.memory = app.controller, app.memory
    return app, client


def app_steps(rig, app, count):
    for _ in range(count):
        rig.now += 20
        app.step(rig.now, WALL)
        rig.controller.service(rig.now)


def test_a_table_in_ram_error_stops_its_link_so_its_numbers_never_repeat(tmp_path, monkeypatch):
    # the link went on pinging in RAM ERROR while its sequence lease could not be committed:
    # after the restart and the RAM clear it used those numbers again, the controller refused
    # every message as replayed, and the jackpot stayed closed for as long as the error lasted
    from boards import simulated

    rig = Rig(tmp_path)
    table = simulated.make()
    folder = tmp_path / "table"
    folder.mkdir()
    app, client = linked_app(rig, table, folder)
    rig.ram_clear()
    app_steps(rig, app, 10)
    assert app.station.link.state == UP and rig.c.jackpot_open()
    _unreadable_after_a_failed_commit(rig, monkeypatch)     # RAM ERROR
    rig.chips(1)
    rig.press(btn.LOCK)
    app_steps(rig, app, 5)                   # the panel's chord wait
    assert rig.c.phase == tc.RAM_ERROR
    sent = client.sent
    app_steps(rig, app, 1200)                # 24 s at a ping a tick: past the saved lease
    assert client.sent == sent and client.closes == 1 and not client.open
    assert app.station.link.state != UP and not rig.c.jackpot_open()
    assert "LINK STOPPED" in rig.c.view.lines
    # the power is cut; the table comes back in RAM ERROR (the bad record), then is cleared
    monkeypatch.undo()
    app, client = linked_app(rig, table, folder)
    assert rig.c.phase == tc.RAM_ERROR and "LINK STOPPED" in rig.c.view.lines
    rig.ram_clear()
    app_steps(rig, app, 50)
    assert app.station.link.state == UP and rig.c.jackpot_open()
    assert rig.controller.rejects == {}


def test_a_round_locked_with_the_link_queue_nearly_full_still_voids_its_seats_and_claims(rig):
    # the controller stops acknowledging (the table's messages lost, its status still heard,
    # so the link stays UP): rounds lock and void meanwhile, their entries piling up.  The
    # last round the link lets take wagers must still have room for every seat void and the
    # claim it may make: a claim held back ("link queue full") leaves the round stuck
    last = None
    for _ in range(40):
        rig.c.link(rig.link.wagers_open(), rig.now)
        if not rig.c.jackpot_open():
            break
        rig.chips(*range(1, 8))
        rig.press(btn.LOCK)
        assert rig.c.rec.accepted == 0b1111111
        rig.key(True)
        if rig.link.wagers_open():
            rig.press(btn.BACK, long=True)          # a misdeal: the round's reversal
            rig.key(False)
            rig.press(btn.SETTLE)
            continue
        last = rig.c.rec.round_no                   # the gate closes behind this round
        for seat in range(1, 7):
            rig.c.cursor = seat
            rig.press(btn.BACK)                     # seats 2..7 void
            assert rig.c.rec.voided & 1 << seat, rig.c.view.lines
        rig.key(False)
        rig.deal(ROYAL[:1] + ROYAL[2:])
        rig.press(btn.SETTLE)
        rig.key(True)
        rig.press(btn.OK)
        rig.key(False)
        assert rig.c.phase == tc.RESULTS, rig.c.view.lines
        break
    assert last is not None and not rig.link.wagers_open()
    assert len(rig.link.entries) == rig.link.last_n == 32     # the queue full to its last place
    # closed though the link is UP: the sign says so as for a link down (docs/link.md)
    rig.c.link(rig.link.wagers_open(), rig.now)     # (the loop's next pass)
    assert rig.link.state == UP and rig.c.view.meter_fault == "LINK dn"
    assert [e[2] for e in rig.events(ev.LINK_CLAIM)] == [last]
    rig.step(100, 20)                               # acknowledged at last: all applied, paid
    assert rig.link.state == UP and rig.link.entries == [] and rig.link.awaiting == []
    assert [e[4:6] for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4)]


@pytest.mark.parametrize("how", ["bad jackpot", "keyed"])
def test_a_ram_clear_cut_at_any_write_keeps_the_link_ledger_and_pays_its_claim_once(
        tmp_path, how):
    """A claimed royal waits for the link (down); the table stops in RAM ERROR (a jackpot
    record it cannot read, or an unkeyed program at a keyed table) and the power goes at each
    write of the supervisor's RAM clear.  Cleared then or again after the cut, the table keeps
    the link's ledger as it was, and the royal is paid once when the link is back."""
    from host_tests.test_controller import CutFS, PowerCut

    cut = 0
    while True:
        d = tmp_path / str(cut)
        d.mkdir()
        rig = Rig(d)
        rig.fs = CutFS(str(d))
        rig.boot()
        rig.ram_clear()
        rig.step(100, 5)
        rig.memory.key = how == "keyed"
        royal_claimed(rig, False)
        claimed = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
        assert claimed.awaiting
        rig.link = None
        if how == "bad jackpot":
            rig.memory.commit_admin({tc.SECTION_JACKPOT: b"not a jackpot record"}, (), WALL)
            rig.boot()
        else:
            rig.memory = CriticalMemory([FileSlot(rig.fs, "a.bin"), FileSlot(rig.fs, "b.bin")],
                                        rig.fs)
            rig.c = tc.RoundController(rig.memory)
            rig.c.link_factory = rig._factory
            rig.c.unkeyed = True
            rig.c.boot(rig.now, WALL)
        assert rig.c.phase == tc.RAM_ERROR
        rig.fs.cut_at = rig.fs.writes + cut
        try:
            rig.ram_clear()
            uncut = True
        except PowerCut:
            uncut = False
        rig.fs.cut_at = None
        rig.link = None
        rig.boot()                          # the power back (a keyed program, with its file)
        if rig.c.phase == tc.RAM_ERROR:
            rig.ram_clear()
        kept = TableLink.restore(TABLE, KEY, None, rig.memory.section(tc.SECTION_LINK))
        assert (kept.awaiting, kept.last_n, kept.totals) == (
            claimed.awaiting, claimed.last_n, claimed.totals)
        rig.wire_up = True
        rig.step(100, 40)
        assert rig.link.state == UP and rig.link.awaiting == []
        assert [e[4:6] for e in rig.events(ev.JACKPOT_HIT)] == [(1, 4)]
        if uncut:
            break
        cut += 1
    assert cut >= 2


def test_a_ram_clear_at_a_linked_table_logs_the_seed_it_puts_in_its_local_pool(tmp_path):
    """A linked table whose file also gives the main pool a reset: the RAM clear puts the
    $10,000.00 in the local pool (frozen while the link pays the jackpots; its RAM CLEAR
    screen lists it), counted on the operator additions meter, but its RAM_CLEAR entry said
    a seed of 0: the log accounted for $10,000.00 less than the meters report."""
    r = Rig(tmp_path)
    r.memory = CriticalMemory([FileSlot(r.fs, "a.bin"), FileSlot(r.fs, "b.bin")], r.fs)
    r.c = tc.RoundController(r.memory, {"main": {"reset": RESET}})
    r.c.link_factory = r._factory
    r.c.boot(r.now, WALL)
    r.key(True)
    r.press(btn.OK, long=True)
    assert r.c.view.lines[1:3] == ["reset values:", "main $10000.00"]
    r.press(btn.OK)
    r.key(False)
    assert r.c.jackpot.table_meters()["operator_additions"] == RESET
    assert [e[3:7] for e in r.events(ev.RAM_CLEAR)] == [(ev.RAM_CLEAR, 1, 0, RESET)]
    r.step(100, 5)
    assert r.link.state == UP and r.c.jackpot_open()

def test_a_link_with_other_pools_than_the_tables_keeps_the_jackpot_closed(tmp_path):
    # the controller keeps a Minor and a Major pool, the table's configuration one: it showed
    # the Minor's amount as its only pool (the royal is paid from the Major), reconciled UP
    # and took jackpot wagers; a royal's new amount came from the wrong pool too
    from host_tests.link_support import SEEDED_SPLIT

    r = rig_with_link_config(tmp_path, SEEDED_SPLIT)
    r.ram_clear()
    r.step(100, 10)
    assert r.link.state == MISMATCH and not r.c.jackpot_open()
    assert "pools differ: table 1, link 2" in r.link.mismatch_text
    assert r.c.view.meter_fault == "LINK Err"
    # nor does the sign alternate the Minor's $1,000.00 with LINK Err as the table's pool:
    # no pool of the table's was heard
    assert r.c.view.meter[0] == -1 and not r.link.pool_known
    r.chips(1, 2)
    r.press(btn.LOCK)
    r.step(100, 5)
    assert r.ledger()["tables"][TABLE]["totals"] == [0, 0, 0, 0, 0]   # no wager taken


def test_a_new_link_shows_no_pool_amount_until_the_controller_says_it(tmp_path):
    # a table's first link (no link section yet) has heard no pool: its sign alternated
    # "0.00" with LINK dn, then counted up from zero as if the pool had been reset, and the
    # audit menu said pool 1 $0.00
    from firmware.table import audit

    r = Rig(tmp_path)
    r.ram_clear()
    assert not r.link.pool_known and r.c.view.meter_fault == "LINK dn"
    assert r.c.view.meter[0] == -1                      # the fault text alone on the sign
    menu = [line.strip() for line in audit.open_menu(r.c)]
    assert "pool 1 not known" in menu
    r.wire_up = False
    version = r.c.view.version
    r.step(100, 20)                                     # nothing heard: still no amount
    assert r.c.view.meter[0] == -1
    assert r.c.view.version - version < 5               # and no refresh at every tick
    r.wire_up = True
    r.step(100, 5)
    assert r.c.jackpot_open() and r.c.view.meter[0] == RESET


def test_a_payout_arriving_while_the_store_fails_is_committed_again_only_after_a_second(tmp_path):
    # a payout that arrived while commits failed was tried again at every tick (a failing
    # store written, the alarm beeped and the jackpot read back 50 times a second), not after
    # the link's retry time as every other link commit
    r = Rig(tmp_path)
    r.ram_clear()
    r.step(100, 5)
    royal_claimed(r, False)                 # the claim waits for the link
    commits = []
    r.c.commit_admin = lambda events, sections=None: commits.append(1) or "FRAM write failed"
    r.wire_up = True
    r.step(20, 100)                         # 2 s: the payout arrives, its commit fails
    assert r.link.results and 1 <= len(commits) <= 3, len(commits)
    del r.c.commit_admin                    # the store works again: logged and shown
    r.step(20, 60)
    assert not r.link.results and [e[4] for e in r.events(ev.JACKPOT_HIT)] == [1]


def test_a_payout_for_an_earlier_round_names_that_round_on_the_display(rig):
    # round 1's royal at seat 1 was claimed with the link down; the payout arrives during
    # round 2: the display said "JACKPOT PAID S1" as for this round, and the dealer would pay
    # whoever sits at seat 1 now, not round 1's player
    royal_claimed(rig, False)
    rig.press(btn.SETTLE)                   # round 1's results taken away
    rig.press(btn.LOCK)                     # round 2, locked with the jackpot closed
    assert rig.c.rec.round_no == 2 and rig.link.awaiting
    rig.wire_up = True
    rig.step(100, 10)
    pool = rig.events(ev.JACKPOT_HIT)[0][6]
    assert rig.c.message == "JP PAID r1\nS1 " + tc.money(pool)


def test_a_new_link_at_a_split_table_lists_both_pools_not_known(tmp_path):
    # a Minor and Major table's first link has heard no pool: its sign shows no amount on
    # either line, but the audit menu listed only "pool 1 not known", as if it had one pool
    from firmware.table import audit
    from host_tests.link_support import SEEDED_SPLIT

    r = Rig(tmp_path)
    r.c = tc.RoundController(r.memory, SEEDED_SPLIT)
    r.c.link_factory = r._factory
    r.c.boot(r.now, WALL)
    r.ram_clear()
    assert not r.link.pool_known and len(r.c.view.meter_slots) == 2
    menu = [line.strip() for line in audit.open_menu(r.c)]
    assert "pool 1 not known" in menu and "pool 2 not known" in menu


def test_the_service_meters_of_a_new_link_say_its_pool_is_not_known(tmp_path):
    # the sign and the audit menu say a new link's pool is not known, but the service's
    # meters said pool 1 was 0 (and tools.audit printed pool 1 0): a supervisor's report of a
    # pool emptied
    from firmware.service import Service
    from tools import audit as audit_tool

    r = Rig(tmp_path)
    r.ram_clear()
    assert not r.link.pool_known
    meters = Service(r.c).handle("meters")
    assert meters["pools"]["linked"] == [None]
    assert audit_tool.linked_pools(meters) == [("pool 1", None)]
    assert "not known" in audit_tool.meters_table(meters)
    r.step(100, 5)                                      # the controller's pool heard
    assert Service(r.c).handle("meters")["pools"]["linked"] == [RESET]


def test_a_payout_is_committed_when_the_heap_has_no_room_for_a_later_rounds_buffers(
        rig, monkeypatch):
    # the link's own commits size the buffers for a round after them, but that room is for the
    # next LOCK to ask (and be refused): the payout itself fits the buffers it has, and was
    # neither logged nor shown while a fragmented heap had no piece for the larger ones (the
    # round in play commits the same ledger anyway)
    scarce_link_heap(monkeypatch)
    royal_claimed_while_the_link_is_down(rig)
    assert rig.link.awaiting and not rig.events(ev.JACKPOT_HIT)
    link_room_larger_than_the_heap_has(monkeypatch)
    rig.wire_up = True
    rig.step(100, 10)
    assert not rig.link.awaiting and len(rig.events(ev.JACKPOT_HIT)) == 1
    assert not rig.link.dirty and "MEMORY FAULT" not in rig.c.last_refusal
    rig.chips(1)
    rig.press(btn.SETTLE)
    rig.press(btn.LOCK)     # the next round's room: refused before anything is taken
    assert rig.c.phase == tc.OPEN and "LOCK refused" in rig.c.last_refusal


def test_a_round_without_jackpot_wagers_locks_when_the_heap_has_no_room_for_larger_buffers(
        rig, monkeypatch):
    # the room LOCK asks for is that of the entries a round's wagers make (contribution,
    # reversals, claim): a round with none adds nothing to the ledger, and was refused all the
    # same ('LOCK refused no heap for the record'), the base game stopped with the jackpot
    scarce_link_heap(monkeypatch)
    link_room_larger_than_the_heap_has(monkeypatch)
    last_n = rig.link.last_n
    for seat in (1, 2):     # Antes alone
        rig.c.spot(sens.PLACED, sens.ante_spot(seat), rig.now)
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.LOCKED and "LOCK refused" not in rig.c.last_refusal
    assert rig.link.last_n == last_n and rig.c.rec.accepted == 0
    rig.deal([(1, "2c 7d"), (2, "3c 8d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    rig.press(btn.SETTLE)
    assert rig.c.phase == tc.RESULTS and rig.memory.step == 3
    rig.press(btn.SETTLE)
    rig.chips(1)                        # a jackpot wager: its room is asked for, and refused
    rig.press(btn.LOCK)
    assert rig.c.phase == tc.OPEN and "LOCK refused" in rig.c.last_refusal


def test_a_payout_and_rejected_messages_in_one_pass_are_one_commit(rig):
    # The link's work of a pass (a burst of messages: a payout, forged ones) was a commit for
    # the payout and another for the rejects' entry, each a FRAM write and a flash sector
    # erase (about 110 ms on the reference board): the entry waits for the next pass.
    royal_at_seat_1(rig)
    rig.press(btn.OK)
    rig.key(False)
    for _ in range(20):
        if rig.link.results:
            break
        rig.step(100)
    assert rig.link.results
    forged = b"0" * 64 + b'{"v":1}'
    rig.link.on_message(rig.link.topic_down, forged, rig.now)
    commit_admin, commits = rig.memory.commit_admin, []

    def counted(*args, **kwargs):
        commits[-1] += 1
        return commit_admin(*args, **kwargs)

    rig.memory.commit_admin = counted
    for _ in range(3):
        commits.append(0)
        rig.step(100)
    assert commits[:2] == [1, 1]
    assert len(rig.events(ev.JACKPOT_HIT)) == 1
    assert [e[5] for e in rig.events(ev.LINK_REJECT)] == [1]


def test_the_supervisor_does_not_set_a_linked_tables_clock(rig):
    """A linked table's clock is NTP's (its link messages are timed by it): the supervisor's
    clock_set, for a standalone table, is refused there and logs nothing, as the panel's."""
    from firmware.service import Service

    rig.key(True)
    count = rig.memory.log.count
    reply = Service(rig.c).handle("clock_set 2026-12-01T04:30:00")
    assert (reply["ok"], reply["code"], reply["error"]) == (
        False, "refused", "a linked table's clock is set from NTP")
    assert rig.memory.log.count == count and rig.c.wall == WALL
    rig.press(btn.SETTLE, long=True)            # nor from the configuration menu
    rig.press(btn.DOWN)
    rig.press(btn.DOWN)
    rig.press(btn.OK)
    assert "Linked table:\nclock from NTP" in "\n".join(rig.c.view.lines)
    assert rig.c.clock_edit is None and rig.memory.log.count == count
