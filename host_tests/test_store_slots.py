"""Where copies live: FramSlot and FileSlot read, read_into (into a kept buffer) and write."""

import pytest

from firmware.drivers.fram import FRAM
from firmware.store import record
from firmware.store.slots import FileSlot, FramSlot, PathFS
from host_tests.fakes.flash import MemFS
from host_tests.fakes.fram import FramBus

COPY = record.encode(5, bytes(range(256)) * 3)  # a copy of 784 bytes


def fram_slot(size=2048):
    return FramSlot(FRAM(FramBus()), 100, size)


class _ReadOnlyFile:
    """A file object with read() but no readinto(), as some filesystems give."""

    def __init__(self, inner):
        self.inner = inner

    def read(self):
        return self.inner.read()

    def write(self, data):
        return self.inner.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.inner.close()
        return False


class _NoReadintoFS(MemFS):
    def open(self, name, mode):
        return _ReadOnlyFile(MemFS.open(self, name, mode))


def file_slots(tmp_path):
    """A FileSlot on a real directory and on MemFS (files with readinto), and on a filesystem
    whose files have no readinto (read and copied)."""
    return [FileSlot(PathFS(str(tmp_path)), "cm_a.bin"), FileSlot(MemFS(), "cm_a.bin"),
            FileSlot(_NoReadintoFS(), "cm_a.bin")]


def test_fram_read_into_gives_what_read_gives():
    slot = fram_slot()
    slot.write(memoryview(bytearray(COPY))[:])  # a memoryview, as critical memory writes
    buf = bytearray(b"\xee" * 1000)
    assert slot.read() == COPY
    assert slot.read_into(buf) == len(COPY) and bytes(buf[:len(COPY)]) == COPY
    assert buf[len(COPY):] == b"\xee" * (1000 - len(COPY))


@pytest.mark.parametrize("header", [bytes(12), b"XX" + bytes(10),
                                    b"CM\x01\x00" + b"\x01\x00\x00\x00" + b"\x00\x10\x00\x00"])
def test_fram_read_into_of_no_copy_gives_the_header_as_read_does(header):
    slot = fram_slot(size=1024)  # the last header announces 4,096 + 16 bytes: more than the slot
    slot.fram.write(slot.offset, header)
    buf = bytearray(64)
    assert slot.read() == header
    assert slot.read_into(buf) == 12 and bytes(buf[:12]) == header


def test_fram_read_into_a_short_buffer_fills_it():
    slot = fram_slot()
    slot.write(COPY)
    buf = bytearray(100)
    assert slot.read_into(buf) == 100 and bytes(buf) == COPY[:100]


def test_file_read_into_gives_what_read_gives(tmp_path):
    for slot in file_slots(tmp_path):
        slot.write(memoryview(bytearray(COPY)))
        buf = bytearray(b"\xee" * 1000)
        assert slot.read() == COPY
        assert slot.read_into(buf) == len(COPY) and bytes(buf[:len(COPY)]) == COPY
        short = bytearray(100)
        assert slot.read_into(short) == 100 and bytes(short) == COPY[:100]


def test_file_read_into_of_a_missing_file_is_none(tmp_path):
    for slot in file_slots(tmp_path):
        buf = bytearray(b"\xee" * 16)
        assert slot.read() is None and slot.read_into(buf) is None
        assert buf == b"\xee" * 16
