"""Critical memory: boot recovery, copies, RAM ERROR and RAM clear, the round journal."""

import struct

import pytest

from firmware.drivers.fram import FRAM
from firmware.store import critical, eventlog, record
from firmware.store.critical import (
    STEP_CONFIRM,
    STEP_LOCK,
    STEP_SETTLE,
    STEP_VOID,
    CriticalMemory,
)
from firmware.store.errors import DuplicateStep, RamError, StoreError
from firmware.store.slots import FileSlot, FramSlot, PathFS
from host_tests.fakes.flash import MemFS
from host_tests.fakes.fram import FramBus


class Board:
    """FRAM + dict filesystem that survive 'reboots'."""

    def __init__(self):
        self.fram = bytearray(32768)
        self.files = {}

    def boot(self, now=100, cause=1):
        self.bus = FramBus(self.fram)
        self.fs = MemFS(self.files)
        cm = CriticalMemory([FramSlot(FRAM(self.bus), 0, 8192), FileSlot(self.fs, "cm_b.bin")], self.fs)
        self.status = cm.boot(now, cause)
        return cm


def ready():
    board = Board()
    cm = board.boot()
    cm.ram_clear({"jackpot": b"J0", "config": b"C0"}, 100, 5, True)
    return board, cm


def kinds(cm, last=6):
    return [(e[3], e[4]) for e in cm.log.events(max(0, cm.log.count - last))]


def test_blank_memory_is_ram_error_not_a_fresh_pool():
    board = Board()
    cm = board.boot()
    assert board.status == "RAM ERROR" and cm.ram_error and not cm.wagering_allowed
    assert cm.ram_error_reason == "memory blank" and "JACKPOT DISABLED" in cm.status_text()
    with pytest.raises(RamError):
        cm.commit(1, STEP_LOCK, {"jackpot": b"x"})
    with pytest.raises(RamError):
        cm.commit_admin({"jackpot": b"x"})
    assert board.files == {} and board.fram == bytearray(32768)  # nothing was written


def test_ram_clear_needs_accepted_reset_values_and_changes_nothing_otherwise():
    board = Board()
    cm = board.boot()
    for args, words in [(({"jackpot": b"x"}, 1, 5, False), "accepted"),
                        (({}, 1, 5, True), "reset values"),
                        (({"jackpot": b"x"}, 1, -1, True), "supervisor"),
                        (({"_journal": b"x"}, 1, 5, True), "section name"),
                        (({"jackpot": "text"}, 1, 5, True), "bytes"),
                        (({"jackpot": b"x"}, 1, 5, True, -1), "round number -1"),
                        (({"jackpot": b"x"}, 1, 5, True, 2**32), "round number")]:
        with pytest.raises(ValueError, match=words):
            cm.ram_clear(*args)
        assert cm.ram_error and board.files == {}
    cm.ram_clear({"jackpot": b"J0"}, 100, 5, True)
    assert cm.status == "ok" and cm.section("jackpot") == b"J0"
    assert (eventlog.RAM_CLEAR, 5) in kinds(cm)
    again = board.boot()
    assert board.status == "ok" and again.section("jackpot") == b"J0" and again.seq == cm.seq + 1


def test_reboot_restores_sections_journal_and_log():
    board, cm = ready()
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1", "round": b"R1"}, [(eventlog.LOCK, 0, 7, 700)], 200)
    again = board.boot(300, 2)
    assert board.status == "ok" and again.mode == critical.MODE_TWO_DEVICES
    assert (again.round_no, again.step) == (1, STEP_LOCK)
    assert again.section("jackpot") == b"J1" and again.section("config") == b"C0"
    assert again.section_names() == ["config", "jackpot", "round"]
    assert kinds(again, 2) == [(eventlog.LOCK, 0), (eventlog.POWER_UP, 2)]
    assert again.log.verify() is None


def test_journal_accepts_each_step_once():
    _board, cm = ready()
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    seq = cm.seq
    assert not cm.commit(1, STEP_LOCK, {"jackpot": b"J1 twice"})  # replay: refused, no write
    assert cm.seq == seq and cm.section("jackpot") == b"J1"
    with pytest.raises(DuplicateStep):
        cm.commit_step_once(1, STEP_LOCK, {"jackpot": b"J1 twice"})
    assert cm.commit(1, STEP_CONFIRM)
    assert cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"})
    assert not cm.commit(1, STEP_CONFIRM) and not cm.commit(1, STEP_SETTLE)
    assert cm.section("jackpot") == b"J1 paid"


@pytest.mark.parametrize("first, then, words", [
    ((1, STEP_LOCK), (2, STEP_LOCK), "still open"),
    ((1, STEP_SETTLE), (1, STEP_VOID), "already ended"),
    (None, (1, STEP_SETTLE), "must start with STEP_LOCK"),
    (None, (1, 9), "step"),
    (None, (-1, STEP_LOCK), "round number"),
    (None, (2 ** 32, STEP_LOCK), "round number"),
])
def test_journal_refuses_out_of_order_steps(first, then, words):
    _board, cm = ready()
    if first:
        cm.commit(first[0], STEP_LOCK)
        cm.commit(*first)
    seq = cm.seq
    with pytest.raises(ValueError, match=words):
        cm.commit(then[0], then[1], {"jackpot": b"changed"})
    assert cm.seq == seq and cm.section("jackpot") == b"J0"


def test_void_ends_the_round():
    _board, cm = ready()
    cm.commit(4, STEP_LOCK)
    assert cm.commit(4, STEP_VOID)
    assert cm.commit(5, STEP_LOCK)


@pytest.mark.parametrize("sections, events, now, words", [
    ({"_log": b""}, (), 1, "section name"),
    ({"jackpot": 5}, (), 1, "bytes"),
    ([b"x"], (), 1, "dict"),
    (None, [(999,)], 1, "unknown event"),
    (None, (), -5, "time"),
])
def test_bad_commit_input_changes_nothing(sections, events, now, words):
    board, cm = ready()
    fram, files, seq = bytes(board.fram), dict(board.files), cm.seq
    with pytest.raises(ValueError, match=words):
        cm.commit_admin(sections, events, now)
    assert bytes(board.fram) == fram and board.files == files and cm.seq == seq


def test_torn_fram_copy_is_rebuilt_from_flash_and_logged():
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    board.fram[20] ^= 0x10
    again = board.boot()
    assert board.status == "repaired" and again.section("jackpot") == b"J1"
    assert (eventlog.CM_ERROR, 0) in kinds(again) and (eventlog.CM_RECOVERED, 0) in kinds(again)
    bad_crc = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert bad_crc[5] == eventlog.REASON_BAD_CRC
    assert board.boot() and board.status == "ok"


def test_missing_flash_copy_is_rebuilt():
    board, cm = ready()
    del board.files["cm_b.bin"]
    again = board.boot()
    assert board.status == "repaired" and "cm_b.bin" in board.files
    error = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert error[4] == 1 and error[5] == eventlog.REASON_BLANK


def test_stale_copy_from_a_cut_commit_takes_the_newer_state():
    board, cm = ready()
    old = board.files["cm_b.bin"]
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    board.files["cm_b.bin"] = old  # as if the cut fell after the FRAM copy was written
    again = board.boot()
    assert again.section("jackpot") == b"J1" and (again.round_no, again.step) == (1, STEP_LOCK)
    error = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert error[5] == eventlog.REASON_STALE


def test_both_copies_bad_is_ram_error_and_keeps_the_evidence():
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    board.fram[30] ^= 1
    board.files["cm_b.bin"] = board.files["cm_b.bin"][:-1] + b"\x00"
    fram, files = bytes(board.fram), dict(board.files)
    again = board.boot()
    assert board.status == "RAM ERROR" and again.ram_error_reason == "no good copy"
    assert bytes(board.fram) == fram and board.files == files
    assert again.copy_status[0].startswith("bad crc") and again.copy_status[1].startswith("bad crc")
    again.ram_clear({"jackpot": b"reset"}, 900, 3, True)
    assert again.seq > cm.seq  # never reuses a sequence number seen on a copy
    assert again.log.verify() is None


def test_readback_mismatch_after_commit_is_repaired_and_logged():
    board, cm = ready()

    class Flaky(FileSlot):
        fail = 1

        def write(self, data):
            if Flaky.fail:
                Flaky.fail -= 1
                data = bytes(data[:-1]) + bytes([data[-1] ^ 1])  # the device stored a wrong byte
            FileSlot.write(self, data)

    cm.copies[1] = Flaky(board.fs, "cm_b.bin")
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    assert cm.status == "repaired" and cm.copy_status == ["ok", "ok"]
    assert (eventlog.CM_ERROR, 1) in kinds(cm) and (eventlog.CM_RECOVERED, 1) in kinds(cm)
    assert board.boot() and board.status == "ok"


def test_copy_that_cannot_be_written_leaves_the_other_committed():
    board, cm = ready()

    class Dead(FileSlot):
        def write(self, data):
            raise OSError(5)

    cm.copies[1] = Dead(board.fs, "cm_b.bin")
    assert cm.whole
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    assert "failed" in cm.copy_status[1] and (eventlog.CM_ERROR, 1) in kinds(cm)
    assert not cm.whole                             # the books stand on copy 0 alone
    again = board.boot()
    assert again.section("jackpot") == b"J1" and board.status == "repaired" and again.whole


