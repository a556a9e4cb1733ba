"""A fake chain of MAX7219 8-digit 7-segment modules on a fake SPI bus and LOAD (CS) pin.

Like the real chip, every byte clocked on the SPI bus shifts through the chain's 16-bit
shift registers whatever the LOAD pin does; a rising edge on LOAD latches each chip's
register word.  Module 0 is the one wired to the controller, so it holds the last two bytes
clocked.  Power-on state is the chip's: shutdown (dark), no decoding, scan limit 0 (only
digit 0), intensity 0, all digits blank.

    chain = FakeMax7219Chain(modules=2)
    sign = MeterSign(chain.spi, chain.cs, lines=2)
    chain.text(0)        # what a person reads on module 0, left to right: '  1234.56'
    chain.digits(0)      # the 8 characters, leftmost first, each with '.' if its DP glows
    chain.spi.fail = True    # every write raises OSError(EIO): a port whose SPI driver reports
                             # a failed transfer (the ESP32's); nothing reaches the chain

The reading of each digit uses host_tests/fakes/segments.py, a table written from the
segment letters, independent of the driver's font, and imported when a sign is first read
(a simulated table that never reads its sign does not load it).  An unknown shape reads as
``?``.
"""

from firmware.compat import const

_REG_NOOP = const(0x00)
_REG_DECODE = const(0x09)
_REG_INTENSITY = const(0x0A)
_REG_SCAN_LIMIT = const(0x0B)
_REG_SHUTDOWN = const(0x0C)
_REG_TEST = const(0x0F)

# Code-B font of the chip (digit register values 0..15 when decoding is on).
_CODE_B = "0123456789-EHLP "


class _Chip:
    def __init__(self):
        self.digits = bytearray(8)
        self.decode = 0
        self.intensity = 0
        self.scan_limit = 0
        self.shutdown = True
        self.test = False
        self.latches = 0

    def load(self, register, value):
        self.latches += 1
        register &= 0x0F
        if 1 <= register <= 8:
            self.digits[register - 1] = value
        elif register == _REG_DECODE:
            self.decode = value
        elif register == _REG_INTENSITY:
            self.intensity = value & 0x0F
        elif register == _REG_SCAN_LIMIT:
            self.scan_limit = value & 0x07
        elif register == _REG_SHUTDOWN:
            self.shutdown = not value & 1
        elif register == _REG_TEST:
            self.test = bool(value & 1)


class _SPI:
    def __init__(self, chain):
        self._chain = chain
        self.bytes_written = 0
        self.fail = False

    def write(self, buf):
        if self.fail:
            raise OSError(5)
        chain = self._chain
        for i in range(len(buf)):
            chain._shift(buf[i])
        self.bytes_written += len(buf)

    def init(self, *args, **kwargs):
        pass


class _LoadPin:
    def __init__(self, chain):
        self._chain = chain
        self._level = 1
        self.rises = 0

    def value(self, level=None):
        if level is None:
            return self._level
        level = 1 if level else 0
        if level and not self._level:
            self.rises += 1
            self._chain._latch()
        self._level = level
        return None

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class FakeMax7219Chain:
    """A chain of MAX7219 modules with its own SPI bus (``spi``) and LOAD pin (``cs``)."""

    def __init__(self, modules=1):
        self.modules = [_Chip() for _ in range(modules)]
        self._sr = bytearray(2 * modules)   # ring: the chain's shift registers
        self._head = 0                      # where the next byte goes
        self.clocked = 0
        self.spi = _SPI(self)
        self.cs = _LoadPin(self)

    def _shift(self, byte):
        self._sr[self._head] = byte
        self._head += 1
        if self._head == len(self._sr):
            self._head = 0
        self.clocked += 1

    def _latch(self):
        size = len(self._sr)
        for k in range(len(self.modules)):
            # Module k holds the (2k+1)th and (2k+2)th most recent bytes: register then data.
            data = self._sr[(self._head - 1 - 2 * k) % size]
            register = self._sr[(self._head - 2 - 2 * k) % size]
            self.modules[k].load(register, data)

    def digits(self, module):
        """The 8 characters module shows, leftmost first, each with '.' after it if its DP glows."""
        chip = self.modules[module]
        out = []
        for position in range(7, -1, -1):
            if chip.shutdown and not chip.test:
                out.append(" ")
                continue
            if chip.test:
                out.append("8.")
                continue
            if position > chip.scan_limit:
                out.append(" ")
                continue
            value = chip.digits[position]
            if chip.decode >> position & 1:
                char = _CODE_B[value & 0x0F]
            else:
                from host_tests.fakes.segments import BY_SHAPE

                char = BY_SHAPE.get(value & 0x7F, "?")
            out.append(char + "." if value & 0x80 else char)
        return out

    def text(self, module):
        """What a person reads on the module, left to right (8 characters plus decimal points)."""
        return "".join(self.digits(module))

    def lit(self, module):
        """True if any segment of the module glows."""
        return self.text(module).strip() != ""
