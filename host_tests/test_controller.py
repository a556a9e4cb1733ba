"""The round controller, driven the way the dealer and the supervisor drive it.

Expected amounts are worked out by hand from the default jackpot configuration
(firmware/jackpot/config.py: 100-cent wager, 70% to the pool) with the reset (seed) amount
set to $10,000.00 (SEEDED: rules.md makes the reset an operator option, off by default), and
the pay table of rules.md 11.9 (royal: 10,000 to 1 or 100% of the pool, whichever is greater).
"""

import sys

import pytest

from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store import record
from firmware.store.critical import STEP_SETTLE, CriticalMemory
from firmware.store.slots import FileSlot, PathFS
from firmware.table import controller as tc

RESET = 1000000
SEEDED = {"main": {"reset": RESET}}     # the rig's jackpot configuration: a seeded pool
PER_WAGER = 70
LONG_MS = 1000      # the Panel's default long_ms (firmware/drivers/buttons.py)
SHORT_MS = 100      # how long a dealer's short press holds the button


class Table:
    """A controller on critical memory in a temporary directory, with a clock."""

    def __init__(self, directory, game=tc.UTH, jackpot_config=SEEDED):
        self.fs = PathFS(str(directory))
        self.now = 0
        self.game = game
        self.jackpot_config = jackpot_config
        self.boot()

    def boot(self):
        self.memory = CriticalMemory([FileSlot(self.fs, "a.bin"), FileSlot(self.fs, "b.bin")], self.fs)
        self.c = tc.RoundController(self.memory, self.jackpot_config, game=self.game)
        self.c.boot(self.now, 1000 + self.now)
        return self.c

    def tick(self, ms=20):
        self.now += ms
        return self.now

    def press(self, button, long=False):
        """A press as firmware.drivers.buttons.Panel reports it: PRESS, then RELEASE about
        100 ms later; a long press is PRESS, LONG after the panel's long_ms, RELEASE."""
        self.c.panel(btn.PRESS, button, self.tick())
        if long:
            self.c.panel(btn.LONG, button, self.tick(LONG_MS))
        self.c.panel(btn.RELEASE, button, self.tick(SHORT_MS))

    def key(self, on):
        self.c.panel(btn.KEY_ON if on else btn.KEY_OFF, 0, self.tick())

    def chip(self, seat, placed=True, ante=False):
        spot = sens.ante_spot(seat) if ante else sens.jackpot_spot(seat)
        self.c.spot(sens.PLACED if placed else sens.REMOVED, spot, self.tick())

    def deal(self, text_by_dest):
        for dest, text in text_by_dest:
            for card in cards.parse(text):
                self.c.card(dest, card, self.tick())

    def ram_clear(self):
        self.key(True)
        self.press(btn.OK, long=True)
        self.press(btn.OK)
        self.key(False)

    def settle(self):
        """SETTLE, and for a jackpot hand the supervisor's confirmation: the round's results."""
        self.press(btn.SETTLE)
        if self.c.phase == tc.CONFIRM:
            self.key(True)
            self.press(btn.OK)
            self.key(False)

    def screen(self):
        return "\n".join(self.c.view.lines)


def events_of(memory, kind):
    return [e for e in memory.log.events() if e[3] == kind]


def test_blank_memory_is_ram_error_never_a_fresh_pool(tmp_path):
    t = Table(tmp_path)
    assert t.c.phase == tc.RAM_ERROR
    assert "RAM ERROR" in t.screen() and "JACKPOT DISABLED" in t.screen()
    assert t.c.view.meter_fault == "RAM Err"
    assert not t.c.jackpot_open()
    t.press(btn.OK, long=True)              # no key: nothing happens
    assert t.c.phase == tc.RAM_ERROR
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR and "$10000.00" in t.screen()
    t.press(btn.BACK)                       # cancel
    assert t.c.phase == tc.RAM_ERROR
    t.press(btn.OK, long=True)
    t.press(btn.OK)
    assert t.c.phase == tc.OPEN
    assert t.c.view.meter[0] == RESET
    assert len(events_of(t.memory, ev.RAM_CLEAR)) == 1


def test_lock_accepts_only_seats_with_an_ante(table):
    table.chip(1)
    table.chip(1, ante=True)
    table.chip(3)                           # no Ante: not accepted [UTH 11.1]
    assert list(table.c.view.seat_light[:3]) == [lights.PLACED, lights.IDLE, lights.PLACED]
    table.press(btn.LOCK)
    assert table.c.phase == tc.LOCKED
    assert table.c.rec.accepted == 0b1
    assert list(table.c.view.seat_light[:3]) == [lights.ACCEPTED, lights.LOCKED, lights.LOCKED]
    assert table.c.view.meter[0] == RESET + PER_WAGER
    assert "No Ante, no JP:\nseats 3" in table.screen()
    lock = events_of(table.memory, ev.LOCK)[-1]
    assert lock[5] == 0b1 and lock[6] == 100


def test_panel_marks_ante_when_table_has_no_ante_sensors(table):
    table.chip(2)
    table.press(btn.UP)                     # cursor to seat 2
    table.press(btn.OK)                     # dealer confirms seat 2's Ante
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0b10


def test_button_mashed_locks_once(table):
    table.chip(1)
    table.chip(1, ante=True)
    for _ in range(10):
        table.press(btn.LOCK)
    assert table.c.view.meter[0] == RESET + PER_WAGER
    assert len(events_of(table.memory, ev.LOCK)) == 1


def test_late_chip_flashes_and_is_not_accepted(table):
    table.press(btn.LOCK)
    table.chip(4)
    assert table.c.view.seat_light[3] == lights.LATE
    assert "late bet" in table.screen()
    assert table.c.view.meter[0] == RESET
    table.chip(4, placed=False)
    assert table.c.view.seat_light[3] == lights.LOCKED


def test_chip_removed_after_lock_is_tamper_and_logged(table):
    table.chip(5)
    table.chip(5, ante=True)
    table.press(btn.LOCK)
    table.chip(5, placed=False)
    assert table.c.view.seat_light[4] == lights.TAMPER
    assert "TAMPER seat 5" in table.screen()
    assert [e[4] for e in events_of(table.memory, ev.TAMPER)] == [5]


def test_faulty_sensor_is_reported_not_counted(table):
    table.chip(6)
    table.chip(6, ante=True)
    table.c.spot(sens.FAULT, sens.jackpot_spot(6), table.tick())
    assert table.c.view.seat_light[5] == lights.FAULT
    assert "FAULT" in table.screen()
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0


def test_spots_in_fault_at_once_are_all_named_on_the_display(table):
    # One spot in fault is named with why; when another seat's spot goes into fault while it
    # lasts (a pass may bring several: a flexed cable), the display names every seat in fault,
    # not the last one alone (the rings show each, the log has each with its reason)
    table.c.spot(sens.FAULT, sens.jackpot_spot(2), table.tick(), sens.CHATTER)
    assert "Seat 2 JP spot\nFAULT chatter" in table.screen()
    table.c.spot(sens.FAULT, sens.ante_spot(5), table.tick(), sens.STUCK)
    assert "Spot FAULT seats\n25" in table.screen()
    table.c.spot(sens.FAULT, sens.jackpot_spot(7), table.tick(), sens.CHATTER)
    assert "Spot FAULT seats\n257" in table.screen()
    assert [e[4:6] for e in events_of(table.memory, ev.SENSOR_FAULT)] == [(2, 1), (5, 2), (7, 1)]
    assert [table.c.view.seat_light[s] for s in (1, 4, 6)] == [lights.FAULT] * 3


def test_bad_cards_are_refused_with_the_reason(table):
    table.c.card(1, 0, table.tick())          # bets still open: the dealer forgot LOCK
    assert "Card refused\nLOCK first" in table.screen()
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.deal([(1, "As Ks")])
    table.c.card(1, cards.parse("Qs")[0], table.tick())
    assert "seat 1 full" in table.screen()
    table.c.card(8, cards.parse("As")[0], table.tick())
    assert "As twice" in table.screen()
    table.c.card(9, 5, table.tick())
    assert "bad dest 9" in table.screen()
    table.c.card(8, 77, table.tick())
    assert "bad card 77" in table.screen()
    assert table.c._cards_of(table.c.rec.board) == []


def test_a_card_for_a_seat_the_table_does_not_have_says_so(tmp_path):
    # A five-seat table (file "seats": 5) and a shoe that still sends S6: the dealer must read
    # that seat 6 is not at this table, not "bad dest 6".
    t = Table(tmp_path)
    t.ram_clear()
    t.c = tc.RoundController(t.memory, SEEDED, seats=5)
    t.c.boot(t.now, 1000 + t.now)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.c.card(6, cards.parse("As")[0], t.tick())
    assert t.c.last_refusal == "Card refused: S6 not in play"
    t.c.card(9, 5, t.tick())
    assert "bad dest 9" in t.screen()
    assert t.c._hole(5) == []


