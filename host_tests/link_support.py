"""Test rig for the linked progressive: a real Mosquitto broker, the controller as a
subprocess, and simulated tables (the real TableLink and MQTT client, in-process) whose
network ends can drop, duplicate and reorder messages.  Everything talks to 127.0.0.1 only,
every wait is bounded in time and in loop count.
"""

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware.link import mqtt
from firmware.link.tablelink import UP, TableLink
from tools import link_broker
from tools.link_controller import read_ledger

ROOT = Path(__file__).resolve().parent.parent
INSTALL_HINT = ("mosquitto is not installed: the link tests need the real broker. "
                "Install it with `bash tools/ensure_mosquitto.sh` (Debian: apt-get install -y mosquitto)")

# Shorter link timings than a casino needs, so the tests run in seconds.
FAST = {"link_timeout": 1200, "ping_every": 200, "resend_every": 300}
WAGER = 100  # cents: firmware.jackpot.config default wager [UTH 11.2]
# The tests' linked pool is seeded with $10,000.00 by its operator (rules.md 11.6: the reset
# amount is an operator option, off by default); split pools: minor $1,000, major $10,000.
SEEDED = {"main": {"reset": 1000000}}
SEEDED_SPLIT = {"split": True, "minor": {"reset": 100000}, "major": {"reset": 1000000}}


def mosquitto_binary():
    """Path of mosquitto; fails the test (never skips) when it is missing."""
    try:
        return link_broker.mosquitto_binary()
    except RuntimeError:
        pytest.fail(INSTALL_HINT, pytrace=False)


free_port = link_broker.free_port


def table_key(table):
    return hashlib.sha256(b"test key of table %d" % table).digest()


def ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class Broker(link_broker.LocalBroker):
    """A private mosquitto on a free loopback port, configured in the test's folder."""

    def __init__(self, tmp_path):
        mosquitto_binary()
        super().__init__(str(tmp_path))


class ControllerProcess:
    """tools/link_controller.py as a subprocess on the test broker."""

    def __init__(self, tmp_path, port, tables, order_window=300, broadcast=100):
        self.db = tmp_path / "ledger.db"
        self.keys = tmp_path / "keys.json"
        self.keys.write_text(json.dumps({str(t): table_key(t).hex() for t in tables}))
        self.config = tmp_path / "link-config.json"
        self.config.write_text(json.dumps(SEEDED))
        self.port = port
        self.order_window = order_window
        self.broadcast = broadcast
        self.proc = None
        self.lines = []

    def start(self, commit_delay=0):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT)
        command = [sys.executable, "-m", "tools.link_controller", "--db", str(self.db),
                   "--keys", str(self.keys), "--config", str(self.config), "--port",
                   str(self.port), "--order-window", str(self.order_window),
                   "--broadcast", str(self.broadcast), "--quiet"]
        if commit_delay:
            command += ["--commit-delay", str(commit_delay)]
        self.lines = []
        self.proc = subprocess.Popen(command, cwd=str(ROOT), env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        if not self.wait_line("READY", 10):
            raise RuntimeError("controller did not start:\n" + "".join(self.lines))
        return self

    def _read(self, proc):
        for line in proc.stdout:
            self.lines.append(line)

    def wait_line(self, start, timeout):
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / 0.005) + 2):
            if any(line.startswith(start) for line in list(self.lines)):
                return True
            if self.proc.poll() is not None or time.monotonic() >= deadline:
                time.sleep(0.05 if self.proc.poll() is not None else 0)
                return any(line.startswith(start) for line in list(self.lines))
            time.sleep(0.005)
        return False

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)

    def stop(self):
        link_broker.stop_process(self.proc)

    def ledger(self):
        return read_ledger(str(self.db))


