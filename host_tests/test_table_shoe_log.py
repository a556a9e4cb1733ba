"""Bad shoe lines: the dealer sees the reason, the event log keeps the reason and the count
(at most one entry every _SHOE_LOG_MS, longer while it goes on: a babbling shoe can neither
wear out the flash nor push the records out of the log), and
nothing is lost or stops the loop."""


from firmware.drivers import shoe as shoemod
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.test_controller import TICKS_WRAP, events_of, failing_commits
from host_tests.test_table_payout import BoardRig


def test_a_bad_line_is_shown_with_its_reason_and_logged(table):
    table.c.shoe_reject(shoemod.BAD_CARD, table.tick())
    assert "Shoe line bad" in table.screen() and "bad card" in table.screen()
    assert [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)] == [(shoemod.BAD_CARD, 1)]


def test_a_flood_of_bad_lines_is_counted_into_one_entry_per_interval(table):
    start = table.tick()
    table.c.shoe_reject(shoemod.GARBAGE, start)
    for _ in range(49):
        table.c.shoe_reject(shoemod.TOO_LONG, table.tick())
    assert len(events_of(table.memory, ev.SHOE_REJECT)) == 1       # the first, at once
    table.now = start + tc._SHOE_LOG_MS - 1
    table.c.tick(table.now, 2000)
    assert len(events_of(table.memory, ev.SHOE_REJECT)) == 1       # not before the interval
    table.now = start + tc._SHOE_LOG_MS
    table.c.tick(table.now, 2000)
    logged = [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)]
    assert logged == [(shoemod.GARBAGE, 1), (shoemod.TOO_LONG, 49)]    # all 50, the last reason
    table.c.tick(table.now + tc._SHOE_LOG_MS, 2000)
    assert len(events_of(table.memory, ev.SHOE_REJECT)) == 2       # nothing new: no entry


def test_a_bad_line_through_the_shoe_driver_is_logged_and_the_next_card_taken(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()                            # opens the table
    b.table.mcp.cover(0)
    b.table.mcp.cover(8)                     # seat 1's jackpot and Ante spots
    b.run(200)
    b.press("LOCK")
    b.shoe("S1 Zz")                       # no such card
    b.shoe("\x01\x02garbage")
    b.shoe("S1 Ah")
    c = b.app.controller
    assert [e[4] for e in events_of(c.memory, ev.SHOE_REJECT)] == [shoemod.BAD_CARD]
    assert c._hole(0) == cards.parse("Ah")  # the loop carried on and took the next card
    b.run(tc._SHOE_LOG_MS)                    # the second bad line, counted, goes in next
    assert [e[4:6] for e in events_of(c.memory, ev.SHOE_REJECT)] == [
        (shoemod.BAD_CARD, 1), (shoemod.GARBAGE, 1)]


def test_bytes_lost_tell_the_dealer_to_check_the_cards_and_keep_their_reason_in_the_log(table):
    start = table.tick()
    table.c.shoe_reject(shoemod.GARBAGE, start)              # logged at once
    table.c.shoe_reject(shoemod.OVERRUN, table.tick())
    assert "Shoe bytes lost" in table.screen() and "check the cards" in table.screen()
    table.c.shoe_reject(shoemod.BAD_FORMAT, table.tick())    # a lesser reason after it
    table.now = start + tc._SHOE_LOG_MS
    table.c.tick(table.now, 2000)
    logged = [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)]
    assert logged == [(shoemod.GARBAGE, 1), (shoemod.OVERRUN, 2)]    # cards may be missing