def test_commit_failing_on_every_copy_raises_and_keeps_ram_state():
    _board, cm = ready()

    class Dead(FileSlot):
        def write(self, data):
            raise OSError(5)

    class Full(FileSlot):
        def write(self, data):
            raise MemoryError

    cm.copies = [Dead(MemFS(), "a"), Full(MemFS(), "b")]
    seq = cm.seq
    with pytest.raises(StoreError, match="every copy") as err:
        cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    assert cm.seq == seq and cm.section("jackpot") == b"J0"
    # the technician sees why each copy refused it
    assert "copy 0 5" in str(err.value) and "copy 1 MemoryError" in str(err.value)


def test_check_finds_a_corrupted_copy_while_running():
    board, cm = ready()
    assert cm.check(500) == 0
    board.fram[13] ^= 4
    assert cm.check(500) == 1
    assert bytes(board.fram[:len(cm._record)]) == cm._record


def test_broken_event_log_is_reported_at_boot_but_money_stays_available():
    board, cm = ready()
    for i in range(40):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)], 100 + i)
    data = bytearray(board.files["ev00.bin"])
    data[40] ^= 1
    board.files["ev00.bin"] = bytes(data)
    again = board.boot()
    assert again.log_broken_at == 1 and again.wagering_allowed
    assert (eventlog.LOG_ERROR, 0) in kinds(again)


def test_an_edited_oldest_entry_of_a_wrapped_log_is_reported_at_boot_and_the_books_kept():
    # a FRAM/flash programmer changes an amount in the oldest entry the ring still holds
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 7, 700)], 200)
    for i in range(eventlog.PAGES + 2):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1, 0, i)] * eventlog.PAGE_ENTRIES, 300 + i)
    oldest = cm.log.first_available()
    assert oldest > 0 and board.boot().log_broken_at is None
    page, index = divmod(oldest, eventlog.PAGE_ENTRIES)
    name = "ev%02d.bin" % (page % eventlog.PAGES)
    data = bytearray(board.files[name])
    data[index * eventlog.ENTRY_SIZE + 20] ^= 0x01
    board.files[name] = bytes(data)
    again = board.boot()
    assert again.log_broken_at == oldest and again.wagering_allowed
    assert again.section("jackpot") == b"J1" and (again.round_no, again.step) == (1, STEP_LOCK)
    assert (eventlog.LOG_ERROR, 0) in kinds(again)
    assert [e[5] for e in again.log.events() if e[3] == eventlog.LOG_ERROR][-1] == oldest


def test_a_wrapped_log_recorded_without_its_base_boots_and_records_it_at_the_next_page():
    # a record of firmware before the base section: the oldest entry cannot be checked (no
    # false alarm), until the window moves on and the base is recorded
    board, cm = ready()
    for i in range(eventlog.PAGES + 1):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1, 0, i)] * eventlog.PAGE_ENTRIES, 300 + i)
    seq, payload = record.decode(cm._record)
    sections = record.unpack_sections(payload)
    assert len(sections.pop(critical.LOG_BASE)) == eventlog.LINK_SIZE
    raw = record.encode(seq, record.pack_sections(sections))
    board.fram[:len(raw)] = raw
    board.files["cm_b.bin"] = raw
    again = board.boot()
    assert board.status == "ok" and again.log_broken_at is None and again.log.base is None
    again.commit_admin(None, [(eventlog.DOOR_CLOSE, 1)] * eventlog.PAGE_ENTRIES, 900)
    assert again.section(critical.LOG_BASE) == again.log.base is not None
    assert board.boot().log_broken_at is None


def _usable(sections):
    """The application's check of a copy at boot: a jackpot section it can decode."""
    if not bytes(sections.get("jackpot", b"")).startswith(b"J"):
        raise ValueError("jackpot state: bad magic")


def test_a_newest_copy_whose_sections_do_not_decode_falls_back_to_the_older_good_copy():
    # A newest copy with a good CRC whose jackpot section the application cannot decode must
    # not be copied over the older good one: boot checks first, takes the older copy, and
    # rebuilds the bad one from it, saying so.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [], 200)
    seq, payload = record.decode(cm._record)
    sections = record.unpack_sections(payload)
    sections["jackpot"] = b"garbage"
    raw = record.encode(seq + 1, record.pack_sections(sections))
    board.fram[:len(raw)] = raw                       # copy 0 newest, copy 1 the good one
    board.bus = FramBus(board.fram)
    board.fs = MemFS(board.files)
    again = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(board.fs, "cm_b.bin")],
                           board.fs)
    checked = []

    def check(found):
        checked.append(bytes(found["jackpot"]))
        _usable(found)

    assert again.boot(300, 1, check=check) == "repaired"
    assert checked == [b"garbage", b"J1"]             # newest first
    assert again.section("jackpot") == b"J1" and (again.round_no, again.step) == (1, STEP_LOCK)
    assert again.seq == seq + 1 and again.copy_status == ["ok", "ok"]   # + its power-up
    error = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert error[4:6] == (0, eventlog.REASON_BAD_STATE)
    recovered = [e for e in again.log.events() if e[3] == eventlog.CM_RECOVERED][-1]
    assert recovered[4:7] == (0, 1, seq)
    assert board.files["cm_b.bin"] == bytes(board.fram[:len(again._record)]) == again._record
    assert board.boot() and board.status == "ok"


def test_when_no_copy_decodes_boot_loads_the_newest_as_without_a_check():
    # nothing usable: the newest (good CRC) copy is loaded, so the application can say what
    # is wrong (RAM ERROR "bad record") and keep what it can through the RAM clear
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"X1"}, [], 200)
    seq, payload = record.decode(cm._record)
    sections = record.unpack_sections(payload)
    sections["jackpot"] = b"X2"
    raw = record.encode(seq + 1, record.pack_sections(sections))
    board.fram[:len(raw)] = raw
    board.bus = FramBus(board.fram)
    board.fs = MemFS(board.files)
    again = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(board.fs, "cm_b.bin")],
                           board.fs)
    assert again.boot(300, 1, check=_usable) == "repaired"
    assert again.section("jackpot") == b"X2" and again.seq >= seq + 1


def test_a_cut_short_commit_that_wrote_the_page_before_the_oldest_entry_raises_no_false_alarm():
    # the commit completing a page writes it over the file holding the entry before the
    # oldest one held, then fails on every copy (the power went): the reboot must verify
    # from the base in the record, and still catch an edit of the oldest entry
    board, cm = ready()
    for i in range(eventlog.PAGES):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1, 0, i)] * eventlog.PAGE_ENTRIES, 300 + i)
    while cm.log.count % eventlog.PAGE_ENTRIES != eventlog.PAGE_ENTRIES - 2:
        cm.commit_admin(None, [(eventlog.DOOR_CLOSE, 1)], 400)
    oldest = cm.log.first_available()
    assert oldest > 0

    class Dead(FileSlot):
        def write(self, data):
            raise OSError(5)

    cm.copies = [Dead(board.fs, "x"), Dead(board.fs, "y")]
    with pytest.raises(StoreError):
        cm.commit_admin(None, [(eventlog.TAMPER, 1)] * 2, 500)
    again = board.boot()                      # its power-up entry does not complete the page
    assert again.log.first_available() == oldest and again.log_broken_at is None
    page, index = divmod(oldest, eventlog.PAGE_ENTRIES)
    name = "ev%02d.bin" % (page % eventlog.PAGES)
    data = bytearray(board.files[name])
    data[index * eventlog.ENTRY_SIZE + 20] ^= 0x01
    board.files[name] = bytes(data)
    assert board.boot().log_broken_at == oldest


def test_two_copies_in_flash_say_so():
    fs = MemFS()
    cm = CriticalMemory([FileSlot(fs, "cm_a.bin"), FileSlot(fs, "cm_b.bin")], fs)
    cm.boot(1, 1)
    cm.ram_clear({"jackpot": b"x"}, 1, 1, True)
    assert cm.mode == critical.MODE_ONE_DEVICE and "2 COPIES IN FLASH ONLY" in cm.status_text()


def test_construction_refuses_a_single_copy_and_bad_slots():
    fs = MemFS()
    with pytest.raises(ValueError, match="two copies"):
        CriticalMemory([FileSlot(fs, "a")], fs)
    with pytest.raises(ValueError, match="plain file name"):
        FileSlot(fs, "dir/a")
    with pytest.raises(ValueError, match="does not fit"):
        FramSlot(FRAM(FramBus()), 30000, 8192)
    with pytest.raises(ValueError, match="exceeds"):
        FramSlot(FRAM(FramBus()), 0, 64).write(record.encode(1, bytes(100)))


def test_use_before_boot_is_refused():
    fs = MemFS()
    cm = CriticalMemory([FileSlot(fs, "a"), FileSlot(fs, "b")], fs)
    with pytest.raises(StoreError, match="before boot"):
        cm.commit(1, STEP_LOCK)


