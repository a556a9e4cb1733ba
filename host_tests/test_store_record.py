"""CRC-32, the checked record framing and the typed section layer of firmware/store."""

import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.store import crc32, record
from firmware.store.errors import RecordError


def test_crc_check_value():
    # "123456789" -> 0xCBF43926 is the published check value of CRC-32/ISO-HDLC (IEEE 802.3)
    assert crc32.crc32_table(b"123456789") == 0xCBF43926
    assert crc32.crc32(b"123456789") == 0xCBF43926
    assert crc32.crc32_table(b"") == 0


@given(st.binary(max_size=600), st.integers(0, 0xFFFFFFFF))
def test_table_crc_equals_zlib(data, start):
    assert crc32.crc32_table(data, start) == zlib.crc32(data, start)
    assert crc32.crc32(data, start) == zlib.crc32(data, start)


def test_crc_tables_stay_small_ints():
    # every table entry is a 16-bit half, so a 32-bit port never allocates in the loop
    crc32.crc32_table(b"x")
    assert len(crc32._tables) == 2
    for table in crc32._tables:
        assert table.typecode == "H" and len(table) == 256 and max(table) <= 0xFFFF


def test_record_round_trip_and_layout():
    data = record.encode(7, b"payload")
    assert data[:2] == b"CM" and struct.unpack_from("<II", data, 4) == (7, 7)
    assert len(data) == record.OVERHEAD + 7
    assert struct.unpack_from("<I", data, len(data) - 4)[0] == zlib.crc32(data[:-4])
    assert record.decode(data) == (7, b"payload")


@pytest.mark.parametrize("mangle, reason", [
    (lambda d: b"", "blank"),
    (lambda d: b"\xff" * len(d), "blank"),
    (lambda d: bytes(len(d)), "blank"),
    (lambda d: b"XX" + d[2:], "bad magic"),
    (lambda d: d[:2] + b"\x09" + d[3:], "bad version"),
    (lambda d: d[:8] + struct.pack("<I", 0x7FFFFFF) + d[12:], "bad length"),
    (lambda d: d[:-1], "truncated"),
    (lambda d: d[:5], "short"),
    (lambda d: d[:14] + bytes([d[14] ^ 1]) + d[15:], "bad crc"),
    (lambda d: d[:-1] + bytes([d[-1] ^ 0x80]), "bad crc"),
])
def test_decode_names_the_failed_check(mangle, reason):
    data = record.encode(3, b"some payload")
    with pytest.raises(RecordError) as error:
        record.decode(mangle(data))
    assert str(error.value).startswith(reason)


