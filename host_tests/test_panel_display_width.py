"""The dealer display is 16 characters by 8 lines (firmware.table.phases WIDTH, LINES): every
screen must fit it, on a full table and a long-running one, so that nothing the dealer needs
is cut off: a seventh seat's chip, a fifth card's suit, a fold, a count of missing cards, the
reason for a refusal while the logic door is open."""

from firmware.drivers import buttons as btn
from firmware.table import controller as tc
from firmware.table.phases import LINES, WIDTH
from host_tests.test_controller import Table, new_table, royal_round


def assert_fits(table):
    lines = table.c.view.lines
    assert len(lines) == LINES
    too_long = [line for line in lines if len(line) > WIDTH]
    assert too_long == [], "lines wider than the display: %r" % too_long


def test_a_full_table_shows_every_seats_chip_and_ante(table):
    for seat in range(1, 8):
        table.chip(seat)
        table.chip(seat, ante=True)
    assert_fits(table)
    assert "placed 1234567" in table.screen()
    assert "ante 1234567" in table.screen()
    table.press(btn.LOCK)
    assert_fits(table)
    assert "JP 1234567" in table.screen()


def test_seats_refused_for_want_of_an_ante_are_all_named(table):
    for seat in range(1, 8):
        table.chip(seat)
    table.chip(4, ante=True)
    table.press(btn.LOCK)
    assert_fits(table)
    assert "No Ante, no JP:\nseats 123567" in table.screen()


def test_four_card_poker_hands_fit_with_their_last_suit_and_the_fold(tmp_path):
    t = new_table(tmp_path, tc.FCP)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "As Ad Ah Ks 2d"), (0, "5h 2c Jc 3h 3d 9s")])
    assert_fits(t)
    assert "S1 AsAdAhKs2d" in t.screen()
    assert "D 5h2cJc3h3d9s" in t.screen()
    t.press(btn.OK)                         # fold the cursor seat: shown at once, over the
                                            # "No more bets" message of the LOCK
    assert_fits(t)
    assert "FOLDED OK=unfold" in t.screen()
    t.press(btn.OK)
    assert "FOLDED" not in t.screen()


def test_what_is_missing_is_shown_whole(tmp_path):
    t = new_table(tmp_path, tc.FCP)
    t.chip(3, ante=True)
    t.press(btn.LOCK)
    t.deal([(0, "5h 2c Jc 3h 3d 9s"), (3, "As Ad")])
    t.press(btn.SETTLE)
    assert_fits(t)
    assert "need seat 3 2/5" in t.screen() and "Cannot settle\nseat 3 2/5" in t.screen()


def test_an_open_door_does_not_hide_a_message(table):
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.press(btn.SETTLE)                 # no cards: refused, and why
    assert_fits(table)
    assert "Cannot settle\nflop 0/3" in table.screen()
    assert "DOOR OPEN" in table.screen()


