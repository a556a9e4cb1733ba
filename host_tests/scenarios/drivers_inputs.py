# Input drivers on both runtimes: MCP23017 + spot sensors, dealer panel, card shoe, against the
# wire-level fakes; then every per-tick path run again with the MicroPython heap locked.
import sys

from firmware.compat import micropython
from firmware.drivers import buttons, mcp23017, shoe, spot_sensors
from firmware.drivers.events import EMPTY, event_detail, event_kind
from host_tests.fakes.i2c import FakeI2C
from host_tests.fakes.mcp23017 import FakeMCP23017
from host_tests.fakes.pins import FakePin, FakeUART

failures = []


def expect(what, got, wanted):
    print(what, got)
    if got != wanted:
        failures.append("%s: got %r, wanted %r" % (what, got, wanted))


def drain(ring):
    out = []
    while True:
        event = ring.pop()
        if event == EMPTY:
            return out
        out.append((event_kind(event), event_detail(event)))


# --- spot sensors through the MCP23017 ----------------------------------------------------------
bus = FakeI2C()
chip_model = bus.attach(0x20, FakeMCP23017())
chip = mcp23017.MCP23017(bus)
chip.configure()
spots = spot_sensors.SpotSensors(count=14, debounce_ms=60, chatter_limit=6, recover_ms=400)

now = 0


def scan_for(ms):
    global now
    end = now + ms
    while now < end:
        bits = chip.read()
        if now % 100 == 0 and not chip.check():
            bits = -1
        spots.scan(bits, now)
        now += 10


scan_for(50)
chip_model.cover(2)
scan_for(100)
expect("placed seat 3", drain(spots.events), [(spot_sensors.PLACED, 2)])
chip_model.uncover(2)
scan_for(100)
expect("removed seat 3", drain(spots.events), [(spot_sensors.REMOVED, 2)])
for _ in range(10):                # a flickering sensor on spot 5
    chip_model.cover(5)
    scan_for(20)
    chip_model.uncover(5)
    scan_for(20)
expect("chatter", drain(spots.events), [(spot_sensors.FAULT, 5)])
expect("fault reason", spot_sensors.FAULT_NAMES[spots.fault(5)], "chatter")
bus.sda_short = "low"
scan_for(100)
faults = drain(spots.events)
expect("shorted bus faults", len([e for e in faults if e[0] == spot_sensors.FAULT]), 14)
bus.sda_short = None
scan_for(600)
expect("bus recovered", [spots.fault(s) for s in range(14)], [0] * 14)
drain(spots.events)

# --- dealer panel ---------------------------------------------------------------------------
pins = [FakePin(1) for _ in range(6)]
key = FakePin(1)
door = FakePin(1)
panel = buttons.Panel(pins, key, door, debounce_ms=30, long_ms=1000)
t = 0
mash = [0, 1, 0, 1, 0] + [0] * 30 + [1, 0, 1, 0, 1] + [1] * 40
for _ in range(3):
    for level in mash:
        pins[buttons.LOCK].level = level
        panel.poll(t)
        t += 2
presses = [e for e in drain(panel.events) if e[0] == buttons.PRESS]
expect("mashed LOCK presses", presses, [(buttons.PRESS, buttons.LOCK)] * 3)
key.level = 0
for _ in range(20):
    panel.poll(t)
    t += 10
expect("key", drain(panel.events), [(buttons.KEY_ON, 0)])

# --- shoe -----------------------------------------------------------------------------------
uart = FakeUART(fifo=512)
reader = shoe.Shoe(uart)
uart.inject(b"S3 As\nD Kd\nB 10h\nS9 2c\nS1 Zz\n\xff\xfe\nS2 Qh*33\nS7 Tc" + b"x" * 20 + b"\n")
reader.poll(0)
reader.poll(20)
got = []
while True:
    event = reader.events.pop()
    if event == EMPTY:
        break
    if event_kind(event) == shoe.CARD:
        got.append((shoe.card_dest(event), shoe.card_of(event)))
    else:
        got.append(shoe.REASONS[event_detail(event)])
# Card ints are rank * 4 + suit (firmware.poker.cards): As = 51, Kd = 45, Th = 34.
expect("shoe", got, [(3, 51), (0, 45), (8, 34), "bad destination", "bad card", "garbage bytes",
                     "bad checksum", "line too long"])

# --- the same per-tick paths with the heap locked -------------------------------------------
good_lines = b"S4 9c\nB Jd\n"
bad_lines = b"S8 9c\n\x00\x01\nD 1x\n"
repeats = [0]


def ticks(rounds):
    global now
    for i in range(rounds):
        if i % 50 == 10:
            chip_model.cover(7)
        elif i % 50 == 30:
            chip_model.uncover(7)
        bits = chip.read()
        if i % 10 == 0:
            chip.check()
        spots.scan(bits, now)
        if i % 97 == 0:
            spots.scan(-1, now)          # a failed read now and then
        pins[buttons.OK].level = 0 if i % 20 < 8 else 1
        pins[buttons.UP].level = 0 if i % 300 < 200 else 1     # held 2 s: LONG, then REPEATs
        panel.poll(now)
        if i % 25 == 0:
            uart.inject(good_lines)
        if i % 40 == 0:
            uart.inject(bad_lines)
        reader.poll(now)
        while spots.events.pop() != EMPTY:
            pass
        while True:
            event = panel.events.pop()
            if event == EMPTY:
                break
            if event_kind(event) == buttons.REPEAT:
                repeats[0] += 1
        while reader.events.pop() != EMPTY:
            pass
        now += 10


ticks(5)
micropython.heap_lock()
try:
    ticks(400)
    allocated = "no"
except MemoryError:
    allocated = "yes"
micropython.heap_unlock()
expect("allocated under heap_lock", allocated, "no")
expect("shoe cards read under heap_lock", reader.cards >= 16 * 2, True)
expect("UP repeats under heap_lock", repeats[0], 6)

if failures:
    print("FAILED:")
    for f in failures:
        print(" ", f)
    sys.exit(1)
