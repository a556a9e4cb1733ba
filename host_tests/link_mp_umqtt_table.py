# One linked table on the MicroPython VM with the REAL umqtt.simple (fetched into .deps/ by
# tools/fetch_umqtt.py) behind firmware.link.umqtt_client, against a real broker and the real
# link controller.  Used by host_tests/test_link_umqtt_micropython.py, which restarts the
# broker when this prints "phase outage".  Args: port table key_hex rounds_before rounds_during
# rounds_after.  Prints "phase ..." lines, then one JSON line.
import json
import sys
import time

import micropython

from firmware.link import mqtt, umqtt_client
from firmware.link.station import Station
from firmware.link.tablelink import UP

try:
    from binascii import unhexlify
except ImportError:
    unhexlify = bytes.fromhex

LIMIT_MS = 15000  # each phase


def ticks():
    return time.ticks_ms() & 0x3FFFFFFF


port = int(sys.argv[1])
table = int(sys.argv[2])
key = unhexlify(sys.argv[3])
before, during, after = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
events = []
errors = []
station = Station(table, key, mqtt.tcp_opener("127.0.0.1", port), log=lambda c, t: events.append(c),
                  keepalive=2, client_factory=umqtt_client.factory("127.0.0.1", port))
client = station.client
client.log = errors.append
link = station.link
link.ping_every = 200
link.resend_every = 300
link.link_timeout = 1500
stats = {"connect_us": [], "down_max_us": 0, "up_max_us": 0, "services": 0}
made = [0]


def step():
    t0 = time.ticks_us()
    was = client.connects
    station.service(ticks(), int(time.time()))
    spent = time.ticks_diff(time.ticks_us(), t0)
    stats["services"] += 1
    if client.connects != was:
        stats["connect_us"].append(spent)  # the service() call that ran umqtt's connect()
    elif client.connected():
        stats["up_max_us"] = max(stats["up_max_us"], spent)
    else:
        stats["down_max_us"] = max(stats["down_max_us"], spent)
    time.sleep_ms(2)


def run_until(done):
    start = ticks()
    while not done():
        if mqtt.ticks_diff(ticks(), start) > LIMIT_MS:
            return False
        step()
    return True


def settled():
    return link.state == UP and not link.entries and not link.awaiting


def rounds(count):
    """count rounds, one at a time, each acknowledged before the next (as a table plays)."""
    for _ in range(count):
        if not run_until(settled):
            return False
        made[0] += 1
        r = made[0]
        link.contribute(r, int(time.time()), 1 + r % 7, (1 + r % 7) * 100)
    return run_until(settled)


def say(text):
    print(text)
    if hasattr(sys.stdout, "flush"):
        sys.stdout.flush()


ok = rounds(before)
say("phase outage")
# the test kills the broker now: the table notices, and locks rounds while it is gone
ok = ok and run_until(lambda: not client.connected())
for _ in range(during):
    made[0] += 1
    r = made[0]
    link.contribute(r, int(time.time()), 1 + r % 7, (1 + r % 7) * 100)
    step()
queued = len(link.entries)
ok = ok and run_until(lambda: client.connects >= 2 and settled())
say("phase back")
ok = ok and rounds(after)
made[0] += 1
link.contribute(made[0], int(time.time()), 1, 100)
link.hit(made[0], int(time.time()), [[1, 2, 100]])
ok = ok and run_until(settled)
results = link.take_results()
# umqtt's idle check_msg() allocates (its read(1) result): with the heap locked the adapter
# drops the connection and names why, and nothing escapes service()
locked = {"raised": None, "error": None}
now = ticks()
micropython.heap_lock()
try:
    for _ in range(3):
        client.service(now)
except MemoryError:
    locked["raised"] = "MemoryError"
micropython.heap_unlock()
locked["error"] = client.error
station.close()
print(json.dumps({"ok": ok, "state": link.state_name(), "totals": link.totals, "last_n": link.last_n,
                  "pool": link.amounts(), "paid": [r.rows for r in results], "events": events,
                  "errors": errors, "connects": client.connects, "probes": client.probes,
                  "queued": queued, "made": made[0], "client": type(client).__name__, "stats": stats,
                  "locked": locked}))
