# Four Card Poker and Big Raise Stud rounds through the round controller on both runtimes.
# Expected results worked out by hand: FCP best four of five against the dealer's best four of
# six, the player winning ties [FCP 10.2]; BRS three cards and two community cards against the
# Risk/Raise table [BRS 5.2-5.4].
from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS
from host_tests.scenario_support import Checker

checker = Checker(24)


def table(game, antes=(), fs=None):
    """A table of game, RAM-cleared and locked with an Ante (a Risk bet) on each seat of
    antes: a seat without one gets no cards [BRS 6.9] (Four Card Poker: Aces Up alone)."""
    fs = MemFS({}) if fs is None else fs
    c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                           game=game)
    c.boot(0, 100)
    c.panel(btn.KEY_ON, 0, 1)
    c.panel(btn.LONG, btn.OK, 2)
    c.panel(btn.PRESS, btn.OK, 3)
    c.panel(btn.KEY_OFF, 0, 4)
    for seat in antes:
        c.spot(sens.PLACED, sens.ante_spot(seat), 4)
    c.panel(btn.PRESS, btn.LOCK, 5)
    return c


def deal(c, plan):
    for dest, text in plan:
        for card in cards.parse(text):
            c.card(dest, card, 10)


c = table(tc.FCP, antes=(1, 2, 3))
checker.check("fcp phase", tc.PHASE_NAMES[c.phase], "LOCKED")
deal(c, ((1, "Ah Ad As 9c 4h"), (2, "Qc Jd 8h 6s 2c"), (3, "Kh Ks 7d 5c 3h"),
         (0, "Kc Kd 7h 5s 3c 2d")))
c.panel(btn.PRESS, btn.SETTLE, 20)
checker.check("fcp results", c.results, ["D One Pair", "S1 Trips W", "S1 Bonus Trips",
                                          "S1 AcesUp Trips", "S2 High L", "S3 One Pair W"])

# seat 2 plays Aces Up alone (no Ante at LOCK): its trips pay Aces Up, and it has no Ante to
# win, lose or draw a bonus on ('-'); the power goes after SETTLE: the same results again
fs = MemFS({})
c = table(tc.FCP, antes=(1,), fs=fs)
deal(c, ((1, "Ah Ad As 9c 4h"), (2, "7c 7d 7h 5s 2c"), (0, "Kc Kd 7s 5h 3c 2d")))
c.panel(btn.PRESS, btn.SETTLE, 20)
alone = ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips", "S2 Trips -",
         "S2 AcesUp Trips"]
checker.check("fcp aces up alone", c.results, alone)
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                       game=tc.FCP)
c.boot(0, 300)
checker.check("fcp aces up alone, cut", (tc.PHASE_NAMES[c.phase], c.results),
              ("RESULTS", alone))

c = table(tc.BRS, antes=(1, 2, 3, 4))
deal(c, ((8, "Th 9h"), (1, "Ah Kh Qh"), (2, "Tc 4d 2s"), (3, "7c 7d 2h"), (4, "3c 4s 6d")))
c.panel(btn.PRESS, btn.SETTLE, 20)
checker.check("brs results", c.results,
              ["S1 Flush 6:1", "S1 Extra SF", "S2 One Pair 1:1", "S3 One Pair P",
               "S3 Extra Pair", "S4 High L"])
for line in c.view.lines:
    print("  |" + line)

# A fold still settles Big Raise Stud's Three Card Extra, on the seat's own three cards
# [BRS 4.1-4.2]: seat 1's A-K-7 is ace high on its own (three aces with the board); seat 2's
# K-Q-2 with the board's pair of aces is One Pair, 1 to 1 on the Risk/Raise table.
c = table(tc.BRS, antes=(1, 2))
c.panel(btn.RELEASE, btn.LOCK, 100)
c.panel(btn.PRESS, btn.OK, 200)             # the cursor's seat, seat 1, folds
c.panel(btn.RELEASE, btn.OK, 300)
deal(c, ((8, "Ac Ad"), (1, "Ah Kh 7c"), (2, "Kc Qd 2h")))
c.panel(btn.PRESS, btn.SETTLE, 20)
checker.check("brs fold results", c.results, ["S1 fold High", "S2 One Pair 1:1"])

# An Ante (Risk) chip put on an empty spot after "No more bets": the seat's ring, which
# follows the Ante at these games, flashes LATE and the dealer is told; taken back, LOCKED.
c = table(tc.BRS, antes=(1,))
c.tick(4000, 2000)
c.spot(sens.PLACED, sens.ante_spot(3), 4100)
checker.check("late ante: ring and display", (c.view.seat_light[2], c.view.lines[6:8]),
              (lights.LATE, ["Seat 3 late bet", "Ante not in play"]))
c.spot(sens.REMOVED, sens.ante_spot(3), 4200)
checker.check("late ante taken back", c.view.seat_light[2], lights.LOCKED)

def locked_fcp_round(keyed=False):
    """The flash of a new Four Card Poker table, RAM-cleared, with a round locked on seat 1's
    Ante: the power then goes (the caller boots another controller on it).  keyed: its program
    ran with the manifest's key (critical memory marked)."""
    fs = MemFS({})
    c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                           game=tc.FCP)
    c.memory.key = keyed
    c.boot(0, 100)
    c.panel(btn.KEY_ON, 0, 1)
    c.panel(btn.LONG, btn.OK, 2)
    c.panel(btn.PRESS, btn.OK, 3)
    c.panel(btn.KEY_OFF, 0, 4)
    c.spot(sens.PLACED, sens.ante_spot(1), 4)
    c.panel(btn.PRESS, btn.LOCK, 5)
    return fs


