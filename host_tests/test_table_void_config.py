"""Supervisor actions at the edges: a misdeal on a game without a progressive, voids too late
to make, a void seat that cannot fold, and configuration only when no chip is down, on a game
with a jackpot, with a change that waits for the next hit said so."""

import calendar
import sys

import pytest

from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.jackpot import config as jcfg
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.test_controller import (
    Table,
    confirm_and_fail_the_payout,
    cut_at_every_write,
    events_of,
    royal_round,
)


def _open(tmp_path, game=tc.UTH):
    t = Table(tmp_path, game=game)
    t.ram_clear()
    return t


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_misdeal_is_voided_on_a_game_without_a_progressive(tmp_path, game):
    t = _open(tmp_path, game)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    assert t.c.phase == tc.LOCKED
    t.key(True)
    t.press(btn.BACK, long=True)            # misdeal [FCP 11.2, BRS 6.2]
    assert t.c.phase == tc.RESULTS
    assert "ROUND VOID" in t.screen()
    assert [e[6] for e in events_of(t.memory, ev.VOID)] == [0]     # no jackpot money moved


def test_voiding_after_the_results_is_refused_with_a_reason(tmp_path):
    t = _open(tmp_path)
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "2c 7d"), (8, "Qs Js 9s 3h 4h"), (0, "9c 9d")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS
    t.key(True)
    t.press(btn.BACK, long=True)
    assert t.c.phase == tc.RESULTS and "too late to void" in t.screen()
    assert events_of(t.memory, ev.VOID) == []


def test_one_seat_cannot_be_voided_while_the_jackpot_is_checked(tmp_path):
    t = _open(tmp_path)
    royal_round(t)
    assert t.c.phase == tc.CONFIRM
    t.key(True)
    t.press(btn.BACK)
    assert t.c.phase == tc.CONFIRM and "before SETTLE" in t.screen()
    assert events_of(t.memory, ev.VOID) == []


@pytest.mark.parametrize("game, hands, results", [
    (tc.FCP, [(1, "Qc Jd 8h 6s 2c"), (2, "Ah Ad"), (0, "Kc Kd 7h 5s 3c 2d")],
     ["D One Pair", "S1 High L", "S2 void"]),
    (tc.BRS, [(1, "Qc Jd 8h"), (2, "Ah"), (8, "Kc Kd")], ["S1 One Pair 1:1", "S2 void"]),
    (tc.UTH, [(1, "Qc Jd"), (2, "Ah"), (8, "Kc Kd 7h 5s 3c"), (0, "9c 9d")],
     ["D Two Pair", "S1 One Pair L", "S2 void"]),
])
def test_a_seat_voided_before_its_hand_was_dealt_whole_is_on_the_results(
        tmp_path, game, hands, results):
    """Seat 2 takes its cards before the deal is over (cards collected early [FCP 11.15]): the
    supervisor voids it with part of a hand.  The results listed 'S2 void' only for a seat
    voided with its whole hand, and nothing for this one, so the dealer paying from them had
    no word that seat 2's wagers are returned."""
    t = _open(tmp_path, game)
    for seat in (1, 2):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal(hands)
    t.press(btn.UP)                          # seat 2
    t.key(True)
    t.press(btn.BACK)                        # void seat 2
    t.key(False)
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS and t.c.results == results
    t.boot()                                 # the power goes: the same results again
    assert t.c.phase == tc.RESULTS and t.c.results == results


def test_a_void_seat_cannot_fold(tmp_path):
    t = _open(tmp_path)
    t.chip(2)
    t.chip(2, ante=True)
    t.press(btn.LOCK)
    t.press(btn.UP)                          # seat 2
    t.key(True)
    t.press(btn.BACK)                        # void seat 2
    t.key(False)
    assert t.c.rec.voided == 1 << 1
    t.press(btn.OK)
    assert t.c.rec.folded == 0 and "cannot fold" in t.screen()


def _config_menu(t):
    t.key(True)
    t.press(btn.SETTLE, long=True)
    assert t.c.phase == tc.CONFIG


def test_configuration_is_refused_while_a_chip_is_down(tmp_path):
    t = _open(tmp_path)
    t.chip(1)
    _config_menu(t)
    t.press(btn.OK)                          # JP wager: $1.00 -> $2.00?
    assert "Chips on spots" in t.screen()
    assert t.c.jackpot.config.wager == 100 and events_of(t.memory, ev.CONFIG_CHANGE) == []
    t.chip(1, placed=False)
    t.press(btn.OK)
    assert t.c.jackpot.config.wager == 200
    assert "JP wager $2.00\nfrom now on" in t.screen()


def test_a_configuration_change_without_room_for_its_record_is_refused_as_it_was(tmp_path,
                                                                                monkeypatch):
    # the change's record needs larger buffers (split pools, an envy bonus: the service's
    # test) and the heap has no piece for them: refused in the change's own path, never
    # committed to fail a round's commit later
    from firmware.jackpot import codec
    from firmware.store import critical
    from host_tests.test_controller import scarce_heap

    t = _open(tmp_path)
    heap = scarce_heap(monkeypatch, critical, codec, tc)
    bound = tc.jprecord.size_bound
    monkeypatch.setattr(tc.jprecord, "size_bound", lambda jp: bound(jp) + 600)
    heap.limit = len(t.memory._buf) + 1
    seq = t.memory.seq
    _config_menu(t)
    t.press(btn.OK)                          # JP wager: $1.00 -> $2.00?
    assert "MEMORY FAULT" in t.screen() and "allocating" in t.c.last_refusal
    assert t.c.jackpot.config.wager == 100 and t.memory.seq == seq
    assert events_of(t.memory, ev.CONFIG_CHANGE) == []
    heap.limit = None
    t.press(btn.OK)
    assert t.c.jackpot.config.wager == 200 and "from now on" in t.screen()


def test_a_reset_change_says_it_waits_for_the_next_hit(tmp_path):
    t = _open(tmp_path)
    _config_menu(t)
    t.press(btn.DOWN)                        # Reset
    t.press(btn.OK)                          # $10,000.00 -> off (the first choice)
    t.press(btn.OK)                          # -> $1,000.00
    assert "Reset $1000.00\nafter next hit" in t.screen()
    t.c.message = ""
    t.c._render()
    assert "*after next hit" in t.screen() and "$1000.00*" in t.screen()
    assert t.c.jackpot.config.pools[0].reset == 1000000   # the pool keeps its reset till a hit


def test_a_reset_change_that_takes_effect_at_a_hit_is_logged_then(tmp_path):
    t = _open(tmp_path)
    _config_menu(t)
    t.press(btn.DOWN)
    t.press(btn.OK)                          # the reset: $10,000.00 -> off
    t.press(btn.OK)                          # -> $1,000.00, after a hit
    t.press(btn.BACK)
    t.key(False)
    requested = events_of(t.memory, ev.CONFIG_CHANGE)
    royal_round(t)
    t.key(True)
    t.press(btn.OK)                          # the royal is paid: the new reset takes effect
    assert t.c.jackpot.config.pools[0].reset == 100000
    applied = events_of(t.memory, ev.CONFIG_CHANGE)[len(requested):]
    # logged in the settle's commit, as the service logs a change: a = 100 + the key's index
    # among the configuration's items (docs/service-protocol.md: 109 is main.reset)
    assert [e[4:7] for e in applied] == [(109, 1000000, 100000)]
    assert applied[0][2] == t.c.rec.round_no


def test_no_configuration_menu_on_a_game_without_a_jackpot(tmp_path):
    t = _open(tmp_path, tc.FCP)
    t.key(True)
    t.press(btn.SETTLE, long=True)
    assert t.c.phase == tc.OPEN and "No jackpot on" in t.screen()


def test_a_refusal_cut_on_the_display_is_whole_in_the_service_status(tmp_path, monkeypatch):
    from host_tests.test_service import Table as ServiceTable

    t = ServiceTable(tmp_path)
    t.ram_clear()
    reason = "pool reset 500 cents is below the table's minimum of 1000 cents"

    def refuse(changes):
        raise ValueError(reason)

    monkeypatch.setattr(t.c.jackpot, "set_config", refuse)
    _config_menu(t)
    t.press(btn.OK)
    assert "Config refused\n" + reason[:16] in t.screen()
    status = t.ask("status")
    assert status["ok"] and status["last_refusal"] == "Config refused: " + reason


