"""The USB serial console as a service port: stdin polled without blocking, replies to stdout.

Its own module so the board can watch the console from boot without loading the service
protocol (firmware.service) until a technician actually types.
"""


class ConsolePort:
    """A service port (any, readinto, write) on stdin and stdout, or the streams given."""

    def __init__(self, stdin=None, stdout=None):
        import select
        import sys
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self._in = getattr(self.stdin, "buffer", self.stdin)
        self._out = getattr(self.stdout, "buffer", self.stdout)
        self.poller = select.poll()
        self.poller.register(self.stdin, select.POLLIN)
        self._ipoll = getattr(self.poller, "ipoll", None)
        # looked up once: a bound method made at each write allocates, and a reply written
        # when the heap is full must not (firmware.service.NO_HEAP_REPLY)
        self._flush = getattr(self._out, "flush", None)

    def any(self):
        """1 when a byte is waiting, else 0 (allocates nothing on MicroPython: ipoll)."""
        if self._ipoll is not None:
            for _ in self._ipoll(0):
                return 1
            return 0
        return 1 if self.poller.poll(0) else 0

    def readinto(self, buf):
        """Read one waiting byte into buf[0]; returns 1, or 0 at end of input."""
        data = self._in.read(1)
        if not data:
            return 0
        b = data[0]
        buf[0] = b if isinstance(b, int) else ord(b)   # a text stdin (no .buffer) gives str
        return 1

    def write(self, data):
        self._out.write(data if self._out is not self.stdout else data.decode())
        if self._flush is not None:
            self._flush()
