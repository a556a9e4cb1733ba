"""What every board hands the app: the parts list shared by all boards and a plain record of
the constructed buses and pins.

This module does not import ``machine``: the board modules (``pico_w``, ``esp32_s3``) build
the objects and pass them in, so the record and its checks also run on the host.
"""

# The parts on the table, the same on every board (docs/wiring.md lists them).
SEATS = 7
PIXELS_PER_SEAT = 8                    # one WS2812 ring of 8 pixels per seat
PIXEL_COUNT = SEATS * PIXELS_PER_SEAT  # 56 pixels on one data line
METER_MODULES = 2                      # MAX7219 8-digit modules in the chain: one line per pool
BUTTON_NAMES = ("LOCK", "SETTLE", "UP", "DOWN", "OK", "BACK")

# I2C addresses (7-bit) with the address pins as wired in docs/wiring.md.
MCP23017_ADDR = 0x20   # A2 A1 A0 to GND
FRAM_ADDR = 0x50       # MB85RC256V, A2 A1 A0 to GND
OLED_ADDR = 0x3C       # SSD1306 128x64, SA0 to GND

# Bus speeds.
I2C_FREQ = 400000      # all three I2C parts are rated for 400 kHz fast mode
SPI_BAUD = 5000000     # MAX7219 is rated to 10 MHz; half that leaves margin on a long chain
SHOE_BAUD = 9600       # card-reading shoe line protocol
SHOE_RXBUF = 512       # the shoe UART's receive buffer, bytes: 0.5 s of a shoe sending nonstop
LINK_BAUD = 115200     # RS-485 link to the jackpot controller
BUZZER_FREQ = 2700     # resonance of a typical piezo buzzer, loudest for the current

# I2C bus clear (NXP UM10204 3.1.16): a part reset in mid-transfer is not, and one the MCU
# stopped mid-byte (watchdog, soft reset) can hold SDA low until it has clocked its byte out.
I2C_CLEAR_CLOCKS = 9   # the most clocks a part stuck mid-byte needs to let SDA go
I2C_CLEAR_HALF_US = 5  # half a 100 kHz clock: slow enough for every part on the bus

# Input levels: every switch has a pull-up and closes to ground.
BUTTON_PRESSED_LEVEL = 0
KEY_ON_LEVEL = 0
DOOR_OPEN_LEVEL = 1     # the switch is closed while the door is shut, so a cut wire reads "open"
MCP_INT_ACTIVE_LEVEL = 0

# WS2812 bit timing for machine.bitstream encoding 0, in ns: (T0H, T0L, T1H, T1L) per the
# WS2812B datasheet (0.4/0.85 us for a 0 bit, 0.8/0.45 us for a 1 bit: 800 kHz).
WS2812_TIMING_NS = (400, 850, 800, 450)

# machine's reset-cause constant names and what the event log calls them.  Ports define
# different subsets (the RP2040 has no DEEPSLEEP_RESET), so the names are looked up.
RESET_CAUSE_NAMES = (
    ("PWRON_RESET", "power-on"),
    ("HARD_RESET", "hard reset"),
    ("WDT_RESET", "watchdog"),
    ("DEEPSLEEP_RESET", "deep-sleep wake"),
    ("SOFT_RESET", "soft reset"),
)


# A soft reset (Ctrl-D at the REPL, machine.soft_reset()) starts the program again, not the
# chip: machine.reset_cause() still gives the cause of the chip's last reset (the rp2 port
# has no soft-reset cause), which the event log would record, and the dealer display show,
# a second time.  The tick count restarts at every reset of the chip, not at a soft reset:
# a board made this long after it was soft reset (the boot reaches make() within a second).
# (The count wraps after 2**30 ms, 12.4 days: a soft reset in the 10 s after is taken for the
# chip's reset.  ticks_us and ticks_cpu wrap with it, and the RTC may survive a chip reset:
# no portable count tells them apart; docs/wiring.md says so.)
SOFT_RESET_AFTER_MS = 10000
SOFT_RESET = 5                          # machine.SOFT_RESET's value where a port defines it


def soft_reset_cause(ticks_ms, machine_module):
    """(code, "soft reset") when the board is made at tick ticks_ms (time.ticks_ms()) of a
    program soft reset, else None."""
    if ticks_ms < SOFT_RESET_AFTER_MS:
        return None
    return getattr(machine_module, "SOFT_RESET", SOFT_RESET), "soft reset"


def reset_cause_name(code, machine_module):
    """Name of reset-cause code `code` using the constants `machine_module` defines."""
    for attribute, name in RESET_CAUSE_NAMES:
        value = getattr(machine_module, attribute, None)
        if value is not None and value == code:
            return name
    return "unknown (%d)" % code


