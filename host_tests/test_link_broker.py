"""The linked progressive end to end: real Mosquitto, the controller as a subprocess,
several simulated tables running the real table-side link code.

After each story the controller's ledger and every table's meters must reconcile to the
cent, against the wagers the test itself placed.  Pool arithmetic oracle: the default
linked configuration (firmware/jackpot/config.py example values): reset 1,000,000 cents,
70% of each wager to the pool; rules.md 11.9 pays (royal 10,000 to 1 or 100% of the pool).
"""


import time

import pytest

from firmware.link import codec, mqtt, tablelink
from host_tests.link_support import (
    WAGER,
    Broker,
    ControllerProcess,
    SimTable,
    pump,
    settled,
    table_key,
    wait_reconciled,
)

RESET = 1000000
RATE_PPM = 700000
ROYAL = 4
FLUSH = 0


def expected_pool(wagers):
    """Reset money plus 70% of every wager, fractions of a cent carried (no hits paid)."""
    return RESET + wagers * RATE_PPM // 1000000


@pytest.fixture
def rig(tmp_path):
    broker = Broker(tmp_path).start()
    made = {"tables": [], "controller": None}

    def build(count, faults=None, order_window=300, seed=1, commit_delay=0):
        controller = ControllerProcess(tmp_path, broker.port, range(1, count + 1), order_window=order_window)
        controller.start(commit_delay)
        made["controller"] = controller
        tables = [SimTable(t, broker.port, faults, seed) for t in range(1, count + 1)]
        made["tables"] = tables
        assert pump(tables, lambda: settled(tables), 10), [t.link.state_name() for t in tables]
        return controller, tables

    yield broker, build
    for t in made["tables"]:
        t.close()
    if made["controller"] is not None:
        made["controller"].stop()
    broker.stop()


def test_dropped_duplicated_and_reordered_messages_reconcile(rig):
    broker, build = rig
    faults = {"drop": 0.2, "duplicate": 0.15, "reorder": 0.15}
    controller, tables = build(3, faults)
    for i in range(12):
        for t in tables:
            t.lock_round(1 + (i + t.table) % 7)
        pump(tables, lambda: False, 0.03)
    tables[1].claim([[3, FLUSH, WAGER]])
    problems = wait_reconciled(tables, controller, 20)
    assert problems == []
    ledger = controller.ledger()
    placed = sum(t.wagers for t in tables)
    # one flush paid at 100 to 1 [11.9] out of the pool
    assert ledger["pool"] == [expected_pool(placed) - 100 * WAGER]
    assert ledger["paid"][0][6]["rows"] == [[3, FLUSH, 100 * WAGER, 0]]
    for t in tables:
        assert t.link.amounts() == ledger["pool"]
    # the faults really happened: duplicates and reorders reached the controller and were refused
    assert any(e[1].startswith("reject replayed") for e in ledger["events"]) or any(
        t.link.rejects for t in tables)


def test_broker_restart_closes_wagering_queues_hits_and_reconciles(rig):
    broker, build = rig
    controller, tables = build(2)
    for t in tables:
        t.lock_round(3)
    assert wait_reconciled(tables, controller) == []
    assert all(t.link.wagers_open() for t in tables)
    broker.kill()
    assert pump(tables, lambda: all(t.link.state == tablelink.DOWN for t in tables), 5)
    for t in tables:
        assert not t.link.wagers_open()
        assert ("link down" in [e[0] for e in t.events])
    # the sign alternates the last amount with LINK DOWN ("LINK dn" in seven segments)
    texts = set(tables[0].link.sign_text(now) for now in (0, 1000, 2000, 3000))
    assert texts == {None, "LINK dn"}
    # a round locked before the outage is settled with its hit queued
    n = tables[0].claim([[5, ROYAL, WAGER]])
    pump(tables, lambda: False, 0.3)
    assert tables[0].link.awaiting == [[n, tables[0].round]]
    broker.start()
    problems = wait_reconciled(tables, controller, 20)
    assert problems == []
    assert all(t.link.wagers_open() for t in tables)
    results = tables[0].link.take_results()
    placed = sum(t.wagers for t in tables)
    assert results[0].rows == [[5, ROYAL, expected_pool(placed), 0]]
    assert controller.ledger()["pool"] == [RESET]
    assert "link up" in [e[0] for e in tables[0].events]


