"""A register model of the MCP23017 I/O expander, for FakeI2C.

The registers are kept in the IOCON.BANK = 0 layout (A and B interleaved, the power-on
layout); with IOCON.BANK set the bus addresses map as the datasheet's BANK = 1 table (port A
at 0x00..0x0A, IOCON at 0x05 and 0x15, port B at 0x10..0x1A; other addresses read 0 and
ignore writes), and a sequential access steps through those addresses.

The outside world is 16 pin levels.  A bet-spot sensor pulls its pin low when covered;
when uncovered the pin is high only if the chip's pull-up for it is enabled (GPPU), and
otherwise it floats, which this model reads as low.

    chip = bus.attach(0x20, FakeMCP23017())
    chip.cover(3); chip.uncover(3)         # a chip put on / taken off the spot on pin 3
    chip.set_pin(9, 0)                     # drive a pin level directly
    chip.power_cycle()                     # a brown-out: every register back to power-on values
    chip.int_active()                      # the (mirrored) INT output is asserted
"""

from firmware.compat import const

# Register addresses (IOCON.BANK = 0) and IOCON bits, private: the compiler inlines them.
_IODIRA = const(0x00)
_IODIRB = const(0x01)
_IPOLA = const(0x02)
_IPOLB = const(0x03)
_GPINTENA = const(0x04)
_GPINTENB = const(0x05)
_DEFVALA = const(0x06)
_DEFVALB = const(0x07)
_INTCONA = const(0x08)
_INTCONB = const(0x09)
_IOCON_A = const(0x0A)
_IOCON_B = const(0x0B)
_GPPUA = const(0x0C)
_GPPUB = const(0x0D)
_INTFA = const(0x0E)
_INTFB = const(0x0F)
_INTCAPA = const(0x10)
_INTCAPB = const(0x11)
_GPIOA = const(0x12)
_GPIOB = const(0x13)
_OLATA = const(0x14)
_OLATB = const(0x15)
_REGISTERS = const(0x16)
_IOCON_SEQOP = const(0x20)
_IOCON_BANK = const(0x80)


class FakeMCP23017:
    """Registers, pins and the interrupt logic of one MCP23017."""

    def __init__(self):
        self.regs = bytearray(_REGISTERS)
        self.driven = 0          # bit n: something drives pin n
        self.drive_level = 0     # level of each driven pin
        self.pointer = 0
        self.writes = 0
        self.reads = 0
        self.power_cycle()

    def power_cycle(self):
        """Power-on reset: all pins inputs, everything else zero."""
        for i in range(_REGISTERS):
            self.regs[i] = 0
        self.regs[_IODIRA] = 0xFF
        self.regs[_IODIRB] = 0xFF
        self.pointer = 0

    def _pair(self, low_register):
        return self.regs[low_register] | (self.regs[low_register + 1] << 8)

    def levels(self):
        """The 16 pin levels as seen on the wires."""
        pullups = self._pair(_GPPUA)
        outputs = ~self._pair(_IODIRA) & 0xFFFF
        latch = self._pair(_OLATA)
        levels = (self.drive_level & self.driven) | (pullups & ~self.driven)
        return ((levels & ~outputs) | (latch & outputs)) & 0xFFFF

    def _gpio(self):
        return (self.levels() ^ self._pair(_IPOLA)) & 0xFFFF

    def _changed(self, before):
        # Interrupt-on-change: pins enabled in GPINTEN that differ from their reference
        # (DEFVAL when INTCON is set, else the previous value) set INTF and capture GPIO.
        after = self._gpio()
        enabled = self._pair(_GPINTENA)
        compare = self._pair(_INTCONA)
        reference = (self._pair(_DEFVALA) & compare) | (before & ~compare)
        flagged = (after ^ reference) & enabled
        if flagged and not self._pair(_INTFA):
            self.regs[_INTFA] = flagged & 0xFF
            self.regs[_INTFB] = flagged >> 8
            self.regs[_INTCAPA] = after & 0xFF
            self.regs[_INTCAPB] = after >> 8

    def set_pin(self, pin, level):
        """Drive one pin from outside to level 0 or 1."""
        before = self._gpio()
        self.driven |= 1 << pin
        if level:
            self.drive_level |= 1 << pin
        else:
            self.drive_level &= ~(1 << pin)
        self._changed(before)

    def release_pin(self, pin):
        """Stop driving the pin (it floats, or is pulled up if GPPU is on)."""
        before = self._gpio()
        self.driven &= ~(1 << pin)
        self._changed(before)

    def cover(self, pin):
        """A chip on the spot: the sensor pulls its pin low."""
        self.set_pin(pin, 0)

    def uncover(self, pin):
        """The spot is empty again: the sensor lets go of its pin."""
        self.release_pin(pin)

    def int_active(self):
        """True while the INT output is asserted (INTA/INTB mirrored)."""
        return bool(self._pair(_INTFA))

    def _register_value(self, register):
        if register == _GPIOA:
            return self._gpio() & 0xFF
        if register == _GPIOB:
            return self._gpio() >> 8
        if register == _IOCON_B:
            return self.regs[_IOCON_A]
        return self.regs[register]

    def _clear_interrupt(self):
        self.regs[_INTFA] = 0
        self.regs[_INTFB] = 0

    def _start(self, address):
        return address if self.regs[_IOCON_A] & _IOCON_BANK else address % _REGISTERS

    def _index(self, address):
        # The register (BANK = 0 number) at a bus address, or None for an unused address.
        if not self.regs[_IOCON_A] & _IOCON_BANK:
            return address % _REGISTERS
        if address <= 0x0A:
            return 2 * address
        if 0x10 <= address <= 0x1A:
            return 2 * (address - 0x10) + 1
        return None

    def _next(self):
        if self.regs[_IOCON_A] & _IOCON_SEQOP:
            return
        if not self.regs[_IOCON_A] & _IOCON_BANK:
            self.pointer = self.pointer + 1 if self.pointer + 1 < _REGISTERS else 0
        elif self.pointer == 0x0A:
            self.pointer = 0x10
        else:
            self.pointer = self.pointer + 1 if self.pointer < 0x1A else 0

    def i2c_write(self, buf, memaddr=None, addrsize=8):
        index = 0
        if memaddr is None:
            if not len(buf):
                return
            memaddr = buf[0]
            index = 1
        self.pointer = self._start(memaddr)
        self.writes += 1
        for i in range(index, len(buf)):
            register = self._index(self.pointer)
            value = buf[i]
            if register is None:
                pass
            elif register == _IOCON_A or register == _IOCON_B:
                self.regs[_IOCON_A] = value & 0xFE
            elif register == _GPIOA or register == _GPIOB:
                self.regs[register + 2] = value    # writes to GPIO go to OLAT
            elif not _INTFA <= register <= _INTCAPB:    # INTF, INTCAP: read only
                self.regs[register] = value
            self._next()

    def i2c_read(self, buf, memaddr=None, addrsize=8):
        if memaddr is not None:
            self.pointer = self._start(memaddr)
        self.reads += 1
        for i in range(len(buf)):
            register = self._index(self.pointer)
            if register is None:
                buf[i] = 0
                self._next()
                continue
            buf[i] = self._register_value(register)
            if register == _GPIOA or register == _GPIOB or register == _INTCAPA or register == _INTCAPB:
                self._clear_interrupt()
            self._next()