@given(st.binary(min_size=1, max_size=64), st.data())
def test_every_single_bit_flip_is_detected(payload, data):
    encoded = bytearray(record.encode(1, payload))
    bit = data.draw(st.integers(0, len(encoded) * 8 - 1))
    encoded[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(RecordError):
        record.decode(bytes(encoded))


@pytest.mark.parametrize("seq, payload, words", [
    (-1, b"", "seq"), (2 ** 32, b"", "seq"), ("1", b"", "seq"), (1, "text", "bytes"),
    (1, b"x" * (record.MAX_PAYLOAD + 1), "exceeds"),
])
def test_encode_refuses_bad_input(seq, payload, words):
    with pytest.raises(ValueError, match=words):
        record.encode(seq, payload)


def test_sections_round_trip_sorted():
    packed = record.pack_sections({"b": b"2", "a": b"", "jackpot": b"\x00\xff"})
    assert record.unpack_sections(packed) == {"a": b"", "b": b"2", "jackpot": b"\x00\xff"}
    assert packed == record.pack_sections({"jackpot": b"\x00\xff", "a": b"", "b": b"2"})


@pytest.mark.parametrize("sections, words", [
    ([], "dict"), ({"": b""}, "name"), ({"x" * 33: b""}, "name"), ({1: b""}, "name"),
    ({"a": "text"}, "bytes"),
])
def test_pack_sections_refuses_bad_input(sections, words):
    with pytest.raises(ValueError, match=words):
        record.pack_sections(sections)


@pytest.mark.parametrize("payload", [b"", b"\x01\x00", b"\x01\x00\x01\x05\x00\x00\x00a", b"\x00\x00junk"])
def test_unpack_sections_refuses_malformed(payload):
    with pytest.raises(RecordError):
        record.unpack_sections(payload)


# --- building a copy inside a caller's buffer (what critical memory does on every commit) ---

def reference_copy(seq, sections):
    """A copy built here from the documented layout (docs/critical-memory.md), not by record."""
    payload = struct.pack("<H", len(sections))
    for name in sorted(sections):
        raw = name.encode()
        payload += struct.pack("<BI", len(raw), len(sections[name])) + raw + bytes(sections[name])
    head = b"CM" + bytes([1, 0]) + struct.pack("<II", seq, len(payload))
    return head + payload + struct.pack("<I", zlib.crc32(head + payload))


SECTIONS = {"jackpot": b"\x01\x02\x03" * 40, "_journal": b"\x07\x00\x00\x00\x01", "round": b"",
            "_log": bytes(range(44))}


def test_encode_into_writes_the_documented_copy_and_nothing_after_it():
    buf = bytearray(b"\xaa" * 400)
    length = record.encode_into(buf, 41, SECTIONS)
    want = reference_copy(41, SECTIONS)
    assert length == len(want) and bytes(buf[:length]) == want
    assert buf[length:] == b"\xaa" * (400 - length)
    assert record.decode(bytes(buf[:length])) == (41, record.pack_sections(SECTIONS))
    assert record.encode(41, record.pack_sections(SECTIONS)) == want


@given(st.dictionaries(st.text(min_size=1, max_size=32), st.binary(max_size=80), max_size=6),
       st.integers(0, 0xFFFFFFFF), st.integers(0, 40))
def test_encode_into_equals_the_reference_for_any_sections(sections, seq, spare):
    buf = bytearray(record.OVERHEAD + record.sections_size(sections) + spare)
    length = record.encode_into(buf, seq, sections)
    assert bytes(buf[:length]) == reference_copy(seq, sections)
    assert record.sections_size(sections) == len(record.pack_sections(sections)) == length - record.OVERHEAD


def test_section_values_may_be_memoryviews_of_a_kept_buffer():
    kept = bytearray(b"xx" + bytes(range(44)) + b"yy")
    sections = dict(SECTIONS, _log=memoryview(kept)[2:46])
    buf = bytearray(500)
    length = record.encode_into(buf, 41, sections)
    assert bytes(buf[:length]) == reference_copy(41, SECTIONS)
    assert record.pack_sections(sections) == record.pack_sections(SECTIONS)


def test_pack_sections_into_at_an_offset_leaves_the_rest_alone():
    buf = bytearray(b"\x55" * 300)
    end = record.pack_sections_into(buf, 20, SECTIONS)
    packed = record.pack_sections(SECTIONS)
    assert end == 20 + len(packed) and bytes(buf[20:end]) == packed
    assert buf[:20] == b"\x55" * 20 and buf[end:] == b"\x55" * (300 - end)


def test_seal_into_frames_a_payload_already_in_place():
    payload = b"some payload bytes"
    buf = bytearray(64)
    buf[record.HEADER_SIZE:record.HEADER_SIZE + len(payload)] = payload
    length = record.seal_into(buf, 9, len(payload))
    head = b"CM\x01\x00" + struct.pack("<II", 9, len(payload))
    assert bytes(buf[:length]) == head + payload + struct.pack("<I", zlib.crc32(head + payload))
    assert record.decode(bytes(buf[:length])) == (9, payload)


def test_sections_size_refuses_what_pack_sections_refuses():
    for sections, words in [([], "dict"), ({"": b""}, "name"), ({"x" * 33: b""}, "name"),
                            ({1: b""}, "name"), ({"a": "text"}, "bytes"), ({"a": 5}, "bytes")]:
        with pytest.raises(ValueError, match=words):
            record.sections_size(sections)


@pytest.mark.parametrize("call, words", [
    (lambda buf: record.encode_into(bytes(200), 1, SECTIONS), "bytearray"),
    (lambda buf: record.encode_into(list(buf), 1, SECTIONS), "bytearray"),
    (lambda buf: record.encode_into(buf, 1, dict(SECTIONS, big=bytes(100))), "no room"),
    (lambda buf: record.encode_into(buf, -1, SECTIONS), "seq"),
    (lambda buf: record.encode_into(buf, 2 ** 32, SECTIONS), "seq"),
    (lambda buf: record.encode_into(buf, 1, {"a": "text"}), "bytes"),
    (lambda buf: record.encode_into(buf, 1, {"": b""}), "name"),
    (lambda buf: record.encode_into(buf, 1, [("a", b"")]), "dict"),
    (lambda buf: record.pack_sections_into(buf, -1, SECTIONS), "offset"),
    (lambda buf: record.pack_sections_into(buf, "0", SECTIONS), "offset"),
    (lambda buf: record.pack_sections_into(buf, 150, SECTIONS), "no room"),
    (lambda buf: record.pack_sections_into(buf, 0, {"a": None}), "bytes"),
    (lambda buf: record.seal_into(buf, 1, len(buf)), "no room"),
    (lambda buf: record.seal_into(buf, 1, -1), "length"),
    (lambda buf: record.seal_into(buf, 1, record.MAX_PAYLOAD + 1), "length"),
    (lambda buf: record.seal_into(buf, "1", 4), "seq"),
    (lambda buf: record.seal_into(memoryview(buf), 1, 4), "bytearray"),
])
def test_into_functions_refuse_bad_input_and_leave_the_buffer_unchanged(call, words):
    buf = bytearray(b"\x5a" * 300)
    with pytest.raises(ValueError, match=words):
        call(buf)
    assert buf == b"\x5a" * 300


def test_the_flags_byte_is_written_covered_by_the_crc_and_ignored_by_decode():
    # critical memory keeps its "key required" mark in bit 0 of the reserved flags byte: a
    # copy of the older firmware (flags 0) reads as before, and a flag changed by anything
    # but a commit is a bad copy
    buf = bytearray(400)
    length = record.encode_into(buf, 41, SECTIONS, 1)
    marked = bytes(buf[:length])
    plain = reference_copy(41, SECTIONS)
    assert marked[3] == 1 and marked[:3] + b"\x00" + marked[4:-4] == plain[:-4]
    assert struct.unpack_from("<I", marked, length - 4)[0] == zlib.crc32(marked[:-4])
    assert record.decode(marked) == record.decode(plain)
    with pytest.raises(RecordError, match="bad crc"):
        record.decode(marked[:3] + b"\x00" + marked[4:])
    assert record.encode_into(buf, 41, SECTIONS) == length and bytes(buf[:length]) == plain