def test_cards_dealt_to_a_spot_without_a_wager_are_discarded(table):
    # rules.md 5 [FCP 11.4, BRS 6.9]: cards dealt to a spot without a wager are discarded and
    # play continues.  A UTH hand needs an Ante [UTH 3.1], which the Ante sensors see.
    table.chip(1)
    table.chip(1, ante=True)
    table.chip(2, ante=True)                     # seat 2: Ante, no jackpot wager
    table.press(btn.LOCK)
    table.deal([(1, "As Ks"), (2, "2c 3d"), (5, "Qh Jh")])
    assert table.c.last_refusal == "Card refused: S5 no wager"
    assert table.c._hole(4) == [] and table.c._hole(1) == cards.parse("2c 3d")
    # the discarded cards are no part of the round: the deal goes on
    table.deal([(0, "9c 9h"), (8, "Qs Js Ts 6h 7h")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.CONFIRM          # seat 1's royal
    assert not any(line.startswith("S5") for line in table.c.results)


def test_a_spot_whose_wager_the_table_cannot_see_keeps_its_cards(table):
    # Where the table cannot know a seat has no wager, its cards are taken: an Ante marked on
    # the panel, an Ante sensor in fault, an accepted jackpot wager whose Ante chip the
    # sensors lost after LOCK.
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.UP)
    table.press(btn.UP)                          # cursor to seat 3
    table.press(btn.OK)                          # the dealer marks seat 3's Ante
    table.c.spot(sens.FAULT, sens.ante_spot(4), table.tick(), sens.STUCK)
    table.press(btn.LOCK)
    table.chip(1, placed=False, ante=True)
    table.deal([(1, "As Ks"), (3, "2c 3d"), (4, "4c 5d")])
    assert [len(table.c._hole(s)) for s in (0, 2, 3)] == [2, 2, 2]


def test_a_table_that_cannot_see_every_wager_keeps_every_seats_cards(tmp_path):
    # Four Card Poker: Aces Up may be played alone [FCP 5.1]; a table without Ante sensors
    # knows only the seats the dealer marks.
    (tmp_path / "fcp").mkdir()
    (tmp_path / "uth").mkdir()
    fcp = new_table(tmp_path / "fcp", tc.FCP)
    fcp.press(btn.LOCK)
    fcp.deal([(3, "Ah Ad 7c 5s 2d")])
    assert len(fcp.c._hole(2)) == 5
    t = Table(tmp_path / "uth")
    t.c.ante_sensors = False
    t.ram_clear()
    t.press(btn.LOCK)
    t.deal([(3, "Ah Ad")])
    assert len(t.c._hole(2)) == 2


def test_a_card_dealt_twice_is_logged_once_a_round_and_kept_for_the_technician(table):
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.deal([(1, "As Ks")])
    ace, king = cards.parse("As Ks")
    table.c.card(8, ace, table.tick())           # a fouled deck: the ace of spades again
    assert table.c.last_refusal == "Card refused: As twice"
    assert [e[4:6] for e in events_of(table.memory, ev.CARD_DUPLICATE)] == [(8, ace)]
    table.c.card(0, king, table.tick())          # more in the same round: shown, not logged
    assert "Ks twice" in table.screen()
    assert len(events_of(table.memory, ev.CARD_DUPLICATE)) == 1
    table.c.card(1, cards.parse("Qs")[0], table.tick())   # not a duplicate: not logged
    assert table.c.last_refusal == "Card refused: seat 1 full"
    assert len(events_of(table.memory, ev.CARD_DUPLICATE)) == 1


def test_settle_needs_the_flop_and_the_jackpot_seats_cards(table):
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.deal([(8, "2c 3d")])
    table.press(btn.SETTLE)
    assert "flop 2/3" in table.screen() and table.c.phase == tc.LOCKED
    table.deal([(8, "4h")])
    table.press(btn.SETTLE)
    assert "need seat 1 hand" in table.screen() and table.c.phase == tc.LOCKED
    # the flop and the hole cards make the jackpot hand, but a seat may still fold at the
    # river, and the jackpot goes only to a seat that made its Play wager [UTH 10.2, 11.12]
    table.deal([(1, "9c 9d")])
    table.press(btn.SETTLE)
    assert "Cannot settle\nboard 3/5" in table.screen() and table.c.phase == tc.LOCKED
    table.deal([(8, "Kh 7s")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS


def test_results_without_the_dealers_cards_name_the_hand_on_the_whole_board(table):
    """A UTH round settles once the river is dealt, with or without the dealer's cards (the
    jackpot needs none of them): each seat's line names the hand it holds on the whole board,
    with no verdict, not the hand it held on the flop."""
    table.chip(1)
    table.chip(1, ante=True)
    table.chip(2, ante=True)
    table.press(btn.LOCK)
    # seat 1: 2h 7h + Qh Jh 4h is a flush with the turn (hole2_board3 and best5of7 alike);
    # on the flop (Qh Jh 3c) it was a high card
    table.deal([(1, "2h 7h"), (2, "Ac Ad"), (8, "Qh Jh 3c 4h 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS
    assert table.c.results == ["S1 Flush", "S2 One Pair"]


def lock_seats(table, seats):
    """Each seat puts its jackpot chip and its Ante down, then the dealer presses LOCK."""
    for seat in seats:
        table.chip(seat)
        table.chip(seat, ante=True)
    table.press(btn.LOCK)


def royal_round(table, seats=(1, 3)):
    lock_seats(table, seats)
    table.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)


def test_royal_waits_for_the_supervisor_then_pays_the_whole_pool(table):
    royal_round(table)
    assert table.c.phase == tc.CONFIRM
    assert table.c.view.seat_light[0] == lights.WINNER
    assert "$10001.40" in table.screen()
    table.press(btn.OK)                    # no key
    assert table.c.phase == tc.CONFIRM and "Supervisor key" in table.screen()
    table.key(True)
    table.press(btn.OK)
    assert table.c.phase == tc.RESULTS
    # 100% of the pool (1,000,140) beats 10,000 to 1 on 100 cents (1,000,000) [11.9]
    assert table.c.view.win == (0, 1, RESET + 2 * PER_WAGER, RESET)
    assert table.c.view.meter[0] == RESET
    assert [e[4:7] for e in events_of(table.memory, ev.JACKPOT_HIT)] == [
        (1, 4, RESET + 2 * PER_WAGER)]
    assert len(events_of(table.memory, ev.SUPERVISOR_CONFIRM)) == 1
    assert "S1 Royal Flush" in table.screen()
    table.press(btn.SETTLE)
    assert table.c.phase == tc.OPEN and table.c.rec.round_no == 2


def test_the_reset_after_a_royal_logs_the_operators_money(table):
    # The royal took the whole pool: the reset amount came from the operator (no reserve). The
    # log must say so, in the settle's commit, as the store's operator addition (pool, amount)
    royal_round(table)
    table.key(True)
    table.press(btn.OK)
    assert table.c.phase == tc.RESULTS
    assert [e[4:7] for e in events_of(table.memory, ev.OPERATOR_ADDITION)] == [(0, 0, RESET)]
    settle = events_of(table.memory, ev.SETTLE)[-1]
    assert events_of(table.memory, ev.OPERATOR_ADDITION)[0][2] == settle[2]     # same round


def test_folded_seat_cannot_win_the_jackpot(table):
    for seat in (1, 3):
        table.chip(seat)
        table.chip(seat, ante=True)
    table.press(btn.LOCK)
    table.press(btn.OK)                    # seat 1 folds [UTH 10.2]
    table.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS
    assert table.c.view.meter[0] == RESET + 2 * PER_WAGER
    assert "S1 fold" in table.screen()


def test_a_folded_seats_line_names_the_hand_its_side_bet_is_settled_on(tmp_path):
    # A fold still settles UTH's Trips [UTH 10.3] and Big Raise Stud's Three Card Extra, on the
    # player's own three cards [rules.md 4, BRS 4.1-4.2]: the dealer reads that hand on the
    # results instead of from the cards.  BRS seat 1 holds A-K-7: three aces with the board,
    # but its own three cards are only ace high.
    for game in ("brs", "uth"):
        (tmp_path / game).mkdir()
    t = new_table(tmp_path / "brs", tc.BRS)
    for seat in (1, 2):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.press(btn.OK)                                   # seat 1 folds
    t.deal([(1, "Ah Kh 7c"), (2, "Kc Qd 2h"), (8, "Ac Ad")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS and "S1 fold High" in t.c.results
    # UTH: a folded straight flush (9h 8h with 7h 6h 5h) is named at its shortest, never cut
    u = new_table(tmp_path / "uth", tc.UTH)
    u.chip(1, ante=True)
    u.press(btn.LOCK)
    u.press(btn.OK)                                   # seat 1 folds
    u.deal([(1, "9h 8h"), (8, "7h 6h 5h 2c 3d"), (0, "Kc Kd")])
    u.press(btn.SETTLE)
    assert u.c.phase == tc.RESULTS and "S1 fold SF" in u.c.results


def test_restart_after_lock_resumes_the_round(table):
    table.chip(2)
    table.chip(2, ante=True)
    table.press(btn.LOCK)
    c = table.boot()
    assert c.phase == tc.LOCKED and c.rec.accepted == 0b10 and c.rec.round_no == 1
    assert c.view.meter[0] == RESET + PER_WAGER


def test_a_program_fault_at_boot_refuses_the_ram_clear_that_would_wipe_good_memory(table,
                                                                                 monkeypatch):
    """A linked table whose link code the VM cannot load (a damaged .mpy) stops in RAM ERROR
    'PROGRAM ERROR - cannot load ...': its critical memory is good (a locked round, the
    meters).  The display said KEY+long OK: RAM clear, and the clear wiped the round and
    the meters for a fault no RAM clear mends.  It is refused, as with CONFIG ERROR, and the
    display says to fix the program first; once fixed, the boot resumes the round."""
    from firmware import heap

    lock_seats(table, (1,))
    table.memory = CriticalMemory([FileSlot(table.fs, "a.bin"), FileSlot(table.fs, "b.bin")],
                                  table.fs)
    table.c = tc.RoundController(table.memory, SEEDED)
    table.c.link_factory = object()

    def cannot_load():
        raise heap.not_loaded("firmware.table.linked", ValueError("incompatible .mpy file"))

    monkeypatch.setattr(table.c, "_start_link", cannot_load)
    table.c.boot(table.now, 1000 + table.now)
    assert table.c.phase == tc.RAM_ERROR and "PROGRAM ERROR" in table.screen()
    assert "RAM clear" not in table.screen().split("\n")[6]
    table.key(True)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.RAM_ERROR
    table.press(btn.OK)
    assert table.c.phase == tc.RAM_ERROR and "RAM clear failed\nPROGRAM ERROR" in table.screen()
    assert table.memory.round_no == 1 and table.memory.step != STEP_SETTLE
    monkeypatch.undo()
    table.boot()                            # the program put right: the round resumes
    assert table.c.phase == tc.LOCKED


def test_a_round_locked_before_the_seats_were_cut_can_still_be_dealt_and_settled(table):
    """Seats 1 and 6 have jackpot wagers; the power goes before any card and the file now
    says 5 seats.  Seat 6's wager is in the pool: the display lists it, the shoe's cards
    for it are taken and the cursor reaches it (to fold it), so the round settles, rather
    than wait for a hand no card can be given to until the supervisor voids every wager."""
    lock_seats(table, (1, 6))
    table.memory = CriticalMemory([FileSlot(table.fs, "a.bin"), FileSlot(table.fs, "b.bin")],
                                  table.fs)
    table.c = tc.RoundController(table.memory, SEEDED, seats=5)
    table.c.boot(table.now, 1000 + table.now)
    assert "JP 16" in table.screen()
    table.deal([(1, "As Ks"), (8, "Qs Js Ts 3h 4h"), (6, "2c")])
    assert "need seat 6 hand" in table.screen() and "refused" not in table.screen()
    table.press(btn.DOWN)                   # from seat 1 down: seat 6, past the file's five
    assert "S6 2c" in table.screen()
    table.press(btn.OK)                     # its player folds
    assert "FOLDED" in table.screen() and "need nothing" in table.screen()
    table.settle()
    assert table.c.phase == tc.RESULTS and "S1 Royal Flush" in table.c.results
    table.press(btn.SETTLE)                 # the next round has the file's five seats
    assert "sel S1" in table.screen()
    table.press(btn.DOWN)
    assert "sel S5" in table.screen()

def test_a_jackpot_seats_fold_survives_a_power_cut_that_keeps_the_rounds_cards(table):
    """Seat 1 folds at the river after the supervisor voided seat 2, whose commit saved the
    round's cards.  The power goes: the round resumes with every card in, the display says
    SETTLE again, and seat 1's fold must still be there, or SETTLE would offer its flush the
    jackpot, which a folded seat cannot win [UTH 10.2]."""
    lock_seats(table, (1, 2, 3))
    table.deal([(1, "Ah Kh"), (2, "2c 7d"), (3, "9c 9d"), (8, "Qh 2h 3h 4c 5d"), (0, "8c 8d")])
    table.press(btn.UP)                     # cursor to seat 2
    table.key(True)
    table.press(btn.BACK)                   # void seat 2: committed with the round's cards
    table.key(False)
    table.press(btn.DOWN)                   # back to seat 1
    table.press(btn.OK)                     # seat 1 folds
    assert table.c.rec.folded == 0b1
    c = table.boot()                        # the power comes back
    assert c.phase == tc.LOCKED and "SETTLE again" in table.screen()
    assert c.rec.folded == 0b1
    table.press(btn.SETTLE)
    assert c.phase == tc.RESULTS and c.hits == []
    assert "S1 fold Flush" in c.results     # Ah Kh with Qh 2h 3h: its Trips is still settled
    assert events_of(table.memory, ev.JACKPOT_HIT) == []


def test_a_fold_whose_commit_fails_is_undone_and_says_so(table, monkeypatch):
    lock_seats(table, (1, 2))
    table.deal([(1, "Ah Kh"), (2, "2c 7d")])
    table.press(btn.UP)
    table.key(True)
    table.press(btn.BACK)                   # void seat 2: the round's cards committed
    table.key(False)
    table.press(btn.DOWN)

    def broken(*args, **kwargs):
        raise OSError("flash write failed")

    monkeypatch.setattr(table.memory, "commit_admin", broken)
    table.press(btn.OK)                     # seat 1, with a jackpot wager, folds
    assert table.c.rec.folded == 0 and "MEMORY FAULT" in table.screen()
    monkeypatch.undo()
    table.press(btn.OK)
    assert table.c.rec.folded == 0b1 and "FOLDED" in table.screen()


def test_a_fold_before_any_card_is_committed_costs_no_flash_write(table):
    """Until the round's cards are in critical memory a power cut loses them with the fold,
    and the resumed round asks for that jackpot seat's hand again: nothing to commit."""
    lock_seats(table, (1,))
    table.deal([(1, "Ah Kh"), (8, "Qh 2h 3h 4c 5d"), (0, "9c 9d")])
    writes = table.memory.log.count, table.memory.seq
    table.press(btn.OK)                     # seat 1 folds
    assert table.c.rec.folded == 0b1
    assert (table.memory.log.count, table.memory.seq) == writes
    c = table.boot()
    # the dealer is told the fold was lost too: a seat not folded again reads as played
    assert c.phase == tc.LOCKED and "redo folds+cards" in table.screen() and c.rec.folded == 0
    table.deal([(8, "Qh 2h 3h 4c 5d")])
    assert "need seat 1 hand" in table.screen()


def confirm_and_fail_the_payout(t, monkeypatch):
    """The supervisor confirms the jackpot hands at CONFIRM (key + OK): the confirmation is
    committed (STEP_CONFIRM), the payout's commit (STEP_SETTLE) fails as a flash write."""
    t.key(True)
    real_commit = t.memory.commit

    def settle_fails(round_no, step, *args, **kwargs):
        if step == STEP_SETTLE:
            raise OSError(5, "flash write failed")
        return real_commit(round_no, step, *args, **kwargs)

    monkeypatch.setattr(t.memory, "commit", settle_fails)
    t.press(btn.OK)
    monkeypatch.undo()


def test_power_cut_between_confirm_and_settle_pays_exactly_once(table, monkeypatch):
    royal_round(table)
    confirm_and_fail_the_payout(table, monkeypatch)
    assert "MEMORY FAULT" in table.screen()
    c = table.boot()                       # power comes back
    assert c.phase == tc.RESULTS
    assert c.view.meter[0] == RESET
    assert len(events_of(table.memory, ev.JACKPOT_HIT)) == 1
    assert c.jackpot.table_meters()["paid"] == RESET + 2 * PER_WAGER


def test_an_unkeyed_program_at_a_keyed_table_stops_before_it_pays_a_confirmed_jackpot(
        table, monkeypatch):
    """A keyed table whose power went between the supervisor's confirmation and the payout,
    booted with its key deleted (an edited program, re-digested): the program the table must
    refuse finished the round first, paying the jackpot and committing it, before it stopped
    in RAM ERROR (the dealer never saw the results).  It stops before any round work now, the
    confirmation still waiting; with the key back the payout is made once."""
    table.memory.key = True
    royal_round(table)
    assert table.memory.keyed
    confirm_and_fail_the_payout(table, monkeypatch)

    def boot(keyed):
        table.memory = CriticalMemory([FileSlot(table.fs, "a.bin"), FileSlot(table.fs, "b.bin")],
                                      table.fs)
        table.memory.key = keyed
        table.c = tc.RoundController(table.memory, table.jackpot_config)
        table.c.unkeyed = not keyed          # the program check passed without the key
        table.c.boot(table.now, 1000 + table.now)
        table.c.set_program(True, "verified" if keyed else "verified (no key)", "d")
        return table.c

    c = boot(False)
    assert c.phase == tc.RAM_ERROR and "no /manifest.key" in c.last_refusal
    assert table.memory.step == 2 and events_of(table.memory, ev.JACKPOT_HIT) == []
    c = boot(True)                          # the key back
    assert c.phase == tc.RESULTS
    assert len(events_of(table.memory, ev.JACKPOT_HIT)) == 1


def test_void_round_reverses_every_contribution(table):
    for seat in (1, 2, 3):
        table.chip(seat)
        table.chip(seat, ante=True)
    table.press(btn.LOCK)
    assert table.c.view.meter[0] == RESET + 3 * PER_WAGER
    table.press(btn.BACK, long=True)       # without the key: nothing
    assert table.c.phase == tc.LOCKED
    table.key(True)
    table.press(btn.BACK, long=True)
    assert table.c.phase == tc.RESULTS and "ROUND VOID" in table.screen()
    assert table.c.view.meter[0] == RESET
    assert table.c.jackpot.audit() == []


def test_a_voided_round_lights_no_ring_as_accepted(table):
    """A misdeal returns every jackpot wager: the rings go dark as a voided seat's does, not
    green ACCEPTED ("the wager is accepted for this round") over the results saying ROUND
    VOID, nor after a power cut that shows those results again."""
    lock_seats(table, (1, 3))
    assert table.c.view.seat_light[0] == lights.ACCEPTED
    table.key(True)
    table.press(btn.BACK, long=True)
    assert "ROUND VOID" in table.screen()
    assert list(table.c.view.seat_light) == [lights.OFF] * 7
    c = table.boot()
    assert c.phase == tc.RESULTS
    assert list(c.view.seat_light) == [lights.OFF] * 7
    table.chip(1)                           # the sensors report the chip left down
    table.press(btn.SETTLE)                 # the next round: it is a chip placed
    assert list(c.view.seat_light[:2]) == [lights.PLACED, lights.IDLE]


def void_seat_1_of_two(table):
    """Seats 1 and 2 with jackpot wagers, locked; the supervisor (key left on) voids seat 1,
    where the cursor is."""
    for seat in (1, 2):
        table.chip(seat)
        table.chip(seat, ante=True)
    table.press(btn.LOCK)
    table.key(True)
    table.press(btn.BACK)


def test_void_seat_returns_that_wager_only(table):
    void_seat_1_of_two(table)
    assert table.c.view.seat_light[0] == lights.OFF
    assert table.c.view.meter[0] == RESET + PER_WAGER
    assert table.c.jackpot.audit() == []
    c = table.boot()
    assert c.rec.voided == 0b1 and c.view.meter[0] == RESET + PER_WAGER


def test_a_voided_seats_chip_handed_back_is_no_tamper(table):
    void_seat_1_of_two(table)               # its wager is returned
    table.key(False)
    assert "JP 2" in table.screen()         # seat 1 is no longer a jackpot seat
    table.chip(1, placed=False)             # the dealer hands the chip back
    assert table.c.tamper == 0 and "TAMPER" not in table.screen()
    assert table.c.view.seat_light[0] == lights.OFF
    assert events_of(table.memory, ev.TAMPER) == []
    table.chip(2, placed=False)             # a live wager's chip taken: still an alarm
    assert "TAMPER seat 2" in table.screen()


def test_a_round_voided_after_a_seat_logs_only_the_seats_it_returns(table):
    void_seat_1_of_two(table)
    table.press(btn.BACK, long=True)        # then the round
    voids = [e[4:7] for e in events_of(table.memory, ev.VOID)]
    # (a: the seat, 0 for the round; b: the seats' mask; c: the wagers returned, 100 cents
    # each by the default configuration)
    assert voids == [(1, 0b01, 100), (0, 0b10, 100)]
    assert table.c.jackpot.audit() == []


def test_supervisor_actions_load_their_code_for_the_action_only(table):
    """Void, configuration and RAM clear run from firmware.table.supervisor, loaded for the
    action and let go after: none of it stays in sys.modules (or in the heap) as play goes on,
    and a failing action lets it go too."""
    name = "firmware.table.supervisor"
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.key(True)
    table.press(btn.BACK)                   # void seat 1
    assert table.c.rec.voided == 0b1 and name not in sys.modules
    table.press(btn.BACK, long=True)        # void the round
    assert table.c.phase == tc.RESULTS and name not in sys.modules
    from firmware.table import handlers

    with pytest.raises(AttributeError):
        handlers.supervised(table.c, "no_such_action")
    assert name not in sys.modules


def test_a_supervisor_action_that_cannot_be_loaded_is_refused_and_changes_nothing(table, monkeypatch):
    """A full heap (here: the module's import fails) refuses the void with the reason on the
    display; the round goes on as it was and the next press voids the seat."""
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.key(True)
    monkeypatch.setitem(sys.modules, "firmware.table.supervisor", None)
    table.press(btn.BACK)
    assert table.c.rec.voided == 0 and table.c.phase == tc.LOCKED
    assert "Cannot load" in table.screen() and "supervisor" in table.c.last_refusal
    monkeypatch.delitem(sys.modules, "firmware.table.supervisor", raising=False)
    table.press(btn.BACK)
    assert table.c.rec.voided == 0b1 and "Seat 1 void" in table.screen()


def test_an_audit_menu_that_cannot_be_loaded_is_refused(table, monkeypatch):
    """Out of heap while the audit menu loads: the supervisor is told, the table stays open."""
    import builtins

    real_import = builtins.__import__

    def no_heap(name, *args, **kwargs):
        if name == "firmware.table" and "audit" in (args[2] or ()):
            raise MemoryError("memory allocation failed, allocating 1168 bytes")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_heap)
    table.key(True)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.OPEN and "Audit not opened" in table.screen()
    assert "allocating 1168 bytes" in table.c.last_refusal
    assert "firmware.table.audit" not in sys.modules
    monkeypatch.undo()
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.AUDIT


def test_audit_menu_shows_meters_and_scrolls(table):
    royal_round(table)
    table.key(True)
    table.press(btn.OK)
    table.press(btn.SETTLE)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.AUDIT
    text = "\n".join(table.c.menu)
    assert "main $10000.00" in text and "last hits 1" in text and "jackpot hit" in text
    table.press(btn.DOWN)
    assert table.c.menu_top == 1
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN


def test_configuration_needs_the_key_and_is_logged(table):
    table.key(True)
    table.press(btn.SETTLE, long=True)
    assert table.c.phase == tc.CONFIG
    table.key(False)
    table.press(btn.OK)
    assert "Supervisor key" in table.screen()
    table.key(True)
    table.press(btn.OK)                     # wager 100 -> 200
    assert table.c.jackpot.config.wager == 200
    change = events_of(table.memory, ev.CONFIG_CHANGE)[-1]
    assert change[4:7] == (100, 100, 200)   # setting 100: the wager (docs/critical-memory.md)
    c = table.boot()
    assert c.jackpot.config.wager == 200


def test_test_mode_cycles_every_pattern(table):
    table.key(True)
    table.press(btn.LOCK, long=True)
    assert table.c.phase == tc.TEST
    seen = set()
    for _ in range(len(lights.STATE_NAMES)):
        seen.update(table.c.view.seat_light)
        table.press(btn.OK)
    assert seen == set(range(1, len(lights.STATE_NAMES)))
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN


def test_door_open_is_logged_and_shown(table):
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    assert "DOOR OPEN" in table.screen()
    assert len(events_of(table.memory, ev.DOOR_OPEN)) == 1      # at once
    table.c.panel(btn.DOOR_CLOSED, 0, table.tick(tc._DOOR_LOG_MS))
    assert len(events_of(table.memory, ev.DOOR_CLOSE)) == 1


def test_a_flapping_door_switch_is_counted_not_logged_change_by_change(table):
    start = table.tick()
    table.c.panel(btn.DOOR_OPEN, 0, start)
    for i in range(50):                                   # a loose switch: 50 changes in 5 s
        table.c.panel(btn.DOOR_CLOSED if i % 2 == 0 else btn.DOOR_OPEN, 0, table.tick(100))
    door = events_of(table.memory, ev.DOOR_OPEN) + events_of(table.memory, ev.DOOR_CLOSE)
    assert len(door) == 1                                 # the first change only, so far
    table.c.tick(start + tc._DOOR_LOG_MS, 2000)
    door = events_of(table.memory, ev.DOOR_OPEN) + events_of(table.memory, ev.DOOR_CLOSE)
    # then one entry: the door's state now (open after an even number of changes) and the count
    assert [(e[3], e[4], e[5]) for e in door] == [(ev.DOOR_OPEN, 1, 0), (ev.DOOR_OPEN, 1, 50)]


def failing_commits(table):
    """Both copies refuse every admin commit (EIO) from now: the times of the writes tried,
    and the store's own commit_admin to put back."""
    writes = []
    commit_admin = table.memory.commit_admin

    def failing(*args, **kwargs):
        writes.append(table.now)
        raise OSError(5, "EIO")

    table.memory.commit_admin = failing
    return writes, commit_admin


def test_a_store_that_cannot_commit_is_not_retried_every_tick_for_the_door(table):
    # Both copies refuse the DOOR_OPEN entry's commit: MEMORY FAULT is shown, and the entry
    # waits _DOOR_LOG_MS like a written one (as the shoe's log), not a failing write and an
    # alarm at every 20 ms tick; once the store works it is written, the changes counted.
    writes, commit_admin = failing_commits(table)
    start = table.tick()
    table.c.panel(btn.DOOR_OPEN, 0, start)
    assert "MEMORY FAULT" in table.c.last_refusal
    while table.now < start + tc._DOOR_LOG_MS - 20:
        table.c.tick(table.tick(), 2000)
    assert len(writes) == 1
    table.memory.commit_admin = commit_admin
    table.c.tick(table.tick(), 2000)                      # the interval is up: written now
    assert [(e[3], e[4]) for e in events_of(table.memory, ev.DOOR_OPEN)] == [(ev.DOOR_OPEN, 1)]
    assert "DOOR OPEN" in table.screen()


def test_entries_held_in_a_pass_go_in_its_lock_commit_not_a_failed_one_of_their_own(table):
    # Under the App (batch) the entries of a pass are held for one commit.  Committed on
    # their own before the LOCK's, a failure of theirs read the jackpot back as committed,
    # dropping the LOCK's contribution in RAM, and the LOCK then committed the round's wagers
    # with none of their money in the pool.  They go in the LOCK's commit.
    c = table.c
    c.batch = True
    table.chip(1)
    table.chip(1, ante=True)
    c.panel(btn.DOOR_OPEN, 0, table.tick())   # held for the pass's commit
    writes, commit_admin = failing_commits(table)   # an admin commit would fail; a round's works
    table.press(btn.LOCK)
    table.memory.commit_admin = commit_admin
    c.tick(table.tick(), 2000)
    assert c.rec.accepted == 1 and c.jackpot.value[0] == RESET + PER_WAGER
    assert writes == []
    assert [e[4] for e in events_of(table.memory, ev.DOOR_OPEN)] == [1]
    assert table.boot().jackpot.value[0] == RESET + PER_WAGER


def test_a_tamper_after_a_failed_commit_goes_in_the_next_commit_not_lost_to_a_power_cut(
        table, monkeypatch):
    # Under the App (batch) a failed commit of held entries (MEMORY FAULT) made the entries
    # held after it wait for its retry, 10 s on, though the flash worked again: the logic
    # door opened, then the accepted chip taken and the power cut within those 10 s, and
    # the log never had the tamper nor the door.  A new entry is now tried at its pass.
    c = table.c
    c.batch = True
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    assert c.rec.accepted == 1
    writes = []
    refusing = [True]
    real_open = table.fs.open

    def open_(name, mode):                         # both copies refuse their writes
        if "w" in mode:
            writes.append(name)
            if refusing[0]:
                raise OSError(5, "flash write failed")
        return real_open(name, mode)

    monkeypatch.setattr(table.fs, "open", open_)
    c.panel(btn.DOOR_OPEN, 0, table.tick())
    c.tick(table.tick(), 2000)
    assert "MEMORY FAULT" in c.last_refusal and writes
    tried = len(writes)
    for _ in range(100):                           # 2 s: not written again at every pass
        c.tick(table.tick(), 2000)
    assert len(writes) == tried
    refusing[0] = False                            # the flash works again
    table.chip(1, placed=False)                    # the accepted chip taken: a tamper
    c.tick(table.tick(), 2000)
    c = table.boot()                               # the power cut a pass later
    assert [e[4] for e in events_of(table.memory, ev.DOOR_OPEN)] == [1]
    assert [e[4] for e in events_of(table.memory, ev.TAMPER)] == [1]


def test_link_down_closes_jackpot_wagering_on_a_linked_table(table):
    table.c.link_required = True
    table.c.link(False, table.tick())
    assert table.c.view.meter_fault == "LINK dn"
    table.chip(1)
    table.chip(1, ante=True)
    assert table.c.view.seat_light[0] == lights.LOCKED
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0 and "JP CLOSED LINK\nno wagers taken" in table.screen()


def test_seat_7_ante_is_on_the_second_port(table):
    assert sens.ante_spot(7) == 14              # GPB6 on the reference wiring (docs/wiring.md)
    table.chip(7)
    table.chip(7, ante=True)
    table.c.spot(sens.PLACED, 7, table.tick())  # GPA7 is not a spot: ignored
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0b1000000


def test_holding_up_repeats_the_cursor_but_not_other_buttons(table):
    table.c.panel(btn.REPEAT, btn.UP, table.tick())
    table.c.panel(btn.REPEAT, btn.UP, table.tick())
    assert table.c.cursor == 2
    table.c.panel(btn.REPEAT, btn.LOCK, table.tick())
    assert table.c.phase == tc.OPEN


def test_the_audit_menu_says_a_program_not_checked_is_not_checked_not_ok(table):
    # no boot check was made (the simulated board): "program ok" above "not checked" read as
    # a check passed
    table.key(True)
    table.press(btn.OK, long=True)
    lines = list(table.c.menu.fixed)
    at = lines.index("program")
    assert lines[at + 1].startswith("not checked") and "program ok" not in lines
    table.press(btn.BACK)
    table.c.set_program(True, "ok build 7", "ab12")
    table.press(btn.OK, long=True)
    lines = list(table.c.menu.fixed)
    assert "program ok" in lines and "program" not in lines


def test_failed_program_check_closes_the_jackpot_and_says_why(table):
    table.c.set_program(False, "changed-file firmware/app.mpy", "ab12")
    assert not table.c.jackpot_open()
    assert "PROGRAM ERROR" in table.screen()
    assert table.c.view.meter_fault == "PrOG Err"
    table.key(True)
    table.press(btn.OK, long=True)
    assert "program FAILED" in table.c.menu
    assert any("changed-file" in line for line in table.c.menu)
    table.press(btn.BACK)
    table.key(False)
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0


def test_bad_configuration_file_closes_the_jackpot_and_says_why(table):
    table.c.set_config_status(False, "config file: jackpot.wager: -5 is not an integer in 1..100000")
    assert not table.c.jackpot_open()
    assert "CONFIG ERROR" in table.screen()
    assert table.c.view.meter_fault == "CONF Err"
    table.key(True)
    table.press(btn.OK, long=True)
    assert "config FAILED" in table.c.menu
    assert "jackpot.wager: -5" in "".join(table.c.menu)


def test_a_failed_admin_commit_puts_the_committed_jackpot_back(table, monkeypatch):
    before = table.c.jackpot.config.wager
    table.c.jackpot.set_config({"wager": 500})

    def broken(*args, **kwargs):
        raise OSError("flash write failed")

    monkeypatch.setattr(table.memory, "commit_admin", broken)
    problem = table.c.commit_admin([(ev.CONFIG_CHANGE, 1, before, 500)], table.c.jackpot_sections())
    assert problem == "flash write failed"
    assert table.c.jackpot.config.wager == before
    assert "MEMORY FAULT" in table.screen()


class _AnyBytearray(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, bytearray)


class ScarceHeap(metaclass=_AnyBytearray):
    """What `bytearray` is to a module while the heap, fragmented by hours of play, has no
    piece of `limit` bytes (None: any size is there): a MemoryError as MicroPython's."""

    limit = None

    def __new__(cls, *args):
        if cls.limit is not None and args and isinstance(args[0], int) and args[0] >= cls.limit:
            raise MemoryError("memory allocation failed, allocating %d bytes" % args[0])
        return bytearray(*args)


def scarce_heap(monkeypatch, *modules):
    """ScarceHeap as the `bytearray` of each module (the store, the jackpot writer's codec,
    the controller): its limit set by the test, None until then."""
    monkeypatch.setattr(ScarceHeap, "limit", None)
    for module in modules:
        monkeypatch.setattr(module, "bytearray", ScarceHeap, raising=False)
    return ScarceHeap


ENVY_SPLIT = {"split": True, "wager": 500, "minor": {"reset": 500000}, "major": {"reset": 5000000},
              "envy": {"royal_flush": 50000, "straight_flush": 5000, "four_of_a_kind": 1000,
                       "full_house": 500, "flush": 100}}


def test_a_record_that_grows_in_play_needs_no_new_buffer_at_a_rounds_commit(tmp_path, monkeypatch):
    # split pools with an envy bonus: the record passed the 2,048-byte buffers made at boot at
    # the 26th royal round, and the SETTLE commit allocated two 2,398-byte ones: on a heap
    # fragmented by then it failed, MEMORY FAULT, the round LOCKED until a restart
    from firmware.jackpot import codec
    from firmware.store import critical
    from host_tests.test_service import royal_round

    heap = scarce_heap(monkeypatch, critical, codec, tc)
    t = Table(tmp_path, jackpot_config=ENVY_SPLIT)

    def chip(seat, placed=True):        # (test_service's: an Ante with the jackpot chip)
        Table.chip(t, seat, placed)
        Table.chip(t, seat, placed, ante=True)

    t.chip = chip
    t.ram_clear()               # the table set up: its buffers made for its configuration
    heap.limit = 1024           # then no kilobyte in one piece
    kept = (id(t.memory._buf), id(t.memory._scratch), id(t.c._jp_writer.buf))
    longest = 0
    for _ in range(40):
        royal_round(t)          # SETTLE, the confirmation, the results: every one committed
        t.chip(1, False)
        t.chip(3, False)
        longest = max(longest, t.memory._length)
    assert "MEMORY FAULT" not in t.c.last_refusal
    assert t.memory.round_no == 40 and t.memory.step == STEP_SETTLE and longest > 2048
    assert len(t.c.jackpot.hits) == 25
    assert {id(t.memory._buf), id(t.memory._scratch)} == set(kept[:2])
    assert id(t.c._jp_writer.buf) == kept[2]


def test_a_ram_clear_without_room_for_its_records_buffers_is_refused(tmp_path, monkeypatch):
    from firmware.jackpot import codec
    from firmware.store import critical

    heap = scarce_heap(monkeypatch, critical, codec, tc)
    # no room for them when the table is set up either (it makes them then, for a RAM clear)
    heap.limit = critical.RECORD_CAPACITY + 1
    t = Table(tmp_path, jackpot_config=ENVY_SPLIT)      # blank memory: RAM ERROR
    assert heap.limit == len(t.memory._buf) + 1
    t.ram_clear()
    assert t.c.phase == tc.RAM_ERROR and "RAM clear failed" in t.c.last_refusal
    assert t.memory.ram_error and t.memory.seq == 0
    heap.limit = None
    t.ram_clear()
    assert t.c.phase == tc.OPEN and len(t.memory._buf) > 2048


def void_cursor_seat(t):
    """The supervisor's key + BACK: the cursor seat voided (its commit takes the round's cards)."""
    t.key(True)
    t.press(btn.BACK)
    t.key(False)


def new_table(tmp_path, game):
    t = Table(tmp_path, game)
    t.ram_clear()
    return t


def test_four_card_poker_round_best_four_against_the_dealers_four_of_six(tmp_path):
    t = new_table(tmp_path, tc.FCP)
    assert "FOUR CARD POKER" in t.screen()
    t.chip(1, ante=True)
    assert t.c.view.seat_light[0] == lights.PLACED
    t.chip(2, ante=True)
    t.chip(3, ante=True)
    t.press(btn.LOCK)
    assert t.c.view.meter_slots == ()                 # no progressive in this game: no pool shown
    t.deal([(1, "Ah Ad As 9c 4h"), (2, "Qc Jd 8h 6s 2c"), (3, "Kh Ks 7d 5c 3h"),
            (0, "Kc Kd 7h 5s 3c")])
    t.c.card(1, cards.parse("2h")[0], t.tick())
    assert "seat 1 full" in t.screen()                # five cards a seat [FCP 8.2]
    t.c.card(8, cards.parse("2h")[0], t.tick())
    assert "no board" in t.screen()
    t.press(btn.SETTLE)
    assert "dealer 5/6" in t.screen() and t.c.phase == tc.LOCKED
    t.deal([(0, "2d")])                               # the dealer's sixth card [FCP 8.3]
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS
    # Dealer K-K-7-5 (best four of six); seat 3 ties it and wins the tie [FCP 10.2].  Seat 1's
    # three aces reach the Aces Up table (trips) as well [FCP 5.7].
    assert t.c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips",
                           "S2 High L", "S3 One Pair W"]
    assert t.c.view.seat_light[0] == lights.LOCKED
    c = t.boot()                                      # the round is closed in critical memory
    # after a power cut its results come back (the dealer may not have paid it yet)
    assert c.phase == tc.RESULTS and c.rec.round_no == 1
    assert c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips",
                         "S2 High L", "S3 One Pair W"]
    assert "before power cut" in t.screen()
    t.press(btn.SETTLE)
    assert c.phase == tc.OPEN and c.rec.round_no == 2


def test_big_raise_stud_round_reads_the_risk_raise_table(tmp_path):
    t = new_table(tmp_path, tc.BRS)
    assert "BIG RAISE STUD" in t.screen()
    for seat in (1, 2, 3, 4):
        t.chip(seat, ante=True)              # each seat's Risk bet [BRS 3.1]
    t.press(btn.LOCK)
    t.c.card(0, cards.parse("2c")[0], t.tick())
    assert "no dealer hand" in t.screen()
    t.deal([(8, "Th 9h"), (1, "Ah Kh Qh"), (2, "Tc 4d 2s"), (3, "7c 7d 2h"), (4, "3c 4s")])
    t.press(btn.SETTLE)
    assert "seat 4 2/3" in t.screen()
    t.deal([(4, "6d")])
    t.press(btn.SETTLE)
    # Flush 6 to 1, pair of tens 1 to 1, pair of sevens pushes, high card loses [BRS 5.2-5.4].
    # The Three Card Extra reads the seat's own three: A-K-Q of hearts a straight flush, 7-7-2
    # a pair; 10-4-2 and 3-4-6 reach no line [rules.md 4].
    assert t.c.results == ["S1 Flush 6:1", "S1 Extra SF", "S2 One Pair 1:1", "S3 One Pair P",
                           "S3 Extra Pair", "S4 High L"]


def test_side_bets_get_their_own_result_line_when_their_hand_pays(tmp_path):
    # Big Raise Stud: seat 1 loses its Risk bet (7-8-9 of clubs with the board's 2-2 is one
    # pair of twos, below the push line), but its own three cards are a straight flush, which
    # the Three Card Extra pays 40 to 1 [rules.md 4]; a dealer reading only "L" collects it.
    t = new_table(tmp_path, tc.BRS)
    for seat in (1, 7):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(8, "2d 2h"), (1, "7c 8c 9c"), (7, "Kd Qd Jd")])
    t.press(btn.SETTLE)
    assert t.c.results == ["S1 One Pair L", "S1 Extra SF", "S7 One Pair L", "S7 Extra SF"]
    # Four Card Poker: Aces Up pays a pair of aces or better, whatever the dealer holds
    # [FCP 5.7]; a pair of kings reaches no line; two pair on seat 7 fits the 16 columns.
    (tmp_path / "fcp").mkdir()
    t = new_table(tmp_path / "fcp", tc.FCP)
    for seat in (1, 2, 7):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad 9c 7s 4h"), (2, "Kh Kd 9d 7c 3h"), (7, "Qh Qd 5c 5s 2h"),
            (0, "Jc Jd Js 8h 6d 2c")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS, t.screen()
    assert t.c.results == ["D Trips", "S1 One Pair L", "S1 AcesUp Aces", "S2 One Pair L",
                           "S7 Two Pair L", "S7 AcesUp 2 Pair"]
    assert all(len(line) <= 16 for line in t.c.results)


def test_four_card_poker_results_name_the_ante_bonus_whatever_the_ante_did(tmp_path):
    # The Ante Bonus pays on three of a kind or better whatever the dealer holds, not on a
    # folded hand [rules.md 3: quads 25, straight flush 20, trips 2].  The results said only
    # "S1 Trips L" for trips that lost to the dealer: the dealer collected the Ante and had
    # to remember, unprompted, that its bonus still pays (Aces Up has its own line for that).
    t = new_table(tmp_path, tc.FCP)
    for seat in (1, 2, 3, 4):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.press(btn.UP)
    t.press(btn.UP)
    t.press(btn.OK)                                   # seat 3 folds its trips
    t.deal([(1, "7c 7d 7h 2s 3c"), (2, "9h Th Jh Qh 2d"), (3, "4c 4d 4h 5s 6c"),
            (4, "Ac Kd 8h 6s 3d"), (0, "Kc Ks Kh 5c 8d 2h")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS, t.screen()
    assert t.c.results == ["D Trips", "S1 Trips L", "S1 Bonus Trips", "S1 AcesUp Trips",
                           "S2 Str Flush W", "S2 Bonus SF", "S2 AcesUp SF",
                           "S3 fold Trips", "S3 AcesUp Trips", "S4 High L"]


# Seat 1 has its Ante (and Aces Up); seat 2 plays Aces Up alone [FCP 5.1]; seat 3's Ante came
# after LOCK (the table said "Ante not in play").  Seats 2 and 3 are dealt for their Aces Up,
# but they have no Ante in the round: no W/L the dealer would settle, no Ante Bonus ('-').
_ACES_UP_ALONE = [(1, "7c 7d 7h 2s 3c"), (2, "9c 9d 9h 2d 3h"), (3, "4c 4d 4h 5s 6c"),
                  (0, "Kc Ks Kh 5c 8d 2h")]
_ACES_UP_ALONE_RESULTS = ["D Trips", "S1 Trips L", "S1 Bonus Trips", "S1 AcesUp Trips",
                          "S2 Trips -", "S2 AcesUp Trips", "S3 Trips -", "S3 AcesUp Trips"]


def _lock_with_aces_up_alone(t):
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.c.tick(t.tick(tc.MESSAGE_MS), 2000)
    t.chip(3, ante=True)                              # late
    assert "Ante not in play" in t.screen()


def test_a_seat_without_an_ante_at_lock_has_no_ante_lines_before_or_after_a_power_cut(tmp_path):
    t = new_table(tmp_path, tc.FCP)
    _lock_with_aces_up_alone(t)
    t.deal(_ACES_UP_ALONE)
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS, t.screen()
    assert t.c.results == _ACES_UP_ALONE_RESULTS
    c = t.boot()                                      # the power goes after SETTLE
    assert c.phase == tc.RESULTS and "settled" in t.screen()
    assert c.results == _ACES_UP_ALONE_RESULTS


def test_a_seat_without_an_ante_at_lock_has_none_in_a_round_resumed_after_a_power_cut(tmp_path):
    t = new_table(tmp_path, tc.FCP)
    _lock_with_aces_up_alone(t)
    t.deal(_ACES_UP_ALONE)
    c = t.boot()                                      # between LOCK and SETTLE: cards lost
    assert c.phase == tc.LOCKED and "redo folds+cards" in t.screen()
    t.chip(1, ante=True)                              # what the sensors report after the cut
    t.chip(3, ante=True)
    assert "Ante not in play" in t.screen()           # late, as before the cut
    t.deal(_ACES_UP_ALONE)
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS, t.screen()
    assert c.results == _ACES_UP_ALONE_RESULTS
    assert t.boot().results == _ACES_UP_ALONE_RESULTS   # and once more after SETTLE


def test_a_risk_bet_not_down_at_lock_is_refused_alike_in_a_big_raise_stud_round_resumed(tmp_path):
    # Seat 3 had no Risk bet at LOCK: its cards are refused ('S3 no wager').  The round record
    # keeps every Risk bet down at LOCK at a table with Ante sensors, so the round resumed
    # after a power cut refuses them alike, and a Risk chip put down since is a late bet (it
    # took them, and settled seat 3 with a '-' line, before the record's marks were used so).
    t = new_table(tmp_path, tc.BRS)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.c.card(3, cards.parse("7c")[0], t.tick())
    assert t.c.last_refusal == "Card refused: S3 no wager"
    c = t.boot()
    t.chip(1, ante=True)                              # what the sensors report after the cut
    t.chip(3, ante=True)
    assert "late bet" in t.screen() and "Ante not in play" in t.screen()
    t.deal([(8, "Th 9h"), (1, "Ah Kh Qh"), (3, "7c 7d 2h")])
    assert c.last_refusal.startswith("Card refused: S3 no wager")
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS, t.screen()
    assert c.results == ["S1 Flush 6:1", "S1 Extra SF"]
    assert t.boot().results == c.results


def test_without_ante_sensors_an_unmarked_seat_keeps_its_ante_lines_after_a_power_cut(tmp_path):
    # A table without Ante sensors knows only the Antes the dealer marks: a seat not marked
    # may have one, so its lines are shown, and the same after a cut (the file then says
    # the table has sensors: the round is read as it was locked)
    t = new_table(tmp_path, tc.FCP)
    t.c.ante_sensors = False
    t.press(btn.LOCK)
    t.deal(_ACES_UP_ALONE)
    t.press(btn.SETTLE)
    want = ["D Trips", "S1 Trips L", "S1 Bonus Trips", "S1 AcesUp Trips", "S2 Trips L",
            "S2 Bonus Trips", "S2 AcesUp Trips", "S3 Trips L", "S3 Bonus Trips",
            "S3 AcesUp Trips"]
    assert t.c.results == want
    assert t.boot().results == want


def test_a_round_locked_by_the_firmware_before_the_antes_were_kept_shows_every_line(tmp_path):
    # Its record's marks are the panel's only (seat 3 marked; seat 1's Ante sensed): which
    # seats had no Ante is not known, so every seat's lines are shown, and seat 3's hand is
    # still asked for
    from firmware.table import roundrecord

    t = new_table(tmp_path, tc.FCP)
    t.chip(1, ante=True)
    t.press(btn.UP)
    t.press(btn.UP)
    t.press(btn.OK)                                   # seat 3 marked
    t.press(btn.LOCK)

    def older(sections):
        rec = roundrecord.decode(sections["round"])
        rec.game &= 0x3F
        rec.marks = roundrecord.MARKS_KEPT | 0b100
        sections["round"] = roundrecord.encode(rec)

    rewrite_both_copies(tmp_path, t.memory, older)
    c = t.boot()
    t.chip(1, ante=True)
    t.deal([(1, "7c 7d 7h 2s 3c"), (2, "9c 9d 9h 2d 3h"), (0, "Kc Ks Kh 5c 8d 2h")])
    t.press(btn.SETTLE)
    assert c.phase == tc.LOCKED and "need seat 3 0/5" in t.screen()
    t.deal([(3, "4c 4d 4h 5s 6c")])
    t.press(btn.SETTLE)
    assert c.results == ["D Trips", "S1 Trips L", "S1 Bonus Trips", "S1 AcesUp Trips",
                         "S2 Trips L", "S2 Bonus Trips", "S2 AcesUp Trips", "S3 Trips L",
                         "S3 Bonus Trips", "S3 AcesUp Trips"]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_the_betting_screen_of_a_game_without_the_progressive_lists_no_jackpot_chips(
        tmp_path, game):
    # a chip on a jackpot spot means nothing at these games: "placed 2" read as a wager taken
    t = new_table(tmp_path, game)
    t.chip(2)
    t.chip(1, ante=True)
    assert "placed" not in t.screen() and "ante 1" in t.screen()


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_an_ante_placed_after_lock_is_not_in_the_round(tmp_path, game):
    # A chip put on seat 3's Ante spot after "No more bets" is a late bet: SETTLE asked for
    # that seat's hand ("need seat 3 0/5") until the chip was taken away, and the shoe's cards
    # for it were taken as a hand of the round.
    t = new_table(tmp_path, game)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.chip(3, ante=True)                         # late
    if game == tc.FCP:
        t.c.aces_up_alone = False                # (Aces Up alone would let any seat play)
        t.deal([(1, "Qc Jd 8h 6s 2c"), (0, "Kc Kd 7h 5s 3c 2d")])
    else:
        t.deal([(8, "Th 9h"), (1, "Ah Kh Qh")])
    t.c.card(3, cards.parse("2s")[0], t.tick())
    assert t.c.last_refusal == "Card refused: S3 no wager"
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS, t.screen()
    assert not [line for line in t.c.results if line.startswith("S3")]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_an_ante_placed_after_lock_flashes_late_and_the_dealer_is_told(tmp_path, game):
    # At these games the ring follows the Ante (Risk) spot.  A chip put on an empty Ante
    # spot after "No more bets" showed LOCKED like every other seat, without a beep or a word:
    # neither player nor dealer saw that the bet was late, and at Four Card Poker, where Aces
    # Up alone lets the seat's cards in, its result line read W or L as if its Ante played.
    t = new_table(tmp_path, game)
    t.chip(1, ante=True)
    t.chip(2, ante=True)
    t.press(btn.LOCK)
    t.c.tick(t.tick(tc.MESSAGE_MS), 2000)        # "No more bets" gone
    beeps = t.c.view.beep_serial
    t.chip(3, ante=True)                         # late
    assert t.c.view.seat_light[2] == lights.LATE
    assert "Seat 3 late bet" in t.screen() and "Ante not in play" in t.screen()
    assert t.c.view.beep_serial != beeps
    assert t.c.view.seat_light[0] == lights.LOCKED
    t.chip(2, placed=False, ante=True)           # seat 2's Ante, taken and put back: in play
    t.chip(2, ante=True)
    assert t.c.view.seat_light[1] == lights.LOCKED
    t.chip(3, placed=False, ante=True)           # the late chip taken back
    assert t.c.view.seat_light[2] == lights.LOCKED


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_without_ante_sensors_a_chip_bumped_after_lock_is_no_late_bet(tmp_path, game):
    # A table configured without Ante sensors (the dealer marks the seats on the panel) does
    # not know what was on its Ante spots at LOCK: a chip there, bumped after it, is no late
    # bet (it flashed LATE with "Seat 2 late bet / Ante not in play": the session's review).
    t = new_table(tmp_path, game)
    t.c.ante_sensors = False
    t.chip(2, ante=True)                         # on the spot, not marked: unknown to the table
    t.press(btn.LOCK)
    t.c.tick(t.tick(tc.MESSAGE_MS), 2000)        # "No more bets" gone
    beeps = t.c.view.beep_serial
    t.chip(2, placed=False, ante=True)           # bumped: off, and on again
    t.chip(2, ante=True)
    assert t.c.view.seat_light[1] != lights.LATE
    assert "late bet" not in t.screen() and t.c.view.beep_serial == beeps


def test_an_ante_placed_after_lock_gets_no_cards_at_uth(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.chip(3, ante=True)                         # late: no hand in this round [UTH 3.1]
    t.c.card(3, cards.parse("2s")[0], t.tick())
    assert t.c.last_refusal == "Card refused: S3 no wager"
    t.c.card(1, cards.parse("2s")[0], t.tick())  # the seat that had its Ante at LOCK
    assert t.c._hole(0) == cards.parse("2s")


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_an_ante_spot_in_fault_at_lock_is_still_in_the_round(tmp_path, game):
    # Seat 3's Ante sensor was in fault at LOCK with the chip on it (unseen, as a jackpot spot
    # in fault at LOCK is no late bet); the fault then clears and the chip shows: its hand was
    # refused as 'S3 no wager' and SETTLE did not wait for it, the wager never settled.
    t = new_table(tmp_path, game)
    t.c.aces_up_alone = False
    t.chip(1, ante=True)
    t.chip(3, ante=True)
    t.c.spot(sens.FAULT, sens.ante_spot(3), t.tick(), sens.STUCK)
    t.press(btn.LOCK)
    assert t.c.phase == tc.LOCKED
    t.c.spot(sens.CLEARED, sens.ante_spot(3), t.tick())
    t.chip(3, ante=True)                         # the driver announces the chip anew
    if game == tc.FCP:
        t.deal([(1, "Qc Jd 8h 6s 2c"), (0, "Kc Kd 7h 5s 3c 2d")])
    else:
        t.deal([(8, "Th 9h"), (1, "Ah Kh Qh")])
    t.c.card(3, cards.parse("2s")[0], t.tick())
    assert t.c.last_refusal != "Card refused: S3 no wager"
    assert t.c._hole(2) == cards.parse("2s")
    t.press(btn.SETTLE)
    assert t.c.phase == tc.LOCKED and "seat 3 1/" in t.screen()


def test_big_raise_stud_lines_name_the_best_hands_whole(tmp_path):
    # Royal 500 to 1, straight flush 100, full house 8 [BRS 5.2]: "S1 Royal Flush 500:1" is
    # longer than the display, and a name cut to "Royal F" or "Full Hous" reads as a typo.
    t = new_table(tmp_path, tc.BRS)
    for seat in (1, 2, 3):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(8, "Th Jh"), (1, "Ah Kh Qh"), (2, "9h 8h 7h"), (3, "Tc Td Jd")])
    t.press(btn.SETTLE)
    assert t.c.results == ["S1 Royal 500:1", "S1 Extra SF", "S2 SF 100:1", "S2 Extra SF",
                           "S3 FH 8:1", "S3 Extra Pair"]


def test_a_pool_beyond_what_an_event_carries_still_settles(table):
    # An event's values are signed 32-bit ($21,474,836.47 in cents).  At the largest wager the
    # configuration allows ($1,000) seven seats put $4,900 a round into the pool, past that
    # after about 4,400 rounds without a hit; the settle's log entry must not then refuse the
    # commit and leave every round locked.  The entry carries the largest value; the jackpot
    # record keeps the exact pool.
    jp = table.c.jackpot
    jp.set_config({"wager": 100000})
    round_no = table.c.rec.round_no
    while sum(jp.value) <= (1 << 31) + 20000000:   # past it, by more than a flush pays
        round_no += 1
        jp.contribute(round_no, [1, 2, 3, 4, 5, 6, 7])
        jp.settle(round_no, 1000, cards.parse("2c 3d 4h"), [(s, None, False) for s in range(1, 8)])
    table.c.rec.round_no = round_no + 1         # the round open for bets
    assert table.c.commit_admin([], table.c._sections()) == ""
    lock_seats(table, (1,))
    table.deal([(1, "Ah Kh"), (8, "Qh 2h 3h 4c 5d"), (0, "9c 9d")])
    table.settle()                              # a flush: 100 to 1 on $1,000
    assert table.c.phase == tc.RESULTS
    settle = events_of(table.memory, ev.SETTLE)[-1]
    assert settle[5:7] == (10000000, (1 << 31) - 1)
    assert sum(table.c.jackpot.value) > 1 << 31
    pool = list(table.c.jackpot.value)
    table.boot()                                # the record keeps the exact pool
    assert list(table.c.jackpot.value) == pool and table.c.jackpot.audit() == []


def test_unknown_game_is_refused():
    with pytest.raises(ValueError, match="game must be one of brs, fcp, uth, got 'poker'"):
        tc.RoundController(None, game="poker")


TICKS_WRAP = 1 << 30    # time.ticks_ms() on the 32-bit boards wraps here (2**30 ms, 12.4 days)


def test_timers_and_the_door_log_survive_the_tick_wrap(table):
    c = table.c
    start = TICKS_WRAP - 60000             # one minute before the board's tick count wraps
    c.tick(start, 5000)
    c.panel(btn.DOOR_OPEN, 0, start)
    c.panel(btn.DOOR_CLOSED, 0, start + 2000)
    for ms in range(start, TICKS_WRAP, 100):
        c.tick(ms, 5000)
    assert len(events_of(table.memory, ev.DOOR_CLOSE)) == 1   # logged when its window ended
    c.panel(btn.PRESS, btn.LOCK, TICKS_WRAP - 1000)           # "No more bets" for 4 s
    c.panel(btn.RELEASE, btn.LOCK, TICKS_WRAP - 900)
    for ms in range(0, 60000, 100):                           # the tick count wrapped to 0
        c.tick(ms, 6000)
    assert c.message == ""                                    # the message went after 4 s
    c.panel(btn.DOOR_OPEN, 0, 60000)
    assert len(events_of(table.memory, ev.DOOR_OPEN)) == 2    # logged at once, as before


def refuse_flash_writes(monkeypatch, table, allow=()):
    """From now on the table's filesystem refuses every write but to the files in allow."""
    real = table.fs.open

    def open_(name, mode):
        if "w" in mode and name not in allow:
            raise OSError(5, "flash write failed")
        return real(name, mode)

    monkeypatch.setattr(table.fs, "open", open_)


def test_a_lock_committed_on_one_copy_is_locked_though_its_repair_entries_wait(table, monkeypatch):
    while table.memory.log.count % 32 != 30:   # the repair entries will complete a log page
        table.memory.commit_admin(None, [(ev.DOOR_OPEN, 1)], 5)
    table.chip(1)
    table.chip(1, ante=True)
    refuse_flash_writes(monkeypatch, table, allow=("a.bin",))
    table.press(btn.LOCK)
    assert table.c.phase == tc.LOCKED and table.c.rec.accepted == 0b1
    assert table.c.view.seat_light[0] == lights.ACCEPTED
    assert table.memory.step == 1 and table.c.jackpot.audit() == []
    table.press(btn.LOCK)                      # nothing stuck: LOCK again is simply not a step
    assert "still open" not in table.screen()


def test_a_lock_no_copy_holds_on_read_back_is_refused_not_played_on_ram_alone(table, monkeypatch):
    # Both copies fail at once, copy 0 silently (it takes its writes and keeps none), copy 1's
    # writes refused: LOCK's commit is held by no copy.  It used to pass, the wager counted in
    # the meters with nothing a power cut would keep; now the dealer sees MEMORY FAULT and the
    # round is not locked, as for a commit no copy took.  With the parts working, LOCK again.
    meter = table.c.view.meter[0]
    table.chip(1)
    table.chip(1, ante=True)
    monkeypatch.setattr(table.memory.copies[0], "write", lambda data: None)
    refuse_flash_writes(monkeypatch, table, allow=("a.bin",))
    table.press(btn.LOCK)
    assert table.c.phase == tc.OPEN and table.c.rec.accepted == 0
    assert "MEMORY FAULT" in table.screen() and "held by no copy" in table.c.last_refusal
    assert table.c.view.meter[0] == meter and events_of(table.memory, ev.LOCK) == []
    monkeypatch.undo()
    for _ in range(30):             # the idle table writes the copies again (2 s in OPEN)
        table.c.tick(table.tick(100), 1000 + table.now // 1000)
    assert table.memory.whole and "JP CLOSED" not in table.screen()
    table.press(btn.LOCK)
    assert table.c.phase == tc.LOCKED and table.c.rec.accepted == 0b1
    assert table.c.view.meter[0] == meter + PER_WAGER
    assert table.boot().phase == tc.LOCKED and len(events_of(table.memory, ev.LOCK)) == 1


def test_ram_error_shows_what_each_copy_was_found_to_be(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    (tmp_path / "a.bin").write_bytes(b"CM")                   # cut short
    flip_a_bit(tmp_path, "b.bin")
    t.boot()
    assert t.c.phase == tc.RAM_ERROR
    lines = t.c.view.lines
    assert lines[2] == "no good copy"
    assert lines[3] == "0 short: 2 bytes" and lines[4] == "1 bad crc"


@pytest.mark.parametrize("section", [tc.SECTION_JACKPOT, tc.SECTION_ROUND])
def test_a_newest_copy_that_does_not_decode_falls_back_to_the_older_copy(tmp_path, section):
    # copy 0 holds a newer record with a good CRC whose jackpot (or round) section does not
    # decode (a firmware fault, a crafted copy): the boot must not rebuild the good copy 1
    # from it and close the jackpot; it takes copy 1, rebuilds copy 0 and logs why
    t = Table(tmp_path)
    t.ram_clear()
    pool = t.c.view.meter[0]
    seq, payload = record.decode(t.memory._record)
    sections = record.unpack_sections(payload)
    sections[section] = sections[section][:3]                 # cut short: does not decode
    (tmp_path / "a.bin").write_bytes(record.encode(seq + 1, record.pack_sections(sections)))
    good = (tmp_path / "b.bin").read_bytes()
    t.boot()
    assert t.c.phase == tc.OPEN and t.c.view.meter[0] == pool and t.c.jackpot_open()
    assert t.memory.status == "repaired"
    error = events_of(t.memory, ev.CM_ERROR)[-1]
    assert error[4:6] == (0, ev.REASON_BAD_STATE)
    assert events_of(t.memory, ev.CM_RECOVERED)[-1][4:7] == (0, 1, seq)
    assert record.decode(good)[0] == seq                       # copy 1 was the good one
    t.boot()
    assert t.memory.status == "ok" and t.c.phase == tc.OPEN


def test_a_door_opened_in_ram_error_is_logged_with_the_ram_clear(tmp_path):
    t = Table(tmp_path)                         # blank memory: RAM ERROR
    t.c.tick(t.tick(), 1500)                    # the wall clock when the door opens
    t.c.panel(btn.DOOR_OPEN, 0, t.tick())
    t.c.panel(btn.DOOR_CLOSED, 0, t.tick(tc._DOOR_LOG_MS))
    t.c.tick(t.tick(tc._DOOR_LOG_MS), 1000)
    assert t.c.phase == tc.RAM_ERROR and t.memory.log.count == 0
    t.c.tick(t.tick(), 9000)                    # the RAM clear comes later
    t.ram_clear()
    assert [e[3] for e in t.memory.log.events()] == [ev.DOOR_OPEN, ev.DOOR_CLOSE, ev.RAM_CLEAR]
    # each with the time it happened, not the clear's
    assert [e[1] for e in t.memory.log.events()] == [1500, 1500, 9000]


def test_clearing_a_link_mismatch_on_a_standalone_table_says_there_is_no_link(table):
    table.key(True)
    table.press(btn.BACK, long=True)
    assert table.c.phase == tc.OPEN and "No link\nat this table" in table.screen()


def test_a_seat_whose_ante_was_marked_keeps_its_cards_in_a_round_resumed_after_a_power_cut(tmp_path):
    # Big Raise Stud: seat 3's Risk chip is one its Ante sensor does not see, so the dealer
    # marked it on the panel (OK) before LOCK.  The power goes; the panel's mark was not in
    # critical memory, and the resumed round must not discard seat 3's cards as dealt to a
    # spot without a wager [BRS 6.9]: it has one.
    t = new_table(tmp_path, tc.BRS)
    t.chip(1, ante=True)
    t.press(btn.UP)
    t.press(btn.UP)                              # cursor to seat 3
    t.press(btn.OK)                              # its Risk bet marked on the panel
    t.press(btn.LOCK)
    t.deal([(3, "7c")])
    assert t.c._hole(2) == cards.parse("7c")
    c = t.boot()                                 # the power comes back: cards again
    assert c.phase == tc.LOCKED
    t.deal([(8, "Th 9h"), (1, "Ah Kh Qh"), (3, "7c 7d 2h")])
    assert c._hole(2) == cards.parse("7c 7d 2h"), c.last_refusal
    t.c.spot(sens.PLACED, sens.ante_spot(1), t.tick())
    t.press(btn.SETTLE)
    assert c.results == ["S1 Flush 6:1", "S1 Extra SF", "S3 One Pair P", "S3 Extra Pair"]
    t.press(btn.SETTLE)                          # the next round knows its marks again
    t.press(btn.LOCK)
    t.deal([(5, "2c")])
    assert c.last_refusal == "Card refused: S5 no wager"


def test_a_fold_at_a_game_without_a_jackpot_survives_a_power_cut_that_keeps_the_cards(tmp_path):
    """Four Card Poker: seat 3 is voided (committing the round's cards), then seat 2 folds.
    The power goes: the round resumes with every card in and SETTLE again on the display, so
    seat 2's fold must be there too, or its trips would read as a win on the results."""
    t = new_table(tmp_path, tc.FCP)
    for seat in (1, 2, 3):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Qc Jd 8h 6s 2c"), (2, "Ah Ad As 9c 4h"), (3, "Kh Ks 7d 5c 3h"),
            (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.UP)
    t.press(btn.UP)                          # seat 3
    t.key(True)
    t.press(btn.BACK)                        # void seat 3: the round's cards committed
    t.key(False)
    t.press(btn.DOWN)                        # seat 2 folds
    t.press(btn.OK)
    c = t.boot()
    assert c.phase == tc.LOCKED and "SETTLE again" in t.screen()
    t.press(btn.SETTLE)
    # Ah Ad As 9c 4h folded: its best four, three aces, still settles an Aces Up wager
    assert c.results == ["D One Pair", "S1 High L", "S2 fold Trips", "S2 AcesUp Trips",
                         "S3 void"]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_whose_cards_a_power_cut_lost_is_asked_for_not_left_without_a_result(
        tmp_path, game):
    """Seats 1-3 have their Ante (BRS: Risk) wagers on the sensed spots.  Seat 2 is voided,
    which commits the cards dealt so far; seat 3's cards come after, and the power goes:
    they are lost.  The chip is still on seat 3's Ante spot, so SETTLE must ask for its cards
    rather than show results without seat 3 (the dealer would pay from a list that lacks it)."""
    hand, dealer = ("Qc Jd 8h 6s 2c", "Kc Kd 7h 5s 3c 2d") if game == tc.FCP else ("Qc Jd 8h", "Kc Kd")
    t = new_table(tmp_path, game)
    for seat in (1, 2, 3):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, hand), (2, "Ah Ad As 9c 4h"[:len(hand)]), (8 if game == tc.BRS else 0, dealer)])
    t.press(btn.UP)                          # seat 2
    void_cursor_seat(t)                      # the round's cards committed
    t.deal([(3, "Kh Ks 7d 5c 3h"[:len(hand)])])
    c = t.boot()                             # seat 3's cards were after the last commit
    assert c.phase == tc.LOCKED and c._hole(2) == []
    for seat in (1, 3):                      # the chips the sensors report after the cut
        t.chip(seat, ante=True)
    t.press(btn.SETTLE)
    assert c.phase == tc.LOCKED and "need seat 3 0/%d" % c.seat_cards in t.screen()
    t.deal([(3, "Kh Ks 7d 5c 3h"[:len(hand)])])
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS and [r for r in c.results if r.startswith("S3")]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_whose_ante_is_marked_on_the_panel_is_asked_for_its_cards(tmp_path, game):
    """Seat 3's Ante (BRS: Risk) chip is one its sensor does not see, so the dealer marks it
    with OK before LOCK: the table takes its cards as a seat with a wager [BRS 6.9].  Its
    cards are not dealt (the shoe missed the seat): SETTLE must ask for them, as for a chip
    the sensor sees, not show results without seat 3 (the dealer pays from that list)."""
    hand, dealer = ("Qc Jd 8h 6s 2c", "Kc Kd 7h 5s 3c 2d") if game == tc.FCP else ("Qc Jd 8h", "Kc Kd")
    t = new_table(tmp_path, game)
    t.chip(1, ante=True)
    t.press(btn.UP)
    t.press(btn.UP)                          # seat 3
    t.press(btn.OK)                          # its Ante marked
    t.press(btn.LOCK)
    t.deal([(1, hand), (8 if game == tc.BRS else 0, dealer)])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.LOCKED and "need seat 3 0/%d" % t.c.seat_cards in t.screen()
    t.deal([(3, "Ah Ad As 9c 4h"[:len(hand)])])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS and [r for r in t.c.results if r.startswith("S3")]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_chip_on_a_jackpot_spot_after_lock_is_no_late_bet_at_a_game_without_a_progressive(
        tmp_path, game):
    """Four Card Poker and Big Raise Stud have no jackpot wager: a chip the jackpot spot's
    sensor sees after LOCK (a player's Play chip set down there, a stack pushed over it) is
    no bet the table refuses.  The dealer must not hear the error beep nor read "Seat 3 late
    bet NOT accepted" (and refuse a wager) for a spot this game does not use."""
    t = new_table(tmp_path, game)
    t.chip(3, ante=True)
    t.press(btn.LOCK)
    t.c.tick(t.tick(tc.MESSAGE_MS), 2000)    # "No more bets" gone
    beeps = t.c.view.beep_serial
    t.chip(3)
    assert "late bet" not in t.screen() and t.c.view.beep_serial == beeps and t.c.late == 0
    t.chip(3, placed=False)
    assert "TAMPER" not in t.screen() and events_of(t.memory, ev.TAMPER) == []


def test_test_mode_shows_each_button_pressed(table):
    """Every input is tested in test mode: the panel's buttons too, each named on the screen
    when pressed (OK also steps the lights, BACK ends), so that a dead LOCK or SETTLE shows
    there, not in the first round.  The door's state is on the screen's own line: its DOOR
    OPEN notice does not take the title's place."""
    table.c.tick(table.tick(tc.MESSAGE_MS), 2000)          # the RAM clear's word gone
    table.key(True)
    table.press(btn.LOCK, long=True)
    assert table.c.phase == tc.TEST
    assert table.c.view.lines[6] == "button -"
    for button, name in ((btn.LOCK, "LOCK"), (btn.SETTLE, "SETTLE"), (btn.UP, "UP"),
                         (btn.DOWN, "DOWN"), (btn.OK, "OK")):
        table.press(button)
        assert table.c.view.lines[6] == "button " + name
    assert table.c.phase == tc.TEST and table.c.test_step == 1
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    table.c.tick(table.tick(tc.MESSAGE_MS), 2000)
    lines = table.c.view.lines
    assert lines[0] == "TEST MODE (BACK)" and lines[5] == "door open" and "DOOR OPEN" not in lines
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN and "DOOR OPEN" in table.screen()


def test_a_button_pressed_in_test_mode_is_named_though_a_message_was_showing(table):
    # a refused shoe line's 4-second message takes the screen's last two lines: a button
    # pressed meanwhile must still be named, or the technician thinks it dead
    table.key(True)
    table.press(btn.LOCK, long=True)
    assert table.c.phase == tc.TEST
    table.c.card(1, 999, table.tick())           # a card code no card has
    assert table.c.message
    table.press(btn.UP)
    assert table.c.view.lines[6] == "button UP"


def test_a_table_without_a_configured_seed_starts_and_resets_its_pool_at_nothing(tmp_path):
    # rules.md, operator options: "make them configuration, off by default: reset (seed)
    # amount, ...". A table whose configuration sets no reset starts at $0.00 after the RAM
    # clear, logs no operator money for it, and after a royal returns to $0.00; the royal is
    # paid 10,000 to 1 on the wager [11.9], the part the pool did not hold operator-funded.
    table = Table(tmp_path, jackpot_config=None)
    table.ram_clear()
    assert table.c.phase == tc.OPEN and table.c.view.meter[0] == 0
    assert events_of(table.memory, ev.OPERATOR_ADDITION) == []
    royal_round(table)
    table.key(True)
    table.press(btn.OK)
    assert table.c.phase == tc.RESULTS
    assert table.c.view.win == (0, 1, 10000 * 100, 0) and table.c.view.meter[0] == 0
    assert [e[4:7] for e in events_of(table.memory, ev.JACKPOT_HIT)] == [(1, 4, 10000 * 100)]
    assert table.c.jackpot.pool_meters(0)["shortfall"] == 10000 * 100 - 2 * PER_WAGER
    assert events_of(table.memory, ev.OPERATOR_ADDITION) == []


def plain_round(table):
    """Seat 1's jackpot wager, no jackpot hand: settled, and the next round opened."""
    lock_seats(table, (1,))
    table.deal([(1, "2c 7d"), (8, "Qs Js 4h 3h 9d"), (0, "9c 8h")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS
    table.press(btn.SETTLE)
    assert table.c.phase == tc.OPEN


def flip_a_bit(directory, *names):
    """One bit of each copy file named flipped (in its header's seq): a bad CRC."""
    for name in names:
        data = bytearray((directory / name).read_bytes())
        data[20] ^= 1
        (directory / name).write_bytes(bytes(data))


def rewrite_both_copies(tmp_path, memory, change):
    """Both copies replaced by the last record with change(sections) applied, good CRC."""
    seq, payload = record.decode(memory._record)
    sections = record.unpack_sections(payload)
    change(sections)
    raw = record.encode(seq + 1, record.pack_sections(sections))
    for name in ("a.bin", "b.bin"):
        (tmp_path / name).write_bytes(raw)


@pytest.mark.parametrize("how", ["bad record", "both copies lost"])
def test_rounds_after_a_ram_clear_are_numbered_after_the_rounds_the_log_kept(tmp_path, how):
    # The event log outlives a RAM clear: a round that started again at 1 would put two
    # "round 1"s in it (and in the service's log, and in every audit export), and nobody
    # reading it could tell which entry is whose.  The next round goes on after the log's.
    t = Table(tmp_path)
    t.ram_clear()
    plain_round(t)
    plain_round(t)
    if how == "bad record":           # the copies read well; the table cannot use the round
        rewrite_both_copies(tmp_path, t.memory, lambda s: s.__setitem__("round", b"xyz"))
    else:                             # both copies bad; a page of the log is on flash
        t.memory.commit_admin(None, [(ev.DOOR_OPEN, 1)] * ev.PAGE_ENTRIES, 2000)
        flip_a_bit(tmp_path, "a.bin", "b.bin")
    t.boot()
    assert t.c.phase == tc.RAM_ERROR
    t.ram_clear()
    assert t.c.phase == tc.OPEN and t.c.rec.round_no == 3
    plain_round(t)
    assert [e[2] for e in events_of(t.memory, ev.LOCK)] == [1, 2, 3]
    assert events_of(t.memory, ev.RAM_CLEAR)[-1][2] == 2
    t.boot()
    assert t.c.phase == tc.RESULTS and t.c.rec.round_no == 3
    t.press(btn.SETTLE)
    assert t.c.rec.round_no == 4


class PowerCut(BaseException):
    """The power went: no handler of the table's may catch it (a BaseException)."""


class CutFS(PathFS):
    """A table's filesystem whose supply fails at write number cut_at (counted from 0 over
    every file opened for writing): that file keeps the first half of what was written to it,
    and nothing runs after it."""

    def __init__(self, directory):
        PathFS.__init__(self, directory)
        self.writes = 0
        self.cut_at = None

    def open(self, name, mode):
        f = PathFS.open(self, name, mode)
        if "w" not in mode:
            return f
        number = self.writes
        self.writes += 1
        if self.cut_at is None or number < self.cut_at:
            return f
        write = f.write

        def torn(data):
            write(bytes(data)[:len(data) // 2])
            f.close()
            raise PowerCut(name)

        f.write = torn
        return f


def committed_state(t):
    """What a table's critical memory holds, read by a bare boot (its power-up commit
    rebuilds a torn copy; the table boots again after it): the jackpot, round and link
    sections and the journal, and the entries the table logged."""
    fs = PathFS(t.fs.directory)
    memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
    memory.boot(0, 0)
    return ((memory.ram_error, memory.section("jackpot"), memory.section("round"),
             memory.section("link"), memory.round_no, memory.step), logged(memory))


_POWER_EVENTS = (ev.POWER_UP, ev.CM_ERROR, ev.CM_RECOVERED)


def logged(memory):
    """The log's entries the table made (not the store's own at a boot): kind, round, a, b, c
    (a RAM clear's b, the sequence number, counts the boots too: 0 here)."""
    return [(e[3], e[2], e[4], 0 if e[3] == ev.RAM_CLEAR else e[5], e[6])
            for e in memory.log.events() if e[3] not in _POWER_EVENTS]


def cut_at_every_write(directory, make, action, check):
    """For every file write the action makes: a table made by make(directory) runs it, the
    power goes at that write, and the table boots again; check(table, state, before, after,
    cut) then judges the table, with state what its memory held after the cut and before and
    after what the uncut action left committed (each as committed_state gives it).  Returns
    how many writes were cut."""
    def fresh(name):
        d = directory / name
        d.mkdir()
        t = make(d)
        t.fs = CutFS(str(d))
        t.boot()
        return t

    t = fresh("reference")
    committed_state(t)          # as every cut run reads it, so that the log is the same
    t.boot()
    first = t.fs.writes
    action(t)
    writes = t.fs.writes - first
    after = committed_state(t)
    assert writes > 0
    for cut in range(writes):
        t = fresh("cut%d" % cut)
        before = committed_state(t)
        t.boot()
        t.fs.cut_at = t.fs.writes + cut
        with pytest.raises(PowerCut):
            action(t)
        t.fs.cut_at = None
        t.now += 5000
        state = committed_state(t)
        t.boot()
        check(t, state, before, after, cut)
    return writes


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_marked_on_the_panel_is_asked_for_after_a_power_cut_at_any_write_of_lock(
        tmp_path, game):
    """Seat 3's Ante (BRS: Risk) chip is one its sensor does not see: the dealer marks it on
    the panel and locks.  The power goes at a write of LOCK's commit.  Committed or not, the
    table must come back with seat 3 still owed a result: once the round is locked, SETTLE
    asks for seat 3's hand (its cards were not yet dealt), as it did before the cut, rather
    than show results without seat 3 (the mark was in RAM only: the dealer pays from a list
    that lacks the seat, and its Ante is never settled)."""
    hand, dealer = ("Qc Jd 8h 6s 2c", "Kc Kd 7h 5s 3c 2d") if game == tc.FCP else ("Qc Jd 8h", "Kc Kd")

    def make(d):
        return new_table(d, game)

    def action(t):
        t.chip(1, ante=True)
        t.press(btn.UP)
        t.press(btn.UP)                      # seat 3
        t.press(btn.OK)                      # its Ante marked
        t.press(btn.LOCK)

    def check(t, state, before, after, cut):
        assert state in (before, after)
        if state == before:
            assert t.c.phase == tc.OPEN
            action(t)
        assert t.c.phase == tc.LOCKED
        t.chip(1, ante=True)                 # what the sensors report after the cut
        t.deal([(1, hand), (8 if game == tc.BRS else 0, dealer)])
        t.press(btn.SETTLE)
        assert t.c.phase == tc.LOCKED and "need seat 3 0/%d" % t.c.seat_cards in t.screen(), cut
        t.deal([(3, "Ah Ad As 9c 4h"[:len(hand)])])
        t.press(btn.SETTLE)
        assert t.c.phase == tc.RESULTS and [r for r in t.c.results if r.startswith("S3")]

    assert cut_at_every_write(tmp_path, make, action, check) == 2


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_resumed_round_with_a_marked_seat_to_deal_says_cards_again(tmp_path, game):
    # Seat 3's Ante is marked on the panel; seats 1 and 2 are dealt with the dealer (BRS: the
    # board), seat 2 voided, which commits the cards; the power goes.  The mark comes back
    # with the round, and SETTLE asks for seat 3's hand, but the resumed round said
    # "SETTLE again" (its cards were judged before the mark was read back).
    hand, other = ("Qc Jd 8h 6s 2c", "Kc Kd 7h 5s 3c 2d") if game == tc.FCP else ("Qc Jd 8h", "Kc Kd")
    t = new_table(tmp_path, game)
    t.chip(1, ante=True)
    t.chip(2, ante=True)
    t.press(btn.UP)
    t.press(btn.UP)                          # seat 3
    t.press(btn.OK)                          # its Ante marked
    t.press(btn.LOCK)
    t.deal([(1, hand), (2, "9s 9d 4c 4d 7s"[:len(hand)]), (0 if game == tc.FCP else 8, other)])
    t.press(btn.DOWN)                        # seat 2
    void_cursor_seat(t)                      # the round's cards committed
    c = t.boot()
    assert c.phase == tc.LOCKED and "need seat 3 0/" in t.screen()
    assert "cards again" in t.screen() and "SETTLE again" not in t.screen()


def books_agree_with_the_log(t):
    """The jackpot's books balance and its table meters are what the event log says since
    the last RAM clear: the wagers locked, returned by voids, the jackpots (and envy
    bonuses) paid and the operator's additions (the RAM clear's seed among them); no round
    locked twice in the whole log; the chain intact."""
    assert t.c.jackpot.audit() == []
    meters = t.c.jackpot.table_meters()
    logged_c = {}
    envy = []
    for e in t.memory.log.events():
        if e[3] == ev.RAM_CLEAR:
            logged_c = {}
            envy = []
        logged_c.setdefault(e[3], []).append(e[6])
        if e[3] == ev.JACKPOT_ENVY:
            envy.append((e[5], e[6]))
    assert sum(logged_c.get(ev.LOCK, [])) == meters["wagered"]
    assert sum(logged_c.get(ev.VOID, [])) == meters["voided"]
    # an envy bonus entry: b the seats paid, c each one's bonus
    envied = sum(bin(seats).count("1") * each for seats, each in envy)
    assert sum(logged_c.get(ev.JACKPOT_HIT, [])) + envied == meters["paid"]
    assert (sum(logged_c.get(ev.RAM_CLEAR, [])) + sum(logged_c.get(ev.OPERATOR_ADDITION, []))
            == meters["operator_additions"])
    rounds = [e[2] for e in events_of(t.memory, ev.LOCK)]
    assert len(set(rounds)) == len(rounds)
    assert t.memory.log.verify() is None


def log_to_a_page_end(t, left):
    """Door entries until `left` more complete the event log's page (its write is cut too)."""
    while (t.memory.log.count + left) % ev.PAGE_ENTRIES:
        t.memory.commit_admin(None, [(ev.DOOR_OPEN, 1)], 5)


@pytest.mark.parametrize("left", [1, 2, 3])
@pytest.mark.parametrize("how", ["bad record", "both copies lost"])
def test_a_ram_clear_cut_at_any_write_comes_back_whole_and_numbers_on(tmp_path, how, left):
    """RAM ERROR after two rounds; the power goes at each write of the supervisor's RAM
    clear (the log page it completes included).  The table is back in RAM ERROR or cleared,
    never between; once cleared, the pool holds its seed with the RAM_CLEAR entry saying so,
    and the next round is numbered after the log's."""
    def make(d):
        t = Table(d)
        t.ram_clear()
        plain_round(t)
        plain_round(t)
        if how == "bad record":
            log_to_a_page_end(t, left)
            rewrite_both_copies(d, t.memory, lambda s: s.__setitem__("round", b"xyz"))
        else:                   # the rounds' entries on a page on flash, the rest lost
            log_to_a_page_end(t, ev.PAGE_ENTRIES - left)
            flip_a_bit(d, "a.bin", "b.bin")
        t.boot()
        assert t.c.phase == tc.RAM_ERROR
        return t

    def check(t, state, before, after, cut):
        assert state in (before, after)
        assert t.c.phase == (tc.OPEN if state == after else tc.RAM_ERROR)
        if t.c.phase == tc.RAM_ERROR:
            t.ram_clear()
        assert t.c.phase == tc.OPEN and t.c.view.meter[0] == RESET
        assert events_of(t.memory, ev.RAM_CLEAR)[-1][6] == RESET
        plain_round(t)
        assert events_of(t.memory, ev.LOCK)[-1][2] == 3
        books_agree_with_the_log(t)

    assert cut_at_every_write(tmp_path, make, Table.ram_clear, check) >= 2


@pytest.mark.parametrize("where", ["open", "locked", "confirmed"])
def test_the_keyed_mark_is_on_every_copy_or_none_after_a_cut_at_its_first_commit(
        tmp_path, where, monkeypatch):
    """A keyed program's first boot marks critical memory in its power-up commit; the power
    goes at each of its writes.  Both copies are marked or neither: an unkeyed program is
    refused exactly when they are, and the keyed one finishes the round."""
    def boot(t, key, unkeyed=False):
        t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
        t.memory.key = key
        t.c = tc.RoundController(t.memory, t.jackpot_config)
        t.c.unkeyed = unkeyed
        t.c.boot(t.now, 1000 + t.now)
        return t.c

    def make(d):
        t = Table(d)
        t.ram_clear()
        if where == "locked":
            lock_seats(t, (1, 2))
        elif where == "confirmed":
            royal_round(t)
            confirm_and_fail_the_payout(t, monkeypatch)
        return t

    def check(t, state, before, after, cut):
        assert state[0][1:] in (before[0][1:], after[0][1:])
        marks = [t.fs.open(name, "rb").read()[3] & 1 for name in ("a.bin", "b.bin")]
        assert marks in ([0, 0], [1, 1])
        assert (boot(t, False, True).phase == tc.RAM_ERROR) == (marks == [1, 1])
        c = boot(t, True)
        assert c.phase != tc.RAM_ERROR and t.memory.keyed
        if where == "confirmed":
            assert c.phase == tc.RESULTS and len(events_of(t.memory, ev.JACKPOT_HIT)) == 1
        books_agree_with_the_log(t)

    assert cut_at_every_write(tmp_path, make, lambda t: boot(t, True), check) == 2


@pytest.mark.parametrize("left", [1, 2, 3])
def test_a_reset_waiting_for_a_hit_takes_effect_with_it_whatever_write_the_power_cuts(
        tmp_path, left):
    """A reset change waits for the next hit; the power goes at each write of the round that
    hits the royal (LOCK, the cards, the confirmation, the payout).  The new reset is in force
    exactly when the payout is committed, logged with it, and the books balance."""
    def make(d):
        t = Table(d)
        t.ram_clear()
        log_to_a_page_end(t, left)
        t.key(True)
        t.press(btn.SETTLE, long=True)      # the configuration menu
        t.press(btn.DOWN)
        t.press(btn.OK)                     # the reset: $10,000.00 -> off
        t.press(btn.OK)                     # -> $1,000.00, after the next hit
        t.press(btn.BACK)
        t.key(False)
        return t

    def action(t):
        royal_round(t)
        t.key(True)
        t.press(btn.OK)
        t.key(False)

    def check(t, state, before, after, cut):
        # main.reset (setting 109) $10,000.00 to $1,000.00: the change put in place by the hit
        # (the menu's two steps, to off and to $1,000.00, are logged as the same setting)
        applied = [e for e in events_of(t.memory, ev.CONFIG_CHANGE) if e[4:7] == (109, 1000000, 100000)]
        assert (t.c.jackpot.config.pools[0].reset == 100000) == bool(applied)
        assert t.c.jackpot.requested_config().pools[0].reset == 100000
        books_agree_with_the_log(t)
        if t.c.phase == tc.OPEN:
            action(t)
        elif t.c.phase == tc.LOCKED:        # the round resumed: its chips and cards again
            for seat in (1, 3):
                t.chip(seat)
                t.chip(seat, ante=True)
            t.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
            t.settle()
        assert t.c.phase == tc.RESULTS and len(events_of(t.memory, ev.JACKPOT_HIT)) == 1
        assert t.c.jackpot.config.pools[0].reset == 100000
        books_agree_with_the_log(t)

    assert cut_at_every_write(tmp_path, make, action, check) >= 8


@pytest.mark.parametrize("cut", [0, 1])
def test_a_cut_at_the_commit_after_a_copy_failed_never_takes_the_table_back_before_its_payout(
        tmp_path, monkeypatch, cut):
    """The second copy (b.bin) refuses its writes while a royal is confirmed and paid: the
    payout stands on copy 0 alone (MEMORY FAULT ... COPY 1 WRITE FAILED).  The flash takes
    writes again and the power goes at a copy's write in the next commit (a door entry).
    The table must come back with the payout made, never in the round before it, where
    SETTLE again would pay the royal a second time."""
    t = Table(tmp_path)
    t.fs = CutFS(str(tmp_path))
    t.boot()
    t.ram_clear()
    royal_round(t)
    refuse_copy_writes(t, monkeypatch)
    t.key(True)
    t.press(btn.OK)                         # paid
    t.key(False)
    assert t.c.phase == tc.RESULTS and "COPY 1" in t.memory.status_text()
    monkeypatch.undo()
    t.fs.cut_at = t.fs.writes + cut         # the door entry's commit writes the two copies
    with pytest.raises(PowerCut):
        t.c.panel(btn.DOOR_OPEN, 0, t.tick())
    t.fs.cut_at = None
    c = t.boot()
    assert c.phase == tc.RESULTS and "settled" in t.screen()
    assert len(events_of(t.memory, ev.JACKPOT_HIT)) == 1
    assert c.view.meter[0] == RESET


def refuse_copy_writes(t, monkeypatch, name="b.bin"):
    """The flash refuses every write of one copy file (a worn block) until monkeypatch.undo."""
    real = t.fs.open

    def refusing(file, mode):
        if "w" in mode and file == name:
            raise OSError(5, "flash write failed")
        return real(file, mode)

    monkeypatch.setattr(t.fs, "open", refusing)


def test_no_jackpot_wager_is_taken_while_a_copy_refuses_its_writes(table, monkeypatch):
    """While one copy of critical memory cannot be written the books stand on the other
    alone, and a power cut while it is written would take the table back to the stale copy,
    rounds old.  The round locked before the fault is settled and paid as it was; the next
    LOCK takes no jackpot wager (the display and the sign say why, the spots stay dim red)
    while the base game plays on; once the copy takes its writes again (the round's own
    commit writes it), the LOCK after that takes the wagers again."""
    royal_round(table)                      # seats 1 and 3 locked with the copies whole
    refuse_copy_writes(table, monkeypatch)
    table.key(True)
    table.press(btn.OK)                     # the royal confirmed and paid: on copy 0 alone
    table.key(False)
    assert table.c.phase == tc.RESULTS and "JP S1 $10001.40" in table.screen()
    assert "COPY 1 WRITE FAILED" in table.memory.status_text()
    assert table.c.view.meter[0] == RESET and len(events_of(table.memory, ev.JACKPOT_HIT)) == 1
    table.press(btn.SETTLE)                 # round 2 opens
    assert "JP CLOSED MEMORY" in table.screen() and table.c.view.meter_fault == "MEM Err"
    wagered = table.c.jackpot.table_meters()["wagered"]
    lock_seats(table, (1, 3))
    assert table.c.phase == tc.LOCKED and table.c.rec.accepted == 0
    assert "JP CLOSED MEMORY\nno wagers taken" in table.screen() and "JP none" in table.screen()
    assert list(table.c.view.seat_light[:3]) == [lights.LOCKED] * 3
    assert table.c.view.meter[0] == RESET and table.c.view.meter_fault == "MEM Err"
    assert table.c.jackpot.table_meters()["wagered"] == wagered
    assert events_of(table.memory, ev.LOCK)[-1][5:7] == (0, 0)
    monkeypatch.undo()                      # the flash takes writes again
    table.deal([(1, "2c 7d"), (3, "4s 8h"), (8, "Qs Js 9h 3h 4h"), (0, "9c 9d")])
    table.settle()                          # round 2's results: the commit writes copy 1
    assert table.c.phase == tc.RESULTS and table.c.view.meter_fault == ""
    assert "FAULT" not in table.memory.status_text()
    table.press(btn.SETTLE)
    assert "JP OPEN" in table.screen()
    table.press(btn.LOCK)                   # the chips left on the spots: round 3's wagers
    assert table.c.rec.accepted == 0b101 and table.c.view.meter[0] == RESET + 2 * PER_WAGER
    assert "2 jackpot wagers" in table.screen()
    books_agree_with_the_log(table)


def test_a_copy_that_keeps_refusing_its_writes_is_logged_once_not_at_every_round(
        table, monkeypatch):
    """A copy file the flash keeps refusing: the log has its failure when it starts and its
    end when the copy is written whole again, and each round in between its own two entries
    (LOCK, SETTLE), as a healthy table; not two more entries and a commit of their own at each
    commit, which filled the log three times as fast and cost the supervisor two thirds of
    the history he audits.  The fault stays shown all along."""
    plain_round(table)
    refuse_copy_writes(table, monkeypatch)
    start, seq = table.memory.log.count, table.memory.seq
    for _ in range(5):
        plain_round(table)
        assert "JP CLOSED MEMORY" in table.screen() and table.c.view.meter_fault == "MEM Err"
        assert "COPY 1 WRITE FAILED" in table.memory.status_text()
    logged = [(e[3], e[4], e[5]) for e in table.memory.log.events(start)]
    assert logged[:4] == [(ev.LOCK, 0, 0b1), (ev.CM_ERROR, 1, ev.REASON_READBACK),
                          (ev.CM_ERROR, 1, ev.REASON_IO), (ev.SETTLE, 0, 0)]
    assert logged[4:] == [(ev.LOCK, 0, 0), (ev.SETTLE, 0, 0)] * 4   # the jackpot closed
    assert table.memory.seq - seq == 5 * 2 + 1
    monkeypatch.undo()                      # the flash takes writes again
    start = table.memory.log.count
    plain_round(table)                      # its LOCK writes copy 1 whole: the end logged
    logged = [(e[3], e[4], e[5]) for e in table.memory.log.events(start)]
    assert logged == [(ev.LOCK, 0, 0), (ev.CM_RECOVERED, 1, 0xFFFF), (ev.SETTLE, 0, 0)]
    assert "JP OPEN" in table.screen() and table.c.view.meter_fault == ""
    assert "FAULT" not in table.memory.status_text()


def test_an_idle_table_writes_a_failed_copy_again_and_opens_its_jackpot(table, monkeypatch):
    """Between rounds nothing is committed before LOCK: the table writes the failed copy
    again itself (2 s after the fault is seen in OPEN, then twice as long at each failure,
    the failure logged once, its end once), so that a copy back after a glitch opens the
    jackpot before the players bet, and one that keeps failing is not written at every loop
    pass."""
    refuse_copy_writes(table, monkeypatch)
    start = table.memory.log.count
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())       # the door's entry: copy 1 fails
    table.chip(1)
    table.chip(1, ante=True)
    assert "JP CLOSED MEMORY" in table.screen() and table.c.view.seat_light[0] == lights.LOCKED
    seq = table.memory.seq
    for _ in range(3100):                   # 62 s of 20 ms loop passes, the copy refusing
        table.c.tick(table.tick(), 1000 + table.now // 1000)
    # retries 2, 6, 14 and 30 s after (the next at 62 s): a commit each, nothing new to log
    assert table.memory.seq - seq == 4 and "JP CLOSED MEMORY" in table.screen()
    assert [(e[3], e[4], e[5]) for e in table.memory.log.events(start)] == [
        (ev.DOOR_OPEN, 1, 0), (ev.CM_ERROR, 1, ev.REASON_READBACK), (ev.CM_ERROR, 1, ev.REASON_IO)]
    monkeypatch.undo()
    for _ in range(1000):
        table.c.tick(table.tick(), 1000 + table.now // 1000)
    assert "JP OPEN" in table.screen() and table.c.view.seat_light[0] == lights.PLACED
    assert [(e[3], e[4], e[5]) for e in table.memory.log.events(start + 3)] == [
        (ev.CM_RECOVERED, 1, 0xFFFF)]
    assert table.c.view.meter_fault == "" and "FAULT" not in table.memory.status_text()
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0b1


def test_a_copy_mended_behind_the_logic_door_opens_the_jackpot_when_the_door_closes(
        table, monkeypatch):
    """After a long fault the idle table's retries are far apart (the wait doubles up to
    about 17 minutes).  A technician who opens the logic door, mends the part and closes the
    door must see the jackpot open at once, not at the next retry: the door's own entry is a
    commit, which writes the mended copy and reads it back whole."""
    refuse_copy_writes(table, monkeypatch)
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())       # the door's entry: copy 1 fails
    table.c.panel(btn.DOOR_CLOSED, 0, table.tick(tc._DOOR_LOG_MS))
    for _ in range(600):                    # 10 minutes idle, a loop pass a second
        table.c.tick(table.tick(1000), 1000 + table.now // 1000)
    assert "JP CLOSED MEMORY" in table.screen() and table.c.view.meter_fault == "MEM Err"
    seq = table.memory.seq
    for _ in range(60):                     # the retries are minutes apart by now
        table.c.tick(table.tick(1000), 1000 + table.now // 1000)
    assert table.memory.seq == seq
    start = table.memory.log.count
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    assert "DOOR OPEN" in table.screen()
    monkeypatch.undo()                      # the part mended
    table.c.panel(btn.DOOR_CLOSED, 0, table.tick(tc._DOOR_LOG_MS))
    assert "JP OPEN" in table.screen() and table.c.view.meter_fault == ""
    assert "FAULT" not in table.memory.status_text()
    assert [(e[3], e[4]) for e in table.memory.log.events(start)] == [
        (ev.DOOR_OPEN, 1), (ev.DOOR_CLOSE, 1), (ev.CM_RECOVERED, 1)]


def test_a_copy_repaired_at_boot_keeps_the_jackpot_open_and_one_not_closes_it(
        tmp_path, monkeypatch):
    t = Table(tmp_path)
    t.ram_clear()
    flip_a_bit(tmp_path, "b.bin")
    c = t.boot()                            # b.bin rebuilt from a.bin: repaired
    assert t.memory.status == "repaired" and "JP OPEN" in t.screen()
    flip_a_bit(tmp_path, "b.bin")
    refuse_copy_writes(t, monkeypatch)
    c = t.boot()                            # b.bin cannot be rebuilt: copy 1 failed
    assert "COPY 1" in t.memory.status_text()
    assert "JP CLOSED MEMORY" in t.screen() and c.view.meter_fault == "MEM Err"
    lock_seats(t, (2,))
    assert c.rec.accepted == 0 and "JP CLOSED MEMORY" in t.screen()