def test_path_fs_on_the_host(tmp_path):
    fs = PathFS(str(tmp_path))
    cm = CriticalMemory([FileSlot(fs, "cm_a.bin"), FileSlot(fs, "cm_b.bin")], fs)
    cm.boot(1, 1)
    cm.ram_clear({"jackpot": b"x"}, 1, 1, True)
    cm.commit(1, STEP_LOCK, {"jackpot": b"y"})
    again = CriticalMemory([FileSlot(fs, "cm_a.bin"), FileSlot(fs, "cm_b.bin")], fs)
    assert again.boot(2, 1) == "ok" and again.section("jackpot") == b"y"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cm_a.bin", "cm_b.bin"]


def test_ram_clear_that_cannot_be_written_keeps_the_committed_sections():
    board, cm = ready()

    class Dead(FileSlot):
        def write(self, data):
            raise OSError(5)

    cm.copies = [Dead(MemFS(), "a"), Dead(MemFS(), "b")]
    with pytest.raises(StoreError):
        cm.ram_clear({"jackpot": b"reset"}, 100, 5, True)
    assert cm.section("jackpot") == b"J0" and cm.section("config") == b"C0"


# --- buffers kept for the life of the store: a commit allocates nothing record-sized ---

def buffers(cm):
    return {id(cm._buf), id(cm._scratch)}


def test_steady_state_commits_reuse_the_two_record_buffers():
    board, cm = ready()
    kept = buffers(cm)
    for r in range(1, 60):  # the log tail fills and empties: 3 events a round, pages written
        assert cm.commit(r, STEP_LOCK, {"jackpot": b"J%d" % r}, [(eventlog.LOCK, 0, 7, 700)], 200 + r)
        assert cm.commit(r, STEP_SETTLE, {"jackpot": b"P%d" % r},
                         [(eventlog.JACKPOT_HIT, 1, 6, 100), (eventlog.SETTLE, 0, 100, 5)], 200 + r)
        assert buffers(cm) == kept
    assert "ev04.bin" in board.files
    assert bytes(board.fram[:len(cm._record)]) == cm._record == board.files["cm_b.bin"]
    again = board.boot()
    assert board.status == "ok" and again.section("jackpot") == b"P59" and again.log.verify() is None


def test_a_record_that_outgrows_the_buffers_grows_them_and_is_stored_whole():
    board, cm = ready()
    small = len(cm._scratch)
    big = bytes(range(256)) * 16
    cm.commit(1, STEP_LOCK, {"jackpot": big}, [(eventlog.LOCK, 0, 7, 700)], 200)
    assert len(cm._scratch) == len(cm._buf) > len(cm._record) > small
    assert record.decode(cm._record)[0] == cm.seq and cm.status == "ok"
    kept = buffers(cm)
    cm.commit(1, STEP_SETTLE, {"jackpot": big[:100]}, [], 201)
    assert buffers(cm) == kept
    again = board.boot()
    assert board.status == "ok" and again.section("jackpot") == big[:100]


def test_readback_finds_a_copy_longer_than_the_record():
    board, cm = ready()

    class Longer(FileSlot):
        def write(self, data):
            FileSlot.write(self, bytes(data) + b"\x00")  # a stale byte left at the end

    cm.copies[1] = Longer(board.fs, "cm_b.bin")
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    assert (eventlog.CM_ERROR, 1) in kinds(cm) and cm.status == "repaired"


def test_readback_of_a_slot_without_same_still_checks_the_copy():
    board, cm = ready()

    class Plain:
        """A slot with only read() and write(), whose first write stores a wrong byte."""

        physical = "flash"

        def __init__(self, slot):
            self.slot = slot
            self.fail = 1

        def read(self):
            return self.slot.read()

        def write(self, data):
            if self.fail:
                self.fail -= 1
                data = bytes(data[:-1]) + bytes([data[-1] ^ 1])
            self.slot.write(data)

    cm.copies[1] = Plain(FileSlot(board.fs, "cm_b.bin"))
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    assert (eventlog.CM_ERROR, 1) in kinds(cm) and (eventlog.CM_RECOVERED, 1) in kinds(cm)
    assert cm.check(300) == 0
    assert board.files["cm_b.bin"] == cm._record


def test_a_section_of_a_failed_commit_does_not_reach_the_next_one():
    board, cm = ready()
    cm.commit_admin({"jackpot": b"J1"}, [], 150)  # the sections dicts now take turns
    good = cm.copies

    class Dead(FileSlot):
        def write(self, data):
            raise OSError(5)

    cm.copies = [Dead(MemFS(), "a"), Dead(MemFS(), "b")]
    with pytest.raises(StoreError):
        cm.commit_admin({"extra": b"X", "jackpot": b"lost"}, [], 160)
    cm.copies = good
    cm.commit_admin({"config": b"C1"}, [], 170)
    assert cm.section_names() == ["config", "jackpot"] and cm.section("jackpot") == b"J1"
    again = board.boot()
    assert again.section_names() == ["config", "jackpot"] and again.section("extra") is None


def test_store_sections_read_as_bytes():
    _board, cm = ready()
    cm.commit(3, STEP_LOCK, {}, [(eventlog.LOCK, 0, 7, 700)], 200)
    assert cm.section("_log") == cm.log.anchor_bytes() and isinstance(cm.section("_log"), bytes)
    assert cm.section("_journal") == b"\x03\x00\x00\x00\x01"


def test_record_buffers_are_made_with_the_object_and_a_table_record_fits_them():
    board = Board()
    cm = board.boot()  # blank: RAM ERROR, nothing committed
    kept = buffers(cm)
    assert len(cm._buf) == len(cm._scratch) == critical.RECORD_CAPACITY and cm._record is None
    jackpot = bytes(700)  # about the jackpot section with 25 hits on record
    cm.ram_clear({"jackpot": jackpot, "round": bytes(57)}, 100, 5, True)
    for i in range(30):  # with the RAM clear entry, the log tail at its longest: 31 entries
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)], 200 + i)
    assert cm.log.count % 32 == 31 and len(cm._record) > 1700
    assert buffers(cm) == kept


@pytest.mark.parametrize("capacity", [0, 16, "2048", None])
def test_bad_record_capacity_is_refused(capacity):
    with pytest.raises(ValueError, match="capacity"):
        CriticalMemory([FileSlot(MemFS(), "a"), FileSlot(MemFS(), "b")], MemFS(), capacity=capacity)


def test_a_small_capacity_grows_at_the_first_commit_and_keeps_working():
    board = Board()
    board.bus = FramBus(board.fram)
    board.fs = MemFS(board.files)
    cm = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(board.fs, "cm_b.bin")], board.fs,
                        capacity=64)
    cm.boot(100, 1)
    cm.ram_clear({"jackpot": b"J0" * 100}, 100, 5, True)
    assert len(cm._buf) > len(cm._record) > 200
    again = board.boot()
    assert board.status == "ok" and again.section("jackpot") == b"J0" * 100


def test_a_copy_the_heap_refuses_is_a_failed_copy_not_a_lost_commit():
    # littlefs allocates each open file object (1.5-2.4 KB on MicroPython): in a fragmented
    # heap the flash copy's write or read-back can raise MemoryError
    board, cm = ready()

    class NoRoom(FileSlot):
        fail_writes = 2

        def write(self, data):
            if NoRoom.fail_writes:
                NoRoom.fail_writes -= 1
                raise MemoryError("memory allocation failed, allocating 2400 bytes")
            FileSlot.write(self, data)

    cm.copies[1] = NoRoom(board.fs, "cm_b.bin")
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 7, 700)], 200)
    assert cm.section("jackpot") == b"J1" and cm.status == "repaired"
    # the copy missed the commit, and its rebuild failed too: both logged, in a commit that
    # (the heap having room again) reached both copies; not read back, that commit leaves the
    # copy failed (the jackpot closed) until a read-back finds it whole, which logs its end
    assert kinds(cm, 3) == [(eventlog.LOCK, 0), (eventlog.CM_ERROR, 1), (eventlog.CM_ERROR, 1)]
    assert cm.copy_status == ["ok", "failed"] and not cm.whole
    assert cm.check(300) == 0 and cm.copy_status == ["ok", "ok"] and cm.whole
    assert kinds(cm, 1) == [(eventlog.CM_RECOVERED, 1)]
    again = board.boot()
    assert board.status == "ok" and again.section("jackpot") == b"J1"


def test_a_read_back_the_heap_refuses_counts_as_a_copy_not_verified():
    board, cm = ready()

    class NoRoomToRead(FileSlot):
        def same(self, data, chunk):
            raise MemoryError("memory allocation failed")

    cm.copies[1] = NoRoomToRead(board.fs, "cm_b.bin")
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [], 200)
    assert cm.section("jackpot") == b"J1" and (eventlog.CM_ERROR, 1) in kinds(cm)
    assert board.files["cm_b.bin"] == cm._record  # written, only its check could not be made


