"""Compact integer byte format: each int as a zigzag LEB128 varint (1 byte below 64).

Big ints (lifetime meters) encode the same way; a reader raises ValueError on truncated
input and on over-long varints, so a corrupt record never decodes as something else silently.
"""

from firmware.compat import const

_MAX_VARINT_BYTES = const(20)  # 140 bits: far above any meter this device can reach


class Writer:
    """Appends ints to a bytearray: a fresh one, or `buf` kept by the caller and reused from
    the start after every reset() (it is replaced by a larger one only when it fills up)."""

    def __init__(self, buf=None):
        self.kept = buf is not None
        self.buf = buf if buf is not None else bytearray()
        self.n = 0

    def reset(self):
        self.n = 0

    def byte(self, b):
        buf = self.buf
        if self.n < len(buf):
            buf[self.n] = b
        elif self.kept:
            # never resize a kept buffer: a view() handed out earlier may still point into it
            bigger = bytearray(2 * len(buf) + 16)
            bigger[:self.n] = buf
            bigger[self.n] = b
            self.buf = bigger
        else:  # a fresh writer's own bytearray grows (in place when the heap allows)
            buf.append(b)
        self.n += 1

    def raw(self, data):
        for b in data:
            self.byte(b)

    def int(self, value):
        v = (value << 1) if value >= 0 else (((-value) << 1) - 1)
        while v >= 0x80:
            self.byte((v & 0x7F) | 0x80)
            v >>= 7
        self.byte(v)

    def ints(self, values):
        for v in values:
            self.int(v)

    def view(self):
        """What was written, as a memoryview of the buffer (valid until the next reset)."""
        return memoryview(self.buf)[:self.n]

    def bytes(self):
        return bytes(self.buf[:self.n])


class Reader:
    """Reads ints back from bytes; ValueError names the position of a bad varint."""

    def __init__(self, data):
        if not isinstance(data, (bytes, bytearray)):
            raise ValueError("jackpot state must be bytes, got %r" % (type(data),))
        self.data = data
        self.pos = 0

    def int(self, what="value"):
        v = 0
        shift = 0
        start = self.pos
        while True:
            if self.pos >= len(self.data):
                raise ValueError("jackpot state truncated in %s at byte %d" % (what, start))
            b = self.data[self.pos]
            self.pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
            if self.pos - start >= _MAX_VARINT_BYTES:
                raise ValueError("jackpot state: over-long number in %s at byte %d" % (what, start))
        if b == 0 and self.pos - start > 1:
            raise ValueError("jackpot state: padded number in %s at byte %d" % (what, start))
        return (v >> 1) if not v & 1 else -((v + 1) >> 1)

    def ints(self, count, what="values"):
        return [self.int(what) for _ in range(count)]

    def end(self):
        if self.pos != len(self.data):
            raise ValueError("jackpot state: %d unexpected bytes after the end"
                             % (len(self.data) - self.pos))
