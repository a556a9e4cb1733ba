"""Linked progressive demo: three tables, one controller, a real Mosquitto broker.

    python -m tools.link_demo            (about 30 s; --fast for a 12 s run)

What you see, once a second: each table's link state, what its meter sign shows (the pool,
or LINK DOWN alternating with it), whether jackpot wagers are open, and what it still has
to confirm.  The story: tables lock rounds; table 2 hits a royal flush and every sign shows
the reset pool; the broker dies, every table closes jackpot wagering and shows LINK DOWN,
table 1 settles a locked round with a four of a kind queued; the broker comes back, the
tables reconcile with the controller, the queued hit is paid and wagering reopens.  At the
end the controller's ledger and every table's meters are compared to the cent.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

from firmware.link import mqtt
from firmware.link.station import Station
from firmware.link.tablelink import UP
from tools.link_broker import ControllerProcess, LocalBroker, write_keys
from tools.link_controller import read_ledger

TABLES = (1, 2, 3)
# The demo operator seeds the linked pool with $10,000.00 (the firmware's default: no seed).
DEMO_CONFIG = {"main": {"reset": 1000000}}
WAGER = 100
ROYAL = 4
FOUR_OF_A_KIND = 2


def key_of(table):
    return hashlib.sha256(b"demo key %d" % table).digest()


def dollars(cents):
    return "$%d,%03d.%02d" % (cents // 100000, cents // 100 % 1000, cents % 100) if cents >= 100000 \
        else "$%d.%02d" % (cents // 100, cents % 100)


class DemoTable:
    def __init__(self, table, port):
        self.table = table
        self.events = []
        self.station = Station(table, key_of(table), mqtt.tcp_opener("127.0.0.1", port),
                               log=lambda code, text: self.events.append((code, text)))
        link = self.station.link
        link.ping_every, link.resend_every, link.link_timeout = 300, 500, 2000
        self.round = 0

    @property
    def link(self):
        return self.station.link

    def service(self, now):
        self.station.service(now, int(time.time()))
        if self.link.dirty:
            self.link.section()  # the board commits this to critical memory
            self.link.saved()

    def lock(self, count):
        self.round += 1
        self.link.contribute(self.round, int(time.time()), count, count * WAGER)
        return self.round

    def line(self, now):
        link = self.link
        text = link.sign_text(now)
        sign = text if text is not None else dollars(link.amounts()[0])
        waiting = "%d to confirm" % len(link.entries) if link.entries else ""
        if link.awaiting:
            waiting += (", " if waiting else "") + "%d hit queued" % len(link.awaiting)
        return "  table %d  %-8s sign [%11s]  jackpot wagers %-6s %s" % (
            self.table, link.state_name(), sign, "OPEN" if link.wagers_open() else "closed", waiting)


def run(fast=False):
    scale = 0.4 if fast else 1.0
    folder = tempfile.mkdtemp(prefix="link-demo-")
    broker = LocalBroker(folder).start()
    keys = os.path.join(folder, "keys.json")
    write_keys(keys, TABLES, key_of)
    config = os.path.join(folder, "config.json")
    with open(config, "w") as f:
        json.dump(DEMO_CONFIG, f)
    controller = ControllerProcess(folder, broker.port, keys, "--order-window", "500",
                                   "--config", config)
    controller.start(quiet=False)

    def relay():
        for line in controller.proc.stdout:
            print("  controller: " + line.rstrip(), flush=True)

    threading.Thread(target=relay, daemon=True).start()
    tables = [DemoTable(t, broker.port) for t in TABLES]
    rng = random.Random(7)
    start = time.monotonic()
    plan = [(2, "lock"), (4, "lock"), (5, "royal"), (7, "lock"), (9, "broker down"), (11, "queued hit"),
            (16, "broker up"), (20, "lock"), (23, "lock"), (27, "end")]
    plan = [(at * scale, what) for at, what in plan]
    next_print = 0.0
    ok = False
    try:
        for _ in range(int(60 / 0.005)):
            elapsed = time.monotonic() - start
            now = int(time.monotonic() * 1000) & 0x3FFFFFFF
            for t in tables:
                t.service(now)
            while plan and elapsed >= plan[0][0]:
                what = plan.pop(0)[1]
                if what == "lock":
                    for t in tables:
                        if t.link.wagers_open():
                            t.lock(rng.randint(1, 7))
                    print("-- every open table locks a round with its jackpot wagers", flush=True)
                elif what == "royal":
                    t = tables[1]
                    r = t.lock(3)
                    t.link.hit(r, int(time.time()), [[4, ROYAL, WAGER]])
                    print("-- table 2, seat 4: ROYAL FLUSH confirmed by the supervisor", flush=True)
                elif what == "broker down":
                    broker.kill()
                    print("-- the MQTT broker dies", flush=True)
                elif what == "queued hit":
                    t = tables[0]
                    r = t.lock(2)
                    t.link.hit(r, int(time.time()), [[2, FOUR_OF_A_KIND, WAGER]])
                    print("-- table 1 settles a round locked before the outage: four of a kind, queued",
                          flush=True)
                elif what == "broker up":
                    broker.start()
                    print("-- the broker is back", flush=True)
                elif what == "end":
                    break
            if not plan:
                break
            if elapsed >= next_print:
                next_print += 1.0 * scale
                print("t=%4.1fs" % elapsed, flush=True)
                for t in tables:
                    print(t.line(now), flush=True)
            time.sleep(0.005)
        # let everything settle, then compare the books
        for _ in range(int(10 / 0.005)):
            now = int(time.monotonic() * 1000) & 0x3FFFFFFF
            for t in tables:
                t.service(now)
            if all(t.link.state == UP and not t.link.entries and not t.link.awaiting for t in tables):
                break
            time.sleep(0.005)
        time.sleep(0.3)
        ledger = read_ledger(controller.db)
        print("-- reconciliation: controller ledger vs table meters")
        ok = True
        for t in tables:
            mine = t.link.totals
            theirs = ledger["tables"][t.table]["totals"]
            same = mine == theirs and t.link.amounts() == ledger["pool"]
            ok = ok and same
            print("  table %d: wagers %s paid %s, controller says wagers %s paid %s, sign %s: %s"
                  % (t.table, dollars(mine[0]), dollars(mine[3]), dollars(theirs[0]), dollars(theirs[3]),
                     dollars(t.link.amounts()[0]), "agrees" if same else "DIFFERS"))
        audit = ledger["pool_object"].audit(sum(v["totals"][0] - v["totals"][2]
                                                for v in ledger["tables"].values()))
        ok = ok and not audit
        print("  pool %s, books %s" % (dollars(ledger["pool"][0]), "balance" if not audit else audit))
        for p in ledger["paid"]:
            print("  paid #%d: table %d round %d: %s" % (p[5], p[0], p[2], ", ".join(
                "seat %d %s" % (row[0], dollars(row[2])) for row in p[6]["rows"])))
        print("RECONCILED to the cent" if ok else "NOT RECONCILED")
    finally:
        for t in tables:
            t.station.close()
        controller.stop()
        broker.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description="linked progressive demo (real Mosquitto)")
    parser.add_argument("--fast", action="store_true", help="a shorter run of the same story")
    args = parser.parse_args(argv)
    return run(args.fast)


if __name__ == "__main__":
    sys.exit(main())