def test_the_ram_clear_screen_names_the_pools_as_the_configuration_does(tmp_path):
    # "main", "minor", "major": the names of config.json, config_set and the service's meters
    # (it said "pool0"); an amount too long for the name is never cut, the name is
    t = Table(tmp_path)                      # blank memory: RAM ERROR
    t.c.jackpot_config = jcfg.build({"split": True, "minor": {"reset": 50000},
                                     "major": {"reset": 123456789}})
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR
    screen = t.screen().splitlines()
    assert "minor $500.00" in screen and "maj $1234567.89" in screen
    assert not any(line.startswith("pool") for line in screen)


def test_the_ram_clear_screen_shows_why_ok_did_nothing(tmp_path):
    t = Table(tmp_path)                      # blank memory: RAM ERROR
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR
    t.key(False)
    t.press(btn.OK)                          # accept without the key
    assert t.c.phase == tc.RAM_CLEAR and "Supervisor key\nneeded" in t.screen()


def test_a_power_cut_while_the_supervisor_is_awaited_keeps_the_cards(tmp_path):
    t = _open(tmp_path)
    royal_round(t)
    assert t.c.phase == tc.CONFIRM           # a royal: waiting for the supervisor
    c = t.boot()                             # the power goes and comes back
    assert c.phase == tc.LOCKED and "SETTLE again" in t.screen()
    assert c._hole(0) == cards.parse("As Ks") and len(c._cards_of(c.rec.board)) == 5
    t.press(btn.SETTLE)                      # no card keyed again
    assert c.phase == tc.CONFIRM
    t.key(True)
    t.press(btn.OK)
    assert c.phase == tc.RESULTS and len(events_of(t.memory, ev.JACKPOT_HIT)) == 1
    assert c.jackpot.audit() == []


def test_a_power_cut_after_the_payout_brings_the_results_back(tmp_path):
    t = _open(tmp_path)
    royal_round(t)
    t.key(True)
    t.press(btn.OK)                          # the supervisor confirms
    t.key(False)
    paid = list(t.c.results)
    assert paid[-1] == "JP S1 $10001.40"
    c = t.boot()                             # the power goes before the dealer has paid
    assert c.phase == tc.RESULTS and c.results == paid
    assert "Round 1 settled\nbefore power cut" in t.screen()
    assert len(events_of(t.memory, ev.JACKPOT_HIT)) == 1       # paid once, not again
    t.press(btn.SETTLE)
    assert c.phase == tc.OPEN and c.rec.round_no == 2


def test_a_power_cut_after_a_misdeal_shows_the_void_again(tmp_path):
    t = _open(tmp_path)
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.key(True)
    t.press(btn.BACK, long=True)
    c = t.boot()
    assert c.phase == tc.RESULTS and c.results == ["ROUND VOID", "wagers returned"]
    assert "Round 1 void" in t.screen()


def test_the_last_results_can_be_recalled_after_a_double_tap(tmp_path):
    t = _open(tmp_path)
    for seat in range(1, 8):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(s, h) for s, h in zip(range(1, 8), ("As Ks", "2c 7d", "3c 8d", "4c 9d", "5c Td",
                                                   "6c Jd", "7c Qd"))]
           + [(8, "Qs Js Ts 3h 4h"), (0, "9c 9h")])
    t.settle()
    results = list(t.c.results)
    assert len(results) > 6                          # more than one screen
    t.press(btn.SETTLE)                              # a double tap: past the results
    assert t.c.phase == tc.OPEN
    t.press(btn.SETTLE, long=True)                   # hold SETTLE: the last round again
    screen = t.screen().split("\n")
    assert screen[0] == "LAST ROUND 1" and screen[1:7] == results[:6] and screen[7] == "UP/DN v"
    t.press(btn.DOWN)                                # scrolls them, not the seat cursor
    assert t.screen().split("\n")[6] == results[6] and t.c.cursor == 0
    t.press(btn.OK)                                  # any other button ends it and does its job
    assert "LAST ROUND" not in t.screen() and t.c.ante_marked == 1
    t.press(btn.SETTLE, long=True)
    t.c.tick(t.tick(tc._RECALL_MS), 2000)             # and it ends by itself
    assert "LAST ROUND" not in t.screen()


