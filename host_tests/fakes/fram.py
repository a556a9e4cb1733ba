"""A fake I2C bus with an MB85RC256V FRAM on it, decoding the bytes the driver sends.

A memory write reaches the chip as the frame [address high, address low, data...]: the fake
takes the address from the first two bytes and stores each data byte as it "arrives", with
the address incrementing and wrapping at the chip size, exactly like the real part (no page
buffer).  Each stored byte spends one operation of the shared ``Supply``, so the power can
fail between any two byte writes.  After the cut the bus raises ``PowerCut`` for every call.
"""

from host_tests.fakes.flash import PowerCut, Supply

FRAM_SIZE = 32768
FRAM_ADDRESS = 0x50


class FramBus:
    """machine.I2C stand-in carrying one FRAM at `address`, backed by `memory`."""

    def __init__(self, memory=None, address=FRAM_ADDRESS, supply=None, size=FRAM_SIZE, counted=True):
        self.memory = memory if memory is not None else bytearray(size)
        self.size = len(self.memory)
        self.address = address
        self.supply = supply if supply is not None else Supply()
        self.counted = counted
        self.bytes_written = 0
        self.frames = 0

    def scan(self):
        return [self.address]

    def _device(self, addr):
        if addr != self.address:
            raise OSError(19)  # ENODEV: no ACK at this address
        if self.supply.off:
            raise PowerCut("FRAM bus without power")

    def writeto(self, addr, frame):
        """Raw write: the first two bytes are the memory address, high byte first."""
        self._device(addr)
        if len(frame) < 2:
            raise ValueError("FRAM write frame needs a 2-byte memory address, got %d bytes" % len(frame))
        self.frames += 1
        pointer = ((frame[0] << 8) | frame[1]) % self.size
        for i in range(2, len(frame)):
            state = self.supply.spend(self.counted)
            if state != "ok":
                raise PowerCut("FRAM write cut before byte %d of the frame" % (i - 2))
            self.memory[pointer] = frame[i]
            self.bytes_written += 1
            pointer = (pointer + 1) % self.size

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        if addrsize != 16:
            raise ValueError("MB85RC256V needs addrsize=16, got %r" % (addrsize,))
        self.writeto(addr, bytes((memaddr >> 8 & 0xFF, memaddr & 0xFF)) + bytes(buf))

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        if addrsize != 16:
            raise ValueError("MB85RC256V needs addrsize=16, got %r" % (addrsize,))
        self._device(addr)
        pointer = memaddr % self.size
        for i in range(len(buf)):
            buf[i] = self.memory[pointer]
            pointer = (pointer + 1) % self.size

    def readfrom_mem(self, addr, memaddr, n, addrsize=8):
        buf = bytearray(n)
        self.readfrom_mem_into(addr, memaddr, buf, addrsize)
        return bytes(buf)

    def flip(self, offset, bit):
        """Flip one stored bit (a radiation upset or a bad cell), for corruption tests."""
        self.memory[offset % self.size] ^= 1 << bit
