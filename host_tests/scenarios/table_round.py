# A whole UTH round through the round controller on critical memory in a memory filesystem:
# RAM clear, two jackpot wagers accepted, a royal flush confirmed by the supervisor and paid,
# then a power cut and a reboot that finds the same pool; both copies lost then, a RAM clear
# that numbers the next round after the rounds the kept log holds. The steady-state tick allocates
# nothing (checked under heap_lock). A shoe that babbles for an hour takes a dozen log entries,
# one with a bad line every 11 s for hours 5 or 6 an hour.
# Expected amounts: default config, 70 of each 100 cents to the pool, with the operator's
# reset (seed) of $10,000.00; the royal takes the whole pool [rules.md 11.9].
from firmware.compat import micropython
from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS
from host_tests.scenario_support import Checker

checker = Checker(24)
check = checker.check


files = {}


def boot(wall=100):
    fs = MemFS(files)
    memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
    c = tc.RoundController(memory, {"main": {"reset": 1000000}})
    c.boot(0, wall)
    return c


c = boot()
check("blank memory", tc.PHASE_NAMES[c.phase], "RAM ERROR")
c.panel(btn.KEY_ON, 0, 1)
c.panel(btn.LONG, btn.OK, 2)
c.panel(btn.PRESS, btn.OK, 3)
c.panel(btn.KEY_OFF, 0, 4)
check("after RAM clear", (tc.PHASE_NAMES[c.phase], c.view.meter[0]), ("OPEN", 1000000))
for seat in (1, 3):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), 10)
    c.spot(sens.PLACED, sens.ante_spot(seat), 10)
c.panel(btn.PRESS, btn.LOCK, 20)
check("accepted seats", c.rec.accepted, 0b101)
check("pool after lock", c.view.meter[0], 1000140)
deal = ((1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d"))
for dest, text in deal:
    for card in cards.parse(text):
        c.card(dest, card, 30)
c.panel(btn.PRESS, btn.SETTLE, 40)
check("waits for supervisor", tc.PHASE_NAMES[c.phase], "CONFIRM")
c.panel(btn.KEY_ON, 0, 41)
c.panel(btn.PRESS, btn.OK, 42)
check("win shown", c.view.win, (0, 1, 1000140, 1000000))
for line in c.view.lines:
    print("  |" + line)
check("audit balances", c.jackpot.audit(), [])

c = boot()
# The settled round is closed in critical memory: the table comes back showing its results
# (the dealer may not have paid it yet), and SETTLE opens the next round.
check("after power cut", (tc.PHASE_NAMES[c.phase], c.rec.round_no, c.view.meter[0]),
      ("RESULTS", 1, 1000000))
check("its results again", c.results[-1], "JP S1 $10001.40")
check("its win on the sign", c.view.wins, [(0, 1, 1000140, 1000000)])
# the win again only while the sign would still show it (15 s from the hit at 100), and
# not when the clock reads earlier than the log (time off unknown): the results all the same
c = boot(114)
check("back at 14 s: win again", c.view.wins, [(0, 1, 1000140, 1000000)])
c = boot(115)
check("back at 15 s: no win", (c.view.wins, c.results[-1]), ([], "JP S1 $10001.40"))
c = boot(99)
check("clock unsure: no win", (c.memory.clock_unsure, c.view.wins, c.results[-1]),
      (True, [], "JP S1 $10001.40"))
c.panel(btn.PRESS, btn.SETTLE, 50)
c.panel(btn.RELEASE, btn.SETTLE, 51)
check("next round", (tc.PHASE_NAMES[c.phase], c.rec.round_no), ("OPEN", 2))



def idle(controller, ticks):
    for t in range(ticks):
        controller.tick(100 + t, 102)


idle(c, 1)
allocated = 0
micropython.heap_lock()
try:
    idle(c, 100)
except MemoryError:
    allocated = 1
micropython.heap_unlock()
check("tick allocates", allocated, 0)

# Both copies lost, a page of the log on flash: the RAM clear keeps the log, so the next
# round is numbered after the log's rounds, never a second round 1 beside the first.
c.memory.commit_admin(None, [(ev.DOOR_OPEN, 1)] * ev.PAGE_ENTRIES, 103)
files["a.bin"] = files["b.bin"] = b"CM"
c = boot()
check("both copies lost", tc.PHASE_NAMES[c.phase], "RAM ERROR")
c.panel(btn.KEY_ON, 0, 1)
c.panel(btn.LONG, btn.OK, 2)
c.panel(btn.PRESS, btn.OK, 3)
c.panel(btn.KEY_OFF, 0, 4)
check("round after RAM clear", (tc.PHASE_NAMES[c.phase], c.rec.round_no), ("OPEN", 2))
c.spot(sens.PLACED, sens.jackpot_spot(2), 10)
c.spot(sens.PLACED, sens.ante_spot(2), 10)
c.panel(btn.PRESS, btn.LOCK, 20)
check("rounds locked in log", [e[2] for e in c.memory.log.events() if e[3] == ev.LOCK], [1, 2])

# A table whose configuration sets no reset (rules.md: the seed is an operator option, off
# by default): the RAM clear starts its pool at nothing, with no operator money logged.
unseeded_files = {}
fs = MemFS(unseeded_files)
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs))
c.boot(0, 100)
c.panel(btn.KEY_ON, 0, 1)
c.panel(btn.LONG, btn.OK, 2)
c.panel(btn.PRESS, btn.OK, 3)
check("unseeded pool after RAM clear", (tc.PHASE_NAMES[c.phase], c.view.meter[0]), ("OPEN", 0))
check("no operator money", [e for e in c.memory.log.events() if e[3] == ev.OPERATOR_ADDITION], [])

