"""Bet-spot sensors: the MCP23017 over a fake I2C bus with a register model, and the
debounce / chatter / stuck / bus-fault logic, asserted as the events the table would get."""

import pytest

from firmware.drivers import mcp23017, spot_sensors
from firmware.drivers.events import EMPTY, event_detail, event_kind
from firmware.drivers.spot_sensors import (
    BUS,
    CHATTER,
    CLEARED,
    FAULT,
    PLACED,
    REMOVED,
    STUCK,
    PinInputs,
    SpotSensors,
)
from host_tests.fakes.i2c import FakeI2C
from host_tests.fakes.mcp23017 import FakeMCP23017
from host_tests.fakes.pins import FakePin


def drain(ring):
    out = []
    while True:
        event = ring.pop()
        if event == EMPTY:
            return out
        out.append((event_kind(event), event_detail(event)))


def make_chip():
    bus = FakeI2C()
    model = bus.attach(0x20, FakeMCP23017())
    chip = mcp23017.MCP23017(bus)
    chip.configure()
    return bus, model, chip


# --- MCP23017 ---------------------------------------------------------------------------------

def test_configured_chip_reads_empty_spots_as_zero_and_covered_spots_as_ones():
    bus, model, chip = make_chip()
    assert chip.read() == 0            # pull-ups on, inverted: nothing covered
    model.cover(0)
    model.cover(9)
    assert chip.read() == (1 << 0) | (1 << 9)
    model.uncover(0)
    assert chip.read() == 1 << 9


def test_configure_writes_the_registers_a_datasheet_reader_expects():
    bus, model, chip = make_chip()
    regs = model.regs
    assert (regs[0x00], regs[0x01]) == (0xFF, 0xFF)     # IODIR: inputs
    assert (regs[0x02], regs[0x03]) == (0xFF, 0xFF)     # IPOL: inverted
    assert (regs[0x0C], regs[0x0D]) == (0xFF, 0xFF)     # GPPU: pull-ups
    assert (regs[0x04], regs[0x05]) == (0xFF, 0xFF)     # GPINTEN
    assert regs[0x0A] & 0x40                            # IOCON.MIRROR
    assert not regs[0x0A] & 0x80                        # BANK = 0


def test_without_pullups_an_empty_spot_floats_and_would_read_covered():
    # The model floats an undriven pin low: this is why configure enables pull-ups.
    bus = FakeI2C()
    bus.attach(0x20, FakeMCP23017())
    chip = mcp23017.MCP23017(bus)
    chip.configure(pullups=0)
    assert chip.read() == 0xFFFF


def test_interrupt_on_change_and_capture():
    bus, model, chip = make_chip()
    assert not model.int_active()
    model.cover(4)
    assert model.int_active()
    assert chip.captured() == 1 << 4
    assert not model.int_active()


def test_a_nack_makes_read_return_minus_one_and_counts_it():
    bus, model, chip = make_chip()
    bus.fail_next = 1
    assert chip.read() == -1
    assert chip.errors == 1
    assert chip.read() == 0


def test_sda_stuck_high_is_a_failed_read_and_a_failed_check():
    bus, model, chip = make_chip()
    bus.sda_short = "high"
    assert chip.read() == -1
    assert chip.check() is False


def test_sda_shorted_low_is_a_failed_read_not_a_false_all_empty():
    bus, model, chip = make_chip()
    model.cover(2)
    bus.sda_short = "low"            # the bus returns zeros: "nothing covered" would be a lie
    assert chip.read() == -1         # the OLAT signature read back as 0x00
    assert chip.check() is False     # IODIR read back as 0x00, not 0xFF
    bus.sda_short = None
    assert chip.check() is True
    assert chip.read() == 1 << 2


def test_a_chip_reset_by_a_glitch_is_found_and_reconfigured():
    bus, model, chip = make_chip()
    model.cover(1)
    model.power_cycle()              # IPOL and GPPU lost
    assert chip.check() is False
    assert chip.reconfigured == 1
    assert chip.check() is True
    assert chip.read() == 1 << 1


def test_a_reset_between_checks_is_caught_by_the_next_read():
    bus, model, chip = make_chip()
    model.cover(1)
    model.power_cycle()              # without IPOL the covered pin would read as "empty"
    assert chip.read() == -1         # OLAT signature gone: reconfigured on the spot
    assert chip.reconfigured == 1
    assert chip.read() == 1 << 1


