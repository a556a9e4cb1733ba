# The service protocol (firmware/service.py) on both runtimes: every command against a round
# controller on critical memory in a memory filesystem, then hostile lines and configuration
# payloads, each refused with a reason while the memory files, the log and the meters stay
# as they were.  Expected amounts: default config, 70 of each 100 cents to the pool, with
# the operator's reset (seed) of $10,000.00; the royal takes the whole pool [rules.md 11.9].
import json

from firmware import service as svc
from firmware.compat import micropython
from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS
from host_tests.fakes.pins import FakeUART
from host_tests.scenario_support import Checker

checker = Checker(42)
check = checker.check


class Port:
    """The receive FIFO of a UART and the replies written back."""

    def __init__(self):
        self.uart = FakeUART(256)
        self.out = []

    def any(self):
        return self.uart.any()

    def readinto(self, buf):
        return self.uart.readinto(buf)

    def write(self, data):
        self.out.append(data)


files = {}
fs = MemFS(files)
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, {"main": {"reset": 1000000}})
c.boot(0, 100)
port = Port()
service = svc.Service(c, port)
now = [0]


def ask(line):
    """Send a line a chunk at a time, polling like the main loop; return the replies."""
    data = line if isinstance(line, bytes) else line.encode() + b"\n"
    for i in range(0, len(data), 128):
        port.uart.inject(data[i:i + 128])
        for _ in range(4):
            now[0] += 20
            service.poll(now[0])
    replies = [json.loads(r) for r in port.out]
    port.out = []
    return replies


def one(line):
    replies = ask(line)
    if len(replies) != 1:
        check("one reply to " + repr(line)[:30], len(replies), 1)
        return {}
    return replies[0]


def fingerprint():
    jp = c.jackpot
    copies = (bytes(files.get("a.bin", b"")), bytes(files.get("b.bin", b"")))
    return (copies, memory.seq, memory.log.count, c.phase,
            None if jp is None else (jp.config.ints(), list(jp.value)))


check("RAM ERROR meters", one("meters")["code"], svc.RAM_ERROR)
check("ram_clear without key", one("ram_clear")["code"], svc.NOT_AUTHORISED)
c.panel(btn.KEY_ON, 0, 1)
check("ram_clear start", one("ram_clear")["reset"], {"main": 1000000})
check("ram_clear accept", one("ram_clear accept")["phase"], "OPEN")
c.panel(btn.KEY_OFF, 0, 2)
for seat in (1, 3):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), 10)
    c.spot(sens.PLACED, sens.ante_spot(seat), 10)
