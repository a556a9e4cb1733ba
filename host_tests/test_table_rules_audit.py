"""Rules of /work/shared/rules.md that no other test would catch broken, checked where a person
sees them: the dealer display's result lines and what the table refuses.

Every expected hand and line below is worked out by hand from rules.md (the hand rules of
section 2, the rankings of section 1), not from the firmware's evaluator or pay tables.
"""

import json

import pytest

from firmware import config_file as cf
from firmware.drivers import buttons as btn
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.test_controller import Table, events_of

BOARD = 8           # the shoe's destination of a community card (0: the dealer, 1-7: seats)


class FileTable(Table):
    """A table whose controller is made from a configuration file's rules, as startup does."""

    def __init__(self, directory, rules):
        self.args = cf.parse(json.dumps({"format": 1, "game": "uth", "rules": rules})).controller_args()
        Table.__init__(self, directory)
        self.ram_clear()

    def boot(self):
        self.memory = CriticalMemory([FileSlot(self.fs, "a.bin"), FileSlot(self.fs, "b.bin")], self.fs)
        self.c = tc.RoundController(self.memory, **self.args)
        self.c.boot(self.now, 1000 + self.now)
        return self.c


# Board Kh 9h 5h 2h 7c holds four hearts.  Seat 1 (Ah 3c) and seat 2 (4h 6s) each hold one
# heart: the best five of seven is a flush for both, but with both hole cards and three board
# cards (the NZ rule) only one heart of the hole is used, so no flush: seat 1 is ace high
# (A 3 with K 9 7: no pair, no straight), seat 2 king high (4 6 with K 9 7; 4-5-6-7 needs a
# 3 or an 8).  The dealer's Qs Qd is a pair of queens under either rule: it beats both
# seats' NZ hands.
TRIPS_ROUND = [(1, "Ah 3c"), (2, "4h 6s"), (0, "Qs Qd"), (BOARD, "Kh 9h 5h 2h 7c")]


def _play_trips_round(t):
    for seat in (1, 2):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal(TRIPS_ROUND)
    t.press(btn.OK)             # the cursor is on seat 1: it folds
    t.settle()
    assert t.c.phase == tc.RESULTS
    return t.c.results


def test_uth_trips_hand_rule_of_the_file_names_the_hand_trips_is_paid_on(tmp_path):
    # rules.md 2: "Trips uses the same hand as the rest unless option trips_hand_rule says
    # otherwise", and Trips pays on three of a kind or better whatever the hand did, folded
    # too [UTH 10.3-10.4].  The table does not see the Trips chips: the dealer pays Trips from
    # the hand on the display, so with trips_hand_rule best5of7 the display must name the
    # flush each seat holds for Trips (7 to 1 in trips_a), not the NZ hand that the Ante,
    # Blind and Play are settled on (the table showed "S1 fold High" and only "S2 High L").
    t = FileTable(tmp_path, {"trips_hand_rule": "best5of7"})
    assert _play_trips_round(t) == ["D One Pair", "S1 fold Flush", "S2 High L", "S2 Trips Flush"]


def test_uth_trips_hand_rule_the_other_way_round(tmp_path):
    # hand_rule best5of7 with Trips on the NZ hand: the seat's line names the flush (it beats
    # the dealer's pair of queens, best five of seven Qs Qd Kh 9h 7c); Trips is paid only on
    # the NZ hand, ace high (seat 1) and king high (seat 2), so Trips loses, and the display
    # says so rather than let the dealer pay 7 to 1 on "Flush".
    t = FileTable(tmp_path, {"hand_rule": "best5of7", "trips_hand_rule": "hole2_board3"})
    assert _play_trips_round(t) == ["D One Pair", "S1 fold High", "S2 Flush W", "S2 Trips High"]


@pytest.mark.parametrize("locked, after, lines", [
    ({"trips_hand_rule": "best5of7"}, {},
     ["D One Pair", "S1 fold Flush", "S2 High L", "S2 Trips Flush"]),
    ({}, {"trips_hand_rule": "best5of7"}, ["D One Pair", "S1 fold High", "S2 High L"]),
])
def test_a_round_locked_before_the_trips_hand_rule_changed_keeps_its_trips_rule(
        tmp_path, locked, after, lines):
    # The file's trips_hand_rule changed while the power was off, the round locked: the
    # round is finished under the rules it was locked under (as for the hand rule), the dealer
    # told so, so the Trips hand shown after the cut is the one shown before it (the hands as
    # in the test above), and the next round is the file's.
    t = FileTable(tmp_path, locked)
    for seat in (1, 2):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.args = cf.parse(json.dumps({"format": 1, "game": "uth", "rules": after})).controller_args()
    t.boot()
    assert "Round 1 old rule\nnew rule next" in t.screen()
    t.deal(TRIPS_ROUND)
    t.press(btn.OK)             # the cursor is on seat 1: it folds
    t.settle()
    assert t.c.results == lines
    t.press(btn.SETTLE)         # round 2: the file's rule
    assert "old rule" not in t.screen()
    assert _play_trips_round(t) == (["D One Pair", "S1 fold Flush", "S2 High L", "S2 Trips Flush"]
                                    if after else ["D One Pair", "S1 fold High", "S2 High L"])


