"""Critical memory: the mirrored, checked record of everything that must survive a power cut.

The record is a set of named byte sections (the jackpot pools and meters, the round state,
the configuration: each owned and encoded by its module) plus two sections of this package:
the round journal (round number and step) and the event-log anchor.  Every change is one
commit: the whole record, with sequence number + 1 and a CRC-32, is written to every copy in
turn (FRAM first, then the flash file, on the reference board).  A cut during the write of
one copy leaves the others holding the record before (copies after it) or after (copies
before it), and boot takes the valid copy with the highest sequence number, so the device
comes back with exactly the state before or after the commit.

Buffers: the record is built in one of two bytearrays made with the object and kept for its
life (the last committed copy and a scratch one, swapped when a commit succeeds), made as large
as the application's largest record where it sets the table up or changes its configuration
(reserve).  The read-back after a commit compares each copy a piece at a time (slots.same),
so the record before stays whole in the other buffer until the commit is found held.  A steady-state
commit therefore allocates only small objects: after hours of play the heap may be too
fragmented for a fresh kilobyte, and a commit that needed one would refuse a round's jackpot
wagers or leave a round LOCKED.

Round journal: ``commit(round, step, ...)`` is accepted once per (round, step).  The same or
an earlier step again returns False and changes nothing, so a controller that replays a step
after a restart can never count a contribution or a payout twice.
"""

import struct

from firmware.compat import const
from firmware.store import eventlog, record
from firmware.store.errors import DuplicateStep, RamError, RecordError, StoreError

_STEP_IDLE = const(0)     # no round open (after a RAM clear)
STEP_LOCK = const(1)     # "No more bets": jackpot wagers accepted and contributed
STEP_CONFIRM = const(2)  # supervisor confirmed the jackpot hands
STEP_SETTLE = const(3)   # round settled, jackpots paid (ends the round)
STEP_VOID = const(4)     # round void, contributions reversed (ends the round)
STEP_NAMES = ("idle", "lock", "confirm", "settle", "void")

STATUS_UNBOOTED = "not booted"
STATUS_OK = "ok"
STATUS_REPAIRED = "repaired"
STATUS_RAM_ERROR = "RAM ERROR"

MODE_TWO_DEVICES = "two devices"
MODE_ONE_DEVICE = "one device"

JOURNAL = "_journal"
LOG = "_log"
LOG_BASE = "_logbase"     # the link before the oldest event held, once the ring has wrapped
_JOURNAL_FORMAT = "<IB"
_JOURNAL_SIZE = const(5)
# the event log's anchor: event count u32 and newest link (8 bytes), then the unfinished page
_ANCHOR_SIZE = const(12)
_MAX_ROUND = 0xFFFFFFFF
# Room a record buffer keeps beyond the record it was sized for (sections grow: hits, link queue)
_SLACK = const(256)
# A header's sequence number counts towards the next RAM clear's only below this: a copy that
# failed its checks may hold any bytes, and one reading FF FF FF FF would leave no number after it
# (a table commits a few hundred thousand times a year: 2**31 is thousands of years)
_SEQ_PLAUSIBLE = const(0x80000000)
# Events kept in all for a commit that cannot be made yet (defer), the boot's own entries (a
# power-up and one per bad copy) among them: the RAM clear's commit has room for them and itself
_DEFERRED_MAX = const(24)
# Bytes of each record buffer made with the object, while the heap is still whole: a record of
# the reference table is 0.5-1.9 KB (docs/critical-memory.md, flash wear); reserve() makes them
# what the table's configuration can need
RECORD_CAPACITY = const(2048)
# Bytes of a copy read back at a time (a FRAM read each: 11 for the reference table's largest
# record, about 4 bytes of I2C each besides the data)
_CHUNK = const(256)
# The record header's flags bit that marks a table whose program ran authenticated with its
# key: at a later boot without the key, the application refuses the program (keyed)
_KEYED = const(1)


def _timed(event, now, unsure):
    """(kind, a, b, c, time): the event (kind[, a[, b[, c]]]) with the time it happened, for
    logging later (unsure: that time was not known, the kind marked CLOCK_UNSURE, which a
    real time coming before it is logged does not change)."""
    return ((event[0] | eventlog.CLOCK_UNSURE if unsure else event[0],) + tuple(event[1:])
            + (0,) * (4 - len(event)) + (now,))


