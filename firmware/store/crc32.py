"""CRC-32 (IEEE 802.3, the zlib/PNG polynomial) of bytes.

``crc32`` uses the C ``binascii.crc32`` when the firmware build has it (MicroPython enables it
at the "extra features" level, which the rp2 and esp32 ports use, but a custom build may not),
else ``crc32_table``, a table-driven version written here.  The table version keeps the
register as two 16-bit halves, so on a 32-bit port every intermediate value is a small int;
its two 512-byte tables are built the first time it runs.
"""

from array import array

from firmware.compat import const

_POLY_HI = const(0xEDB8)  # reflected polynomial 0xEDB88320, high half
_POLY_LO = const(0x8320)
_MASK16 = const(0xFFFF)


def _make_tables():
    hi_table = array("H", bytes(512))
    lo_table = array("H", bytes(512))
    for n in range(256):
        hi = 0
        lo = n
        for _ in range(8):
            carry = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if carry:
                hi ^= _POLY_HI
                lo ^= _POLY_LO
        hi_table[n] = hi
        lo_table[n] = lo
    return hi_table, lo_table


_tables = []  # (high halves, low halves), built on first use: the C crc32 usually serves



def crc32_table(data, crc=0):
    """Return the CRC-32 of data (bytes-like) continuing from crc, same value as zlib.crc32."""
    crc ^= 0xFFFFFFFF
    hi = crc >> 16
    lo = crc & _MASK16
    if not _tables:
        _tables.extend(_make_tables())
    hi_table = _tables[0]
    lo_table = _tables[1]
    for byte in data:
        index = (lo ^ byte) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ lo_table[index]
        hi = (hi >> 8) ^ hi_table[index]
    return ((hi ^ _MASK16) << 16) | (lo ^ _MASK16)


try:
    from binascii import crc32 as _c_crc32
except ImportError:  # a build without binascii.crc32
    _c_crc32 = None

if _c_crc32 is not None:
    def crc32(data, crc=0):
        """Return the CRC-32 of data continuing from crc (C implementation)."""
        return _c_crc32(data, crc) & 0xFFFFFFFF
    NATIVE = True
else:
    crc32 = crc32_table
    NATIVE = False
