"""The supervisor's audit menu on the dealer display (16 columns x 8 lines), as a person reads it.

Expected lines are written out by hand from the event values each test logs.  Amounts follow
the default jackpot configuration (100-cent wager, 70 of each 100 cents to the pool, reset
$10,000.00) and the pay table of rules.md 11.9 (flush 100 to 1; royal 10,000 to 1 or the whole
pool, whichever is greater), as in host_tests/test_controller.py.  Clock times are worked out
by hand: day 20,000 after 1970-01-01 plus 7 h 19 min 56 s.
"""

import re
import sys

import pytest

from firmware.drivers import buttons as btn
from firmware.drivers import shoe
from firmware.drivers import spot_sensors as sens
from firmware.store import eventlog as ev
from firmware.store import eventnames
from firmware.table import controller as tc
from host_tests import runtimes
from host_tests.test_controller import royal_round

WIDTH = 16
LINES = 8
WALL = 20000 * 86400 + 7 * 3600 + 19 * 60 + 56       # 07:19:56 UTC
SCRIPT = runtimes.ROOT / "host_tests" / "audit_menu_mp.py"


def open_audit(table):
    table.key(True)
    table.press(btn.OK, long=True)
    assert table.c.phase == tc.AUDIT
    return table.c.menu


def entry(menu, seq):
    """The three display lines of event `seq`, found by its '#seq' line."""
    lines = list(menu)
    for i, line in enumerate(lines):
        if line == "#%d" % seq or line.startswith("#%d " % seq):
            return lines[i:i + 3]
    raise AssertionError("no entry #%d in the audit menu" % seq)


def scroll_until(table, text, button=btn.DOWN, presses=500):
    """Press `button` until a screen line equals `text`; the presses it took (or fail)."""
    for n in range(presses):
        if text in table.c.view.lines:
            return n
        table.press(button)
    raise AssertionError("%r never on the screen" % text)


def test_every_event_kind_has_a_short_distinct_name_that_fits():
    # the kinds are numbered from POWER_UP to LAST_KIND without a gap; each has both names
    kinds = list(range(ev.POWER_UP, ev.LAST_KIND + 1))
    assert sorted(eventnames.NAMES) == kinds
    assert sorted(eventnames.SHORT_NAMES) == kinds
    names = list(eventnames.SHORT_NAMES.values())
    assert len(set(names)) == len(names)
    # a leading column plus the name fits the 16-column display
    assert all(1 <= len(name) <= WIDTH - 1 for name in names), names
    # the two names that used to show alike (" critical memory") are told apart
    assert eventnames.SHORT_NAMES[ev.CM_ERROR] != eventnames.SHORT_NAMES[ev.CM_RECOVERED]


