"""ESP32-S3-DevKitC-1: the pin map and the construction of its buses and pins.

Pin choice.  Only GPIOs that are free on every variant of the board are used:
- not the strapping pins GPIO0 (boot mode), GPIO3 (JTAG source), GPIO45 (flash voltage) and
  GPIO46 (boot mode / ROM log): a switch or a pull-up on them can stop the chip booting;
- not GPIO26..GPIO32 (the in-package SPI flash and PSRAM) nor GPIO33..GPIO37, which the
  modules with octal flash or octal PSRAM (N8R8, N16R8, ...) also take;
- not GPIO19/GPIO20 (the native USB port) nor GPIO43/GPIO44 (UART0, the USB-to-UART bridge
  and MicroPython's console);
- not GPIO38 or GPIO48 (the on-board RGB LED, on GPIO38 from board v1.1, GPIO48 before);
- not GPIO47 (nor GPIO48): they are powered by VDD_SPI, which is 1.8 V on the chips with
  1.8 V in-package flash/PSRAM (ESP32-S3R8V/R16V, e.g. the DevKitC-1-N32R8V), so a signal
  there would swing 1.8 V on those boards;
- GPIO13 is left unconnected: it is the default MISO of the SPI host that drives the
  write-only MAX7219 chain, and the driver may claim it.
GPIO39..GPIO42 are the pad JTAG pins; with the built-in USB-JTAG (the default) they are plain
GPIO, so the buzzer and the RS-485 link use them.
"""

import time

import machine

from boards import base

NAME = "esp32_s3"
ARCH = "xtensawin"     # mpy-cross target for the Xtensa LX7 with windowed registers
HAS_FRAM = True

# I2C0: MCP23017 sensor expander, MB85RC256V FRAM, SSD1306 OLED.
I2C_ID = 0
I2C_SDA = 8
I2C_SCL = 9

# SPI(1) is the chip's SPI2 (FSPI) host; these are its IO-MUX pins.
SPI_ID = 1
SPI_SCK = 12
SPI_MOSI = 11
SPI_CS = 10

PIXEL_PIN = 14          # WS2812 data in (7 rings of 8)

BUTTON_LOCK = 4
BUTTON_SETTLE = 5
BUTTON_UP = 6
BUTTON_DOWN = 7
BUTTON_OK = 15
BUTTON_BACK = 16
KEY_PIN = 17            # supervisor key switch
DOOR_PIN = 18           # logic-door switch
MCP_INT_PIN = 21        # MCP23017 INTA (open drain, active low)
BUZZER_PIN = 39         # PWM (LEDC) to a piezo buzzer driver

# UART1: card-reading shoe.
SHOE_UART_ID = 1
SHOE_TX = 1
SHOE_RX = 2

# UART2 + driver enable: the RS-485 link (when the link is not Wi-Fi).
LINK_UART_ID = 2
LINK_TX = 40
LINK_RX = 41
LINK_DE = 42

RESERVED = {
    0: "strapping pin: boot mode (BOOT button)",
    3: "strapping pin: JTAG signal source",
    45: "strapping pin: flash voltage (VDD_SPI)",
    46: "strapping pin: boot mode and ROM messages",
    13: "default MISO of the SPI host, left unconnected",
    19: "native USB D-",
    20: "native USB D+",
    26: "in-package SPI flash/PSRAM (SPICS1)",
    27: "in-package SPI flash/PSRAM (SPIHD)",
    28: "in-package SPI flash/PSRAM (SPIWP)",
    29: "in-package SPI flash/PSRAM (SPICS0)",
    30: "in-package SPI flash/PSRAM (SPICLK)",
    31: "in-package SPI flash/PSRAM (SPIQ)",
    32: "in-package SPI flash/PSRAM (SPID)",
    33: "octal flash/PSRAM (SPIIO4)",
    34: "octal flash/PSRAM (SPIIO5)",
    35: "octal flash/PSRAM (SPIIO6)",
    36: "octal flash/PSRAM (SPIIO7)",
    37: "octal flash/PSRAM (SPIDQS)",
    38: "on-board RGB LED (board v1.1)",
    43: "UART0 TX: USB-to-UART bridge, MicroPython console",
    44: "UART0 RX: USB-to-UART bridge, MicroPython console",
    47: "VDD_SPI domain: 1.8 V on modules with 1.8 V flash/PSRAM (N32R8V)",
    48: "on-board RGB LED (board v1.0)",
}

# MicroPython's ESP32 watchdog accepts no less than one second; an hour is far beyond use.
WDT_MIN_MS = 1000
WDT_MAX_MS = 3600000

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
    ("SPI2 SCK", SPI_SCK, "MAX7219 CLK (first module)"),
    ("SPI2 MOSI", SPI_MOSI, "MAX7219 DIN (first module)"),
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
    """Start the watchdog with timeout_ms (ValueError outside 1000..3600000 ms)."""
    return machine.WDT(timeout=base.check_wdt_timeout(timeout_ms, WDT_MIN_MS, WDT_MAX_MS))


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
    """Construct every bus and pin of the ESP32-S3-DevKitC-1 and return them as a base.Board.

    rs485: the jackpot link runs on UART2 with GPIO42 as driver enable instead of Wi-Fi.
    has_fram: False for a unit built without the FRAM.
    """
    _clear_i2c()
    i2c = machine.I2C(I2C_ID, scl=machine.Pin(I2C_SCL), sda=machine.Pin(I2C_SDA), freq=base.I2C_FREQ)
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
    cause = machine.reset_cause()
    cause, cause_name = (base.soft_reset_cause(time.ticks_ms(), machine)
                         or (cause, base.reset_cause_name(cause, machine)))
    return base.Board(
        name=NAME, i2c=i2c, spi=spi, cs=cs, pixel_pin=pixel_pin, write_pixels=write_pixels,
        buttons=buttons, key=key, door=door, mcp_int=mcp_int, buzzer=buzzer,
        shoe_uart=shoe_uart, link_uart=link_uart, link_de=link_de,
        make_wdt=_make_wdt, make_wlan=_make_wlan, reset_cause=cause,
        reset_cause_name=cause_name, has_fram=has_fram,
        pins=PIN_TABLE,
    )
