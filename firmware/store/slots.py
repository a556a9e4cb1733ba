"""Places that hold one copy of critical memory: a FRAM region or a file on a filesystem.

Each slot has ``read()`` (the stored copy's bytes, or None if there is none),
``read_into(buf)`` (the same bytes into a buffer the caller keeps: what critical memory uses
to check a copy after each commit without allocating one) and ``write(data)`` (store a whole
copy; data is any bytes-like object, a memoryview included).  Slots know nothing of the record
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

    def read_into(self, buf):
        """Put what read() returns into buf (as much as fits) and return how many bytes were
        put: a copy longer than buf fills it, so pass a buffer longer than the copy expected."""
        self.fram.read_into(self.offset, self._header)
        try:
            length = record.total_length(self._header)
        except RecordError:
            length = 0
        if length == 0 or length > self.size:
            length = min(record.HEADER_SIZE, len(buf))
            memoryview(buf)[:length] = memoryview(self._header)[:length]
            return length
        length = min(length, len(buf))
        self.fram.read_into(self.offset, memoryview(buf)[:length])
        return length

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

    def read_into(self, buf):
        """Put what read() returns into buf (as much as fits) and return how many bytes were
        put, or None if the file does not exist: a file longer than buf fills it, so pass a
        buffer longer than the copy expected."""
        try:
            with self.fs.open(self.name, "rb") as f:
                if not hasattr(f, "readinto"):  # a minimal file object: read and copy
                    data = f.read()
                    count = min(len(data), len(buf))
                    memoryview(buf)[:count] = memoryview(data)[:count]
                    return count
                view = memoryview(buf)
                count = 0
                while count < len(buf):
                    got = f.readinto(view[count:])
                    if not got:
                        break
                    count += got
                return count
        except OSError:
            return None

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
