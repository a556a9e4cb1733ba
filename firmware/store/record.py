"""One checked copy of critical memory: header, payload, CRC-32.

Layout, little-endian::

    0  magic   2 bytes  b"CM"
    2  version 1 byte   _FORMAT_VERSION
    3  flags   1 byte   bit 0: critical memory's "key required" mark, the rest 0
    4  seq     u32      commit sequence number, +1 per commit
    8  length  u32      payload bytes
    12 payload
    .. crc     u32      CRC-32 of every byte before it

The payload is opaque here; ``pack_sections`` / ``unpack_sections`` give it a small typed
layer: named byte strings, so each module (jackpot, round controller, journal, log) owns and
encodes its own section.

``encode_into`` / ``pack_sections_into`` / ``seal_into`` build a copy inside a buffer the
caller keeps (critical memory reuses two), so a commit allocates nothing record-sized: after
hours of play the heap may have no contiguous kilobyte left.  ``encode`` and
``pack_sections`` are the same code writing into a fresh buffer.
"""

import struct

from firmware.compat import const
from firmware.store.crc32 import crc32
from firmware.store.errors import RecordError

MAGIC = b"CM"
_FORMAT_VERSION = const(1)
HEADER_SIZE = const(12)
_CRC_SIZE = const(4)
OVERHEAD = const(16)
MAX_PAYLOAD = const(0x100000)
MAX_SEQ = 0xFFFFFFFF
_HEADER = "<2sBBII"
_MAX_NAME = const(32)
_MAX_SECTIONS = const(0xFFFF)
_BUFFERS = (bytes, bytearray, memoryview)


def _check_seq(seq):
    if not isinstance(seq, int) or seq < 0 or seq > MAX_SEQ:
        raise ValueError("record seq %r is not an integer 0..2**32-1" % (seq,))


def _check_room(buf, offset, size):
    """ValueError unless buf is a bytearray with size bytes free from offset."""
    if not isinstance(buf, bytearray):
        raise ValueError("record buffer must be a bytearray, got %s" % type(buf).__name__)
    if not isinstance(offset, int) or offset < 0:
        raise ValueError("record buffer offset %r is not an integer >= 0" % (offset,))
    if offset + size > len(buf):
        raise ValueError("record buffer of %d bytes has no room for %d bytes at offset %d"
                         % (len(buf), size, offset))


def seal_into(buf, seq, length, flags=0):
    """Frame the payload already at buf[HEADER_SIZE:HEADER_SIZE + length] as one copy under
    sequence number seq and flags: write the header before it and the CRC after it, allocating
    nothing record-sized.  Returns the copy's length (length + OVERHEAD).  ValueError (buf unchanged)
    for a bad seq or length or a buffer too small."""
    _check_seq(seq)
    if not isinstance(length, int) or length < 0 or length > MAX_PAYLOAD:
        raise ValueError("record payload length %r is not an integer 0..%d" % (length, MAX_PAYLOAD))
    _check_room(buf, 0, length + OVERHEAD)
    struct.pack_into(_HEADER, buf, 0, MAGIC, _FORMAT_VERSION, flags, seq, length)
    end = HEADER_SIZE + length
    struct.pack_into("<I", buf, end, crc32(memoryview(buf)[:end]))
    return end + _CRC_SIZE


def encode_into(buf, seq, sections, flags=0):
    """Write one copy holding pack_sections(sections) under seq and flags into the bytearray
    buf (from its start) and return its length; the sections go straight into buf.  ValueError (buf
    unchanged) for a bad seq or section or a buffer too small."""
    _check_seq(seq)
    size = sections_size(sections)
    if size > MAX_PAYLOAD:
        raise ValueError("record payload of %d bytes exceeds %d" % (size, MAX_PAYLOAD))
    _check_room(buf, 0, size + OVERHEAD)
    _pack(buf, HEADER_SIZE, sections)
    return seal_into(buf, seq, size, flags)


