"""Fake pins, UART, PWM and watchdog with machine's method names.

    FakePin(1)                # a GPIO input; set .level (or press()/release() for a button)
    FakeUART()                # inject(b"S3 As\\n") puts bytes in the receive FIFO
    FakePWM()                 # records the tones played; set .now before each tick
    FakeWDT()                 # counts feed() calls

None of the methods a driver calls per tick allocates.
"""


class FakePin:
    """An input pin whose level the test sets (buttons are active low: pressed = 0)."""

    def __init__(self, level=1):
        self.level = level
        self.reads = 0

    def value(self, level=None):
        if level is None:
            self.reads += 1
            return self.level
        self.level = 1 if level else 0
        return None

    def press(self):
        """Hold the (active-low) button down, or turn the key / open the door."""
        self.level = 0

    def release(self):
        """Let it go."""
        self.level = 1


class FakeUART:
    """The receive side of a UART: bytes injected by the test, read by the driver."""

    def __init__(self, fifo=256):
        self._fifo = bytearray(fifo)
        self._head = 0
        self._count = 0
        self.overruns = 0
        self.received = 0

    def inject(self, data):
        """Bytes arrive on RX; beyond the FIFO size they are lost (counted in overruns)."""
        size = len(self._fifo)
        for i in range(len(data)):
            if self._count == size:
                self.overruns += 1
                continue
            at = self._head + self._count
            if at >= size:
                at -= size
            self._fifo[at] = data[i]
            self._count += 1
        self.received += len(data)

    def any(self):
        return self._count

    def readinto(self, buf, nbytes=None):
        """Copy up to nbytes (or len(buf)) waiting bytes; None when nothing is waiting."""
        want = len(buf) if nbytes is None else min(nbytes, len(buf))
        if want > self._count:
            want = self._count
        if not want:
            return None
        size = len(self._fifo)
        for i in range(want):
            buf[i] = self._fifo[self._head]
            self._head += 1
            if self._head == size:
                self._head = 0
        self._count -= want
        return want

    def write(self, buf):
        return len(buf)


class FakePWM:
    """A PWM output to a buzzer; keeps a log of (time, freq, duty) changes.

    The test sets ``now`` before each driver call; ``tones()`` lists what was heard.
    """

    def __init__(self, capacity=256):
        self.now = 0
        self._freq = 1000
        self._duty = 0
        self._log = [0] * (3 * capacity)
        self._entries = 0
        self.capacity = capacity

    def freq(self, value=None):
        if value is None:
            return self._freq
        self._freq = value
        self._record()
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        self._duty = value
        self._record()
        return None

    def _record(self):
        if self._entries == self.capacity:
            return
        at = 3 * self._entries
        self._log[at] = self.now
        self._log[at + 1] = self._freq
        self._log[at + 2] = self._duty
        self._entries += 1

    def sounding(self):
        """True while the output makes a tone."""
        return self._duty > 0

    def tones(self):
        """[(start, end, freq)] of every tone heard (end None if still sounding)."""
        result = []
        start = None
        freq = 0
        for i in range(self._entries):
            t, f, d = self._log[3 * i], self._log[3 * i + 1], self._log[3 * i + 2]
            if d and start is not None and f != freq:
                result.append((start, t, freq))
                start = t
                freq = f
            elif d and start is None:
                start, freq = t, f
            elif not d and start is not None:
                result.append((start, t, freq))
                start = None
        if start is not None:
            result.append((start, None, freq))
        return result


class FakeWDT:
    """machine.WDT: counts feeds."""

    def __init__(self, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1