def test_a_glitch_that_set_iocon_bank_is_undone_by_the_reconfiguration():
    # A corrupted write can set IOCON.BANK, which moves every register (IOCON itself to
    # 0x05): the reconfiguration must reach IOCON there too, or the spots stay in bus fault
    # until the power is cut.
    bus, model, chip = make_chip()
    model.cover(1)
    bus.writeto_mem(0x20, 0x0A, bytes([0xC4]))     # IOCON with BANK set, as a glitch may leave it
    assert chip.read() == -1                       # the signature is not where it was
    assert chip.read() == 1 << 1                   # reconfigured on the spot, BANK cleared
    assert model.regs[0x0A] & 0x80 == 0
    assert chip.check() is True


def test_configure_puts_the_signature_in_the_unused_output_latches():
    bus, model, chip = make_chip()
    assert (model.regs[0x14], model.regs[0x15]) == (0xA5, 0x5A)
    assert model.levels() == 0xFFFF  # still all inputs, pulled up: the latches drive nothing


def test_missing_chip_raises_at_configure_and_reads_fail_softly_later():
    bus = FakeI2C()
    chip = mcp23017.MCP23017(bus)
    with pytest.raises(OSError):
        chip.configure()
    assert chip.read() == -1


def test_a_glitch_is_asked_again_at_once_and_a_missing_chip_once_in_fifty_reads():
    # each failed transfer is an OSError, an allocation on the board: a chip that stays
    # missing is not asked at every 20 ms pass of the loop
    bus, model, chip = make_chip()
    model.cover(4)
    bus.fail_next = 2                # a loose connector: two NACKs, the third read good
    assert [chip.read() for _ in range(3)] == [-1, -1, 1 << 4]
    bus.detach(0x20)
    failed = bus.failures
    assert [chip.read() for _ in range(500)] == [-1] * 500
    assert chip.check() is False
    assert bus.failures - failed <= 3 + 500 // 50      # three in a row, then one in 50
    model = bus.attach(0x20, FakeMCP23017())           # back, as after a power-up
    model.cover(4)
    reads = [chip.read() for _ in range(50)]
    assert reads[-1] == 1 << 4 and model.regs[0x0C:0x0E] == b"\xff\xff"


def test_bad_address_and_masks_are_rejected():
    with pytest.raises(ValueError, match="address"):
        mcp23017.MCP23017(FakeI2C(), address=0x50)
    bus, model, chip = make_chip()
    with pytest.raises(ValueError, match="pullups"):
        chip.configure(pullups=0x10000)


# --- debounce ---------------------------------------------------------------------------------

def run(spots, samples, start=0, step=10):
    """Feed (bits) samples every step ms; return (events, next time)."""
    now = start
    events = []
    for bits in samples:
        spots.scan(bits, now)
        events += drain(spots.events)
        now += step
    return events, now


def test_a_chip_placed_gives_one_placed_after_the_debounce_time():
    spots = SpotSensors(count=14, debounce_ms=60)
    spots.scan(0, 0)
    events, now = run(spots, [0b1000] * 5, start=10)      # 10..50 ms: not yet
    assert events == []
    events, now = run(spots, [0b1000] * 3, start=now)     # 60 ms held
    assert events == [(PLACED, 3)]
    assert spots.covered(3)
    assert spots.covered_bits() == 0b1000


def test_bounce_while_a_chip_settles_is_one_placed_and_one_removed():
    spots = SpotSensors(count=14, debounce_ms=60)
    spots.scan(0, 0)
    bounce = [1, 0, 1, 1, 0, 1] + [1] * 10 + [0, 1, 0] + [0] * 10
    events, _ = run(spots, bounce, start=10)
    assert events == [(PLACED, 0), (REMOVED, 0)]


def test_a_glitch_shorter_than_debounce_is_ignored():
    spots = SpotSensors(count=14, debounce_ms=60)
    spots.scan(0, 0)
    events, _ = run(spots, [0, 1 << 5, 1 << 5, 0, 0, 0, 0, 0, 0, 0], start=10)
    assert events == []


