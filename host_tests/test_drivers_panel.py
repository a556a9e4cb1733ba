"""Dealer panel buttons, key switch, door switch, buzzer and watchdog, driven through fake
pins, a fake PWM and a fake WDT."""

import pytest

from firmware.drivers import buttons, buzzer, watchdog
from firmware.drivers.buttons import (
    BACK,
    DOOR_CLOSED,
    DOOR_OPEN,
    KEY_OFF,
    KEY_ON,
    LOCK,
    LONG,
    OK,
    PRESS,
    RELEASE,
    REPEAT,
    SETTLE,
    UP,
    Panel,
)
from firmware.drivers.events import EMPTY, EventRing, event_detail, event_kind, make_event
from firmware.drivers.ticks import ticks_add, ticks_diff
from host_tests.fakes.pins import FakePin, FakePWM, FakeWDT


def make_panel(**kwargs):
    pins = [FakePin(1) for _ in range(6)]
    key = FakePin(1)
    door = FakePin(1)
    panel = Panel(pins, key, door, **kwargs)
    return panel, pins, key, door


def drain(ring):
    out = []
    while True:
        event = ring.pop()
        if event == EMPTY:
            return out
        out.append((event_kind(event), event_detail(event)))


def play(panel, levels, pin, start=0, step=5):
    """Set pin to each level in turn, polling every step ms; return (events, next time)."""
    now = start
    for level in levels:
        pin.level = level
        panel.poll(now)
        now += step
    return drain(panel.events), now


# --- buttons ----------------------------------------------------------------------------------

def test_a_clean_press_and_release():
    panel, pins, key, door = make_panel(debounce_ms=30)
    events, now = play(panel, [0] * 10 + [1] * 10, pins[LOCK])
    assert events == [(PRESS, LOCK), (RELEASE, LOCK)]


def test_contact_bounce_gives_one_press():
    panel, pins, key, door = make_panel(debounce_ms=30)
    bouncy = [0, 1, 0, 0, 1, 0] + [0] * 20 + [1, 0, 1, 1, 0, 1] + [1] * 20
    events, _ = play(panel, bouncy, pins[OK], step=2)
    assert events == [(PRESS, OK), (RELEASE, OK)]


def test_a_mashed_button_gives_one_press_per_real_press():
    # Five real presses at about 6 per second, each with bounce on both edges.
    panel, pins, key, door = make_panel(debounce_ms=30)
    one_press = [0, 1, 0, 1, 0] + [0] * 30 + [1, 0, 1, 0, 1] + [1] * 40
    events, _ = play(panel, one_press * 5, pins[SETTLE], step=2)
    assert [e for e in events if e[0] == PRESS] == [(PRESS, SETTLE)] * 5
    assert [e for e in events if e[0] == RELEASE] == [(RELEASE, SETTLE)] * 5
    assert [e for e in events if e[0] == LONG] == []


def test_noise_spikes_shorter_than_debounce_are_not_presses():
    panel, pins, key, door = make_panel(debounce_ms=30)
    events, _ = play(panel, [1, 0, 1, 1, 1, 0, 1, 1] * 10, pins[BACK], step=5)
    assert events == []


def test_long_press_is_reported_once_while_held():
    panel, pins, key, door = make_panel(debounce_ms=30, long_ms=1000)
    events, now = play(panel, [0] * 100, pins[BACK], step=20)      # held 2 s
    assert events == [(PRESS, BACK), (LONG, BACK)]
    events, now = play(panel, [1] * 5, pins[BACK], start=now, step=20)
    assert events == [(RELEASE, BACK)]
    assert not panel.is_down(BACK)


