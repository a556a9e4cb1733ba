"""Two whole simulated tables (the real App on boards/simulated, through tools.sim.Simulation)
linked through a real Mosquitto broker to the real link controller (tools/link_controller.py,
a subprocess): rounds, a broker outage in the middle (both tables close jackpot wagering, the
signs alternate LINK dn, a locked round settles with its royal queued), the broker back
(reconcile, the queued royals paid in lock-time order [rules.md 11.11], wagering reopens),
then the books: every table's meters, its event log and the controller's ledger agree to the
cent.  Loopback only, every wait bounded; about 30 s.

Oracles from outside the code under test: the wagers are the chips this test placed times the
$1 jackpot wager; a royal pays the greater of 10,000 to 1 and 100% of the pool (rules.md 11.9),
so a royal on a freshly reset $10,000 pool pays exactly $10,000.
"""


from firmware.link import mqtt
from firmware.link.setup import LinkSetup
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.link_support import FAST, WAGER, Broker, ControllerProcess, table_key
from tools.sim import TICK_MS, Simulation

TABLES = (1, 2)
RESET = 1000000  # cents: the controller's reset (link_support.SEEDED, $10,000; the default: none)
ROYAL_MIN = 10000 * WAGER  # rules.md 11.9: 10,000 to 1 on the jackpot wager

# Seat 1 holds a royal flush with the flop (As Ks + Qs Js Ts); seat 2 nothing.
ROYAL_DEAL = ["S1 As", "S1 Ks", "S2 2c", "S2 3d", "D 4h", "D 5h", "B Qs", "B Js", "B Ts", "B 9c", "B 8d"]
# No jackpot hand for either seat (no flush, no pair beyond the board's).
PLAIN_DEAL = ["S1 2c", "S1 3d", "S2 4h", "S2 6s", "D 9c", "D 9d", "B Qs", "B Jd", "B 7h", "B 8c", "B Kh"]


# The test rig's short timings, with a longer silence allowance: two whole tables share one
# thread here, and a loaded machine must not take a link down in the middle of a round.
TIMINGS = dict(FAST, link_timeout=3000)


def linked_table(table, port):
    setup = LinkSetup(table, table_key(table), mqtt.tcp_opener("127.0.0.1", port), TIMINGS, keepalive=2)
    sim = Simulation(None, fresh=True, link=setup)
    # blank critical memory: the supervisor's RAM clear, as on a new table
    sim.key(True)
    sim.press("OK", long=True)
    sim.press("OK")
    sim.key(False)
    assert sim.controller.phase == tc.OPEN
    return sim


def feed(sim, lines):
    sim.pending_lines += [line.encode() + b"\n" for line in lines]
    sim.run(TICK_MS * (len(lines) + 5))


def events(sim, kind):
    log = sim.app.memory.log
    return [e for e in log.events(log.first_available()) if e[3] == kind]


def play_round(sim, deal, wagers):
    """LOCK (counting the wagers this test expects), cards, SETTLE; returns the phase."""
    sim.press("LOCK")
    assert sim.controller.phase == tc.LOCKED
    wagers[sim.link.table] += WAGER * bin(sim.controller.rec.accepted).count("1")
    feed(sim, deal)
    sim.press("SETTLE")
    return sim.controller.phase


def confirm(sim):
    sim.key(True)
    sim.press("OK")
    sim.key(False)


