# The whole firmware of a LINKED table (firmware.app.App on boards/simulated, the Station over a
# real socket) against a real broker and link controller.  Runs unchanged under MicroPython
# and CPython; used by host_tests/test_link_app_runtimes.py.  Args: port table key_hex.
# Plays one round with two jackpot wagers, then measures the idle loop: the round controller's
# link work (link + link_poll) under heap_lock, and what a whole App.step allocates per tick
# (gc.mem_alloc, MicroPython only).  Prints one JSON line.
import gc
import json
import sys
import time

from boards import simulated
from firmware.app import TICK_MS, App
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.link import mqtt
from firmware.link.setup import LinkSetup
from host_tests.fakes.flash import MemFS

try:
    import micropython
except ImportError:
    micropython = None

try:
    from binascii import unhexlify
except ImportError:
    unhexlify = bytes.fromhex

IDLE_TICKS = 250


def ticks():
    if hasattr(time, "ticks_ms"):
        return time.ticks_ms() & 0x3FFFFFFF
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


def pause(ms):
    if hasattr(time, "sleep_ms"):
        time.sleep_ms(ms)
    else:
        time.sleep(ms / 1000)


port = int(sys.argv[1])
table_no = int(sys.argv[2])
key = unhexlify(sys.argv[3])
table = simulated.make(None)
setup = LinkSetup(table_no, key, mqtt.tcp_opener("127.0.0.1", port),
                  {"link_timeout": 1500, "ping_every": 1000, "resend_every": 300}, keepalive=5)
app = App(table.board, MemFS(), now=ticks(), link=setup)
app.boot(ticks(), int(time.time()))
c = app.controller


def run(ms):
    end = ticks() + ms
    for _ in range(ms // TICK_MS + 2):
        now = ticks()
        app.step(now, int(time.time()))
        if now - end >= 0:
            return
        pause(TICK_MS)


def press(name, ms=100):
    table.buttons[name].press()
    run(ms)
    table.buttons[name].release()
    run(100)


# blank memory: the supervisor's RAM clear
table.key.level = 0
run(200)
press("OK", 1200)
press("OK")
table.key.level = 1
run(200)
up = False
for _ in range(100):
    run(100)
    if c.jackpot_open():
        up = True
        break
for seat in (1, 2):
    table.mcp.cover(jackpot_spot(seat))
    table.mcp.cover(ante_spot(seat))
run(400)
press("LOCK")
locked = c.rec.accepted
for _ in range(50):
    run(100)
    if not app.station.link.entries:
        break

# the controller's link work on an idle tick, under heap_lock
link = app.station.link
locked_ok = True
if micropython is not None and hasattr(micropython, "heap_lock"):
    now = ticks()
    c.link(link.wagers_open(), now)
    c.link_poll(now)
    micropython.heap_lock()
    try:
        for i in range(50):
            c.link(link.wagers_open(), now + i)
            c.link_poll(now + i)
    except MemoryError:
        locked_ok = False
    micropython.heap_unlock()

# a whole idle App.step: bytes allocated per tick (MicroPython)
alloc_ticks = 0
alloc_bytes = 0
alloc_max = 0
step_us = []
measured = hasattr(gc, "mem_alloc") and micropython is not None
gc.collect()
for _ in range(IDLE_TICKS):
    now = ticks()
    if measured:
        gc.disable()
        before = gc.mem_alloc()
        t0 = time.ticks_us()
    app.step(now, int(time.time()))
    if measured:
        step_us.append(time.ticks_diff(time.ticks_us(), t0))
        used = gc.mem_alloc() - before
        gc.enable()
        if used > 0:
            alloc_ticks += 1
            alloc_bytes += used
            alloc_max = used if used > alloc_max else alloc_max
    pause(TICK_MS)

# the Station alone (MQTT client + TableLink), the same way
station_ticks = 0
station_bytes = 0
gc.collect()
for _ in range(IDLE_TICKS):
    now = ticks()
    if measured:
        gc.disable()
        before = gc.mem_alloc()
    app.station.service(now, int(time.time()))
    if measured:
        used = gc.mem_alloc() - before
        gc.enable()
        if used > 0:
            station_ticks += 1
            station_bytes += used
    pause(TICK_MS)

step_us.sort()
median_us = step_us[len(step_us) // 2] if step_us else 0
max_us = step_us[-1] if step_us else 0
print(json.dumps({"median_us": median_us, "max_us": max_us, "station_ticks": station_ticks,
                  "station_bytes": station_bytes, "up": up, "accepted": locked,
                  "state": link.state_name(), "last_n": link.last_n,
                  "totals": link.totals, "pool": link.amounts(), "meter": c.view.meter[0],
                  "locked_ok": locked_ok, "measured": measured, "ticks": IDLE_TICKS,
                  "alloc_ticks": alloc_ticks, "alloc_bytes": alloc_bytes, "alloc_max": alloc_max}))
app.station.close()
