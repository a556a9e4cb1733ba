"""Entering cards on the dealer panel (long OK when the round is locked): OK steps through
the fields (destination, rank, suit, marked with '>'), UP/DOWN change the marked one, LOCK
adds the card, BACK leaves.  Its field is its own, not the configuration menu's."""

import pytest

from firmware.drivers import buttons as btn
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.test_controller import Table, events_of


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    t.chip(2)
    t.chip(2, ante=True)
    t.press(btn.LOCK)
    t.press(btn.UP)                                  # select seat 2
    return t


def fields(table):
    return table.c.view.lines[1:4]


def all_cards(table):
    c = table.c
    return [card for card in list(c.rec.hole) + list(c.rec.dealer) + list(c.rec.board)
            if card != tc.NO_CARD]


def open_entry(table):
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.CARD_ENTRY


def test_card_entry_opens_on_the_selected_seat_with_the_destination_marked(table):
    open_entry(table)
    table.c.tick(table.tick(tc.MESSAGE_MS), 0)       # "No more bets" has gone
    lines = table.c.view.lines
    assert lines[0] == "ENTER CARD As"               # the card as it stands
    assert fields(table) == [">to   seat 2", " rank A", " suit spades"]
    assert lines[4:7] == ["UP/DN change >", "OK=next LOCK=add", "BACK=done"]
    assert all(len(line) <= tc.WIDTH for line in lines)


def test_entering_two_cards_for_a_seat(table):
    open_entry(table)
    table.press(btn.OK)                              # to the rank
    assert fields(table) == [" to   seat 2", ">rank A", " suit spades"]
    table.press(btn.DOWN)                            # A -> K
    table.press(btn.OK)                              # to the suit
    assert fields(table) == [" to   seat 2", " rank K", ">suit spades"]
    table.press(btn.LOCK)
    assert "Added Ks" in table.screen()
    table.press(btn.OK)                              # back round to the destination
    assert fields(table)[0] == ">to   seat 2"
    table.press(btn.OK)
    table.press(btn.DOWN)                            # K -> Q
    table.press(btn.OK)
    table.press(btn.DOWN)                            # spades -> hearts
    assert table.c.view.lines[0] == "ENTER CARD Qh" and fields(table)[2] == ">suit hearts"
    table.press(btn.LOCK)
    assert table.c._hole(1) == cards.parse("Ks Qh")
    table.press(btn.BACK)
    assert table.c.phase == tc.LOCKED
    assert "S2 Ks Qh" in table.screen()


def test_the_destination_goes_round_dealer_seats_and_board(table):
    open_entry(table)
    table.press(btn.DOWN)
    assert fields(table)[0] == ">to   seat 1"
    table.press(btn.DOWN)
    assert fields(table)[0] == ">to   dealer"
    table.press(btn.DOWN)
    assert fields(table)[0] == ">to   board"
    table.press(btn.LOCK)                            # As to the board
    table.press(btn.UP)
    assert fields(table)[0] == ">to   dealer"
    assert table.c._cards_of(table.c.rec.board) == cards.parse("As")


def test_a_card_already_dealt_is_refused_and_says_so(table):
    table.deal([(8, "As")])
    open_entry(table)                                # As to seat 2: already on the board
    table.press(btn.LOCK)
    assert table.c.view.lines[6:8] == ["Card refused", "As twice"]
    assert table.c._hole(1) == [] and all_cards(table) == cards.parse("As")
    assert table.c.phase == tc.CARD_ENTRY


def test_back_leaves_without_a_card(table):
    open_entry(table)
    table.press(btn.OK)
    table.press(btn.DOWN)                            # Ks, not added
    table.press(btn.BACK)
    assert table.c.phase == tc.LOCKED and all_cards(table) == []


def test_the_field_starts_at_the_destination_each_time(table):
    open_entry(table)
    table.press(btn.OK)
    table.press(btn.OK)                              # on the suit
    table.press(btn.BACK)
    open_entry(table)
    assert fields(table)[0].startswith(">to")
    table.press(btn.UP)
    assert fields(table) == [">to   seat 3", " rank A", " suit spades"]


