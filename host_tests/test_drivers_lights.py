"""Spot lights: the GRB bytes the driver sends, decoded by a fake WS2812 chain into the colour
each seat's ring shows, pattern by pattern and over time."""

import pytest

from firmware.drivers import spot_lights
from firmware.drivers.spot_lights import (
    ACCEPTED,
    FAULT,
    IDLE,
    LATE,
    LOCKED,
    OFF,
    PLACED,
    TAMPER,
    WINNER,
    BitstreamStrip,
    SpotLights,
)
from host_tests.fakes.ws2812 import FakeWS2812, colour_name

TICK_MS = 20


def make(brightness=64):
    strip = FakeWS2812(pixels=56)
    lights = SpotLights(strip, seats=7, tick_ms=TICK_MS, brightness=brightness)
    return strip, lights


def at_ms(ms):
    """The first loop tick at or after ms."""
    return (ms + TICK_MS - 1) // TICK_MS


def test_the_fake_names_colours_by_proportion():
    # Independent of the driver: plain RGB triples a person would name.
    assert colour_name(0, 200, 0) == "green"
    assert colour_name(10, 0, 0) == "red"
    assert colour_name(255, 100, 0) == "amber"
    assert colour_name(255, 255, 240) == "white"
    assert colour_name(0, 0, 0) == "off"


def test_static_patterns_per_seat():
    strip, lights = make()
    lights.set(0, PLACED)
    lights.set(2, ACCEPTED)
    lights.set(3, LOCKED)
    lights.render(0)
    assert strip.seat_colour(0) == "amber"
    assert strip.seat_colour(1) == "off"
    assert strip.seat_colour(2) == "green"          # seat 3 (index 2) shows its wager accepted
    assert strip.seat_colour(3) == "red"
    assert strip.lit_count(2) == 8
    assert strip.level(3) < strip.level(2)          # "locked" is a dim red


def test_the_steady_patterns_differ_in_shape_not_only_in_colour():
    # About 8% of men cannot tell red from green (red-green colour blindness); amber, green
    # and red are that confusion.  A player must still see whether the wager is taken [UTH
    # 11.5]: the three steady patterns light different pixels of the ring.
    strip, lights = make()
    lights.set(0, PLACED)
    lights.set(1, ACCEPTED)
    lights.set(2, LOCKED)
    lights.render(0)
    shapes = [tuple(n != "off" for n in strip.seat_names(seat)) for seat in range(3)]
    assert [sum(shape) for shape in shapes] == [4, 8, 2]
    assert shapes[0] == (True, False) * 4                       # every other pixel
    assert shapes[2] == (True, False, False, False) * 2         # two opposite dots
    assert len(set(shapes)) == 3


def test_grb_byte_order_on_the_wire():
    strip, lights = make(brightness=255)
    lights.set(0, ACCEPTED)
    lights.render(0)
    assert bytes(strip.frame[0:3]) == bytes([255, 0, 0])     # G first: full green


def test_late_bet_flashes_red_twice_a_second():
    strip, lights = make()
    lights.set(4, LATE)
    seen = []
    for ms in range(0, 1000, 125):
        lights.render(at_ms(ms))
        seen.append(strip.seat_colour(4))
    assert seen == ["red", "red", "off", "off", "red", "red", "off", "off"]


def test_idle_attract_runs_one_light_round_the_ring():
    strip, lights = make()
    lights.set_all(IDLE)
    heads = []
    for ms in range(0, 1000, 125):
        lights.render(at_ms(ms))
        names = strip.seat_names(0)
        assert strip.seat_colour(0) == "blue"
        levels = [max(strip.rgb(i)) for i in range(8)]
        heads.append(levels.index(max(levels)))
        assert names.count("off") == 6
    assert heads == [0, 1, 2, 3, 4, 5, 6, 7]


def test_winner_is_a_turning_rainbow():
    strip, lights = make()
    lights.set(6, WINNER)
    lights.render(0)
    first = strip.seat_names(6)
    assert len(set(first)) == 8                      # eight different colours
    lights.render(at_ms(100))
    assert strip.seat_names(6) == first[1:] + first[:1]


