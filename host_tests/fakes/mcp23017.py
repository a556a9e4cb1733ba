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

IODIRA = 0x00
IODIRB = 0x01
IPOLA = 0x02
IPOLB = 0x03
GPINTENA = 0x04
GPINTENB = 0x05
DEFVALA = 0x06
DEFVALB = 0x07
INTCONA = 0x08
INTCONB = 0x09
IOCON_A = 0x0A
IOCON_B = 0x0B
GPPUA = 0x0C
GPPUB = 0x0D
INTFA = 0x0E
INTFB = 0x0F
INTCAPA = 0x10
INTCAPB = 0x11
GPIOA = 0x12
GPIOB = 0x13
OLATA = 0x14
OLATB = 0x15
REGISTERS = 0x16
IOCON_SEQOP = 0x20
IOCON_BANK = 0x80
READ_ONLY = (INTFA, INTFB, INTCAPA, INTCAPB)


class FakeMCP23017:
    """Registers, pins and the interrupt logic of one MCP23017."""

    def __init__(self):
        self.regs = bytearray(REGISTERS)
        self.driven = 0          # bit n: something drives pin n
        self.drive_level = 0     # level of each driven pin
        self.pointer = 0
        self.writes = 0
        self.reads = 0
        self.power_cycle()

    def power_cycle(self):
        """Power-on reset: all pins inputs, everything else zero."""
        for i in range(REGISTERS):
            self.regs[i] = 0
        self.regs[IODIRA] = 0xFF
        self.regs[IODIRB] = 0xFF
        self.pointer = 0

    def _pair(self, low_register):
        return self.regs[low_register] | (self.regs[low_register + 1] << 8)

    def levels(self):
        """The 16 pin levels as seen on the wires."""
        pullups = self._pair(GPPUA)
        outputs = ~self._pair(IODIRA) & 0xFFFF
        latch = self._pair(OLATA)
        levels = (self.drive_level & self.driven) | (pullups & ~self.driven)
        return ((levels & ~outputs) | (latch & outputs)) & 0xFFFF

    def _gpio(self):
        return (self.levels() ^ self._pair(IPOLA)) & 0xFFFF

    def _changed(self, before):
        # Interrupt-on-change: pins enabled in GPINTEN that differ from their reference
        # (DEFVAL when INTCON is set, else the previous value) set INTF and capture GPIO.
        after = self._gpio()
        enabled = self._pair(GPINTENA)
        compare = self._pair(INTCONA)
        reference = (self._pair(DEFVALA) & compare) | (before & ~compare)
        flagged = (after ^ reference) & enabled
        if flagged and not self._pair(INTFA):
            self.regs[INTFA] = flagged & 0xFF
            self.regs[INTFB] = flagged >> 8
            self.regs[INTCAPA] = after & 0xFF
            self.regs[INTCAPB] = after >> 8

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
        return bool(self._pair(INTFA))

    def _register_value(self, register):
        if register == GPIOA:
            return self._gpio() & 0xFF
        if register == GPIOB:
            return self._gpio() >> 8
        if register == IOCON_B:
            return self.regs[IOCON_A]
        return self.regs[register]

    def _clear_interrupt(self):
        self.regs[INTFA] = 0
        self.regs[INTFB] = 0

    def _start(self, address):
        return address if self.regs[IOCON_A] & IOCON_BANK else address % REGISTERS

    def _index(self, address):
        # The register (BANK = 0 number) at a bus address, or None for an unused address.
        if not self.regs[IOCON_A] & IOCON_BANK:
            return address % REGISTERS
        if address <= 0x0A:
            return 2 * address
        if 0x10 <= address <= 0x1A:
            return 2 * (address - 0x10) + 1
        return None

    def _next(self):
        if self.regs[IOCON_A] & IOCON_SEQOP:
            return
        if not self.regs[IOCON_A] & IOCON_BANK:
            self.pointer = self.pointer + 1 if self.pointer + 1 < REGISTERS else 0
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
            elif register == IOCON_A or register == IOCON_B:
                self.regs[IOCON_A] = value & 0xFE
            elif register == GPIOA or register == GPIOB:
                self.regs[register + 2] = value    # writes to GPIO go to OLAT
            elif register not in READ_ONLY:
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
            if register == GPIOA or register == GPIOB or register == INTCAPA or register == INTCAPB:
                self._clear_interrupt()
            self._next()
