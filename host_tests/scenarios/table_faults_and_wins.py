# The table's behaviours at the edges, through the app on the simulated board, on both
# runtimes: two jackpot wins in one round both reach the meter sign; chips collected after the
# payout raise no tamper; a bad shoe line is logged with its reason; a sensor fault is logged
# once; an envy bonus paid, logged and listed; jackpot wins on the sign while they wait for
# the supervisor, and off it when sent back; a jackpot hand sent back and a misread card
# taken out by the supervisor; the dealer display unplugged and plugged back; the meter
# sign's SPI writes failing and working again;
# test mode lights every sign digit; a burst of shoe lines drawn and committed once a pass; an
# idle pass still allocates nothing (heap_lock), nor one while a copy of critical memory
# refuses its writes, nor more than one in 50 while the sensor expander is missing.
# Amounts: the default configuration (100-cent wager, 70 cents to a $10,000.00 pool) and a
# flush paid 100 to 1 [rules.md 11.7, 11.9].
import gc

from boards import base, simulated
from firmware.app import TICK_MS, App
from firmware.compat import micropython
from firmware.drivers import shoe as shoemod
from firmware.drivers import spot_sensors as sens
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.store import eventlog as ev
from host_tests.fakes.flash import MemFS
from host_tests.fakes.ssd1306 import FakeSSD1306
from host_tests.scenario_support import AppClock, Checker

checker = Checker(54)
check = checker.check
table = simulated.make(None)
app = App(table.board, MemFS(), now=0)
c = app.controller
clock = AppClock(app, TICK_MS)
run = clock.run


def press(name, hold=100):
    table.buttons[name].value(0)
    run(hold)
    table.buttons[name].value(1)
    run(100)


def key(on):
    table.key.value(0 if on else 1)
    run(200)


def logged(kind):
    return [e[4:7] for e in c.memory.log.events() if e[3] == kind]


app.boot(0, 1000)
run(200)
key(True)
press("OK", 1200)
press("OK")
key(False)
check("RAM clear opens the table", c.phase, 0)
for seat in (1, 3):
    table.mcp.cover(jackpot_spot(seat))
    table.mcp.cover(ante_spot(seat))
run(200)
press("LOCK")
check("two wagers taken", c.rec.accepted, 0b101)
table.shoe.inject(b"S1 Zz\n")
run(2 * TICK_MS)
check("bad shoe line logged with its reason", logged(ev.SHOE_REJECT), [(shoemod.BAD_CARD, 1, 0)])
for line in (b"S1 Ah", b"S1 Kh", b"S3 2h", b"S3 7h", b"D 9c", b"D 9s",
             b"B Qh", b"B Jh", b"B 3h", b"B 4c", b"B 9d"):
    table.shoe.inject(line + b"\n")
    run(2 * TICK_MS)