def test_a_committed_section_is_the_copy_written_not_the_callers_buffer():
    board, cm = ready()
    mine = bytearray(b"J1 state")
    view = memoryview(mine)[:4]                     # a memoryview section, as the controller gives
    cm.commit(4, STEP_LOCK, {"jackpot": view, "config": mine}, [], 200)
    mine[:] = b"XXXXXXXX"                           # the caller reuses its buffer at once
    assert cm.section("jackpot") == b"J1 s" and cm.section("config") == b"J1 state"
    committed = cm.copies[0].read()
    assert bytes(committed).find(b"J1 state") > 0
    cm.commit_admin({"config": b"C2"}, [], 210)     # the next commit keeps the untouched sections
    assert cm.section("jackpot") == b"J1 s" and cm.section("config") == b"C2"
    again = board.boot()
    assert again.section("jackpot") == b"J1 s" and again.section("config") == b"C2"


def test_point_sections_gives_views_of_each_section_in_the_copy():
    sections = {"b": b"second", "a": bytearray(b"first"), "_log": b"L", "c": b""}
    buf = bytearray(256)
    length = record.encode_into(buf, 9, sections)
    assert record.decode(bytes(buf[:length])) == (9, record.pack_sections(sections))
    log = sections["_log"]
    record.point_sections(buf, sections, "_log")
    assert sections["_log"] is log                  # the skipped one is left as it was
    for name, want in (("a", b"first"), ("b", b"second"), ("c", b"")):
        assert isinstance(sections[name], memoryview) and bytes(sections[name]) == want
        assert sections[name].obj is buf            # views of the copy, no new bytes


class FailingFS(MemFS):
    """A flash filesystem that refuses to write the files whose names start with `refuse`
    (an I/O error, as a worn or failing flash gives)."""

    def __init__(self, files, refuse):
        super().__init__(files)
        self.refuse = refuse

    def open(self, name, mode):
        if "w" in mode and any(name.startswith(p) for p in self.refuse):
            raise OSError(5, "flash write failed")
        return super().open(name, mode)


def fill_log_tail(cm, tail):
    """Commit door entries until the unfinished log page holds `tail` entries."""
    while cm.log.count % eventlog.PAGE_ENTRIES != tail:
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)], 200)


def test_a_committed_step_stays_committed_when_its_repair_entries_cannot_be_written():
    # The flash copy and the log pages refuse writes; the FRAM copy takes the step.  The
    # read-back logs the flash copy's failure in a commit of its own, whose entries complete
    # a log page that cannot be written: the step was committed all the same and must be
    # reported so, with the entries kept for later and the fault named.
    board, cm = ready()
    fill_log_tail(cm, 30)
    cm.copies[1].fs = cm.log.fs = FailingFS(board.files, ("cm_b", "ev"))
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300) is True
    assert cm.round_no == 1 and cm.step == STEP_LOCK and cm.section("jackpot") == b"J1"
    assert cm.log_fault and "flash write failed" in cm.status_text()
    assert "COPY 1 FAILED" in cm.status_text()      # written, then not rebuilt either
    # copy 1 still holds the record before (not the one committed), and could not be rebuilt
    # (kind, a, b, c, time): each keeps the time it happened
    assert cm._pending == [(eventlog.CM_ERROR, 1, eventlog.REASON_READBACK, 0, 300),
                           (eventlog.CM_ERROR, 1, eventlog.REASON_IO, 0, 300)]
    waiting = list(cm._pending)
    cm.copies[1].fs = cm.log.fs = MemFS(board.files)   # the flash works again
    cm.commit_admin(None, [(eventlog.DOOR_CLOSE, 1)], 400)
    assert cm._pending == [] and cm.log_fault == ""
    logged = [(e[3], e[4], e[5]) for e in cm.log.events(cm.log.count - 4)]
    # and the commit wrote copy 1 whole again: its read-back logs the fault's end
    assert logged == [w[:3] for w in waiting] + [(eventlog.DOOR_CLOSE, 1, 0),
                                                 (eventlog.CM_RECOVERED, 1, 0xFFFF)]
    # logged at 400 with the door entry, each with the time it happened
    assert [e[1] for e in cm.log.events(cm.log.count - 4)] == [300, 300, 400, 400]
    assert "FAULT" not in cm.status_text()
    again = board.boot()                          # and the FRAM copy was the step's
    assert again.round_no == 1 and again.step == STEP_LOCK


def test_a_boot_whose_log_page_cannot_be_written_still_starts_and_says_why():
    board, cm = ready()
    fill_log_tail(cm, 31)                         # the power-up entry completes the page
    board.fs = FailingFS(board.files, ("ev",))
    cm = CriticalMemory([FramSlot(FRAM(FramBus(board.fram)), 0, 8192),
                         FileSlot(board.fs, "cm_b.bin")], board.fs)
    assert cm.boot(500, 3) == critical.STATUS_OK  # no exception: the copies are good
    assert cm.wagering_allowed
    assert "LOG NOT WRITTEN" in cm.status_text() and "flash write failed" in cm.status_text()
    assert cm._pending == [(eventlog.POWER_UP, 3, 0, 0, 500)]
    with pytest.raises(OSError):                  # a step that completes the page is refused
        cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 600)
    assert cm.round_no == 0 and cm._pending == [(eventlog.POWER_UP, 3, 0, 0, 500)]
    cm.log.fs = MemFS(board.files)                # repaired: the power-up goes with the step
    assert cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 600)
    assert kinds(cm, 2) == [(eventlog.POWER_UP, 3), (eventlog.LOCK, 0)]
    assert [e[1] for e in cm.log.events(cm.log.count - 2)] == [500, 600]   # when each happened


def test_entries_kept_for_later_never_overfill_a_commit():
    board, cm = ready()
    cm._pending = [(eventlog.CM_ERROR, 1, eventlog.REASON_IO)] * 3
    full = [(eventlog.DOOR_OPEN, 1)] * eventlog.MAX_EVENTS_PER_COMMIT
    cm.commit_admin(None, full[:-2], 300)         # room for two of the three
    assert len(cm._pending) == 1
    cm.commit_admin(None, full, 301)              # no room: it waits again
    assert len(cm._pending) == 1
    cm.commit_admin(None, [], 302)
    assert cm._pending == [] and kinds(cm, 1) == [(eventlog.CM_ERROR, 1)]


def test_a_garbage_sequence_number_in_a_bad_copy_does_not_block_the_ram_clear():
    board, cm = ready()
    board.fram[4:8] = b"\xff\xff\xff\xff"         # copy 0: its sequence field, so a bad CRC
    del board.files["cm_b.bin"]                   # copy 1: gone
    cm = board.boot()
    assert cm.ram_error
    cm.ram_clear({"jackpot": b"J0"}, 100, 5, True)
    assert not cm.ram_error and board.boot().section("jackpot") == b"J0"


def test_ram_error_names_each_copy_and_the_ram_clear_logs_why():
    board, cm = ready()
    board.fram[40] ^= 1                           # copy 0: one bit flipped
    board.files["cm_b.bin"] = board.files["cm_b.bin"][:20]   # copy 1: cut short
    cm = board.boot(cause=3)
    assert cm.ram_error and cm.ram_error_reason == "no good copy"
    assert cm.copy_status[0].startswith("bad crc") and cm.copy_status[1].startswith("truncated")
    cm.ram_clear({"jackpot": b"J0"}, 100, 5, True)
    logged = [(e[3], e[4], e[5]) for e in cm.log.events(cm.log.count - 4)]
    assert logged[:3] == [(eventlog.POWER_UP, 3, 0),
                          (eventlog.CM_ERROR, 0, eventlog.REASON_BAD_CRC),
                          (eventlog.CM_ERROR, 1, eventlog.reason_code("truncated"))]
    assert logged[3][:2] == (eventlog.RAM_CLEAR, 5)


def test_a_device_that_does_not_answer_is_an_io_error_in_the_log():
    assert eventlog.reason_code("io error [Errno 5] EIO") == eventlog.REASON_IO


@pytest.mark.parametrize("name, value, words", [
    ("_journal", b"\x05\x00\x00", "journal"),                       # not round u32 + step u8
    ("_journal", struct.pack("<IB", 9, 7), "journal"),              # no step 7
    ("_log", b"\x00" * 5, "log"),                                    # shorter than the anchor
    ("_log", struct.pack("<I8s", 3, bytes(8)), "log"),               # 3 events, no tail entries
    ("_logbase", bytes(5), "log base"),                              # not an 8-byte link
    ("_log", struct.pack("<I8s", 0xFFFFFFE0, bytes(8)), "log count"),  # 2**32 - 32 events: never
])
def test_a_copy_whose_store_sections_do_not_parse_is_a_bad_copy_not_a_crash(name, value, words):
    # A copy with a good CRC (written by other firmware, or crafted by a test lab) whose own
    # sections are malformed must be refused like any bad copy: boot takes the other copy and
    # rebuilds this one, never crashes, and never copies the bad state over the good one.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [], 200)
    seq, payload = record.decode(cm._record)
    sections = record.unpack_sections(payload)
    sections[name] = value
    raw = record.encode(seq + 1, record.pack_sections(sections))
    board.fram[:len(raw)] = raw
    again = board.boot()
    assert board.status == "repaired" and again.copy_status == ["ok", "ok"]
    assert again.section("jackpot") == b"J1" and (again.round_no, again.step) == (1, STEP_LOCK)
    error = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert error[4] == 0 and error[5] == eventlog.REASON_OTHER
    assert again.log.verify() is None
    assert board.boot() and board.status == "ok"
    # both copies so: RAM ERROR naming the section, not a crash
    board.fram[:len(raw)] = raw
    board.files["cm_b.bin"] = raw
    third = board.boot()
    assert board.status == "RAM ERROR" and words in third.copy_status[0]


