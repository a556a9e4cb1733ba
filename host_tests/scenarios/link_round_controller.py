# The round controller of a LINKED table on both runtimes, with a scripted link controller made
# here (signed status/paid messages, its own ledger of what it received): boots closed until
# reconciled, LOCK sends its contribution only after the commit, a royal claimed at the
# settlement and logged as JACKPOT_HIT when the payout arrives, a failed LOCK commit takes the
# entry back, a void reverses, and the controller's idle link work allocates nothing
# (heap locked).  Expected amounts: a royal pays 100% of the pool when that beats 10,000 to 1
# on the $1 wager (rules.md 11.9).
import sys

from firmware.compat import micropython
from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.jackpot import paytable as jpay
from firmware.link import codec
from firmware.link.tablelink import UP, TableLink
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS

KEY = b"scenario key of linked table 4.."
TABLE = 4
NOW = 1800000000
RESET = 1000000
SEEDED = {"main": {"reset": RESET}}   # the operator's seed (rules.md: off by default)
WAGER = 100
failures = []
sent = []


def check(what, got, want):
    if got != want:
        failures.append(what)
        print("MISMATCH", what, got, want)


class Ledger:
    """The scripted link controller: applies entries in order, answers with status / paid."""

    def __init__(self):
        self.n = 0
        self.tot = [0, 0, 0, 0, 0]
        self.pool = RESET
        self.seq = 1000
        self.paid = []
        self.pays = True        # False: a controller older than the pays message


    def sign(self, kind, values):
        self.seq += 1
        return codec.encode(KEY, kind, TABLE, self.seq, NOW, values)

    def answer(self, messages):
        out = []
        for msg in messages:
            if msg.kind == codec.ENTRY and msg.get("n") == self.n + 1:
                self.n += 1
                kind = msg.get("e")
                if kind == codec.CONTRIBUTION:
                    self.tot[0] += msg.get("a")
                    self.tot[1] += msg.get("c")
                    self.pool += msg.get("a") * 7 // 10
                elif kind == codec.REVERSAL:
                    self.tot[2] += msg.get("a")
                    self.pool -= msg.get("a") * 7 // 10
                else:
                    won = self.pool if self.pool > 10000 * WAGER else 10000 * WAGER
                    rows = [[h[0], h[1], won, 0] for h in msg.get("h")]
                    before = self.pool
                    self.pool = RESET
                    self.tot[3] += won
                    self.tot[4] += 1
                    self.paid.append(won)
                    out.append(self.sign(codec.PAID, [self.n, rows, [before], [self.pool]]))
            if msg.kind == codec.PAYS and self.pays:    # the table's pay table: answered with the link's
                out.append(self.sign(codec.PAYS, [list(jpay.DEFAULT_ODDS) + list(jpay.DEFAULT_PERCENT)]))
            if msg.kind in (codec.HELLO, codec.PING, codec.ENTRY):
                out.append(self.sign(codec.STATUS, [self.n, list(self.tot), [self.pool], WAGER]))
        return out


def send(topic, payload):
    sent.append(codec.decode(KEY, payload, codec.UP_KINDS))
    return True


state = {"link": None}


def factory(section, log):
    if section is None:
        link = TableLink(TABLE, KEY, send, log)
    else:
        link = TableLink.restore(TABLE, KEY, send, section, log)
    state["link"] = link
    return link


fs = MemFS({})
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, SEEDED)
c.link_factory = factory
ledger = Ledger()
clock = [0]


def step(count=1):
    for _ in range(count):
        clock[0] += 100
        now = clock[0]
        link = state["link"]
        link.service(now, NOW, True)
        c.link(link.wagers_open(), now)
        c.link_poll(now)
        c.tick(now, NOW)
        messages = sent[:]
        del sent[:]
        for payload in ledger.answer(messages):
            link.on_message(link.topic_down, payload, now)


def press(button, long=False):
    clock[0] += 20
    c.panel(btn.LONG if long else btn.PRESS, button, clock[0])


def key(on):
    clock[0] += 20
    c.panel(btn.KEY_ON if on else btn.KEY_OFF, 0, clock[0])


def events(kind):
    return [e[4:7] for e in memory.log.events(memory.log.first_available()) if e[3] == kind]


c.boot(0, NOW)
print("blank memory:", tc.PHASE_NAMES[c.phase])
key(True)
press(btn.OK, True)
press(btn.OK)
key(False)
check("linked table closed before the link", (c.link_required, c.jackpot_open()), (True, False))
check("sign says LINK dn", c.view.meter_fault, "LINK dn")
# a link controller older than the pays message never answers it: the table stays SYNCING,
# its jackpot closed, and the dealer display says why until the controller is updated
ledger.pays = False
c.message = ""                  # (the RAM clear's, on the same lines)
step(3)
check("older controller: the dealer told", (c.view.lines[1], c.view.lines[6]),
      ("JP CLOSED LINK", "LINK NO PAYTABLE"))