def test_uth_the_same_rule_for_trips_adds_no_line(tmp_path):
    # trips_hand_rule naming the hand rule itself (as null does) changes nothing: one line a
    # seat, the NZ hand.
    t = FileTable(tmp_path, {"trips_hand_rule": "hole2_board3"})
    assert _play_trips_round(t) == ["D One Pair", "S1 fold High", "S2 High L"]


# --- [UTH 10.1] the dealer qualifies with a pair or better ---------------------------------
# The seats' verdicts (W, L, T) compare hands; when the dealer does not qualify every Ante
# pushes whatever the comparison says (Play and Blind are settled by it).  A dealer paying
# from "S1 High W" paid the Ante 1 to 1, and from "S2 High L" took it: the results must say
# that the Antes push.
BOARD_DRY = "2c 7d 9h Js 4c"    # no pair, no straight and no flush the hands below can use


def _uth_round(t, seats, dealer, board=BOARD_DRY):
    for seat, _ in seats:
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal(list(seats) + [(0, dealer), (BOARD, board)])
    t.settle()
    assert t.c.phase == tc.RESULTS
    return t.c.results


def test_uth_a_dealer_who_does_not_qualify_pushes_every_ante_and_the_display_says_so(table):
    # Dealer Kd 3s with J 9 7 of the board: king high, no pair, does not qualify.  Seat 1
    # (Ah 8d: A J 9 8 7) beats it, seat 2 (Qh 8c: Q J 9 8 7, no straight without a ten) loses,
    # seat 3 (Kh 3c: K J 9 7 3) holds the dealer's very hand: a tie [UTH 10.6].
    results = _uth_round(table, [(1, "Ah 8d"), (2, "Qh 8c"), (3, "Kh 3c")], "Kd 3s")
    assert results == ["D High Ante push", "S1 High W", "S2 High L", "S3 High T"]
    assert max(len(line) for line in results) <= 16


def test_uth_a_dealer_who_qualifies_is_named_like_the_other_games_dealer(table):
    # Dealer Jd 3s with the board's Js: a pair of jacks, qualifies.  Seat 1's 9s 9c with the
    # board's 9h: three nines, wins.
    assert _uth_round(table, [(1, "9s 9c")], "Jd 3s") == ["D One Pair", "S1 Trips W"]


# --- [FCP 8.3, 10.1-10.2] the dealer's hand is the best four of all six cards --------------

def test_fcp_the_dealers_sixth_card_plays_in_the_dealers_hand(tmp_path):
    # Dealer Kc 9d 7h 5s 3c, then the sixth card (face up) Kd: with it the best four is
    # K K 9 7, a pair of kings; on the first five alone it would be king high.  Seat 1's
    # Qc Qd 8h 6s 2c is a pair of queens (Q Q 8 6): it loses to the kings, where it would
    # have beaten a king-high dealer.
    t = Table(tmp_path, tc.FCP)
    t.ram_clear()
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Qc Qd 8h 6s 2c"), (0, "Kc 9d 7h 5s 3c Kd")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.RESULTS
    assert t.c.results == ["D One Pair", "S1 One Pair L"]


# --- [UTH 11.10] several jackpot winners in one round at one table -------------------------

def test_a_royal_a_straight_flush_and_a_flush_in_one_round_are_paid_in_the_rules_order(tmp_path):
    # Reset (seed) $20,000.00 and the default 70% of each 100-cent wager to the pool: after
    # three jackpot wagers the pool is 2,000,000 + 3 x 70 = 2,000,210 cents.  Flop Qh Jh Th:
    # seat 1 Ah Kh a royal flush, seat 2 9h 8h a straight flush (Q-high), seat 3 2h 3h a
    # flush.  rules.md 11.10: first the flush at 100 to 1, 10,000 -> 1,990,210 left; then the
    # straight flush, the greater of 1,000 to 1 (100,000) and 10% of what is left (199,021):
    # 199,021 -> 1,791,189; then the royal, the greater of 10,000 to 1 (1,000,000) and all
    # that is left: 1,791,189 -> 0, and the pool starts again at the $20,000.00 reset.
    t = Table(tmp_path, jackpot_config={"main": {"reset": 2000000}})
    t.ram_clear()
    for seat in (1, 2, 3):
        t.chip(seat)
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Kh"), (2, "9h 8h"), (3, "2h 3h"), (0, "7c 7d"), (BOARD, "Qh Jh Th 4d 5s")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.CONFIRM
    assert t.c.view.lines[1:7] == ["S3 Flush", " $100.00", "S2 Str Flush", " $1990.21",
                                   "S1 Royal Flush", " $17911.89"]
    t.key(True)
    t.press(btn.OK)
    assert t.c.phase == tc.RESULTS
    assert t.c.results == ["D One Pair", "S1 Royal Flush W", "S2 Str Flush W", "S3 Flush W",
                           "JP S3 $100.00", "JP S2 $1990.21", "JP S1 $17911.89"]
    assert [(e[4], e[6]) for e in events_of(t.memory, ev.JACKPOT_HIT)] == [
        (3, 10000), (2, 199021), (1, 1791189)]
    assert t.c.view.meter[0] == 2000000


def test_a_controller_given_an_unknown_trips_rule_refuses_it_by_name():
    # startup builds the controller from the file's options; one made otherwise (a tool, a
    # test) with a misspelt Trips rule must not fall back to the hand rule silently
    with pytest.raises(ValueError, match="hand rule must be 'hole2_board3' or 'best5of7', got 'best7'"):
        tc.RoundController(None, trips_rule="best7")
