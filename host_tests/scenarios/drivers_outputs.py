# Output drivers on both runtimes: spot lights, meter sign, dealer OLED, buzzer and watchdog,
# read back through the wire-level fakes as a person at the table would see and hear them;
# then every per-tick path run again with the MicroPython heap locked.
import sys

from firmware.compat import micropython
from firmware.drivers import buzzer, meter_sign, oled, spot_lights, watchdog
from host_tests.fakes.i2c import FakeI2C
from host_tests.fakes.max7219 import FakeMax7219Chain
from host_tests.fakes.pins import FakePWM, FakeWDT
from host_tests.fakes.ssd1306 import FakeSSD1306
from host_tests.fakes.ws2812 import FakeWS2812

failures = []


def expect(what, got, wanted):
    print(what, got)
    if got != wanted:
        failures.append("%s: got %r, wanted %r" % (what, got, wanted))


# --- spot lights ----------------------------------------------------------------------------
strip = FakeWS2812(pixels=56)
lights = spot_lights.SpotLights(strip, seats=7, tick_ms=20)
lights.set_all(spot_lights.IDLE)
lights.set(0, spot_lights.PLACED)
lights.set(2, spot_lights.ACCEPTED)
lights.set(3, spot_lights.LOCKED)
lights.set(4, spot_lights.LATE)
lights.set(5, spot_lights.FAULT)
lights.set(6, spot_lights.WINNER)
lights.render(0)
expect("ring colours", [strip.seat_colour(s) for s in range(7)],
       ["amber", "blue", "green", "red", "red", "magenta", "mixed"])
expect("winner ring", strip.seat_names(6),
       ["red", "amber", "yellow", "green", "cyan", "blue", "violet", "pink"])
lights.render(13)                       # 260 ms: the late bet flash is dark
expect("late bet dark phase", strip.seat_colour(4), "off")

# --- meter sign -----------------------------------------------------------------------------
chain = FakeMax7219Chain(modules=2)
sign = meter_sign.MeterSign(chain.spi, chain.cs, lines=2)
sign.set_amount(0, 123456, 0)
sign.set_amount(1, 5000, 0)
sign.begin(0)
sign.tick(0)
expect("meter line 1", chain.text(0), "  1234.56")
expect("meter line 2", chain.text(1), "    50.00")
sign.set_amount(0, 123556, 0)
for now in range(0, 1020, 20):
    sign.tick(now)
expect("meter after 1 s of counting", chain.text(0), "  1234.76")
sign.show_win(1, 4, 5000, 1000, 1020)
sign.tick(1040)
expect("win amount", chain.text(1), "    50.00")
sign.tick(3100)
expect("win seat", chain.text(1), "  5EAt 4")
sign.set_fault(0, "LINK DN")
sign.tick(5000)
expect("fault text", chain.text(0), " LINK dN")
sign.clear_fault(0)
sign.tick(20000)
expect("after the win", chain.text(1), "    10.00")

# --- dealer display -------------------------------------------------------------------------
bus = FakeI2C()
panel = bus.attach(0x3C, FakeSSD1306())
display = oled.SSD1306(bus)
display.begin()
display.write_line(0, "NO MORE BETS", invert=True)
display.write_line(2, "SEAT 3  PLACED")
display.write_line(7, "JP 1234.56")
display.show()
expect("oled", panel.lines(), ["NO MORE BETS", "", "SEAT 3  PLACED", "", "", "", "", "JP 1234.56"])
expect("oled errors", panel.errors, [])

# --- buzzer and watchdog --------------------------------------------------------------------
pwm = FakePWM()
bz = buzzer.Buzzer(pwm)
bz.play(buzzer.LOCKED, 0)
for now in range(0, 400, 10):
    pwm.now = now
    bz.tick(now)
expect("beeps heard", pwm.tones(), [(0, 80, 2000), (140, 220, 2000)])
wdt = FakeWDT()
dog = watchdog.Watchdog(wdt, required=watchdog.SENSORS | watchdog.DISPLAY)
dog.check_in(watchdog.SENSORS)
dog.tick()
dog.check_in(watchdog.SENSORS | watchdog.DISPLAY)
dog.tick()
expect("watchdog feeds", (wdt.feeds, dog.misses), (1, 1))

# --- the same per-tick paths with the heap locked -------------------------------------------
state = [0]


def ticks(rounds):
    for i in range(rounds):
        tick = state[0]
        now = tick * 20
        if i % 30 == 0:
            sign.set_amount(0, 123556 + tick, now)
        lights.render(tick)
        sign.tick(now)
        if i % 50 == 0:
            display.write_line(4, "TICK", invert=(i % 100 == 0))
        if i % 200 == 0:
            display.refresh()
        display.update()
        if i % 60 == 0:
            bz.play(buzzer.ACCEPT, now)
        pwm.now = now
        bz.tick(now)
        dog.check_in(watchdog.SENSORS | watchdog.DISPLAY)
        dog.tick()
        state[0] = tick + 1


ticks(5)
micropython.heap_lock()
try:
    ticks(500)
    allocated = "no"
except MemoryError:
    allocated = "yes"
micropython.heap_unlock()
expect("allocated under heap_lock", allocated, "no")
expect("oled row 4 after the run", panel.text_row(4).rstrip(), "TICK")
expect("meter shows what it counts", int(chain.text(0).replace(".", "")) == sign.amount_shown(0), True)

if failures:
    print("FAILED:")
    for f in failures:
        print(" ", f)
    sys.exit(1)