ledger.pays = True
step(12)                        # (the pays message goes with the next hello, each second)
link = state["link"]
print("link", link.state_name(), "jackpot open", c.jackpot_open(), "meter", c.view.meter[0])
check("link up and open", (link.state, c.jackpot_open(), c.view.meter[0]), (UP, True, RESET))
check("link up: no reason shown", (c.view.lines[1], c.view.lines[6]), ("JP OPEN", ""))

# round 1: two wagers, the entry leaves only after the STEP_LOCK commit
for seat in (1, 2):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), clock[0])
    c.spot(sens.PLACED, sens.ante_spot(seat), clock[0])
press(btn.LOCK)
check("nothing sent before the commit is done", [m for m in sent if m.kind == codec.ENTRY], [])
saved = TableLink.restore(TABLE, KEY, None, memory.section(tc.SECTION_LINK))
check("entry committed with the round", (saved.last_n, saved.totals[0]), (1, 2 * WAGER))
step(3)
print("after lock: ledger", ledger.tot, "pool", ledger.pool, "meter", c.view.meter[0])
check("contribution applied once", ledger.tot[:2], [2 * WAGER, 2])
check("meter shows the linked pool", c.view.meter[0], ledger.pool)
check("local pool frozen", c.jackpot.value[0], RESET)

# a royal at seat 1: claimed with the settlement, paid when the controller answers
pool_before = ledger.pool
for dest, text in ((1, "As Ks"), (2, "2c 3d"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")):
    for card in cards.parse(text):
        c.card(dest, card, clock[0])
press(btn.SETTLE)
print("settle:", tc.PHASE_NAMES[c.phase], c.view.lines[1], c.view.lines[2])
key(True)
press(btn.OK)
key(False)
check("claim logged", events(ev.LINK_CLAIM), [(1, 4, WAGER)])
check("not paid yet", events(ev.JACKPOT_HIT), [])
step(3)
print("paid:", events(ev.JACKPOT_HIT), "win", c.view.win, "results", c.results)
check("payout logged", events(ev.JACKPOT_HIT), [(1, 4, pool_before)])
check("win on the sign", c.view.win, (0, 1, pool_before, RESET))
check("table meters = ledger", link.totals, ledger.tot)
press(btn.SETTLE)

# round 2: the LOCK commit fails: no entry is left behind, nothing is sent
real_commit = memory.commit


def failing(*args, **kwargs):
    raise OSError("FRAM write failed")


memory.commit = failing
press(btn.LOCK)
memory.commit = real_commit
step(2)
print("failed lock:", tc.PHASE_NAMES[c.phase], "entries made", link.last_n, "ledger", ledger.n)
check("failed lock leaves no entry", (c.phase, link.last_n, ledger.n), (tc.OPEN, 2, 2))

# round 2 again, then a misdeal: the contribution is reversed
press(btn.LOCK)
key(True)
press(btn.BACK, True)
key(False)
step(3)
print("void: ledger", ledger.tot, "table", link.totals)
check("reversal applied", ledger.tot[2], 2 * WAGER)
check("table meters = ledger after the void", link.totals, ledger.tot)
check("void logged", events(ev.VOID), [(0, 3, 2 * WAGER)])

# the controller's idle link work allocates nothing (after the messages have timed out)
step(50)


def idle_link_work(now):
    """20 idle passes of the controller's link work; False if any allocated."""
    if not hasattr(micropython, "heap_lock"):
        return True
    micropython.heap_lock()
    try:
        for i in range(20):
            c.link(link.wagers_open(), now + i)
            c.link_poll(now + i)
            c.tick(now + i, NOW)
    except MemoryError:
        micropython.heap_unlock()
        return False
    micropython.heap_unlock()
    return True


ok = idle_link_work(clock[0])
check("idle link work allocation-free", ok, True)
print("idle link work under heap_lock:", "ok" if ok else "ALLOCATED")

# A standalone table's round is locked (its wagers in the table's own pool); the power goes and
# the file links the table.  The round is finished as it began, on the table's own pool: its
# royal is paid from there, not claimed on the link, which never had its wagers.
fs = MemFS({})
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, SEEDED)
c.boot(0, NOW)
key(True)
press(btn.OK, True)
press(btn.OK)
key(False)
for seat in (1, 2):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), clock[0])
    c.spot(sens.PLACED, sens.ante_spot(seat), clock[0])
