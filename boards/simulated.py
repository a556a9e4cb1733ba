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
from firmware.compat import const
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
_FILL_CHUNK = const(1024)  # zeros written at a time when the FRAM file is created


def _exists(path):
    """Whether path exists (MicroPython has no os.path)."""
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _make_dir(path):
    """Create the folder path unless it exists."""
    if not _exists(path):
        os.mkdir(path)


class FileFRAM:
    """An MB85RC256V model for FakeI2C: 16-bit memory addresses, bytes stored as they arrive.

    With a path the chip's memory is that file, read and written in place (every write goes
    straight to the file, so a killed simulator keeps what was written, and the image takes no
    room in the VM's heap, as the real chip takes none on the board); without one it is a
    bytearray."""

    def __init__(self, path=None, size=FRAM_SIZE):
        self.path = path
        self.size = size
        self.memory = None
        self.file = None
        if path is None:
            self.memory = bytearray(size)
            return
        if not _exists(path):
            with open(path, "wb"):
                pass
        self.file = open(path, "r+b")
        self.file.seek(0, 2)
        have = self.file.tell()
        if have < size:  # a new or shorter image: the rest of the chip reads as zeros
            zeros = bytes(_FILL_CHUNK)
            while have < size:
                count = min(_FILL_CHUNK, size - have)
                self.file.write(zeros[:count] if count < _FILL_CHUNK else zeros)
                have += count
            self.file.flush()

    def _put(self, address, data):
        if self.file is None:
            self.memory[address:address + len(data)] = data
        else:
            self.file.seek(address)
            self.file.write(data)

    def _get(self, address, view):
        if self.file is None:
            view[:] = self.memory[address:address + len(view)]
        else:
            self.file.seek(address)
            self.file.readinto(view)

    def i2c_write(self, buf, memaddr=None, addrsize=8):
        if memaddr is None:
            memaddr = (buf[0] << 8) | buf[1]
            buf = buf[2:]
        data = memoryview(buf)
        start = memaddr % self.size
        first = min(len(data), self.size - start)  # past the top address the chip wraps to 0
        self._put(start, data[:first])
        if first < len(data):
            self._put(0, data[first:])
        if self.file is not None:
            self.file.flush()

    def i2c_read(self, buf, memaddr=None, addrsize=8):
        view = memoryview(buf)
        start = (memaddr or 0) % self.size
        first = min(len(view), self.size - start)
        self._get(start, view[:first])
        if first < len(view):
            self._get(0, view[first:])


class SimulatedTable:
    """The fakes of one table and the board record built on them."""

    def __init__(self, state_dir=None):
        self.state_dir = state_dir
        self.flash_dir = None
        fram_path = None
        if state_dir:
            self.flash_dir = state_dir.rstrip("/") + "/" + FLASH_DIR
            _make_dir(state_dir)
            _make_dir(self.flash_dir)
            fram_path = state_dir.rstrip("/") + "/" + FRAM_IMAGE
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
        self.shoe = FakeUART(fifo=base.SHOE_RXBUF)     # drops what comes when full, as a UART does
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