def test_a_stalled_loop_that_loses_shoe_bytes_takes_no_wrong_card(tmp_path):
    # At the wire: the simulated board's UART keeps 512 bytes like the real ones and drops the
    # rest while the loop is stalled; the shoe sends no checksums.
    b = BoardRig(tmp_path)
    b.ram_clear()                            # opens the table
    b.table.mcp.cover(0)
    b.table.mcp.cover(8)                     # seat 1's jackpot and Ante spots
    b.run(200)
    b.press("LOCK")
    uart = b.table.shoe
    uart.inject(b"H\n" * 254 + b"S1 A")      # the loop stalls: the buffer fills mid-line...
    uart.inject(b"h\nS1 Kd\nS2 Q")           # ...and these bytes are dropped
    assert uart.overruns == 12
    b.run(60)
    uart.inject(b"d\n")                      # the end of "S2 Qd" would make "S1 Ad"
    b.run(400)
    c = b.app.controller
    assert c._hole(0) == []                  # no card taken for seat 1, least of all Ad
    shown = "\n".join(b.display())
    assert "Shoe bytes lost" in shown and "check the cards" in shown
    assert [e[4] for e in events_of(c.memory, ev.SHOE_REJECT)] == [shoemod.OVERRUN]
    b.shoe("S1 Ah")                          # the dealer's check: the next line is read
    assert c._hole(0) == cards.parse("Ah")


def test_a_store_that_cannot_commit_is_not_retried_every_tick_for_a_bad_line(table):
    # Both copies refuse the commit of the SHOE_REJECT entry: the dealer is told (MEMORY
    # FAULT), and the entry waits for the next interval, not a failing write (and an alarm)
    # at every 20 ms tick; once the store works again it is written with every line counted.
    writes, commit_admin = failing_commits(table)
    start = table.tick()
    table.c.shoe_reject(shoemod.BAD_CARD, start)
    assert "MEMORY FAULT" in table.c.last_refusal
    for _ in range(tc._SHOE_LOG_MS // 40):
        table.c.tick(table.tick(), 2000)
    table.c.shoe_reject(shoemod.GARBAGE, table.tick())
    while table.now < start + tc._SHOE_LOG_MS - 20:
        table.c.tick(table.tick(), 2000)
    assert len(writes) == 1
    table.memory.commit_admin = commit_admin
    table.c.tick(table.tick(), 2000)                 # the interval is up: written now
    assert len(writes) == 1
    assert [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)] == [(shoemod.GARBAGE, 2)]


def test_a_shoe_that_babbles_for_an_hour_takes_a_dozen_entries_not_360(table):
    # A shoe on the wrong baud rate, or a cable picking up noise, sends bad lines for hours:
    # an entry every 10 s was 360 an hour, and the event log's 1,088 entries (its jackpot
    # hits, RAM clears, tampers) were gone in three hours.  While the lines keep coming the
    # wait doubles, up to about 10 minutes; every line is still counted, and a shoe quiet
    # for 21 minutes has its next bad line logged at once again, the wait 10 s again.
    start = table.now
    lines = 0
    while table.now < start + 3600 * 1000:
        table.c.shoe_reject(shoemod.GARBAGE, table.tick(500))
        table.c.tick(table.now, 2000)
        lines += 1
    table.c.tick(table.tick(700 * 1000), 2000)       # the last wait over: its lines go in
    entries = events_of(table.memory, ev.SHOE_REJECT)
    # at 0.5 s, then 10, 10, 20, 40, 80, 160, 320 and 640 s apart (640 s at most): 13
    assert len(entries) == 13
    assert sum(e[5] for e in entries) == lines == 7200
    table.c.tick(table.tick(1280 * 1000), 2000)      # quiet for 21 minutes
    table.c.shoe_reject(shoemod.BAD_CARD, table.tick())
    assert [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)][13:] == [(shoemod.BAD_CARD, 1)]
    table.c.shoe_reject(shoemod.BAD_CARD, table.tick())
    table.c.tick(table.tick(tc._SHOE_LOG_MS), 2000)   # 10 s again, not 640
    assert len(events_of(table.memory, ev.SHOE_REJECT)) == 15


