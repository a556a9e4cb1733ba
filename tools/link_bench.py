"""Benchmark of the linked progressive on this machine, through a real Mosquitto broker.

    python -m tools.link_bench [--quick]

1. Contribution throughput: N tables each keep up to 4 contributions unacknowledged; how
   many contributions per second one controller applies (each one an SQLite transaction with
   synchronous=FULL), and the time from a contribution sent to its acknowledgement.
2. Tables: fleets of growing size at the production timings (ping every second, link
   timeout 4 s) with a round locked at every table every 5 s (about 12 times a busy table's
   pace); the largest fleet whose tables all stayed UP with acknowledgements under a second.
3. Hit latency: with 20 tables, the time from a confirmed hit sent by a table to the new
   pool amount on every linked table's meter (median and 99th percentile), order window 0:
   the controller's ordering window (default 1000 ms) adds its own wait on top.

All tables of a fleet share one MQTT connection in this process (each with its own
TableLink, key and topics), so the controller sees as many tables as are simulated.
Everything runs on 127.0.0.1; every loop is bounded in time.
"""

import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time

from firmware.link import mqtt
from firmware.link.tablelink import UP, TableLink
from tools.link_broker import ControllerProcess, LocalBroker, write_keys


def key_of(table):
    return hashlib.sha256(b"bench key %d" % table).digest()


def ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class Fleet:
    """Many TableLinks behind one MQTT client."""

    def __init__(self, port, tables, fast=False):
        self.links = {}
        self.now = ms()
        self.sent_at = {}
        self.ack_times = []
        self.seen = {}
        for t in tables:
            link = TableLink(t, key_of(t), self._send)
            if fast:
                link.ping_every, link.resend_every, link.link_timeout = 200, 300, 1500
            self.links[t] = link
        self.client = mqtt.Client("bench-fleet-%d" % os.getpid(), mqtt.tcp_opener("127.0.0.1", port),
                                  self._receive, keepalive=10, max_messages=mqtt.HOST_BATCH)
        self.client.subscribe("jackpot/link/+/down")
        self.downs = 0

    def _send(self, topic, payload):
        return self.client.publish(topic, payload)

    def _receive(self, topic, payload):
        table = int(topic.split("/")[2])
        link = self.links.get(table)
        if link is None:
            return
        acked = link.acked
        link.on_message(topic, payload, self.now)
        now = time.monotonic()
        for n in range(acked + 1, link.acked + 1):
            sent = self.sent_at.pop((table, n), None)
            if sent is not None:
                self.ack_times.append(now - sent)
        self.seen[table] = (tuple(link.amounts()), now)

    def service(self):
        self.now = ms()
        up = self.client.service(self.now)
        wall = int(time.time())
        for link in self.links.values():
            before = link.state
            link.service(self.now, wall, up)
            if link.dirty:
                link.saved()    # a board commits section() here; the lease goes on
            if before == UP and link.state != UP:
                self.downs += 1

    def run(self, seconds, each=None):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.client.sock is not None:
                import select

                select.select([self.client.sock], [], [], 0.001)
            self.service()
            if each is not None:
                each()

    def wait_up(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.run(0.05)
            if all(link.state == UP for link in self.links.values()):
                return True
        return False

    def contribute(self, table, round_no):
        link = self.links[table]
        n = link.contribute(round_no, int(time.time()), 2, 200)
        link.saved()
        self.sent_at[(table, n)] = time.monotonic()

    def close(self):
        self.client.close()


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p))]