@pytest.mark.parametrize("seq", [0x80000000, 0xFFFFFFFF])
def test_a_copy_with_a_sequence_number_no_table_reaches_is_a_bad_copy_not_a_crash(seq):
    # a good CRC over a header number of 2**31 or more (a crafted copy, a fault in the
    # firmware that wrote it): it would win every boot and leave no number after it (the
    # boot's own commit could not be made): refused like a bad copy, the other one taken
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [], 200)
    _seq, payload = record.decode(cm._record)
    sections = record.unpack_sections(payload)
    sections["jackpot"] = b"J2"
    raw = record.encode(seq, record.pack_sections(sections))
    board.fram[:len(raw)] = raw
    again = board.boot()
    assert board.status == "repaired" and again.section("jackpot") == b"J1"
    assert again.seq == cm.seq + 1 and again.copy_status == ["ok", "ok"]
    error = [e for e in again.log.events() if e[3] == eventlog.CM_ERROR][-1]
    assert error[4] == 0
    board.files["cm_b.bin"] = raw                     # both: RAM ERROR, then a RAM clear
    board.fram[:len(raw)] = raw
    third = board.boot()
    assert board.status == "RAM ERROR" and "seq" in third.copy_status[0]
    third.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    assert third.seq < 0x80000000 and board.boot() and board.status == "ok"


def test_a_log_page_numbered_beyond_any_table_does_not_block_the_ram_clear():
    # RAM ERROR, and a page file on flash whose entries claim numbers no table reaches (a
    # crafted or garbled page that still looks whole): the RAM clear continues the log after
    # the newest believable page, and the board then boots
    board, cm = ready()
    for i in range(3):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1, 0, i)] * eventlog.PAGE_ENTRIES, 300 + i)
    board.fram[:] = bytes(len(board.fram))
    board.files["cm_b.bin"] = b"CM"
    for first in (0xFFFFFFE0, 0x80000000):
        page = first // eventlog.PAGE_ENTRIES
        board.files["ev%02d.bin" % (page % eventlog.PAGES)] = b"".join(
            eventlog.make_body(first + i, 1, 0, eventlog.DOOR_OPEN) + bytes(8)
            for i in range(eventlog.PAGE_ENTRIES))
    again = board.boot()
    assert board.status == "RAM ERROR"
    again.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    assert again.log.count < 0x80000000
    third = board.boot()
    assert board.status == "ok" and third.section("jackpot") == b"J0"


def test_a_flash_copy_that_cannot_be_read_is_an_io_error_not_blank_memory():
    # A flash file the filesystem refuses to read (EIO: a failing chip, a corrupt littlefs)
    # is not a missing copy: with the FRAM blank too, the board said "memory blank" as if it
    # were new and logged nothing of the copies it could not read.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [], 200)
    board.fram[:] = bytes(len(board.fram))            # the FRAM replaced by a new chip

    class Unreadable(MemFS):
        def open(self, name, mode):
            if name == "cm_b.bin" and "r" in mode:
                raise OSError(5)                      # EIO
            return MemFS.open(self, name, mode)

    board.bus = FramBus(board.fram)
    fs = Unreadable(board.files)
    again = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(fs, "cm_b.bin")], fs)
    assert again.boot(300, 1) == "RAM ERROR"
    assert again.ram_error_reason == "no good copy"
    assert again.copy_status[0] == "blank" and again.copy_status[1].startswith("io error")
    assert board.files["cm_b.bin"]                    # the evidence is kept
    # a missing file is still a blank copy
    assert FileSlot(MemFS({}), "cm_b.bin").read() is None


# ------------------------------------------------------------------ the "key required" mark

def keyed_boot(board, key, now=100):
    """A boot whose program check did (key True) or did not authenticate the program."""
    board.bus = FramBus(board.fram)
    board.fs = MemFS(board.files)
    cm = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(board.fs, "cm_b.bin")],
                        board.fs)
    cm.key = key
    board.status = cm.boot(now, 1)
    return cm


def test_a_keyed_boot_marks_the_record_in_its_power_up_commit_and_the_mark_stays():
    board, cm = ready()
    assert not cm.keyed and board.fram[3] == 0 and "KEYED" not in cm.status_text()
    seq = cm.seq
    cm = keyed_boot(board, True)
    # no commit of its own: the boot's power-up commit carries it, in both copies
    assert cm.keyed and cm.seq == seq + 1 and board.fram[3] == 1 and board.files["cm_b.bin"][3] == 1
    assert cm.status_text() == "MEMORY OK FRAM+FLASH SEQ %d KEYED" % cm.seq
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"})
    # a boot without the key: the mark read back, kept in every commit after
    again = keyed_boot(board, False)
    assert again.keyed and board.status == "ok" and again.section("jackpot") == b"J1"
    again.commit(1, STEP_SETTLE)
    assert board.fram[3] == 1 and keyed_boot(board, False).keyed


def test_only_a_ram_clear_removes_the_mark_and_one_made_with_the_key_sets_it():
    board, cm = ready()
    cm = keyed_boot(board, True)
    again = keyed_boot(board, False)
    again.ram_clear({"jackpot": b"J0"}, 200, 5, True)
    assert not again.keyed and board.fram[3] == 0 and not keyed_boot(board, False).keyed
    # a new board commissioned keyed: marked by the RAM clear itself, not first by the boot
    # after it (the key deleted before that boot must not find an unmarked record)
    board = Board()
    cm = keyed_boot(board, True)
    assert cm.ram_error
    cm.ram_clear({"jackpot": b"J0"}, 200, 5, True)
    assert cm.keyed and keyed_boot(board, False).keyed


def test_a_record_of_the_older_firmware_reads_unmarked_and_an_unkeyed_table_stays_so():
    board, cm = ready()             # flags byte 0, as the firmware before the mark wrote it
    for _ in range(2):
        cm = keyed_boot(board, False)
        assert board.status == "ok" and not cm.keyed and board.fram[3] == 0


def test_a_power_cut_while_the_mark_is_written_leaves_the_record_before_or_after():
    # the boot that marks the record writes it to the FRAM, then to the flash file: cut at
    # every byte of either copy, the next (unkeyed) boot finds the mark only once a whole
    # marked copy exists, and then always
    board, cm = ready()
    fram, files = bytes(board.fram), dict(board.files)
    keyed_boot(board, True)
    new_fram, new_file = bytes(board.fram), board.files["cm_b.bin"]
    size = len(new_file)
    assert new_fram[:size] == new_file
    cases = []
    for cut in range(size + 1):         # the FRAM copy torn, the file the record before
        cases.append((new_fram[:cut] + fram[cut:], files["cm_b.bin"], cut == size))
    for cut in range(size + 1):         # the FRAM copy written, the file torn
        cases.append((new_fram, new_file[:cut], True))
    for memory, file, marked in cases:
        board.fram[:] = memory
        board.files.clear()
        board.files["cm_b.bin"] = file
        again = keyed_boot(board, False)
        assert again.wagering_allowed and again.keyed == marked
        assert again.section("jackpot") == b"J0"


# --- a RAM clear never starts the round numbers again under the kept log ---

def play_rounds(cm, first, last, extra=10):
    """Rounds first..last, each a LOCK (with `extra` door entries) and a SETTLE."""
    for r in range(first, last + 1):
        cm.commit(r, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)] + [(eventlog.DOOR_OPEN, 1)] * extra,
                  200 + r)
        cm.commit(r, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 0)], 300 + r)


def rounds_of(cm, kind=eventlog.LOCK):
    return [e[2] for e in cm.log.events() if e[3] == kind]


def test_a_ram_clear_after_both_copies_are_lost_numbers_rounds_after_the_kept_log():
    # Rounds 1..4 logged: a page of 32 entries is on flash (the RAM clear's entry, rounds
    # 1..3), the rest went with the lost record.  The kept log holds rounds 1, 2 and 3: the
    # next round must be 4, never a second "round 1" in the same log.
    board, cm = ready()
    play_rounds(cm, 1, 4)
    board.fram[40] ^= 1
    board.files["cm_b.bin"] = b"CM"
    again = board.boot()
    assert board.status == "RAM ERROR"
    again.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    assert rounds_of(again) == [1, 2, 3]
    assert again.round_no == 3 and again.step == 0
    assert [e[2] for e in again.log.events() if e[3] == eventlog.RAM_CLEAR][-1] == 3
    assert again.commit(4, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 950)
    third = board.boot()
    assert board.status == "ok" and rounds_of(third) == [1, 2, 3, 4]


def test_a_ram_clear_with_the_record_still_readable_keeps_its_round_numbers():
    # the store reads well but the table cannot use its record (the controller's "bad
    # record", a commit that failed on every copy): the log's tail is kept, and its rounds
    board, cm = ready()
    play_rounds(cm, 1, 2, extra=0)
    cm.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    assert cm.round_no == 2
    assert not cm.commit(1, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 950)  # no second round 1
    assert cm.commit(3, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 950)
    assert rounds_of(cm) == [1, 2, 3]