def test_a_shoe_with_a_bad_line_every_11_s_all_night_takes_five_or_six_entries_an_hour(table):
    # A cable that picks up a burst of noise every 11 s: a wait through which at most one
    # line came brought the wait back to 10 s, so every line made its own entry, 327 an
    # hour, and a night of it pushed the jackpot hits and tampers out of the 1,088-entry log.
    # Any entry less than 5 minutes after the one before doubles the wait now: after the
    # first hour the entries come 640 s apart, each counting the lines since the one before.
    before = len(events_of(table.memory, ev.SHOE_REJECT))
    lines = 0
    hourly = []
    for second in range(1, 8 * 3600 + 1):          # 8 hours, the loop ticking every second
        table.tick(1000)
        if second % 11 == 0:
            table.c.shoe_reject(shoemod.GARBAGE, table.now)
            lines += 1
        table.c.tick(table.now, 2000)
        if second % 3600 == 0:
            hourly.append(len(events_of(table.memory, ev.SHOE_REJECT)) - before - sum(hourly))
    assert all(n in (5, 6) for n in hourly[1:]), hourly
    for _ in range(640):                           # the shoe quiet: its last wait up
        table.c.tick(table.tick(1000), 2000)
    entries = events_of(table.memory, ev.SHOE_REJECT)[before:]
    assert sum(e[5] for e in entries) == lines == 8 * 3600 // 11    # every line counted
    for _ in range(3600):                          # a quiet hour
        table.c.tick(table.tick(1000), 2000)
    table.c.shoe_reject(shoemod.BAD_CARD, table.tick())    # a bad line: logged at once
    assert [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)[before + len(entries):]] == [
        (shoemod.BAD_CARD, 1)]


def test_a_shoe_babbling_slowly_across_the_tick_wrap_keeps_its_wait_and_every_line(table):
    # The board's tick count wraps every 12.4 days: a wait or a quiet time taken across it
    # by a plain difference would read as negative, the lines held for ever (never logged)
    # or the wait back to 10 s at the wrap.  A bad line every 11 s from an hour before the
    # wrap to an hour after: 5 or 6 entries in the hour after it too, every line counted,
    # and after 21 quiet minutes the next one is logged at once.
    def at(ms):
        table.now = ms & (TICKS_WRAP - 1)
        return table.now

    before = len(events_of(table.memory, ev.SHOE_REJECT))
    start = TICKS_WRAP - 3600 * 1000
    lines = 0
    hourly = []
    for second in range(1, 2 * 3600 + 1 + 640):    # two hours, then the last wait up
        now = at(start + second * 1000)
        if second % 11 == 0 and second <= 2 * 3600:
            table.c.shoe_reject(shoemod.GARBAGE, now)
            lines += 1
        table.c.tick(now, 2000)
        if second % 3600 == 0:
            hourly.append(len(events_of(table.memory, ev.SHOE_REJECT)) - before - sum(hourly))
    assert hourly[1] in (5, 6), hourly
    entries = events_of(table.memory, ev.SHOE_REJECT)[before:]
    assert sum(e[5] for e in entries) == lines == 2 * 3600 // 11
    for second in range(1, 1281):                  # 21 quiet minutes
        table.c.tick(at(start + (2 * 3600 + 640 + second) * 1000), 2000)
    table.c.shoe_reject(shoemod.BAD_CARD, at(table.now + 1000))   # logged at once
    assert [e[4:6] for e in events_of(table.memory, ev.SHOE_REJECT)[before + len(entries):]] == [
        (shoemod.BAD_CARD, 1)]


def test_a_shoe_cable_pulled_mid_card_and_plugged_back_loses_no_card_and_takes_no_wrong_one(tmp_path):
    # At the wire, in a locked round: the shoe's cable comes out halfway through "S1 Ah" and
    # goes back in; the half line is dropped as a partial line (told, logged), not joined to
    # what comes next, and the card sent again is taken.
    b = BoardRig(tmp_path)
    b.ram_clear()
    b.table.mcp.cover(0)
    b.table.mcp.cover(8)                     # seat 1's jackpot and Ante spots
    b.run(200)
    b.press("LOCK")
    c = b.app.controller
    b.table.shoe.inject(b"S1 A")             # the cable pulled here
    b.run(1000)
    shown = [line.strip() for line in b.table.oled.lines()]
    assert shown[6:8] == ["Shoe line bad", "partial line"]
    assert c._hole(0) == []
    b.table.shoe.inject(b"d\n")              # a noise byte as it goes back in, then its LF
    b.shoe("S1 Ah")                          # the shoe sends the card again
    b.shoe("S1 Kh")
    assert c._hole(0) == cards.parse("Ah Kh")    # never "S1 Ad"
    b.run(tc._SHOE_LOG_MS)
    logged = [e[4:6] for e in events_of(c.memory, ev.SHOE_REJECT)]
    assert logged[0] == (shoemod.PARTIAL, 1) and sum(n for _, n in logged) == 2
