"""The board modules build what their pin maps say, on pins the chips allow.

`machine` is replaced by a recording stand-in, so make() runs on the host and each test reads
which peripheral was built on which GPIO, in which order, with which settings.
"""

import importlib
import sys
import time
import types

import pytest

from boards import base
from firmware.store import eventlog

BOARD_NAMES = ("pico_w", "esp32_s3")


# RP2040 datasheet 4.7.6, watchdog registers: base 0x40058000, SCRATCH4 at 0x1c.  pico-sdk
# watchdog.c: watchdog_enable() (machine.WDT) writes 0x6ab73121 there; watchdog_reboot()
# (machine.reset(), picotool and UF2 reboots) writes 0, or 0xb007c0d3 to reboot to an address.
RP2040_WATCHDOG_SCRATCH4 = 0x4005801C
PICO_SDK_WATCHDOG_ENABLED = 0x6AB73121


class _Log:
    def __init__(self):
        self.events = []


class FakeMachine(types.ModuleType):
    """The parts of `machine` the boards use; every construction is appended to `events`."""

    PWRON_RESET = 1
    HARD_RESET = 2
    WDT_RESET = 3
    SOFT_RESET = 5

    def __init__(self, cause=3):
        super().__init__("machine")
        log = self.log = _Log()
        self.cause = cause
        self.bitstreams = []
        # RP2040 watchdog SCRATCH4 as a watchdog the program started leaves it (pico-sdk
        # watchdog_enable() writes WATCHDOG_NON_REBOOT_MAGIC there): a real timeout.
        self.mem32 = {RP2040_WATCHDOG_SCRATCH4: PICO_SDK_WATCHDOG_ENABLED}

        machine = self
        # An I2C part holding SDA low after a reset in mid-transfer: (sda gpio, scl gpio,
        # the clocks on scl until it lets go), or None for a free bus.
        self.stuck = None

        class Pin:
            IN = 0
            OUT = 1
            OPEN_DRAIN = 2
            PULL_UP = 1

            def __init__(self, gpio, mode=-1, pull=-1, *, value=None):
                self.gpio, self.mode, self.pull, self.value = gpio, mode, pull, value
                log.events.append(("Pin", gpio, mode, pull, value))

            def __call__(self, level=None):
                if level is not None:
                    log.events.append(("drive", self.gpio, level))
                    return None
                stuck = machine.stuck
                if stuck is not None and self.gpio == stuck[0]:
                    rises = sum(1 for e in log.events if e == ("drive", stuck[1], 1))
                    return 0 if rises < stuck[2] else 1
                return 1

        class Bus:
            kind = "?"

            def __init__(self, bus_id, *args, **kwargs):
                self.id = bus_id
                self.args = args
                self.kwargs = kwargs
                log.events.append((self.kind, bus_id, kwargs))

        class I2C(Bus):
            kind = "I2C"

        class SPI(Bus):
            kind = "SPI"

        class UART(Bus):
            kind = "UART"

        class PWM:
            def __init__(self, pin, *, freq, duty_u16):
                self.pin, self.freq, self.duty_u16 = pin, freq, duty_u16
                log.events.append(("PWM", pin.gpio, freq, duty_u16))

        class WDT:
            def __init__(self, *, timeout):
                self.timeout = timeout
                log.events.append(("WDT", timeout))

        self.Pin, self.I2C, self.SPI, self.UART, self.PWM, self.WDT = Pin, I2C, SPI, UART, PWM, WDT

    def reset_cause(self):
        return self.cause

    def bitstream(self, pin, encoding, timing, data):
        self.bitstreams.append((pin.gpio, encoding, timing, bytes(data)))


@pytest.fixture
def fake_machine(monkeypatch):
    machine = FakeMachine()
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)   # MicroPython's
    # the tick count at make(): a boot after a reset of the chip (time.ticks_ms restarts)
    monkeypatch.setattr(time, "ticks_ms", lambda: 700, raising=False)
    for name in BOARD_NAMES:
        monkeypatch.delitem(sys.modules, "boards." + name, raising=False)
    return machine


