"""The board's MQTT client for real: a table on the MicroPython VM runs the real umqtt.simple
(fetched by tools/fetch_umqtt.py, as `mip` installs it on the board) through
firmware/link/umqtt_client.py, against Mosquitto and the CPython link controller.  The broker
is killed and restarted in the middle; the books reconcile to the cent."""

import json
import os
import subprocess
import threading
import time

import pytest

from host_tests.link_support import Broker, ControllerProcess, table_key
from host_tests.runtimes import ROOT, micropython_binary
from tools import fetch_umqtt

SCRIPT = ROOT / "host_tests" / "link_mp_umqtt_table.py"
TABLE = 6
BEFORE, DURING, AFTER = 5, 2, 3  # rounds locked before, during and after the broker outage


@pytest.fixture(scope="module")
def umqtt_folder():
    """The folder holding umqtt/simple.py (fetched on first use, like `make test` does)."""
    try:
        fetch_umqtt.fetch()
    except fetch_umqtt.FetchError as error:
        pytest.fail("umqtt.simple is needed for this test: %s (run python -m tools.fetch_umqtt)" % error,
                    pytrace=False)
    return fetch_umqtt.DEST


def test_real_umqtt_table_survives_a_broker_restart_and_reconciles(tmp_path, umqtt_folder):
    broker = Broker(tmp_path).start()
    controller = ControllerProcess(tmp_path, broker.port, [TABLE], order_window=100)
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:%s:%s" % (ROOT, umqtt_folder)
    lines = []
    proc = None
    outage = {}
    started = time.monotonic()
    try:
        controller.start()
        proc = subprocess.Popen([micropython_binary(), str(SCRIPT), str(broker.port), str(TABLE),
                                 table_key(TABLE).hex(), str(BEFORE), str(DURING), str(AFTER)],
                                cwd=str(ROOT), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        reader.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if not outage and "phase outage\n" in lines:
                broker.kill()  # a crash: no goodbye to the clients
                outage["killed"] = time.monotonic()
                time.sleep(1.0)  # longer than the first back-off: a probe finds the port closed
                broker.start()
                outage["restarted"] = time.monotonic()
            time.sleep(0.01)
        proc.wait(5)
        reader.join(5)
        ledger = controller.ledger()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        controller.stop()
        broker.stop()
    elapsed = time.monotonic() - started
    out = "".join(lines)
    assert proc.returncode == 0 and outage, out
    got = json.loads(lines[-1])
    print("real umqtt table: %.1f s, %s, %s" % (elapsed, json.dumps(got["stats"]), got["errors"]))
    assert got["ok"] and got["client"] == "UmqttClient", out
    # the table's own count of what it locked: before, during and after the outage, then the hit round
    plan = list(range(1, BEFORE + DURING + AFTER + 1))
    count = sum(1 + r % 7 for r in plan) + 1
    placed = count * 100
    assert got["made"] == len(plan) + 1 and got["queued"] == DURING  # locked while the broker was gone
    # the crash is noticed on the socket; while the broker is gone the probe is refused and
    # umqtt's blocking connect() is not called; the second connect follows the restart
    errors = got["errors"]
    assert got["connects"] == 2 and errors[0] == "mqtt up" and errors[-1] == "mqtt up"
    assert errors[1].startswith("mqtt down: receive failed")
    assert any(e.startswith("mqtt down: broker unreachable") for e in errors[2:-1])
    assert got["stats"]["down_max_us"] < 50000  # no service() call blocked while the broker was down
    assert got["state"] == "UP"
    # every entry applied exactly once: contributions, plus the hit entry of the last round
    assert got["last_n"] == len(plan) + 2 == ledger["tables"][TABLE]["last_n"]
    # four of a kind pays 500 to 1 on the 100-cent wager [rules.md 11.9]
    assert got["paid"] == [[[1, 2, 50000, 0]]]
    assert got["totals"] == ledger["tables"][TABLE]["totals"] == [placed, count, 0, 50000, 1]
    # the pool: 1,000,000 reset plus 70 % of the wagers (firmware/jackpot/config.py defaults), less the payout
    assert got["pool"] == ledger["pool"] == [1000000 + placed * 7 // 10 - 50000]
    assert not ledger["pending"] and not ledger["pool_object"].audit(placed)
    assert got["locked"] == {"raised": None, "error": "mqtt down: out of memory"}
    assert got["events"] == ["link reconciling", "link up", "link down", "link reconciling", "link up",
                             "link hit paid"]
