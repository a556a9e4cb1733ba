"""The test lab's worst cases at the wire, in the three games: the simulated board (the App
on the fakes, its loop passing every 20 ms) with a spot sensor chattering at periods around
its debounce time, an Ante spot chattering while the dealer locks the round, spots changing
in the very loop pass LOCK is pressed in, and LOCK mashed.  Each test reads what the dealer
and the players see: the dealer display, the rings, the meter sign."""

import pytest

from firmware.drivers import spot_lights as lights
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.test_controller import events_of
from host_tests.test_table_payout import PER_WAGER, RESET, BoardRig
from tools.sim import Simulation

TICK = 20


class Rig(BoardRig):
    """BoardRig at any of the three games."""

    def __init__(self, directory, game="uth"):
        Simulation.__init__(self, str(directory), game=game)

    def spot(self, seat, ante=False, on=True):
        """A chip on (off) a spot, without running the table."""
        pin = ante_spot(seat) if ante else jackpot_spot(seat)
        (self.table.mcp.cover if on else self.table.mcp.uncover)(pin)

    def lines(self):
        return self.table.oled.lines()

    def watch(self, ms, messages):
        """Run ms, adding each new message of the dealer display's two last lines (as the
        controller draws them: the display takes a few passes to show a whole screen)."""
        for _ in range(ms // TICK):
            self.run(TICK)
            shown = tuple(self.app.controller.view.lines[6:])
            if shown != ("", "") and (not messages or messages[-1] != shown):
                messages.append(shown)


def _amount(cents):
    return "%d.%02d" % (cents // 100, cents % 100)


def _open(tmp_path, game="uth"):
    b = Rig(tmp_path, game)
    b.ram_clear()
    b.run(4000)                               # ('RAM cleared' gone from the display)
    assert b.app.controller.phase == tc.OPEN and b.lines()[6:] == ["", ""]
    return b


def _sign_shows(b, cents):
    """True once the meter sign, counting up to the pool, shows cents (within 10 s)."""
    return b.run_until(lambda: b.sign() == _amount(cents), 10000)


@pytest.mark.parametrize("covered", [True, False], ids=["ends-covered", "ends-empty"])
@pytest.mark.parametrize("start", [False, True], ids=["from-empty", "from-covered"])
@pytest.mark.parametrize("half_ms", [20, 40, 60, 80, 120, 140])
def test_a_jackpot_spot_chattering_at_any_period_ends_as_the_felt_is(tmp_path, half_ms, start,
                                                                     covered):
    # 20, 40 ms: never steady for the 40 ms debounce; 60-120: more changes than the chatter
    # limit (8 a second), some seen, the spot last seen covered or empty as it went into
    # fault; 140: a chip that comes and goes, each change counted
    b = _open(tmp_path)
    b.spot(2, on=start)
    b.run(400)
    messages = []
    for flip in range(3000 // half_ms):
        b.spot(2, on=flip % 2 != start)
        b.watch(half_ms, messages)
    if half_ms <= 120:
        assert ("Seat 2 JP spot", "FAULT chatter") in messages
        assert b.app.controller.view.seat_light[1] == lights.FAULT
    b.spot(2, on=covered)
    b.watch(3500, messages)                   # steady for the recovery time
    assert b.lines()[2] == ("placed 2" if covered else "placed -")
    assert b.app.controller.view.seat_light[1] == (lights.PLACED if covered else lights.IDLE)


@pytest.mark.parametrize("game", ["uth", "fcp", "brs"])
def test_an_ante_spot_chattering_as_the_round_locks_is_told_and_never_a_late_bet(tmp_path, game):
    b = _open(tmp_path, game)
    c = b.app.controller
    for seat in (1, 2):
        b.spot(seat)                          # (a jackpot spot: UTH's; the others read none)
    b.spot(1, ante=True)
    messages = []
    for flip in range(10):                    # seat 2's Ante sensor flickers
        b.spot(2, ante=True, on=flip % 2 == 0)
        b.watch(TICK, messages)
    assert messages[-1] == ("Seat 2 Ante spot", "FAULT chatter")
    b.press("LOCK")                           # in the middle of it
    for flip in range(10):
        b.spot(2, ante=True, on=flip % 2 == 0)
        b.watch(TICK, messages)
    b.spot(2, ante=True)                      # the chip settles on the spot
    if game == "uth":
        # its chip unseen: the seat plays, its jackpot wager is not taken, and it is said
        assert ("Fault, no JP:", "seats 2") in messages
    assert c.view.seat_light[1] == lights.FAULT
    if game == "uth":
        assert b.lines()[1] == "JP 1"
        assert _sign_shows(b, RESET + PER_WAGER)
    b.watch(3500, messages)                   # the sensor recovers
    assert [m for m in messages if "late" in m[0]] == []
    assert c.view.seat_light[1] != lights.LATE
    assert c.view.seat_light[1] == lights.LOCKED
    if game != "fcp":                         # (Four Card Poker takes an Aces Up seat's cards)
        b.shoe("S2 3d")
        assert b.lines()[6:] != ["Card refused", "S2 no wager"]
        b.shoe("S3 4d")
        assert b.lines()[6:] == ["Card refused", "S3 no wager"]


def test_jackpot_chips_coming_and_going_in_the_pass_lock_is_pressed_in(tmp_path):
    # Seats 1-4 bet; in one loop pass's time seats 1 and 2 take their jackpot chips back,
    # seats 5-7 put theirs down, and the dealer presses LOCK: the table takes what is on the
    # felt when the press is seen, and calls none of it a late bet or a tamper
    b = _open(tmp_path)
    c = b.app.controller
    for seat in range(1, 8):
        b.spot(seat, ante=True)
    for seat in range(1, 5):
        b.spot(seat)
    b.run(400)
    for seat in (1, 2):
        b.spot(seat, on=False)
    for seat in (5, 6, 7):
        b.spot(seat)
    b.table.buttons["LOCK"].press()
    messages = []
    b.watch(100, messages)
    b.table.buttons["LOCK"].release()
    b.watch(500, messages)
    assert messages[0] == ("No more bets", "5 jackpot wagers")
    assert b.lines()[1] == "JP 34567"
    assert [m for m in messages if "TAMPER" in m[0] or "late" in m[0]] == []
    assert list(c.view.seat_light) == [lights.LOCKED] * 2 + [lights.ACCEPTED] * 5
    assert _sign_shows(b, RESET + 5 * PER_WAGER)
    assert events_of(c.memory, ev.TAMPER) == []


@pytest.mark.parametrize("game", ["fcp", "brs"])
def test_antes_coming_and_going_in_the_pass_lock_is_pressed_in(tmp_path, game):
    b = _open(tmp_path, game)
    c = b.app.controller
    for seat in (1, 2, 3):
        b.spot(seat, ante=True)
    b.run(400)
    b.spot(1, ante=True, on=False)
    for seat in (4, 5, 6, 7):
        b.spot(seat, ante=True)
    b.table.buttons["LOCK"].press()
    messages = []
    b.watch(100, messages)
    b.table.buttons["LOCK"].release()
    b.watch(500, messages)
    assert messages == [("No more bets", "")]
    assert list(c.view.seat_light) == [lights.LOCKED] * 7       # none flashing LATE
    b.shoe("S7 3d")
    assert b.lines()[6:] != ["Card refused", "S7 no wager"]
    if game == "brs":
        b.shoe("S1 4d")
        assert b.lines()[6:] == ["Card refused", "S1 no wager"]


def _mash(pin, ends_down):
    """Twenty presses between two loop passes, the button left down or up."""
    for _ in range(20):
        pin.press()
        pin.release()
    if ends_down:
        pin.press()


def test_lock_and_settle_mashed_act_once(tmp_path):
    b = _open(tmp_path)
    c = b.app.controller
    for seat in (1, 2):
        b.spot(seat)
        b.spot(seat, ante=True)
    b.run(400)
    lock, settle = b.table.buttons["LOCK"], b.table.buttons["SETTLE"]
    _mash(lock, False)                        # all of it between two passes: not seen
    b.run(400)
    assert b.lines()[0] == "ROUND 1 OPEN"
    _mash(lock, True)
    b.run(100)
    lock.release()
    # a bouncing mash over many passes: some levels last a pass, some long enough to count
    for level in (0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0) * 3:
        lock.level = level
        b.run(TICK)
    lock.release()
    b.run(400)
    assert b.lines()[0] == "ROUND 1 LOCKED"
    assert len(events_of(c.memory, ev.LOCK)) == 1
    assert _sign_shows(b, RESET + 2 * PER_WAGER)
    for line in ("S1 2c", "S1 7d", "S2 3d", "S2 8s", "D 9c", "D 9d", "B Qs", "B Js", "B Ts",
                 "B 3h", "B 4h"):
        b.shoe(line)
    _mash(settle, True)                       # settles; the next round waits for a press
    b.run(100)
    settle.release()
    b.run(400)
    assert b.lines()[0] == "ROUND 1 RESULT"
    _mash(settle, True)                       # the next round
    b.run(100)
    settle.release()
    b.run(400)
    assert b.lines()[0] == "ROUND 2 OPEN"
    b.press("UP")
    b.press("UP")
    assert b.lines()[4] == "sel S3 OK=ante"
    ok = b.table.buttons["OK"]
    # bounces of one and two passes, then a press held three: one press, one Ante mark
    for level in (0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1):
        ok.level = level
        b.run(TICK)
    b.run(400)
    assert b.lines()[3] == "ante 123"


def _pass(b, ms):
    """One loop pass ms after the last (a pass that drew a page or committed is longer)."""
    b.now += ms
    b.table.pwm.now = b.now
    b.app.step(b.now, b.wall + b.now // 1000)


@pytest.mark.parametrize("slow_ms", [20, 30, 35, 39])
def test_chips_moved_as_lock_is_pressed_count_alike_however_long_the_next_pass(tmp_path, slow_ms):
    # Seat 1 takes its jackpot chip back and seat 3 puts one down as the dealer presses LOCK,
    # all between two loop passes: the table must take the felt as it is once both are seen,
    # whatever the length of the pass after.  The buttons' debounce was 30 ms and the spots'
    # 40: a pass of 30 to 39 ms saw the LOCK before the chips, so seat 1's chip gone was taken
    # as a wager and called a TAMPER, seat 3's a late bet; with passes of 20 ms, neither
    b = _open(tmp_path)
    c = b.app.controller
    for seat in (1, 2, 3):
        b.spot(seat, ante=True)
    for seat in (1, 2):
        b.spot(seat)
    b.run(400)
    b.spot(1, on=False)
    b.spot(3)
    b.table.buttons["LOCK"].press()
    messages = []
    _pass(b, TICK)                            # both seen
    _pass(b, slow_ms)
    b.watch(100, messages)
    b.table.buttons["LOCK"].release()
    b.watch(400, messages)
    assert messages[0] == ("No more bets", "2 jackpot wagers")
    assert b.lines()[1] == "JP 23"
    assert [m for m in messages if "TAMPER" in m[0] or "late" in m[0]] == []
    assert list(c.view.seat_light[:3]) == [lights.LOCKED, lights.ACCEPTED, lights.ACCEPTED]
    assert events_of(c.memory, ev.TAMPER) == []
    assert _sign_shows(b, RESET + 2 * PER_WAGER)


def _reach(tmp_path, phase):
    """A UTH table in phase, reached as the dealer and the supervisor reach it, key off."""
    b = Rig(tmp_path)
    if phase == tc.RAM_ERROR:
        return b
    b.key(True)
    b.press("OK", long=True)
    if phase == tc.RAM_CLEAR:
        return b
    b.press("OK")
    b.run(4000)                               # ('RAM cleared' gone from the display)
    if phase in (tc.AUDIT, tc.CONFIG, tc.TEST):
        b.press({tc.AUDIT: "OK", tc.CONFIG: "SETTLE", tc.TEST: "LOCK"}[phase], long=True)
    b.key(False)
    if phase in (tc.LOCKED, tc.CONFIRM, tc.RESULTS, tc.CARD_ENTRY):
        b.chip(1)
        b.chip(1, ante=True)
        b.press("LOCK")
        if phase == tc.CARD_ENTRY:
            b.press("OK", long=True)
        elif phase != tc.LOCKED:
            hole = "As Ks" if phase == tc.CONFIRM else "2c 7d"
            for line in ["S1 " + card for card in hole.split()] + [
                    "D 9c", "D 9d", "B Qs", "B Js", "B Ts", "B 3h", "B 4h"]:
                b.shoe(line)
            b.press("SETTLE")
        b.run(4000)
    assert b.app.controller.phase == phase
    return b


# what the screen says of the key, where it says it: (line, key off, key on)
_KEY_LINE = {tc.OPEN: (7, "", "KEY ON"), tc.LOCKED: (7, "hold OK=cards", "KEY ON BACK=void"),
             tc.CONFIRM: (7, "KEY+OK to pay", "OK=pay LOCK=back"), tc.TEST: (4, "key off", "key on")}


@pytest.mark.parametrize("end_on", [False, True], ids=["ends-off", "ends-on"])
@pytest.mark.parametrize("phase", [tc.OPEN, tc.LOCKED, tc.CONFIRM, tc.RESULTS, tc.RAM_ERROR,
                                   tc.RAM_CLEAR, tc.AUDIT, tc.CONFIG, tc.TEST, tc.CARD_ENTRY],
                         ids=lambda p: tc.PHASE_NAMES[p].replace(" ", "_"))
def test_the_key_turned_back_and_forth_in_any_phase_changes_nothing_but_the_key(tmp_path, phase,
                                                                                end_on):
    b = _reach(tmp_path, phase)
    c = b.app.controller
    # (the pool, not the sign: at CONFIRM it shows the win and its seat in turn)
    pool = c.jackpot.value[:] if c.jackpot else None
    before = (b.lines(), pool, list(c.view.seat_light), len(list(c.memory.log.events())))
    for half_ms in (20, 40, 60, 100, 120, 200, 400):   # a worn switch, then a hand on it
        for _ in range(4):
            b.table.key.level ^= 1
            b.run(half_ms)
    b.table.key.level = 0 if end_on else 1
    b.run(400)
    assert c.phase == phase and c.key_on == end_on
    lines = b.lines()
    if phase in _KEY_LINE:
        line, off, on = _KEY_LINE[phase]
        assert lines[line] == (on if end_on else off)
        lines[line] = before[0][line]
    pool = c.jackpot.value[:] if c.jackpot else None
    assert (lines, pool, list(c.view.seat_light), len(list(c.memory.log.events()))) == before