c.panel(btn.PRESS, btn.LOCK, 20)
for dest, text in ((1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")):
    for card in cards.parse(text):
        c.card(dest, card, 30)
c.panel(btn.PRESS, btn.SETTLE, 40)
c.panel(btn.KEY_ON, 0, 41)
c.panel(btn.PRESS, btn.OK, 42)
c.panel(btn.PRESS, btn.SETTLE, 43)
status = one("status")
check("status", (status["phase"], status["round"], status["key_on"]), ("OPEN", 2, True))
meters = one("meters")
check("pool after the royal", meters["pools"]["main"]["value"], 1000000)
check("paid", (meters["table"]["paid"], meters["table"]["wagered"]), (1000140, 200))
check("books balance", meters["audit"], [])
hits = one("hits")["hits"]
check("hits", [(h["seat"], h["hand"], h["amount"], h["cards"]) for h in hits],
      [(1, "Royal Flush", 1000140, "As Ks Qs Js Ts")])
log = one("log")
check("log kinds", [e[3] for e in log["entries"]],
      [ev.RAM_CLEAR, ev.LOCK, ev.SUPERVISOR_CONFIRM, ev.JACKPOT_HIT, ev.OPERATOR_ADDITION,
       ev.SETTLE])
check("log head", log["head"], log["entries"][-1][7])
check("log page", [e[0] for e in one("log 1 2")["entries"]], [1, 2])
check("program", one("program")["text"], "not checked")
check("config wager", one("config")["jackpot"]["wager"], 100)
check("config_set with chips down", one('config_set {"wager": 200}')["code"], svc.REFUSED)
for seat in (1, 3):                      # the dealer has paid and taken the chips
    c.spot(sens.REMOVED, sens.jackpot_spot(seat), 44)
check("config_set", one('config_set {"wager": 200}')["changes"], [["wager", 100, 200]])
check("logged change", [e[4:7] for e in memory.log.events() if e[3] == ev.CONFIG_CHANGE],
      [(svc.SETTING_BASE, 100, 200)])

before = fingerprint()
hostile = [
    ('config_set {"wager": "200"}', svc.REFUSED),
    ('config_set {"wager": 2.5}', svc.REFUSED),
    ('config_set {"wager": 99999999999999999999}', svc.REFUSED),
    ('config_set {"main": {"reset": 1073741824}}', svc.REFUSED),
    ('config_set {"colour": 1}', svc.REFUSED),
    ('config_set {"wager": 2', svc.BAD_ARGUMENT),
    # not JSON, though MicroPython's json.loads takes them: the same refusal on both runtimes
    ('config_set {"wager": 300,}', svc.BAD_ARGUMENT),
    ('config_set {"wager" 300}', svc.BAD_ARGUMENT),
    ('config_set {"wager": 0300}', svc.BAD_ARGUMENT),
    ('config_set {"wager": ' + "[" * 300 + "]" * 300 + "}", svc.BAD_ARGUMENT),
    ("config_set [1]", svc.BAD_ARGUMENT),
    (b"x" * 3000 + b"\n", svc.BAD_LINE),
    (b"\x00\xff\x80garbage\n", svc.BAD_LINE),
    (b"\n", svc.BAD_LINE),
    ("reboot", svc.UNKNOWN),
    ("log 99999999999", svc.BAD_ARGUMENT),
    ("log 0 33", svc.BAD_ARGUMENT),
    ("ram_clear", svc.NOT_NOW),
    ("meters all", svc.BAD_ARGUMENT),
]
for line, code in hostile:
    reply = one(line)
    label = repr(line)[:28]
    check("refused " + label, (reply.get("ok"), reply.get("code")), (False, code))
    print("   ", reply.get("error", "")[:72])
# Replies are ASCII on both runtimes, naming a key given with \u escapes too (MicroPython's
# json.dumps wrote it as it is: UTF-8, or for a lone surrogate bytes no UTF-8 decoder takes)
for line in ('config_set {"\\u00e9t\\u00e9": 1}', 'config_set {"\\ud800x": 1}'):
    port.uart.inject((line + "\n").encode())
    for _ in range(4):
        now[0] += 20
        service.poll(now[0])
    wire = b"".join(port.out)
    port.out = []
    check("ASCII reply to " + line[12:24], (max(wire) < 128, wire.count(b"\n"),
                                            json.loads(wire)["code"]), (True, 1, svc.REFUSED))
c.panel(btn.KEY_OFF, 0, 50)
check("config_set without key", one('config_set {"wager": 500}')["code"], svc.NOT_AUTHORISED)
check("nothing changed", fingerprint() == before, True)

# An idle loop pass (no byte waiting) allocates nothing.
service.poll(now[0])
allocated = 0
micropython.heap_lock()
try:
    for t in range(200):
        service.poll(now[0] + t)
except MemoryError:
    allocated = 1
micropython.heap_unlock()
check("idle poll allocates", allocated, 0)

# Split pools: the panel's Reset is the Major pool's, named on the screen and logged by its key
# (117, major.reset), as the service logs a change.
split_fs = MemFS({})
split = tc.RoundController(CriticalMemory([FileSlot(split_fs, "a.bin"), FileSlot(split_fs, "b.bin")],
                                          split_fs), {"split": True, "major": {"reset": 1000000}})
split.boot(0, 100)
split.panel(btn.KEY_ON, 0, 1)
split.panel(btn.LONG, btn.OK, 2)
split.panel(btn.PRESS, btn.OK, 3)           # RAM clear
split.panel(btn.LONG, btn.SETTLE, 1000)     # the configuration menu
check("split config screen", split.view.lines[2:4], [" Reset $10000.00", "  of Major pool"])
split.panel(btn.PRESS, btn.DOWN, 1100)
split.panel(btn.PRESS, btn.OK, 1200)        # $10,000.00 -> off
check("split reset logged", [e[4:7] for e in split.memory.log.events() if e[3] == ev.CONFIG_CHANGE],
      [(117, 1000000, 0)])

# A Four Card Poker table has no progressive: meters and hits say so, config still answers.
fcp_fs = MemFS({})
fcp = tc.RoundController(CriticalMemory([FileSlot(fcp_fs, "a.bin"), FileSlot(fcp_fs, "b.bin")],
                                        fcp_fs), game=tc.FCP)
fcp.boot(0, 100)
fcp.panel(btn.KEY_ON, 0, 1)
fcp.panel(btn.LONG, btn.OK, 2)
fcp.panel(btn.PRESS, btn.OK, 3)             # RAM clear
fcp_service = svc.Service(fcp)
for name in ("meters", "hits"):
    reply = fcp_service.handle(name)
    check("fcp " + name, (reply["ok"], reply["code"], reply["error"]),
          (False, svc.NO_JACKPOT, "no progressive jackpot at this table: it plays fcp"))
check("fcp config", fcp_service.handle("config")["ok"], True)
# The clock: a table whose clock went back at a power cut (its log's newest time 50000, the
# board's clock reading 200) does not know the time until the supervisor sets it (UTC).
clock_fs = MemFS({})


def clock_table(wall):
    t = tc.RoundController(CriticalMemory([FileSlot(clock_fs, "a.bin"), FileSlot(clock_fs, "b.bin")],
                                          clock_fs), {"main": {"reset": 1000000}})
    t.boot(0, wall)
    t.panel(btn.KEY_ON, 0, 1)
    return t


clocked = clock_table(100)
clocked.panel(btn.LONG, btn.OK, 2)
clocked.panel(btn.PRESS, btn.OK, 3)         # RAM clear
clocked.tick(4, 50000)
clocked.commit_admin([(ev.TAMPER, 1)])
clocked = clock_table(200)
clock_service = svc.Service(clocked)
check("clock unsure after the cut", clock_service.handle("status")["time_unsure"], True)
for line in ("clock_set 2026-12-01", "clock_set 2026-02-29T04:30:00",
             "clock_set 2026-12-01T04:61:00", "clock_set 2024-12-31T23:59:59"):
    reply = clock_service.handle(line)
    check("refused " + line[10:], (reply["ok"], reply["code"]), (False, svc.BAD_ARGUMENT))
    print("   ", reply["error"])
# 2026-12-01T04:30:00 is 20,788 days after 1970-01-01 (56 years of 365 days, 14 leap days,
# and 334 days from January to December) and 16,200 s
SET_AT = 20788 * 86400 + 16200
reply = clock_service.handle("clock_set 2026-12-01T04:30:00")
check("clock set", (reply["ok"], reply["time"], reply["moved"], reply["was_unsure"]),
      (True, SET_AT, SET_AT - 50000, True))
clocked.tick(5, 265)                        # the board's clock 65 s on
clocked.commit_admin([(ev.TAMPER, 2)])
check("log after the set", [(e[1], e[3], e[4], e[8]) for e in
                            clock_service.handle("log")["entries"][-4:]],
      [(50000, ev.TAMPER, 1, False), (50000, ev.POWER_UP, 0, True),
       (SET_AT, ev.CONFIG_CHANGE, 99, False), (SET_AT + 65, ev.TAMPER, 2, False)])
count = clocked.memory.log.count
reply = clock_service.handle("clock_set 2026-12-01T04:29:59")
check("no step back", (reply["code"], clocked.memory.log.count), (svc.BAD_ARGUMENT, count))
print("   ", reply["error"])
# The same from the configuration menu (key + long SETTLE, the clock after its two items),
# field by field from the table's time, 04:31:05: the minute one on sets 04:32:00
clocked.panel(btn.LONG, btn.SETTLE, 2000)
for at, button in enumerate((btn.DOWN, btn.DOWN, btn.OK, btn.OK, btn.OK, btn.OK, btn.OK, btn.UP)):
    clocked.panel(btn.PRESS, button, 2100 + 100 * at)
check("clock screen", clocked.view.lines[:4], ["CLOCK UTC (BACK)", "", "2026-12-01 04:32",
                                               "              ^^"])
clocked.panel(btn.PRESS, btn.OK, 3000)
check("clock set on the panel", clocked.view.lines[6:8], ["Clock set", "04:32 UTC"])
last = list(clocked.memory.log.entries())[-1]
check("logged", (ev.unpack(last)[1:7], ev.time_unsure(last)),
      ((SET_AT + 120, 0, ev.CONFIG_CHANGE, 99, 55, 0), False))
checker.finish()