def test_fault_swaps_magenta_halves_and_tamper_alternates_red_white():
    strip, lights = make()
    lights.set(1, FAULT)
    lights.set(5, TAMPER)
    lights.render(0)
    assert strip.seat_names(1) == ["magenta"] * 4 + ["off"] * 4
    assert strip.seat_names(5) == ["red", "white"] * 4
    lights.render(at_ms(500))
    assert strip.seat_names(1) == ["off"] * 4 + ["magenta"] * 4
    lights.render(at_ms(125))
    assert strip.seat_names(5) == ["white", "red"] * 4


def test_every_pattern_looks_different():
    strip, lights = make()
    looks = {}
    for state in range(len(spot_lights.STATE_NAMES)):
        lights.set(0, state)
        lights.render(0)
        looks[state] = tuple(strip.seat_names(0)) + (strip.level(0),)
    assert len(set(looks.values())) == len(looks)
    assert looks[OFF] == ("off",) * 8 + (0,)


def test_an_unchanged_frame_is_not_sent_again():
    strip, lights = make()
    lights.set_all(ACCEPTED)
    assert lights.render(0) is True
    assert lights.render(1) is False
    assert strip.writes == 1
    lights.set(3, PLACED)
    assert lights.render(2) is True
    assert strip.writes == 2


def test_brightness_scales_but_keeps_colours():
    strip, lights = make(brightness=255)
    lights.set(0, PLACED)
    lights.render(0)
    bright = strip.level(0)
    lights.set_brightness(16)
    lights.render(1)
    assert strip.seat_colour(0) == "amber"
    assert strip.level(0) * 8 < bright


def test_a_huge_tick_count_still_renders():
    strip, lights = make()
    lights.set(0, LATE)
    lights.render(2 ** 40)
    assert strip.seat_colour(0) in ("red", "off")


@pytest.mark.parametrize("seat, state, message", [
    (7, ACCEPTED, "seat index"), (-1, ACCEPTED, "seat index"), (0, 99, "state"), ("1", IDLE, "seat"),
])
def test_bad_seat_or_state_changes_nothing(seat, state, message):
    strip, lights = make()
    lights.set_all(ACCEPTED)
    with pytest.raises(ValueError, match=message):
        lights.set(seat, state)
    assert [lights.state(s) for s in range(7)] == [ACCEPTED] * 7


def test_bad_construction():
    with pytest.raises(ValueError, match="seats"):
        SpotLights(FakeWS2812(), seats=9)
    with pytest.raises(ValueError, match="brightness"):
        SpotLights(FakeWS2812(), brightness=0)


def test_bitstream_transport_calls_bitstream_with_ws2812_timing():
    calls = []

    def bitstream(pin, encoding, timing, buf):
        calls.append((pin, encoding, timing, bytes(buf)))

    strip = BitstreamStrip(bitstream, "GP16")
    strip.write(b"\x01\x02\x03")
    # WS2812 datasheet: T0H 0.4 us, T0L 0.85 us, T1H 0.8 us, T1L 0.45 us.
    assert calls == [("GP16", 0, (400, 850, 800, 450), b"\x01\x02\x03")]


def test_neopixel_transport_copies_into_the_neopixel_buffer():
    class NeoPixel:
        def __init__(self, n):
            self.buf = bytearray(3 * n)
            self.sent = []

        def write(self):
            self.sent.append(bytes(self.buf))

    np = NeoPixel(56)
    lights = SpotLights(spot_lights.NeoPixelStrip(np), seats=7, brightness=255)
    lights.set(1, ACCEPTED)
    lights.render(0)
    assert len(np.sent) == 1
    assert np.sent[0][24:27] == bytes([255, 0, 0])       # seat 2's first pixel: green (G R B)


def test_a_ring_that_went_dark_shows_its_steady_pattern_again_within_a_second():
    # A WS2812 ring keeps what it was last sent: one that lost its power for a moment (a
    # connector knocked under the table) or latched noise comes back dark or wrong, and an
    # ACCEPTED wager held steady through a round would stay unlit [UTH 11.4-11.5].
    strip, lights = make()
    lights.set_all(LOCKED)
    lights.set(2, ACCEPTED)
    lights.render(0)
    for i in range(len(strip.frame)):
        strip.frame[i] = 0                      # the chain came back dark
    for tick in range(1, at_ms(1000) + 1):
        lights.render(tick)
    assert strip.seat_colour(2) == "green" and strip.seat_colour(0) == "red"
    assert strip.writes <= 3                    # not sent every tick