def test_a_ram_clear_numbers_after_the_highest_round_of_a_log_older_firmware_reset():
    # firmware before this fix started again at round 1 after a RAM clear: the kept log holds
    # rounds 1..5 and then 1..2; the next clear goes on after 5, not after 2
    board, cm = ready()
    play_rounds(cm, 1, 5, extra=0)
    cm._write({"jackpot": b"J0"}, [(eventlog.RAM_CLEAR, 5, cm.seq)], 400, 0, 0, True)   # as it did
    play_rounds(cm, 1, 2, extra=0)
    cm.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    assert cm.round_no == 5


def _ram_clear_after_rounds_with_a_garbled_log_page(garble):
    """Rounds 1-3 played, garble(page) applied to the log page on flash, both copies lost (a
    bit of the FRAM copy flipped, the flash copy cut): (board, memory) after the RAM clear."""
    board, cm = ready()
    play_rounds(cm, 1, 4)
    page = bytearray(board.files["ev00.bin"])
    garble(page)
    board.files["ev00.bin"] = bytes(page)
    board.fram[40] ^= 1
    board.files["cm_b.bin"] = b"CM"
    again = board.boot()
    again.ram_clear({"jackpot": b"J0"}, 900, 5, True)
    return board, again


def test_a_garbled_round_in_the_kept_log_does_not_stop_the_rounds_after_a_ram_clear():
    # an entry on flash whose round reads 0xFFFFFFFF (a garbled page that still looks whole):
    # believed, the next round would be 2**32 and no round could ever lock again
    def garble(page):
        page[5 * eventlog.ENTRY_SIZE + 8:5 * eventlog.ENTRY_SIZE + 12] = b"\xff\xff\xff\xff"

    board, again = _ram_clear_after_rounds_with_a_garbled_log_page(garble)
    assert again.round_no == 3
    assert again.commit(4, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 950)


def test_a_round_garbled_below_2_31_in_the_kept_log_is_not_believed_either():
    # a flipped bit in a round field on flash (round 2 read as 2**30 + 2): believed, every
    # round after the clear would be numbered past 2**30 (no longer a small int on a 32-bit
    # board, and past what the display and the log's readers expect); the entry's link no
    # longer matches its body, so it is not taken
    def garble(page):
        at = 13 * eventlog.ENTRY_SIZE + 8
        assert struct.unpack_from("<I", page, at)[0] == 2
        page[at + 3] ^= 0x40

    board, again = _ram_clear_after_rounds_with_a_garbled_log_page(garble)
    assert again.round_no == 3


def test_reserve_makes_the_buffers_for_the_largest_record_and_keeps_the_committed_copy(
        monkeypatch):
    board, cm = ready()
    cm.commit_admin({"jackpot": b"J1", "config": b"C" * 40}, [], 150)
    committed = cm._record
    size = cm.reserve({"jackpot": 3000})        # "config" as committed: 40 bytes
    assert size == len(cm._buf) == len(cm._scratch) and cm._record == committed
    # the largest record it was told of: the jackpot at 3,000 bytes, a full log tail
    for i in range(31 - cm.log.count % 32):
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)], 200 + i)
    kept = buffers(cm)
    cm.commit_admin({"jackpot": bytes(3000)}, [], 300)
    base = 5 + len(critical.LOG_BASE) + eventlog.LINK_SIZE     # once the ring has wrapped
    assert cm.log.count % 32 == 31 and buffers(cm) == kept and len(cm._record) == size - 1 - base
    assert cm.reserve({"jackpot": 3000}) == size and buffers(cm) == kept   # nothing to make

    committed = cm._record

    def no_heap(n):
        raise MemoryError("memory allocation failed, allocating %d bytes" % n)

    monkeypatch.setattr(critical, "bytearray", no_heap, raising=False)
    with pytest.raises(MemoryError):
        cm.reserve({"jackpot": 4000})
    assert buffers(cm) == kept and cm._record == committed == board.files["cm_b.bin"]


# --- times: a board whose clock starts again at a fixed date after a power cut --------------

def times(cm, first=0):
    """(time, kind, marked unsure) of every entry from `first`."""
    return [(eventlog.unpack(raw)[1], eventlog.unpack(raw)[3], eventlog.time_unsure(raw))
            for raw in cm.log.entries(first)]


def test_a_clock_earlier_than_the_log_after_a_power_cut_never_logs_a_time_before_it():
    """A Pico W's clock reads 2021-01-01 again after every power cut: the log's times would go
    back, and a supervisor would read events 'before' older ones.  The boot shifts the clock on
    to the newest time the log holds (clock_shift) and marks every entry while it is so; the
    clock moving on moves the times on from there."""
    board, cm = ready()
    cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)], 5000)
    start = cm.log.count
    again = board.boot(now=30)                  # the clock started again, far behind
    assert board.status == "ok" and again.clock_unsure and again.clock_shift == 4970
    again.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 30 + 4970 + 7)
    assert times(again, start) == [(5000, eventlog.POWER_UP, True), (5007, eventlog.LOCK, True)]
    assert again.log.verify() is None
    # a real time (NTP) ends it: times are the clock's again, unmarked
    again.clock_real()
    assert (again.clock_shift, again.clock_unsure) == (0, False)
    again.commit(1, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 5)], 90000)
    assert times(again, start + 2) == [(90000, eventlog.SETTLE, False)]
    # the next boot believes a clock that is not behind the log, and the mark is not kept
    third = board.boot(now=90100)
    assert not third.clock_unsure and times(third, start + 3) == [(90100, eventlog.POWER_UP, False)]


def test_an_entry_of_earlier_firmware_reads_with_its_time_known():
    """The mark is the top bit of the kind field, 0 in every entry logged before it: those
    read as they did, their kind whole and their time known."""
    log = eventlog.EventLog(MemFS({}))
    log.stage([(eventlog.LOCK, 0, 1, 100)], 777, 3)
    log.confirm()
    raw = next(log.entries())
    assert struct.unpack_from("<H", raw, 12)[0] == eventlog.LOCK
    assert eventlog.unpack(raw)[1:7] == (777, 3, eventlog.LOCK, 0, 1, 100)
    assert not eventlog.time_unsure(raw)
    log.stage([(eventlog.LOCK, 0, 1, 100)], 778, 3, unsure=True)
    log.confirm()
    raw = list(log.entries())[1]
    assert struct.unpack_from("<H", raw, 12)[0] == eventlog.LOCK | eventlog.CLOCK_UNSURE
    assert eventlog.unpack(raw)[3] == eventlog.LOCK and eventlog.time_unsure(raw)
    assert log.verify() is None


def test_a_clock_that_was_never_set_is_marked_though_the_log_is_empty():
    """A new board's first boot: nothing in the log to compare with, but a clock reading
    before clock_from (the board's app: 2025) was never set."""
    board = Board()
    board.bus = FramBus(board.fram)
    fs = MemFS(board.files)
    cm = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(fs, "cm_b.bin")], fs)
    cm.clock_from = 1735689600
    assert cm.boot(1609459200) == "RAM ERROR"        # 2021-01-01: blank memory
    assert cm.clock_unsure and cm.clock_shift == 0
    cm.ram_clear({"jackpot": b"J0"}, 1609459205, 1, True)
    assert times(cm) == [(1609459205, eventlog.RAM_CLEAR, True)]


def _both_copies_lost_after_a_page():
    """A board whose log holds a complete page on file (times 6000..), then both copies
    lost, booted again with its clock at 40 s: (board, its critical memory)."""
    board, cm = ready()
    for i in range(eventlog.PAGE_ENTRIES):               # a complete page on file
        cm.commit_admin(None, [(eventlog.TAMPER, 1)], 6000 + i)
    board.fram[:8192] = bytes(8192)
    board.files["cm_b.bin"] = b"garbage"
    return board, board.boot(now=40)


def test_a_ram_clear_that_finds_the_log_again_shifts_the_clock_and_what_waited():
    """Both copies lost and the clock behind: the boot cannot read the log's newest time
    (no anchor) until the RAM clear finds the log's pages again; then the entries that waited
    (the power-up, each bad copy) and the clear itself are shifted on to it, in order."""
    board, again = _both_copies_lost_after_a_page()
    assert board.status == "RAM ERROR" and again.clock_shift == 0
    again.ram_clear({"jackpot": b"J0"}, 45, 1, True)
    # the newest entry of the newest complete page (the unfinished page was lost with the record)
    kept = times(again)[:-4]
    newest = kept[-1][0]
    assert kept[-1][1] == eventlog.TAMPER and newest > 6000 and not kept[-1][2]
    logged = times(again, again.log.count - 4)
    # (waited since the boot at 40, cleared at 45: five seconds apart, the first at the newest)
    assert [t for t, _, _ in logged] == [newest, newest, newest, newest + 5]
    assert [k for _, k, _ in logged] == [eventlog.POWER_UP, eventlog.CM_ERROR, eventlog.CM_ERROR,
                                         eventlog.RAM_CLEAR]
    assert all(unsure for _, _, unsure in logged) and again.clock_shift == newest - 40
    assert again.log.verify() is None