def load(name):
    return importlib.import_module("boards." + name)


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_the_shoe_rx_line_idles_high_with_no_shoe_plugged_in(fake_machine, name):
    # The RP2040's pads come out of reset pulled down: an RX pin left so reads a break (one
    # NUL byte) when no shoe is plugged in or it is powered off, and the table would beep
    # "Shoe line bad / partial line" at every boot of a table dealt from the panel.
    board = load(name).make()
    rx = board.shoe_uart.kwargs["rx"]
    assert (rx.mode, rx.pull) == (fake_machine.Pin.IN, fake_machine.Pin.PULL_UP)


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_make_builds_every_part_on_the_mapped_pins(fake_machine, name):
    module = load(name)
    board = module.make()
    assert board.name == name
    assert board.i2c.id == module.I2C_ID
    assert board.i2c.kwargs["scl"].gpio == module.I2C_SCL
    assert board.i2c.kwargs["sda"].gpio == module.I2C_SDA
    assert board.i2c.kwargs["freq"] == 400000
    assert board.spi.id == module.SPI_ID
    assert board.spi.kwargs["sck"].gpio == module.SPI_SCK
    assert board.spi.kwargs["mosi"].gpio == module.SPI_MOSI
    # MAX7219: 10 MHz maximum clock, data latched on the rising edge (SPI mode 0).
    assert board.spi.kwargs["baudrate"] <= 10000000
    assert (board.spi.kwargs["polarity"], board.spi.kwargs["phase"]) == (0, 0)
    assert (board.cs.gpio, board.cs.mode, board.cs.value) == (module.SPI_CS, 1, 1)
    assert (board.pixel_pin.gpio, board.pixel_pin.mode) == (module.PIXEL_PIN, 1)
    assert {label: pin.gpio for label, pin in board.buttons.items()} == module.BUTTON_PINS
    for pin in list(board.buttons.values()) + [board.key, board.door, board.mcp_int]:
        assert (pin.mode, pin.pull) == (0, 1), "inputs are pulled up and switched to ground"
    assert board.key.gpio == module.KEY_PIN
    assert board.door.gpio == module.DOOR_PIN
    assert board.mcp_int.gpio == module.MCP_INT_PIN
    assert (board.buzzer.pin.gpio, board.buzzer.duty_u16) == (module.BUZZER_PIN, 0), "silent at boot"
    assert board.shoe_uart.id == module.SHOE_UART_ID
    assert board.shoe_uart.kwargs["tx"].gpio == module.SHOE_TX
    assert board.shoe_uart.kwargs["rx"].gpio == module.SHOE_RX
    assert board.shoe_uart.kwargs["baudrate"] == 9600
    assert board.shoe_uart.kwargs["timeout"] == 0, "the main loop never blocks on the shoe"
    assert (board.link, board.link_uart, board.link_de) == ("wifi", None, None)
    assert board.has_fram is True
    assert (board.mcp23017_addr, board.fram_addr, board.oled_addr) == (0x20, 0x50, 0x3C)
    assert (board.seats, board.pixels_per_seat, board.pixel_count) == (7, 8, 56)
    assert board.pins is module.PIN_TABLE


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_rs485_link_builds_its_uart_and_driver_enable(fake_machine, name):
    module = load(name)
    board = module.make(rs485=True)
    assert board.link == "rs485"
    assert board.link_uart.id == module.LINK_UART_ID
    assert board.link_uart.kwargs["tx"].gpio == module.LINK_TX
    assert board.link_uart.kwargs["rx"].gpio == module.LINK_RX
    assert board.link_uart.kwargs["baudrate"] == 115200
    # The transceiver must start in receive mode so it never jams the shared bus at boot.
    assert (board.link_de.gpio, board.link_de.mode, board.link_de.value) == (module.LINK_DE, 1, 0)
    assert module.make(has_fram=False).has_fram is False