# OK tapped twice in RESULTS: the first begins the next round; the second, 200 ms later,
# marks no Ante (a marked seat's jackpot chip would be accepted at LOCK [UTH 11.1]).
c.panel(btn.KEY_OFF, 0, 4)
c.panel(btn.PRESS, btn.LOCK, 20)
for card in cards.parse("Qs Js 9s 3h 4h"):
    c.card(8, card, 30)
for card in cards.parse("9c 9d"):
    c.card(0, card, 30)
c.panel(btn.PRESS, btn.SETTLE, 40)
check("settled", tc.PHASE_NAMES[c.phase], "RESULTS")
c.panel(btn.PRESS, btn.OK, 100)
c.panel(btn.PRESS, btn.OK, 300)
check("double tap marks no ante", (tc.PHASE_NAMES[c.phase], c.ante_marked), ("OPEN", 0))
c.panel(btn.PRESS, btn.OK, 1000)
check("a later OK marks it", c.ante_marked, 1)

# The key left on shows on the last line (OPEN), once the message above has gone; a chip put on
# seat 2's Ante spot after LOCK is a late bet: its cards are refused.
c.tick(6000, 200)
c.panel(btn.KEY_ON, 0, 6001)
check("key on shown", c.view.lines[7], "KEY ON")
c.panel(btn.KEY_OFF, 0, 6002)
c.panel(btn.PRESS, btn.LOCK, 6003)
c.spot(sens.PLACED, sens.ante_spot(2), 6004)
c.card(2, cards.parse("As")[0], 6005)
check("late ante's card", c.last_refusal, "Card refused: S2 no wager")

# A board with no battery clock: after a power cut its clock reads earlier than the log (100,
# the log's newest 200).  The table goes on from the newest time logged, never before it, and
# the audit menu marks the times it could not know, until a real time comes (NTP: clock_set).
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs))
c.boot(0, 100)
check("clock behind the log", (c.wall, c.memory.clock_unsure), (200, True))
c.tick(7000, 160)
c.commit_admin([(ev.TAMPER, 3)])
check("a minute on from the log", c.wall, 260)
from firmware.table import audit  # noqa: E402 - the menu's code, loaded as the table loads it

newest = list(c.memory.log.entries(c.memory.log.count - 1))[0]
check("marked in the audit menu", audit.entry_lines(ev.unpack(newest), True, ev.time_unsure(newest))[:2],
      ["#%d ?00:04:20 r2" % ev.unpack(newest)[0], " tamper S3"])
c.clock_set()
c.tick(7100, 90000)
c.commit_admin([(ev.TAMPER, 4)])
newest = list(c.memory.log.entries(c.memory.log.count - 1))[0]
check("real time again", (ev.unpack(newest)[1], ev.time_unsure(newest)), (90000, False))

# A shoe that babbles for an hour (a bad line every half second): a dozen entries, not 360,
# with every line counted (the wait between entries doubles while it goes on, up to 640 s).
from firmware.drivers import shoe as shoemod  # noqa: E402

first = c.memory.log.count
t = 8000
for _ in range(7200):
    t += 500
    c.shoe_reject(shoemod.GARBAGE, t)
    c.tick(t, 90000)
c.tick(t + 700000, 90000)
babble = [e for e in c.memory.log.events(first) if e[3] == ev.SHOE_REJECT]
check("babbling shoe's entries", (len(babble), sum(e[5] for e in babble)), (13, 7200))

# A bad line every 11 s for two hours: after the first hour the entries come 640 s apart (5 or
# 6 an hour, not 327), every line counted (an entry less than 5 minutes after the one before
# doubles the wait, up to 640 s); after 21 quiet minutes a bad line is logged at once again.
t += 700000 + 1300000
first = c.memory.log.count
hourly = []
for second in range(1, 7200 + 641):
    t += 1000
    if second % 11 == 0 and second <= 7200:
        c.shoe_reject(shoemod.GARBAGE, t)
    c.tick(t, 90000)
    if second % 3600 == 0:
        hourly.append(len([e for e in c.memory.log.events(first) if e[3] == ev.SHOE_REJECT]))
slow = [e for e in c.memory.log.events(first) if e[3] == ev.SHOE_REJECT]
check("slow bad lines: the second hour's entries", hourly[1] - hourly[0] in (5, 6), True)
check("slow bad lines: every line counted", sum(e[5] for e in slow), 7200 // 11)
c.tick(t + 1300000, 90000)
c.shoe_reject(shoemod.BAD_CARD, t + 1300000)
check("a bad line after 21 quiet minutes", [e[4:6] for e in c.memory.log.events(first)
                                            if e[3] == ev.SHOE_REJECT][len(slow):],
      [(shoemod.BAD_CARD, 1)])
checker.finish()
