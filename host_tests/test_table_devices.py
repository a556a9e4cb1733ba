"""A part of the table that stops answering does not stop the table: the dealer display
unplugged while playing or missing at boot, the sensor expander missing at boot, the meter
sign's SPI writes failing, the whole I2C bus shorted, in any phase of a round.  The table
plays on, the fault shows where people look (the meter sign, the dealer display, the spots'
rings) and goes to the event log, and the part is taken back when it answers again
(docs/wiring.md, "Fault finding")."""

import pytest

from boards import base
from firmware.drivers import buttons as btn
from firmware.drivers import buzzer as buz
from firmware.drivers import shoe
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.fakes.mcp23017 import FakeMCP23017
from host_tests.fakes.pins import FakePin
from host_tests.fakes.ssd1306 import FakeSSD1306
from host_tests.test_controller import events_of
from host_tests.test_table_payout import BoardRig

FAULT_TEXT = "dI5P Err"       # "dISP Err" on 7 segments, where S and 5 share a shape


def _open(b):
    b.ram_clear()                            # opens the table
    b.run(6000)                               # the sign has counted up to the pool


def _sign_texts(b, ms):
    seen = set()
    for _ in range(ms // 20):
        b.run(20)
        seen.add(b.sign())
    return seen


def test_a_display_unplugged_while_playing_is_reported_and_taken_back(tmp_path):
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    b.table.i2c.detach(base.OLED_ADDR)
    b.press("LOCK")                           # the screen changes: the next update fails
    assert c.phase == tc.LOCKED               # the table plays on
    assert not b.app.display_ok
    assert FAULT_TEXT in _sign_texts(b, 3000)     # alternating with the amount
    assert [e[4] for e in events_of(c.memory, ev.DISPLAY_FAULT)] == [1]
    fresh = b.table.i2c.attach(base.OLED_ADDR, FakeSSD1306())    # plugged back, blank
    b.run(3000)                               # retried within 2 s, then redrawn page by page
    assert b.app.display_ok
    assert fresh.lines()[0].strip() == c.view.lines[0].strip()
    assert FAULT_TEXT not in _sign_texts(b, 3000)


def test_a_display_missing_at_boot_does_not_stop_the_table(tmp_path):
    b = BoardRig(tmp_path, before_boot=lambda table: table.i2c.detach(base.OLED_ADDR))
    assert not b.app.display_ok
    _open(b)                                  # RAM clear done on the panel, unseen
    assert b.app.controller.phase == tc.OPEN
    assert FAULT_TEXT in _sign_texts(b, 3000)


def test_a_sensor_expander_missing_at_boot_shows_bus_faults_until_it_answers(tmp_path):
    b = BoardRig(tmp_path, before_boot=lambda table: table.i2c.detach(base.MCP23017_ADDR))
    _open(b)
    c = b.app.controller
    assert c.faults == (1 << c.seats) - 1     # every jackpot spot in fault, not counted
    _plug_expander_and_bet(b)


def test_a_sensor_expander_lost_while_playing_is_one_message_and_one_entry(tmp_path):
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    b.table.i2c.detach(base.MCP23017_ADDR)
    b.run(1000)                               # the driver's failed reads turn into BUS faults
    assert "Spot sensors" in b.table.oled.lines() and "FAULT bus" in b.table.oled.lines()
    assert [e[4:7] for e in events_of(c.memory, ev.SENSOR_FAULT)] == [(0, 0, sens.BUS)]
    _plug_expander_and_bet(b)


def test_a_missing_sensor_expander_is_asked_once_a_second_and_read_within_one_when_back(tmp_path):
    """Each read of an expander that does not answer is an OSError, which allocates on the
    board: at every 20 ms pass, for as long as it stayed missing.  It is asked once a second
    now, its fault shown and logged as before, and read again within a second of its return."""
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    bus = b.table.i2c
    bus.detach(base.MCP23017_ADDR)
    b.run(1000)
    assert "Spot sensors" in b.table.oled.lines() and "FAULT bus" in b.table.oled.lines()
    failed = bus.failures
    b.run(1000 * 20)                          # 1000 passes
    assert bus.failures - failed <= 1000 // 50
    assert [b.pattern(seat) for seat in range(1, 8)] == ["FAULT"] * 7
    assert [e[4:7] for e in events_of(c.memory, ev.SENSOR_FAULT)] == [(0, 0, sens.BUS)]
    mcp = FakeMCP23017()
    mcp.cover(jackpot_spot(1))                # chips put down while it was out
    mcp.cover(ante_spot(1))
    bus.attach(base.MCP23017_ADDR, mcp)       # plugged back, as after a power-up
    b.run(1000)
    assert mcp.regs[0x0C:0x0E] == b"\xff\xff" and mcp.reads    # set up (GPPU) and read
    b.run(3000 + 100)                         # then steady for the sensors' recover_ms
    assert c.faults == 0 and b.pattern(1) == "PLACED" and b.pattern(2) == "IDLE"
    b.press("LOCK")
    assert c.rec.accepted == 1                # seat 1's wager taken


def _plug_expander_and_bet(b):
    c = b.app.controller
    mcp = b.table.i2c.attach(base.MCP23017_ADDR, FakeMCP23017())     # plugged in
    b.run(5000)                               # configured by the next check (1 s), then steady for recover_ms
    mcp.cover(jackpot_spot(1))
    mcp.cover(ante_spot(1))
    b.run(200)
    assert c.faults == 0
    b.press("LOCK")
    assert c.rec.accepted == 1                # seat 1's wager taken


WDT_RESET = 3       # a board's machine.WDT_RESET code; any non-zero code stands for one here


def _watchdog_reset(table):
    table.board.reset_cause = WDT_RESET
    table.board.reset_cause_name = "watchdog"


def test_a_watchdog_reset_is_logged_with_the_boards_cause_and_shown(tmp_path):
    first = BoardRig(tmp_path)
    _open(first)
    b = BoardRig(tmp_path, before_boot=_watchdog_reset)     # the same table, after the reset
    c = b.app.controller
    assert c.phase == tc.OPEN
    assert [e[4] for e in events_of(c.memory, ev.POWER_UP)][-1] == WDT_RESET
    assert "Restarted after" in b.table.oled.lines() and "watchdog" in b.table.oled.lines()
    # the entry names the cause too, as ports number the causes differently: the audit menu
    # shows " watchdog", not " cause 3"
    assert [e[5] for e in events_of(c.memory, ev.POWER_UP)][-1] == ev.RESET_CAUSES.index("watchdog") + 1


def test_a_plain_power_on_shows_nothing_about_the_reset(tmp_path):
    first = BoardRig(tmp_path)
    _open(first)
    b = BoardRig(tmp_path)
    assert "Restarted after" not in b.table.oled.lines()
    assert [e[4] for e in events_of(b.app.controller.memory, ev.POWER_UP)][-1] == 0


def test_spot_sensors_on_direct_gpio_when_the_board_gives_their_pins(tmp_path):
    pins = [FakePin(1) for _ in range(16)]    # active low: 1 is an empty spot

    def direct(table):
        table.board.spot_pins = pins
        table.i2c.detach(base.MCP23017_ADDR)  # no expander on this board

    b = BoardRig(tmp_path, before_boot=direct)
    _open(b)
    c = b.app.controller
    pins[jackpot_spot(2)].value(0)            # a chip on seat 2's jackpot spot, and its Ante
    pins[ante_spot(2)].value(0)
    b.run(200)
    assert c.placed == 1 << 1 and c.ante == 1 << 1 and c.faults == 0
    b.press("LOCK")
    assert c.rec.accepted == 1 << 1
    assert events_of(c.memory, ev.SENSOR_FAULT) == []


def test_a_key_left_on_and_a_door_opened_while_off_are_known_at_boot(tmp_path):
    first = BoardRig(tmp_path)
    _open(first)

    def key_on_door_open(table):
        table.key.value(0)                    # the supervisor's key stayed on
        table.open_door()                     # the door was opened while the power was off

    b = BoardRig(tmp_path, before_boot=key_on_door_open)
    c = b.app.controller
    assert c.key_on and c.door_open
    assert len(events_of(c.memory, ev.DOOR_OPEN)) == 1
    assert "DOOR OPEN" in b.table.oled.lines()
    b.press("OK", long=True)                       # key + long OK: the audit, without turning the key
    assert c.phase == tc.AUDIT
    b.run(100)
    oled = b.table.oled.lines()                    # the menu's title whole, the door below it
    assert oled[0].strip() == "AUDIT  (BACK)" and oled[-1].strip() == "DOOR OPEN"


def _locked_with_seats_1_and_3(tmp_path, also=()):
    """A round locked with the jackpot and Ante chips of seats 1 and 3 (and the spots in
    `also` covered), before a power cut: the rig."""
    first = BoardRig(tmp_path)
    _open(first)
    for seat in (1, 3):
        first.table.mcp.cover(jackpot_spot(seat))
        first.table.mcp.cover(ante_spot(seat))
    for spot in also:
        first.table.mcp.cover(spot)
    first.run(200)
    first.press("LOCK")
    assert first.app.controller.rec.accepted == 0b101
    return first


def test_an_accepted_chip_taken_while_the_power_was_off_is_tamper_at_boot(tmp_path):
    _locked_with_seats_1_and_3(tmp_path, [jackpot_spot(5)])     # seat 5: no Ante, refused

    def after_the_cut(table):                 # what is on the spots when the power returns
        for spot in (jackpot_spot(1), ante_spot(1), ante_spot(3), jackpot_spot(5)):
            table.mcp.cover(spot)             # seat 3's jackpot chip is gone

    b = BoardRig(tmp_path, before_boot=after_the_cut)
    c = b.app.controller
    b.run(1000)
    assert c.phase == tc.LOCKED
    assert [e[4] for e in events_of(c.memory, ev.TAMPER)] == [3]
    assert c.view.seat_light[2] == lights.TAMPER
    assert c.late == 0 and c.view.seat_light[4] != lights.LATE     # seat 5's chip is not new
    assert c.view.seat_light[0] != lights.TAMPER
    # the alarm is heard: three high beeps (firmware.drivers.buzzer.TAMPER), not one blip a
    # busy dealer may miss
    b.run(1000)
    alarm = [t for t in b.table.pwm.tones() if t[2] == buz.TAMPER[0]]
    assert len(alarm) == 3 and all(end - start == 200 for start, end, _ in alarm)


class _SlowBoot(BoardRig):
    """A table whose boot takes boot_ms before its loop's first pass (on a board: both copies
    of critical memory read over I2C and from flash, the power-up commit's sector erase, the
    display's start)."""

    boot_ms = 700

    def run(self, ms):
        if not getattr(self, "looping", False):
            self.looping = True
            self.now += self.boot_ms
        super().run(ms)


def test_chips_still_on_their_spots_after_a_slow_boot_are_no_tamper(tmp_path):
    _locked_with_seats_1_and_3(tmp_path)

    def chips_stay(table):                    # the chips did not move while the power was off
        for seat in (1, 3):
            table.mcp.cover(jackpot_spot(seat))
            table.mcp.cover(ante_spot(seat))

    b = _SlowBoot(tmp_path, before_boot=chips_stay)
    c = b.app.controller
    b.run(1000)
    assert c.phase == tc.LOCKED
    assert c.tamper == 0 and events_of(c.memory, ev.TAMPER) == []
    assert c.view.seat_light[0] == lights.ACCEPTED and c.view.seat_light[2] == lights.ACCEPTED


def test_a_display_unplugged_and_back_while_its_screen_stays_the_same_shows_it_again(tmp_path):
    # No write fails while the screen does not change: the display comes back dark (its
    # power-on state) and must not stay so.
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    b.table.i2c.detach(base.OLED_ADDR)
    b.run(500)
    fresh = b.table.i2c.attach(base.OLED_ADDR, FakeSSD1306())    # plugged back, dark
    b.run(11000)
    assert fresh.display_on
    assert [line.strip() for line in fresh.lines()] == [line.strip() for line in c.view.lines]


def test_a_display_unplugged_while_its_screen_stays_the_same_is_reported(tmp_path):
    b = BoardRig(tmp_path)
    _open(b)
    b.table.i2c.detach(base.OLED_ADDR)
    b.run(11000)
    assert not b.app.display_ok
    assert FAULT_TEXT in _sign_texts(b, 3000)


def test_the_loop_pass_count_stays_a_small_int_however_long_the_table_runs(tmp_path):
    # 2**30 passes of 20 ms are 248 days: past it a 32-bit board's count would be a long int,
    # allocated anew at every pass; the rings keep their pattern across the restart of the count
    b = BoardRig(tmp_path)
    _open(b)
    b.app.ticks = (1 << 30) - 5
    for _ in range(10):
        b.run(20)
        assert 0 <= b.app.ticks < 1 << 30
    assert b.table.strip.seat_colour(0) == "blue"     # the attract pattern runs on


def test_the_counts_kept_at_every_pass_stay_small_ints_however_long_the_table_runs(tmp_path):
    # sensor scans and watchdog feeds are counted at every 20 ms pass, ring frames and display
    # pages at most as often: after 2**30 of them (248 days) a 32-bit board would allocate a
    # long int for each count at every pass
    b = BoardRig(tmp_path)
    _open(b)
    app = b.app
    almost = (1 << 30) - 1
    app.spots.scans = app.watchdog.feeds = app.lights.writes = app.oled.pages_sent = almost
    b.press("LOCK")                           # a new screen: pages sent, rings changed
    b.run(1000)
    for count in (app.spots.scans, app.watchdog.feeds, app.lights.writes, app.oled.pages_sent):
        assert 0 <= count < 1 << 30


def test_an_expander_missing_for_248_days_keeps_its_failed_reads_a_small_int(tmp_path):
    # the sensors counted every failed read of an expander that stays missing, one at each
    # 20 ms pass: after 2**30 of them (248 days) a long int allocated at every pass; they are
    # counted up to the bus fault now, the fault shown as before and cleared when it is back
    b = BoardRig(tmp_path)
    _open(b)
    bus = b.table.i2c
    bus.detach(base.MCP23017_ADDR)
    b.run(1000)
    b.app.spots._failed_reads = (1 << 30) - 3      # (on the code before; now it never gets there)
    b.run(1000)
    assert 0 <= b.app.spots._failed_reads < 1 << 30
    assert [b.pattern(seat) for seat in range(1, 8)] == ["FAULT"] * 7
    assert "FAULT bus" in b.table.oled.lines()
    bus.attach(base.MCP23017_ADDR, FakeMCP23017())
    b.run(1000 + 3000 + 100)                       # read within a second, steady 3 s
    assert b.app.controller.faults == 0 and b.pattern(1) == "IDLE"


def _wipe_memory(table):
    """Both copies of critical memory lost while the power was off."""
    import os

    with open(os.path.join(table.flash_dir, "cm_a.bin"), "wb") as f:
        f.write(b"xx")
    table.fram.file.seek(0)
    table.fram.file.write(bytes(table.fram.size))
    table.fram.file.flush()


def test_a_table_in_ram_error_never_shows_a_pool_of_nothing_on_the_sign(tmp_path):
    # the pool was $10,000.00: in RAM ERROR it is not known, and "0.00" on the sign would tell
    # the players it had been won or emptied; the sign says RAM Err alone
    first = BoardRig(tmp_path)
    _open(first)
    assert first.sign() == "10000.00"
    b = BoardRig(tmp_path, before_boot=_wipe_memory)
    assert b.app.controller.phase == tc.RAM_ERROR
    assert _sign_texts(b, 6000) == {"rAM Err"}
    b.ram_clear()                             # the supervisor resets the pool
    b.run(100)
    assert _sign_texts(b, 3000) == {"10000.00"}


def test_a_table_without_a_progressive_shows_a_dead_display_on_the_sign(tmp_path):
    # Four Card Poker has no pool on the sign; a dealer display that stopped answering must
    # still be told where people look, as at a UTH table
    from tools.sim import Simulation

    b = Simulation(str(tmp_path), game="fcp")
    b.key(True)
    b.press("OK", long=True)
    b.press("OK")
    b.key(False)
    assert b.app.controller.phase == tc.OPEN
    b.run(3000)
    assert b.table.chain.text(0).strip() == ""        # no pool, no fault: dark
    b.table.i2c.detach(base.OLED_ADDR)
    b.run(11000)                              # the next refresh finds it gone
    assert not b.app.display_ok
    assert b.table.chain.text(0).strip() == FAULT_TEXT


def test_chips_held_while_a_jackpot_waits_long_for_the_supervisor_are_no_stuck_sensors(tmp_path):
    # The winning hand's chips stay on their spots until the payout [11.12, 11.13]: a
    # supervisor who takes more than 15 minutes must not turn the winner's rainbow into the
    # magenta of a faulted sensor, nor log sensor faults that are none.
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    for seat in (1, 3):
        b.table.mcp.cover(jackpot_spot(seat))
        b.table.mcp.cover(ante_spot(seat))
    b.run(200)
    b.press("LOCK")
    for line in ("S1 As", "S1 Ks", "S3 2c", "S3 7d", "D 9c", "D 9d",
                 "B Qs", "B Js", "B Ts", "B 3h", "B 4h"):
        b.shoe(line)
    b.press("SETTLE")
    assert c.phase == tc.CONFIRM
    b.run(20 * 60 * 1000)                     # twenty minutes
    assert c.view.seat_light[0] == lights.WINNER and c.view.seat_light[2] == lights.ACCEPTED
    assert c.faults == 0 and c.ante_faults == 0
    assert events_of(c.memory, ev.SENSOR_FAULT) == []
    b.key(True)
    b.press("OK")                             # paid
    b.key(False)
    for seat in (1, 3):                       # the dealer collects the wagers
        b.table.mcp.uncover(jackpot_spot(seat))
        b.table.mcp.uncover(ante_spot(seat))
    b.run(1000)
    b.press("SETTLE")
    assert c.phase == tc.OPEN and c.faults == 0
    b.table.mcp.cover(jackpot_spot(2))        # a sensor stuck covered in the next round
    b.run(16 * 60 * 1000)                     # is still found
    assert c.faults == 1 << 1


def test_a_tamper_alarm_is_heard_whole_though_a_refusal_follows_it(tmp_path):
    # A player takes back an accepted jackpot chip while the shoe sends a bad line: the
    # three alarm beeps are not cut down to a blip by the refusal's lower beep.
    b = BoardRig(tmp_path)
    _open(b)
    b.table.mcp.cover(jackpot_spot(1))
    b.table.mcp.cover(ante_spot(1))
    b.run(200)
    b.press("LOCK")
    b.run(1000)
    heard = len(b.table.pwm.tones())
    b.table.mcp.uncover(jackpot_spot(1))
    b.run(100)
    assert b.app.controller.tamper == 1
    b.shoe("S9 Ah")                           # refused: bad destination (an error beep)
    b.run(3000)
    alarm = [t for t in b.table.pwm.tones()[heard:] if t[2] == buz.TAMPER[0]]
    assert [end - start for start, end, _ in alarm] == [200, 200, 200]


def test_an_alarm_and_a_refusal_in_one_loop_pass_sound_the_alarm(table):
    # the app plays one beep a pass: the tamper's, not the refusal that came after it
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    now = table.tick()
    table.c.spot(sens.REMOVED, jackpot_spot(1), now)
    table.c.panel(btn.PRESS, btn.SETTLE, now)       # no cards yet: refused
    assert "Cannot settle" in table.screen()
    assert table.c.view.beep == tc.BEEP_ALARM
    table.c.panel(btn.RELEASE, btn.SETTLE, table.tick())
    table.press(btn.SETTLE)                 # a later pass: its own beep
    assert table.c.view.beep == tc.BEEP_ERROR


class _PassCounts:
    """What each loop pass of the rig costs: the bytes the I2C bus clocks, those the dealer
    display takes, the display's lines drawn and the critical-memory commits made."""

    def __init__(self, b, monkeypatch):
        from firmware.table import screens

        self.b = b
        self.oled_bytes = self.drawn = self.commits = 0
        oled, draw, memory = b.table.oled, screens.render_lines, b.app.controller.memory
        commit, commit_admin, write = memory.commit, memory.commit_admin, oled.i2c_write

        def counted_draw(c):
            self.drawn += 1
            draw(c)

        def counted_write(buf, *args):
            self.oled_bytes += len(buf) + 1         # and the address byte
            write(buf, *args)

        def counted(store):
            def call(*args, **kwargs):
                self.commits += 1
                return store(*args, **kwargs)
            return call

        monkeypatch.setattr(screens, "render_lines", counted_draw)
        monkeypatch.setattr(oled, "i2c_write", counted_write)
        monkeypatch.setattr(memory, "commit", counted(commit))
        monkeypatch.setattr(memory, "commit_admin", counted(commit_admin))

    def passes(self, count):
        """(bus bytes, display bytes, draws, commits) of each of the next count passes."""
        out = []
        i2c = self.b.table.i2c
        for _ in range(count):
            start = (i2c.wire_bytes, self.oled_bytes, self.drawn, self.commits)
            self.b.run(20)
            out.append((i2c.wire_bytes - start[0], self.oled_bytes - start[1],
                        self.drawn - start[2], self.commits - start[3]))
        return out


_PAGE_BYTES = 2 + 4 + 129     # a page's select and its data, each behind the address byte
# 32 lines of a shoe that resends and has a noisy line: the hand of seats 1 and 3, the dealer
# and the flop, each card twice (the second refused, the duplicate logged once a round), lines
# the driver rejects for each reason in between
_BURST = ["S1 Ah", "S1 Zz", "S1 Ah", "S1 Kh", "X1 Kh", "S1 Kh", "S3 2h", "S3 2h*00", "S3 2h",
          "S3 7h", "S3 7h 1", "S3 7h", "D 9c", "D 9c", "D\x01 9s", "D 9s", "B Qh", "S9 Qh",
          "B Qh", "B Jh", "Bx Jh", "B Jh", "B 3h", "B 3h*zz", "B 3h", "S1 Ah", "S1 Zh",
          "D 9c", "B Ah*1", "B Qh", "S3 2x", "S1 Xs"]


def test_a_burst_of_shoe_lines_draws_the_display_once_a_pass(tmp_path, monkeypatch):
    # A shoe that resends its lines, or a noisy line, brings up to 64 bytes (10 lines) a pass:
    # each line drew the display's eight lines again (strings built anew, 10 times a pass).
    # However many lines come in a pass, the lines are drawn once and the display takes one
    # page of the I2C bus; the dealer sees the last line's text, and every bad line is logged.
    b = _locked_with_seats_1_and_3(tmp_path)
    c = b.app.controller
    counts = _PassCounts(b, monkeypatch)
    b.table.shoe.inject(b"S1 Zz\n")          # one bad line alone: its entry's commit
    single = max(p[0] for p in counts.passes(2))
    b.run(tc._SHOE_LOG_MS)                     # the shoe's log may take the next at once
    logged = len(events_of(c.memory, ev.SHOE_REJECT))
    rejects = sum(b.app.shoe.rejects)
    assert len(_BURST) == 32
    b.table.shoe.inject("".join(line + "\n" for line in _BURST).encode())
    passes = counts.passes(10)
    assert sum(p[2] for p in passes) <= 5     # 4 passes read the burst, each one draw
    for _bus, display, drawn, commits in passes:
        assert drawn <= 1 and display <= _PAGE_BYTES and commits <= 1
    # the bus clocks one commit's bytes at most in a pass (the record written and read back:
    # the bad line's and the duplicate card's entries in one), as the bad line's alone made
    assert max(p[0] for p in passes) < 1.5 * single
    b.run(200)                                # the display catches up, a page a pass
    shown = [line.strip() for line in b.table.oled.lines()]
    assert shown == [line.strip() for line in c.view.lines]
    assert shown[2:4] == ["B Qh Jh 3h", "D 9c 9s"] and shown[4].startswith("S1 Ah Kh")
    assert shown[6:8] == ["Shoe line bad", "bad card"]       # the last line's refusal
    assert bytes(c.rec.hole[:2]) == bytes(cards.parse("Ah Kh"))
    # every rejected line is counted in the log, under the last reason, once its window is over
    bad = sum(b.app.shoe.rejects) - rejects
    assert bad == 12
    b.run(tc._SHOE_LOG_MS + 100)
    entries = events_of(c.memory, ev.SHOE_REJECT)[logged:]
    assert sum(e[5] for e in entries) == bad
    assert entries[-1][4] == shoe.BAD_CARD
    assert len(events_of(c.memory, ev.CARD_DUPLICATE)) == 1


SIGN_PART = 2       # DISPLAY_FAULT's a for the meter sign (1: the dealer display)


def _screen(b):
    return [line.strip() for line in b.table.oled.lines()]


def _pool_text(c):
    return "%d.%02d" % divmod(c.view.meter[0], 100)


def test_a_meter_sign_whose_bus_fails_while_playing_is_told_on_the_display_and_taken_back(tmp_path):
    # An SPI write that raises (a port whose driver reports a failed transfer) came out of
    # the loop's pass: the table stopped, reset, and halted at the third boot in a row, for a
    # part that shows the pool and decides nothing.  It plays on now; the dealer display
    # says which part failed, the log has it once, and the sign is started again when its
    # bus works.
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    b.table.chain.spi.fail = True
    # found at the next write: a change of the digits, or the sign's refresh (every 10 s)
    assert b.run_until(lambda: "Meter sign" in _screen(b), 11000)
    b.run(100)                                # the display sends a page a pass
    assert _screen(b)[6:8] == ["Meter sign", "FAULT bus"]
    b.run(5000)                               # the message's time is over: the fault stays
    assert "SIGN FAULT" in _screen(b)
    for spot in (jackpot_spot(1), ante_spot(1)):
        b.table.mcp.cover(spot)
    b.run(200)
    b.press("LOCK")                           # the round plays on
    assert c.phase == tc.LOCKED and c.rec.accepted == 1
    b.run(10000)                              # tried again every 2 s, failing each time
    assert "SIGN FAULT" in _screen(b)
    assert [e[4] for e in events_of(c.memory, ev.DISPLAY_FAULT)] == [SIGN_PART]
    b.table.chain.spi.fail = False
    b.run(3000)
    assert b.sign() == _pool_text(c) and b.sign() != "10000.00"   # the wager's share in
    assert "SIGN FAULT" not in _screen(b)
    assert len(events_of(c.memory, ev.DISPLAY_FAULT)) == 1


def test_a_sign_fault_stays_on_the_display_while_the_logic_door_is_open(tmp_path):
    # The technician opens the door to mend the sign: DOOR OPEN took the line SIGN FAULT
    # was on, and the display no longer said the sign's writes failed, with a free line above
    # it, until the door was shut.  Both show; the door keeps the lowest line.
    b = BoardRig(tmp_path)
    _open(b)
    b.table.chain.spi.fail = True
    b.run(12000)
    assert _screen(b)[6:8] == ["", "SIGN FAULT"]
    b.table.open_door()
    b.run(3000)
    assert _screen(b)[6:8] == ["SIGN FAULT", "DOOR OPEN"]
    b.table.chain.spi.fail = False            # mended with the door open
    b.run(3000)
    assert _screen(b)[6:8] == ["", "DOOR OPEN"]
    b.table.open_door(False)
    b.run(3000)
    assert _screen(b)[6:8] == ["", ""]


def test_a_meter_sign_failing_from_boot_and_through_test_mode_comes_back_whole(tmp_path):
    first = BoardRig(tmp_path)
    _open(first)

    def sign_bus_fails(table):
        table.chain.spi.fail = True

    b = BoardRig(tmp_path, before_boot=sign_bus_fails)
    c = b.app.controller
    assert c.phase == tc.OPEN
    b.run(5000)
    assert "SIGN FAULT" in _screen(b)
    b.key(True)
    b.press("LOCK", long=True)                # test mode: the sign's lamp test fails too
    assert c.phase == tc.TEST
    b.table.chain.spi.fail = False
    b.run(3000)
    assert b.table.chain.text(0) == "8." * 8  # back in the lamp test it missed
    b.press("BACK")
    b.key(False)
    b.run(3000)
    assert c.phase == tc.OPEN and b.sign() == "10000.00"
    assert "SIGN FAULT" not in _screen(b)
    assert [e[4] for e in events_of(c.memory, ev.DISPLAY_FAULT)] == [SIGN_PART]


def test_the_whole_i2c_bus_failing_mid_round_is_named_part_by_part_and_taken_back(tmp_path):
    # SDA held by a short: the sensor expander, the dealer display and the FRAM fail together
    # (docs/wiring.md, "Fault finding").  The table plays on and takes no jackpot wager it
    # cannot see or keep; the log names each part once; the bus back, every part comes back,
    # no ring left in FAULT, no fault text left on the sign, and the next round takes wagers.
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    b.table.mcp.cover(jackpot_spot(1))
    b.table.mcp.cover(ante_spot(1))
    b.run(200)
    b.table.i2c.sda_short = "high"
    b.run(3000)
    assert [b.table.strip.seat_colour(s) for s in range(7)] == ["magenta"] * 7
    assert "MEM Err" in _sign_texts(b, 3000)          # the worst of the three
    b.press("LOCK")
    assert c.phase == tc.LOCKED and c.rec.accepted == 0
    b.run(20000)
    b.table.i2c.sda_short = None
    b.run(6000)
    assert _screen(b) == [line.strip() for line in c.view.lines]     # drawn again
    assert _screen(b)[:2] == ["ROUND 1 LOCKED", "JP none"]
    assert b.table.strip.seat_colour(0) == "red" and c.view.seat_light[0] == lights.LOCKED
    for line in ("S1 As", "S1 Kd", "D 9c", "D 9d", "B Qs", "B Jc", "B 2s", "B 3h", "B 4h"):
        b.shoe(line)
    b.press("SETTLE")
    b.press("SETTLE")                         # the next round: both copies written again
    b.run(3000)
    assert _screen(b)[:3] == ["ROUND 2 OPEN", "JP OPEN", "placed 1"]
    assert _sign_texts(b, 3000) == {"10000.00"}
    b.press("LOCK")
    assert c.rec.accepted == 1
    assert [e[4:7] for e in events_of(c.memory, ev.SENSOR_FAULT)] == [(0, 0, sens.BUS)]
    assert [e[4] for e in events_of(c.memory, ev.DISPLAY_FAULT)] == [1]
    assert {e[4] for e in events_of(c.memory, ev.CM_ERROR)} == {0}        # the FRAM's copy
    assert [e[4] for e in events_of(c.memory, ev.CM_RECOVERED)] == [0]


def _to_phase(b, phase):
    """The rig opened, then taken to phase (seats 1 and 3 wagering, a royal flush for seat 1
    waiting at CONFIRM, paid at RESULTS)."""
    if phase == tc.AUDIT:
        b.key(True)
        b.press("OK", long=True)
        b.key(False)
        return
    for seat in (1, 3):
        b.table.mcp.cover(jackpot_spot(seat))
        b.table.mcp.cover(ante_spot(seat))
    b.run(200)
    b.press("LOCK")
    if phase == tc.CARD_ENTRY:
        b.press("OK", long=True)
        return
    if phase == tc.LOCKED:
        return
    for line in ("S1 As", "S1 Ks", "S3 2c", "S3 7d", "D 9c", "D 9d",
                 "B Qs", "B Js", "B Ts", "B 3h", "B 4h"):
        b.shoe(line)
    b.press("SETTLE")
    if phase == tc.RESULTS:
        b.key(True)
        b.press("OK")
        b.key(False)


def _fail(table, part, failing):
    if part == "sign":
        table.chain.spi.fail = failing
    elif part == "bus":
        table.i2c.sda_short = "high" if failing else None
    elif failing:
        table.i2c.detach(part)
    else:
        table.i2c.attach(part, {base.OLED_ADDR: table.oled, base.MCP23017_ADDR: table.mcp}[part])


@pytest.mark.parametrize("part", [base.OLED_ADDR, "sign", base.MCP23017_ADDR, "bus"],
                         ids=["display", "sign", "expander", "i2c-bus"])
@pytest.mark.parametrize("phase", [tc.LOCKED, tc.CARD_ENTRY, tc.CONFIRM, tc.RESULTS, tc.AUDIT])
def test_a_part_failing_in_any_phase_leaves_nothing_behind_once_it_answers(tmp_path, phase, part):
    # The table stays where it was, and 15 s after the part answers again the display shows
    # the phase's screen, no ring is left in FAULT, no fault text on the sign or the display.
    b = BoardRig(tmp_path)
    _open(b)
    c = b.app.controller
    _to_phase(b, phase)
    assert c.phase == phase
    rings = bytes(c.view.seat_light)
    _fail(b.table, part, True)
    b.run(12000)
    _fail(b.table, part, False)
    b.run(15000)
    assert c.phase == phase and lights.FAULT not in c.view.seat_light
    assert _screen(b) == [line.strip() for line in c.view.lines]
    assert "SIGN FAULT" not in _screen(b) and b.app.display_ok and b.app.sign_ok
    if part == "bus":
        # the FRAM on the shorted bus missed a commit: the jackpot stays closed (MEM Err, the
        # spots LOCKED between rounds) until it is written again, at the round's next commit
        # or, between rounds, 2 s into OPEN
        assert c.view.meter_fault == "MEM Err"
        if phase != tc.AUDIT:
            return
        b.press("BACK")
        b.run(3000)
    assert c.view.meter_fault == "" and bytes(c.view.seat_light) == rings
