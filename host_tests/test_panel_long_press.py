"""Long and short presses on the dealer panel: one press, one action.

The Panel (firmware/drivers/buttons.py) reports a short press as PRESS then RELEASE, and a
long press as PRESS, LONG (after long_ms), RELEASE.  A long press must do only its long
action, never the short one first; a short press only the short one.  The controller is
driven here with those sequences (host_tests.test_controller.Table.press), and at the end
through the real Panel reading fake pins, as on the board.
"""

import pytest

from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.drivers.events import EMPTY, event_detail, event_kind
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.fakes.pins import FakePin
from host_tests.test_controller import RESET, SHORT_MS, Table, events_of


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    return t


def seat_with_wager(table, seat):
    table.chip(seat)
    table.chip(seat, ante=True)


def locked_round(table, seats=(1, 2)):
    for seat in seats:
        seat_with_wager(table, seat)
    table.press(btn.LOCK)
    assert table.c.phase == tc.LOCKED


# --- the four misfires the audit found ------------------------------------------------------

def test_key_and_long_lock_opens_test_mode_without_locking_the_round(table):
    seat_with_wager(table, 1)
    table.key(True)
    table.press(btn.LOCK, long=True)
    assert table.c.phase == tc.TEST
    assert table.c.rec.accepted == 0
    assert events_of(table.memory, ev.LOCK) == []
    assert table.c.view.meter[0] == RESET               # nothing contributed
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN and table.c.rec.round_no == 1


def test_key_and_long_ok_opens_the_audit_without_marking_an_ante(table):
    table.key(True)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.AUDIT
    assert table.c.ante_marked == 0
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN and table.c.ante_marked == 0
    assert "ante -" in table.screen()


def test_long_ok_when_locked_opens_card_entry_without_folding_the_seat(table):
    locked_round(table)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.CARD_ENTRY
    assert table.c.rec.folded == 0
    table.press(btn.BACK)
    assert table.c.phase == tc.LOCKED and table.c.rec.folded == 0
    assert "fold" not in table.c.view.lines[4]


def test_key_and_long_back_when_locked_voids_the_round_and_no_seat(table):
    locked_round(table)
    table.key(True)
    table.press(btn.BACK, long=True)
    assert table.c.phase == tc.RESULTS and "ROUND VOID" in table.screen()
    assert table.c.rec.voided == 0
    voids = events_of(table.memory, ev.VOID)
    assert len(voids) == 1
    assert voids[0][4:6] == (0, 0b11)                  # a = 0: the round, not a seat
    assert table.c.view.meter[0] == RESET


# --- the short actions still happen, once, when the button is let go --------------------------

def test_key_and_short_lock_locks_on_release(table):
    seat_with_wager(table, 1)
    table.key(True)
    table.c.panel(btn.PRESS, btn.LOCK, table.tick())
    assert table.c.phase == tc.OPEN                     # could still become a long press
    table.c.panel(btn.RELEASE, btn.LOCK, table.tick(100))
    assert table.c.phase == tc.LOCKED and table.c.rec.accepted == 0b1


def test_key_and_short_ok_marks_the_ante(table):
    table.key(True)
    table.press(btn.OK)
    assert table.c.phase == tc.OPEN and table.c.ante_marked == 0b1


def test_short_ok_when_locked_folds_the_seat(table):
    locked_round(table)
    table.press(btn.OK)
    assert table.c.phase == tc.LOCKED and table.c.rec.folded == 0b1


def test_key_and_short_back_when_locked_voids_only_that_seat(table):
    locked_round(table)
    table.key(True)
    table.press(btn.BACK)
    assert table.c.phase == tc.LOCKED and table.c.rec.voided == 0b1
    assert [e[4] for e in events_of(table.memory, ev.VOID)] == [1]
    assert table.c.view.seat_light[0] == lights.OFF


