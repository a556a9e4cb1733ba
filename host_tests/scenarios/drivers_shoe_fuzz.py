# The shoe driver fed thousands of pseudo-random bytes (a fixed LCG, so both runtimes see the same
# stream) mixed with good lines, all with the heap locked: it never raises, never allocates, and
# every good line that arrives after a line break is still read.
import sys

from firmware.compat import micropython
from firmware.drivers import shoe
from firmware.drivers.events import EMPTY, event_kind
from host_tests.fakes.pins import FakeUART

uart = FakeUART(fifo=1024)
reader = shoe.Shoe(uart, partial_ms=200)
noise = bytearray(97)
good = b"\nS5 Qd\n"
seed = [12345]
counts = [0, 0, 0]


def next_noise():
    x = seed[0]
    for i in range(len(noise)):
        x = (x * 1103515245 + 12345) & 0x3FFFFFFF
        noise[i] = (x >> 16) & 0xFF
    seed[0] = x


def run(rounds):
    now = 0
    for r in range(rounds):
        next_noise()
        uart.inject(noise)
        uart.inject(good)
        for _ in range(4):
            reader.poll(now)
            now += 20
            while True:
                event = reader.events.pop()
                if event == EMPTY:
                    break
                counts[event_kind(event) - 1] += 1
        if r % 7 == 0:
            now += 300          # a pause: an unfinished line times out as partial


run(2)
counts[0] = counts[1] = counts[2] = 0
micropython.heap_lock()
try:
    run(300)
    allocated = "no"
except MemoryError:
    allocated = "yes"
micropython.heap_unlock()
print("allocated under heap_lock:", allocated)
print("cards read:", counts[0])
print("rejected lines:", counts[1])
print("rejects by reason:", ", ".join(["%s %d" % (shoe.REASONS[i], reader.rejects[i])
                                      for i in range(1, len(shoe.REASONS))]))
# Each round ends with a line break and then a good line, so every one of the 300 is read.
if allocated != "no" or counts[0] != 300 or counts[1] < 300 or reader.events.dropped:
    print("FAILED")
    sys.exit(1)
