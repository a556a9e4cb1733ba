"""The progressive meter sign: MAX7219 register writes decoded by a fake chain into the
characters a person reads on each line, including the decimal point."""

import pytest

from firmware.drivers import meter_sign
from firmware.drivers.meter_sign import MeterSign, encode_text
from host_tests.fakes.max7219 import FakeMax7219Chain, _Chip


def make(lines=1, **kwargs):
    chain = FakeMax7219Chain(modules=lines)
    sign = MeterSign(chain.spi, chain.cs, lines=lines, **kwargs)
    return chain, sign


def shown(chain, line=0):
    return chain.text(line)


def test_before_begin_the_modules_are_dark_and_after_it_blank_and_configured():
    chain, sign = make(lines=2)
    assert not chain.lit(0) and not chain.lit(1)
    sign.begin(0)
    for chip in chain.modules:
        assert not chip.shutdown and chip.decode == 0 and chip.scan_limit == 7 and not chip.test
        assert chip.intensity == 8


@pytest.mark.parametrize("cents, text", [
    (123456, "  1234.56"),
    (0, "     0.00"),
    (5, "     0.05"),
    (100, "     1.00"),
    (99999999, "999999.99"),
    (100000000, " 1000000"),          # from $1,000,000.00 whole dollars only
    (123456789, " 1234567"),
])
def test_amounts_read_as_dollars_and_cents(cents, text):
    chain, sign = make()
    sign.set_amount(0, cents, 0)
    sign.begin(0)
    sign.tick(0)
    assert shown(chain) == text


def test_two_pools_on_two_chained_modules():
    chain, sign = make(lines=2)
    sign.set_amount(0, 1500000, 0)
    sign.set_amount(1, 250075, 0)
    sign.begin(0)
    sign.tick(0)
    assert shown(chain, 0) == " 15000.00"
    assert shown(chain, 1) == "  2500.75"


def test_a_rise_is_counted_up_in_paced_steps_not_a_jump():
    chain, sign = make(step_ms=100, catch_up_ms=5000)
    sign.set_amount(0, 100000, 0)
    sign.begin(0)
    sign.set_amount(0, 100500, 0)          # +$5.00: 50 steps of 10 cents
    readings = []
    for now in range(0, 6000, 20):
        sign.tick(now)
        readings.append(shown(chain))
    assert readings[0] == "  1000.00"
    assert "  1001.00" in readings[45:55]   # after about one second
    values = [int(r.replace(".", "")) for r in readings]
    steps = [b - a for a, b in zip(values, values[1:])]
    assert max(steps) == 10 and min(steps) == 0
    assert values[250] == 100500            # there by 5 s
    assert readings[-1] == "  1005.00"


def test_a_rise_counted_across_the_tick_counter_wrap_keeps_small_ints():
    # Tick values must stay below 2**30 (small ints on a 32-bit board: no heap allocation in
    # the tick), so the time of the last step is kept wrapped like the ticks themselves.
    from firmware.drivers.ticks import ticks_add
    start = 0x3FFFFFFF - 1000                  # the count starts a second before the wrap
    chain, sign = make(step_ms=100, catch_up_ms=5000)
    sign.set_amount(0, 100000, start)
    sign.begin(start)
    sign.set_amount(0, 100500, start)          # +$5.00: 50 steps of 10 cents
    now = start
    for _ in range(300):                       # 6 s, across the wrap
        sign.tick(now)
        assert 0 <= sign._last_step[0] < 0x40000000
        now = ticks_add(now, 20)
    assert shown(chain) == "  1005.00"


def test_a_small_rise_counts_a_cent_at_a_time():
    chain, sign = make(step_ms=100, catch_up_ms=5000)
    sign.set_amount(0, 1000, 0)
    sign.begin(0)
    sign.set_amount(0, 1003, 0)
    values = []
    for now in range(0, 500, 100):
        sign.tick(now)
        values.append(sign.amount_shown(0))
    assert values == [1000, 1001, 1002, 1003, 1003]


def test_a_fall_is_shown_at_once():
    chain, sign = make()
    sign.set_amount(0, 500000, 0)
    sign.begin(0)
    sign.set_amount(0, 100000, 10)
    sign.tick(20)
    assert shown(chain) == "  1000.00"