def test_a_button_without_a_long_action_acts_at_once_and_its_long_is_ignored(table):
    seat_with_wager(table, 1)
    table.c.panel(btn.PRESS, btn.LOCK, table.tick())   # no key: LOCK has no long action
    assert table.c.phase == tc.LOCKED
    table.c.panel(btn.LONG, btn.LOCK, table.tick(1000))
    table.c.panel(btn.RELEASE, btn.LOCK, table.tick(100))
    assert table.c.phase == tc.LOCKED and len(events_of(table.memory, ev.LOCK)) == 1


def test_mashed_ok_toggles_the_ante_once_per_press(table):
    for presses, marked in ((1, 0b1), (2, 0b0), (3, 0b1)):
        table.c.ante_marked = 0
        for _ in range(presses):
            table.press(btn.OK)
        assert table.c.ante_marked == marked
    table.key(True)                                     # deferred to the release: the same
    for presses, marked in ((1, 0b1), (2, 0b0), (3, 0b1)):
        table.c.ante_marked = 0
        for _ in range(presses):
            table.press(btn.OK)
        assert table.c.ante_marked == marked


# --- a press that changes the phase does not act again in the next phase ----------------------

def test_holding_back_to_leave_card_entry_does_not_void_the_round(table):
    locked_round(table)
    table.key(True)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.CARD_ENTRY
    table.press(btn.BACK, long=True)                    # held past long_ms, key on
    assert table.c.phase == tc.LOCKED
    assert events_of(table.memory, ev.VOID) == [] and table.c.rec.voided == 0


def test_holding_settle_for_the_next_round_does_not_open_the_configuration(table):
    locked_round(table)
    table.key(True)
    table.press(btn.BACK, long=True)                    # misdeal: the round's RESULTS
    assert table.c.phase == tc.RESULTS
    table.press(btn.SETTLE, long=True)                  # key still on
    assert table.c.phase == tc.OPEN and table.c.rec.round_no == 2


def test_the_release_of_the_long_ok_that_starts_a_ram_clear_does_not_accept_it(tmp_path):
    t = Table(tmp_path)
    assert t.c.phase == tc.RAM_ERROR
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR and events_of(t.memory, ev.RAM_CLEAR) == []
    t.press(btn.OK)
    assert t.c.phase == tc.OPEN and len(events_of(t.memory, ev.RAM_CLEAR)) == 1


def test_a_long_with_no_press_before_it_is_a_long_press(table):
    # firmware/service.py does a RAM clear this way; a LONG alone must not be lost.
    table.key(True)
    table.c.panel(btn.LONG, btn.LOCK, table.tick())
    assert table.c.phase == tc.TEST


def test_buttons_out_of_range_are_ignored(table):
    table.c.panel(btn.PRESS, 9, table.tick())
    table.c.panel(btn.RELEASE, -1, table.tick())
    assert table.c.phase == tc.OPEN


# --- the real Panel driver feeding the controller -------------------------------------------

