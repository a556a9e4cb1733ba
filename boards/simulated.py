"""The simulated table: the reference board's parts as wire-level fakes (the embedded default).

    table = make(state_dir)        # every part of the Pico W board, faked at the wire
    table.board                    # the base.Board the app is given
    table.mcp.cover(pin)           # a chip on bet spot `pin` (0..6 jackpot, 7..13 Ante)
    table.buttons["LOCK"].press()  # the dealer's panel, key switch, door
    table.shoe.inject(b"S3 As\\n")  # the card-reading shoe
    table.strip, table.chain, table.oled, table.pwm   # what a person sees and hears

The FRAM image lives in ``state_dir/fram.bin`` and the flash files in ``state_dir`` itself,
so a simulated table keeps its pool and meters across restarts, like the real one across a
power cut.  ``state_dir=None`` keeps everything in memory.  No ``machine`` is imported.
"""

import os

from boards import base
from host_tests.fakes.i2c import FakeI2C
from host_tests.fakes.max7219 import FakeMax7219Chain
from host_tests.fakes.mcp23017 import FakeMCP23017
from host_tests.fakes.pins import FakePin, FakePWM, FakeUART, FakeWDT
from host_tests.fakes.ssd1306 import FakeSSD1306
from host_tests.fakes.ws2812 import FakeWS2812

NAME = "simulated"
FRAM_SIZE = 32768
FRAM_IMAGE = "fram.bin"
FLASH_DIR = "flash"


class FileFRAM:
    """An MB85RC256V model for FakeI2C: 16-bit memory addresses, bytes stored as they arrive,
    the whole image kept in a file (written through) when a path is given."""

    def __init__(self, path=None, size=FRAM_SIZE):
        self.path = path
        self.memory = bytearray(size)
        if path and os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            self.memory[:len(data)] = data[:size]

    def i2c_write(self, buf, memaddr=None, addrsize=8):
        if memaddr is None:
            memaddr = (buf[0] << 8) | buf[1]
            buf = buf[2:]
        size = len(self.memory)
        for i in range(len(buf)):
            self.memory[(memaddr + i) % size] = buf[i]
        if self.path:
            with open(self.path, "wb") as f:
                f.write(self.memory)

    def i2c_read(self, buf, memaddr=None, addrsize=8):
        size = len(self.memory)
        start = memaddr or 0
        for i in range(len(buf)):
            buf[i] = self.memory[(start + i) % size]


class SimulatedTable:
    """The fakes of one table and the board record built on them."""

    def __init__(self, state_dir=None):
        self.state_dir = state_dir
        self.flash_dir = None
        fram_path = None
        if state_dir:
            self.flash_dir = os.path.join(state_dir, FLASH_DIR)
            os.makedirs(self.flash_dir, exist_ok=True)
            fram_path = os.path.join(state_dir, FRAM_IMAGE)
        self.i2c = FakeI2C()
        self.mcp = self.i2c.attach(base.MCP23017_ADDR, FakeMCP23017())
        self.oled = self.i2c.attach(base.OLED_ADDR, FakeSSD1306())
        self.fram = self.i2c.attach(base.FRAM_ADDR, FileFRAM(fram_path))
        self.chain = FakeMax7219Chain(modules=base.METER_MODULES)
        self.strip = FakeWS2812(pixels=base.PIXEL_COUNT, per_seat=base.PIXELS_PER_SEAT)
        self.buttons = {name: FakePin(1) for name in base.BUTTON_NAMES}
        self.key = FakePin(1)
        # The door switch is closed (reads 0) while the door is shut, as on the real board.
        self.door = FakePin(0)
        self.pwm = FakePWM()
        self.shoe = FakeUART()
        self.wdt = None
        self.board = base.Board(
            name=NAME, i2c=self.i2c, spi=self.chain.spi, cs=self.chain.cs, pixel_pin=None,
            write_pixels=self.strip.write, buttons=self.buttons, key=self.key, door=self.door,
            mcp_int=FakePin(1), buzzer=self.pwm, shoe_uart=self.shoe, link_uart=None,
            link_de=None, make_wdt=self._make_wdt, make_wlan=None, reset_cause=0,
            reset_cause_name="power-on", has_fram=True, pins={},
        )

    def _make_wdt(self, timeout_ms):
        self.wdt = FakeWDT(timeout_ms)
        return self.wdt

    def open_door(self, opened=True):
        """Open (or shut) the logic door."""
        self.door.level = 1 if opened else 0


def make(state_dir=None):
    """A simulated table whose critical memory lives in state_dir (None: in memory only)."""
    return SimulatedTable(state_dir)
