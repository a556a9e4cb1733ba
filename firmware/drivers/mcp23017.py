"""MCP23017 16-bit I/O expander over I2C, used as 16 sensor inputs.

    chip = MCP23017(i2c, address=0x20)
    chip.configure()            # all 16 pins inputs, pull-ups on, inputs inverted, IRQ on change
    bits = chip.read()          # 16-bit int, bit n = pin n (GPA0..7 = bits 0..7, GPB0..7 = 8..15)
                                # or -1 if the bus failed (chip.errors counts failures)
    ok = chip.check()           # re-reads the configuration; False (and reconfigures) if it changed

The registers are addressed in the default IOCON.BANK=0 layout, where A/B pairs sit next to
each other, so one sequential read of GPIOA returns GPIOA then GPIOB.  With inversion on
(IPOL), a sensor that pulls its pin low (active low, covered) reads as a 1 bit.

Bus failure handling: ``read`` never raises for a bus error.  A NACK or timeout (OSError)
returns -1.  A shorted or glitched bus may not NACK and instead read plausible-looking
zeros, so every read also fetches the output latches (OLAT, next to GPIO), which
``configure`` set to a signature the pins never use (all pins are inputs, so the latches
drive nothing): a read whose signature is wrong (a short, or a chip reset by a glitch,
which clears OLAT) returns -1 and the chip is checked and reconfigured on the spot.
``check`` compares the direction, polarity, interrupt and pull-up registers with what was
written; call it every second or so.  The configuration is written so that it also undoes a
glitch that set IOCON.BANK (which moves every register).  Neither allocates, but for the
OSError of a bus error (an exception object on MicroPython): a chip that fails three reads in a
row is missing, and is asked again once in 50 reads (a second of the app's 20 ms passes), its
reads -1 and ``check`` False meanwhile without a transfer.  One glitch, or two, is tried again
at the next read.
"""

from firmware.compat import const

_ADDRESS = const(0x20)

# Register addresses with IOCON.BANK = 0 (A and B interleaved).
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
_IOCON = const(0x0A)
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

_IOCON_BANK1 = const(0x05)       # IOCON's address when IOCON.BANK = 1

# IOCON bits.
_IOCON_BANK = const(0x80)
_IOCON_MIRROR = const(0x40)
_IOCON_SEQOP = const(0x20)
_IOCON_ODR = const(0x04)
_IOCON_INTPOL = const(0x02)

# Written to OLATA/OLATB and checked on every read (never 0x00 or 0xFF, the levels of a short).
_SIGNATURE_A = const(0xA5)
_SIGNATURE_B = const(0x5A)

# The block of configuration registers re-read by check(): IODIRA .. GPPUB.
_CHECK_FIRST = const(_IODIRA)
_CHECK_COUNT = const(14)
_ALL_PINS = const(0xFFFF)

# Failed reads in a row past which the chip is missing (the bus tried at reads 0.._MISSING),
# then tried again once in _RETRY reads: a NACK raises an OSError, allocated on MicroPython,
# at every pass of the loop otherwise
_MISSING = const(2)
_RETRY = const(50)