def test_a_round_settled_without_result_lines_is_not_recalled_as_the_round_before(tmp_path):
    """Round 2 had no jackpot wager and no seat's cards read (the board alone settles it):
    holding SETTLE in round 3 must not show round 1's results as "LAST ROUND 2"."""
    t = _open(tmp_path)
    royal_round(t)
    t.settle()
    for seat in (1, 3):                              # the wagers collected
        t.chip(seat, placed=False)
        t.chip(seat, placed=False, ante=True)
    t.press(btn.SETTLE)                              # round 2
    t.press(btn.LOCK)
    t.deal([(8, "2c 3d 4h 5s 9c")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS and t.c.results == []
    t.press(btn.SETTLE)                              # round 3
    t.press(btn.SETTLE, long=True)
    screen = t.screen().split("\n")
    assert screen[0] == "LAST ROUND 2" and not any(screen[1:7])

def test_no_results_to_recall_before_the_first_round(tmp_path):
    t = _open(tmp_path)
    t.press(btn.SETTLE, long=True)
    assert "No results yet" in t.screen() and not t.c.recalling





def test_a_seat_cannot_be_voided_once_its_jackpot_confirmation_is_committed(tmp_path, monkeypatch):
    """OK committed the confirmation of seat 1's royal, the payout's commit failed: the
    boot after a power cut pays the confirmed hands.  Voiding a seat then would return a
    wager the cut still pays on (or change the hands paid): refused, as a fold is."""
    t = _open(tmp_path)
    royal_round(t)                           # seats 1 (royal) and 3
    confirm_and_fail_the_payout(t, monkeypatch)     # confirmed; the payout's commit fails
    assert t.memory.step == 2 and t.c.phase == tc.LOCKED
    for seat in (0, 2):                      # the winner, then the other jackpot seat
        t.c.cursor = seat
        t.press(btn.BACK)                    # key + BACK: void the cursor seat
        assert t.c.rec.voided == 0 and "cannot void seat" in t.screen()
    assert events_of(t.memory, ev.VOID) == []
    c = t.boot()                             # the power goes: the confirmed hands are paid
    assert [e[4:7] for e in events_of(t.memory, ev.JACKPOT_HIT)] == [(1, 4, 1000140)]
    assert c.jackpot.audit() == []


def test_a_round_locked_before_the_game_was_changed_is_finished_under_its_own_game(tmp_path):
    """A UTH round is locked with two jackpot wagers; the power goes, config.json is switched
    to Four Card Poker, the power comes back.  The round is still UTH's: its jackpot hands
    are settled and paid (the books balance, no jackpot round left open to refuse every later
    LOCK), and the next round is Four Card Poker."""
    t = _open(tmp_path)
    for seat in (1, 3):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.game = tc.FCP                          # the file now says "fcp"
    c = t.boot()
    assert c.phase == tc.LOCKED and "Round 1 is UTH\nFCP next round" in t.screen()
    assert "JP 13" in t.screen()
    t.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.settle()
    assert c.phase == tc.RESULTS and "JP S1 $10001.40" in c.results
    assert c.jackpot.open_round == 0 and c.jackpot.audit() == []
    again = t.boot()                         # its results again, as UTH's
    assert again.results == c.results and again.phase == tc.RESULTS
    t.press(btn.SETTLE)                      # the next round: Four Card Poker
    assert again.phase == tc.OPEN and again.game == tc.FCP and "FOUR CARD POKER" in t.screen()
    assert again.view.meter_slots == ()
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    assert again.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"]


def test_a_four_card_poker_round_resumed_on_a_table_switched_to_uth_stays_four_card_poker(tmp_path):
    t = _open(tmp_path, tc.FCP)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.game = tc.UTH
    c = t.boot()
    assert c.phase == tc.LOCKED and "Round 1 is FCP\nUTH next round" in t.screen()
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    assert c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"]
    t.press(btn.SETTLE)
    assert c.game == tc.UTH and "JP OPEN" in t.screen()
    t.chip(2)
    t.chip(2, ante=True)
    t.press(btn.LOCK)                        # the progressive takes wagers again
    assert c.phase == tc.LOCKED and c.rec.accepted == 0b10
    assert "firmware.table.othergames" not in sys.modules


def _board(tmp_path, monkeypatch, game, keyed):
    """The simulator's board powered up, config.json saying `game`, its program checked with
    the manifest's key (keyed) or without it (the boot's program facts, firmware.startup)."""
    from firmware.app import App
    from tools.sim import Simulation

    facts = {"ok": True, "authenticated": keyed, "text": "verified", "digest": "d"}
    boot = App.__dict__["boot"]
    monkeypatch.setattr(App, "boot", lambda app, now, wall, program=None: boot(app, now, wall, facts))
    try:
        return Simulation(str(tmp_path), game=game)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("locked, file_game, screen, reset, sign, seeded", [
    # the file's UTH seeds its $10,000.00 pool: the sign showed 0.00, the meters no addition,
    # and the RAM CLEAR screen "no jackpot pool" over a table that then took jackpot wagers
    ("fcp", "uth", ["reset values:", "main $10000.00"], {"main": 1000000}, "10000.00", 1000000),
    # the file's Four Card Poker has no pool: the screen offered "main $0.00" to reset
    ("uth", "fcp", ["FOUR CARD POKER", "no jackpot pool"], {}, "", 0)])
def test_a_ram_clear_over_a_round_of_another_game_starts_the_files_game_and_jackpot(
        tmp_path, monkeypatch, locked, file_game, screen, reset, sign, seeded):
    """A keyed table locks a round (seat 1's Ante, at UTH its jackpot wager too); the power
    goes, config.json is switched to the other game and the program comes back without its
    key: RAM ERROR, the round kept under its own game.  The supervisor's RAM clear (started
    from the service, accepted on the panel) resets the table the file describes, as a RAM
    clear of a blank table would: its RAM CLEAR screen, the service's reset values, the pool
    on the sign, the amount the log's entry and the meters account for."""
    from firmware import service as svc

    b = _board(tmp_path, monkeypatch, locked, True)
    b.key(True)
    b.press("OK", long=True)
    b.press("OK")
    b.key(False)
    b.chip(1, ante=True)
    if locked == "uth":
        b.chip(1)
    b.press("LOCK")
    assert b.controller.phase == tc.LOCKED and b.controller.memory.keyed
    b = _board(tmp_path, monkeypatch, file_game, False)       # the power back, keyless
    c = b.controller
    assert c.phase == tc.RAM_ERROR and c.game == locked
    b.key(True)
    started = svc.Service(c).handle("ram_clear")
    b.run(400)
    assert started["ok"] and started["reset"] == reset
    assert b.display()[:3] == ["RAM CLEAR?"] + screen
    b.press("OK")
    b.key(False)
    b.run(6000)                              # the sign counts up to the pool
    assert c.phase == tc.OPEN and c.game == file_game
    assert b.meter_text(0) == sign
    assert events_of(c.memory, ev.RAM_CLEAR)[-1][6] == seeded     # the pool's seed, logged
    assert c.jackpot.table_meters()["operator_additions"] == seeded and c.jackpot.audit() == []
    if file_game == "uth":                   # a jackpot wager on the seeded pool
        b.chip(2, ante=True)
        b.chip(2)
        b.press("LOCK")
        b.run(6000)
        assert c.rec.accepted == 0b10 and b.meter_text(0) == "10000.70"


def test_a_round_record_written_before_it_named_its_game_is_still_read():
    from firmware.table import roundrecord

    rec = roundrecord.RoundRecord()
    rec.round_no, rec.accepted = 12, 0b101
    rec.hole[0:2] = bytes(cards.parse("As Ks"))
    old = bytearray(roundrecord.encode(rec)[:-1])    # version 2: no game byte
    old[2] = 2
    back = roundrecord.decode(bytes(old))
    assert (back.round_no, back.accepted, back.game) == (12, 0b101, roundrecord.UNKNOWN)
    assert bytes(back.hole[0:2]) == bytes(cards.parse("As Ks"))
    assert roundrecord.holds_cards(bytes(old))


def _version_1_round(round_no, accepted, hole, dealer=b"", board=b"", folded=0):
    """The round record as the first firmware with critical memory wrote it (version 1, a
    UTH-only table): header, then 2 places a seat, 2 for the dealer, 5 for the board."""
    places = bytearray([0xFF] * 21)
    for seat, text in hole.items():
        places[2 * (seat - 1):2 * seat] = bytes(cards.parse(text))
    places[14:14 + len(dealer)] = dealer
    places[16:16 + len(board)] = board
    return (b"RD\x01" + bytes([round_no & 0xFF, round_no >> 8, 0, 0, 1, accepted, folded, 0])
            + bytes(places))


def test_a_round_record_of_the_first_format_is_still_read():
    from firmware.table import roundrecord

    old = _version_1_round(300, 0b101, {1: "As Ks", 3: "2c 7d"}, bytes(cards.parse("9c 9d")),
                           bytes(cards.parse("Qs Js Ts")), folded=0b100)
    back = roundrecord.decode(old)
    assert (back.round_no, back.accepted, back.folded, back.game) == (300, 0b101, 0b100,
                                                                      roundrecord.UNKNOWN)
    assert bytes(back.hole[0:5]) == bytes(cards.parse("As Ks")) + b"\xff" * 3
    assert bytes(back.hole[10:12]) == bytes(cards.parse("2c 7d"))
    assert bytes(back.dealer[:3]) == bytes(cards.parse("9c 9d")) + b"\xff"
    assert bytes(back.board[:4]) == bytes(cards.parse("Qs Js Ts")) + b"\xff"
    assert roundrecord.holds_cards(old) and not roundrecord.holds_cards(
        _version_1_round(300, 0b101, {}))
    with pytest.raises(ValueError, match="33 bytes, expected 32"):
        roundrecord.decode(old + b"\xff")


def test_a_table_whose_memory_the_first_format_wrote_resumes_its_locked_round(tmp_path):
    # Firmware from the first with critical memory until the one that dealt the other games
    # wrote round record version 1.  A table upgraded from it in the middle of a round (or
    # between rounds: the record is there all the same) must come back with its round and
    # its pool, not in RAM ERROR, whose only way out, a RAM clear, resets the pool.
    from host_tests.test_controller import rewrite_both_copies

    t = _open(tmp_path)
    for seat in (1, 3):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    pool = t.c.view.meter[0]
    rewrite_both_copies(tmp_path, t.memory, lambda s: s.__setitem__(
        "round", _version_1_round(1, 0b101, {1: "As Ks", 3: "2c 7d"})))
    t.boot()
    assert t.c.phase == tc.LOCKED and t.c.rec.accepted == 0b101 and t.c.view.meter[0] == pool
    t.deal([(8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])      # the hole cards came back from memory
    t.settle()
    assert t.c.phase == tc.RESULTS and "JP S1 $10001.40" in t.c.results


def _boot_with_seats(t, seats, game=tc.UTH):
    """The power comes back with the file's rules.seats changed to `seats`."""
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = tc.RoundController(t.memory, seats=seats, game=game)
    t.c.boot(t.now, 1000 + t.now)
    return t.c


def test_confirmed_hands_are_paid_at_the_boot_though_the_file_now_has_fewer_seats(tmp_path, monkeypatch):
    """Seats 1 (a royal) and 6 play; OK commits the confirmation, the payout's commit fails;
    the power goes and the file now says 5 seats.  The boot pays the hands as confirmed (seat
    6's committed cards included), not stop in OPEN with the round's jackpot still open and
    every LOCK refused."""
    t = _open(tmp_path)
    for seat in (1, 6):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "As Ks"), (6, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.CONFIRM
    confirm_and_fail_the_payout(t, monkeypatch)
    c = _boot_with_seats(t, 5)
    assert c.phase == tc.RESULTS and "JP S1 $10001.40" in c.results
    assert c.jackpot.open_round == 0 and c.jackpot.audit() == []
    t.press(btn.SETTLE)
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    assert c.phase == tc.LOCKED and c.rec.accepted == 0b1


def test_a_locked_round_with_a_seat_the_file_no_longer_has_waits_for_its_hand(tmp_path):
    """Seat 6's wager is locked, then the file says 5 seats: SETTLE must not settle the
    jackpot without seat 6's hand (it names what it needs, no false tamper alarm for a spot
    the table no longer reads); the supervisor voids the round, every wager returned."""
    t = _open(tmp_path)
    for seat in (1, 6):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    c = _boot_with_seats(t, 5)
    c.spot(sens.PLACED, sens.jackpot_spot(1), t.tick())
    c.tick(t.tick(600), 2000)                # the boot's sensor scan
    assert c.tamper == 0 and events_of(t.memory, ev.TAMPER) == []
    t.deal([(1, "As Ks"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.press(btn.SETTLE)
    assert c.phase == tc.LOCKED and "need seat 6 hand" in t.screen()
    t.key(True)
    t.press(btn.BACK, long=True)
    assert c.phase == tc.RESULTS and c.jackpot.open_round == 0 and c.jackpot.audit() == []
    assert [e[5:7] for e in events_of(t.memory, ev.VOID)] == [(0b100001, 200)]


def _other_game_hands(game):
    """Seat 1's, seat 6's and the dealer's (BRS: the board's) cards of a round at game."""
    if game == tc.FCP:
        return [(1, "Qc Jd 8h 6s 2c"), (6, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")]
    return [(1, "Qc Jd 8h"), (6, "Ah Ad As"), (8, "Kc Kd")]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_results_keep_a_seat_the_file_no_longer_has_at_a_game_without_a_progressive(tmp_path, game):
    """Four Card Poker (Big Raise Stud): seats 1 and 6 play and the round is settled; the
    power goes before the dealer has paid, and the file now says 5 seats.  The results the
    boot shows again ("settled before power cut") must still list seat 6's winning hand, or
    the dealer pays from a list that lacks it."""
    t = _open(tmp_path, game)
    for seat in (1, 6):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal(_other_game_hands(game))
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS
    before = list(t.c.results)
    assert [r for r in before if r.startswith("S6")]
    c = _boot_with_seats(t, 5, game)
    assert c.phase == tc.RESULTS and c.results == before


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_locked_round_settles_a_seat_the_file_no_longer_has_at_a_game_without_a_progressive(
        tmp_path, game):
    """Seats 1, 2 and 6 play; seat 2 is voided, which commits the cards (seat 6's whole
    hand), the power goes and the file now says 5 seats.  SETTLE must settle seat 6's
    committed hand, not leave it off the results."""
    t = _open(tmp_path, game)
    for seat in (1, 2, 6):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal(_other_game_hands(game))
    t.press(btn.UP)                          # seat 2
    t.key(True)
    t.press(btn.BACK)                        # void seat 2: the round's cards committed
    t.key(False)
    c = _boot_with_seats(t, 5, game)
    assert c.phase == tc.LOCKED
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS and [r for r in c.results if r.startswith("S6")]


def _cut_with_part_of_a_hand(tmp_path, game):
    """Seats 1, 2 and 6 play; seat 6 has only its first two cards when seat 2's void
    commits the round's cards; the power goes and the file now says 5 seats.  Returns the
    table, its new controller and seat 6's cards still to deal."""
    t = _open(tmp_path, game)
    for seat in (1, 2, 6):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    hands = _other_game_hands(game)
    t.deal([hands[0], (6, hands[1][1][:5]), hands[2]])
    t.press(btn.UP)                          # seat 2
    t.key(True)
    t.press(btn.BACK)                        # void seat 2: the round's cards committed
    t.key(False)
    return t, _boot_with_seats(t, 5, game), hands[1][1][6:]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_the_file_no_longer_has_with_part_of_its_hand_can_be_dealt(tmp_path, game):
    """The resumed round asks for seat 6's hand ('need seat 6 2/n'): the shoe's cards for
    it must be taken (not 'bad dest 6'), or only a misdeal ends the round, as it did at UTH
    for a jackpot seat."""
    t, c, rest = _cut_with_part_of_a_hand(tmp_path, game)
    assert c.phase == tc.LOCKED and "need seat 6 2/" in t.screen()
    t.deal([(6, rest)])
    assert "refused" not in t.screen() and "need seat" not in t.screen()
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS and [r for r in c.results if r.startswith("S6")]


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_the_file_no_longer_has_with_part_of_its_hand_can_be_folded(tmp_path, game):
    """The cursor reaches such a seat, so that the dealer can fold it (its player gone)."""
    t, c, _ = _cut_with_part_of_a_hand(tmp_path, game)
    t.press(btn.DOWN)                        # from seat 1 down: seat 6, past the file's five
    assert c.cursor == 5
    t.press(btn.OK)                          # folded
    assert "need seat" not in t.screen()

@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_the_file_no_longer_has_with_part_of_its_hand_can_still_be_dealt_or_folded(
        tmp_path, game):
    """Seats 1, 2 and 6 play; seat 6 has part of its hand when seat 2 is voided, and the power
    goes at any write of that void's commit; it comes back with the file saying 5 seats.
    Where seat 6's cards were committed, SETTLE asks for the rest of its hand: the shoe's
    cards for seat 6 must be taken and the cursor must reach it (to fold it), as for a UTH
    jackpot seat, not 'bad dest 6' with the round stuck until the supervisor voids it all."""
    hand = 5 if game == tc.FCP else 3
    rest = [(0, "Kc Kd 7h 5s 3c 2d")] if game == tc.FCP else [(8, "Kc Kd")]

    def action(t):
        for seat in (1, 2, 6):
            t.chip(seat, ante=True)
        t.press(btn.LOCK)
        t.deal([(1, "Qc Jd 8h 6s 2c"[:3 * hand - 1]), (6, "Ah Ad")])
        t.press(btn.UP)                      # seat 2
        t.key(True)
        t.press(btn.BACK)                    # void seat 2: the round's cards committed
        t.key(False)

    def check(t, state, before, after, cut):
        c = _boot_with_seats(t, 5, game)
        if state != after:
            return                           # seat 6's cards were lost with the cut: not owed
        assert c.phase == tc.LOCKED
        for seat in (1, 6):
            t.chip(seat, ante=True)          # what the sensors report (seat 6's: not read)
        t.deal(rest)
        t.press(btn.SETTLE)
        assert "need seat 6 2/%d" % hand in t.screen()
        t.deal([(6, "As 9c 4h"[:3 * (hand - 2) - 1])])
        assert c.last_refusal == "" and c._hole(5) == cards.parse("Ah Ad As 9c 4h"[:3 * hand - 1])
        t.press(btn.SETTLE)
        assert c.phase == tc.RESULTS and [r for r in c.results if r.startswith("S6")]

    assert cut_at_every_write(tmp_path, lambda d: _open(d, game), action, check) == 4
    # the cursor reaches seat 6, past the file's five, so that its player can fold
    (tmp_path / "fold").mkdir()
    t = _open(tmp_path / "fold", game)
    action(t)
    c = _boot_with_seats(t, 5, game)
    t.deal(rest)
    t.press(btn.DOWN)
    assert "S6 Ah Ad" in t.screen()
    t.press(btn.OK)
    assert "FOLDED" in t.screen() and c.rec.folded == 1 << 5
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_seat_marked_on_the_panel_the_file_no_longer_has_is_asked_for_and_dealt(tmp_path, game):
    """Seat 6's Ante (BRS: Risk) is marked on the panel (its sensor does not see the chip) and
    the round locked; the power goes and the file now says 5 seats.  The mark came back with
    the round: SETTLE asks for seat 6's hand, and the shoe's cards for it are taken."""
    hand = "Qc Jd 8h 6s 2c" if game == tc.FCP else "Qc Jd 8h"
    t = _open(tmp_path, game)
    t.chip(1, ante=True)
    t.press(btn.DOWN)
    t.press(btn.DOWN)                        # from seat 1 down: seat 6
    t.press(btn.OK)                          # its Ante marked
    t.press(btn.LOCK)
    c = _boot_with_seats(t, 5, game)
    t.chip(1, ante=True)
    t.deal([(1, hand), (0, "Kc Kd 7h 5s 3c 2d") if game == tc.FCP else (8, "Kc Kd")])
    t.press(btn.SETTLE)
    assert c.phase == tc.LOCKED and "need seat 6 0/%d" % c.seat_cards in t.screen()
    t.deal([(6, "Ah Ad As 9c 4h"[:len(hand)])])
    assert c.last_refusal == ""
    t.press(btn.SETTLE)
    assert c.phase == tc.RESULTS and [r for r in c.results if r.startswith("S6")]


def test_a_confirmed_payout_the_boot_cannot_make_leaves_the_round_locked_not_open(tmp_path, monkeypatch):
    """Should the boot's payout of confirmed hands be refused, the round stays LOCKED, where
    SETTLE tries again and the supervisor can void it; OPEN would refuse every LOCK."""
    from firmware.jackpot import pools

    t = _open(tmp_path)
    royal_round(t)
    confirm_and_fail_the_payout(t, monkeypatch)

    def refused(*args, **kwargs):
        raise ValueError("refused")

    monkeypatch.setattr(pools.Jackpot, "settle", refused)
    c = t.boot()
    assert c.phase == tc.LOCKED and "Cannot settle\nrefused" in t.screen()
    monkeypatch.undo()
    t.press(btn.SETTLE)
    t.key(True)
    t.press(btn.OK)
    assert c.phase == tc.RESULTS and len(events_of(t.memory, ev.JACKPOT_HIT)) == 1


def test_a_void_that_fails_at_the_jackpot_confirmation_stays_there(tmp_path, monkeypatch):
    """Key + long BACK at CONFIRM, and the void's commit fails: the jackpot hands are still
    waiting for the supervisor.  Dropping to LOCKED would let the dealer fold the winner and
    settle with no jackpot and no JACKPOT_SENT_BACK in the log."""
    t = _open(tmp_path)
    royal_round(t)
    t.key(True)
    real_commit = t.memory.commit

    def void_fails(round_no, step, *args, **kwargs):
        if step == 4:
            raise OSError(5, "flash write failed")
        return real_commit(round_no, step, *args, **kwargs)

    monkeypatch.setattr(t.memory, "commit", void_fails)
    t.press(btn.BACK, long=True)
    assert t.c.phase == tc.CONFIRM and "MEMORY FAULT" in t.screen()
    assert t.c.jackpot.open_round == 1 and t.c.jackpot.audit() == []


def test_a_round_locked_before_the_hand_rule_changed_keeps_its_rule(tmp_path):
    """hole2_board3 when the round was locked, best5of7 in the file after the power cut: the
    round's verdicts are still read with both hole cards and three of the board."""
    t = _open(tmp_path)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = c = tc.RoundController(t.memory, hand_rule=tc.BEST5OF7)
    c.boot(t.now, 1000)
    assert c.hand_rule == tc.HOLE2_BOARD3 and "Round 1 old rule\nnew rule next" in t.screen()
    # the board's straight plays for the dealer's hand only under best5of7
    t.deal([(1, "2c 3d"), (8, "9s Th Jc Qd Kh"), (0, "4s 4h")])
    t.press(btn.SETTLE)
    assert c.results == ["D One Pair", "S1 High L"]     # best5of7: the board straight, a tie
    t.press(btn.SETTLE)
    assert c.hand_rule == tc.BEST5OF7


def _ceiling_table(tmp_path, ceiling):
    """A table whose file sets a $1,000.00 reset under `ceiling` cents, RAM cleared."""
    t = Table(tmp_path)
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = tc.RoundController(t.memory, jackpot_config={"main": {"reset": 100000,
                                                                "ceiling": ceiling}})
    t.c.boot(t.now, 1000 + t.now)
    t.ram_clear()
    return t


def test_the_reset_steps_past_a_choice_the_ceiling_refuses(tmp_path):
    """The menu steps each setting round its choices: one the table's ceiling refuses
    ($10,000.00 over a $7,000.00 ceiling) is passed over, never a wall that keeps the
    supervisor from ever getting back to the $1,000.00 reset from the panel."""
    t = _ceiling_table(tmp_path, 700000)
    _config_menu(t)
    t.press(btn.DOWN)                        # Reset
    t.press(btn.OK)                          # $1,000.00 -> $5,000.00
    assert t.c.jackpot.requested_config().pools[0].reset == 500000
    t.press(btn.OK)                          # $10,000.00 is over the ceiling: off
    assert t.c.jackpot.requested_config().pools[0].reset == 0
    assert "Reset $0.00" in t.screen() and "refused" not in t.screen()
    t.press(btn.OK)                          # -> $1,000.00
    assert t.c.jackpot.requested_config().pools[0].reset == 100000
    assert "Reset $1000.00" in t.screen() and "refused" not in t.screen()
    changes = [e[4:7] for e in events_of(t.memory, ev.CONFIG_CHANGE)]
    assert changes == [(109, 100000, 500000), (109, 500000, 0), (109, 0, 100000)]   # main.reset


def test_the_reset_can_be_turned_off_from_the_panel(tmp_path):
    # rules.md: the reset (seed) is an operator option, off by default: the panel reaches off
    # from any reset, under any ceiling ($5,000.00 and $10,000.00 are over $3,000.00 here)
    t = _ceiling_table(tmp_path, 300000)
    _config_menu(t)
    t.press(btn.DOWN)
    t.press(btn.OK)
    assert t.c.jackpot.requested_config().pools[0].reset == 0
    assert "Reset $0.00" in t.screen() and "refused" not in t.screen()
    assert [e[4:7] for e in events_of(t.memory, ev.CONFIG_CHANGE)] == [(109, 100000, 0)]


def test_a_setting_no_other_choice_of_fits_names_the_setting_in_the_way(tmp_path, monkeypatch):
    # Every reset fits some choice now that off is one, and every wager choice fits the pay
    # table's limits: a configuration refusing them all is stood in for, as the jackpot
    # refuses a change (ValueError naming the key)
    t = _ceiling_table(tmp_path, 300000)
    _config_menu(t)
    t.press(btn.DOWN)

    def refuse(changes):
        raise ValueError("config main.ceiling: 300000 is below the reset %r" % (changes,))

    monkeypatch.setattr(t.c.jackpot, "set_config", refuse)
    t.press(btn.OK)
    assert "Config refused\nsee main.ceiling" in t.screen()   # not "config main.ceil"
    assert t.c.jackpot.requested_config().pools[0].reset == 100000
    assert events_of(t.memory, ev.CONFIG_CHANGE) == []
    assert "main.ceiling: 300000 is below" in t.c.last_refusal


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_ram_clear_on_a_game_without_a_progressive_resets_no_pool(tmp_path, game):
    """Its RAM CLEAR screen says "no jackpot pool": the word after the clear must not say a
    pool was reset (the sign shows none)."""
    t = _open(tmp_path, game)
    assert "RAM cleared" in t.screen() and "pool" not in t.screen()


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_ram_clear_on_a_game_without_a_progressive_puts_no_money_in_a_pool(tmp_path, game):
    """The supervisor accepted "no jackpot pool" (the file's reset is $10,000.00): the RAM
    clear still seeded the pool, $10,000.00 on the operator additions meter, while its log
    entry said 0 was put in; with the file then changed to UTH the pool opened at $10,000.00
    that no entry of the log accounts for (the audit's log and meters disagree)."""
    t = _open(tmp_path, game)
    assert [e[3:7] for e in t.memory.log.events()] == [(ev.RAM_CLEAR, 1, 0, 0)]
    meters = t.c.jackpot.table_meters()
    assert meters["operator_additions"] == 0 and sum(t.c.jackpot.value) == 0
    assert t.c.jackpot.audit() == []
    t.game = tc.UTH                          # the file now says UTH: the same memory
    t.boot()
    assert t.c.phase == tc.OPEN and t.c.jackpot_open() and t.c.view.meter[0] == 0
    assert t.c.jackpot.config.pools[0].reset == 1000000    # the file's, at the next hit


def test_a_bad_record_at_boot_says_why_in_full(tmp_path):
    """A round record the boot cannot read (a version this program does not know): the
    display shows the reason on the three lines it has for it, not cut after 32 columns, and
    the service's status has it whole, where the memory itself reads "ok"."""
    from firmware.service import Service

    t = _open(tmp_path)
    bad = bytearray(t.memory.section("round"))
    bad[2] = 99                             # the record's version
    t.memory.commit_admin({"round": bytes(bad)}, [], 1000)
    t.boot()
    assert t.c.phase == tc.RAM_ERROR
    why = "bad record: round record version 99, expected 3"
    assert t.c.view.lines[2:5] == [why[:16], why[16:32], why[32:]]
    status = Service(t.c).handle("status")
    assert status["last_refusal"] == "RAM ERROR: " + why


def test_no_results_from_before_a_ram_clear_are_recalled(tmp_path):
    """The memory fails mid-shift and the supervisor clears it: round numbers start again, so
    holding SETTLE must not show the old round's results as "LAST ROUND 0"."""
    t = _open(tmp_path)
    royal_round(t)
    t.key(True)
    t.press(btn.OK)                          # paid
    t.press(btn.SETTLE)                      # the next round
    assert t.c.last_results
    t.c._enter_ram_error("commit failed")    # as a commit that cannot be read back does
    t.press(btn.OK, long=True)
    t.press(btn.OK)                          # RAM clear
    t.key(False)
    assert t.c.phase == tc.OPEN
    t.press(btn.SETTLE, long=True)
    assert "LAST ROUND" not in t.screen() and "No results yet" in t.screen()


def test_the_locked_screen_marks_a_void_seat_at_the_cursor(tmp_path):
    """A voided seat at the cursor: its line says void, not "OK=fold" (which it refuses)."""
    t = _open(tmp_path)
    t.chip(2)
    t.chip(2, ante=True)
    t.press(btn.LOCK)
    t.press(btn.UP)                          # seat 2
    t.key(True)
    t.press(btn.BACK)                        # void seat 2
    t.key(False)
    t.c.tick(t.tick(tc.MESSAGE_MS), 2000)    # its word gone
    assert t.c.view.lines[6] == "S2 VOID  SETTLE"
    t.press(btn.DOWN)                        # seat 1: not void
    assert t.c.view.lines[6] == "OK=fold SETTLE"


# ------------------------------------------------------------------ a file refused at boot

_REFUSED = "config file: not valid JSON: expected ',' or '}' at line 3 column 14"


def _boot_refused(t, ok=False):
    """The power comes back with /config.json refused (ok False) or missing (ok True): the
    boot passes no game (firmware.startup.check_config), and the App says why afterwards."""
    t.game = None
    c = t.boot()
    c.set_config_status(ok, _REFUSED if not ok else "no /config.json: defaults")
    return c


def test_a_refused_file_leaves_the_table_the_game_it_was(tmp_path):
    """A Four Card Poker table's file is corrupted: it stays a Four Card Poker table (its
    round record says so), says CONFIG ERROR and the game, and deals Four Card Poker."""
    t = _open(tmp_path, tc.FCP)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    c = _boot_refused(t)
    assert c.phase == tc.RESULTS
    assert c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"]
    t.press(btn.SETTLE)
    assert c.phase == tc.OPEN and c.game == tc.FCP
    assert c.view.lines[1] == "CONFIG ERROR" and c.view.lines[6] == "FOUR CARD POKER"
    assert not c.jackpot_open() and c.view.meter_fault == "CONF Err"
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    assert c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"]


@pytest.mark.parametrize("ok", [False, True])
def test_a_round_locked_before_the_file_was_lost_resumes_without_a_game_change(tmp_path, ok):
    """Refused or missing: no "UTH next round", the next round is still Big Raise Stud."""
    t = _open(tmp_path, tc.BRS)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    c = _boot_refused(t, ok)
    assert c.phase == tc.LOCKED and c.game == tc.BRS
    assert "next round" not in t.screen() and "Round 1 resumed" in t.screen()
    t.deal([(8, "Th 9h"), (1, "Ah Kh Qh")])
    t.press(btn.SETTLE)
    t.press(btn.SETTLE)
    assert c.phase == tc.OPEN and c.game == tc.BRS and c.jackpot_open() is False
    assert ("CONFIG ERROR" in t.screen()) is not ok


def test_a_missing_file_says_the_table_keeps_the_game_its_memory_records(tmp_path):
    """No /config.json at a Four Card Poker table: it plays Four Card Poker on (its round
    record's game), so the status and the audit menu must not say only "defaults", the
    built-in defaults being a UTH table with the progressive."""
    from firmware.service import Service
    from firmware.table import audit

    t = _open(tmp_path, tc.FCP)
    c = _boot_refused(t, ok=True)
    said = "no /config.json: defaults (fcp kept from memory)"
    assert c.game == tc.FCP and c.config_state() == (True, said)
    reply = Service(c).handle("status")
    assert (reply["game"], reply["config_ok"], reply["config_text"]) == ("fcp", True, said)
    assert "".join(audit.open_menu(c)[i] for i in range(len(audit.open_menu(c)))).count(said) == 1
    # blank memory: nothing recorded, the built-in defaults are what the table runs
    blank = Table(tmp_path / "blank", game=None)
    blank.c.set_config_status(True, "no /config.json: defaults")
    assert blank.c.config_state() == (True, "no /config.json: defaults")


def test_a_refused_file_keeps_the_uth_hand_rule_of_the_table(tmp_path):
    t = Table(tmp_path)
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = tc.RoundController(t.memory, hand_rule=tc.BEST5OF7)
    t.c.boot(t.now, 1000)
    t.ram_clear()
    c = _boot_refused(t)                     # before any round was locked: the RAM clear's
    assert c.game == tc.UTH and c.hand_rule == tc.BEST5OF7
    assert c.view.lines[6] == "ULTIMATE HOLDEM" and not c.jackpot_open()


def test_a_refused_file_and_no_game_recorded_says_the_game_is_unknown(tmp_path):
    """A round record without its game (written before the record had one): nothing tells
    the game; the table says so rather than name the built-in default's."""
    from firmware.table import roundrecord

    t = _open(tmp_path, tc.FCP)
    t.c.rec.game = roundrecord.UNKNOWN
    assert t.c.commit_admin([], t.c._sections()) == ""
    c = _boot_refused(t)
    assert c.phase == tc.OPEN and not c.jackpot_open()
    assert c.view.lines[1] == "CONFIG ERROR" and c.view.lines[6] == "GAME UNKNOWN"



def test_no_ram_clear_while_the_file_is_refused(tmp_path):
    """The RAM clear starts the pool from the file's jackpot settings: with the file refused
    it would start it from the built-in defaults, which stay after the file is fixed."""
    t = Table(tmp_path, game=None)          # blank memory: RAM ERROR
    t.c.set_config_status(False, _REFUSED)
    assert t.c.view.lines[5] == "CONFIG ERROR"      # said before the supervisor tries
    assert t.c.view.lines[6:] == ["fix config file", "then RAM clear"]  # not "KEY+long OK"
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_ERROR and "CONFIG ERROR\nno RAM clear" in t.screen()
    assert t.memory.status == "RAM ERROR"


def _seated(t, seats, game):
    """The power comes back with a file of `seats` seats at `game` (None: missing or refused,
    the board's seven then, as firmware.app.App makes the controller)."""
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = tc.RoundController(t.memory, seats=seats, game=game)
    t.c.boot(t.now, 1000 + t.now)
    return t.c


def _five_seat_round(t, game):
    """A RAM clear and one round (seat 1) at a `game` table whose file says 5 seats."""
    _seated(t, 5, game)
    t.ram_clear()
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.key(True)
    t.press(btn.BACK, long=True)            # a misdeal: the round is over
    t.key(False)
    t.press(btn.SETTLE)
    assert t.c.phase == tc.OPEN and t.c.seats == 5


@pytest.mark.parametrize("game, ok", [(tc.FCP, False), (tc.FCP, True), (tc.UTH, False),
                                      (tc.BRS, True)])
def test_a_table_without_its_file_keeps_the_seats_its_memory_records(tmp_path, game, ok):
    """A 5-seat table whose /config.json is refused (CONFIG ERROR) or missing played all 7
    seats: the rings of seats 6 and 7 lit, their sensors read (a spot left unwired there
    alarms), the seat cursor and the cards went to seats nobody sits at.  The round record
    keeps the seats as it keeps the game: the table stays a 5-seat table."""
    from firmware.service import Service

    t = Table(tmp_path, game=game)
    _five_seat_round(t, game)
    c = _seated(t, 7, None)
    c.set_config_status(ok, _REFUSED if not ok else "no /config.json: defaults")
    assert c.game == game and c.seats == 5 and len(c.view.seat_light) == 5
    assert Service(c).handle("config")["seats"] == 5
    if ok:
        assert c.config_text == "no /config.json: defaults (%s, 5 seats kept from memory)" % game
    c.spot(sens.PLACED, sens.ante_spot(6), t.tick())
    assert c.ante == 0                      # seat 6 is not read
    for _ in range(5):
        t.press(btn.DOWN)
    assert c.cursor == 0                    # the cursor goes round 5 seats
    _seated(t, 7, game)                     # the file is back with 7 seats: the file's
    assert t.c.seats == 7 and len(t.c.view.seat_light) == 7


def _as_the_older_firmware_wrote_it(tmp_path, t):
    """Both copies' round record with its game byte as the firmware before the seats wrote
    it: the game and hand rule only (roundrecord version 3, as now)."""
    from firmware.table import roundrecord
    from host_tests.test_controller import rewrite_both_copies

    def older(sections):
        rec = roundrecord.decode(sections["round"])
        rec.game &= 7
        sections["round"] = roundrecord.encode(rec)

    rewrite_both_copies(tmp_path, t.memory, older)


def test_a_record_of_the_firmware_before_the_seats_reads_and_is_upgraded_at_the_next_lock(tmp_path):
    """An older record names no seats: the table boots (no RAM ERROR, its locked round
    resumed), all seats without a file, as that firmware played; the file's seats are
    recorded from its next LOCK on."""
    t = Table(tmp_path, game=tc.FCP)
    _five_seat_round(t, tc.FCP)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    _as_the_older_firmware_wrote_it(tmp_path, t)
    c = _seated(t, 7, None)
    assert c.phase == tc.LOCKED and c.game == tc.FCP and c.seats == 7 and c.rec.accepted == 0
    assert "Round 2 resumed" in t.screen() and "next round" not in t.screen()
    c = _seated(t, 5, tc.FCP)               # the file is back: the round goes on, 5 seats
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    assert c.results == ["D One Pair", "S1 Trips W", "S1 Bonus Trips", "S1 AcesUp Trips"]
    t.press(btn.SETTLE)
    t.press(btn.LOCK)                        # round 3: the seats recorded with it
    assert _seated(t, 7, None).seats == 5


def test_the_older_firmware_reads_the_game_of_a_record_that_holds_the_seats():
    """The firmware before the seats takes the game from bits 0-1 of the game byte and UTH's
    best5of7 rule from bit 2 (RoundController.boot there: _GAMES[code & 3], code & 4), and
    writes its own byte at the next round: a downgrade plays the game it played."""
    from firmware.table import roundrecord

    for game in (tc.UTH, tc.FCP, tc.BRS):
        for rule in (tc.HOLE2_BOARD3, tc.BEST5OF7):
            for seats in range(1, 8):
                c = tc.RoundController(None, hand_rule=rule, seats=seats, game=game)
                code = c._game_code()
                assert code != roundrecord.UNKNOWN and code & 3 < 3
                assert ((tc.UTH, tc.FCP, tc.BRS)[code & 3], bool(code & 4)) == (
                    game, rule == tc.BEST5OF7)
                rec = roundrecord.RoundRecord()
                rec.game = code
                assert roundrecord.decode(roundrecord.encode(rec)).game == code
                # a round locked with Ante sensors (bit 6): the same game, rule and seats there
                rec.game = code | roundrecord.ANTES_SENSED
                back = roundrecord.decode(roundrecord.encode(rec)).game
                assert (back & 3, back & 4, back // 8 & 7) == (code & 3, code & 4, seats)


def test_a_power_cut_in_the_lock_that_first_records_the_seats_leaves_before_or_after(tmp_path):
    """The seats go into critical memory with the round record of a LOCK (the commit every
    round makes).  Cut the power at every byte of either copy of the first such commit after
    an upgrade: the table without its file boots to the round before it (its misdeal's results,
    all seats, as the older record says) or to the locked round with its 5 seats, never to
    RAM ERROR."""
    t = Table(tmp_path, game=tc.FCP)
    _five_seat_round(t, tc.FCP)
    _as_the_older_firmware_wrote_it(tmp_path, t)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    c = _seated(t, 5, tc.FCP)
    t.press(btn.SETTLE)                     # from the misdeal's results again to OPEN
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    assert c.phase == tc.LOCKED
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert before["a.bin"] != after["a.bin"] and before["b.bin"] != after["b.bin"]
    seen = set()
    for torn, other in (("a.bin", "b.bin"), ("b.bin", "a.bin")):
        for kept in (before, after):
            for cut in range(len(after[torn]) + 1):
                for name in after:
                    (tmp_path / name).write_bytes(after[name])
                (tmp_path / torn).write_bytes(after[torn][:cut])
                (tmp_path / other).write_bytes(kept[other])
                c = _seated(t, 7, None)
                state = (tc.PHASE_NAMES[c.phase], c.seats, c.game)
                assert state in (("RESULTS", 7, tc.FCP), ("LOCKED", 5, tc.FCP)), (torn, cut, state)
                seen.add(state)
    assert len(seen) == 2


def test_the_rings_of_the_seats_a_table_without_its_file_does_not_play_stay_dark(tmp_path):
    """Through the App and the WS2812 bytes, as firmware.app.start boots it: a 5-seat Four
    Card Poker table whose file is then refused lights 5 rings, not 7."""
    import json

    from boards import simulated
    from host_tests.test_startup import boot_app_with_file

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"format": 1, "game": "fcp", "board": simulated.NAME,
                                "rules": {"seats": 5}}))

    def boot():
        app, table = boot_app_with_file(tmp_path, path)
        app.step(20, 1000)                  # the rings written
        return app, table

    app, table = boot()
    c = app.controller
    c.panel(btn.KEY_ON, 0, 30)              # the RAM clear: key + long OK, then OK
    for kind, ms in ((btn.PRESS, 40), (btn.LONG, 1100), (btn.RELEASE, 1200),
                     (btn.PRESS, 1300), (btn.RELEASE, 1400)):
        c.panel(kind, btn.OK, ms)
    assert c.phase == tc.OPEN and c.seats == 5
    path.write_text('{"format": 1, "game": "fcp", "board": "simulated",}')
    app, table = boot()
    assert not app.controller.config_ok and app.controller.seats == 5
    assert [table.strip.lit_count(s) > 0 for s in range(7)] == [True] * 5 + [False] * 2


def test_a_card_for_a_seat_the_table_does_not_play_says_so(tmp_path):
    # a 5-seat table, the shoe (or the panel) sends a card to seat 6: "bad dest 6" sent the
    # dealer looking for a shoe fault; the seat is simply not one the table plays
    t = Table(tmp_path)
    c = _seated(t, 5, tc.UTH)
    t.ram_clear()
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(6, "As")])
    assert "Card refused\nS6 not in play" in t.screen() and c.last_refusal.endswith("S6 not in play")
    assert bytes(c.rec.hole[25:30]) == b"\xff" * 5


def test_the_panels_reset_at_split_pools_names_the_major_pool(tmp_path):
    """With split pools the menu's Reset is the Major pool's (the Minor's is the service's):
    the screen said only "Reset" and the log "config Reset", read as the only pool's reset.
    The screen now names the pool and the log the setting, as the service logs it."""
    from firmware.table import audit

    t = Table(tmp_path, jackpot_config={"split": True, "minor": {"reset": 100000},
                                        "major": {"reset": 1000000}})
    t.ram_clear()
    _config_menu(t)
    lines = t.screen().split("\n")
    assert lines[2] == " Reset $10000.00" and lines[3] == "  of Major pool"
    t.press(btn.DOWN)
    t.press(btn.OK)                          # $10,000.00 -> off
    assert t.c.jackpot.requested_config().pools[jcfg.MAJOR].reset == 0
    assert t.c.jackpot.requested_config().pools[jcfg.MINOR].reset == 100000
    major_reset = [k for k, _ in jcfg.default().items()].index("major.reset")
    logged = [e[4:7] for e in events_of(t.memory, ev.CONFIG_CHANGE)]
    assert logged == [(jcfg.SETTING_BASE + major_reset, 1000000, 0)]
    assert audit.values(ev.CONFIG_CHANGE, *logged[0]) == ("major reset", "to $0.00")


def test_the_panels_reset_of_the_only_pool_is_logged_by_its_key_as_the_service_logs_it(tmp_path):
    # The menu's "Reset" was logged as its item (setting 2, "config Reset"), the same change
    # from the service, or put in place by a hit, as main.reset (setting 109, "main reset"):
    # one setting under two names in the supervisor's log (H1's audit, seventeenth session).
    from firmware.table import audit

    t = _open(tmp_path)
    _config_menu(t)
    assert "Major" not in t.screen()
    t.press(btn.DOWN)
    t.press(btn.OK)
    main_reset = [k for k, _ in jcfg.default().items()].index("main.reset")
    logged = [e[4:7] for e in events_of(t.memory, ev.CONFIG_CHANGE)]
    assert logged == [(jcfg.SETTING_BASE + main_reset, 1000000, 0)]
    assert audit.values(ev.CONFIG_CHANGE, *logged[0]) == ("main reset", "to $0.00")


# 2026-11-30T22:10:00 UTC, by the host's calendar, not the firmware's
NEWEST = calendar.timegm((2026, 11, 30, 22, 10, 0))


def _table_without_the_time(tmp_path):
    """A table whose log's newest entry is at NEWEST, booted after a power cut by a clock
    that reads 1000 and a bit: its times go on from NEWEST, not known."""
    t = _open(tmp_path)
    t.c.tick(t.tick(), NEWEST)
    t.c.commit_admin([(ev.TAMPER, 1)])
    t.boot()
    assert (t.c.wall, t.memory.clock_unsure) == (NEWEST, True)
    return t


def _clock_screen(t):
    """The configuration menu's clock, opened for editing."""
    _config_menu(t)
    t.press(btn.DOWN)
    t.press(btn.DOWN)
    lines = t.screen().splitlines()
    assert lines[4] == (">Clock NOT SET" if t.memory.clock_unsure else ">Clock ok")
    t.press(btn.OK)
    return t.screen().splitlines()


def _presses(t, button, count):
    for _ in range(count):
        t.press(button)


def test_the_supervisor_sets_the_clock_field_by_field_in_the_configuration_menu(tmp_path):
    t = _table_without_the_time(tmp_path)
    lines = _clock_screen(t)
    assert lines[:4] == ["CLOCK UTC (BACK)", "", "2026-11-30 22:10", "^^^^"]
    t.press(btn.OK)                                      # the year stays
    _presses(t, btn.UP, 1)                               # November -> December
    t.press(btn.OK)
    assert t.screen().splitlines()[2:4] == ["2026-12-30 22:10", "        ^^"]   # the day
    _presses(t, btn.UP, 2)                               # the 30th, 31st, then the 1st
    t.press(btn.OK)
    _presses(t, btn.UP, 6)                               # 22 h round to 04 h
    t.press(btn.OK)
    _presses(t, btn.UP, 20)                              # 10 min to 30 min
    assert t.screen().splitlines()[2:4] == ["2026-12-01 04:30", "              ^^"]
    t.press(btn.OK)
    assert "Clock set\n04:30 UTC" in t.screen() and t.c.phase == tc.CONFIG
    assert ">Clock ok" in t.screen()
    # logged at the time set, unmarked: 6 h 20 min on (b), the times before not known (c 1)
    last = list(t.memory.log.entries())[-1]
    assert ev.unpack(last)[1:7] == (NEWEST + 22800, 0, ev.CONFIG_CHANGE, 99, 22800, 1)
    assert not ev.time_unsure(last) and not t.memory.clock_unsure


def test_back_while_setting_the_clock_leaves_it_as_it_was(tmp_path):
    t = _table_without_the_time(tmp_path)
    count = t.memory.log.count
    _clock_screen(t)
    _presses(t, btn.UP, 3)
    t.press(btn.BACK)
    assert t.c.phase == tc.CONFIG and ">Clock NOT SET" in t.screen()
    assert t.memory.log.count == count and (t.c.wall, t.memory.clock_unsure) == (NEWEST, True)
    t.press(btn.BACK)
    assert t.c.phase == tc.OPEN


def test_the_days_of_the_clock_follow_the_month_and_the_year(tmp_path):
    t = _table_without_the_time(tmp_path)
    _clock_screen(t)
    _presses(t, btn.UP, 2)                               # 2028, a leap year
    t.press(btn.OK)
    _presses(t, btn.UP, 3)                               # February
    t.press(btn.OK)
    assert t.screen().splitlines()[2] == "2028-02-29 22:10"    # the 30th cut to its last
    t.press(btn.UP)
    assert t.screen().splitlines()[2] == "2028-02-01 22:10"
    t.press(btn.DOWN)
    t.press(btn.DOWN)
    assert t.screen().splitlines()[2] == "2028-02-28 22:10"


def test_a_clock_set_before_the_logs_newest_time_is_refused_from_the_panel_too(tmp_path):
    t = _table_without_the_time(tmp_path)
    count = t.memory.log.count
    _clock_screen(t)
    _presses(t, btn.OK, 4)
    t.press(btn.DOWN)                                    # 22:09, before the tamper's 22:10
    t.press(btn.OK)
    assert "Clock refused:\nbefore the log" in t.screen()
    assert t.memory.log.count == count and t.memory.clock_unsure
    assert t.c.last_refusal == ("Clock refused: 2026-11-30T22:09:00 is before the log's newest "
                                "time, 2026-11-30T22:10:00 (entry #%d): its times never go back"
                                % (count - 1))


def test_setting_the_clock_needs_the_key(tmp_path):
    t = _table_without_the_time(tmp_path)
    _clock_screen(t)
    _presses(t, btn.OK, 4)
    t.key(False)
    t.press(btn.OK)
    assert "Supervisor key\nneeded" in t.screen() and t.memory.clock_unsure


def test_the_configuration_menu_opens_on_its_list_after_the_clock_was_left_another_way(tmp_path):
    # The clock being set was forgotten only by BACK: a table that left CONFIG another way
    # (RAM ERROR from a failed commit, then the supervisor's RAM clear) opened the menu
    # straight into the clock with the old values (the session's review).
    t = _table_without_the_time(tmp_path)
    _clock_screen(t)
    _presses(t, btn.UP, 3)
    t.c._enter_ram_error("test: a commit failed")
    t.ram_clear()
    assert t.c.phase == tc.OPEN
    _config_menu(t)
    assert t.screen().splitlines()[0] == "CONFIG (BACK)"


def test_the_clock_of_a_table_that_never_knew_the_time_opens_at_its_first_year(tmp_path):
    # A Pico W that was never set counts from 2021-01-01; the panel's clock starts at the
    # first year it can set, 2025, rather than at a date it would refuse.
    t = _open(tmp_path)
    assert t.c.wall < calendar.timegm((2025, 1, 1, 0, 0, 0))
    assert _clock_screen(t)[:4] == ["CLOCK UTC (BACK)", "", "2025-01-01 00:00", "^^^^"]
    t.press(btn.DOWN)                                    # the year steps round to the last
    assert t.screen().splitlines()[2] == "2099-01-01 00:00"