def test_the_configuration_menus_choice_does_not_pick_the_field(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    t.key(True)
    t.press(btn.SETTLE, long=True)                   # configuration menu, between rounds
    t.press(btn.DOWN)                                # its second item
    assert t.c.config_index == 1
    t.press(btn.BACK)
    t.key(False)
    t.press(btn.LOCK)
    open_entry(t)
    t.press(btn.UP)                                  # the destination, not the rank
    assert t.c.entry == [2, cards.ACE, 3]            # seat 2, As


def _entry_on_seat(t, seat):
    t.ram_clear()
    t.chip(seat)
    t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.c.cursor = seat - 1
    open_entry(t)


def test_the_destination_skips_seats_the_table_does_not_have(tmp_path):
    t = Table(tmp_path)
    t.c = tc.RoundController(t.memory, seats=5)       # a five-seat table
    t.c.boot(t.tick(), 1000)
    _entry_on_seat(t, 5)
    t.press(btn.UP)
    assert fields(t)[0] == ">to   board"               # not seat 6 or 7
    t.press(btn.UP)
    assert fields(t)[0] == ">to   dealer"


def test_a_game_without_a_board_offers_no_board(tmp_path):
    t = Table(tmp_path, game=tc.FCP)                    # Four Card Poker: no community cards
    _entry_on_seat(t, 7)
    t.press(btn.UP)
    assert fields(t)[0] == ">to   dealer"
    t.press(btn.DOWN)
    assert fields(t)[0] == ">to   seat 7"


def test_a_game_without_a_dealer_hand_offers_no_dealer(tmp_path):
    t = Table(tmp_path, game=tc.BRS)                    # Big Raise Stud: the board, no dealer
    _entry_on_seat(t, 1)
    t.press(btn.DOWN)
    assert fields(t)[0] == ">to   board"
    t.press(btn.UP)
    assert fields(t)[0] == ">to   seat 1"


def test_the_locked_screen_says_how_to_enter_cards(table):
    table.c.tick(table.tick(5000), 2000)               # LOCK's message has gone
    assert table.c.view.lines[7] == "hold OK=cards"
    open_entry(table)                                  # and holding OK does it


def test_the_supervisor_removes_a_wrong_card_and_a_power_cut_does_not_bring_it_back(table):
    # The shoe misread seat 2's second card: the supervisor takes it out (card entry, key +
    # SETTLE: the marked destination's last card), and the right one goes in.
    table.deal([(2, "Ks Qh")])
    open_entry(table)
    table.press(btn.SETTLE)                          # no key: refused, the card stays
    assert table.c.view.lines[6:8] == ["Supervisor key", "to remove a card"]
    assert table.c._hole(1) == cards.parse("Ks Qh")
    table.key(True)
    table.press(btn.SETTLE)
    assert table.c.view.lines[6:8] == ["Removed Qh", "seat 2"]
    assert table.c._hole(1) == cards.parse("Ks")
    assert [e[4:6] for e in events_of(table.memory, ev.CARD_REMOVED)] == [(2, cards.parse("Qh")[0])]
    table.key(False)
    table.boot()                                     # a power cut: the removal was committed
    assert table.c.phase == tc.LOCKED and table.c._hole(1) == cards.parse("Ks")
    table.deal([(2, "Qh")])                          # the card is free to be dealt again
    assert table.c._hole(1) == cards.parse("Ks Qh")


def test_removing_from_an_empty_place_says_there_is_nothing(table):
    open_entry(table)
    table.key(True)
    table.press(btn.SETTLE)
    assert table.c.view.lines[6:8] == ["Nothing to undo", "seat 2 is empty"]
    assert events_of(table.memory, ev.CARD_REMOVED) == []


def test_the_last_board_card_goes_first(table):
    table.deal([(8, "Qh Jh 3h")])
    open_entry(table)
    table.press(btn.UP)                              # seat 2 -> seat 3 ... round to the board
    while table.c.entry[0] != tc.BOARD:
        table.press(btn.UP)
    table.key(True)
    table.press(btn.SETTLE)
    table.press(btn.SETTLE)
    assert table.c._cards_of(table.c.rec.board) == cards.parse("Qh")
    assert [e[4:6] for e in events_of(table.memory, ev.CARD_REMOVED)] == [
        (tc.BOARD, cards.parse("3h")[0]), (tc.BOARD, cards.parse("Jh")[0])]


def test_the_card_entry_screen_says_how_to_remove_a_card(table):
    open_entry(table)
    table.c.tick(table.tick(tc.MESSAGE_MS), 0)
    assert table.c.view.lines[7] == "key+SETTLE=undo"