def _down(tables):
    return lambda: all(t.link.state == tablelink.DOWN for t in tables)


def test_controller_killed_mid_commit_applies_each_entry_once(rig):
    broker, build = rig
    controller, tables = build(2, commit_delay=400)
    # the first commit of a contribution is cut by SIGKILL while its transaction is open
    tables[0].lock_round(4)
    assert pump(tables, lambda: controller.wait_line("IN-COMMIT entry 1 1", 0), 5)
    controller.kill()
    assert controller.ledger()["tables"][1]["last_n"] == 0  # rolled back, not half applied
    assert pump(tables, _down(tables), 5)
    assert not any(t.link.wagers_open() for t in tables)
    tables[1].lock_round(2)  # locked while the controller is dead: queued
    controller.start(commit_delay=400)
    problems = wait_reconciled(tables, controller, 20)
    assert problems == []
    # now cut the payment of a hit in the middle of its transaction
    n = tables[1].claim([[1, FLUSH, WAGER], [6, FLUSH, WAGER]])
    assert pump(tables, lambda: controller.wait_line("IN-COMMIT pay 2 %d" % n, 0), 10)
    controller.kill()
    assert controller.ledger()["paid"] == []
    controller.start()
    problems = wait_reconciled(tables, controller, 20)
    assert problems == []
    ledger = controller.ledger()
    assert len(ledger["paid"]) == 1  # paid exactly once
    placed = sum(t.wagers for t in tables)
    assert ledger["pool"] == [expected_pool(placed) - 2 * 100 * WAGER]
    assert tables[1].link.take_results()[0].rows == [[1, FLUSH, 10000, 0], [6, FLUSH, 10000, 0]]


def test_two_royals_in_the_same_second_are_paid_in_lock_then_arrival_order(rig):
    broker, build = rig
    controller, tables = build(2, order_window=1500)
    t1, t2 = tables
    t1.lock_round(5)
    t2.lock_round(7)
    assert wait_reconciled(tables, controller) == []
    same_second = int(time.time())
    t2.claim([[2, ROYAL, WAGER]], lock_time=same_second)
    pump(tables, lambda: False, 0.1)
    t1.claim([[4, ROYAL, WAGER]], lock_time=same_second)
    assert wait_reconciled(tables, controller, 20) == []
    paid = controller.ledger()["paid"]
    # same lock second: arrival decides; table 2's claim reached the controller first
    assert [(p[0], p[5]) for p in paid] == [(2, 1), (1, 2)]
    placed = t1.wagers + t2.wagers - 2 * WAGER  # the two claim rounds came after the pool below
    pool_then = expected_pool(placed + 2 * WAGER)
    assert paid[0][6]["rows"] == [[2, ROYAL, pool_then, 0]]
    # the pool was reset to 1,000,000 and the second royal gets 10,000 to 1 = the same figure
    assert paid[1][6]["rows"] == [[4, ROYAL, 10000 * WAGER, 0]]
    assert controller.ledger()["pool"] == [RESET]
    # an earlier lock wins even when its claim arrives later [11.11]
    t2.claim([[1, ROYAL, WAGER]], lock_time=same_second + 5)
    pump(tables, lambda: False, 0.1)
    t1.claim([[3, ROYAL, WAGER]], lock_time=same_second + 4)
    assert wait_reconciled(tables, controller, 20) == []
    paid = controller.ledger()["paid"]
    assert [(p[0], p[3]) for p in paid[2:]] == [(1, same_second + 4), (2, same_second + 5)]


