"""Places that hold one copy of critical memory: a FRAM region or a file on a filesystem.

Each slot has ``read()`` (the stored copy's bytes, or None if there is none),
``same(data, chunk)`` (True if it holds exactly `data`, read a piece at a time into `chunk`, a
small buffer the caller keeps: what critical memory uses to check a copy after each commit
without allocating a record's worth, and without writing over either of its record buffers)
and ``write(data)`` (store a whole copy; data is any bytes-like object, a memoryview
included).  Slots know nothing of the record
format except how to find its length from the header.
"""

from firmware.compat import file_missing
from firmware.store import record
from firmware.store.errors import RecordError


class FramSlot:
    """One copy in a fixed region [offset, offset+size) of a FRAM (``firmware.drivers.fram``)."""

    physical = "fram"

    def __init__(self, fram, offset, size, name="fram"):
        if offset < 0 or size < record.OVERHEAD or offset + size > fram.size:
            raise ValueError("FRAM slot %d+%d does not fit a %d-byte FRAM" % (offset, size, fram.size))
        self.fram = fram
        self.offset = offset
        self.size = size
        self.name = name
        self._header = bytearray(record.HEADER_SIZE)

    def read(self):
        """Return the copy's bytes as stored (up to the announced length), or the header alone."""
        self.fram.read_into(self.offset, self._header)
        try:
            length = record.total_length(self._header)
        except RecordError:
            return bytes(self._header)
        if length > self.size:
            return bytes(self._header)
        return bytes(self.fram.read(self.offset, length))

    def same(self, data, chunk):
        """True if the region holds exactly `data` (its header, the length in it included),
        read len(chunk) bytes at a time into chunk."""
        n = len(data)
        if n > self.size:
            return False
        view = memoryview(chunk)
        at = 0
        while at < n:
            k = min(len(chunk), n - at)
            self.fram.read_into(self.offset + at, view[:k])
            if view[:k] != data[at:at + k]:
                return False
            at += k
        return True

    def write(self, data):
        """Store one copy (bytes of record.encode) at the start of the region."""
        if len(data) > self.size:
            raise ValueError("copy of %d bytes exceeds FRAM slot %s of %d"
                             % (len(data), self.name, self.size))
        self.fram.write(self.offset, data)

    def wipe(self):
        """Blank the region's header (tests and decommissioning only)."""
        self.fram.write(self.offset, bytes(record.HEADER_SIZE))


class FileSlot:
    """One copy in a file of a filesystem object (a mounted ``vfs.VfsLfs2``, or ``PathFS``).

    By default a write rewrites the file in place: littlefs is copy-on-write and keeps the old
    content until ``close`` commits the new one, and on any filesystem a torn file is only a
    bad copy that boot rebuilds from the other one.  ``rename=True`` writes ``name + ".new"``
    and renames it over ``name`` (atomic on POSIX too), at the cost of about 20% more flash
    erases per commit on littlefs (tools/wear_bench.py --rename).
    """

    physical = "flash"

    def __init__(self, fs, name, rename=False):
        if not name or "/" in name:
            raise ValueError("slot file name %r must be a plain file name" % (name,))
        self.fs = fs
        self.name = name
        self.temp = name + ".new"
        self.rename = rename

    def read(self):
        """Return the file's bytes, or None if it does not exist; OSError if it exists but
        cannot be read (a failing chip is not a blank copy: boot says "io error")."""
        try:
            with self.fs.open(self.name, "rb") as f:
                return f.read()
        except OSError as error:
            if file_missing(error):
                return None
            raise

    def same(self, data, chunk):
        """True if the file holds exactly `data` (no more), read len(chunk) bytes at a time
        into chunk; False if it is missing or cannot be read."""
        try:
            with self.fs.open(self.name, "rb") as f:
                if not hasattr(f, "readinto"):  # a minimal file object: read it whole
                    return memoryview(f.read()) == data
                view = memoryview(chunk)
                at = 0
                while True:
                    got = f.readinto(view)
                    if not got:
                        return at == len(data)
                    if at + got > len(data) or view[:got] != data[at:at + got]:
                        return False
                    at += got
        except OSError:
            return False

    def write(self, data):
        """Replace the file's content with data, atomically."""
        if not self.rename:
            # littlefs keeps the old content until close commits the new one (copy-on-write)
            with self.fs.open(self.name, "wb") as f:
                f.write(data)
            return
        with self.fs.open(self.temp, "wb") as f:
            f.write(data)
        self.fs.rename(self.temp, self.name)

    def wipe(self):
        """Delete the file (tests and decommissioning only)."""
        for name in (self.name, self.temp):
            try:
                self.fs.remove(name)
            except OSError:
                pass


class PathFS:
    """The filesystem methods slots use, over a directory of the running system (board or host)."""

    def __init__(self, directory):
        self.directory = directory.rstrip("/")

    def _path(self, name):
        return self.directory + "/" + name

    def open(self, name, mode):
        return open(self._path(name), mode)

    def rename(self, old, new):
        import os
        try:
            os.rename(self._path(old), self._path(new))
        except OSError:
            # Some ports refuse to rename over an existing file: remove it first
            os.remove(self._path(new))
            os.rename(self._path(old), self._path(new))

    def remove(self, name):
        import os
        os.remove(self._path(name))