def test_pico_pixel_pin_is_set_up_after_the_spi_bus(fake_machine):
    # rp2's SPI(0, ...) always switches its MISO pin (GP16 unless given) to the SPI function;
    # GP16 is the WS2812 line, so the pixel pin must be configured after the bus.
    load("pico_w").make()
    events = fake_machine.log.events
    spi_at = [i for i, e in enumerate(events) if e[0] == "SPI"]
    pixel_at = [i for i, e in enumerate(events) if e[0] == "Pin" and e[1] == 16 and e[2] == 1]
    assert len(spi_at) == 1 and len(pixel_at) == 1
    assert pixel_at[0] > spi_at[0]


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_write_pixels_sends_the_bytes_with_ws2812_timing(fake_machine, name):
    board = load(name).make()
    board.write_pixels(bytearray(b"\x10\x20\x30"))
    # WS2812B datasheet: 0 bit 0.4 us high / 0.85 us low, 1 bit 0.8 us high / 0.45 us low.
    assert fake_machine.bitstreams == [(board.pixel_pin.gpio, 0, (400, 850, 800, 450), b"\x10\x20\x30")]


@pytest.mark.parametrize("name,low,high", [("pico_w", 1, 8388), ("esp32_s3", 1000, 3600000)])
def test_watchdog_timeout_range(fake_machine, name, low, high):
    board = load(name).make()
    assert board.make_wdt(low).timeout == low
    assert board.make_wdt(high).timeout == high
    for bad in (low - 1, high + 1):
        with pytest.raises(ValueError, match="watchdog timeout %d ms is outside" % bad):
            board.make_wdt(bad)
    with pytest.raises(ValueError, match="integer of milliseconds"):
        board.make_wdt("5000")
    assert [e for e in fake_machine.log.events if e[0] == "WDT"] == [("WDT", low), ("WDT", high)]


@pytest.mark.parametrize("cause,name", [(1, "power-on"), (2, "hard reset"), (3, "watchdog"),
                                        (5, "soft reset"), (9, "unknown (9)")])
def test_reset_cause_is_named(fake_machine, cause, name):
    fake_machine.cause = cause
    board = load("pico_w").make()
    assert (board.reset_cause, board.reset_cause_name) == (cause, name)


@pytest.mark.parametrize("scratch4", [0, 0xB007C0D3])
def test_pico_w_commanded_reboot_is_not_named_a_watchdog(fake_machine, scratch4):
    # rp2's machine.reset() reboots through the watchdog, so machine.reset_cause() says
    # WDT_RESET after mpremote's reset at the end of a deploy; the event log must not record a
    # watchdog timeout for it (a technician reads those as the table having hung).
    fake_machine.cause = fake_machine.WDT_RESET
    fake_machine.mem32[RP2040_WATCHDOG_SCRATCH4] = scratch4
    board = load("pico_w").make()
    assert (board.reset_cause, board.reset_cause_name) == (2, "hard reset")


def test_pico_w_watchdog_timeout_is_named_a_watchdog(fake_machine):
    fake_machine.cause = fake_machine.WDT_RESET
    fake_machine.mem32[RP2040_WATCHDOG_SCRATCH4] = PICO_SDK_WATCHDOG_ENABLED
    board = load("pico_w").make()
    assert (board.reset_cause, board.reset_cause_name) == (3, "watchdog")


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_a_soft_reset_is_logged_as_one_not_as_the_chips_last_reset_again(fake_machine, monkeypatch,
                                                                        name):
    # Ctrl-D at the REPL (or machine.soft_reset()) runs main.py again on a chip that was not
    # reset: machine.reset_cause() still says the watchdog timeout of an hour ago, which the
    # event log recorded then; recorded again, the lab counts two timeouts, and the dealer
    # display says "Restarted after watchdog" again.  The tick count tells: it restarts with
    # the chip only.
    fake_machine.cause = fake_machine.WDT_RESET
    monkeypatch.setattr(time, "ticks_ms", lambda: 3600000, raising=False)
    board = load(name).make()
    assert board.reset_cause_name == "soft reset"
    assert board.reset_cause == fake_machine.SOFT_RESET
    monkeypatch.delattr(type(fake_machine), "SOFT_RESET")   # rp2 has none: the number ports use
    board = load(name).make()
    assert (board.reset_cause, board.reset_cause_name) == (5, "soft reset")
    assert eventlog.RESET_CAUSES.index(board.reset_cause_name) == 4     # logged by its name


def test_esp32_s3_reset_cause_reads_no_rp2040_register(fake_machine):
    # ESP-IDF tells the causes apart itself (machine.reset() is HARD_RESET there).
    del fake_machine.mem32
    fake_machine.cause = fake_machine.WDT_RESET
    board = load("esp32_s3").make()
    assert (board.reset_cause, board.reset_cause_name) == (3, "watchdog")


