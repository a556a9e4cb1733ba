"""The hash-chained event ring: chain links, pages, retention, tamper detection."""

import hashlib
import struct

import pytest

from firmware.store import eventlog
from firmware.store.eventlog import ENTRY_SIZE, PAGE_ENTRIES, PAGES, EventLog
from host_tests.fakes.flash import MemFS


def logged(n, fs=None, per_commit=5):
    """A log with n events committed in batches (kind cycles over door open/close)."""
    log = EventLog(fs if fs is not None else MemFS())
    done = 0
    while done < n:
        batch = [(eventlog.DOOR_OPEN + (done + i) % 2, 1, done + i, -(done + i))
                 for i in range(min(per_commit, n - done))]
        log.stage(batch, 1000 + done, done // 3)
        log.confirm()
        done += len(batch)
    return log


def test_link_is_sha256_of_previous_link_and_body():
    log = logged(3)
    entries = list(log.entries())
    previous = bytes(8)
    for entry in entries:
        # oracle: hashlib directly, as the audit tool on a PC would compute it
        assert entry[24:] == hashlib.sha256(previous + entry[:24]).digest()[:8]
        previous = entry[24:]
    assert log.head == previous and log.verify() is None


def test_entry_layout():
    log = logged(1)
    entry = next(log.entries())
    assert struct.unpack("<IIIHHii", entry[:24]) == (0, 1000, 0, eventlog.DOOR_OPEN, 1, 0, 0)
    assert len(entry) == ENTRY_SIZE


def test_full_pages_go_to_files_and_the_tail_stays_in_the_anchor():
    fs = MemFS()
    log = logged(PAGE_ENTRIES + 3, fs)
    assert list(fs.files) == ["ev00.bin"] and len(fs.files["ev00.bin"]) == PAGE_ENTRIES * ENTRY_SIZE
    anchor = log.anchor_bytes()
    assert len(anchor) == 12 + 3 * ENTRY_SIZE
    again = EventLog(fs)
    again.load_anchor(anchor)
    assert again.verify() is None and [e[0] for e in again.events()] == list(range(PAGE_ENTRIES + 3))


def test_ring_keeps_at_least_1000_events_after_wrapping():
    log = logged(PAGES * PAGE_ENTRIES * 2 + 17, per_commit=32)
    seqs = [e[0] for e in log.events()]
    assert len(seqs) >= 1000 and seqs[-1] == log.count - 1
    assert seqs == list(range(seqs[0], log.count))
    assert log.verify() is None


@pytest.mark.parametrize("target", [0, 5, PAGE_ENTRIES + 1])
def test_edited_entry_is_the_first_broken_link(target):
    fs = MemFS()
    log = logged(PAGE_ENTRIES * 2 + 4, fs)
    page, index = divmod(target, PAGE_ENTRIES)
    name = "ev%02d.bin" % page
    data = bytearray(fs.files[name])
    data[index * ENTRY_SIZE + 20] ^= 0x01  # change the `c` value of one event
    fs.files[name] = bytes(data)
    assert log.verify() == target


def test_edit_with_relinked_chain_is_caught_by_the_anchor():
    fs = MemFS()
    log = logged(PAGE_ENTRIES + 2, fs)
    entries = [bytearray(e) for e in log.entries()]
    entries[3][20] ^= 0x01
    previous = bytes(8)
    for entry in entries[:PAGE_ENTRIES]:  # a forger re-links the whole page on file
        entry[24:] = eventlog.link_of(previous, bytes(entry[:24]))
        previous = bytes(entry[24:])
    fs.files["ev00.bin"] = b"".join(bytes(e) for e in entries[:PAGE_ENTRIES])
    # the tail (inside the checked record) still chains from the old link
    assert log.verify() == PAGE_ENTRIES


def test_missing_page_is_reported():
    fs = MemFS()
    log = logged(PAGE_ENTRIES * 2 + 1, fs)
    del fs.files["ev01.bin"]
    assert log.verify() == PAGE_ENTRIES


def test_rolled_back_page_write_is_ignored():
    fs = MemFS()
    log = logged(PAGE_ENTRIES - 1, fs)
    before = log.anchor_bytes()
    log.stage([(eventlog.LOCK, 0, 7, 700), (eventlog.SETTLE, 0, 0, 0)], 5000, 9)  # completes page 0
    log.abandon()  # the record commit never happened
    again = EventLog(fs)
    again.load_anchor(before)
    assert again.verify() is None and again.count == PAGE_ENTRIES - 1


def test_recover_anchor_continues_after_the_newest_page():
    fs = MemFS()
    log = logged(PAGE_ENTRIES * 3 + 7, fs)
    fresh = EventLog(fs)
    assert fresh.recover_anchor() == PAGE_ENTRIES * 3
    assert fresh.head == list(log.entries())[PAGE_ENTRIES * 3 - 1][24:]
    fresh.stage([(eventlog.RAM_CLEAR, 1, 0, 0)], 9000, 0)
    fresh.confirm()
    assert fresh.verify() is None
    assert EventLog(MemFS()).recover_anchor() == 0


@pytest.mark.parametrize("event, words", [
    ((99, 0, 0, 0), "unknown event kind"), ((0, 0, 0, 0), "unknown event kind"),
    ((eventlog.LAST_KIND + 1, 0, 0, 0), "unknown event kind"),
    (("lock", 0, 0, 0), "unknown event kind"), ([eventlog.LOCK], "tuple"),
    ((eventlog.LOCK, -1, 0, 0), "event a"), ((eventlog.LOCK, 0, 2 ** 31, 0), "event b"),
    ((eventlog.LOCK, 0, 0, "x"), "event c"),
])
def test_bad_event_is_refused_and_changes_nothing(event, words):
    fs = MemFS()
    log = logged(PAGE_ENTRIES - 1, fs)
    with pytest.raises(ValueError, match=words):
        log.stage([(eventlog.LOCK, 0, 0, 0), event], 1, 1)
    assert fs.files == {} and log.count == PAGE_ENTRIES - 1


def test_too_many_events_in_one_commit_are_refused():
    with pytest.raises(ValueError, match="at most 32"):
        EventLog(MemFS()).stage([(eventlog.LOCK,)] * 33, 1, 1)


def test_bad_time_and_round_are_refused():
    with pytest.raises(ValueError, match="time"):
        EventLog(MemFS()).stage([(eventlog.LOCK,)], -1, 1)
    with pytest.raises(ValueError, match="round"):
        EventLog(MemFS()).stage([(eventlog.LOCK,)], 1, 2 ** 32)


def test_anchor_with_wrong_tail_is_refused():
    log = logged(3)
    with pytest.raises(Exception, match="tail"):
        EventLog(MemFS()).load_anchor(log.anchor_bytes()[:-1])


def test_buffer_sizes_match_the_page_layout():
    assert eventlog.PAGE_BYTES == PAGE_ENTRIES * ENTRY_SIZE
    assert eventlog.MAX_ANCHOR == 12 + (PAGE_ENTRIES - 1) * ENTRY_SIZE


def test_staged_anchor_is_a_view_of_a_kept_buffer_equal_to_the_documented_section():
    fs = MemFS()
    log = logged(PAGE_ENTRIES - 2, fs)
    before = log.anchor_bytes()
    staged = log.stage([(eventlog.LOCK, 0, 7, 700)] * 3, 5000, 9)  # completes page 0
    assert isinstance(staged, memoryview)
    assert log.anchor_bytes() == before  # nothing counts before confirm
    log.confirm()
    # documented section: count u32, newest link 8 bytes, the entries of the unfinished page
    tail = b"".join(e for e in log.entries(PAGE_ENTRIES))
    assert bytes(staged) == struct.pack("<I", PAGE_ENTRIES + 1) + log.head + tail
    assert len(tail) == ENTRY_SIZE and log.tail == tail
    assert bytes(log.anchor_view()) == log.anchor_bytes() == bytes(staged)
    assert fs.files["ev00.bin"] == b"".join(e for e in log.entries(0))[:PAGE_ENTRIES * ENTRY_SIZE]


def test_commits_reuse_two_buffers():
    log = EventLog(MemFS())
    buffers = {id(log._anchor), id(log._spare)}
    for i in range(3 * PAGE_ENTRIES):
        log.stage([(eventlog.DOOR_OPEN + i % 2, 1)], i, 0)
        if i % 5 == 4:
            log.abandon()
        else:
            log.confirm()
        assert {id(log._anchor), id(log._spare)} == buffers
    assert log.verify() is None


def test_abandoned_stage_leaves_the_committed_anchor_and_the_next_stage_continues_it():
    log = logged(5)
    before = log.anchor_bytes()
    log.stage([(eventlog.LOCK, 0, 7, 700)], 5000, 9)
    log.abandon()
    assert log.anchor_bytes() == before and log.count == 5
    log.stage([(eventlog.VOID, 0, 1, 100)], 5001, 9)
    log.confirm()
    assert log.count == 6 and log.verify() is None
    assert [e[3] for e in log.events(5)] == [eventlog.VOID]


def test_load_anchor_refused_leaves_the_log_as_it_was():
    log = logged(3)
    before = log.anchor_bytes()
    with pytest.raises(Exception, match="tail"):
        log.load_anchor(logged(4).anchor_bytes()[:-ENTRY_SIZE])
    assert log.anchor_bytes() == before and log.count == 3


def test_a_window_of_entries_reads_only_those_entries():
    """entries(start, stop) gives the same entries as the whole log sliced, from page files
    and from the tail, a missing page as None each; and reads no more than asked (the audit
    menu reads eight at a time: a page in one piece is a kilobyte of heap)."""
    fs = MemFS()
    log = logged(3 * PAGE_ENTRIES + 7, fs)          # three full pages and a tail of seven
    whole = list(log.entries())
    sizes = []
    real_open = fs.open

    def counting_open(name, mode):
        f = real_open(name, mode)
        real_read = f.read

        def read(n=-1):
            data = real_read(n)
            sizes.append(len(data))
            return data
        f.read = read
        return f

    fs.open = counting_open
    for start, stop in ((0, 8), (5, 13), (30, 40), (90, 3 * PAGE_ENTRIES + 7), (95, 99)):
        del sizes[:]
        assert list(log.entries(start, stop)) == whole[start:stop]
        assert sum(sizes) <= (stop - start) * ENTRY_SIZE, (start, stop, sizes)
    assert list(log.entries(3 * PAGE_ENTRIES + 7, 200)) == []
    del fs.files["ev01.bin"]
    assert list(log.entries(30, 36)) == whole[30:32] + [None] * 4


def _edit_entry(fs, seq, offset=20):
    """Flip a bit of entry `seq` in its page file (offset 20: its `c` value, an amount)."""
    page, index = divmod(seq, PAGE_ENTRIES)
    name = "ev%02d.bin" % (page % PAGES)
    data = bytearray(fs.files[name])
    data[index * ENTRY_SIZE + offset] ^= 0x01
    fs.files[name] = bytes(data)


@pytest.mark.parametrize("extra", [0, 5, PAGE_ENTRIES - 1])
def test_an_edit_of_the_oldest_entry_of_a_wrapped_ring_is_caught(extra):
    # a test lab with a flash programmer changes the amount of the oldest entry still held:
    # its link chains from the entry before it, which has left the ring
    fs = MemFS()
    log = logged(PAGES * PAGE_ENTRIES + 3 * PAGE_ENTRIES + extra, fs, per_commit=32)
    oldest = log.first_available()
    assert oldest > 0 and log.verify() is None
    _edit_entry(fs, oldest)
    assert log.verify() == oldest
    _edit_entry(fs, oldest)                        # put back: intact again
    _edit_entry(fs, oldest, offset=24)             # its link edited instead
    assert log.verify() == oldest


def test_the_oldest_entry_stays_checked_after_a_reload_and_a_cut_short_page_write():
    fs = MemFS()
    log = logged(PAGES * PAGE_ENTRIES + 2 * PAGE_ENTRIES - 3, fs, per_commit=1)
    again = EventLog(fs)
    again.load_anchor(log.anchor_bytes(), log.base)
    assert again.verify() is None
    # a commit that completes the page writes it over the file of the page before the
    # oldest held, and is then cut short: the chain still starts from the record's base
    again.stage([(eventlog.LOCK, 0, 7, 700)] * 4, 5000, 9)
    again.abandon()
    after_cut = EventLog(fs)
    after_cut.load_anchor(log.anchor_bytes(), log.base)
    assert after_cut.verify() is None
    _edit_entry(fs, after_cut.first_available())
    assert after_cut.verify() == after_cut.first_available()


def test_recover_anchor_finds_the_link_before_the_oldest_entry():
    fs = MemFS()
    logged(PAGES * PAGE_ENTRIES + 2 * PAGE_ENTRIES + 7, fs, per_commit=32)
    fresh = EventLog(fs)
    fresh.recover_anchor()
    assert fresh.first_available() > 0 and fresh.verify() is None
    _edit_entry(fs, fresh.first_available())
    assert fresh.verify() == fresh.first_available()
