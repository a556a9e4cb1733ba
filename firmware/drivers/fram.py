"""MB85RC256V I2C FRAM (32 KB, Fujitsu/RAMXEED) on an I2C bus object.

The chip stores each byte as it arrives: no pages, no write delay, 10**12 write cycles.
A write is START, device address, two memory address bytes (high first), data bytes with the
address incrementing (wrapping at 32 KB), STOP.  The driver takes any object with MicroPython's
``machine.I2C`` memory methods (``readfrom_mem_into`` and ``writeto_mem`` with ``addrsize=16``).
"""

from firmware.compat import const

_DEFAULT_ADDRESS = const(0x50)
SIZE = const(32768)
_ADDRESS_BITS = const(16)  # memory address sent as two bytes
_CHUNK = const(256)  # bytes per I2C transaction, to bound the length of one bus transfer


class FRAM:
    """Byte-addressed access to one MB85RC256V."""

    def __init__(self, i2c, address=_DEFAULT_ADDRESS, size=SIZE):
        if address < 0x50 or address > 0x57:
            raise ValueError("FRAM I2C address 0x%02x outside 0x50..0x57" % address)
        self.i2c = i2c
        self.address = address
        self.size = size

    def _check(self, offset, length):
        if offset < 0 or length < 0 or offset + length > self.size:
            raise ValueError("FRAM range %d+%d outside 0..%d" % (offset, length, self.size))

    def present(self):
        """True if the chip answers at its address."""
        return self.address in self.i2c.scan()

    def read_into(self, offset, buf):
        """Fill buf with the bytes stored from offset."""
        self._check(offset, len(buf))
        view = memoryview(buf)
        done = 0
        while done < len(buf):
            n = min(_CHUNK, len(buf) - done)
            self.i2c.readfrom_mem_into(self.address, offset + done, view[done:done + n],
                                       addrsize=_ADDRESS_BITS)
            done += n

    def read(self, offset, length):
        """Return length bytes stored from offset."""
        buf = bytearray(length)
        self.read_into(offset, buf)
        return buf

    def write(self, offset, data):
        """Store data from offset (in transactions of at most 256 bytes)."""
        self._check(offset, len(data))
        view = memoryview(data)
        done = 0
        while done < len(data):
            n = min(_CHUNK, len(data) - done)
            self.i2c.writeto_mem(self.address, offset + done, view[done:done + n],
                                 addrsize=_ADDRESS_BITS)
            done += n
