"""HMAC-SHA256 (RFC 2104) on ``hashlib.sha256`` (MicroPython has no ``hmac``): the link signs
its messages with it, and the program check (firmware.manifest) checks the manifest's HMAC
with it.  Its own module, so that the link never loads the verifier: a verifier the VM
refuses then fails the program check alone, and the table says PROGRAM ERROR.

    pads(key) -> (inner_pad, outer_pad)      # to hash a message as a stream
    finish(inner, outer_pad)                 # inner: sha256 fed inner_pad + the message
"""

import hashlib

from firmware.compat import const

_DIGEST_SIZE = const(32)
_BLOCK_SIZE = const(64)         # SHA-256's block
_INNER_PAD = const(0x36)        # RFC 2104 ipad byte
_OUTER_PAD = const(0x5C)        # RFC 2104 opad byte
_MIN_KEY = const(16)


def pads(key):
    """HMAC's inner and outer padded keys for bytes `key`."""
    if len(key) > _BLOCK_SIZE:
        key = hashlib.sha256(key).digest()
    key = key + bytes(_BLOCK_SIZE - len(key))
    return bytes(k ^ _INNER_PAD for k in key), bytes(k ^ _OUTER_PAD for k in key)


def finish(inner, outer_pad):
    """The HMAC from the inner hash object (fed the inner pad and the message)."""
    outer = hashlib.sha256(outer_pad)
    outer.update(inner.digest())
    return outer.digest()


def digest(key, message):
    """The 32-byte HMAC-SHA256 of message (bytes) under key (bytes)."""
    if not isinstance(key, (bytes, bytearray)):
        raise ValueError("HMAC key must be bytes, got %s" % type(key).__name__)
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise ValueError("HMAC message must be bytes, got %s" % type(message).__name__)
    inner_pad, outer_pad = pads(bytes(key))
    inner = hashlib.sha256(inner_pad)
    inner.update(message)
    return finish(inner, outer_pad)


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