def test_entries_that_waited_from_before_a_real_time_keep_the_mark_and_the_order():
    """Both copies lost and the clock behind: the entries that wait for the RAM clear (the
    power-up, each bad copy) were timed by the clock that was behind.  A real time (NTP)
    that came before the clear made the clear log them at those times, before the log's
    older entries, and as times known; they are shifted on to the log's newest time and
    marked, and the clear itself is at the real time, unmarked."""
    board, again = _both_copies_lost_after_a_page()
    assert board.status == "RAM ERROR"
    again.clock_real()                                   # NTP answered in RAM ERROR
    again.ram_clear({"jackpot": b"J0"}, 90000, 1, True)
    newest = times(again)[:-4][-1][0]
    logged = times(again, again.log.count - 4)
    assert [k for _, k, _ in logged] == [eventlog.POWER_UP, eventlog.CM_ERROR, eventlog.CM_ERROR,
                                         eventlog.RAM_CLEAR]
    assert [t for t, _, _ in logged] == [newest, newest, newest, 90000]
    assert [unsure for _, _, unsure in logged] == [True, True, True, False]
    assert again.log.verify() is None


def test_an_entry_kept_while_the_clock_was_never_set_keeps_its_mark_after_a_real_time():
    """A door opened in RAM ERROR on a clock never set (2021) waits for the RAM clear; NTP
    came before the clear, which logged the door at the 2021 time as a time known."""
    board = Board()
    board.bus = FramBus(board.fram)
    fs = MemFS(board.files)
    cm = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(fs, "cm_b.bin")], fs)
    cm.clock_from = 1735689600
    assert cm.boot(1609459200) == "RAM ERROR" and cm.clock_unsure
    cm.defer([(eventlog.DOOR_OPEN, 1)], 1609459203)
    cm.clock_real()
    cm.ram_clear({"jackpot": b"J0"}, 1800000000, 1, True)
    assert times(cm)[-2:] == [(1609459203, eventlog.DOOR_OPEN, True),
                              (1800000000, eventlog.RAM_CLEAR, False)]


def test_a_lost_record_on_a_clock_never_set_keeps_its_entries_marked_after_a_real_time():
    """Both copies lost on a board whose clock was never set (2021) and an empty log: the
    power-up and the bad copies wait for the RAM clear; NTP came before it, which logged
    them at the 2021 time as times known."""
    board, cm = ready()
    board.fram[:8192] = bytes(8192)
    board.files["cm_b.bin"] = b"garbage"
    fs = MemFS(board.files)
    cm = CriticalMemory([FramSlot(FRAM(board.bus), 0, 8192), FileSlot(fs, "cm_b.bin")], fs)
    cm.clock_from = 1735689600
    assert cm.boot(1609459200) == "RAM ERROR" and cm.clock_unsure
    cm.clock_real()
    cm.ram_clear({"jackpot": b"J0"}, 1800000000, 1, True)
    logged = times(cm, cm.log.count - 4)
    assert [k for _, k, _ in logged] == [eventlog.POWER_UP, eventlog.CM_ERROR, eventlog.CM_ERROR,
                                         eventlog.RAM_CLEAR]
    assert [unsure for _, _, unsure in logged] == [True, True, True, False]


def test_a_copy_that_keeps_refusing_its_writes_is_logged_when_it_fails_and_when_it_is_whole():
    # A dead copy (the flash file refuses every write) must not add its two entries and a
    # commit of its own to every commit: its failure is logged once, its end once, and the
    # memory says it is not whole (COPY 1 ...) all along.
    board, cm = ready()
    start, seq = cm.log.count, cm.seq
    cm.copies[1].fs = FailingFS(board.files, ("cm_b",))
    for r in range(1, 11):                          # ten rounds: LOCK and SETTLE each
        cm.commit(r, STEP_LOCK, {"jackpot": b"J%d" % r}, [(eventlog.LOCK, 0, 1, 100)], 300 + r)
        cm.commit(r, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 1000)], 300 + r)
        assert "COPY 1 WRITE FAILED" in cm.status_text() and not cm.whole
    logged = [(e[3], e[4], e[5]) for e in cm.log.events(start)]
    # the first commit's read-back: the stale copy, then its rebuild refused
    assert logged[:4] == [(eventlog.LOCK, 0, 1), (eventlog.CM_ERROR, 1, eventlog.REASON_READBACK),
                          (eventlog.CM_ERROR, 1, eventlog.REASON_IO), (eventlog.SETTLE, 0, 0)]
    assert logged[4:] == [(eventlog.LOCK, 0, 1), (eventlog.SETTLE, 0, 0)] * 9
    assert cm.seq - seq == 20 + 1                   # one commit for the failure's entries
    # a reboot with the copy still dead logs it once more (found stale at boot), then nothing
    failing = FailingFS(board.files, ("cm_b",))
    cm = CriticalMemory([FramSlot(FRAM(FramBus(board.fram)), 0, 8192),
                         FileSlot(failing, "cm_b.bin")], MemFS(board.files))
    assert cm.boot(500, 1) == "repaired" and not cm.whole and "COPY 1" in cm.status_text()
    start = cm.log.count - 2
    cm.commit(11, STEP_LOCK, {"jackpot": b"J11"}, [(eventlog.LOCK, 0, 1, 100)], 600)
    assert [(e[3], e[4], e[5]) for e in cm.log.events(start)] == [
        (eventlog.POWER_UP, 1, 0), (eventlog.CM_ERROR, 1, eventlog.REASON_STALE),
        (eventlog.LOCK, 0, 1)]
    # the flash takes writes again: the commit writes the copy, and its end is logged
    cm.copies[1].fs = MemFS(board.files)
    start = cm.log.count
    cm.commit(11, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 1000)], 610)
    assert [(e[3], e[4], e[5], e[6]) for e in cm.log.events(start)] == [
        (eventlog.SETTLE, 0, 0, 1000), (eventlog.CM_RECOVERED, 1, 0xFFFF, cm.seq - 1)]
    assert cm.whole and "FAULT" not in cm.status_text()
    # and fails again: logged again, as a new fault
    cm.copies[1].fs = FailingFS(board.files, ("cm_b",))
    start = cm.log.count
    cm.commit(12, STEP_LOCK, {"jackpot": b"J12"}, [(eventlog.LOCK, 0, 1, 100)], 620)
    cm.commit(12, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 1000)], 630)
    assert [(e[3], e[4], e[5]) for e in cm.log.events(start)] == [
        (eventlog.LOCK, 0, 1), (eventlog.CM_ERROR, 1, eventlog.REASON_READBACK),
        (eventlog.CM_ERROR, 1, eventlog.REASON_IO), (eventlog.SETTLE, 0, 0)]


def test_a_copy_that_takes_writes_and_keeps_none_is_never_whole_between_commits():
    # A FRAM that acknowledges its writes and keeps none (a failing part) is found by each
    # commit's read-back.  The commit that logs that must not count the copy as holding the
    # commit unread, or the jackpot would open for the next LOCK with the books on the flash
    # copy alone (the round controller takes jackpot wagers only while whole).
    board, cm = ready()
    board.bus.writeto = lambda addr, frame: None
    start = cm.log.count
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    assert not cm.whole and "COPY 0" in cm.status_text()
    assert [(e[3], e[4]) for e in cm.log.events(start)] == [
        (eventlog.LOCK, 0), (eventlog.CM_ERROR, 0), (eventlog.CM_ERROR, 0)]
    cm.commit(1, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 1000)], 301)
    assert not cm.whole and "COPY 0" in cm.status_text()
    # the part keeps its writes again: the next commit's read-back finds it whole, and says so
    del board.bus.writeto
    start = cm.log.count
    cm.commit(2, STEP_LOCK, {"jackpot": b"J2"}, [(eventlog.LOCK, 0, 1, 100)], 310)
    assert cm.whole and "FAULT" not in cm.status_text()
    assert [(e[3], e[4]) for e in cm.log.events(start)] == [(eventlog.LOCK, 0), (eventlog.CM_RECOVERED, 0)]


def test_a_commit_no_copy_holds_on_read_back_is_refused_and_the_ram_keeps_the_one_before():
    # Both copies fail at once, one silently: the FRAM acknowledges its writes and keeps none,
    # the flash refuses its file.  Read back, no copy holds SETTLE's commit, which a power cut
    # would lose: it must be refused (StoreError: the controller says MEMORY FAULT and pays
    # nothing), the RAM keeping LOCK's, what a boot would find.  It "succeeded" before, the
    # round settled in RAM alone (found by the fifteenth session's reviewer).
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    seq, count = cm.seq, cm.log.count
    board.bus.writeto = lambda addr, frame: None
    cm.copies[1].fs = FailingFS(board.files, ("cm_b",))
    with pytest.raises(StoreError, match="commit %d held by no copy" % (seq + 1)):
        cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 310)
    assert (cm.seq, cm.round_no, cm.step, cm.section("jackpot")) == (seq, 1, STEP_LOCK, b"J1")
    assert cm.log.count == count and not cm.whole
    assert "COPY 0 FAILED" in cm.status_text() and "LOG NOT WRITTEN (commit" in cm.status_text()
    cut = Board()       # a power cut now: the boot reads what the parts hold
    cut.fram[:], cut.files = board.fram, dict(board.files)
    after_cut = cut.boot()
    assert (after_cut.round_no, after_cut.step, after_cut.section("jackpot")) == (1, STEP_LOCK, b"J1")
    # the same again: refused again, and the faults not noted twice
    with pytest.raises(StoreError, match="held by no copy"):
        cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 311)
    # the parts work again: the step is committed, after the faults seen (with their time)
    del board.bus.writeto
    cm.copies[1].fs = MemFS(board.files)
    assert cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 320)
    assert [(e[3], e[4], e[5]) for e in cm.log.events(count)] == [
        (eventlog.CM_ERROR, 0, eventlog.REASON_READBACK), (eventlog.CM_ERROR, 0, eventlog.REASON_IO),
        (eventlog.CM_ERROR, 1, eventlog.REASON_READBACK), (eventlog.CM_ERROR, 1, eventlog.REASON_IO),
        (eventlog.SETTLE, 0, 0),
        (eventlog.CM_RECOVERED, 0, 0xFFFF), (eventlog.CM_RECOVERED, 1, 0xFFFF)]
    assert cm.whole and "FAULT" not in cm.status_text() and cm.section("jackpot") == b"J1 paid"
    again = board.boot()
    assert (again.step, again.section("jackpot")) == (STEP_SETTLE, b"J1 paid")


