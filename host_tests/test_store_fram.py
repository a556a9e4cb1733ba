"""MB85RC256V driver against the fake bus that decodes the I2C memory frames."""

import pytest

from firmware.drivers.fram import FRAM, SIZE
from host_tests.fakes.flash import PowerCut, Supply
from host_tests.fakes.fram import FramBus


def test_write_reaches_the_addressed_bytes_and_reads_back():
    bus = FramBus()
    fram = FRAM(bus)
    fram.write(0x1234, b"\x01\x02\x03")
    assert bus.memory[0x1234:0x1237] == b"\x01\x02\x03"
    assert fram.read(0x1233, 5) == bytearray(b"\x00\x01\x02\x03\x00")
    assert fram.present()


def test_long_writes_are_split_into_256_byte_frames():
    bus = FramBus()
    data = bytes(range(256)) * 3 + b"tail"
    FRAM(bus).write(100, data)
    assert bus.frames == 4 and bus.bytes_written == len(data)
    assert bytes(bus.memory[100:100 + len(data)]) == data


def test_fake_decodes_the_two_address_bytes_high_first():
    bus = FramBus()
    bus.writeto(0x50, b"\x7f\xfe\xaa\xbb\xcc")  # wraps at 32 KB like the chip
    assert bus.memory[0x7FFE] == 0xAA and bus.memory[0x7FFF] == 0xBB and bus.memory[0] == 0xCC


@pytest.mark.parametrize("offset, length", [(-1, 1), (SIZE - 1, 2), (0, SIZE + 1)])
def test_out_of_range_access_is_refused_before_the_bus(offset, length):
    bus = FramBus()
    fram = FRAM(bus)
    with pytest.raises(ValueError, match="FRAM range"):
        fram.write(offset, bytes(max(length, 0)))
    with pytest.raises(ValueError, match="FRAM range"):
        fram.read(offset, length)
    assert bus.frames == 0


def test_bad_i2c_address_is_refused():
    with pytest.raises(ValueError, match="0x40"):
        FRAM(FramBus(), address=0x40)


def test_absent_chip_raises_oserror():
    fram = FRAM(FramBus(address=0x51))
    with pytest.raises(OSError):
        fram.write(0, b"x")
    assert not fram.present()


def test_power_cut_between_two_byte_writes():
    supply = Supply(cut_at=3)
    bus = FramBus(supply=supply)
    with pytest.raises(PowerCut):
        FRAM(bus).write(10, b"abcdef")
    assert bytes(bus.memory[10:16]) == b"abc\x00\x00\x00"
    with pytest.raises(PowerCut):
        FRAM(bus).write(0, b"z")  # no power, nothing more is written
    assert bus.memory[0] == 0


def test_the_simulated_bus_counts_the_bytes_each_transfer_clocks():
    # tools/table_bench turns these counts into bus time: each transfer clocks the device
    # address, the two memory-address bytes and the data; a read clocks the device address
    # once more after its repeated start
    from boards.simulated import FileFRAM
    from host_tests.fakes.i2c import FakeI2C

    bus = FakeI2C()
    bus.attach(0x50, FileFRAM())
    fram = FRAM(bus)
    fram.write(0, bytes(300))                 # two frames: 256 + 44 bytes
    assert bus.wire_bytes == (1 + 2 + 256) + (1 + 2 + 44)
    bus.wire_bytes = 0
    assert fram.read(0, 10) == bytes(10)
    assert bus.wire_bytes == 1 + 2 + 1 + 10