# (event, its three lines as the audit menu shows them, after the '#seq hh:mm:ss' line)
SHOWN = [
    ((ev.POWER_UP, 3), [" power up", " cause 3"]),
    ((ev.POWER_UP, 3, 3), [" power up", " watchdog"]),      # the cause named at boot
    ((ev.CM_ERROR, 1, ev.REASON_BAD_CRC), [" CM error copy 1", " bad crc"]),
    ((ev.CM_RECOVERED, 1, 0, 77), [" CM recovered", " copy 1 from 0"]),
    ((ev.CM_RECOVERED, 0, 0xFFFF, 5), [" CM recovered", " copy 0 from RAM"]),
    # the seed a RAM clear put in the pools (the service and tools.audit show it too), in
    # place of the sequence number before the clear, which has no room beside it
    ((ev.RAM_CLEAR, 1, 57, 1000000), [" RAM clear sup 1", " seed $10000.00"]),
    ((ev.RAM_CLEAR, 1, 0, 0), [" RAM clear sup 1", " seed $0.00"]),
    ((ev.RAM_CLEAR, 1, 3, 5000), [" RAM clear sup 1", " seed $50.00"]),
    ((ev.RAM_CLEAR, 1, 3, 500), [" RAM clear sup 1", " seed $5.00"]),
    ((ev.RAM_CLEAR, 1, 9, 2147483647), [" RAM clear sup 1", " $21474836.47"]),
    ((ev.LOCK, 0, 0b101, 200), [" lock S1,3 $2.00", ""]),
    ((ev.VOID, 1, 0b1, -100), [" void S1 -$1.00", ""]),
    ((ev.LOCK, 0, 0b11111, 500), [" lock S1,2,3,4,5", " $5.00"]),
    # seven seats: the amount beside the name, not left out for want of room
    ((ev.LOCK, 0, 0b1111111, 700), [" lock $7.00", " S1,2,3,4,5,6,7"]),
    ((ev.VOID, 0, 0b111111, 600), [" void $6.00", " S1,2,3,4,5,6"]),
    ((ev.JACKPOT_HIT, 3, 4, 1000140), [" jackpot hit S3", " $10001.40 Royal"]),
    ((ev.JACKPOT_HIT, 2, 1, 15000), [" jackpot hit S2", " $150.00 FH"]),
    ((ev.JACKPOT_HIT, 1, 2, 50000), [" jackpot hit S1", " $500.00 Quads"]),
    ((ev.SUPERVISOR_CONFIRM, 1, 2), [" supervisor OK", " sup 1 hits 2"]),
    ((ev.CONFIG_CHANGE, 1, 100, 200), [" config JP wager", " $1.00 to $2.00"]),
    ((ev.CONFIG_CHANGE, 2, 1000000, 500000), [" config Reset", " to $5000.00"]),
    # the jackpot settings the service console changes, or a hit puts in place (100 + the
    # key's index, docs/service-protocol.md): named, with the values, not " setting 109"
    ((ev.CONFIG_CHANGE, 100, 100, 200), [" config JP wager", " $1.00 to $2.00"]),
    ((ev.CONFIG_CHANGE, 101, 0, 1), [" config split", " off to on"]),
    ((ev.CONFIG_CHANGE, 102, 100000, 120000), [" pay flush", " 100:1 to 120:1"]),
    ((ev.CONFIG_CHANGE, 106, 10000100, 5000050), [" pay royal", " to 5000:1/50%"]),
    ((ev.CONFIG_CHANGE, 107, 700000, 125000), [" main rate", " 70% to 12.5%"]),
    ((ev.CONFIG_CHANGE, 109, 1000000, 500000), [" main reset", " to $5000.00"]),
    ((ev.CONFIG_CHANGE, 112, 0, 50000), [" minor rsv rate", " 0% to 5%"]),
    ((ev.CONFIG_CHANGE, 118, 0, 2000000), [" major ceiling", " to $20000.00"]),
    ((ev.CONFIG_CHANGE, 121, 0, 50000), [" envy quads", " to $500.00"]),
    # the clock set by the supervisor (99): how far it moved, forward or back
    ((ev.CONFIG_CHANGE, 99, 3 * 3600 + 5 * 60 + 12, 1), [" config clock", " +03:05:12"]),
    ((ev.CONFIG_CHANGE, 99, -600, 0), [" config clock", " -00:10:00"]),
    ((ev.CONFIG_CHANGE, 99, 1796 * 86400 + 61, 1), [" config clock", " +1796d00:01:01"]),
    ((ev.DOOR_OPEN, 1), [" door open id 1", ""]),
    ((ev.DOOR_CLOSE, 1, 7), [" door close id 1", " x7"]),      # 7 fast changes, one entry
    ((ev.TAMPER, 6), [" tamper S6", ""]),
    ((ev.LINK_DOWN, 0), [" link down", ""]),
    ((ev.SETTLE, 0, 0, 1000070), [" settle", " pool $10000.70"]),
    ((ev.SETTLE, 0, 1000140, 1000000), [" settle", " paid $10001.40"]),
    ((ev.LOG_ERROR, 0, 40), [" log error", " at #40"]),
    ((ev.OPERATOR_ADDITION, 0, 0, 500000), [" addition main", " $5000.00"]),
    ((ev.LINK_REJECT, 2, 5), [" link reject", " forged x5"]),
    ((ev.LINK_MISMATCH, 0, 1200, 1300), [" link mismatch", " $12.00/$13.00"]),
    # a linked table's cumulative wagers soon outgrow one line: one a line, whole
    ((ev.LINK_MISMATCH, 0, 123456, 123457), [" table $1234.56", " link $1234.57"]),
    ((ev.LINK_MISMATCH, 0, 2147483647, 123456789), [" T $21474836.47", " L $1234567.89"]),
    # a win too big to share its line with the hand: the hand beside the seat
    ((ev.JACKPOT_HIT, 1, 4, 12345678), [" hit S1 Royal", " $123456.78"]),
    ((ev.JACKPOT_HIT, 7, 2, 2147483647), [" hit S7 Quads", " $21474836.47"]),
    # a round that paid more than a line holds beside "paid": the amount whole
    ((ev.SETTLE, 0, 2147483647, 1000000), [" settle paid", " $21474836.47"]),
    ((ev.SETTLE, 0, 12345678, 1000000), [" settle", " paid $123456.78"]),
    ((ev.LINK_CLAIM, 5, 3, 100), [" link claim S5", " $1.00 Str Flush"]),
    ((ev.SHOE_REJECT, shoe.REASONS.index("bad checksum"), 3), [" shoe reject", " bad checksum x3"]),
    ((ev.SENSOR_FAULT, 4, 2, sens.FAULT_NAMES.index("stuck")), [" sensor fault S4", " ante stuck"]),
    ((ev.SENSOR_FAULT, 0, 0, sens.FAULT_NAMES.index("bus")), [" sensor fault", " bus"]),
    ((ev.DISPLAY_FAULT, 1), [" display fault", ""]),
    ((ev.DISPLAY_FAULT, 2), [" display fault", " sign"]),     # the meter sign's writes failed
    # where the card went and which: 51 is the ace of spades, 48 the ace of clubs
    ((ev.CARD_DUPLICATE, 8, 51), [" card twice", " board As"]),
    ((ev.CARD_REMOVED, 3, 48), [" card removed", " S3 Ac"]),
    ((ev.CARD_REMOVED, 0, 0), [" card removed", " dealer 2c"]),
    # jackpot hands sent back unpaid: the seats, and what they would have been paid
    ((ev.JACKPOT_SENT_BACK, 1, 0b101, 1000140), [" unpaid S1,3", " $10001.40"]),
    ((ev.JACKPOT_SENT_BACK, 1, 0b1111111, 2147483647), [" unpaid S1234567", " $21474836.47"]),
    # a fault that stopped the table: the boots in a row, and the fault's id (the same id:
    # the same error again)
    ((ev.LOOP_FAULT, 3, 0x593D425A, 1), [" fault x3", " id 593d425a"]),
]