# A Four Card Poker round locked, the file switched to UTH while the power was off: the round
# resumes and settles as Four Card Poker, and the next round is UTH's.
fs = locked_fcp_round()
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs))
c.boot(0, 200)
checker.check("switched: resumed as", (c.game, c.message), (tc.FCP, "Round 1 is FCP\nUTH next round"))
deal(c, ((1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")))
c.panel(btn.PRESS, btn.SETTLE, 20)
checker.check("switched: results", c.results,
              ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"])
c.panel(btn.PRESS, btn.SETTLE, 30)
checker.check("switched: next round", (c.game, c.view.lines[1]), (tc.UTH, "JP OPEN"))

# The same at a keyed table whose program comes back without its key: RAM ERROR, the round
# kept as Four Card Poker's.  The supervisor's RAM clear opens the file's UTH, its pool seeded
# with the file's reset (the clear built the round's game's jackpot: no pool, $0.00 on UTH).
fs = locked_fcp_round(keyed=True)
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                       {"main": {"reset": 1000000}})
c.unkeyed = True
c.boot(0, 200)
c.panel(btn.KEY_ON, 0, 210)
c.panel(btn.LONG, btn.OK, 220)
checker.check("keyless: RAM CLEAR screen", (c.game, c.view.lines[:3]),
              (tc.FCP, ["RAM CLEAR?", "reset values:", "main $10000.00"]))
c.panel(btn.PRESS, btn.OK, 230)
checker.check("keyless: cleared", (tc.PHASE_NAMES[c.phase], c.game, c.view.meter[0],
                                   [e[6] for e in c.memory.log.events() if e[3] == ev.RAM_CLEAR]),
              ("OPEN", tc.UTH, 1000000, [0, 1000000]))

# A Four Card Poker round locked, /config.json refused at the next boot (firmware.startup gives
# no game): the table stays Four Card Poker, its round and the next, says CONFIG ERROR and its
# game, and keeps the jackpot closed.
fs = locked_fcp_round()
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                       game=None)
c.boot(0, 200)
c.set_config_status(False, "config file: not valid JSON")
checker.check("refused: resumed as", (c.game, c.message), (tc.FCP, "Round 1 resumed\nredo folds+cards"))
deal(c, ((1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")))
c.panel(btn.PRESS, btn.SETTLE, 20)
c.panel(btn.PRESS, btn.SETTLE, 30)
checker.check("refused: next round", (c.game, c.view.lines[1], c.view.lines[6], c.jackpot_open()),
              (tc.FCP, "CONFIG ERROR", "FOUR CARD POKER", False))

def locked_trips_round():
    """A UTH table whose file pays Trips on the best five of seven, RAM cleared, seats 1 and
    2 locked: (its flash, its controller)."""
    fs = MemFS({})
    c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs),
                           trips_rule="best5of7")
    c.boot(0, 100)
    c.panel(btn.KEY_ON, 0, 1)
    c.panel(btn.LONG, btn.OK, 2)
    c.panel(btn.PRESS, btn.OK, 3)
    c.panel(btn.KEY_OFF, 0, 4)
    for seat in (1, 2):
        c.spot(sens.PLACED, sens.ante_spot(seat), 4)
    c.panel(btn.PRESS, btn.LOCK, 5)
    return fs, c


# A UTH table whose file pays Trips on the best five of seven (rules.trips_hand_rule; the
# Ante, Blind and Play on both hole cards and three of the board, the NZ default): board
# Kh 9h 5h 2h 7c has four hearts, seat 1's Ah 3c and seat 2's 4h 6s one each, so each holds a
# flush for Trips but no flush on the NZ rule (seat 1 ace high, seat 2 king high, under the
# dealer's pair of queens).  Seat 1 folds: its line names the hand Trips is paid on.
fs, c = locked_trips_round()
c.panel(btn.RELEASE, btn.LOCK, 100)
deal(c, ((1, "Ah 3c"), (2, "4h 6s"), (0, "Qs Qd"), (8, "Kh 9h 5h 2h 7c")))
c.panel(btn.PRESS, btn.OK, 200)             # the cursor's seat, seat 1, folds
c.panel(btn.RELEASE, btn.OK, 300)
c.panel(btn.PRESS, btn.SETTLE, 400)
checker.check("uth trips on best five of seven", c.results,
              ["D One Pair", "S1 fold Flush", "S2 High L", "S2 Trips Flush"])
# the settle entry keeps the seats folded (its a: seat 1, bit 0), for a dispute over a fold
checker.check("settle entry's folds", [e[4] for e in c.memory.log.events() if e[3] == ev.SETTLE],
              [1])

# The same round locked under that file, the file's trips_hand_rule gone during a power cut:
# the round is finished under the rule it was locked under (the round record's game byte).
fs, c = locked_trips_round()
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs))
c.boot(1000, 200)
checker.check("trips rule kept: told", c.message, "Round 1 old rule\nnew rule next")
deal(c, ((1, "Ah 3c"), (2, "4h 6s"), (0, "Qs Qd"), (8, "Kh 9h 5h 2h 7c")))
c.panel(btn.PRESS, btn.OK, 1200)
c.panel(btn.RELEASE, btn.OK, 1300)
c.panel(btn.PRESS, btn.SETTLE, 1400)
checker.check("trips rule kept: results", c.results,
              ["D One Pair", "S1 fold Flush", "S2 High L", "S2 Trips Flush"])
checker.finish()