def encode(seq, payload):
    """Return the bytes of one copy holding payload under sequence number seq."""
    _check_seq(seq)
    if not isinstance(payload, _BUFFERS):
        raise ValueError("record payload must be bytes, got %s" % type(payload).__name__)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("record payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    buf = bytearray(len(payload) + OVERHEAD)
    buf[HEADER_SIZE:HEADER_SIZE + len(payload)] = payload
    seal_into(buf, seq, len(payload))
    return bytes(buf)


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
    if version != _FORMAT_VERSION:
        raise RecordError("bad version %d" % version)
    if length > MAX_PAYLOAD:
        raise RecordError("bad length %d" % length)
    return HEADER_SIZE + length + _CRC_SIZE


def decode(data):
    """Return (seq, payload) of a stored copy; RecordError names the first failed check."""
    if data is None or len(data) == 0:
        raise RecordError("blank")
    size = total_length(data)
    if len(data) < size:
        raise RecordError("truncated: %d of %d bytes" % (len(data), size))
    view = memoryview(data)
    (stored,) = struct.unpack_from("<I", data, size - _CRC_SIZE)
    if crc32(view[:size - _CRC_SIZE]) != stored:
        raise RecordError("bad crc")
    seq = struct.unpack_from("<I", data, 4)[0]
    return seq, bytes(view[HEADER_SIZE:size - _CRC_SIZE])


def sections_size(sections):
    """Bytes pack_sections(sections) takes; ValueError names a bad section."""
    if not isinstance(sections, dict):
        raise ValueError("sections must be a dict of name -> bytes")
    if len(sections) > _MAX_SECTIONS:
        raise ValueError("%d sections, at most %d" % (len(sections), _MAX_SECTIONS))
    size = 2
    for name in sections:
        value = sections[name]
        if not isinstance(name, str) or not name or len(name) > _MAX_NAME:
            raise ValueError("section name %r must be text of 1..%d characters" % (name, _MAX_NAME))
        if not isinstance(value, _BUFFERS):
            raise ValueError("section %r must be bytes, got %s" % (name, type(value).__name__))
        size += 5 + len(name.encode()) + len(value)
    return size


def _pack(buf, offset, sections):
    """Write checked sections into buf from offset (room checked); return the end offset."""
    view = memoryview(buf)
    struct.pack_into("<H", buf, offset, len(sections))
    pos = offset + 2
    for name in sorted(sections):
        value = sections[name]
        raw = name.encode()
        struct.pack_into("<BI", buf, pos, len(raw), len(value))
        pos += 5
        view[pos:pos + len(raw)] = raw
        pos += len(raw)
        view[pos:pos + len(value)] = value
        pos += len(value)
    return pos


def point_sections(buf, sections, skip=None):
    """Make every value of `sections` (but the one named `skip`) a memoryview of its bytes in
    the copy encode_into(buf, seq, sections) wrote; allocates no buffer, only the views."""
    view = memoryview(buf)
    pos = HEADER_SIZE + 2
    for name in sorted(sections):
        name_len = buf[pos]
        size = buf[pos + 1] | (buf[pos + 2] << 8) | (buf[pos + 3] << 16) | (buf[pos + 4] << 24)
        pos += 5 + name_len
        if name != skip:
            sections[name] = view[pos:pos + size]
        pos += size


def pack_sections_into(buf, offset, sections):
    """Write pack_sections(sections) into the bytearray buf from offset, without building it
    elsewhere first; return the offset after it.  ValueError (buf unchanged) names a bad
    section or says the buffer is too small."""
    _check_room(buf, offset, sections_size(sections))
    return _pack(buf, offset, sections)


def pack_sections(sections):
    """Return payload bytes for a dict {name (str): bytes}, names in sorted order."""
    buf = bytearray(sections_size(sections))
    _pack(buf, 0, sections)
    return bytes(buf)


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