def test_the_boards_cause_names_are_the_event_logs():
    # POWER_UP entries carry the name's number (firmware.store.eventlog.RESET_CAUSES)
    assert [name for _, name in base.RESET_CAUSE_NAMES] == list(eventlog.RESET_CAUSES)


def test_a_port_without_a_constant_does_not_name_it():
    port = types.SimpleNamespace(PWRON_RESET=1, WDT_RESET=3)   # like rp2: no DEEPSLEEP_RESET
    assert base.reset_cause_name(4, port) == "unknown (4)"
    assert base.reset_cause_name(3, port) == "watchdog"


def test_board_record_refuses_an_incomplete_panel():
    parts = dict(name="x", i2c=None, spi=None, cs=None, pixel_pin=None, write_pixels=None,
                 buttons={"LOCK": 1}, key=None, door=None, mcp_int=None, buzzer=None,
                 shoe_uart=None, link_uart=None, link_de=None, make_wdt=None, make_wlan=None,
                 reset_cause=1, reset_cause_name="power-on", has_fram=True, pins=())
    with pytest.raises(ValueError, match="buttons must be exactly LOCK, SETTLE"):
        base.Board(**parts)
    parts["buttons"] = dict.fromkeys(base.BUTTON_NAMES)
    parts["link_uart"] = object()
    with pytest.raises(ValueError, match="RS-485 link needs both"):
        base.Board(**parts)


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_no_gpio_is_used_twice_or_reserved(fake_machine, name):
    module = load(name)
    used = [gpio for _, gpio, _ in module.PIN_TABLE]
    assert len(used) == len(set(used)), "a GPIO appears twice in %s" % name
    clash = sorted(set(used) & set(module.RESERVED))
    assert not clash, "%s uses reserved GPIOs %s" % (name, clash)
    # Every GPIO make() configures is in the table, so the table is the whole wiring.
    module.make(rs485=True)
    built = {e[1] for e in fake_machine.log.events if e[0] in ("Pin", "PWM")}
    assert built == set(used)


# RP2040 datasheet, section 2.19.2 "Function Select" table: the GPIOs each function can use.
RP2040_I2C0_SDA = {0, 4, 8, 12, 16, 20, 24, 28}
RP2040_I2C0_SCL = {1, 5, 9, 13, 17, 21, 25, 29}
RP2040_SPI0_SCK = {2, 6, 18, 22}
RP2040_SPI0_TX = {3, 7, 19, 23}
RP2040_UART0_TX = {0, 12, 16, 28}
RP2040_UART0_RX = {1, 13, 17, 29}
RP2040_UART1_TX = {4, 8, 20, 24}
RP2040_UART1_RX = {5, 9, 21, 25}


def test_pico_w_functions_sit_on_pins_that_offer_them(fake_machine):
    pico = load("pico_w")
    assert (pico.I2C_ID, pico.SPI_ID, pico.SHOE_UART_ID, pico.LINK_UART_ID) == (0, 0, 0, 1)
    assert pico.I2C_SDA in RP2040_I2C0_SDA and pico.I2C_SCL in RP2040_I2C0_SCL
    assert pico.SPI_SCK in RP2040_SPI0_SCK and pico.SPI_MOSI in RP2040_SPI0_TX
    assert pico.SHOE_TX in RP2040_UART0_TX and pico.SHOE_RX in RP2040_UART0_RX
    assert pico.LINK_TX in RP2040_UART1_TX and pico.LINK_RX in RP2040_UART1_RX
    # The architecture's reference wiring (shared/architecture.md, "Reference hardware").
    assert (pico.I2C_SDA, pico.I2C_SCL, pico.SPI_SCK, pico.SPI_MOSI, pico.SPI_CS) == (4, 5, 18, 19, 17)
    assert pico.PIXEL_PIN == 16
    assert [pico.BUTTON_PINS[b] for b in base.BUTTON_NAMES] == [6, 7, 8, 9, 10, 11]
    assert (pico.KEY_PIN, pico.DOOR_PIN, pico.MCP_INT_PIN, pico.BUZZER_PIN) == (12, 13, 14, 15)
    assert (pico.SHOE_TX, pico.SHOE_RX, pico.LINK_DE) == (0, 1, 22)