def _store_sections_problem(journal, log, base):
    """What is wrong with a copy's journal, event-log anchor and base sections, or ''."""
    if len(journal) != _JOURNAL_SIZE:
        return "journal of %d bytes, not %d" % (len(journal), _JOURNAL_SIZE)
    step = journal[4]
    if step >= len(STEP_NAMES):
        return "journal step %d unknown" % step
    if len(log) < _ANCHOR_SIZE:
        return "log anchor of %d bytes, under %d" % (len(log), _ANCHOR_SIZE)
    count = struct.unpack_from("<I", log, 0)[0]
    if count >= eventlog.COUNT_LIMIT:
        # no table logs 2**31 events; the entries' numbers and the log's own entries about
        # the boot would not fit after it
        return "log count %d beyond %d" % (count, eventlog.COUNT_LIMIT - 1)
    tail = (count % eventlog.PAGE_ENTRIES) * eventlog.ENTRY_SIZE
    if len(log) != _ANCHOR_SIZE + tail:
        return "log tail of %d bytes for %d events (%d expected)" % (
            len(log) - _ANCHOR_SIZE, count, tail)
    if base is not None and len(base) != eventlog.LINK_SIZE:
        return "log base of %d bytes, not %d" % (len(base), eventlog.LINK_SIZE)
    return ""


def _newest_usable(found, check):
    """Index of the newest copy in `found` (tuples: good copies; text: why a copy is bad) that
    `check` accepts; the newer ones it refuses become text in `found`.  The newest good copy
    when check is None or refuses all; None when no copy is good."""
    order = sorted([i for i in range(len(found)) if isinstance(found[i], tuple)],
                   key=lambda i: (-found[i][0], i))   # equal numbers: the lower copy first
    if not order or check is None:
        return order[0] if order else None
    refused = []
    raw = why = None
    for i in order:
        if found[i][2] != raw:          # the same bytes as the copy just refused: refused too
            try:
                check(found[i][1])
                for j, text in refused:
                    found[j] = text
                return i
            except ValueError as error:
                raw, why = found[i][2], "bad state: %s" % error
        refused.append((i, why))
    return order[0]


def _ended(step):
    return step == STEP_SETTLE or step == STEP_VOID