press(btn.LOCK)
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, SEEDED)
c.link_factory = factory
ledger = Ledger()
c.boot(0, NOW)
check("own pool round resumed", c.message, "Round 1 own pool\nlinked next round")
step(3)
for dest, text in ((1, "As Ks"), (2, "2c 3d"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")):
    for card in cards.parse(text):
        c.card(dest, card, clock[0])
press(btn.SETTLE)
key(True)
press(btn.OK)
key(False)
step(3)
check("paid from the table's pool", events(ev.JACKPOT_HIT), [(1, 4, RESET + 2 * 70)])
check("nothing claimed on the link", (events(ev.LINK_CLAIM), ledger.tot), ([], [0, 0, 0, 0, 0]))
check("own round closed, books balance", (c.jackpot.open_round, c.jackpot.audit()), (0, []))
press(btn.SETTLE)
for seat in (1, 2):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), clock[0])
    c.spot(sens.PLACED, sens.ante_spot(seat), clock[0])
press(btn.LOCK)
step(3)
check("next round on the link", (tc.PHASE_NAMES[c.phase], ledger.tot[:2]), ("LOCKED", [2 * WAGER, 2]))

# The other way: a linked round is locked, the power goes and the file makes the table
# standalone.  Its wagers are in the link's pool: neither settled nor voided here, the display
# says why; linked again, the round is settled on the link.
press(btn.SETTLE)
for seat in (1, 2):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), clock[0])
    c.spot(sens.PLACED, sens.ante_spot(seat), clock[0])
step(3)
press(btn.SETTLE)
press(btn.LOCK)
step(3)
locked_round = c.rec.round_no
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, SEEDED)
c.boot(0, NOW)
for dest, text in ((1, "As Ks"), (2, "2c 3d"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")):
    for card in cards.parse(text):
        c.card(dest, card, clock[0])
press(btn.SETTLE)
check("standalone: linked round not settled", (tc.PHASE_NAMES[c.phase], c.message),
      ("LOCKED", "Round was linked\nlink table again"))
key(True)
c.message = ""
press(btn.BACK)
clock[0] += 100
c.panel(btn.RELEASE, btn.BACK, clock[0])     # key + BACK let go: void the cursor's seat 1
check("standalone: its seat not voided", (c.message, c.rec.voided), ("Round was linked\nlink table again", 0))
press(btn.BACK, True)
key(False)
check("standalone: linked round not voided", (tc.PHASE_NAMES[c.phase], c.message, events(ev.VOID)),
      ("LOCKED", "Round was linked\nlink table again", []))
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory, SEEDED)
c.link_factory = factory
c.boot(0, NOW)
step(3)
for dest, text in ((1, "As Ks"), (2, "2c 3d"), (0, "4h 5h"), (8, "Qs Js Ts 9c 8d")):
    for card in cards.parse(text):
        c.card(dest, card, clock[0])
press(btn.SETTLE)
key(True)
press(btn.OK)
key(False)
step(3)
check("linked again: claimed on the link", events(ev.LINK_CLAIM), [(1, 4, WAGER)])
check("linked again: round settled", (c.rec.round_no, tc.PHASE_NAMES[c.phase]), (locked_round, "RESULTS"))

# A weak Wi-Fi that drops the link, or brings it back, every 30 s for two hours: after the
# first hour its entries come 640 s apart (5 or 6 an hour, not 120), every change counted in
# them (an entry less than 5 minutes after the one before doubles the wait, up to 640 s).
first = memory.log.count
now = clock[0] + 1300000           # the link's last entry 21 minutes old: the wait from 10 s
up = c.link_up
changes = 0
hourly = []
for second in range(1, 7200 + 641):
    now += 1000
    if second % 30 == 0 and second <= 7200:
        up = not up
        c.link(up, now)
        changes += 1
    c.tick(now, NOW)
    if second % 3600 == 0:
        flaps = [e for e in memory.log.events(first) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
        hourly.append(len(flaps))
flaps = [e for e in memory.log.events(first) if e[3] in (ev.LINK_UP, ev.LINK_DOWN)]
print("link flapping every 30 s, entries by the hour:", hourly)
check("slow flap: the second hour's entries", hourly[1] - hourly[0] in (5, 6), True)
check("slow flap: every change counted", sum(max(e[5], 1) for e in flaps), changes)
check("slow flap: the last state logged", flaps[-1][3], ev.LINK_UP if up else ev.LINK_DOWN)

if failures:
    print("FAILED:", failures)
    sys.exit(1)
print("link round controller: all checks passed")