def start(folder, broker, tables, *options):
    keys = os.path.join(folder, "keys-%d.json" % len(tables))
    write_keys(keys, tables, key_of)
    db = os.path.join(folder, "ledger.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    return ControllerProcess(folder, broker.port, keys, *options).start()


def throughput(folder, broker, tables, seconds):
    controller = start(folder, broker, range(1, tables + 1))
    fleet = Fleet(broker.port, range(1, tables + 1), fast=True)
    try:
        if not fleet.wait_up(15):
            return None
        rounds = {t: 0 for t in fleet.links}

        def feed():
            for t, link in fleet.links.items():
                if link.state == UP and len(link.entries) < 4:
                    rounds[t] += 1
                    fleet.contribute(t, rounds[t])

        fleet.run(1.0, feed)  # warm up
        acked0 = sum(link.acked for link in fleet.links.values())
        fleet.ack_times = []
        t0 = time.monotonic()
        fleet.run(seconds, feed)
        elapsed = time.monotonic() - t0
        acked = sum(link.acked for link in fleet.links.values()) - acked0
        return {"tables": tables, "rate": acked / elapsed, "ack_median_ms": 1000 * pct(fleet.ack_times, 0.5),
                "ack_p99_ms": 1000 * pct(fleet.ack_times, 0.99)}
    finally:
        fleet.close()
        controller.stop()


def fleet_size(folder, broker, tables, seconds, round_every=5.0):
    controller = start(folder, broker, range(1, tables + 1))
    fleet = Fleet(broker.port, range(1, tables + 1))
    try:
        if not fleet.wait_up(20):
            return {"tables": tables, "ok": False, "why": "not all tables came UP"}
        next_round = {t: time.monotonic() + round_every * i / tables for i, t in enumerate(fleet.links)}
        rounds = {t: 0 for t in fleet.links}

        def feed():
            now = time.monotonic()
            for t in fleet.links:
                if now >= next_round[t]:
                    next_round[t] = now + round_every
                    rounds[t] += 1
                    if fleet.links[t].wagers_open():
                        fleet.contribute(t, rounds[t])

        fleet.ack_times = []
        fleet.downs = 0
        fleet.run(seconds, feed)
        fleet.run(1.5)
        all_up = all(link.state == UP for link in fleet.links.values()) and fleet.downs == 0
        p99 = pct(fleet.ack_times, 0.99)
        return {"tables": tables, "ok": all_up and p99 < 1.0, "downs": fleet.downs,
                "contrib_per_s": len(fleet.ack_times) / seconds,
                "ack_median_ms": 1000 * pct(fleet.ack_times, 0.5), "ack_p99_ms": 1000 * p99}
    finally:
        fleet.close()
        controller.stop()


def hit_latency(folder, broker, tables, hits):
    controller = start(folder, broker, range(1, tables + 1), "--order-window", "0", "--broadcast", "50")
    fleet = Fleet(broker.port, range(1, tables + 1), fast=True)
    samples = []
    try:
        if not fleet.wait_up(15):
            return None
        round_no = 0
        for i in range(hits):
            round_no += 1
            table = 1 + i % tables
            link = fleet.links[table]
            link.contribute(round_no, int(time.time()), 1, 100)
            sent = time.monotonic()
            link.hit(round_no, int(time.time()), [[1, 0, 100]])  # a flush: 100 to 1
            link.saved()
            target = None
            deadline = sent + 5
            while time.monotonic() < deadline:
                fleet.run(0.001)
                results = link.take_results()
                if results:
                    target = tuple(results[0].after)
                if target is not None and all(fleet.seen.get(t, ((), 0))[0] == target for t in fleet.links):
                    samples.append(max(fleet.seen[t][1] for t in fleet.links) - sent)
                    break
            fleet.run(0.05)
        return {"tables": tables, "hits": len(samples), "median_ms": 1000 * statistics.median(samples),
                "p99_ms": 1000 * pct(samples, 0.99), "max_ms": 1000 * max(samples)}
    finally:
        fleet.close()
        controller.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description="linked progressive benchmark (real Mosquitto)")
    parser.add_argument("--quick", action="store_true", help="short runs (for a smoke test)")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="link-bench-")
    broker = LocalBroker(folder).start()
    try:
        seconds = 2 if args.quick else 5
        print("1. contribution throughput (tables keep 4 unacknowledged each)")
        for n in ((10,) if args.quick else (10, 50)):
            r = throughput(folder, broker, n, seconds)
            print("   %3d tables: %6.0f contributions/s applied, ack median %.1f ms, p99 %.1f ms"
                  % (r["tables"], r["rate"], r["ack_median_ms"], r["ack_p99_ms"]))
        print("2. tables at production timings, a round every 5 s per table")
        best = 0
        for n in ((50,) if args.quick else (200, 400, 800, 1600, 3200)):
            r = fleet_size(folder, broker, n, seconds * 2)
            if "why" in r:
                print("   %3d tables: FAILED (%s)" % (n, r["why"]))
                break
            print("   %3d tables: %s, %d down, %.0f contributions/s, ack median %.1f ms, p99 %.1f ms"
                  % (n, "all UP" if r["ok"] else "NOT SUSTAINED", r["downs"], r["contrib_per_s"],
                     r["ack_median_ms"], r["ack_p99_ms"]))
            if not r["ok"]:
                break
            best = n
        print("   largest fleet sustained: %d tables" % best)
        print("3. confirmed hit to the new amount on every meter (order window 0)")
        r = hit_latency(folder, broker, 20, 10 if args.quick else 40)
        print("   %d tables, %d hits: median %.1f ms, p99 %.1f ms, max %.1f ms"
              % (r["tables"], r["hits"], r["median_ms"], r["p99_ms"], r["max_ms"]))
    finally:
        broker.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