class CriticalMemory:
    """Mirrored critical memory on `copies` (two or more slots, see ``slots``), event pages on `log_fs`."""

    def __init__(self, copies, log_fs, verify_after_commit=True, capacity=RECORD_CAPACITY):
        if len(copies) < 2:
            raise ValueError("critical memory needs at least two copies, got %d" % len(copies))
        if not isinstance(capacity, int) or capacity < record.OVERHEAD + 1:
            raise ValueError("record buffer capacity %r is not an integer above %d"
                             % (capacity, record.OVERHEAD))
        self.copies = list(copies)
        self.log = eventlog.EventLog(log_fs)
        self.verify_after_commit = verify_after_commit
        self.status = STATUS_UNBOOTED
        self.ram_error_reason = ""
        self.copy_status = ["unknown"] * len(self.copies)
        self._down = 0       # bit i: copy i's failure is logged and its end not yet
        self.seq = 0
        self.round_no = 0
        self.step = _STEP_IDLE
        self.repairs = 0
        self.log_broken_at = None
        self._sections = {}       # committed: name -> bytes, or a view of self._buf (the log: of its anchor)
        self._spare_sections = None  # the dict before, reused for the next commit's sections
        self._buf = bytearray(capacity)      # the last committed copy is self._buf[:self._length]
        self._scratch = bytearray(capacity)  # the next copy is built here
        self._chunk = bytearray(_CHUNK)     # a copy is read back into this, a piece at a time
        self._length = 0
        self._pending = []           # events to log with the next commit (their own failed)
        self._highest_seen = 0
        # the number of the last commit whose copies were written, made or not: a copy may hold
        # one refused or cut short (a write that landed, then failed, or whose read-back
        # failed), so the next commit is numbered after it, or at a boot the two would tie
        # and the refused one might win
        self._tried = 0
        self.log_fault = ""          # why the last log entries could not be written yet
        self.key = False    # set before boot: the program check authenticated this program
                            # with the board's key, so every commit marks the record (_KEYED)
        self.keyed = False  # the record is marked: kept by every commit, until a RAM clear
        # The table's clock (docs/critical-memory.md, "Times"): a board with no battery clock
        # starts it again at a fixed date after every power cut.  clock_from: a reading before
        # it was never set (the board's app sets it; 0: every reading is believed unless it is
        # earlier than the newest time the log holds).  clock_shift: seconds the caller adds to
        # its clock, so that no entry goes back in time; clock_unsure: the times are not known
        # (entries marked eventlog.CLOCK_UNSURE) until clock_real() says a real time came.
        self.clock_from = 0
        self.clock_shift = 0
        self.clock_unsure = False
        self.clock_known = False

    # --- what the application reads --------------------------------------------------------
    @property
    def mode(self):
        """MODE_TWO_DEVICES if the copies sit on two kinds of device, else MODE_ONE_DEVICE."""
        kinds = []
        for slot in self.copies:
            if slot.physical not in kinds:
                kinds.append(slot.physical)
        return MODE_TWO_DEVICES if len(kinds) > 1 else MODE_ONE_DEVICE

    @property
    def ram_error(self):
        """True while no good copy exists: jackpot wagering must stay disabled."""
        return self.status == STATUS_RAM_ERROR

    @property
    def whole(self):
        """False while a copy does not hold the last commit (its write failed, or it was
        refused at boot and not rebuilt): the books stand on the others alone, and a power cut
        while it is written would take the table back to its older state (the round
        controller then takes no new jackpot wager, docs/critical-memory.md)."""
        for found in self.copy_status:
            if found != STATUS_OK:
                return False
        return True

    @property
    def wagering_allowed(self):
        """True once booted with a good copy (or after a RAM clear)."""
        return self.status == STATUS_OK or self.status == STATUS_REPAIRED

    def status_text(self, stopped="JACKPOT DISABLED"):
        """One short line for the dealer display and the technician: a copy that is not good
        and log entries not yet written are named (``MEMORY FAULT ... COPY 0 WRITE FAILED``).
        stopped: what RAM ERROR stops, as the table's game has it (the controller's
        stopped_text)."""
        if self.status == STATUS_RAM_ERROR:
            return "RAM ERROR - %s (%s)" % (stopped, self.ram_error_reason)
        where = "FRAM+FLASH" if self.mode == MODE_TWO_DEVICES else "2 COPIES IN FLASH ONLY"
        faults = ""
        for i in range(len(self.copies)):
            if self.copy_status[i] != "ok":
                faults += " COPY %d %s" % (i, self.copy_status[i].upper())
        if self.log_fault:
            faults += " LOG NOT WRITTEN (%s)" % self.log_fault
        state = "FAULT" if faults else self.status.upper()
        return "MEMORY %s %s SEQ %d%s%s" % (state, where, self.seq, faults,
                                           " KEYED" if self.keyed else "")

    def section(self, name):
        """The bytes of a section committed last, or None."""
        value = self._sections.get(name)
        if value is not None and not isinstance(value, bytes):
            return bytes(value)
        return value

    @property
    def _record(self):
        """The bytes of the copy committed last (None before one exists); tests and tools."""
        if not self._length:
            return None
        return bytes(memoryview(self._buf)[:self._length])

    def section_names(self):
        """Names of the application's sections."""
        return sorted(n for n in self._sections if not n.startswith("_"))

    # --- boot and checking -----------------------------------------------------------------
    def _read_copy(self, index):
        """Return (seq, payload, raw) of a copy, or raise RecordError naming what is wrong."""
        try:
            raw = self.copies[index].read()
        except OSError as error:
            raise RecordError("io error %s" % error) from None
        if raw is not None and len(raw) >= record.HEADER_SIZE and bytes(raw[:2]) == record.MAGIC:
            seen = struct.unpack_from("<I", raw, 4)[0]
            if self._highest_seen < seen < _SEQ_PLAUSIBLE:
                self._highest_seen = seen
        seq, payload = record.decode(raw)
        if seq >= _SEQ_PLAUSIBLE:
            # a good CRC over a number no table reaches: it would win every boot and leave
            # no number after it (the boot's own commit, CM_RECOVERED's, would not fit)
            raise RecordError("implausible seq %d" % seq)
        sections = record.unpack_sections(payload)
        if JOURNAL not in sections or LOG not in sections:
            raise RecordError("missing journal or log section")
        problem = _store_sections_problem(sections[JOURNAL], sections[LOG], sections.get(LOG_BASE))
        if problem:
            # a good CRC over sections this firmware cannot use (other firmware, a crafted
            # copy): a bad copy like any other, never a crash at boot nor the state to keep
            raise RecordError("malformed sections: " + problem)
        return seq, sections, bytes(raw)

    def boot(self, now, reset_cause=0, cause=0, check=None):
        """Validate every copy, take the newest good one, rebuild the others from it and log
        power-up (the board's reset_cause code and its name's number, eventlog.POWER_UP) and
        every repair.  Returns the status (STATUS_RAM_ERROR if no copy is good).

        `check(sections)`, when given, is the application's test of a copy, called newest
        first before anything is written: ValueError means it cannot use the copy's sections
        (a jackpot record that does not decode), which then is a bad copy ("bad state: ...")
        rebuilt from the newest copy that passes.  When none passes, the newest is taken as
        without a check (the application says what is wrong)."""
        found = []
        for i in range(len(self.copies)):
            try:
                found.append(self._read_copy(i))
            except RecordError as error:
                found.append(str(error))
        best = _newest_usable(found, check)
        if best is None:
            now = self._check_clock(now)
            self.status = STATUS_RAM_ERROR
            blank = True
            for item in found:
                if not item.startswith("blank"):
                    blank = False
            self.ram_error_reason = "memory blank" if blank else "no good copy"
            self.copy_status = list(found)
            if not blank:
                # logged with the RAM clear: this power-up and why each copy was refused (a
                # new board's blank memory needs no explaining)
                self._pending = [_timed((eventlog.POWER_UP, reset_cause & 0xFFFF, cause), now,
                                        self.clock_unsure)]
                for i in range(len(found)):
                    self._pending.append(_timed((eventlog.CM_ERROR, i,
                                                 eventlog.reason_code(found[i])),
                                                now, self.clock_unsure))
            return self.status
        seq, sections, raw = found[best]
        self._load(seq, sections, raw)
        now = self._check_clock(now)
        events = [(eventlog.POWER_UP, reset_cause & 0xFFFF, cause)]
        repaired = False
        self._down = 0
        for i in range(len(self.copies)):
            item = found[i]
            if i == best or (isinstance(item, tuple) and item[2] == raw):
                self.copy_status[i] = "ok"
                continue
            if isinstance(item, tuple):
                code = eventlog.REASON_STALE
                self.copy_status[i] = "stale seq %d" % item[0]
            else:
                code = eventlog.reason_code(item)
                self.copy_status[i] = item
            events.append((eventlog.CM_ERROR, i, code))
            if self._rewrite(i):
                events.append((eventlog.CM_RECOVERED, i, best, seq))
            else:
                self._down |= 1 << i
            repaired = True
        self.status = STATUS_REPAIRED if repaired else STATUS_OK
        self.log_broken_at = self.log.verify()
        if self.log_broken_at is not None:
            events.append((eventlog.LOG_ERROR, 0, self.log_broken_at))
        self._write_log_later_if_refused(events, now, self.round_no, self.step)
        return self.status

    def _check_clock(self, now):
        """The clock reading `now` (at boot, or at a RAM clear that found the log again)
        against the newest time the log holds: a reading earlier than it (or an entry waiting to
        be logged, timed earlier) is shifted on to it (clock_shift grows by the difference), and
        it, or one before clock_from, makes the times unsure, unless clock_real() has said the
        clock is set.  Returns now shifted."""
        if not isinstance(now, int) or self.clock_known and not self._pending:
            return now      # (a time that is no integer: refused by the commit)
        newest = 0
        count = self.log.count
        for raw in self.log.entries(count - 1 if count else 0, count):
            if raw is not None:
                newest = eventlog.unpack(raw)[1]
        # a real time (NTP) may have come since what waits was timed by the clock behind
        earliest = newest if self.clock_known else now
        for event in self._pending:     # what waits to be logged, timed by the same clock
            earliest = min(earliest, event[4])
        if earliest < newest:
            add = newest - earliest
            self._pending = [(event[0] | eventlog.CLOCK_UNSURE,) + event[1:4] + (event[4] + add,)
                             for event in self._pending]
            if not self.clock_known:
                self.clock_shift += add
                self.clock_unsure = True
                now += add
        elif now < self.clock_from and not self.clock_known:
            self.clock_unsure = True
        return now

    def clock_real(self):
        """The clock now reads a real time (NTP, or set by a person): times are known again,
        and read from it as it is (no shift)."""
        self.clock_shift = 0
        self.clock_unsure = False
        self.clock_known = True

    def _write_log_later_if_refused(self, events, now, round_no, step):
        """Commit events of the store's own (power-up, repairs); if they cannot be written now
        (the flash refuses the log page they complete), keep them for the next commit and say
        why in log_fault, rather than fail a boot or a step that is already committed."""
        at = len(self._pending)
        try:
            self._write(None, events, now, round_no, step, False)
        except (OSError, MemoryError, StoreError) as error:
            # after any older ones, each with its own time, and before the faults the refused
            # commit's read-back found (which came after them)
            self._pending[at:at] = [_timed(event, now, self.clock_unsure) for event in events]
            self.log_fault = str(error) or type(error).__name__

    def _load(self, seq, sections, raw):
        self.seq = seq
        self._sections = sections
        self._spare_sections = None
        self._fit(len(raw), len(sections[LOG]))
        memoryview(self._buf)[:len(raw)] = raw
        self._length = len(raw)
        self.keyed = raw[3] & _KEYED != 0
        self.round_no, self.step = struct.unpack(_JOURNAL_FORMAT, sections[JOURNAL])
        self.log.load_anchor(sections[LOG], sections.get(LOG_BASE))

    def reserve(self, sizes):
        """Make both record buffers hold the largest record whose application sections are at
        most `sizes` (name -> bytes; those not named: as committed) and the store's own at
        their largest (a full log tail), now: where the table is set up or its configuration
        changes, before a commit needs them.  Returns the buffers' size; MemoryError when the
        heap has no room for them, and then nothing changed (the caller refuses its change: no
        later round's commit fails)."""
        size = record.OVERHEAD + 2 + 3 * 5 + len(JOURNAL) + len(LOG) + len(LOG_BASE) + \
            _JOURNAL_SIZE + eventlog.MAX_ANCHOR + eventlog.LINK_SIZE
        for name in sizes:
            size += 5 + len(name) + sizes[name]
        for name in self._sections:     # the others as committed (none of the store's own)
            if name not in sizes and not name.startswith("_"):
                size += 5 + len(name) + len(self._sections[name])
        self._grow(size + 1)
        return len(self._buf)

    def _fit(self, size, anchor):
        """Make both record buffers hold a copy of `size` bytes whose log anchor is `anchor`
        bytes, plus one byte (a longer copy read back must show as longer), keeping the
        committed copy.  Grows them with room for a full log tail and _SLACK more: only for
        a record larger than reserve() was told of (a store used without it)."""
        if len(self._scratch) > size:
            return
        self._grow(size + 1 + eventlog.MAX_ANCHOR - anchor + _SLACK)

    def _grow(self, capacity):
        """Both buffers at least `capacity` bytes, the committed copy kept (MemoryError: as
        they were)."""
        if len(self._scratch) >= capacity:
            return
        scratch = bytearray(capacity)
        committed = bytearray(capacity)
        memoryview(committed)[:self._length] = memoryview(self._buf)[:self._length]
        self._buf, self._scratch = committed, scratch

    def _matches(self, index):
        """True if copy `index` reads back as exactly the committed copy (compared in place,
        slots.same; a slot without ``same`` is read whole)."""
        slot = self.copies[index]
        committed = memoryview(self._buf)[:self._length]
        try:
            same = getattr(slot, "same", None)
            if same is None:
                raw = slot.read()
                return raw is not None and len(raw) == self._length and memoryview(raw) == committed
            return same(committed, self._chunk)
        except (OSError, MemoryError):
            return False

    def _rewrite(self, index):
        """Write the committed copy over copy `index` and read it back; True if it now matches."""
        try:
            self.copies[index].write(memoryview(self._buf)[:self._length])
            ok = self._matches(index)
        except (OSError, MemoryError):
            ok = False
        self.copy_status[index] = "ok" if ok else "failed"
        if ok:
            self.repairs += 1
        return ok

    def check(self, now=0):
        """Read back every copy against the last commit, rebuild any that differ and log it
        (in a commit of its own; kept for the next when no copy takes or holds it).  Returns
        the number of copies found bad."""
        self._require_ready()
        events = []
        bad = self._check_copies(events)
        if events:
            self._write_log_later_if_refused(events, now, self.round_no, self.step)
        return bad

    def _check_copies(self, events):
        """Read every copy back against the last commit and rebuild those that differ; add
        to `events` what is new: a copy's failure when it starts (CM_ERROR with the reason,
        again with REASON_IO when its rebuild fails), its end when it holds the commit again
        (CM_RECOVERED, source 0xFFFF: the record just committed, held in RAM).  A copy whose
        failure is logged and not ended adds nothing when it fails again (a dead FRAM would
        add two entries and a commit to every commit).  Returns the copies found differing."""
        bad = 0
        for i in range(len(self.copies)):
            bit = 1 << i
            down = self._down & bit
            if self._matches(i):
                self.copy_status[i] = STATUS_OK     # (a write not read back left it failed)
                if down:        # written whole by this commit (or by one not read back)
                    self._down ^= bit
                    events.append((eventlog.CM_RECOVERED, i, 0xFFFF, self.seq))
                continue
            bad += 1
            if not down:
                try:
                    self._read_copy(i)
                    code = eventlog.REASON_READBACK  # a valid record, not the one committed
                except RecordError as error:
                    code = eventlog.reason_code(str(error))
                except MemoryError:
                    code = eventlog.REASON_OTHER
                events.append((eventlog.CM_ERROR, i, code))
            was = self.copy_status[i]
            if self._rewrite(i):
                self._down &= ~bit
                events.append((eventlog.CM_RECOVERED, i, 0xFFFF, self.seq))
            elif not down:
                self._down |= bit
                events.append((eventlog.CM_ERROR, i, eventlog.REASON_IO))
            elif was != STATUS_OK:
                self.copy_status[i] = was   # shown as before ("write failed"): nothing new
        return bad

    # --- commits ---------------------------------------------------------------------------
    def _next_sections(self, replace):
        """A dict to build the next commit's sections in: the committed ones (none when
        `replace`), reusing the dict of the commit before when it has the same names."""
        if replace:
            return {}
        spare = self._spare_sections
        current = self._sections
        if spare is not None and len(spare) == len(current):
            for name in current:
                spare[name] = current[name]
            if len(spare) == len(current):  # so the names were the same
                return spare
        return dict(current)

    def _require_ready(self):
        if self.status == STATUS_RAM_ERROR:
            raise RamError("RAM ERROR (%s): only a supervisor RAM clear can continue" % self.ram_error_reason)
        if self.status == STATUS_UNBOOTED:
            raise StoreError("critical memory used before boot()")

    def cut_short(self):
        """True when a commit was begun and neither made nor refused: an exception other than
        a copy's I/O error stopped it, and which copies hold it is not known (firmware.app
        then commits nothing more before the boot has read them)."""
        return self.log.staged()

    def commit(self, round_no, step, sections=None, events=(), now=0):
        """Commit one step of a round with the sections it changed and its events.

        Returns True when committed, False when this (round, step) or a later step of the
        same round is already committed (a replay: nothing changes).  ValueError if the step
        is out of order (a new round while the last one is open, or a step after the end)."""
        self._require_ready()
        if not isinstance(round_no, int) or round_no < 0 or round_no > _MAX_ROUND:
            raise ValueError("round number %r is not an integer 0..2**32-1" % (round_no,))
        if step not in (STEP_LOCK, STEP_CONFIRM, STEP_SETTLE, STEP_VOID):
            raise ValueError("step %r is not STEP_LOCK, STEP_CONFIRM, STEP_SETTLE or STEP_VOID" % (step,))
        if round_no < self.round_no or (round_no == self.round_no and step <= self.step):
            return False
        if round_no == self.round_no and _ended(self.step):
            raise ValueError("round %d already ended with %s; %s refused"
                             % (round_no, STEP_NAMES[self.step], STEP_NAMES[step]))
        if round_no > self.round_no:
            if self.step != _STEP_IDLE and not _ended(self.step):
                raise ValueError("round %d is still open at %s; round %d refused"
                                 % (self.round_no, STEP_NAMES[self.step], round_no))
            if step != STEP_LOCK:
                raise ValueError("round %d must start with STEP_LOCK, not %s" % (round_no, STEP_NAMES[step]))
        self._write(sections, events, now, round_no, step, False)
        return True

    def commit_step_once(self, round_no, step, sections=None, events=(), now=0):
        """Like commit, but a replay raises DuplicateStep instead of returning False."""
        if not self.commit(round_no, step, sections, events, now):
            raise DuplicateStep("round %d %s already committed" % (round_no, STEP_NAMES[step]))

    def commit_admin(self, sections=None, events=(), now=0):
        """Commit a change outside the round steps (configuration, operator addition, a log
        entry such as door open).  The journal keeps its round and step."""
        self._require_ready()
        self._write(sections, events, now, self.round_no, self.step, False)

    def ram_clear(self, sections, now, supervisor, accepted, round_no=0, seed=0):
        """Supervisor RAM clear: replace every section by the reset values in `sections`
        (which the supervisor entered or accepted: `accepted` must be True), keep the event
        log, leave the journal after its highest round, log the clear (with `seed`, the cents
        the reset values put in the pools as operator additions), and leave RAM ERROR."""
        if accepted is not True:
            raise ValueError("RAM clear refused: the supervisor has not accepted the reset values")
        if not isinstance(sections, dict) or not sections:
            raise ValueError("RAM clear needs the reset values of every section, got %r" % (sections,))
        if not isinstance(supervisor, int) or supervisor < 0 or supervisor > 0xFFFF:
            raise ValueError("supervisor id %r is not an integer 0..65535" % (supervisor,))
        if not isinstance(round_no, int) or round_no < 0 or round_no > _MAX_ROUND:
            raise ValueError("round number %r is not an integer 0..2**32-1" % (round_no,))
        self._check_sections(sections)
        previous = self.seq
        if self.status == STATUS_RAM_ERROR or self.status == STATUS_UNBOOTED:
            previous = self._highest_seen
            self.log.recover_anchor()
            now = self._check_clock(now)
        # the new rounds are numbered after every round of the kept log, so that no number
        # stands for two rounds in it (an entry whose link fails is garbled: not believed)
        highest = self.log.highest_round()
        round_no = max(round_no, self.round_no, highest if highest < _SEQ_PLAUSIBLE else 0)
        self.seq = max(self.seq, self._highest_seen)
        self._write(sections, [(eventlog.RAM_CLEAR, supervisor, previous & 0x7FFFFFFF,
                                eventlog.clamp(seed))], now, round_no, _STEP_IDLE, True)
        self.status = STATUS_OK
        self.ram_error_reason = ""

    def defer(self, events, now):
        """Keep events that happened at `now` (wall seconds) to log with the next commit,
        while none can be made (RAM ERROR: the RAM clear logs them, each with its own time); at
        most _DEFERRED_MAX wait, later ones are dropped."""
        for event in events:
            if len(self._pending) < _DEFERRED_MAX:
                self._pending.append(_timed(event, now, self.clock_unsure))

    def _check_sections(self, sections):
        if sections is None:
            return
        if not isinstance(sections, dict):
            raise ValueError("sections must be a dict of name -> bytes, got %r" % (sections,))
        for name in sections:
            if not isinstance(name, str) or not name or name.startswith("_"):
                raise ValueError("section name %r must be text not starting with '_'" % (name,))
            if not isinstance(sections[name], (bytes, bytearray, memoryview)):
                raise ValueError("section %r must be bytes, got %s" % (name, type(sections[name]).__name__))

    def _write(self, sections, events, now, round_no, step, replace):
        self._check_sections(sections)
        if not isinstance(now, int) or now < 0 or now > 0xFFFFFFFF:
            raise ValueError("time %r is not an integer 0..2**32-1 seconds" % (now,))
        new = self._next_sections(replace)
        self._spare_sections = None  # until this commit is done, `new` is neither dict
        if sections:
            for name in sections:
                # the caller's object, read once by encode_into below; after a commit every
                # section is a view of the committed copy (record.point_sections), never this
                new[name] = sections[name]
        new[JOURNAL] = struct.pack(_JOURNAL_FORMAT, round_no, step)
        carried = 0
        if self._pending:
            # as many as the commit has room for, oldest first; the rest wait for the next
            carried = max(0, min(len(self._pending), eventlog.MAX_EVENTS_PER_COMMIT - len(events)))
            events = self._pending[:carried] + list(events)
        new[LOG] = self.log.stage(events, now, round_no, self.clock_unsure)
        base = self.log.base_section()
        if base is None:
            new.pop(LOG_BASE, None)
        else:
            new[LOG_BASE] = base
        try:
            self._fit(record.OVERHEAD + record.sections_size(new), len(new[LOG]))
            # the mark: kept, and set with the key; a RAM clear (replace) keeps it only with it
            keyed = self.key or (self.keyed and not replace)
            number = max(self.seq, self._tried) + 1
            length = record.encode_into(self._scratch, number, new, _KEYED if keyed else 0)
        except BaseException:
            self.log.abandon()
            raise
        data = memoryview(self._scratch)[:length]
        self._tried = number
        written = 0
        why = ""
        # A copy that does not hold the last commit (its write or rebuild failed) is written
        # first: a cut then tears it, never the only copy that does, which would take the
        # boot back to the stale one's older state (a payout lost, and made again).
        status = self.copy_status
        order = [i for i in range(len(status)) if status[i] != "ok"] + \
            [i for i in range(len(status)) if status[i] == "ok"]
        for i in order:
            try:
                self.copies[i].write(data)
                # a copy that missed a commit is whole again only once a read-back finds it
                # so, not by the commit that logs its fault (verify off), or a part that takes
                # writes and keeps none would pass for whole, the jackpot open, until the next
                if self.verify_after_commit or status[i] == STATUS_OK:
                    status[i] = STATUS_OK
                written += 1
            except (OSError, MemoryError) as error:
                # a copy the device (or, for a littlefs file, the heap) refused: the others
                # carry the commit, and the read-back logs and rebuilds this one
                self.copy_status[i] = "write failed"
                why += "%s copy %d %s" % (";" if why else ":", i,
                                          str(error) or type(error).__name__)
        if written == 0:
            self.log.abandon()
            raise StoreError("commit %d failed on every copy%s" % (number, why))
        before = (self.seq, self._sections, self._spare_sections, self._length, self.keyed,
                  self.round_no, self.step)
        self.seq = number
        if not replace:
            self._spare_sections = self._sections
        self._sections = new
        self._buf, self._scratch = self._scratch, self._buf
        self._length = length
        self.keyed = keyed
        # The committed sections are read from the copy just written: no snapshot allocated,
        # nothing shared with the caller (the log's anchor stays the log's own buffer).
        record.point_sections(self._buf, new, LOG)
        self.round_no, self.step = round_no, step
        found = []
        if self.verify_after_commit:
            self._check_copies(found)
            if STATUS_OK not in status:
                # Read back, no copy holds it (one dead, the other taking writes and keeping
                # none): a power cut would lose it, so it is refused like a commit no copy
                # took.  The committed record before it is still whole in the other buffer
                # (the read-backs compare in place, slots.same), and stays the RAM's; the
                # copies' faults are logged with the next commit that is held.
                (self.seq, self._sections, self._spare_sections, self._length, self.keyed,
                 self.round_no, self.step) = before
                self._buf, self._scratch = self._scratch, self._buf
                self.log.abandon()
                for event in found:
                    self._pending.append(_timed(event, now, self.clock_unsure))
                self.log_fault = "commit %d held by no copy on read-back" % number
                raise StoreError(self.log_fault)
        self.log.confirm()
        if carried:
            self._pending = self._pending[carried:]
        if not self._pending:
            self.log_fault = ""
        if found:
            # log the repair in a commit of its own (checked again, but not repaired twice)
            self.verify_after_commit = False
            try:
                self._write_log_later_if_refused(found, now, round_no, step)
            finally:
                self.verify_after_commit = True
            if self.status == STATUS_OK:
                self.status = STATUS_REPAIRED
