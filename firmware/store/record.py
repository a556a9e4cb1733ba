"""One checked copy of critical memory: header, payload, CRC-32.

Layout, little-endian::

    0  magic   2 bytes  b"CM"
    2  version 1 byte   FORMAT_VERSION
    3  flags   1 byte   0 (reserved)
    4  seq     u32      commit sequence number, +1 per commit
    8  length  u32      payload bytes
    12 payload
    .. crc     u32      CRC-32 of every byte before it

The payload is opaque here; ``pack_sections`` / ``unpack_sections`` give it a small typed
layer: named byte strings, so each module (jackpot, round controller, journal, log) owns and
encodes its own section.
"""

import struct

from firmware.compat import const
from firmware.store.crc32 import crc32
from firmware.store.errors import RecordError

MAGIC = b"CM"
FORMAT_VERSION = const(1)
HEADER_SIZE = const(12)
CRC_SIZE = const(4)
OVERHEAD = const(16)
MAX_PAYLOAD = const(0x100000)
MAX_SEQ = 0xFFFFFFFF
_HEADER = "<2sBBII"
_MAX_NAME = const(32)


def encode(seq, payload):
    """Return the bytes of one copy holding payload under sequence number seq."""
    if not isinstance(seq, int) or seq < 0 or seq > MAX_SEQ:
        raise ValueError("record seq %r is not an integer 0..2**32-1" % (seq,))
    if not isinstance(payload, (bytes, bytearray)):
        raise ValueError("record payload must be bytes, got %s" % type(payload).__name__)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("record payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    head = struct.pack(_HEADER, MAGIC, FORMAT_VERSION, 0, seq, len(payload))
    crc = crc32(payload, crc32(head))
    return head + bytes(payload) + struct.pack("<I", crc)


def total_length(header):
    """Length of the whole copy announced by a 12-byte header; RecordError if it is not a header."""
    if len(header) < HEADER_SIZE:
        raise RecordError("short: %d bytes" % len(header))
    magic, version, _flags, _seq, length = struct.unpack_from(_HEADER, header, 0)
    if magic != MAGIC:
        blank = True
        for i in range(HEADER_SIZE):
            if header[i] != header[0]:
                blank = False
                break
        if blank and header[0] in (0, 0xFF):
            raise RecordError("blank")
        raise RecordError("bad magic")
    if version != FORMAT_VERSION:
        raise RecordError("bad version %d" % version)
    if length > MAX_PAYLOAD:
        raise RecordError("bad length %d" % length)
    return HEADER_SIZE + length + CRC_SIZE


def decode(data):
    """Return (seq, payload) of a stored copy; RecordError names the first failed check."""
    if data is None or len(data) == 0:
        raise RecordError("blank")
    size = total_length(data)
    if len(data) < size:
        raise RecordError("truncated: %d of %d bytes" % (len(data), size))
    view = memoryview(data)
    (stored,) = struct.unpack_from("<I", data, size - CRC_SIZE)
    if crc32(view[:size - CRC_SIZE]) != stored:
        raise RecordError("bad crc")
    seq = struct.unpack_from("<I", data, 4)[0]
    return seq, bytes(view[HEADER_SIZE:size - CRC_SIZE])


def pack_sections(sections):
    """Return payload bytes for a dict {name (str): bytes}, names in sorted order."""
    if not isinstance(sections, dict):
        raise ValueError("sections must be a dict of name -> bytes")
    parts = [struct.pack("<H", len(sections))]
    for name in sorted(sections):
        value = sections[name]
        if not isinstance(name, str) or not name or len(name) > _MAX_NAME:
            raise ValueError("section name %r must be text of 1..%d characters" % (name, _MAX_NAME))
        if not isinstance(value, (bytes, bytearray)):
            raise ValueError("section %r must be bytes, got %s" % (name, type(value).__name__))
        raw = name.encode()
        parts.append(struct.pack("<BI", len(raw), len(value)))
        parts.append(raw)
        parts.append(bytes(value))
    return b"".join(parts)


def unpack_sections(payload):
    """Return the dict {name: bytes} of pack_sections' output; RecordError if malformed."""
    size = len(payload)
    if size < 2:
        raise RecordError("malformed sections: %d bytes" % size)
    (count,) = struct.unpack_from("<H", payload, 0)
    pos = 2
    sections = {}
    for _ in range(count):
        if pos + 5 > size:
            raise RecordError("malformed sections: header of section %d overruns" % len(sections))
        name_len, value_len = struct.unpack_from("<BI", payload, pos)
        pos += 5
        if pos + name_len + value_len > size:
            raise RecordError("malformed sections: section %d overruns the payload" % len(sections))
        try:
            name = bytes(payload[pos:pos + name_len]).decode()
        except UnicodeError:
            raise RecordError("malformed sections: name of section %d" % len(sections)) from None
        pos += name_len
        sections[name] = bytes(payload[pos:pos + value_len])
        pos += value_len
    if pos != size:
        raise RecordError("malformed sections: %d trailing bytes" % (size - pos))
    return sections