def test_forged_replayed_stale_and_malformed_messages_are_rejected_and_logged(rig):
    broker, build = rig
    controller, tables = build(2)
    captured = []
    spy = mqtt.Client("spy", mqtt.tcp_opener("127.0.0.1", broker.port),
                      lambda topic, payload: captured.append((topic, payload)))
    spy.subscribe("jackpot/link/+/up")
    spy.subscribe("jackpot/link/+/down")
    assert pump(tables, lambda: spy.service(ms_now()) and False, 0.3) is False
    tables[0].lock_round(2)
    assert pump(tables, lambda: spy.service(ms_now()) and settled(tables), 5)
    assert pump(tables, lambda: spy.service(ms_now()) and False, 0.3) is False
    before = controller.ledger()
    entry = [p for t, p in captured if t == "jackpot/link/1/up" and b'"k":"entry"' in p][0]
    status = [p for t, p in captured if t == "jackpot/link/1/down"][-1]
    now = int(time.time())
    forged_hit = codec.encode(b"not the key of table one", codec.ENTRY, 1, 10 ** 6, now,
                              [tables[0].link.last_n + 1, codec.HIT, 99, now, 0, 0, [[1, ROYAL, WAGER]]])
    stale = codec.encode(table_key(1), codec.ENTRY, 1, 10 ** 6 + 5, now - 3600,
                         [tables[0].link.last_n + 1, codec.CONTRIBUTION, 99, now, 700, 7, []])
    forged_status = codec.encode(b"not the key of table one", codec.STATUS, 1, 10 ** 9, now,
                                 [0, [0, 0, 0, 0, 0], [123], WAGER])
    attacks = [("jackpot/link/1/up", forged_hit), ("jackpot/link/1/up", entry),
               ("jackpot/link/1/up", stale), ("jackpot/link/1/up", b"{not json"),
               ("jackpot/link/2/up", entry), ("jackpot/link/1/down", forged_status),
               ("jackpot/link/1/down", status), ("jackpot/link/2/down", b"x" * 70)]
    for topic, payload in attacks:
        assert spy.publish(topic, payload)
    assert pump(tables, lambda: spy.service(ms_now()) and False, 0.5) is False
    spy.close()
    ledger = controller.ledger()
    kinds = [e[1] for e in ledger["events"][len(before["events"]):]]
    assert kinds.count("reject forged") == 1
    assert kinds.count("reject replayed") == 1
    assert kinds.count("reject stale") == 1
    assert kinds.count("reject malformed") == 2  # garbage, and table 1's message on table 2's topic
    assert ledger["tables"] == before["tables"] and ledger["paid"] == []
    assert tables[0].link.rejects == {"forged": 1, "replayed": 1}
    assert tables[1].link.rejects == {"malformed": 1}
    assert [e[0] for e in tables[0].events].count("link reject") == 2
    assert wait_reconciled(tables, controller) == []


def ms_now():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


def test_table_power_cut_and_void_round_reconcile(rig):
    broker, build = rig
    controller, tables = build(2)
    t1, t2 = tables
    t1.lock_round(6)
    t1.link.reverse(t1.round, int(time.time()), 6 * WAGER)  # misdeal: the round's wagers reversed
    t1.saved = t1.link.section()
    t1.link.saved()
    t2.lock_round(3)
    # power cut at table 2 before its entry was acknowledged: it comes back from critical memory
    t2.power_cut()
    assert t2.link.entries and t2.link.state == tablelink.DOWN
    problems = wait_reconciled(tables, controller, 15)
    assert problems == []
    ledger = controller.ledger()
    assert ledger["tables"][1]["totals"] == [600, 6, 600, 0, 0]
    assert ledger["tables"][2]["totals"] == [300, 3, 0, 0, 0]
    # the reversal took back exactly the void round's share: only table 2's wagers remain
    assert ledger["pool"] == [expected_pool(300)]
