"""The RESULTS screen on a full seven-seat table: six result lines fit under the title, so
UP and DOWN scroll, and the last line marks more lines above (^) and below (v)."""


from firmware.drivers import buttons as btn
from firmware.table import controller as tc

SEVEN_SEATS = [(1, "As Ks"), (2, "2c 3d"), (3, "4c 5d"), (4, "6c 7d"), (5, "8c 9d"),
               (6, "2h 3h"), (7, "4h 5h"), (0, "9c 9h"), (8, "Qs Js Ts 6h 7h")]


def full_table_round(table):
    """Seven seats wager and are dealt; seat 1's royal (As Ks + Qs Js Ts) hits the jackpot."""
    for seat in range(1, 8):
        table.chip(seat)
        table.chip(seat, ante=True)
    table.press(btn.LOCK)
    table.deal(SEVEN_SEATS)
    table.settle()
    assert table.c.phase == tc.RESULTS


def shown(table):
    return table.c.view.lines[1:7]


def test_every_seat_and_the_jackpot_line_can_be_brought_on_screen(table):
    full_table_round(table)
    results = table.c.results
    # the dealer's hand (9c 9h: a pair, it qualifies [UTH 10.1]), each seat, the jackpot
    assert [line.split()[0] for line in results] == ["D", "S1", "S2", "S3", "S4", "S5", "S6", "S7",
                                                     "JP"]
    assert results[-1].startswith("JP S1 $")
    # the top of the list, and a mark that there is more below
    assert shown(table) == results[:6]
    assert table.c.view.lines[7] == "SETTLE=next  v"
    seen = set(shown(table))
    table.press(btn.DOWN)
    assert shown(table) == results[1:7]
    assert table.c.view.lines[7] == "SETTLE=next ^v"
    table.press(btn.DOWN)
    assert shown(table) == results[2:8]
    assert table.c.view.lines[7] == "SETTLE=next ^v"
    table.press(btn.DOWN)
    seen.update(shown(table))
    assert shown(table) == results[3:9]
    assert table.c.view.lines[7] == "SETTLE=next ^"
    assert seen == set(results)                    # seat 7 and the jackpot line were shown
    table.press(btn.DOWN)                          # at the bottom: stays
    assert shown(table) == results[3:9]
    for _ in range(5):
        table.press(btn.UP)
    assert shown(table) == results[:6] and table.c.view.lines[7] == "SETTLE=next  v"


def test_holding_down_scrolls_with_the_panels_repeats(table):
    full_table_round(table)
    table.c.panel(btn.PRESS, btn.DOWN, table.tick())
    table.c.panel(btn.LONG, btn.DOWN, table.tick(1000))
    table.c.panel(btn.REPEAT, btn.DOWN, table.tick(150))
    table.c.panel(btn.RELEASE, btn.DOWN, table.tick(100))
    assert table.c.view.lines[6].startswith("JP S1")


def test_the_next_round_starts_at_the_top(table):
    full_table_round(table)
    table.press(btn.DOWN)
    table.press(btn.DOWN)
    table.press(btn.SETTLE)
    assert table.c.phase == tc.OPEN and table.c.results_top == 0
    full_table_round(table)
    assert len(table.c.results) > 6
    assert table.c.view.lines[1].startswith("D ") and table.c.view.lines[7] == "SETTLE=next  v"


def test_results_that_fit_have_no_scroll_mark_and_do_not_scroll(table):
    table.chip(1, ante=True)
    table.chip(2, ante=True)
    table.press(btn.LOCK)
    table.deal([(1, "As Ks"), (2, "2c 3d"), (0, "9c 9h"), (8, "Qs Js Ts 6h 7h")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS and len(table.c.results) == 3     # the dealer's line too
    table.press(btn.DOWN)
    assert table.c.view.lines[1].startswith("D ") and table.c.view.lines[7] == "SETTLE=next"
    assert table.c.view.lines[4] == ""
