"""HMAC-SHA256 for the link: signing, hex form, constant-time comparison, key checks.

MicroPython has ``hashlib.sha256`` but no ``hmac``.  The RFC 2104 construction itself is
firmware.manifest.hmac_sha256 (program verification needs it at boot anyway); this module
adds what the link needs around it.
"""

from firmware import manifest
from firmware.compat import const

_DIGEST_SIZE = const(32)
_MIN_KEY = const(16)


def digest(key, message):
    """The 32-byte HMAC-SHA256 of message (bytes) under key (bytes)."""
    if not isinstance(key, (bytes, bytearray)):
        raise ValueError("HMAC key must be bytes, got %s" % type(key).__name__)
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise ValueError("HMAC message must be bytes, got %s" % type(message).__name__)
    return manifest.hmac_sha256(bytes(key), message)


def hexdigest(key, message):
    """The HMAC-SHA256 as 64 lowercase hex characters (bytes)."""
    out = bytearray(2 * _DIGEST_SIZE)
    raw = digest(key, message)
    digits = b"0123456789abcdef"
    for i in range(_DIGEST_SIZE):
        out[2 * i] = digits[raw[i] >> 4]
        out[2 * i + 1] = digits[raw[i] & 15]
    return bytes(out)


def equal(a, b):
    """Compare two byte strings in time that does not depend on where they first differ."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def check_key(key):
    """Return key unchanged if it is bytes of at least _MIN_KEY bytes, else ValueError."""
    if not isinstance(key, (bytes, bytearray)) or len(key) < _MIN_KEY:
        raise ValueError("link key must be at least %d bytes" % _MIN_KEY)
    return bytes(key)