def test_esp32_s3_spi_uses_the_fspi_io_mux_pins(fake_machine):
    # ESP32-S3 datasheet, IO MUX table: FSPICLK GPIO12, FSPID GPIO11, FSPICS0 GPIO10,
    # FSPIQ GPIO13 (left unconnected and reserved).
    s3 = load("esp32_s3")
    assert (s3.SPI_SCK, s3.SPI_MOSI, s3.SPI_CS) == (12, 11, 10)
    assert 13 in s3.RESERVED
    for strapping in (0, 3, 45, 46):
        assert strapping in s3.RESERVED


def test_esp32_s3_drives_nothing_from_the_vdd_spi_domain(fake_machine):
    # ESP32-S3 datasheet, pin list note: GPIO47 and GPIO48 (SPICLK_P/N) are powered by VDD_SPI,
    # which is 1.8 V on the chips with 1.8 V in-package PSRAM/flash (ESP32-S3R8V, R16V: the
    # DevKitC-1-N32R8V's WROOM-2 module).  A signal there swings 1.8 V on those boards, so
    # "any module variant" holds only if neither pin is wired.
    s3 = load("esp32_s3")
    used = {gpio for _, gpio, _ in s3.PIN_TABLE}
    assert not used & {47, 48}
    assert "1.8 V" in s3.RESERVED[47]


class _StuckBus:
    """An I2C bus whose part holds SDA low for `clocks` rising edges of SCL (None: for good)."""

    def __init__(self, clocks):
        self.clocks = clocks
        self.rises = 0
        self.levels = {"scl": 1, "sda": 1}
        self.trace = []         # (line, level) as driven

    def pin(self, line):
        def call(level=None):
            if level is None:
                if line == "sda" and (self.clocks is None or self.rises < self.clocks):
                    return 0
                return self.levels[line]
            if line == "scl" and level and not self.levels["scl"]:
                self.rises += 1
            self.levels[line] = level
            self.trace.append((line, level))
            return None
        return call


@pytest.mark.parametrize("clocks", [0, 1, 5, 9])
def test_a_part_holding_sda_is_clocked_free_then_the_bus_gets_a_stop(clocks):
    # NXP UM10204 3.1.16: up to nine clocks free a part stopped mid-byte, then a STOP
    bus = _StuckBus(clocks)
    waited = []
    assert base.clear_i2c_bus(bus.pin("scl"), bus.pin("sda"), waited.append) is True
    assert bus.rises == clocks + 1             # the clocks SDA needed, and the STOP's SCL rise
    # a STOP: SDA rises while SCL is high, and both lines are left released
    assert bus.trace[-4:] == [("scl", 0), ("sda", 0), ("scl", 1), ("sda", 1)]
    assert set(waited) == {base.I2C_CLEAR_HALF_US}


def test_a_bus_held_for_good_gets_nine_clocks_and_is_reported_stuck():
    bus = _StuckBus(None)
    assert base.clear_i2c_bus(bus.pin("scl"), bus.pin("sda"), lambda us: None) is False
    assert bus.rises == base.I2C_CLEAR_CLOCKS + 1      # nine clocks, then the STOP's rise


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_make_frees_a_stuck_i2c_bus_before_it_builds_the_bus(fake_machine, name):
    # a reset in mid-transfer left a part holding SDA: make() clocks it free before I2C()
    module = load(name)
    fake_machine.stuck = (module.I2C_SDA, module.I2C_SCL, 4)
    module.make()
    events = fake_machine.log.events
    i2c_at = [i for i, e in enumerate(events) if e[0] == "I2C"][0]
    scl_rises = [i for i, e in enumerate(events) if e == ("drive", module.I2C_SCL, 1)]
    assert len(scl_rises) == 5 and scl_rises[-1] < i2c_at     # 4 clocks and the STOP
    od = fake_machine.Pin.OPEN_DRAIN
    assert ("Pin", module.I2C_SCL, od, fake_machine.Pin.PULL_UP, 1) in events[:i2c_at]
    assert ("Pin", module.I2C_SDA, od, fake_machine.Pin.PULL_UP, 1) in events[:i2c_at]