class SimTable:
    """One linked table: the real TableLink and MQTT client, with a faulty network end and a
    stand-in for critical memory (the last committed section)."""

    def __init__(self, table, port, faults=None, seed=0):
        self.table = table
        self.port = port
        self.faults = faults or {}
        self.rng = random.Random(seed * 7919 + table)
        self.events = []
        self.held = {"up": None, "down": None}
        self.now = ms()
        self.saved = None
        self.round = 0
        self.wagers = 0  # what this test asked for, in cents (an oracle independent of the link)
        self._build(None)

    def _build(self, section):
        if section is None:
            self.link = TableLink(self.table, table_key(self.table), self._send, self._log)
        else:
            self.link = TableLink.restore(self.table, table_key(self.table), self._send, section, self._log)
        for name, value in FAST.items():
            setattr(self.link, name, value)
        self.client = mqtt.Client("table-%d" % self.table, mqtt.tcp_opener("127.0.0.1", self.port),
                                  self._receive, keepalive=2)
        self.client.subscribe(self.link.topic_down)

    def _log(self, code, text):
        self.events.append((code, text))

    def _fault(self, way, deliver, topic, payload):
        f = self.faults
        r = self.rng.random()
        if r < f.get("drop", 0):
            return
        r -= f.get("drop", 0)
        if r < f.get("reorder", 0) and self.held[way] is None:
            self.held[way] = (topic, payload)
            return
        deliver(topic, payload)
        r -= f.get("reorder", 0)
        if r < f.get("duplicate", 0):
            deliver(topic, payload)
        if self.held[way] is not None:
            held, self.held[way] = self.held[way], None
            deliver(*held)

    def _send(self, topic, payload):
        self._fault("up", self.client.publish, topic, payload)
        return True

    def _receive(self, topic, payload):
        self._fault("down", lambda t, p: self.link.on_message(t, p, self.now), topic, payload)

    def service(self, now):
        self.now = now
        up = self.client.service(now)
        self.link.service(now, int(time.time()), up)
        if self.link.dirty:
            self.saved = self.link.section()
            self.link.saved()

    def lock_round(self, count):
        """A round locked with count jackpot wagers, committed with its LOCK record."""
        self.round += 1
        self.link.contribute(self.round, int(time.time()), count, count * WAGER)
        self.wagers += count * WAGER
        self.saved = self.link.section()
        self.link.saved()
        return self.round

    def claim(self, hits, lock_time=None):
        """A round with jackpot hits [[seat, hand, wager]] (its contribution included)."""
        round_no = self.lock_round(len(hits))
        n = self.link.hit(round_no, int(time.time()) if lock_time is None else lock_time, hits)
        self.saved = self.link.section()
        self.link.saved()
        return n

    def power_cut(self):
        """Lose everything not committed; come back from the saved section."""
        self.client._close_socket()
        self._build(self.saved)

    def close(self):
        self.client.close()


def pump(tables, until, timeout, step=0.002):
    """Service every table until until() is true; False after timeout seconds."""
    deadline = time.monotonic() + timeout
    for _ in range(int(timeout / step) + 10):
        now = ms()
        for t in tables:
            t.service(now)
        if until():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return False


def settled(tables, ledger_of=None):
    """True when every table is UP with nothing unacknowledged or awaited."""
    for t in tables:
        link = t.link
        if link.state != UP or link.entries or link.awaiting:
            return False
    return True


def check_reconciled(tables, ledger):
    """The controller's ledger and every table's meters agree to the cent; returns problems."""
    problems = []
    net = 0
    for t in tables:
        row = ledger["tables"][t.table]
        link = t.link
        if row["last_n"] != link.last_n:
            problems.append("table %d: ledger applied %d entries, table made %d" % (t.table, row["last_n"],
                                                                                  link.last_n))
        if row["totals"] != link.totals:
            problems.append("table %d: ledger totals %r, table %r" % (t.table, row["totals"], link.totals))
        if link.amounts() != ledger["pool"]:
            problems.append("table %d shows %r, pool is %r" % (t.table, link.amounts(), ledger["pool"]))
        if row["totals"][0] != t.wagers:
            problems.append("table %d: ledger wagers %d, test placed %d"
                            % (t.table, row["totals"][0], t.wagers))
        net += row["totals"][0] - row["totals"][2]
    problems.extend(ledger["pool_object"].audit(net))
    if ledger["pending"]:
        problems.append("%d hits still waiting" % ledger["pending"])
    return problems


def wait_reconciled(tables, controller, timeout=15):
    """Pump until all tables are settled and the ledger agrees with them; returns problems."""
    box = [["not settled"]]

    def done():
        if not settled(tables):
            return False
        box[0] = check_reconciled(tables, controller.ledger())
        return not box[0]

    if not pump(tables, done, timeout) and box[0] == ["not settled"]:
        box[0] = ["not settled: " + "; ".join(
            "table %d %s entries %r awaiting %r acked %d last %d remote %r rejects %r"
            % (t.table, t.link.state_name(), [e[0] for e in t.link.entries], t.link.awaiting,
               t.link.acked, t.link.last_n, t.link.remote, t.link.rejects) for t in tables)]
    return box[0]
