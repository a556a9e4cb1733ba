# One linked table on the real network stack: Station (MQTT client + TableLink) against a real
# broker and controller.  Runs unchanged under MicroPython and CPython; used by
# host_tests/test_link_micropython.py.  Args: port table key_hex rounds.  Prints one JSON line.
import json
import sys
import time

from firmware.link import mqtt
from firmware.link.station import Station
from firmware.link.tablelink import UP

try:
    from binascii import unhexlify
except ImportError:
    unhexlify = bytes.fromhex


def ticks():
    if hasattr(time, "ticks_ms"):
        return time.ticks_ms() & 0x3FFFFFFF
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


def pause():
    if hasattr(time, "sleep_ms"):
        time.sleep_ms(2)
    else:
        time.sleep(0.002)


port = int(sys.argv[1])
table = int(sys.argv[2])
key = unhexlify(sys.argv[3])
rounds = int(sys.argv[4])
events = []
station = Station(table, key, mqtt.tcp_opener("127.0.0.1", port), log=lambda c, t: events.append(c))
link = station.link
link.ping_every = 200
link.resend_every = 300
link.link_timeout = 1500
done = 0
claimed = False
results = []
start = ticks()
for _ in range(20000):  # at most about 40 s
    station.service(ticks(), int(time.time()))
    if link.state == UP and done < rounds and not link.entries:
        done += 1
        link.contribute(done, int(time.time()), 1 + done % 7, (1 + done % 7) * 100)
    elif link.state == UP and done == rounds and not claimed and not link.entries:
        claimed = True
        done += 1
        link.contribute(done, int(time.time()), 1, 100)
        link.hit(done, int(time.time()), [[1, 2, 100]])
    if claimed and link.state == UP and not link.entries and not link.awaiting:
        results = link.take_results()
        break
    if mqtt.ticks_diff(ticks(), start) > 40000:
        break
    pause()
station.close()
print(json.dumps({"state": link.state_name(), "totals": link.totals, "last_n": link.last_n,
                  "pool": link.amounts(), "paid": [r.rows for r in results],
                  "events": events}))