def test_a_win_shows_the_amount_and_seat_then_the_new_amount():
    chain, sign = make(win_ms=15000)
    sign.set_amount(0, 2500000, 0)
    sign.begin(0)
    sign.show_win(0, 3, 2500000, 100000, 1000)
    sign.tick(1000)
    assert shown(chain) == " 25000.00"        # the win, at the moment of the hit
    sign.tick(3500)
    assert shown(chain) == "  5EAt 3"         # S and 5 share a shape on 7 segments
    sign.tick(4000)
    assert shown(chain) == " 25000.00"
    sign.tick(16100)
    assert shown(chain) == "  1000.00"        # the pool's new amount after win_ms
    assert sign.amount_shown(0) == 100000


def test_a_fault_alternates_with_the_amount_and_clears():
    chain, sign = make()
    sign.set_amount(0, 123456, 0)
    sign.begin(0)
    sign.set_fault(0, "LINK DN")
    sign.tick(3000)
    assert shown(chain) == "  1234.56"
    sign.tick(5000)
    assert shown(chain) == " LINK dN"
    sign.set_fault(0, "RAM Err")
    sign.tick(5100)
    assert shown(chain) == " rAM Err"
    sign.clear_fault(0)
    sign.tick(5200)
    assert shown(chain) == "  1234.56"


def test_only_changed_digits_are_sent():
    chain, sign = make(lines=2)
    sign.set_amount(0, 123456, 0)
    sign.set_amount(1, 777, 0)
    sign.begin(0)
    sign.tick(0)
    before = chain.spi.bytes_written
    sign.tick(20)
    assert chain.spi.bytes_written == before              # nothing changed, nothing sent
    sign.set_amount(0, 123457, 20, jump=True)
    sign.tick(40)
    assert chain.spi.bytes_written == before + 4          # one digit row: 2 bytes per module
    assert shown(chain, 0) == "  1234.57" and shown(chain, 1) == "     7.77"


def test_a_glitched_module_is_restored_by_the_periodic_refresh():
    chain, sign = make(lines=2, refresh_ms=10000)
    sign.set_amount(1, 4200, 0)
    sign.begin(0)
    sign.tick(0)
    chain.modules[1] = _Chip()                # a power glitch resets module 1: it goes dark
    sign.tick(5000)
    assert not chain.lit(1)
    sign.tick(10000)
    assert shown(chain, 1) == "    42.00"


def test_lamp_test_lights_every_segment():
    chain, sign = make(lines=2)
    sign.begin(0)
    sign.lamp_test(True)
    assert shown(chain, 0) == "8." * 8 and shown(chain, 1) == "8." * 8
    sign.lamp_test(False)
    assert shown(chain, 0) == " " * 8


def test_encode_text_font_and_decimal_points():
    assert shown_text("12.5") == "     12.5"
    assert shown_text("-- --") == "   -- --"
    assert shown_text("HELP") == "    HELP"
    assert shown_text("3.") == "       3."
    # one shape a letter, whatever its case (the module docstring's list)
    for text in ("ABCDEFGH", "abcdefgh"):
        assert shown_text(text) == "AbCdEFGH"
    assert shown_text("ijklmnop") == "IJKLMNoP"
    assert shown_text("QRSTUVYZ") == "qr5tUuy2"


def shown_text(text):
    chain, sign = make()
    sign.begin(0)
    sign.set_fault(0, text)
    sign.tick(2500)
    return shown(chain)


@pytest.mark.parametrize("text, message", [
    ("WIN", "no 7-segment shape"), ("123456789", "needs 9 digits"), (12, "must be a str"),
])
def test_text_that_cannot_be_shown_is_rejected_and_changes_nothing(text, message):
    chain, sign = make()
    sign.set_amount(0, 100, 0)
    sign.begin(0)
    with pytest.raises(ValueError, match=message):
        sign.set_fault(0, text)
    sign.tick(2500)
    assert shown(chain) == "     1.00"
    with pytest.raises(ValueError, match=message):
        encode_text(text)


@pytest.mark.parametrize("cents", [-1, 1.5, True, "100", 2 ** 30])
def test_bad_amounts_are_rejected_and_change_nothing(cents):
    chain, sign = make()
    sign.set_amount(0, 100, 0)
    with pytest.raises(ValueError, match="cents"):
        sign.set_amount(0, cents, 0)
    with pytest.raises(ValueError, match="cents"):
        sign.show_win(0, 1, cents, 100, 0)
    assert sign.amount_shown(0) == 100


