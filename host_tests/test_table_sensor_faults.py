"""A spot sensor that chatters or sticks, jackpot or Ante: reported to the dealer with which
sensor and why, not counted, its seat's ring showing FAULT, and logged once per spot per
round for the technician."""


from boards import base
from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.test_controller import events_of
from host_tests.test_table_payout import BoardRig

JACKPOT_SPOT, ANTE_SPOT = 1, 2          # SENSOR_FAULT's b: which sensor of the seat


def test_a_stuck_ante_sensor_is_reported_logged_and_not_counted(table):
    table.chip(2)
    table.chip(2, ante=True)
    table.c.spot(sens.FAULT, ante_spot(2), table.tick(), sens.STUCK)
    screen = table.screen()
    assert "Seat 2 Ante spot" in screen and "FAULT stuck" in screen
    assert table.c.view.seat_light[1] == lights.FAULT
    assert [e[4:7] for e in events_of(table.memory, ev.SENSOR_FAULT)] == [(2, ANTE_SPOT, sens.STUCK)]
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0          # no Ante seen: the jackpot wager is not taken
    table.c.spot(sens.CLEARED, ante_spot(2), table.tick())
    assert table.c.view.seat_light[1] != lights.FAULT


def test_a_jackpot_sensor_fault_is_logged_once_per_round(table):
    for _ in range(3):                        # a sensor that keeps failing and recovering
        table.c.spot(sens.FAULT, jackpot_spot(4), table.tick(), sens.CHATTER)
        table.c.spot(sens.CLEARED, jackpot_spot(4), table.tick())
    assert "Seat 4 JP spot" in table.screen() and "FAULT chatter" in table.screen()
    assert [e[4:7] for e in events_of(table.memory, ev.SENSOR_FAULT)] == [
        (4, JACKPOT_SPOT, sens.CHATTER)]
    table.press(btn.LOCK)
    table.deal([(8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    table.press(btn.SETTLE)                   # the next round
    table.c.spot(sens.FAULT, jackpot_spot(4), table.tick(), sens.CHATTER)
    assert len(events_of(table.memory, ev.SENSOR_FAULT)) == 2


def test_a_chattering_ante_sensor_on_the_board_is_caught_by_the_driver_and_logged(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()                            # opens the table
    for _ in range(12):                       # a flickering Ante sensor on seat 3
        b.table.mcp.cover(ante_spot(3))
        b.run(60)
        b.table.mcp.uncover(ante_spot(3))
        b.run(60)
    c = b.app.controller
    assert [e[4:7] for e in events_of(c.memory, ev.SENSOR_FAULT)] == [(3, ANTE_SPOT, sens.CHATTER)]
    assert c.view.seat_light[2] == lights.FAULT
    assert c.ante & (1 << 2) == 0


def _commits_a_pass(b, passes):
    """The critical-memory commits of each of the next passes of the rig."""
    memory, counts = b.app.controller.memory, []
    commit_admin = memory.commit_admin

    def counted(*args, **kwargs):
        counts[-1] += 1
        return commit_admin(*args, **kwargs)

    memory.commit_admin = counted
    for _ in range(passes):
        counts.append(0)
        b.run(20)
    del memory.commit_admin
    return counts


def test_every_sensor_chattering_at_once_is_one_commit_of_every_entry(tmp_path):
    # A noisy sensor cable flickers every spot together: all 14 went into fault in one loop
    # pass, and each entry was a commit of its own (a FRAM write and a flash sector erase,
    # about 110 ms on the reference board: 1.5 s in one pass, past the 2 s watchdog with a
    # slow erase).  They are one commit now, with every spot's entry in it.
    b = BoardRig(tmp_path)
    b.ram_clear()
    c = b.app.controller
    spots = [jackpot_spot(seat) for seat in range(1, 8)] + [ante_spot(seat) for seat in range(1, 8)]
    counts = []
    for flicker in range(20):
        for spot in spots:
            (b.table.mcp.cover if flicker % 2 == 0 else b.table.mcp.uncover)(spot)
        counts += _commits_a_pass(b, 1)
    assert max(counts) == 1 and sum(counts) == 1
    found = sorted(e[4:7] for e in events_of(c.memory, ev.SENSOR_FAULT))
    assert found == sorted([(seat, JACKPOT_SPOT, sens.CHATTER) for seat in range(1, 8)]
                           + [(seat, ANTE_SPOT, sens.CHATTER) for seat in range(1, 8)])
    assert all(light == lights.FAULT for light in c.view.seat_light)


def test_every_accepted_chip_swept_at_once_is_one_commit_of_every_tamper(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()
    for seat in range(1, 8):
        b.table.mcp.cover(jackpot_spot(seat))
        b.table.mcp.cover(ante_spot(seat))
    b.run(200)
    b.press("LOCK")
    c = b.app.controller
    assert c.rec.accepted == 0x7F
    for seat in range(1, 8):                  # the dealer sweeps the felt before the settle
        b.table.mcp.uncover(jackpot_spot(seat))
    assert max(_commits_a_pass(b, 10)) == 1
    assert sorted(e[4] for e in events_of(c.memory, ev.TAMPER)) == list(range(1, 8))
    assert all(light == lights.TAMPER for light in c.view.seat_light)


def test_entries_a_failing_store_refused_are_kept_and_tried_again_not_every_pass(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()
    c = b.app.controller
    memory = c.memory
    tried = []
    commit_admin = memory.commit_admin

    def failing(*args, **kwargs):
        tried.append(b.now)
        raise OSError(5, "EIO")

    memory.commit_admin = failing
    b.table.open_door()
    b.run(tc._SHOE_LOG_MS - 200)               # (the door is seen a few passes after it opens)
    assert len(tried) == 1 and "MEMORY FAULT" in c.last_refusal     # not a write every pass
    memory.commit_admin = commit_admin        # the store works again: the entry is written
    b.run(500)
    assert [e[4] for e in events_of(memory, ev.DOOR_OPEN)] == [1]


def test_chips_that_stayed_put_through_a_sensor_bus_glitch_are_still_taken_at_lock(tmp_path):
    # A short on the expander's bus faults every spot at once; when it clears, the chips that
    # never moved are seen again (ring, display) and their wagers are taken at LOCK.
    b = BoardRig(tmp_path)
    b.ram_clear()
    c = b.app.controller
    for seat in (1, 3):
        b.table.mcp.cover(jackpot_spot(seat))
        b.table.mcp.cover(ante_spot(seat))
    b.run(400)
    assert c.placed == 0b101 and c.ante == 0b101
    b.table.i2c.sda_short = "high"
    b.run(200)
    assert c.placed == 0 and c.view.seat_light[0] == lights.FAULT
    b.table.i2c.sda_short = None
    b.run(5000)
    assert c.placed == 0b101 and c.ante == 0b101
    assert c.view.seat_light[0] == lights.PLACED
    b.press("LOCK")
    assert c.rec.accepted == 0b101


def test_a_late_chip_handed_back_after_settle_stops_flashing_late(table):
    # LATE is "a chip put down after LOCK": once the dealer has given it back (the chip is
    # off the spot) the ring must not go on flashing LATE over an empty spot in RESULTS.
    table.chip(1)
    table.chip(1, ante=True)
    table.press(btn.LOCK)
    table.chip(2)                             # a late bet on seat 2
    assert table.c.view.seat_light[1] == lights.LATE
    table.deal([(1, "2h 7c"), (0, "9c 9s"), (8, "Qh Jd 3s 4c 8d")])
    table.settle()
    assert table.c.phase == tc.RESULTS
    assert table.c.view.seat_light[1] == lights.LATE      # still on the spot: still late
    table.chip(2, placed=False)               # handed back with the round's payouts
    assert table.c.view.seat_light[1] != lights.LATE


def test_a_chip_on_a_spot_in_fault_at_lock_is_not_called_a_late_bet(table):
    # Seat 2's chip is down in time, but its sensor is in fault when the dealer locks: the
    # wager cannot be taken, and the dealer is told why at LOCK.  When the sensor recovers
    # and sees the chip, that chip was not put down after LOCK: no LATE, no "late bet".
    for seat in (1, 2):
        table.chip(seat)
        table.chip(seat, ante=True)
    table.c.spot(sens.FAULT, jackpot_spot(2), table.tick(), sens.CHATTER)
    table.press(btn.LOCK)
    assert table.c.rec.accepted == 0b1
    assert "Fault, no JP:\nseats 2" in table.screen()
    table.c.spot(sens.CLEARED, jackpot_spot(2), table.tick())
    table.c.spot(sens.PLACED, jackpot_spot(2), table.tick())
    assert table.c.late == 0
    assert table.c.view.seat_light[1] == lights.LOCKED     # not taken, not late
    assert "late bet" not in table.screen() and "NOT taken" in table.screen()
    table.chip(2, placed=False)               # seen empty after LOCK: a chip now is late
    table.chip(2)
    assert table.c.view.seat_light[1] == lights.LATE and "late bet" in table.screen()


def test_chips_seen_again_after_a_bus_fault_over_lock_are_not_late_bets(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()
    c = b.app.controller
    for seat in (1, 2):
        b.chip(seat)
        b.chip(seat, ante=True)
    mcp = b.table.mcp
    b.table.i2c.detach(base.MCP23017_ADDR)    # the expander stops answering
    b.run(1000)
    b.press("LOCK")
    assert c.rec.accepted == 0               # with the bus down every spot is in fault
    assert "Fault, no JP:" in b.table.oled.lines() and "seats 1234567" in b.table.oled.lines()
    b.table.i2c.attach(base.MCP23017_ADDR, mcp)
    b.run(5000)                               # the chips that never moved are seen again
    assert c.late == 0
    assert [c.view.seat_light[s] for s in (0, 1)] == [lights.LOCKED, lights.LOCKED]


def _locked_seats_1_and_2(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()
    for seat in (1, 2):
        b.chip(seat)
        b.chip(seat, ante=True)
    b.press("LOCK")
    assert b.app.controller.rec.accepted == 0b11
    return b


def _seat_1_chip_taken(table):
    """The felt at power-up: seat 2's chip still on its spot, seat 1's taken while the power
    was off (the simulated felt keeps the chips across a restart, tools.sim CHIPS_FILE)."""
    table.mcp.cover(jackpot_spot(2))
    table.mcp.uncover(jackpot_spot(1))


def test_a_chip_taken_while_the_power_was_off_is_a_tamper_at_boot(tmp_path):
    _locked_seats_1_and_2(tmp_path)
    # the power comes back with seat 2's chip on its spot and seat 1's gone
    b = BoardRig(tmp_path, before_boot=_seat_1_chip_taken)
    b.run(2000)
    c = b.app.controller
    assert c.phase == tc.LOCKED and c.tamper == 0b1
    assert [e[4] for e in events_of(c.memory, ev.TAMPER)] == [1]


def test_a_chip_taken_while_the_power_was_off_is_a_tamper_once_the_sensors_answer(tmp_path):
    # The same, with the sensor expander not answering at boot: the spots cannot be compared
    # then, so the chips are checked when they are seen again; seat 1's absence must not pass.
    _locked_seats_1_and_2(tmp_path)

    def power_up(table):
        _seat_1_chip_taken(table)
        table.i2c.detach(base.MCP23017_ADDR)

    b = BoardRig(tmp_path, before_boot=power_up)
    b.run(2000)
    c = b.app.controller
    assert c.phase == tc.LOCKED and c.tamper == 0
    b.table.i2c.attach(base.MCP23017_ADDR, b.table.mcp)
    b.run(6000)
    assert c.placed == 0b10 and c.tamper == 0b1
    assert c.view.seat_light[0] == lights.TAMPER and c.view.seat_light[1] == lights.ACCEPTED
    assert [e[4] for e in events_of(c.memory, ev.TAMPER)] == [1]


def test_a_refused_chip_seen_again_after_a_bus_glitch_is_not_a_late_bet(tmp_path):
    # Seat 3's chip, down before LOCK but with no Ante, was refused; it stays on its spot.
    # A glitch on the sensors' bus after LOCK makes the driver announce every chip anew when
    # it clears: the chip that never moved is no late bet.
    b = BoardRig(tmp_path)
    b.ram_clear()
    c = b.app.controller
    b.chip(1)
    b.chip(1, ante=True)
    b.chip(3)
    b.press("LOCK")
    assert c.rec.accepted == 0b1 and "No Ante, no JP:" in b.table.oled.lines()
    b.table.i2c.sda_short = "high"
    b.run(200)
    b.table.i2c.sda_short = None
    b.run(5000)
    assert c.placed == 0b101 and c.late == 0 and c.tamper == 0
    assert [c.view.seat_light[s] for s in (0, 2)] == [lights.ACCEPTED, lights.LOCKED]
    assert "late bet" not in " ".join(b.table.oled.lines())
    b.chip(3, on=False)                       # given back; put down again now: late
    b.chip(3)
    assert c.late == 0b100 and c.view.seat_light[2] == lights.LATE