def test_spots_covered_at_power_up_are_reported_after_debounce():
    spots = SpotSensors(count=14, debounce_ms=60)
    events, _ = run(spots, [0b11] * 8)
    assert sorted(events) == [(PLACED, 0), (PLACED, 1)]


def test_direct_gpio_inputs_active_low():
    pins = [FakePin(1) for _ in range(7)]
    source = PinInputs(pins)
    assert source.read() == 0
    pins[6].press()
    assert source.read() == 1 << 6
    assert PinInputs(pins, active_low=False).read() == 0b0111111


# --- faults -----------------------------------------------------------------------------------

def test_a_chattering_sensor_is_reported_once_and_not_counted():
    spots = SpotSensors(count=14, debounce_ms=60, chatter_limit=8, chatter_window_ms=1000,
                       recover_ms=3000)
    spots.scan(0, 0)
    # A flickering sensor: changes every 70 ms, just slow enough to pass the debounce alone.
    samples = []
    for i in range(40):
        samples += [1 << 2] * 7 if i % 2 == 0 else [0] * 7
    events, now = run(spots, samples, start=10)
    faults = [e for e in events if e[0] == FAULT]
    assert faults == [(FAULT, 2)]
    assert spots.fault(2) == CHATTER
    assert not spots.covered(2)
    # Before the fault some changes got through (it looked like a chip), none after it.
    fault_at = events.index((FAULT, 2))
    assert all(e[0] not in (PLACED, REMOVED) for e in events[fault_at + 1:])


def test_a_chattering_sensor_recovers_after_a_steady_spell():
    spots = SpotSensors(count=14, debounce_ms=60, chatter_limit=4, chatter_window_ms=1000,
                       recover_ms=500)
    spots.scan(0, 0)
    events, now = run(spots, [1, 0] * 6, start=10)
    assert (FAULT, 0) in events
    events, now = run(spots, [1] * 60, start=now)       # now steadily covered
    assert events == [(CLEARED, 0), (PLACED, 0)]
    assert spots.covered(0)


def test_a_stuck_sensor_is_reported_and_cleared_when_it_lets_go():
    spots = SpotSensors(count=14, debounce_ms=60, stuck_ms=2000, recover_ms=300)
    spots.scan(0, 0)
    events, now = run(spots, [1 << 7] * 300, start=10, step=10)
    assert events == [(PLACED, 7), (FAULT, 7)]
    assert spots.fault(7) == STUCK
    assert not spots.covered(7)
    events, now = run(spots, [0] * 40, start=now)
    assert events == [(CLEARED, 7), (REMOVED, 7)]
    assert spots.fault(7) == 0


def test_failed_reads_become_a_bus_fault_on_every_spot_then_recover():
    spots = SpotSensors(count=3, debounce_ms=60, bus_fault_scans=3, recover_ms=200)
    run(spots, [0b001] * 10)
    events, now = run(spots, [-1, -1], start=200)
    assert events == []                       # two failed reads are tolerated
    events, now = run(spots, [-1], start=now)
    assert events == [(FAULT, 0), (FAULT, 1), (FAULT, 2)]
    assert [spots.fault(s) for s in range(3)] == [BUS, BUS, BUS]
    events, now = run(spots, [0b100] * 25, start=now + 5000)   # recovery counts from here
    assert events == [(CLEARED, 0), (REMOVED, 0), (CLEARED, 1), (CLEARED, 2), (PLACED, 2)]


def test_a_chip_that_stayed_put_through_a_bus_fault_is_reported_again():
    # The consumer stops counting a faulted spot, so a chip still there when the fault clears
    # must be announced anew, even though the spot was covered before the fault.
    spots = SpotSensors(count=3, debounce_ms=60, bus_fault_scans=3, recover_ms=200)
    run(spots, [0b011] * 10)
    run(spots, [-1] * 3, start=200)
    events, now = run(spots, [0b001] * 25, start=5000)
    assert events == [(CLEARED, 0), (PLACED, 0), (CLEARED, 1), (REMOVED, 1), (CLEARED, 2)]
    assert spots.covered(0) and not spots.covered(1)