@pytest.mark.parametrize("hold_ms, expected", [
    (100, [(PRESS, OK), (RELEASE, OK)]),                 # tools/sim.py's press
    (1200, [(PRESS, OK), (LONG, OK), (RELEASE, OK)]),    # its hold
])
def test_the_simulators_presses_at_the_apps_tick(hold_ms, expected):
    # The round controller tells short from long by these sequences (LONG before RELEASE).
    panel, pins, key, door = make_panel()                # the app's defaults, polled every 20 ms
    events, now = play(panel, [0] * (hold_ms // 20) + [1] * 10, pins[OK], step=20)
    assert events == expected


def test_long_press_is_timed_from_the_press_not_from_the_debounce():
    panel, pins, key, door = make_panel(debounce_ms=30, long_ms=1000)
    pins[OK].level = 0
    for now in range(0, 990, 10):
        panel.poll(now)
    assert drain(panel.events) == [(PRESS, OK)]
    panel.poll(1000)
    assert drain(panel.events) == [(LONG, OK)]


def test_holding_up_repeats_after_the_long_press():
    panel, pins, key, door = make_panel(debounce_ms=30, long_ms=1000, repeat_ms=150)
    events, now = play(panel, [0] * 100, pins[UP], step=10)      # held 1 s, then ...
    events2, now = play(panel, [0] * 60, pins[UP], start=now, step=10)   # ... 0.6 s more
    events3, now = play(panel, [1] * 5, pins[UP], start=now, step=10)
    assert events == [(PRESS, UP)]
    # LONG at 1.0 s, then a REPEAT at 1.15, 1.30, 1.45 s (held until 1.59 s).
    assert events2 == [(LONG, UP), (REPEAT, UP), (REPEAT, UP), (REPEAT, UP)]
    assert events3 == [(RELEASE, UP)]


def test_two_buttons_at_once_are_both_reported():
    panel, pins, key, door = make_panel(debounce_ms=30)
    pins[LOCK].level = 0
    pins[OK].level = 0
    for now in range(0, 100, 10):
        panel.poll(now)
    assert sorted(drain(panel.events)) == [(PRESS, LOCK), (PRESS, OK)]
    assert panel.is_down(LOCK) and panel.is_down(OK)


def test_key_switch_and_door_edges():
    panel, pins, key, door = make_panel(switch_ms=100)
    events, now = play(panel, [0] * 30, key, step=10)
    assert events == [(KEY_ON, 0)]
    assert panel.key_on()
    events, now = play(panel, [0] * 30, door, start=now, step=10)
    assert events == [(DOOR_OPEN, 0)]
    assert panel.door_open()
    door.level = 1
    key.level = 1
    for t in range(now, now + 300, 10):
        panel.poll(t)
    assert sorted(drain(panel.events)) == sorted([(KEY_OFF, 0), (DOOR_CLOSED, 0)])


def test_a_key_already_on_at_boot_is_a_state_not_an_event():
    key = FakePin(0)
    panel = Panel([FakePin(1) for _ in range(6)], key, FakePin(1))
    for now in range(0, 500, 10):
        panel.poll(now)
    assert drain(panel.events) == []
    assert panel.key_on()


def test_a_button_held_at_boot_gives_no_long_press_or_repeat():
    pins = [FakePin(1) for _ in range(6)]
    pins[LOCK].level = 0
    pins[UP].level = 0
    panel = Panel(pins, FakePin(1), FakePin(1))
    for now in range(0, 3000, 20):
        panel.poll(now)
    assert drain(panel.events) == []


def test_the_tick_counter_wrapping_does_not_break_debounce():
    panel, pins, key, door = make_panel(debounce_ms=30, now=0x3FFFFFF0)
    start = 0x3FFFFFF0
    pins[OK].level = 0
    now = start
    for _ in range(10):
        panel.poll(now)
        now = ticks_add(now, 10)
    assert drain(panel.events) == [(PRESS, OK)]


def test_up_held_across_the_tick_counter_wrap_repeats_on_time_with_small_ints():
    # Tick values must stay below 2**30 (small ints on a 32-bit board: no heap allocation in
    # the tick); the repeat times are kept wrapped like the ticks themselves.
    start = 0x3FFFFFFF - 1100                      # the LONG comes 100 ms before the wrap
    panel, pins, key, door = make_panel(debounce_ms=30, long_ms=1000, repeat_ms=150, now=start)
    pins[UP].level = 0
    now = start
    seen = []
    for _ in range(160):                           # 1.6 s held, across the wrap
        panel.poll(now)
        seen += [(e, now) for e in drain(panel.events)]
        assert all(0 <= t < 0x40000000 for t in panel._next_repeat)
        now = ticks_add(now, 10)
    long_at = [t for e, t in seen if e == (LONG, UP)][0]
    repeats = [ticks_diff(t, long_at) for e, t in seen if e == (REPEAT, UP)]
    assert repeats == [150, 300, 450]              # every 150 ms, the wrap included


def test_up_held_through_one_slow_loop_pass_repeats_once_then_at_its_pace():
    # A loop pass of 2 s (a full heap collected, a slow flash write) while the supervisor
    # holds UP: one REPEAT when the loop comes back, then one every 150 ms, never the 13
    # missed ones in a burst at every pass (a value scrolled 13 steps past in 0.3 s).
    panel, pins, key, door = make_panel(debounce_ms=30, long_ms=1000, repeat_ms=150)
    pins[UP].level = 0
    for now in range(0, 1500, 20):
        panel.poll(now)
    drain(panel.events)
    seen = []
    for now in range(3500, 4000, 20):            # the pass after the slow one, then on time
        panel.poll(now)
        seen += [now for e in drain(panel.events) if e == (REPEAT, UP)]
    assert seen == [3500, 3660, 3800, 3960]


def test_panel_configuration_errors():
    with pytest.raises(ValueError, match="6 button pins"):
        Panel([FakePin()] * 5, FakePin(), FakePin())
    with pytest.raises(ValueError, match="long_ms"):
        Panel([FakePin()] * 6, FakePin(), FakePin(), debounce_ms=50, long_ms=40)
    with pytest.raises(ValueError, match="repeat_buttons"):
        Panel([FakePin()] * 6, FakePin(), FakePin(), repeat_buttons=(6,))
    assert buttons.BUTTON_NAMES[SETTLE] == "SETTLE"


# --- events and ticks -------------------------------------------------------------------------

def test_event_ring_order_wrap_and_overflow():
    ring = EventRing(3)
    for n in range(3):
        assert ring.push(1, n)
    assert not ring.push(1, 9)
    assert ring.dropped == 1
    assert event_detail(ring.pop()) == 0
    assert ring.push(2, 7)
    assert [ring.pop() for _ in range(4)] == [make_event(1, 1), make_event(1, 2), make_event(2, 7), EMPTY]
    with pytest.raises(ValueError, match="size"):
        EventRing(0)


def test_ticks_diff_across_the_wrap():
    assert ticks_diff(5, 0x3FFFFFFB) == 10
    assert ticks_diff(0x3FFFFFFB, 5) == -10
    assert ticks_add(0x3FFFFFFF, 1) == 0


# --- buzzer -----------------------------------------------------------------------------------

def run_buzzer(bz, pwm, start, end, step=10):
    for now in range(start, end, step):
        pwm.now = now
        bz.tick(now)


def test_a_pattern_sounds_as_written():
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    bz.play(buzzer.LOCKED, 0)           # 2000 Hz 80 ms, gap 60 ms, 2000 Hz 80 ms
    run_buzzer(bz, pwm, 10, 400)
    assert pwm.tones() == [(0, 80, 2000), (140, 220, 2000)]
    assert not bz.busy()
    assert not pwm.sounding()


def test_a_rising_pattern_changes_pitch_without_gaps():
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    bz.play((1000, 50, 2000, 50), 0)
    run_buzzer(bz, pwm, 10, 200)
    assert pwm.tones() == [(0, 50, 1000), (50, 100, 2000)]


def test_a_repeating_alarm_keeps_going_until_stopped():
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    bz.play(buzzer.TAMPER, 0, repeat=True)      # 200 ms on, 200 ms off
    run_buzzer(bz, pwm, 10, 1000)
    assert bz.busy()
    bz.stop()
    starts = [t[0] for t in pwm.tones()]
    assert starts == [0, 400, 800]


def test_a_late_tick_catches_up_without_hanging():
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    bz.play(buzzer.WINNER, 0)
    pwm.now = 5000
    bz.tick(5000)                # far past the end of the pattern
    assert not bz.busy()
    assert not pwm.sounding()


def test_a_pattern_played_across_the_tick_wrap_keeps_small_ints():
    # Tick values must stay below 2**30 (small ints on a 32-bit board: no heap allocation in
    # the tick): the start of each step is kept wrapped like the ticks themselves.
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    now = 0x3FFFFFFF - 250                      # the alarm starts a quarter second before the wrap
    bz.play(buzzer.TAMPER, now, repeat=True)    # 200 ms on, 200 ms off
    sounding = []
    for _ in range(100):                        # a second, across the wrap
        now = ticks_add(now, 10)
        bz.tick(now)
        assert 0 <= bz._step_start < 0x40000000
        sounding.append(pwm.sounding())
    assert sounding[:19] == [True] * 19 and sounding[19:39] == [False] * 20
    assert sounding[39:59] == [True] * 20


@pytest.mark.parametrize("pattern", [(), (2000,), (5, 100), (2000, 0), [2000, 100], (2000, "x")])
def test_bad_patterns_are_rejected_and_change_nothing(pattern):
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm)
    bz.play(buzzer.ACCEPT, 0)
    with pytest.raises(ValueError, match="beep"):
        bz.play(pattern, 10)
    assert bz.busy() and pwm.sounding() and pwm.freq() == 2500


# --- watchdog ---------------------------------------------------------------------------------

def test_watchdog_feeds_only_when_every_part_checked_in():
    wdt = FakeWDT()
    dog = watchdog.Watchdog(wdt, required=watchdog.SENSORS | watchdog.STORE)
    dog.check_in(watchdog.SENSORS)
    dog.check_in(watchdog.STORE)
    assert dog.tick() is True
    assert wdt.feeds == 1
    dog.check_in(watchdog.SENSORS)            # the store failed this pass
    assert dog.tick() is False
    assert dog.last_missing == watchdog.STORE
    assert wdt.feeds == 1
    assert dog.tick() is False                # check-ins do not carry over
    assert dog.misses == 2


def test_watchdog_stop_feeding_is_final():
    wdt = FakeWDT()
    dog = watchdog.Watchdog(wdt, required=watchdog.CONTROLLER)
    dog.stop_feeding()
    dog.check_in(watchdog.CONTROLLER)
    assert dog.tick() is False
    assert wdt.feeds == 0


def test_reset_cause_is_named_from_the_boards_table():
    names = {3: "watchdog", 1: "power on"}      # the board builds this from machine.*_RESET
    assert watchdog.reset_cause_text(3, names) == "watchdog"
    assert watchdog.reset_cause_text(9, names) == "unknown reset cause 9"


def test_watchdog_without_hardware_counts_and_bad_mask_is_rejected():
    dog = watchdog.Watchdog(None, required=1)
    dog.check_in(1)
    assert dog.tick() and dog.feeds == 1
    with pytest.raises(ValueError, match="mask"):
        watchdog.Watchdog(None, required=0)