def test_an_open_door_does_not_hide_the_confirmation_hint(table):
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.deal([(1, "As Ks"), (8, "Qs Js Ts 3h 4h")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.CONFIRM
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    assert "KEY+OK to pay" in table.screen() and "DOOR OPEN" in table.screen()


def test_round_numbers_past_999_keep_the_phase_on_the_title(tmp_path):
    t = Table(tmp_path)
    t.ram_clear()
    t.c.rec.round_no = 123456
    t.c._render()
    assert_fits(t)
    assert t.c.view.lines[0] == "R123456 OPEN"
    t.chip(1)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    assert t.c.view.lines[0] == "R123456 LOCKED"


def test_the_largest_reset_keeps_its_pending_mark(table):
    # A $1000.00 reset takes effect at the next hit; after it, $10000.00 chosen again is
    # pending, and its line is ">Reset $10000.00*": one character too many with the space.
    configure_reset(table, presses=2)       # $10000.00 in force -> off -> $1000.00, pending
    leave_configuration(table)
    royal_round(table)
    table.key(True)
    table.press(btn.OK)                     # the hit is paid: $1000.00 in force
    table.key(False)
    table.press(btn.SETTLE)
    for seat in (1, 3):
        table.chip(seat, placed=False)
    configure_reset(table, presses=2)       # -> $5000.00 -> $10000.00, pending
    assert_fits(table)
    assert ">Reset$10000.00*" in table.screen()


def configure_reset(table, presses):
    """Open the configuration, put its cursor on the reset and step it `presses` times."""
    table.key(True)
    table.press(btn.SETTLE, long=True)
    assert table.c.phase == tc.CONFIG
    while ">Reset" not in table.screen():
        table.press(btn.DOWN)
    for _ in range(presses):
        table.press(btn.OK)


def leave_configuration(table):
    table.press(btn.BACK)
    table.key(False)
    assert table.c.phase == tc.OPEN


def test_test_mode_shows_key_and_door_whole(table):
    table.key(True)
    table.press(btn.LOCK, long=True)
    assert table.c.phase == tc.TEST
    table.key(False)
    assert_fits(table)
    assert "key off" in table.screen() and "door shut" in table.screen()


def test_the_other_games_locked_screens_show_only_their_own_hands(tmp_path):
    (tmp_path / "fcp").mkdir()
    (tmp_path / "brs").mkdir()
    fcp = new_table(tmp_path / "fcp", tc.FCP)
    fcp.chip(1, ante=True)
    fcp.press(btn.LOCK)
    lines = fcp.c.view.lines
    # Four Card Poker: no progressive, no board; the dealer's hand
    assert lines[1] == "FOUR CARD POKER" and lines[2] == "" and lines[3] == "D -"
    brs = new_table(tmp_path / "brs", tc.BRS)
    brs.chip(1, ante=True)
    brs.press(btn.LOCK)
    lines = brs.c.view.lines
    # Big Raise Stud: no progressive, no dealer; the community cards
    assert lines[1] == "BIG RAISE STUD" and lines[2] == "B -" and lines[3] == ""
    assert not any(line.startswith("JP") for line in lines)


def test_a_table_without_a_progressive_does_not_speak_of_a_jackpot_in_ram_error(tmp_path):
    t = Table(tmp_path, tc.FCP)                 # blank memory
    assert t.c.phase == tc.RAM_ERROR and "ROUNDS DISABLED" in t.screen()
    assert "JACKPOT" not in t.screen()


def _ConfiguredTable(directory, jackpot_config):
    """A Table whose RAM clear uses a jackpot configuration from the configuration file."""
    return Table(directory, jackpot_config=jackpot_config)


def test_the_ram_clear_screen_shows_large_reset_amounts_whole(tmp_path):
    t = _ConfiguredTable(tmp_path, {"split": True, "minor": {"reset": 123456789},
                                    "major": {"reset": 1073741823}})
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR
    assert_fits(t)
    assert "$1234567.89" in t.screen() and "$10737418.23" in t.screen()


def test_the_configuration_screen_shows_large_amounts_whole(tmp_path):
    # the configuration file allows a wager up to $1000.00 and a reset up to $10737418.23
    t = _ConfiguredTable(tmp_path, {"wager": 100000, "main": {"reset": 1073741823}})
    t.ram_clear()
    t.key(True)
    t.press(btn.SETTLE, long=True)
    assert t.c.phase == tc.CONFIG
    t.press(btn.DOWN)                               # the cursor on the reset
    assert_fits(t)
    assert "$1000.00" in t.screen() and "$10737418.23" in t.screen()
    assert t.c.view.lines[2].startswith(">")        # the cursor still shows


def test_a_round_of_four_digits_keeps_its_number_and_word_whole():
    # "Round 1234 resumed" is 18 columns: the word was cut ("Round 1234 resum"); the boot's
    # "resumed" and "settled"/"void" (before power cut) lines use the short form then
    from firmware.table.screens import round_words

    assert round_words(12, "resumed", "Round") == "Round 12 resumed"
    assert round_words(1234, "resumed", "Round") == "R1234 resumed"
    assert round_words(1234, "settled", "Round") == "R1234 settled"
    # 9,999,999 rounds, 19 years at a round a minute, still fit whole
    assert round_words(9999999, "settled", "Round") == "R9999999 settled"


def test_a_jackpot_in_round_one_million_keeps_its_round_number_whole(tmp_path):
    # "JACKPOT! r1000000" is 17 columns: the display would show round 100000
    t = Table(tmp_path)
    t.ram_clear()
    t.c.memory.round_no = 999999             # as after 999,999 rounds
    t.c._new_round()
    royal_round(t)
    assert t.c.phase == tc.CONFIRM and t.c.rec.round_no == 1000000
    assert_fits(t)
    assert "r1000000" in t.c.view.lines[0]


def test_the_recalled_results_of_round_one_million_keep_its_number_whole(tmp_path):
    # "LAST ROUND 1000000" is 18 columns: cut, the title named round 100000
    t = Table(tmp_path)
    t.ram_clear()
    t.c.memory.round_no = 999999             # as after 999,999 rounds
    t.c._new_round()
    royal_round(t)
    t.key(True)
    t.press(btn.OK)
    t.key(False)
    t.press(btn.SETTLE)                      # round 1,000,001 opens
    t.press(btn.SETTLE, long=True)           # the last round's results again
    assert t.c.recalling
    assert_fits(t)
    assert t.c.view.lines[0] == "LAST R1000000"