class MCP23017:
    """Sixteen inputs of one MCP23017; the I2C bus object is given (machine.I2C or a fake)."""

    def __init__(self, i2c, address=_ADDRESS):
        if not isinstance(address, int) or address < 0x20 or address > 0x27:
            raise ValueError("MCP23017 address must be 0x20..0x27, got %r" % (address,))
        self._i2c = i2c
        self.address = address
        self._pair = bytearray(2)
        self._quad = bytearray(4)
        self._signature = bytearray((_SIGNATURE_A, _SIGNATURE_B))
        self._one = bytearray(1)
        self._config = bytearray(_CHECK_COUNT)
        self._expected = bytearray(_CHECK_COUNT)
        self.errors = 0
        self.reconfigured = 0
        # bus errors in a row (0.._MISSING); past _MISSING it counts the reads to the next try
        self._failed_reads = 0

    def configure(self, pullups=_ALL_PINS, invert=_ALL_PINS, interrupts=_ALL_PINS):
        """Make all 16 pins inputs with the given pull-up, inversion and change-interrupt masks.

        INTA and INTB are mirrored onto one pin (open drain, active low) so one MCU pin
        (GP14 on the Pico board) sees any change.  Raises OSError if the chip does not answer.
        """
        for name, mask in (("pullups", pullups), ("invert", invert), ("interrupts", interrupts)):
            if not isinstance(mask, int) or mask < 0 or mask > _ALL_PINS:
                raise ValueError("%s must be a 16-bit mask, got %r" % (name, mask))
        expected = self._expected
        for i in range(_CHECK_COUNT):
            expected[i] = 0
        expected[_IODIRA] = 0xFF
        expected[_IODIRB] = 0xFF
        expected[_IPOLA] = invert & 0xFF
        expected[_IPOLB] = invert >> 8
        expected[_GPINTENA] = interrupts & 0xFF
        expected[_GPINTENB] = interrupts >> 8
        # INTCON = 0: interrupt on any change from the previous value (DEFVAL unused).
        expected[_IOCON] = _IOCON_MIRROR | _IOCON_ODR
        expected[_IOCON + 1] = _IOCON_MIRROR | _IOCON_ODR
        expected[_GPPUA] = pullups & 0xFF
        expected[_GPPUB] = pullups >> 8
        self._write_config()

    def _write_config(self):
        # IOCON first so the sequential layout (BANK=0) is known before the block write.  A
        # glitch may have set IOCON.BANK, which puts IOCON at 0x05 (GPINTENB with BANK=0,
        # rewritten by the block below): a 0 written there clears it whichever layout holds.
        self._one[0] = 0
        self._i2c.writeto_mem(self.address, _IOCON_BANK1, self._one)
        self._one[0] = self._expected[_IOCON]
        self._i2c.writeto_mem(self.address, _IOCON, self._one)
        self._i2c.writeto_mem(self.address, _CHECK_FIRST, self._expected)
        self._i2c.writeto_mem(self.address, _OLATA, self._signature)

    def read(self):
        """Return the 16 input bits (GPIOA low byte, GPIOB high byte), or -1 if the read failed."""
        quad = self._quad
        failed = self._failed_reads
        if failed > _MISSING:       # missing: not asked again before its turn
            self._failed_reads = failed + 1 if failed < _MISSING + _RETRY - 1 else _MISSING
            return -1
        try:
            self._i2c.readfrom_mem_into(self.address, _GPIOA, quad)
        except OSError:
            self.errors += 1
            self._failed_reads = failed + 1
            return -1
        self._failed_reads = 0
        if quad[2] != _SIGNATURE_A or quad[3] != _SIGNATURE_B:
            self.errors += 1
            self.check()
            return -1
        return quad[0] | (quad[1] << 8)

    def check(self):
        """Return True if the chip still holds its configuration.

        On a mismatch (chip reset by a glitch, shorted or floating bus) or a bus error it
        tries to write the configuration again, counts it in ``reconfigured`` and returns False.
        A missing chip (read) is not asked: False.
        """
        if self._failed_reads >= _MISSING:
            return False
        try:
            self._i2c.readfrom_mem_into(self.address, _CHECK_FIRST, self._config)
        except OSError:
            self.errors += 1
            return False
        if self._config == self._expected:
            return True
        self.reconfigured += 1
        try:
            self._write_config()
        except OSError:
            self.errors += 1
        return False

    def captured(self):
        """Return the pins as captured at the last interrupt (INTCAP; reading clears the IRQ), or -1."""
        try:
            self._i2c.readfrom_mem_into(self.address, _INTCAPA, self._pair)
        except OSError:
            self.errors += 1
            return -1
        return self._pair[0] | (self._pair[1] << 8)