def test_a_shorted_mcp_bus_gives_faults_not_phantom_removals():
    # End to end: the sensor loop as the app runs it (read, check every few scans).
    bus, model, chip = make_chip()
    spots = SpotSensors(count=14, debounce_ms=60, bus_fault_scans=3)
    model.cover(0)
    now = 0
    events = []
    for _ in range(20):
        spots.scan(chip.read(), now)
        now += 10
    events += drain(spots.events)
    assert events == [(PLACED, 0)]
    bus.sda_short = "low"
    for _ in range(20):
        spots.scan(chip.read(), now)
        now += 10
    events = drain(spots.events)
    assert (REMOVED, 0) not in events
    assert [e for e in events if e[0] == FAULT] == [(FAULT, s) for s in range(14)]


def test_event_queue_overflow_drops_and_counts_without_growing():
    spots = SpotSensors(count=16, debounce_ms=10, queue=4)
    for now in (0, 10, 20, 30):
        spots.scan(0 if now == 0 else 0xFFFF, now)
    assert len(spots.events) == 4
    assert spots.events.dropped == 12


@pytest.mark.parametrize("kwargs, message", [
    ({"count": 0}, "spot count"),
    ({"count": 17}, "spot count"),
    ({"debounce_ms": 0}, "debounce_ms"),
    ({"stuck_ms": 50, "debounce_ms": 60}, "longer than debounce"),
    ({"chatter_limit": "8"}, "chatter_limit"),
])
def test_bad_configuration_is_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SpotSensors(**kwargs)


def test_fault_names_cover_every_reason():
    assert spot_sensors.FAULT_NAMES[CHATTER] == "chatter"
    assert spot_sensors.FAULT_NAMES[STUCK] == "stuck"
    assert spot_sensors.FAULT_NAMES[BUS] == "bus"


def test_reference_wiring_puts_ante_spots_on_port_b():
    # docs/wiring.md / architecture: GPA0..6 jackpot spots of seats 1..7, GPB0..6 Ante spots.
    assert [spot_sensors.jackpot_spot(s) for s in (1, 7)] == [0, 6]
    assert [spot_sensors.ante_spot(s) for s in (1, 7)] == [8, 14]
    bus, model, chip = make_chip()
    model.cover(8 + 2)               # GPB2: seat 3's Ante
    assert chip.read() == 1 << spot_sensors.ante_spot(3)


@pytest.mark.parametrize("bits", [-2, 0x10000])
def test_impossible_sensor_bits_are_rejected_and_change_nothing(bits):
    spots = SpotSensors(count=16, debounce_ms=10)
    spots.scan(1, 0)
    spots.scan(1, 20)
    assert drain(spots.events) == [(PLACED, 0)]
    with pytest.raises(ValueError, match="16-bit"):
        spots.scan(bits, 40)
    assert spots.scans == 2 and spots.covered_bits() == 1


def test_debounce_and_stuck_timing_survive_the_tick_counter_wrapping():
    from firmware.drivers.ticks import ticks_add
    spots = SpotSensors(count=16, debounce_ms=60, stuck_ms=1000, recover_ms=200)
    now = 0x3FFFFF00                 # 256 ms before the 2**30 wrap
    spots.scan(0, now)
    events = []
    for _ in range(150):             # covered for 1.5 s, across the wrap
        now = ticks_add(now, 10)
        spots.scan(1, now)
        events += drain(spots.events)
    assert events == [(PLACED, 0), (FAULT, 0)]


def test_a_spot_left_alone_for_a_week_takes_a_chip_without_a_chatter_fault():
    # Ticks differences are exact for 2**29 ms (6.2 days): a chatter window older than that
    # must count as over, not as still open, or the chips of a seat unused for a week add to
    # the changes of its last use and trip a false CHATTER.
    from firmware.drivers.ticks import ticks_add
    spots = SpotSensors(count=16, debounce_ms=40, chatter_limit=8, chatter_window_ms=1000)
    spots.scan(0, 0)
    events, now = run(spots, [1, 0, 1] + [1] * 10 + [0, 1, 0] + [0] * 10, start=10)
    assert events == [(PLACED, 0), (REMOVED, 0)]      # a chip, with bounce, on and off: 6 changes
    now = ticks_add(now, (1 << 29) + 3600000)         # 6.2 days and an hour later
    events, now = run(spots, [1, 0, 1] + [1] * 10 + [0] * 10 + [1] * 10, start=now)
    assert events == [(PLACED, 0), (REMOVED, 0), (PLACED, 0)]
    assert spots.fault(0) == 0