def test_each_entry_shows_number_clock_name_and_values_uncut(table):
    table.c.tick(table.tick(), WALL)
    first = table.memory.log.count
    events = [event for event, _ in SHOWN]
    for i in range(0, len(events), 32):                 # at most 32 events a commit
        assert table.c.commit_admin(events[i:i + 32]) == ""
    menu = open_audit(table)
    for i, (event, shown) in enumerate(SHOWN):
        lines = entry(menu, first + i)
        # no round committed since the RAM clear: round 0
        assert lines == ["#%d 07:19:56 r0" % (first + i)] + shown, event
    assert all(len(line) <= WIDTH for line in menu)


def test_entries_run_newest_first_and_scroll_onto_the_screen(table):
    table.c.tick(table.tick(), WALL)
    table.c.commit_admin([(ev.TAMPER, 2), (ev.DOOR_OPEN, 1)])
    newest = table.memory.log.count - 1
    open_audit(table)
    for _ in range(10):                                   # OK: the next section
        if table.c.view.lines[1].startswith("events"):
            break
        table.press(btn.OK)
    screen = table.c.view.lines
    # the section under the menu's title, which stays on the top line
    assert screen[:3] == ["AUDIT  (BACK)", "events %d" % (newest + 1), "held from #0"]
    # no round committed since the RAM clear: round 0
    assert screen[3:8] == ["#%d 07:19:56 r0" % newest, " door open id 1", "",
                           "#%d 07:19:56 r0" % (newest - 1), " tamper S2"]


def test_more_than_forty_entries_and_a_wrapped_log_are_all_reachable(table):
    # 35 pages of 32: the ring of 34 pages has dropped its oldest page
    log = table.memory.log
    start = log.count           # the RAM clear's entry
    for _ in range(35):
        assert table.c.commit_admin([(ev.TAMPER, 1 + i % 7) for i in range(32)]) == ""
    oldest, newest = log.first_available(), log.count - 1
    assert oldest == 64 and newest == start + 35 * 32 - 1   # 1 RAM clear + 1120 tamper events
    menu = open_audit(table)
    shown = [line for line in menu if line.startswith("#")]
    assert len(shown) == newest - oldest + 1
    assert shown[0].startswith("#%d " % newest) and shown[-1].startswith("#%d " % oldest)
    # OK jumps section by section to the last screen: the oldest entry held
    for _ in range(20):
        table.press(btn.OK)
        if table.c.menu_top == len(menu) - LINES:
            break
    screen = table.c.view.lines
    # event 64 is the entry i = (64 - start) % 32 of its batch of 32: seat 1 + i % 7
    assert screen[-3].startswith("#%d " % oldest)
    assert screen[-2] == " tamper S%d" % (1 + (oldest - start) % 32 % 7)
    table.press(btn.OK)                                   # and round to the top
    assert table.c.menu_top == 0 and table.c.view.lines[0] == "AUDIT  (BACK)"


def test_long_down_alone_reaches_the_oldest_entry(table):
    for _ in range(3):
        table.c.commit_admin([(ev.DOOR_OPEN, 1)] * 32)
    open_audit(table)
    last = -1
    while table.c.menu_top != last:
        last = table.c.menu_top
        table.press(btn.DOWN, long=True)
    assert table.c.view.lines[-3].startswith("#0 ") and table.c.view.lines[-2] == " RAM clear sup 1"


@pytest.mark.parametrize("door", [False, True])
def test_paging_down_and_up_shows_every_line_of_the_menu(table, door):
    # a page is what the screen shows under the title, which stays on the top line: a long
    # press that moved a whole screen's height skipped a line at every page
    table.c.commit_admin([(ev.TAMPER, 1 + i % 7) for i in range(20)])
    if door:
        table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    menu = open_audit(table)
    for button in (btn.DOWN, btn.UP):
        seen = set()
        for _ in range(len(menu)):
            last = table.c.menu_top
            for kind in (btn.PRESS, btn.LONG, btn.RELEASE):   # a long press, screen by screen
                seen.update(range(table.c.menu_top + 1, table.c.menu_top + LINES - door))
                table.c.panel(kind, button, table.tick(1000))
            if table.c.menu_top == last:
                break
        seen.add(0)                                       # the title, always on screen
        assert seen == set(range(len(menu))), sorted(set(range(len(menu))) - seen)


def test_a_missing_log_page_is_shown_unreadable_and_the_rest_still_listed(table, tmp_path):
    table.c.commit_admin([(ev.TAMPER, 1)] * 32)           # events 1..32: page 0 (0..31) on file
    table.c.commit_admin([(ev.TAMPER, 2)] * 3)
    pages = [p for p in tmp_path.iterdir() if re.match(r"ev\d\d\.bin$", p.name)]
    assert [p.name for p in pages] == ["ev00.bin"]
    pages[0].unlink()
    menu = open_audit(table)
    assert entry(menu, 31) == ["#31", " unreadable", ""]
    assert entry(menu, 32)[1:] == [" tamper S1", ""] and entry(menu, 35)[1] == " tamper S2"


def test_meters_show_dollars_and_counts_and_the_last_one_is_reachable(table):
    royal_round(table)
    table.key(True)
    table.press(btn.OK)
    table.press(btn.SETTLE)
    menu = open_audit(table)
    lines = list(menu)
    # the main pool after the royal: reset to $10,000.00; paid 1,000,140 cents (100% of it)
    assert "main $10000.00" in lines
    assert "paid   $10001.40" in lines                    # pool meter and table meter
    assert "wagers         2" in lines and "wagered    $2.00" in lines
    assert "rounds         1" in lines and "collected  $2.00" in lines
    assert all(len(line) <= WIDTH for line in lines)
    # labels too long to share a line with their value keep the value whole on the next line
    i = lines.index("paid royal")
    assert lines[i + 1] == "       $10001.40"
    # the last table meter (carried cents) is on screen after scrolling down
    table.press(btn.OK)
    scroll_until(table, "carried    $0.00")
    assert table.c.phase == tc.AUDIT


