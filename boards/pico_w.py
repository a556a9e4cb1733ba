"""Raspberry Pi Pico W (RP2040): the pin map and the construction of its buses and pins.

docs/wiring.md shows the same table for the technician; a test checks that the two agree.
"""

import time

import machine

from boards import base

NAME = "pico_w"
ARCH = "armv6m"        # mpy-cross target for the RP2040's Cortex-M0+
HAS_FRAM = True

# I2C0: MCP23017 sensor expander, MB85RC256V FRAM, SSD1306 OLED.
I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5

# SPI0: the MAX7219 meter-sign chain (write only).
SPI_ID = 0
SPI_SCK = 18
SPI_MOSI = 19
SPI_CS = 17

PIXEL_PIN = 16          # WS2812 data in (7 rings of 8)

BUTTON_LOCK = 6
BUTTON_SETTLE = 7
BUTTON_UP = 8
BUTTON_DOWN = 9
BUTTON_OK = 10
BUTTON_BACK = 11
KEY_PIN = 12            # supervisor key switch
DOOR_PIN = 13           # logic-door switch
MCP_INT_PIN = 14        # MCP23017 INTA (open drain, active low)
BUZZER_PIN = 15         # PWM to a piezo buzzer driver

# UART0: card-reading shoe.
SHOE_UART_ID = 0
SHOE_TX = 0
SHOE_RX = 1

# UART1 + driver enable: the RS-485 link (when the link is not Wi-Fi).
LINK_UART_ID = 1
LINK_TX = 20
LINK_RX = 21
LINK_DE = 22

# GPIOs the board itself uses: the Pico W's CYW43 wireless chip sits on GP23 (power),
# GP24 (data), GP25 (chip select) and GP29 (clock); GP26..GP28 are left for analog use.
RESERVED = {
    23: "CYW43 wireless power (WL_ON)",
    24: "CYW43 wireless data",
    25: "CYW43 wireless chip select",
    29: "CYW43 wireless clock",
}

# The RP2040 watchdog counts 24 bits of microseconds: at most 8388 ms.
WDT_MIN_MS = 1
WDT_MAX_MS = 8388

# machine.reset() on rp2 reboots through the watchdog (pico-sdk watchdog_reboot), so
# machine.reset_cause() says WDT_RESET after every commanded reboot too: mpremote's reset at
# the end of a deploy, the reboot after picotool or UF2 flashing.  A watchdog the program
# started (machine.WDT: watchdog_enable) leaves a magic word in the watchdog's SCRATCH4
# register, which watchdog_reboot overwrites (0, or its reboot-to-address word) and a power-on
# clears: only a watchdog reset with that word is a timeout.  RP2040 datasheet 4.7.6: the
# watchdog's registers at 0x40058000 (CTRL, whose ENABLE bit tools/deploy.py clears before it
# installs a program), SCRATCH4 at offset 0x1c.
WATCHDOG_CTRL = 0x40058000
WATCHDOG_SCRATCH4 = WATCHDOG_CTRL + 0x1C
WATCHDOG_ENABLED_MAGIC = 0x6AB73121     # pico-sdk watchdog.c WATCHDOG_NON_REBOOT_MAGIC
HARD_RESET = 2                          # machine.HARD_RESET's value where a port defines it

BUTTON_PINS = {
    "LOCK": BUTTON_LOCK,
    "SETTLE": BUTTON_SETTLE,
    "UP": BUTTON_UP,
    "DOWN": BUTTON_DOWN,
    "OK": BUTTON_OK,
    "BACK": BUTTON_BACK,
}

# (signal, GPIO, what it connects to): the table docs/wiring.md must reproduce.
PIN_TABLE = (
    ("I2C0 SDA", I2C_SDA, "MCP23017 SDA, MB85RC256V SDA, SSD1306 SDA"),
    ("I2C0 SCL", I2C_SCL, "MCP23017 SCL, MB85RC256V SCL, SSD1306 SCL"),
    ("SPI0 SCK", SPI_SCK, "MAX7219 CLK (first module)"),
    ("SPI0 MOSI", SPI_MOSI, "MAX7219 DIN (first module)"),
    ("MAX7219 CS", SPI_CS, "MAX7219 CS/LOAD (all modules)"),
    ("WS2812 DIN", PIXEL_PIN, "first ring's DIN, through a 3.3 V to 5 V level shifter"),
    ("Button LOCK", BUTTON_LOCK, "LOCK button to GND"),
    ("Button SETTLE", BUTTON_SETTLE, "SETTLE button to GND"),
    ("Button UP", BUTTON_UP, "UP button to GND"),
    ("Button DOWN", BUTTON_DOWN, "DOWN button to GND"),
    ("Button OK", BUTTON_OK, "OK button to GND"),
    ("Button BACK", BUTTON_BACK, "BACK button to GND"),
    ("Key switch", KEY_PIN, "supervisor key switch to GND"),
    ("Logic door", DOOR_PIN, "door switch to GND (closed while the door is shut)"),
    ("MCP23017 INT", MCP_INT_PIN, "MCP23017 INTA"),
    ("Buzzer", BUZZER_PIN, "buzzer driver transistor base (through 1 kOhm)"),
    ("Shoe TX", SHOE_TX, "shoe RX"),
    ("Shoe RX", SHOE_RX, "shoe TX"),
    ("RS-485 TX", LINK_TX, "transceiver DI"),
    ("RS-485 RX", LINK_RX, "transceiver RO"),
    ("RS-485 DE", LINK_DE, "transceiver DE and /RE"),
)


