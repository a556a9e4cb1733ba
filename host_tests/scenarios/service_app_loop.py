# The service protocol inside the app's main loop (firmware/app.py App.step) on the simulated
# board, on both runtimes: a RAM clear and a configuration change made through the protocol
# arrive a chunk per loop pass on a UART, the dealer display and the meter sign show the
# result, and an idle loop pass with the service attached allocates nothing (heap_lock).
import json

from boards import simulated
from firmware import service as svc
from firmware.app import TICK_MS, App
from firmware.compat import micropython
from host_tests.fakes.flash import MemFS
from host_tests.fakes.pins import FakeUART
from host_tests.scenario_support import AppClock, Checker

checker = Checker(36)
check = checker.check


class Port:
    def __init__(self):
        self.uart = FakeUART(256)
        self.out = b""

    def any(self):
        return self.uart.any()

    def readinto(self, buf):
        return self.uart.readinto(buf)

    def write(self, data):
        self.out += data


table = simulated.make(None)
app = App(table.board, MemFS(), now=0, jackpot_config={"main": {"reset": 1000000}})  # seeded
port = Port()
app.service = svc.Service(app.controller, port)
clock = AppClock(app, TICK_MS)
run = clock.run


def ask(line):
    data = line.encode() + b"\n"
    for i in range(0, len(data), 64):
        port.uart.inject(data[i:i + 64])
        run(TICK_MS)
    run(2 * TICK_MS)
    replies = [json.loads(r) for r in port.out.decode().splitlines()]
    port.out = b""
    return replies


app.boot(0, 1000)
run(200)
check("boots in RAM ERROR", [r["phase"] for r in ask("status")], ["RAM ERROR"])
table.key.level = 0            # the supervisor turns the key
run(200)
check("ram_clear start", [r["phase"] for r in ask("ram_clear")], ["RAM CLEAR"])
check("display shows reset", table.oled.lines()[0].strip(), "RAM CLEAR?")
check("ram_clear accept", [r["phase"] for r in ask("ram_clear accept")], ["OPEN"])
run(6000)                      # the sign counts up to the new pool
check("meter sign", table.chain.text(0).strip(), "10000.00")
check("config_set", [r["changes"] for r in ask('config_set {"wager": 500}')], [[["wager", 100, 500]]])
check("config in force", app.controller.jackpot.config.wager, 500)
long_line = "config_set {" + " " * 2000 + "}"
check("long line refused", [r["code"] for r in ask(long_line)], [svc.BAD_LINE])
check("still answering", [r["ok"] for r in ask("help")], [True])
table.key.level = 1
run(200)

run(20 * TICK_MS)
allocated = 0
micropython.heap_lock()
try:
    run(100 * TICK_MS)
except MemoryError:
    allocated = 1
micropython.heap_unlock()
check("idle loop with service allocates", allocated, 0)
checker.finish()
