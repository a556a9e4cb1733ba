"""A fake I2C bus (machine.I2C's methods) that hands each transaction to a device model.

A device attached at an address implements:

    i2c_write(buf, memaddr=None, addrsize=8)   # bytes the controller sent after the address
    i2c_read(buf, memaddr=None, addrsize=8)    # fill buf with the device's reply

``memaddr`` is given for the ``*_mem`` calls (the register or memory address the driver put
first).  Nothing here allocates on the transfer paths, so drivers can be run under
``micropython.heap_lock()`` against it.

Wiring faults, as a technician would cause them:

    bus.sda_short = "low"    # SDA shorted to ground: every address "ACKs", reads are 0x00,
                             # writes never reach a device
    bus.sda_short = "high"   # SDA stuck high: nothing ACKs, every transfer raises OSError(EIO)
    bus.fail_next = 3        # the next 3 transfers NACK (OSError(EIO)), as a loose connector does

A transfer to an address with no device raises OSError(EIO), like machine.I2C on a NACK.
"""

EIO = 5


class FakeI2C:
    """Routes machine.I2C calls to attached device models."""

    def __init__(self):
        self.devices = {}
        self.sda_short = None
        self.fail_next = 0
        self.transfers = 0
        self.failures = 0
        self.wire_bytes = 0     # bytes clocked on the bus: address, memory address and data

    def attach(self, address, device):
        """Put a device model on the bus at address."""
        self.devices[address] = device
        return device

    def detach(self, address):
        """Take the device off the bus (unplugged)."""
        self.devices.pop(address, None)

    def _device(self, address):
        self.transfers += 1
        if self.fail_next > 0:
            self.fail_next -= 1
            self.failures += 1
            raise OSError(EIO)
        if self.sda_short == "high":
            self.failures += 1
            raise OSError(EIO)
        if self.sda_short == "low":
            return None
        device = self.devices.get(address)
        if device is None:
            self.failures += 1
            raise OSError(EIO)
        return device

    def scan(self):
        """Addresses that answer."""
        if self.sda_short == "high":
            return []
        if self.sda_short == "low":
            return list(range(0x08, 0x78))
        return sorted(self.devices)

    def _clock(self, data_bytes, addrsize=0):
        self.wire_bytes += 1 + addrsize // 8 + data_bytes

    def writeto(self, addr, buf, stop=True):
        self._clock(len(buf))
        device = self._device(addr)
        if device is not None:
            device.i2c_write(buf)
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        self._clock(len(buf))
        device = self._device(addr)
        if device is None:
            _zero(buf)
        else:
            device.i2c_read(buf)

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self.readfrom_into(addr, buf)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._clock(len(buf), addrsize)
        device = self._device(addr)
        if device is not None:
            device.i2c_write(buf, memaddr, addrsize)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        # the memory address is written, then a repeated start and the address again
        self._clock(len(buf) + 1, addrsize)
        device = self._device(addr)
        if device is None:
            _zero(buf)
        else:
            device.i2c_read(buf, memaddr, addrsize)

    def readfrom_mem(self, addr, memaddr, nbytes, addrsize=8):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf, addrsize)
        return bytes(buf)


def _zero(buf):
    for i in range(len(buf)):
        buf[i] = 0
