"""Exceptions of the critical-memory store."""


class StoreError(Exception):
    """Base class of critical-memory errors."""


class RecordError(StoreError):
    """A stored copy failed a check; the message names the check (blank, magic, length, crc)."""


class RamError(StoreError):
    """No good copy of critical memory exists: jackpot wagering must stay disabled."""


class DuplicateStep(StoreError):
    """A round step already committed was committed again; nothing was changed."""