def _make_wdt(timeout_ms):
    """Start the hardware watchdog with timeout_ms (ValueError outside 1..8388 ms)."""
    return machine.WDT(timeout=base.check_wdt_timeout(timeout_ms, WDT_MIN_MS, WDT_MAX_MS))


def reset_cause():
    """(code, name) of the last reset: machine.reset_cause(), with a commanded reboot that rp2
    reports as WDT_RESET told apart from a watchdog timeout (HARD_RESET, "hard reset"), and a
    soft reset from the chip's reset before it (base.soft_reset_cause)."""
    soft = base.soft_reset_cause(time.ticks_ms(), machine)
    if soft is not None:
        return soft
    cause = machine.reset_cause()
    if cause == machine.WDT_RESET and machine.mem32[WATCHDOG_SCRATCH4] != WATCHDOG_ENABLED_MAGIC:
        return HARD_RESET, "hard reset"
    return cause, base.reset_cause_name(cause, machine)


def _make_wlan():
    """The Wi-Fi station interface (network is imported only when the link uses it)."""
    import network
    return network.WLAN(network.STA_IF)


def _clear_i2c():
    """Free the I2C bus a part may hold after a reset in mid-transfer (base.clear_i2c_bus)."""
    pin = machine.Pin
    scl = pin(I2C_SCL, pin.OPEN_DRAIN, pin.PULL_UP, value=1)
    sda = pin(I2C_SDA, pin.OPEN_DRAIN, pin.PULL_UP, value=1)
    return base.clear_i2c_bus(scl, sda, time.sleep_us)


def make(rs485=False, has_fram=HAS_FRAM):
    """Construct every bus and pin of the Pico W and return them as a base.Board.

    rs485: the jackpot link runs on UART1 with GP22 as driver enable instead of Wi-Fi.
    has_fram: False for a unit built without the FRAM (critical memory then keeps two
    logical copies in flash and says so at boot).
    """
    _clear_i2c()
    i2c = machine.I2C(I2C_ID, scl=machine.Pin(I2C_SCL), sda=machine.Pin(I2C_SDA), freq=base.I2C_FREQ)
    # The RP2040 SPI driver always claims a MISO pin, GP16 by default on SPI0, although the
    # MAX7219 chain is write only.  GP16 is the WS2812 line: the pixel pin is configured after
    # the bus, which hands GP16 back to plain GPIO output.
    spi = machine.SPI(SPI_ID, baudrate=base.SPI_BAUD, polarity=0, phase=0,
                      sck=machine.Pin(SPI_SCK), mosi=machine.Pin(SPI_MOSI))
    cs = machine.Pin(SPI_CS, machine.Pin.OUT, value=1)
    pixel_pin = machine.Pin(PIXEL_PIN, machine.Pin.OUT, value=0)

    def write_pixels(buf):
        """Send GRB bytes (3 per pixel) down the WS2812 chain."""
        machine.bitstream(pixel_pin, 0, base.WS2812_TIMING_NS, buf)

    buttons = {}
    for label in base.BUTTON_NAMES:
        buttons[label] = machine.Pin(BUTTON_PINS[label], machine.Pin.IN, machine.Pin.PULL_UP)
    key = machine.Pin(KEY_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    door = machine.Pin(DOOR_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    mcp_int = machine.Pin(MCP_INT_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    buzzer = machine.PWM(machine.Pin(BUZZER_PIN), freq=base.BUZZER_FREQ, duty_u16=0)
    # RX pulled up: with no shoe (or one switched off) the line idles instead of reading a
    # break, which would come in as a NUL byte and a "partial line" at every boot
    shoe_rx = machine.Pin(SHOE_RX, machine.Pin.IN, machine.Pin.PULL_UP)
    shoe_uart = machine.UART(SHOE_UART_ID, baudrate=base.SHOE_BAUD, tx=machine.Pin(SHOE_TX),
                             rx=shoe_rx, rxbuf=base.SHOE_RXBUF, timeout=0)
    link_uart = None
    link_de = None
    if rs485:
        link_de = machine.Pin(LINK_DE, machine.Pin.OUT, value=0)   # receive until we talk
        link_uart = machine.UART(LINK_UART_ID, baudrate=base.LINK_BAUD, tx=machine.Pin(LINK_TX),
                                 rx=machine.Pin(LINK_RX), rxbuf=512, timeout=0)
    cause, cause_name = reset_cause()
    return base.Board(
        name=NAME, i2c=i2c, spi=spi, cs=cs, pixel_pin=pixel_pin, write_pixels=write_pixels,
        buttons=buttons, key=key, door=door, mcp_int=mcp_int, buzzer=buzzer,
        shoe_uart=shoe_uart, link_uart=link_uart, link_de=link_de,
        make_wdt=_make_wdt, make_wlan=_make_wlan, reset_cause=cause,
        reset_cause_name=cause_name, has_fram=has_fram,
        pins=PIN_TABLE,
    )
