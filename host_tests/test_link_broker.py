"""The linked progressive end to end: real Mosquitto, the controller as a subprocess,
several simulated tables running the real table-side link code.

After each story the controller's ledger and every table's meters must reconcile to the
cent, against the wagers the test itself placed.  Pool arithmetic oracle: the default
linked configuration (firmware/jackpot/config.py example values): reset 1,000,000 cents,
70% of each wager to the pool; rules.md 11.9 pays (royal 10,000 to 1 or 100% of the pool).
"""


import pytest

from firmware.link import tablelink
from host_tests.link_support import (
    WAGER,
    Broker,
    ControllerProcess,
    SimTable,
    pump,
    settled,
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

    def build(count, faults=None, order_window=300, seed=1):
        controller = ControllerProcess(tmp_path, broker.port, range(1, count + 1), order_window=order_window)
        controller.start()
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
    # the sign alternates the last amount with LINK DOWN
    texts = set(tables[0].link.sign_text(now) for now in (0, 1000, 2000, 3000))
    assert texts == {None, "LINK DOWN"}
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