def clear_i2c_bus(scl, sda, sleep_us):
    """Free the I2C bus before its driver is built: while SDA reads low, up to
    I2C_CLEAR_CLOCKS clocks on SCL, then a STOP.  scl and sda are open-drain pins released
    high (called like machine.Pin: pin() reads, pin(v) drives); True when SDA is high after,
    False when a part still holds it (the drivers then report the bus fault)."""
    half = I2C_CLEAR_HALF_US
    clocks = 0
    while not sda() and clocks < I2C_CLEAR_CLOCKS:
        scl(0)
        sleep_us(half)
        scl(1)
        sleep_us(half)
        clocks += 1
    # STOP: SDA rises while SCL is high; every part then waits for a START
    scl(0)
    sleep_us(half)
    sda(0)
    sleep_us(half)
    scl(1)
    sleep_us(half)
    sda(1)
    sleep_us(half)
    return bool(sda())


def check_wdt_timeout(timeout_ms, low, high):
    """Return timeout_ms if it is an int in [low, high], else raise ValueError naming it."""
    if not isinstance(timeout_ms, int) or isinstance(timeout_ms, bool):
        raise ValueError("watchdog timeout must be an integer of milliseconds, got %r" % (timeout_ms,))
    if timeout_ms < low or timeout_ms > high:
        raise ValueError("watchdog timeout %d ms is outside this board's range %d..%d ms"
                         % (timeout_ms, low, high))
    return timeout_ms


class Board:
    """The constructed hardware of one board, as plain attributes the app reads.

    Buses: ``i2c`` (MCP23017, FRAM, OLED), ``spi`` and ``cs`` (the MAX7219 chain).
    Pixels: ``pixel_pin`` and ``write_pixels(buf)`` (GRB bytes, 3 per pixel, to the chain).
    Panel: ``buttons`` (name -> input Pin), ``key``, ``door``, ``mcp_int``, ``buzzer`` (PWM).
    Serial: ``shoe_uart`` (its receive buffer ``shoe_rxbuf`` bytes); ``link_uart`` and
    ``link_de`` (None when the link is Wi-Fi).
    Services: ``make_wdt(timeout_ms)``, ``make_wlan()``, ``reset_cause`` (int) and
    ``reset_cause_name``.  Facts: ``name``, ``has_fram``, ``link``, the part constants above.
    Spot sensors: on the MCP23017 (the reference wiring), or, given ``spot_pins`` (input Pins
    in sensor-bit order, covered reads 0), on direct GPIO.
    """

    def __init__(self, *, name, i2c, spi, cs, pixel_pin, write_pixels, buttons, key, door,
                 mcp_int, buzzer, shoe_uart, link_uart, link_de, make_wdt, make_wlan,
                 reset_cause, reset_cause_name, has_fram, pins, spot_pins=None,
                 shoe_rxbuf=SHOE_RXBUF):
        missing = [label for label in BUTTON_NAMES if label not in buttons]
        if missing or len(buttons) != len(BUTTON_NAMES):
            raise ValueError("board %s: buttons must be exactly %s, got %s"
                             % (name, ", ".join(BUTTON_NAMES), ", ".join(sorted(buttons))))
        if (link_uart is None) != (link_de is None):
            raise ValueError("board %s: the RS-485 link needs both its UART and its DE pin" % name)
        self.name = name
        self.i2c = i2c
        self.spi = spi
        self.cs = cs
        self.pixel_pin = pixel_pin
        self.write_pixels = write_pixels
        self.buttons = buttons
        self.key = key
        self.door = door
        self.mcp_int = mcp_int
        self.buzzer = buzzer
        self.shoe_uart = shoe_uart
        self.shoe_rxbuf = shoe_rxbuf
        self.link_uart = link_uart
        self.link_de = link_de
        self.link = "wifi" if link_uart is None else "rs485"
        self.make_wdt = make_wdt
        self.make_wlan = make_wlan
        self.reset_cause = reset_cause
        self.reset_cause_name = reset_cause_name
        self.has_fram = has_fram
        self.pins = pins
        self.spot_pins = spot_pins
        self.seats = SEATS
        self.pixels_per_seat = PIXELS_PER_SEAT
        self.pixel_count = PIXEL_COUNT
        self.meter_modules = METER_MODULES
        self.mcp23017_addr = MCP23017_ADDR
        self.fram_addr = FRAM_ADDR
        self.oled_addr = OLED_ADDR
        self.button_pressed_level = BUTTON_PRESSED_LEVEL
        self.key_on_level = KEY_ON_LEVEL
        self.door_open_level = DOOR_OPEN_LEVEL
        self.mcp_int_active_level = MCP_INT_ACTIVE_LEVEL