def test_bad_lines_seats_and_settings():
    chain, sign = make(lines=2)
    with pytest.raises(ValueError, match="line"):
        sign.set_amount(2, 100, 0)
    with pytest.raises(ValueError, match="seat"):
        sign.show_win(0, 0, 100, 100, 0)
    with pytest.raises(ValueError, match="lines"):
        MeterSign(chain.spi, chain.cs, lines=0)
    with pytest.raises(ValueError, match="intensity"):
        MeterSign(chain.spi, chain.cs, intensity=16)
    assert meter_sign._REG_SHUTDOWN == 0x0C and meter_sign._REG_DISPLAY_TEST == 0x0F


def test_wins_of_one_round_are_shown_in_turn_then_the_new_amount():
    chain, sign = make(win_ms=15000)
    sign.set_amount(0, 1000140, 0)
    sign.begin(0)
    sign.show_win(0, 1, 10000, 990140, 1000)
    sign.show_win(0, 3, 10000, 980140, 1000)
    assert sign.wins_showing(0) == 2
    seen = []
    for now in (1000, 3500, 4000, 6500, 7000, 9500):
        sign.tick(now)
        seen.append(shown(chain).strip())
    # each win's amount (2 s) then its seat (1 s), one win after the other, and round again
    assert seen == ["100.00", "5EAt 1", "100.00", "5EAt 3", "100.00", "5EAt 1"]
    sign.tick(16100)                       # win_ms after the last win
    assert shown(chain) == "  9801.40"
    assert sign.wins_showing(0) == 0


def test_the_last_of_the_most_wins_a_line_holds_shows_within_30_seconds():
    chain, sign = make(win_ms=15000)
    sign.begin(0)
    for seat in range(1, meter_sign._MAX_WINS + 1):
        sign.show_win(0, seat, 100 * seat, 0, 0)
    sign.tick(3000 * (meter_sign._MAX_WINS - 1) + 2500)
    assert shown(chain) == "  5EAt %d" % meter_sign._MAX_WINS
    assert 3000 * (meter_sign._MAX_WINS - 1) + 2500 < 30000     # the 30 s
    # one more at once (two rounds of many winners close together): the oldest gives way, the
    # table's loop goes on (it raised out of App.step), and the newest win is shown in turn
    sign.show_win(0, 7, 777, 0, 100)
    assert sign.wins_showing(0) == meter_sign._MAX_WINS
    seen = []
    for t in range(100, 30000, 500):
        sign.tick(t)
        if shown(chain).strip() not in seen:
            seen.append(shown(chain).strip())
    assert "5EAt 1" not in seen and "7.77" in seen and "5EAt 9" in seen


def test_a_win_after_the_last_ones_ended_starts_afresh():
    chain, sign = make(win_ms=15000)
    sign.begin(0)
    sign.show_win(0, 2, 5000, 100000, 0)
    sign.tick(16000)
    assert sign.wins_showing(0) == 0 and shown(chain) == "  1000.00"
    sign.show_win(0, 4, 7000, 100000, 20000)
    assert sign.wins_showing(0) == 1
    sign.tick(22500)
    assert shown(chain) == "  5EAt 4"
    sign.tick(23500)                       # the next turn is the same win, not seat 2's
    assert shown(chain) == "    70.00"
    sign.tick(25500)
    assert shown(chain) == "  5EAt 4"
    # ended with no tick in between: still a fresh start
    sign.show_win(0, 6, 9000, 100000, 60000)
    assert sign.wins_showing(0) == 1


def test_a_blank_line_shows_nothing_until_it_is_used_again():
    chain, sign = make(lines=2)
    sign.set_amount(0, 123456, 0)
    sign.set_amount(1, 98700, 0)
    sign.begin(0)
    sign.blank(1, True)
    sign.tick(100)
    assert shown(chain, 0) == "  1234.56" and shown(chain, 1).strip() == ""
    sign.blank(1, False)
    sign.tick(200)
    assert shown(chain, 1) == "   987.00"
    with pytest.raises(ValueError, match="sign line must be 0..1"):
        sign.blank(2, True)


def test_a_blank_line_with_a_fault_shows_the_fault_text_alone():
    # no amount to alternate with (a table in RAM ERROR, a game without a progressive): the
    # fault must still be seen, and never beside a "0.00" the pool does not hold
    chain, sign = make(lines=2)
    sign.begin(0)
    sign.blank(0, True)
    sign.blank(1, True)
    sign.set_fault(0, "RAM Err")
    seen = set()
    for now in range(0, 6000, 20):
        sign.tick(now)
        seen.add(shown(chain, 0))
    assert seen == {" rAM Err"}
    assert shown(chain, 1).strip() == ""
    sign.clear_fault(0)
    sign.tick(6000)
    assert shown(chain, 0).strip() == ""