def sign_seen(ms):
    seen = []
    for _ in range(ms // TICK_MS):
        run(TICK_MS)
        text = table.chain.text(0).strip()
        if not seen or seen[-1] != text:
            seen.append(text)
    return seen


press("SETTLE")
check("the flushes wait for the supervisor", c.phase, 2)
seen = sign_seen(20000)                     # who does not come for 20 s
check("waiting: both seats on the sign", ("5EAt 1" in seen, "5EAt 3" in seen), (True, True))
check("waiting: win amount, then the pool", (seen.count("100.00") >= 2, seen[-1]),
      (True, "1.40"))     # the pool's 140 cents (no seed), nothing paid yet
key(True)
press("OK")
key(False)
check("settled", c.phase, 3)
seen = sign_seen(9000)
check("both winning seats on the sign", ("5EAt 1" in seen, "5EAt 3" in seen), (True, True))
check("both win amounts", seen.count("100.00") >= 2, True)
table.mcp.uncover(jackpot_spot(1))          # the dealer collects the wagers [11.12]
table.mcp.uncover(jackpot_spot(3))
run(200)
check("collection is no tamper", logged(ev.TAMPER), [])
press("SETTLE")
check("next round", c.phase, 0)
# The envy bonus (docs/jackpot.md), set between rounds: seat 1's flush pays seat 3 $25.00.
c.jackpot.set_config({"envy": {"flush": 2500}})
for seat in (1, 3):
    table.mcp.cover(jackpot_spot(seat))
run(200)
press("LOCK")
for line in (b"S1 Ah", b"S1 Kh", b"S3 2c", b"S3 7d", b"D 9c", b"D 9s",
             b"B Qh", b"B Jh", b"B 3h", b"B 4c", b"B 9d"):
    table.shoe.inject(line + b"\n")
    run(2 * TICK_MS)
press("SETTLE")
check("envy: the supervisor confirms the flush", c.phase, 2)
key(True)
press("OK")
key(False)
check("envy: paid", c.phase, 3)
check("envy: one entry for seat 1's hand", logged(ev.JACKPOT_ENVY), [(1, 0b100, 2500)])
check("envy: listed in the results", [r for r in c.results if r.startswith("envy")],
      ["envy S3 $25.00"])
check("envy: the sign shows the winner", c.view.win[1:3], (1, 10000))
for seat in (1, 3):
    table.mcp.uncover(jackpot_spot(seat))
run(200)
press("SETTLE")
check("next round after the envy", c.phase, 0)
run(15000)                                  # the envy round's win leaves the sign
# A misread card: seat 1's flush waits for the supervisor, who sends it back unpaid (key +
# LOCK); in card entry the supervisor takes the wrong card out (key + SETTLE), the right one
# goes in, and the round settles with no jackpot hand.
table.mcp.cover(jackpot_spot(1))
run(200)
press("LOCK")
for line in (b"S1 Ah", b"S1 Kh", b"D 9c", b"D 9s", b"B Qh", b"B Jh", b"B 3h", b"B 4c", b"B 9d"):
    table.shoe.inject(line + b"\n")
    run(2 * TICK_MS)
press("SETTLE")
check("waiting: seat 1 on the sign", "5EAt 1" in sign_seen(3000), True)
key(True)
press("LOCK")
check("sent back unpaid, logged", (c.phase, logged(ev.JACKPOT_SENT_BACK)), (1, [(1, 0b1, 10000)]))
check("sent back: the sign shows the pool", sign_seen(1000), ["0.70"])   # seat 1's wager
key(False)
press("OK", 1200)                           # card entry, on the cursor's seat 1
key(True)
press("SETTLE")
key(False)
check("the card taken out, logged", (c._hole(0), logged(ev.CARD_REMOVED)), ([50], [(1, 46, 0)]))  # Ah, Kh
table.shoe.inject(b"S1 Kc\n")
run(2 * TICK_MS)
press("BACK")
press("SETTLE")
check("settled again with no jackpot hand", (c.phase, c.hits), (3, []))
table.mcp.uncover(jackpot_spot(1))
run(200)
press("SETTLE")
c.spot(sens.FAULT, jackpot_spot(5), clock.now, sens.CHATTER)
c.spot(sens.CLEARED, jackpot_spot(5), clock.now)
c.spot(sens.FAULT, jackpot_spot(5), clock.now, sens.CHATTER)
run(TICK_MS)                                # the pass's entries are committed at its end
check("sensor fault logged once", logged(ev.SENSOR_FAULT), [(5, 1, sens.CHATTER)])
table.i2c.detach(base.OLED_ADDR)
press("UP")
check("display unplugged: table plays on", (c.phase, app.display_ok), (0, False))
check("display fault logged", logged(ev.DISPLAY_FAULT), [(1, 0, 0)])
oled = table.i2c.attach(base.OLED_ADDR, FakeSSD1306())
run(3000)
check("display back and redrawn", (app.display_ok, oled.lines()[0].strip() != ""), (True, True))
table.chain.spi.fail = True                 # the meter sign's SPI writes raise
run(11000)                                  # its refresh (10 s) finds it
check("sign bus failed: table plays on, display says so",
      (c.phase, app.sign_ok, [line.strip() for line in oled.lines()].count("SIGN FAULT")), (0, False, 1))
check("sign fault logged", logged(ev.DISPLAY_FAULT), [(1, 0, 0), (2, 0, 0)])
table.chain.spi.fail = False
run(3000)
check("sign back: the pool", (app.sign_ok, table.chain.text(0).strip(), "SIGN FAULT" in oled.lines()),
      (True, "%d.%02d" % divmod(c.view.meter[0], 100), False))
key(True)
press("LOCK", 1200)
check("test mode: every sign digit lit", table.chain.text(0), "8." * 8)
press("BACK")
key(False)
# 32 shoe lines at once, cards refused (bets are open) and bad lines: 64 bytes a pass are read,
# the display's lines drawn once a pass and its entries one commit; the last line's text shows
draws = [0]
commits = [0]
draw = c.draw
commit_admin = c.memory.commit_admin


def counted_draw():
    draws[-1] += 1
    draw()


def counted_commit(*args):
    commits[-1] += 1
    return commit_admin(*args)


c.draw = counted_draw
c.memory.commit_admin = counted_commit
table.shoe.inject(b"S1 Ah\nS1 Zz\nD 9c\nX1 Kh\n" * 8)
for _ in range(6):
    draws.append(0)
    commits.append(0)
    run(TICK_MS)
check("shoe burst: drawn, committed once a pass", (max(draws), max(commits)), (1, 1))
del c.draw
c.memory.commit_admin = commit_admin
run(400)
check("shoe burst: the last line shown", oled.lines()[6:], ["Shoe line bad", "bad destination"])
run(20000)
# the flash refuses the door's entry (MEMORY FAULT, tried again in 10 s), then works again: a
# sensor fault 2 s later is committed at its own pass, with the door, not 10 s on (a power
# cut then lost both)
refusing = [True]


def refusing_commit(*args):
    if refusing[0]:
        raise OSError(5, "EIO")
    return commit_admin(*args)


c.memory.commit_admin = refusing_commit
table.open_door()
run(200)
check("door entry refused", (logged(ev.DOOR_OPEN), "MEMORY FAULT" in c.last_refusal), ([], True))
refusing[0] = False
run(2000)
c.spot(sens.FAULT, jackpot_spot(6), clock.now, sens.STUCK)
run(TICK_MS)
check("door and fault in the next commit", (logged(ev.DOOR_OPEN), logged(ev.SENSOR_FAULT)[-1]),
      ([(1, 0, 0)], (6, 1, sens.STUCK)))
c.memory.commit_admin = commit_admin
table.open_door(False)
run(20000)
# The FRAM refuses its writes from LOCK on: the round locked goes on to its end, its wager
# counted; the next round takes no jackpot wager (copy 0 would be stale if it stopped the
# flash copy's write) and says why, until the FRAM takes the next round's commit again.
fram_write = table.fram.i2c_write


def fram_refuses(*args):
    raise OSError(5, "EIO")


def round_cards(seat1):
    for line in (b"S1 " + seat1, b"S1 Kh", b"S3 2c", b"S3 7d", b"D 9c", b"D 9s",
                 b"B Qs", b"B Jh", b"B 3h", b"B 4c", b"B 8d"):
        table.shoe.inject(line + b"\n")
        run(2 * TICK_MS)


table.mcp.cover(jackpot_spot(1))
run(200)
wagered = c.jackpot.table_meters()["wagered"]
start = c.memory.log.count
table.fram.i2c_write = fram_refuses
press("LOCK")
check("FRAM fault at LOCK: its wager taken", (c.rec.accepted, "COPY 0" in c.memory.status_text()),
      (0b1, True))
round_cards(b"2h")
press("SETTLE")
press("SETTLE")
check("next round: jackpot closed, why", (c.phase, oled.lines()[1].strip()), (0, "JP CLOSED MEMORY"))
check("the sign says why", "MEM Err" in sign_seen(3000), True)
press("LOCK")
check("no wager taken, round plays on", (c.phase, c.rec.accepted, oled.lines()[6:]),
      (1, 0, ["JP CLOSED MEMORY", "no wagers taken"]))
table.fram.i2c_write = fram_write
round_cards(b"2h")
press("SETTLE")
press("SETTLE")
check("FRAM written again: open", (oled.lines()[1].strip(), "FAULT" in c.memory.status_text()),
      ("JP OPEN", False))
# the fault logged when it started and when it ended, not at each of the commits between
check("the FRAM's fault logged once, its end once",
      [e[3:6] for e in c.memory.log.events(start) if e[3] in (ev.CM_ERROR, ev.CM_RECOVERED)],
      [(ev.CM_ERROR, 0, ev.REASON_READBACK), (ev.CM_ERROR, 0, ev.REASON_IO),
       (ev.CM_RECOVERED, 0, 0xFFFF)])
press("LOCK")
check("wagers again", (c.rec.accepted, c.jackpot.table_meters()["wagered"] - wagered), (0b1, 200))
round_cards(b"2h")
press("SETTLE")
press("SETTLE")
run(2 * TICK_MS)
micropython.heap_lock()
try:
    run(20 * TICK_MS)
    idle = "nothing"
except MemoryError:
    idle = "allocates"
micropython.heap_unlock()
check("idle pass allocates", idle, "nothing")
# The FRAM refuses its writes again (the door's entry fails it): the idle table writes it again
# 2 s on, then waits 4 s; the passes between retries, the sign alternating MEM Err, allocate
# nothing either.
table.fram.i2c_write = fram_refuses
table.open_door(True)
run(200)
table.open_door(False)
run(4000)
seq = c.memory.seq
micropython.heap_lock()
try:
    run(1500)
    idle = "nothing"
except MemoryError:
    idle = "allocates"
micropython.heap_unlock()
check("idle pass with a copy failed allocates", (idle, c.memory.seq - seq, c.view.meter_fault),
      ("nothing", 0, "MEM Err"))
# the retries 6 s and 14 s after the door's entry failed the FRAM and the door's closing
# (logged 10 s after its opening): a commit each, and no entry but the door's
start = c.memory.log.count
run(10000)
check("retries log nothing new", (c.memory.seq - seq, [e[3] for e in c.memory.log.events(start)]),
      (3, [ev.DOOR_CLOSE]))
table.fram.i2c_write = fram_write
# the sign's bus failing with the logic door open: both on the display, the door lowest
table.chain.spi.fail = True
run(11000)
table.open_door(True)
run(3000)
check("sign fault and door open", [line.strip() for line in oled.lines()][6:8],
      ["SIGN FAULT", "DOOR OPEN"])
table.chain.spi.fail = False
table.open_door(False)
run(3000)
check("sign back, door shut", [line.strip() for line in oled.lines()][6:8], ["", ""])


def allocating_passes(ms):
    """The loop passes of the next ms that allocate (MicroPython: gc.mem_alloc, the collector
    off; an exception's object, which heap_lock lets through from its emergency buffer, counts
    too).  CPython, which cannot tell, counts none."""
    passes = 0
    for _ in range(ms // TICK_MS):
        if measure:
            gc.disable()
            before = gc.mem_alloc()
        run(TICK_MS)
        if measure:
            passes += gc.mem_alloc() != before
            gc.enable()
    return passes


# The sensor expander unplugged: every read of it failed, an OSError (an allocation on the
# board) at every pass.  It is asked once a second: one pass in 50 allocates.
measure = hasattr(gc, "mem_alloc")
run(8000)                                   # past the door's closing, logged 10 s after it opened
check("idle passes that allocate", allocating_passes(5000), 0)
table.i2c.detach(base.MCP23017_ADDR)
run(2000)                                   # the spots' bus fault shown and logged
check("expander missing: passes that allocate, of 1000", allocating_passes(20000) <= 20, True)
checker.finish()
