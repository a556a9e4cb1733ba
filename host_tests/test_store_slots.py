"""Where copies live: FramSlot and FileSlot read, same (compared a piece at a time) and write."""

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


def _changed(at):
    """COPY with its byte `at` changed."""
    other = bytearray(COPY)
    other[at] ^= 1
    return memoryview(other)


def test_fram_same_finds_the_copy_written_and_any_byte_that_differs():
    slot = fram_slot()
    slot.write(memoryview(bytearray(COPY))[:])  # a memoryview, as critical memory writes
    assert slot.read() == COPY
    for size in (7, 256, 1000):                 # pieces smaller than, or the whole copy
        chunk = bytearray(size)
        assert slot.same(memoryview(COPY), chunk)
        for at in (0, 5, 255, 256, len(COPY) - 1):  # the header, a piece's ends, the CRC
            assert not slot.same(_changed(at), chunk)
    # a record longer than the slot cannot be in it
    assert not fram_slot(size=512).same(memoryview(COPY), bytearray(64))


@pytest.mark.parametrize("header", [bytes(12), b"XX" + bytes(10),
                                    b"CM\x01\x00" + b"\x01\x00\x00\x00" + b"\x00\x10\x00\x00"])
def test_fram_of_no_copy_reads_as_its_header_and_is_not_the_copy(header):
    slot = fram_slot(size=1024)  # the last header announces 4,096 + 16 bytes: more than the slot
    slot.fram.write(slot.offset, header)
    assert slot.read() == header
    assert not slot.same(memoryview(COPY), bytearray(64))


def test_file_same_finds_the_copy_written_and_any_byte_that_differs(tmp_path):
    for slot in file_slots(tmp_path):
        slot.write(memoryview(bytearray(COPY)))
        assert slot.read() == COPY
        for size in (7, 256, 1000):
            chunk = bytearray(size)
            assert slot.same(memoryview(COPY), chunk)
            for at in (0, 5, 255, 256, len(COPY) - 1):
                assert not slot.same(_changed(at), chunk)
        # a file holding more, or less, than the copy is not it
        slot.write(COPY + b"x")
        assert not slot.same(memoryview(COPY), bytearray(64))
        slot.write(COPY[:-1])
        assert not slot.same(memoryview(COPY), bytearray(64))


def test_file_same_of_a_missing_file_is_false(tmp_path):
    for slot in file_slots(tmp_path):
        assert slot.read() is None and not slot.same(memoryview(COPY), bytearray(16))