def sign_texts(sim, ms):
    seen = set()
    for _ in range(ms // 100):
        sim.run(100)
        seen.add(sim.meter_text(0))
    return seen


def test_two_simulated_tables_through_a_broker_outage_and_two_royals(tmp_path):
    broker = Broker(tmp_path).start()
    controller = ControllerProcess(tmp_path, broker.port, TABLES, order_window=300, broadcast=100).start()
    sims = []
    try:
        a = linked_table(1, broker.port)
        sims.append(a)
        b = linked_table(2, broker.port)
        sims.append(b)
        a.companions = [b]
        b.companions = [a]
        wagers = {1: 0, 2: 0}
        assert a.run_until(lambda: a.controller.jackpot_open() and b.controller.jackpot_open(), 10000), \
            "links not up: %s / %s" % (a.link.state_name(), b.link.state_name())
        assert a.meter_text(0) != "LINK dN"
        for sim in (a, b):
            for seat in (1, 2):
                sim.chip(seat)
                sim.chip(seat, ante=True)

        # round 1 at both tables: wagers contributed to the linked pool, no hit
        for sim in (a, b):
            assert play_round(sim, PLAIN_DEAL, wagers) == tc.RESULTS
            sim.press("SETTLE")
        assert a.run_until(lambda: not a.link.entries and not b.link.entries, 5000)

        # round 2: locked while the link is up, A a second before B (rules.md 11.11 order)
        for sim in (a, b):
            sim.press("LOCK")
            assert sim.controller.rec.accepted == 0b11
            wagers[sim.link.table] += 2 * WAGER
            sim.run(1100)
        assert a.run_until(lambda: not a.link.entries and not b.link.entries, 5000)

        # the broker dies: both tables close jackpot wagering, the signs alternate LINK dn
        broker.kill()
        assert a.run_until(lambda: not a.controller.link_up and not b.controller.link_up, 8000)
        for sim in (a, b):
            assert not sim.controller.jackpot_open()
            assert sim.controller.view.meter_fault == "LINK dn"
            seen = sign_texts(sim, 3200)
            # "LINK dn" in seven segments reads back as LINK dN (n and N share the lower-case shape)
            assert "LINK dN" in seen and any(t[:1].isdigit() for t in seen), " ".join(sorted(seen))
            # the locked round settles: its royal is claimed and stays queued
            feed(sim, ROYAL_DEAL)
            sim.press("SETTLE")
            assert sim.controller.phase == tc.CONFIRM
            confirm(sim)
            assert sim.controller.phase == tc.RESULTS
            assert len(sim.link.awaiting) == 1
            assert [e[4:7] for e in events(sim, ev.LINK_CLAIM)] == [(1, 4, WAGER)]
            assert events(sim, ev.JACKPOT_HIT) == []
            sim.press("SETTLE")
            assert sim.controller.phase == tc.OPEN
            assert sim.light(1) == "red"  # jackpot spots closed
        # a round locked during the outage takes no jackpot wager
        last_n = a.link.last_n
        a.press("LOCK")
        assert a.controller.phase == tc.LOCKED and a.controller.rec.accepted == 0
        assert a.link.last_n == last_n
        assert events(a, ev.LOCK)[-1][6] == 0
        a.key(True)
        a.press("BACK", long=True)  # void the empty round (misdeal)
        a.key(False)
        a.press("SETTLE")
        assert a.controller.phase == tc.OPEN

        # the broker is back: reconcile, the queued royals are paid, wagering reopens
        broker.start()
        assert a.run_until(lambda: all(s.controller.jackpot_open() and not s.link.awaiting
                                       and not s.link.entries for s in (a, b)), 15000), \
            [(s.link.state_name(), s.link.awaiting, s.link.entries) for s in (a, b)]
        a.run(500)
        paid = {}
        for sim in (a, b):
            hits = events(sim, ev.JACKPOT_HIT)
            assert [(e[4], e[5]) for e in hits] == [(1, 4)]
            paid[sim.link.table] = hits[0][6]
            assert sim.app.memory.log.verify() is None
            # the sign shows the win and the seat
            win = "%d.%02d" % (paid[sim.link.table] // 100, paid[sim.link.table] % 100)
            seen = sign_texts(sim, 3200)
            assert win in seen and any(t.replace(" ", "") in ("SEAt1", "5EAt1") for t in seen), seen
        ledger = controller.ledger()
        order = [p[0] for p in ledger["paid"]]
        assert order == [1, 2], ledger["paid"]
        first = ledger["paid"][0][6]
        assert paid[1] == first["rows"][0][2] == first["before"][0] > ROYAL_MIN
        assert paid[2] == ROYAL_MIN == RESET  # rules.md 11.9 on the reset pool

        # a normal round at each table: wagers are taken again
        for sim in (a, b):
            assert play_round(sim, PLAIN_DEAL, wagers) == tc.RESULTS
            sim.press("SETTLE")
            assert events(sim, ev.LOCK)[-1][6] == 2 * WAGER

        # the books: controller ledger, each table's link meters, event log and sign agree
        assert a.run_until(lambda: all(not s.link.entries and not s.link.awaiting for s in (a, b)), 5000)
        a.run(1000)
        ledger = controller.ledger()
        net = 0
        for sim in (a, b):
            t = sim.link.table
            row = ledger["tables"][t]
            assert row["last_n"] == sim.link.last_n
            assert row["totals"] == sim.link.totals
            assert row["totals"][0] == wagers[t]
            assert row["totals"][3] == paid[t] and row["totals"][4] == 1
            logged = sum(e[6] for e in events(sim, ev.LOCK)) - sum(e[6] for e in events(sim, ev.VOID))
            assert logged == wagers[t]
            assert sim.controller.link_totals()["wagered"] == wagers[t]
            assert sim.link.amounts() == ledger["pool"]
            assert [sim.controller.view.meter[s] for s in sim.controller.view.meter_slots] == ledger["pool"]
            net += row["totals"][0] - row["totals"][2]
        assert ledger["pool_object"].audit(net) == []
        assert ledger["pending"] == 0
        pool = "%d.%02d" % (ledger["pool"][0] // 100, ledger["pool"][0] % 100)
        for sim in (a, b):
            assert sim.run_until(lambda s=sim: s.meter_text(0) == pool, 16000), (sim.meter_text(0), pool)
    finally:
        for sim in sims:
            if sim.app.station is not None:
                sim.app.station.close()
        controller.stop()
        broker.stop()