@pytest.mark.parametrize("fault", ["reads fail", "writes land and fail", "writes land and stop"])
def test_a_commit_held_after_a_refused_one_wins_the_boot_over_a_copy_holding_the_refused_one(fault):
    # The FRAM takes LOCK's writes but its reads fail (or it takes them and reports an I/O
    # error), the flash refuses its file: LOCK is refused, though the FRAM holds it.  Then the
    # FRAM refuses writes and the flash works again: the idle table's commit is held by the
    # flash.  A power cut from then on must bring the table back where it was told it is
    # (round 1 settled), never at the refused LOCK: the held commit got the refused one's
    # number, and at equal numbers the boot took the FRAM's copy, the LOCK's wagers counted
    # and the flash's record rebuilt over.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 310)

    def refused(*args, **kwargs):
        raise OSError(5, "EIO")

    def landed_then_refused(addr, frame, write=board.bus.writeto):
        write(addr, frame)
        # an I/O error, or any other (a driver's bug): the commit is cut short, neither made
        # nor refused, and the controller, which catches it, goes on as for a refused one
        raise OSError(5, "EIO") if fault == "writes land and fail" else RuntimeError("bus")

    if fault == "reads fail":
        board.bus.readfrom_mem_into = refused
    else:
        board.bus.writeto = landed_then_refused
    cm.copies[1].fs = FailingFS(board.files, ("cm_b",))
    with pytest.raises((StoreError, RuntimeError)):
        cm.commit(2, STEP_LOCK, {"jackpot": b"J2 locked"}, [(eventlog.LOCK, 0, 1, 100)], 320)
    assert (cm.round_no, cm.step, cm.section("jackpot")) == (1, STEP_SETTLE, b"J1 paid")
    assert bytes(board.fram).find(b"J2 locked") > 0     # what the FRAM holds
    board.bus.writeto = refused
    cm.copies[1].fs = MemFS(board.files)
    cuts = []
    for i in (0, 1):
        def write(data, write=cm.copies[i].write, i=i):
            try:
                write(data)
            finally:
                if cuts or i == 1:  # from the flash's write on: the commit is held there
                    cuts.append((bytes(board.fram), dict(board.files)))
        cm.copies[i].write = write
    cm.commit_admin(None, [], 330)
    assert len(cuts) >= 3 and cm.copy_status == ["write failed", "ok"]
    for fram, files in cuts:
        cut = Board()   # the power cut after this write: the FRAM reads again at the boot
        cut.fram[:], cut.files = fram, files
        after = cut.boot()
        assert (after.round_no, after.step, after.section("jackpot")) == (1, STEP_SETTLE, b"J1 paid")


class UnreadableFS(MemFS):
    """A flash filesystem whose files named `name` take writes and cannot be read back."""

    def __init__(self, files, name):
        super().__init__(files)
        self.name = name

    def open(self, name, mode):
        if "r" in mode and name == self.name:
            raise OSError(5, "flash read failed")
        return super().open(name, mode)


def test_a_check_whose_own_commit_no_copy_holds_keeps_the_faults_for_the_next_commit():
    # check() finds both copies failing (they take writes, their reads fail): its commit of
    # the faults is held by no copy and refused.  The faults must wait for the next commit a
    # copy holds, as a step's do; they were dropped (check raised), noted as logged, and the
    # log showed both copies recovered from faults it never had.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    count = cm.log.count

    def refused(*args, **kwargs):
        raise OSError(5, "EIO")

    board.bus.readfrom_mem_into = refused
    cm.copies[1].fs = UnreadableFS(board.files, "cm_b.bin")
    assert cm.check(400) == 2
    assert not cm.whole and "LOG NOT WRITTEN (commit" in cm.status_text()
    del board.bus.readfrom_mem_into
    cm.copies[1].fs = MemFS(board.files)
    assert cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 500)
    logged = [(e[3], e[4]) for e in cm.log.events(count)]
    assert logged == [(eventlog.CM_ERROR, 0), (eventlog.CM_ERROR, 0), (eventlog.CM_ERROR, 1),
                      (eventlog.CM_ERROR, 1), (eventlog.SETTLE, 0), (eventlog.CM_RECOVERED, 0),
                      (eventlog.CM_RECOVERED, 1)]
    assert [e[1] for e in cm.log.events(count)][:4] == [400] * 4    # when check() found them
    assert cm.whole and "FAULT" not in cm.status_text()


def test_a_boot_whose_own_commit_no_copy_holds_logs_the_power_up_before_the_faults():
    # Both copies read well at the boot, then fail their read-backs from the boot's own
    # commit on (they take writes): that commit is refused, and its power-up waits with the
    # faults its read-back found.  The log must show the power-up first, as it happened; it
    # showed the faults, then the power-up, as though they came before it.
    board, cm = ready()
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    count = cm.log.count

    def refused(*args, **kwargs):
        raise OSError(5, "EIO")

    bus, fs = FramBus(board.fram), MemFS(board.files)
    fram, flash = FramSlot(FRAM(bus), 0, 8192), FileSlot(fs, "cm_b.bin")
    fram.write = lambda data, write=fram.write: (write(data), setattr(bus, "readfrom_mem_into", refused))
    unreadable = UnreadableFS(board.files, "cm_b.bin")
    flash.write = lambda data, write=flash.write: (write(data), setattr(flash, "fs", unreadable))
    cm = CriticalMemory([fram, flash], fs)
    cm.boot(500, 1)
    assert cm.log.count == count and "LOG NOT WRITTEN (commit" in cm.status_text()
    del bus.readfrom_mem_into, fram.write, flash.write
    flash.fs = fs
    assert cm.commit(1, STEP_SETTLE, {"jackpot": b"J1 paid"}, [(eventlog.SETTLE, 0, 0, 1000)], 600)
    assert [(e[3], e[4]) for e in cm.log.events(count)] == [
        (eventlog.POWER_UP, 1), (eventlog.CM_ERROR, 0), (eventlog.CM_ERROR, 0), (eventlog.CM_ERROR, 1),
        (eventlog.CM_ERROR, 1), (eventlog.SETTLE, 0), (eventlog.CM_RECOVERED, 0), (eventlog.CM_RECOVERED, 1)]


def test_a_copy_the_logging_commit_wrote_stays_failed_until_a_read_back_finds_it_whole():
    # The FRAM drops LOCK's write and its rebuild, keeps the write of the commit that logs
    # that (not read back), drops SETTLE's and its rebuild, then keeps its writes.  The copy
    # must not count as whole between (the jackpot open, a LOCK taking wagers on one copy)
    # while the log shows one fault: it is failed from LOCK until the read-back that finds it
    # whole, which logs the end (found by the session's review with a read-back there).
    board, cm = ready()
    slot = cm.copies[0]
    keep = slot.write
    calls = []

    def write(data):
        calls.append(len(calls) + 1)
        if len(calls) in (3,) or len(calls) >= 6:
            keep(data)

    slot.write = write
    start = cm.log.count
    cm.commit(1, STEP_LOCK, {"jackpot": b"J1"}, [(eventlog.LOCK, 0, 1, 100)], 300)
    assert len(calls) == 3 and not cm.whole and "COPY 0 FAILED" in cm.status_text()
    cm.commit(1, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 1000)], 310)
    assert len(calls) == 5 and not cm.whole and "COPY 0 FAILED" in cm.status_text()
    cm.commit(2, STEP_LOCK, {"jackpot": b"J2"}, [(eventlog.LOCK, 0, 1, 100)], 320)
    assert cm.whole and "FAULT" not in cm.status_text()
    assert [(e[3], e[4], e[5]) for e in cm.log.events(start)] == [
        (eventlog.LOCK, 0, 1), (eventlog.CM_ERROR, 0, eventlog.REASON_READBACK),
        (eventlog.CM_ERROR, 0, eventlog.REASON_IO), (eventlog.SETTLE, 0, 0), (eventlog.LOCK, 0, 1),
        (eventlog.CM_RECOVERED, 0, 0xFFFF)]