def test_a_pool_a_split_took_out_of_use_is_still_shown_with_its_meters(table):
    # the table meters count the Jackpot pool's royal and seed: without its own section the
    # supervisor cannot add the pools up to them
    royal_round(table)
    table.key(True)
    table.press(btn.OK)
    table.press(btn.SETTLE)
    table.c.jackpot.set_config({"split": True, "minor": {"reset": 100000}})
    lines = list(open_audit(table))
    start = lines.index("main off $0.00")
    assert lines.index("minor $1000.00") < start < lines.index("table meters")
    assert "paid   $10001.40" in lines[start:lines.index("table meters")]


def flush_round(table, seat):
    table.chip(seat)
    table.chip(seat, ante=True)
    table.press(btn.LOCK)
    table.deal([(seat, "Ah Kh"), (8, "Qh 2h 3h 4c 5d"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.CONFIRM
    table.key(True)
    table.press(btn.OK)
    table.key(False)
    table.press(btn.SETTLE)
    table.chip(seat, placed=False)                        # chips off for the next round
    table.chip(seat, placed=False, ante=True)


def test_the_last_25_hits_with_seat_amount_hand_and_round(table):
    for n in range(26):
        flush_round(table, 1 + n % 7)
    menu = open_audit(table)
    lines = list(menu)
    start = lines.index("last hits 25")
    # newest first; a flush pays 100 to 1 on the 100-cent wager [11.9]: $100.00
    expected = []
    for round_no in range(26, 1, -1):
        expected += ["S%d $100.00 Flush" % (1 + (round_no - 1) % 7), " r%d" % round_no]
    assert lines[start + 1:start + 51] == expected
    assert lines[start + 51] == "memory ok"


def test_audit_lines_are_the_same_on_micropython(tmp_path):
    """The formatting of every kind of entry on MicroPython matches CPython's."""
    code = ("from firmware.table import audit\n"
            "for e in %r:\n"
            "    print(audit.entry_lines((7, %d, 2) + e + (0,) * (4 - len(e)) + (b'',)))\n"
            % ([event for event, _ in SHOWN], WALL))
    script = tmp_path / "audit_lines_mp.py"
    script.write_text(code)
    mp = runtimes.run_micropython(script)
    cp = runtimes.run_cpython(script)
    assert mp.returncode == 0, mp.stderr
    assert mp.stdout == cp.stdout and mp.stdout.count("07:19:56") == len(SHOWN)


def test_the_open_menu_keeps_a_few_kilobytes_whatever_the_log_size():
    """On MicroPython the open menu's heap does not grow with the log: the entries are read
    from the log page by page as the screen moves, not held in a list."""
    kept = {}
    for events in (40, 1120):
        run = runtimes.run_micropython(SCRIPT, [str(events)], timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        out = run.stdout.splitlines()
        kept[events] = int(out[2].split()[1])
        # BACK lets the menu go: at most half of what the open menu kept is still in use
        # (the OPEN screen drawn again, the log's own reading)
        closed = out[-1].split()
        assert closed[:2] == ["closed", "OPEN"] and int(closed[2]) <= kept[events] // 2, out[-1]
        if events == 1120:
            assert out[0] == "count 1121 oldest 64"
            # the last screen holds the oldest entries held, #65 and #64
            assert "|#64 00:01:40 r0" in out and "|#65 00:01:40 r0" in out
    assert kept[1120] < 10000 and kept[1120] <= kept[40] + 1024, kept


def test_back_closes_the_menu_and_unloads_its_module(table):
    """The audit menu's code is loaded when a supervisor opens it and dropped by BACK, so it
    takes no room in the table's heap while the table plays; it opens again the same."""
    table.c.commit_admin([(ev.TAMPER, 1)])
    first = list(open_audit(table))
    assert "firmware.table.audit" in sys.modules
    table.press(btn.BACK)
    assert table.c.phase == tc.OPEN and table.c.menu == []
    # nor the names for people it loaded (a later report loads them again)
    for name in ("firmware.table.audit", "firmware.store.eventnames", "firmware.jackpot.meternames"):
        assert name not in sys.modules, name
    table.key(False)
    assert list(open_audit(table)) == first


def test_the_menu_indexes_and_slices_like_a_list_of_its_lines(table):
    table.c.commit_admin([(ev.TAMPER, 1), (ev.TAMPER, 2)])
    menu = open_audit(table)
    lines = list(menu)
    assert len(lines) == len(menu)
    assert menu[:3] == lines[:3] == ["AUDIT  (BACK)", "OK=next section", "round 1"]
    assert menu[-3:] == lines[-3:] == ["#0 00:16:40 r0", " RAM clear sup 1", " seed $10000.00"]
    assert menu[-1] == " seed $10000.00" and menu[len(menu) - 5:len(menu) - 4] == [" tamper S1"]
    with pytest.raises(IndexError, match="audit line"):
        menu[len(menu)]


def test_fixed_lines_are_kept_in_small_lists_and_read_like_one():
    """The menu's fixed lines (Lines) read as one list, in order, cut to the display, while
    no list holds more than 32 of them (a fragmented heap may lack a kilobyte in one piece)."""
    from firmware.table import audit

    lines = audit.Lines()
    made = ["line %d" % i for i in range(100)] + ["x" * (WIDTH + 5)]
    lines.extend(made[:50])
    for line in made[50:]:
        lines.append(line)
    assert len(lines) == 101
    assert [lines[i] for i in range(len(lines))] == made[:100] + ["x" * WIDTH]
    assert max(len(chunk) for chunk in lines.chunks) <= 32 and len(lines.chunks) == 4
    with pytest.raises(IndexError):
        lines[101]


def test_a_table_without_the_progressive_shows_no_pool(tmp_path):
    """A Four Card Poker table has no progressive (its sign shows no pool): its audit menu
    and its RAM CLEAR screen show no pool and no jackpot meters, and its rounds' lock and
    settle entries no jackpot wagers or pool amount, where a $10,000.00 pool and "pool $0.00"
    entries contradicted each other and the sign."""
    from host_tests.test_controller import Table

    t = Table(tmp_path, tc.FCP)
    t.key(True)
    t.press(btn.OK, long=True)
    assert t.c.phase == tc.RAM_CLEAR
    assert t.c.view.lines[1:3] == ["FOUR CARD POKER", "no jackpot pool"]
    assert "$" not in t.screen()
    t.press(btn.OK)
    t.key(False)
    t.chip(1, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    t.press(btn.SETTLE)
    t.chip(1, ante=True, placed=False)
    lines = list(open_audit(t))
    assert lines[3:5] == ["FOUR CARD POKER", "no jackpot"]
    assert not [line for line in lines if "pool" in line or "$" in line], lines
    assert entry(t.c.menu, 2)[1:] == [" settle", ""]
    assert entry(t.c.menu, 1)[1:] == [" lock", ""]


def _fcp_round_folding_seats_2_and_3(tmp_path):
    """A Four Card Poker table, seats 1-3 locked with an Ante and dealt, the cursor taken to
    seat 2 and seat 3, each folded (OK): the table, its cursor on seat 3."""
    from host_tests.test_controller import Table

    t = Table(tmp_path, tc.FCP)
    t.ram_clear()
    for seat in (1, 2, 3):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (2, "2c 3d 5h 7s 8c"), (3, "2d 3h 5s 7c 9d"),
            (0, "Kc Kd 7h 5c 3c 2h")])
    t.press(btn.UP)                     # the cursor to seat 2: folded, then seat 3
    t.press(btn.OK)
    t.press(btn.UP)
    t.press(btn.OK)
    return t


def _settle_and_open_the_audit_menu(t):
    t.settle()
    assert t.c.phase == tc.RESULTS
    text = t.screen()
    t.press(btn.SETTLE)
    for seat in (1, 2, 3):
        t.chip(seat, ante=True, placed=False)
    open_audit(t)
    return text


def test_the_settle_entry_keeps_the_seats_folded_for_a_dispute(tmp_path):
    """A player who says he never folded his hand (a royal on the board, a jackpot wager
    lost) has only the dealer's word: the round's folds were in the round record, gone at the
    next round.  The settle entry keeps them (its a: seats 2 and 3 are 0b110), and the audit
    menu shows them where its lines have room (a game without the progressive)."""
    from host_tests.test_controller import events_of

    t = _fcp_round_folding_seats_2_and_3(tmp_path)
    results = _settle_and_open_the_audit_menu(t)
    assert "S2 fold" in results and "S3 fold" in results
    assert [e[4] for e in events_of(t.memory, ev.SETTLE)] == [0b110]
    assert entry(t.c.menu, 2)[1:] == [" settle", " fold S2,3"]


def test_a_seat_folded_then_voided_is_not_in_the_settles_folds(tmp_path):
    """Seat 2 folded, then voided by the supervisor (a misdeal at that seat): its wagers
    were returned, and the results say 'S2 void'; the settle entry said it folded, an
    auditor reading 'fold S2,3' took its wagers as lost to the house."""
    from host_tests.test_controller import events_of

    t = _fcp_round_folding_seats_2_and_3(tmp_path)
    t.press(btn.DOWN)                   # back to seat 2, voided
    t.key(True)
    t.press(btn.BACK)
    t.key(False)
    assert [e[4] for e in events_of(t.memory, ev.VOID)] == [2]
    results = _settle_and_open_the_audit_menu(t)
    assert "S2 void" in results and "S3 fold" in results
    assert entry(t.c.menu, 3)[1:] == [" settle fold S3", ""]


def test_a_settle_with_every_seat_folded_shows_each_seat_whole(tmp_path):
    """Seven players who all fold: 'fold S1,2,3,4,5,6,7' is three characters past the
    display's 16, and the line was cut to 'fold S1,2,3,4,5,' (seats 6 and 7 gone, as if they
    had played).  The audit menu shows every seat folded, on one line."""
    from host_tests.test_controller import Table, events_of

    t = Table(tmp_path, tc.FCP)
    t.ram_clear()
    for seat in range(1, 8):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.deal([(1, "Ah Ad As 9c 4h"), (2, "2c 3d 5h 7s 8c"), (3, "2d 3h 5s 7c 9d"),
            (4, "2h 3s 6c 8d Tc"), (5, "2s 4c 6d 8h Td"), (6, "3c 4d 6h 8s Th"),
            (7, "4s 6s 9h Js Qc"), (0, "Kc Kd 7h 5c Jc Kh")])
    t.press(btn.OK)                     # seat 1 folded, then each seat after it
    for _ in range(6):
        t.press(btn.UP)
        t.press(btn.OK)
    t.settle()
    assert [e[4] for e in events_of(t.memory, ev.SETTLE)] == [0b1111111]
    t.press(btn.SETTLE)
    for seat in range(1, 8):
        t.chip(seat, ante=True, placed=False)
    open_audit(t)
    assert entry(t.c.menu, 2)[1:] == [" settle", " fold S1234567"]


def test_a_void_at_a_table_without_the_progressive_shows_no_jackpot_amount(tmp_path):
    """Four Card Poker: the supervisor voids seat 2, then a misdeal voids the next round.
    Every wager of them was returned, but their entries read "void S2 $0.00" and "void S-
    $0.00" (the jackpot wagers returned: none at this game), as if nothing had been given
    back.  They show the seat voided, and for the round nothing more than "void"."""
    from host_tests.test_controller import Table

    t = Table(tmp_path, tc.FCP)
    t.ram_clear()
    for seat in (1, 2):
        t.chip(seat, ante=True)
    t.press(btn.LOCK)
    t.press(btn.UP)                         # seat 2
    t.key(True)
    t.press(btn.BACK)                       # seat 2 void
    t.key(False)
    t.deal([(1, "Ah Ad As 9c 4h"), (0, "Kc Kd 7h 5s 3c 2d")])
    t.press(btn.SETTLE)
    t.press(btn.SETTLE)
    t.press(btn.LOCK)
    t.key(True)
    t.press(btn.BACK, long=True)            # the next round void: a misdeal
    t.key(False)
    t.press(btn.SETTLE)
    lines = list(open_audit(t))
    assert not [line for line in lines if "$" in line or "S-" in line], lines
    assert entry(t.c.menu, 2)[1:] == [" void S2", ""]
    assert entry(t.c.menu, 5)[1:] == [" void", ""]


def test_a_table_changed_to_another_game_still_shows_the_pool_it_has_a_history_of(table):
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.key(True)
    table.press(btn.BACK, long=True)        # the round void: a wager taken and given back
    table.key(False)
    table.chip(1, placed=False)
    table.chip(1, ante=True, placed=False)
    table.game = tc.FCP                     # the table's configuration now says Four Card Poker
    table.boot()
    table.press(btn.SETTLE)                 # past the void round's results, shown again
    lines = list(open_audit(table))
    assert "main $10000.00" in lines and "wagers         1" in lines


def test_a_pay_line_whose_odds_are_below_its_percent_is_logged_as_a_pay_line():
    """A straight flush paying 10 to 1 or 10% of the pool was logged as if it were a rate
    (10/10 of a million parts), which reads back as 1000 to 1 and no percent."""
    from firmware.jackpot import config as jcfg
    from firmware.table import audit

    config = jcfg.build({"pay": {"straight_flush": (10, 10)}})
    change = jcfg.logged_change(config, "pay.straight_flush", (1000, 10), (10, 10))
    assert change == (105, 1000010, 10010)
    lines = audit.entry_lines((9, WALL, 1, ev.CONFIG_CHANGE) + change + (b"",))
    assert lines[1:] == [" config pay SF", " to 10:1/10%"]
    # the rates keep their parts per million
    assert jcfg.logged_change(config, "main.rate", (70, 100), (3, 8)) == (107, 700000, 375000)


def test_a_millionth_entry_keeps_its_number_and_minute_whole():
    # "#1000000 07:19:56" is 17 columns: the seconds go, never a digit of the number (a busy
    # table logs some ten entries a round, a million in a few months)
    from firmware.table import audit

    lines = audit.entry_lines((1000000, WALL, 2, ev.TAMPER, 6, 0, 0, b""))
    assert lines[0] == "#1000000 07:19" and lines[1] == " tamper S6"
    assert audit.entry_lines((999999, WALL, 2, ev.TAMPER, 6, 0, 0, b""))[0] == "#999999 07:19:56"



def test_with_the_door_open_every_audit_line_can_still_be_read(table):
    """The logic door open: DOOR OPEN takes the display's last line, and the menu scrolls in
    the seven above it, so that no line of the menu (its title, its last entry) is hidden."""
    table.c.panel(btn.DOOR_OPEN, 0, table.tick())
    menu = open_audit(table)
    screen = table.c.view.lines
    assert screen[0] == "AUDIT  (BACK)" and screen[-1] == "DOOR OPEN"
    assert screen[:LINES - 1] == list(menu[:LINES - 1])
    last = -1
    while table.c.menu_top != last:                       # down to the end, page by page
        last = table.c.menu_top
        table.press(btn.DOWN, long=True)
    # the title on top, then the menu's last lines
    assert table.c.view.lines[:LINES - 1] == ["AUDIT  (BACK)"] + list(menu[len(menu) - LINES + 2:])
    assert table.c.view.lines[-1] == "DOOR OPEN"
    for _ in range(20):                                   # OK: section by section, then the top
        table.press(btn.OK)
        assert table.c.menu_top <= len(menu) - LINES + 1
        if table.c.menu_top == 0:
            break
    assert table.c.view.lines[0] == "AUDIT  (BACK)"


def test_a_copy_of_critical_memory_that_fails_its_writes_shows_in_the_audit(table, monkeypatch):
    """The second copy (the FRAM on a board) stops taking writes: the commits go on on the
    first, and the supervisor's audit must not say "memory ok" while only one copy is kept."""
    def broken(data):
        raise OSError(5, "EIO")

    monkeypatch.setattr(table.memory.copies[1], "write", broken)
    assert table.c.commit_admin([(ev.TAMPER, 1)]) == ""
    menu = list(open_audit(table))
    at = menu.index("memory FAULT")
    assert menu[at + 1:at + 3] == ["copy 1", " write failed"]
    assert "memory ok" not in menu


def test_an_entry_past_the_hundredth_still_names_its_round():
    """'#606 07:19:56' leaves a round number no room beside it (16 columns): the round goes on
    the entry's own lines where one has room, else a busy table's log (a hundred entries in
    the first hour) never says which round an entry belongs to."""
    from firmware.table import audit

    assert audit.entry_lines((606, WALL, 300, ev.SETTLE, 0, 0, 1054110, b"")) == [
        "#606 07:19:56", " settle r300", " pool $10541.10"]
    assert audit.entry_lines((605, WALL, 300, ev.LOCK, 0, 0b1001111, 500, b"")) == [
        "#605 07:19:56", " lock S1,2,3,4,7", " $5.00 r300"]
    assert audit.entry_lines((604, WALL, 299, ev.TAMPER, 6, 0, 0, b"")) == [
        "#604 07:19:56", " tamper S6", " r299"]
    assert audit.entry_lines((603, WALL, 1234567, ev.DOOR_OPEN, 1, 0, 0, b"")) == [
        "#603 07:19:56", " door open id 1", " r1234567"]
    # a jackpot hit, the entry a supervisor looks for by its round: "hit" leaves it room
    assert audit.entry_lines((602, WALL, 300, ev.JACKPOT_HIT, 3, 4, 1000140, b"")) == [
        "#602 07:19:56", " hit S3 r300", " $10001.40 Royal"]
    assert audit.entry_lines((601, WALL, 300, ev.JACKPOT_HIT, 3, 4, 2147483647, b"")) == [
        "#601 07:19:56", " hit S3 Royal", " $21474836.47"]
    # a line with no room for it is never cut: the round is left out there
    lines = audit.entry_lines((600, WALL, 300, ev.SUPERVISOR_CONFIRM, 1, 2, 0, b""))
    assert lines == ["#600 07:19:56", " supervisor OK", " sup 1 hits 2"]


def test_a_scrolled_audit_screen_still_says_where_it_is_and_how_to_leave(tmp_path):
    """Scrolled down, the dealer display (the SSD1306's pixels read back as text) keeps the
    menu's title, AUDIT and BACK, on its top line; a section OK jumps to shows its own title
    under it, and the last line of the menu is still reached."""
    from host_tests.test_table_payout import BoardRig

    b = BoardRig(tmp_path)
    b.ram_clear()
    b.key(True)
    b.press("OK", long=True)
    c = b.app.controller
    assert c.phase == tc.AUDIT
    menu = c.menu
    b.press("DOWN")
    b.run(100)
    assert b.table.oled.lines()[0].strip() == "AUDIT  (BACK)"
    b.press("OK")                                         # the next section: the main pool
    b.run(100)
    oled = [line.rstrip() for line in b.table.oled.lines()]
    assert oled[0] == "AUDIT  (BACK)" and oled[1] == "main $10000.00", oled
    for _ in range(20):                                   # long DOWN to the end
        b.press("DOWN", long=True)
    b.run(100)
    oled = [line.rstrip() for line in b.table.oled.lines()]
    assert oled[0] == "AUDIT  (BACK)" and oled[-1] == menu[len(menu) - 1].rstrip(), oled


def test_a_linked_tables_menu_names_its_pools_and_meters_as_the_audit_export_does(tmp_path):
    # the menu listed the link's pool as "pool 0" where tools.audit's report and meters.csv
    # call it "pool 1": the supervisor and the technician's export named one pool two ways
    from firmware.service import Service
    from host_tests.test_link_wiring import ROYAL, Rig
    from tools import audit

    r = Rig(tmp_path)
    r.ram_clear()
    r.step(100, 5)
    r.chips(1, 2)
    r.press(btn.LOCK)
    r.step(100, 3)
    r.deal(ROYAL)
    r.press(btn.SETTLE)
    r.key(True)
    r.press(btn.OK)
    r.step(100, 5)
    assert r.c.phase == tc.RESULTS
    r.press(btn.SETTLE)
    meters = Service(r.c).handle("meters")
    (name, amount), = audit.linked_pools(meters)
    lines = list(open_audit(r))
    assert "%s $%d.%02d" % (name, amount // 100, amount % 100) in lines
    assert [line for line in lines if line.startswith("pool ")] == ["pool 1 $10000.00"]
    # the linked meters as the service's table reports them: $2 wagered, the royal paid
    table = meters["table"]
    assert (table["wagered"], table["wagers"], table["paid"], table["hits"]) == (200, 2, 1000140, 1)
    at = lines.index("linked meters")
    assert lines[at + 1:at + 6] == ["wagered    $2.00", "wagers         2", "reversed   $0.00",
                                    "paid   $10001.40", "hits           1"]


def test_the_wagers_a_linked_table_reversed_are_labelled_as_such():
    # the link ledger's "reversed" (wagers voided and taken back from the linked pool) read
    # "rev $1.00" among the linked meters, a word with nothing to say what was reversed; the
    # pool's own "contrib rev", "rsv rev", ... keep their short form
    from firmware.table import audit

    assert audit.label("reversed") == "reversed"
    out = []
    audit.meter_lines(out, "reversed", 100)
    assert out == ["reversed   $1.00"]
    assert [audit.label(n) for n in ("contributions_reversed", "reserve_reversed",
                                     "overflow_reversed", "retention_reversed")] == \
        ["contrib rev", "rsv rev", "overflow rev", "retention rev"]


def test_a_hit_paid_beyond_the_pool_shows_the_operator_funded_part_in_the_last_hits(tmp_path):
    # a royal at 20,000 to 1 ($20,000.00) from a pool of $10,001.40 is paid in full, $9,998.60
    # of it operator-funded (rules.md, Decision (shortfall)); the last hits showed the payout
    # alone, as if the pool had paid it, where the hits reply and tools.audit say the part
    from firmware.table import audit
    from host_tests.test_controller import Table

    t = Table(tmp_path, jackpot_config={"main": {"reset": 1000000},
                                        "pay": {"royal_flush": (20000, 100)}})
    t.ram_clear()
    royal_round(t)
    t.key(True)
    t.press(btn.OK)
    assert t.c.phase == tc.RESULTS
    out = []
    for hit in t.c.jackpot.last_hits():
        audit.hit_lines(out, hit)
    assert out == ["S1 $20000.00", " Royal Flush r1", " shortfall", " $9998.60"]


def test_a_ram_clear_at_a_game_without_the_jackpot_shows_the_sequence_before_it():
    """No pool was seeded there (c is 0): the line shows critical memory's commit number
    before the clear, as it did before the seed was shown, as 'seq', not as '#', which
    numbers the entries."""
    from firmware.table import audit

    entry = (7, WALL, 0, ev.RAM_CLEAR, 1, 57, 0, b"")
    assert audit.entry_lines(entry, False) == ["#7 07:19:56 r0", " RAM clear sup 1", " seq 57"]
    assert audit.entry_lines(entry) == ["#7 07:19:56 r0", " RAM clear sup 1", " seed $0.00"]


def test_after_a_power_cut_the_clock_behind_the_log_logs_no_earlier_time_and_says_so(table):
    """A Pico W's clock starts again at a fixed date after a power cut (here 1970 and a bit):
    the table goes on from the newest time its log holds, never before it (the hit's time
    too), and the audit menu marks the times it could not know (?07:21:01) until a real time
    comes (NTP: clock_set)."""
    table.c.tick(table.tick(), WALL)
    table.c.commit_admin([(ev.TAMPER, 1)])
    raw = 1000 + table.now                  # what the clock reads at the boot (Table.boot)
    c = table.boot()
    assert c.wall == WALL and table.memory.clock_unsure
    c.tick(table.tick(), raw + 65)          # a minute later by the board's clock
    assert c.wall == WALL + 65
    royal_round(table)
    table.key(True)
    table.press(btn.OK)                     # the supervisor confirms: paid
    table.key(False)
    assert c.jackpot.last_hits()[-1]["time"] == WALL + 65
    hit = [raw for raw in table.memory.log.entries() if ev.unpack(raw)[3] == ev.JACKPOT_HIT]
    assert len(hit) == 1 and ev.time_unsure(hit[0]) and ev.unpack(hit[0])[1] == WALL + 65
    seq = ev.unpack(hit[0])[0]
    table.press(btn.SETTLE)
    menu = open_audit(table)
    assert entry(menu, seq)[0] == "#%d ?07:21:01 r1" % seq
    # the power-up: at the time of the tamper before it, not 1970; the tamper's time was known
    power_up = [e[0] for e in table.memory.log.events() if e[3] == ev.POWER_UP][-1]
    assert entry(menu, power_up)[:2] == ["#%d ?07:19:56 r0" % power_up, " power up"]
    assert entry(menu, power_up - 1)[:2] == ["#%d 07:19:56 r0" % (power_up - 1), " tamper S1"]
    # and the memory section says why (the table's clock is not set)
    fixed = list(menu.fixed)
    assert "clock NOT SET" in fixed and fixed.index("clock NOT SET") > fixed.index("memory ok")
    table.press(btn.BACK)
    table.key(False)
    # NTP answers: the clock's own time, unmarked, from then on
    c.clock_set()
    c.tick(table.tick(), WALL + 86400 + 3600)
    assert c.wall == WALL + 86400 + 3600
    c.commit_admin([(ev.TAMPER, 2)])
    menu = open_audit(table)
    assert "clock NOT SET" not in list(menu.fixed)
    assert entry(menu, table.memory.log.count - 1)[:2] == [
        "#%d 08:19:56 r1" % (table.memory.log.count - 1), " tamper S2"]


def test_a_clock_set_by_the_supervisor_is_shown_and_the_times_after_it_are_known(table):
    """The service's clock_set at a table that did not know the time: its entry is at the
    time set, unmarked, saying how far the clock moved, and so are the entries after it."""
    from firmware import service

    table.c.tick(table.tick(), WALL)
    table.c.commit_admin([(ev.TAMPER, 1)])
    raw = 1000 + table.now
    c = table.boot()
    assert table.memory.clock_unsure
    table.key(True)
    # from 2024-10-04T07:19:56 (WALL) to 2026-12-01T04:30:00: 788 days less 2:49:56
    assert service.Service(c).handle("clock_set 2026-12-01T04:30:00")["ok"] is True
    seq = table.memory.log.count - 1
    c.tick(table.tick(), raw + 65)
    c.commit_admin([(ev.TAMPER, 2)])
    menu = open_audit(table)
    assert "clock NOT SET" not in list(menu.fixed)
    assert entry(menu, seq) == ["#%d 04:30:00 r0" % seq, " config clock", " +787d21:10:04"]
    assert entry(menu, seq + 1)[:2] == ["#%d 04:31:05 r0" % (seq + 1), " tamper S2"]
    assert entry(menu, seq - 1)[0] == "#%d ?07:19:56 r0" % (seq - 1)     # the power-up