class Desk:
    """The Panel on fake pins, polled every 10 ms, its events fed to the controller."""

    STEP_MS = 10

    def __init__(self, table):
        self.table = table
        self.pins = [FakePin(1) for _ in range(6)]
        self.key = FakePin(1)
        self.door = FakePin(1)
        self.panel = btn.Panel(self.pins, self.key, self.door, now=table.now)
        self.seen = []

    def run(self, ms):
        for _ in range(ms // self.STEP_MS):
            now = self.table.tick(self.STEP_MS)
            self.panel.poll(now)
            event = self.panel.events.pop()
            while event != EMPTY:
                self.seen.append((event_kind(event), event_detail(event)))
                self.table.c.panel(event_kind(event), event_detail(event), now)
                event = self.panel.events.pop()

    def hold(self, button, ms):
        self.pins[button].press()
        self.run(ms)
        self.pins[button].release()
        self.run(200)

    def turn_key(self, on):
        if on:
            self.key.press()
        else:
            self.key.release()
        self.run(200)


def test_the_real_panel_key_and_held_lock_gives_test_mode_only(table):
    desk = Desk(table)
    seat_with_wager(table, 1)
    desk.turn_key(True)
    assert table.c.key_on
    desk.hold(btn.LOCK, 1200)                            # tools/sim.py's long press
    assert desk.seen[-3:] == [(btn.PRESS, btn.LOCK), (btn.LONG, btn.LOCK), (btn.RELEASE, btn.LOCK)]
    assert table.c.phase == tc.TEST and events_of(table.memory, ev.LOCK) == []
    desk.hold(btn.BACK, 100)
    desk.hold(btn.LOCK, 100)                             # a short press: locks
    assert table.c.phase == tc.LOCKED and table.c.rec.accepted == 0b1


def test_the_real_panel_held_ok_when_locked_opens_card_entry_and_a_tap_folds(table):
    desk = Desk(table)
    locked_round(table)
    desk.hold(btn.OK, 1200)
    assert table.c.phase == tc.CARD_ENTRY and table.c.rec.folded == 0
    desk.hold(btn.BACK, 100)
    assert table.c.phase == tc.LOCKED
    desk.hold(btn.OK, 100)
    assert table.c.rec.folded == 0b1
    # a mashed OK with contact bounce: one fold toggle per real press
    for _ in range(3):
        for level in (0, 1, 0, 1, 0):
            desk.pins[btn.OK].level = level
            desk.run(10)
        desk.run(60)
        desk.pins[btn.OK].release()
        desk.run(80)
    assert table.c.rec.folded == 0b0                    # 1 + 3 toggles


def _cursor_lines_while(desk, ms, line):
    """The dealer display's line `line`, read every panel step for ms: each text once."""
    seen = []
    for _ in range(ms // desk.STEP_MS):
        desk.run(desk.STEP_MS)
        text = desk.table.c.view.lines[line]
        if not seen or seen[-1] != text:
            seen.append(text)
    return seen


def test_up_held_while_leaving_card_entry_does_not_move_the_seat_cursor(table):
    # UP held to step a card's rank, BACK tapped to leave: UP, still held, belongs to the
    # card entry; its repeats went on moving the LOCKED screen's seat cursor, so that the
    # dealer's next OK folded another seat than the one he had left
    desk = Desk(table)
    locked_round(table, seats=(1, 2, 3))
    desk.hold(btn.OK, 1200)
    assert table.c.phase == tc.CARD_ENTRY
    desk.hold(btn.OK, 100)                               # the rank field
    desk.pins[btn.UP].press()
    desk.run(1300)                                       # the rank steps on, repeating
    assert table.c.view.lines[2] != " rank A"
    desk.pins[btn.BACK].press()
    desk.run(100)
    desk.pins[btn.BACK].release()
    assert table.c.phase == tc.LOCKED
    assert _cursor_lines_while(desk, 1000, 4) == ["S1 -"]    # UP still held
    desk.pins[btn.UP].release()
    desk.run(200)
    desk.hold(btn.OK, 100)
    assert table.c.rec.folded == 0b1
    desk.hold(btn.UP, 100)                               # a new press moves it
    assert table.c.view.lines[4] == "S2 -"


def _settled_with_antes_on_2_and_3(table):
    """A Desk on `table` with a round of seats 2 and 3 settled (their Antes stay on the felt):
    RESULTS."""
    desk = Desk(table)
    locked_round(table, seats=(2, 3))
    table.deal([(2, "2c 7d"), (3, "3d 8s"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    desk.hold(btn.SETTLE, 100)
    return desk


def test_down_held_through_the_next_round_does_not_move_the_seat_cursor(table):
    # DOWN held to scroll the results, SETTLE for the next round: the OPEN screen's cursor
    # stays on seat 1, where OK then marks an Ante
    desk = _settled_with_antes_on_2_and_3(table)
    assert table.c.phase == tc.RESULTS
    desk.pins[btn.DOWN].press()
    desk.run(1300)
    desk.hold(btn.SETTLE, 100)
    assert table.c.phase == tc.OPEN
    assert _cursor_lines_while(desk, 1000, 4) == ["sel S1 OK=ante"]
    desk.pins[btn.DOWN].release()
    desk.run(200)
    assert table.c.view.lines[3] == "ante 23"
    desk.hold(btn.OK, 100)                               # seat 1's Ante marked
    assert table.c.view.lines[3] == "ante 123"


def test_down_held_while_leaving_the_recalled_results_does_not_move_the_seat_cursor(table):
    # DOWN held to scroll the last round's results recalled in OPEN (held SETTLE), BACK
    # tapped to leave them: DOWN, still held, scrolled the recall; its repeats went on
    # moving the betting screen's seat cursor, where the dealer's next OK marks an Ante
    desk = _settled_with_antes_on_2_and_3(table)
    desk.hold(btn.SETTLE, 100)
    assert table.c.phase == tc.OPEN
    desk.hold(btn.SETTLE, 1200)                          # the last round's results again
    assert table.c.view.lines[0] == "LAST ROUND 1"
    desk.pins[btn.DOWN].press()
    desk.run(1300)                                       # scrolling them, repeating
    desk.hold(btn.BACK, 100)
    assert table.c.view.lines[0] == "ROUND 2 OPEN"
    assert _cursor_lines_while(desk, 1000, 4) == ["sel S1 OK=ante"]    # DOWN still held
    desk.pins[btn.DOWN].release()
    desk.run(200)
    desk.hold(btn.OK, 100)                               # seat 1's Ante marked
    assert table.c.view.lines[3] == "ante 123"
    desk.hold(btn.DOWN, 100)                             # a new press moves the cursor
    assert table.c.view.lines[4] == "sel S7 OK=ante"


def test_up_held_as_ok_passes_to_the_suit_does_not_step_the_suit(table):
    # UP held to step a card's rank, OK tapped on the rank wanted: UP, still held, went on
    # stepping the suit field from there, so LOCK added another card than the one chosen
    desk = Desk(table)
    locked_round(table, seats=(1, 2))
    desk.hold(btn.OK, 1200)
    desk.hold(btn.OK, 100)                               # the rank field
    desk.pins[btn.UP].press()
    desk.run(1300)                                       # the rank steps on, repeating
    desk.pins[btn.OK].press()                            # on to the suit, UP still held
    desk.run(100)
    desk.pins[btn.OK].release()
    assert table.c.view.lines[3] == ">suit spades"
    assert _cursor_lines_while(desk, 1000, 3) == [">suit spades"]
    desk.pins[btn.UP].release()
    desk.run(200)
    desk.hold(btn.UP, 100)                               # a new press steps the suit
    assert table.c.view.lines[3] == ">suit clubs"


# --- LONG_ACTIONS agrees with the handlers ------------------------------------------------------

def reach(tmp_path, phase, key):
    """A table in phase (reached the way the dealer reaches it), the key on or off."""
    t = Table(tmp_path)
    if phase != tc.RAM_ERROR:
        t.key(True)
        t.press(btn.OK, long=True)
        if phase != tc.RAM_CLEAR:
            t.press(btn.OK)
    t.key(True)
    if phase == tc.AUDIT:
        t.press(btn.OK, long=True)
    elif phase == tc.CONFIG:
        t.press(btn.SETTLE, long=True)
    elif phase == tc.TEST:
        t.press(btn.LOCK, long=True)
    elif phase in (tc.LOCKED, tc.CONFIRM, tc.RESULTS, tc.CARD_ENTRY):
        seat_with_wager(t, 1)
        t.key(False)
        t.press(btn.LOCK)
        if phase == tc.CARD_ENTRY:
            t.press(btn.OK, long=True)
        elif phase == tc.CONFIRM:
            t.deal([(1, "As Ks"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
            t.press(btn.SETTLE)
        elif phase == tc.RESULTS:
            t.deal([(1, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
            t.press(btn.SETTLE)
    t.key(key)
    assert t.c.phase == phase
    return t


def state(t):
    c = t.c
    return (c.phase, c.rec.round_no, c.rec.accepted, c.rec.folded, c.rec.voided, c.ante_marked,
            c.cursor, c.test_step, c.config_index, c.entry_field, list(c.entry), c.menu_top,
            c.results_top, c.message, c.jackpot.config.wager if c.jackpot else None,
            len(list(t.memory.log.events())) if c.jackpot else 0)


@pytest.mark.parametrize("key", [False, True])
@pytest.mark.parametrize("phase", range(len(tc.PHASE_NAMES)), ids=lambda p: tc.PHASE_NAMES[p])
def test_a_button_listed_without_a_long_action_has_none(tmp_path, phase, key):
    # A button that acts on its PRESS ignores its LONG, so its handler's long action (if it
    # had one) could never happen: it must do nothing, or the same as the short press.
    from firmware.table import handlers
    for button in (btn.LOCK, btn.SETTLE, btn.OK, btn.BACK):
        if handlers.LONG_ACTIONS[phase][key] & (1 << button):
            continue
        results = []
        for long in (None, False, True):
            directory = tmp_path / ("%d-%s" % (button, long))
            directory.mkdir()
            t = reach(directory, phase, key)
            if long is not None:
                handlers.HANDLERS[phase](t.c, button, long)
            results.append(state(t))
        nothing, short, held = results
        assert held in (nothing, short), (tc.PHASE_NAMES[phase], btn.BUTTON_NAMES[button])


def test_a_button_held_through_a_phase_change_does_nothing_in_the_new_phase(tmp_path):
    """A thumb resting on OK while SETTLE is pressed: letting go of OK at CONFIRM must not pay
    the jackpot (rule 11.13: the supervisor's confirmation), nor skip the results."""
    t = Table(tmp_path)
    t.ram_clear()
    for seat in (1, 3):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.c.panel(btn.PRESS, btn.OK, t.tick())          # OK held (its action waits for release)
    t.press(btn.SETTLE)
    assert t.c.phase == tc.CONFIRM
    t.key(True)
    t.c.panel(btn.LONG, btn.OK, t.tick(1000))      # still held...
    t.c.panel(btn.RELEASE, btn.OK, t.tick())       # ...and let go
    assert t.c.phase == tc.CONFIRM and events_of(t.memory, ev.JACKPOT_HIT) == []
    t.press(btn.OK)                                 # the supervisor's own OK pays
    assert t.c.phase == tc.RESULTS and len(events_of(t.memory, ev.JACKPOT_HIT)) == 1


def test_a_button_held_into_the_results_does_not_start_the_next_round(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    t.press(btn.LOCK)
    t.deal([(8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    t.c.panel(btn.PRESS, btn.OK, t.tick())
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS
    t.c.panel(btn.RELEASE, btn.OK, t.tick())
    assert t.c.phase == tc.RESULTS


# --- two buttons hit together ---------------------------------------------------------------

def jackpot_round_settled_with(t, second, gap_ms, key=True):
    """A locked round with a royal flush on seat 1; SETTLE pressed, and `second` pressed
    gap_ms later (0: in the same poll of the panel), the key on or off."""
    t.c.chord_ms = tc.CHORD_MS                          # as the App sets it for its panel
    locked_round(t, seats=(1,))
    t.deal([(1, "As Ks"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.key(key)
    at = t.tick()
    t.c.panel(btn.PRESS, btn.SETTLE, at)
    t.c.panel(btn.PRESS, second, at + gap_ms)
    t.c.panel(btn.RELEASE, btn.SETTLE, t.tick(SHORT_MS))
    t.c.panel(btn.RELEASE, second, t.tick())


@pytest.mark.parametrize("gap_ms", [0, 20, 40])
def test_ok_hit_together_with_settle_does_not_pay_the_jackpot(table, gap_ms):
    # rule 11.13: the jackpot hand is shown at CONFIRM for the supervisor to check; an OK
    # pressed with SETTLE (a palm across the panel, the key left on) must not pay it unseen
    jackpot_round_settled_with(table, btn.OK, gap_ms)
    assert table.c.phase == tc.CONFIRM
    assert events_of(table.memory, ev.JACKPOT_HIT) == []
    table.press(btn.OK)                                 # the supervisor's own OK pays
    assert table.c.phase == tc.RESULTS and len(events_of(table.memory, ev.JACKPOT_HIT)) == 1


def test_ok_hit_together_with_settle_does_not_skip_the_results(table):
    table.c.chord_ms = tc.CHORD_MS
    locked_round(table, seats=(1,))
    table.deal([(1, "2c 7d"), (8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    at = table.tick()
    table.c.panel(btn.PRESS, btn.SETTLE, at)
    table.c.panel(btn.PRESS, btn.OK, at)
    assert table.c.phase == tc.RESULTS and table.c.rec.round_no == 1


def test_ok_hit_together_with_settle_in_the_results_marks_no_ante(table):
    table.c.chord_ms = tc.CHORD_MS
    locked_round(table, seats=(1,))
    table.deal([(1, "2c 7d"), (8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS
    at = table.tick()
    table.c.panel(btn.PRESS, btn.SETTLE, at)            # the next round...
    table.c.panel(btn.PRESS, btn.OK, at)                # ...and OK with it
    assert table.c.phase == tc.OPEN and table.c.ante_marked == 0


def test_the_key_left_on_shows_in_open_and_locked(table):
    # The key changes what the buttons do (a short BACK in LOCKED voids the cursor seat, a
    # firm LOCK in OPEN opens test mode), so a key left on must not be invisible there.
    table.c.tick(table.tick(5000), 0)                   # the RAM clear's message gone
    table.key(True)
    assert table.screen().split("\n")[7] == "KEY ON"
    table.key(False)
    assert "KEY ON" not in table.screen()
    locked_round(table, seats=(1,))
    table.c.tick(table.tick(5000), 0)                   # "No more bets" gone
    assert table.screen().split("\n")[7] == "hold OK=cards"
    table.key(True)
    assert table.screen().split("\n")[7] == "KEY ON BACK=void"
    table.press(btn.BACK)                               # what the line said it would do
    assert table.c.rec.voided == 1


def test_ok_tapped_twice_in_the_results_marks_no_ante(table):
    # A double tap of OK in RESULTS: the first begins the next round, the second (200 ms
    # later, past the 60 ms chord window) landed in OPEN and marked the cursor seat's Ante,
    # unseen; LOCK then took a jackpot chip on a seat with no Ante, against UTH 11.1.
    table.c.chord_ms = tc.CHORD_MS
    locked_round(table, seats=(1,))
    table.deal([(1, "2c 7d"), (8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    table.chip(1, placed=False, ante=True)              # the round's chips collected
    table.chip(1, placed=False)
    assert table.c.phase == tc.RESULTS
    table.press(btn.OK)
    assert table.c.phase == tc.OPEN
    table.c.panel(btn.PRESS, btn.OK, table.tick(100))   # the double tap's second OK
    table.c.panel(btn.RELEASE, btn.OK, table.tick(60))
    assert table.c.ante_marked == 0
    assert "New round: OK\nagain marks ante" in table.screen()
    table.chip(1)                                       # a jackpot chip, no Ante chip
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0


def test_an_ok_after_the_double_tap_window_marks_the_ante(table):
    locked_round(table, seats=(1,))
    table.deal([(1, "2c 7d"), (8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    table.press(btn.OK)
    assert table.c.phase == tc.OPEN
    table.tick(600)
    table.press(btn.OK)                                 # a deliberate mark, after a pause
    assert table.c.ante_marked == 1 << table.c.cursor
    table.press(btn.OK)
    assert table.c.ante_marked == 0                     # and off again at once: no guard now


def test_a_second_press_after_the_chord_window_acts(table):
    jackpot_round_settled_with(table, btn.UP, 200)      # not together: UP does its job
    assert table.c.phase == tc.CONFIRM
    table.c.panel(btn.PRESS, btn.OK, table.tick(200))
    assert table.c.phase == tc.RESULTS


def _royal_on_the_board(tmp_path):
    """A board-level table (the real panel's pins) whose seat 1 holds a royal flush, every
    card in, the key on: SETTLE goes to CONFIRM.  Returns the rig, its controller, pins."""
    from host_tests.test_table_payout import BoardRig

    b = BoardRig(tmp_path)
    b.ram_clear()
    b.chip(1)
    b.chip(1, ante=True)
    b.press("LOCK")
    for line in ("S1 Ah", "S1 Kh", "D 9c", "D 9s", "B Qh", "B Jh", "B Th", "B 4c", "B 9d"):
        b.shoe(line)
    b.key(True)
    return b, b.app.controller, b.table.buttons


def _stopped_at_confirm_then_paid(b, c):
    """Both buttons let go: CONFIRM, nothing paid; the supervisor's own OK pays."""
    b.run(100)
    assert c.phase == tc.CONFIRM and events_of(c.memory, ev.JACKPOT_HIT) == []
    b.press("OK")
    assert c.phase == tc.RESULTS and len(events_of(c.memory, ev.JACKPOT_HIT)) == 1


@pytest.mark.parametrize("gap_ms", [0, 20, 40])
def test_settle_and_ok_pressed_together_on_the_real_panel_stop_at_confirm(tmp_path, gap_ms):
    b, c, pins = _royal_on_the_board(tmp_path)
    pins["SETTLE"].press()
    b.run(gap_ms)                                       # OK a moment later, SETTLE held
    pins["OK"].press()
    b.run(100)
    pins["SETTLE"].release()
    pins["OK"].release()
    _stopped_at_confirm_then_paid(b, c)


@pytest.mark.parametrize("stall_ms", [110, 300])
@pytest.mark.parametrize("ok_seen", ["with_settle", "after_the_stall"])
def test_settle_and_ok_pressed_together_while_the_commit_stalls_the_loop_stop_at_confirm(
        tmp_path, stall_ms, ok_seen):
    # On a board the tick that commits critical memory takes about 110 ms (docs/performance.md):
    # an OK hit with SETTLE is reported by the panel only after that time (its press still
    # bouncing when SETTLE's was taken, or made during it), so the chord window must count
    # from the end of that tick, not from SETTLE's press, or OK pays the jackpot unseen.
    b, c, pins = _royal_on_the_board(tmp_path)
    real_commit = c.memory.commit_admin

    def slow_commit(*args, **kwargs):
        result = real_commit(*args, **kwargs)
        b.now += stall_ms                       # the flash write's time...
        pins["OK"].press()                      # ...in which the palm's OK is down
        return result

    c.memory.commit_admin = slow_commit
    pins["SETTLE"].press()
    if ok_seen == "with_settle":
        b.run(40)                               # SETTLE's press is one poll from being taken
        assert c.phase == tc.LOCKED
        pins["OK"].press()                      # OK goes down: seen by that poll
    b.run(60)
    c.memory.commit_admin = real_commit
    assert c.phase != tc.LOCKED
    b.run(200)
    pins["SETTLE"].release()
    pins["OK"].release()
    _stopped_at_confirm_then_paid(b, c)


def test_the_controllers_scroll_mask_is_the_panels_up_and_down():
    # controller._SCROLL is written as a number (a const of this module's own); the panel's
    # button numbers are firmware.drivers.buttons'
    assert tc._SCROLL == (1 << btn.UP) | (1 << btn.DOWN)
