# Critical memory on both runtimes: FRAM (fake bus, decoded at the wire) + a second copy in a
# file; rounds with the real jackpot pools, a reboot mid-round that resumes the same round, a
# replayed step refused, a bit flip in each copy rebuilt and logged, both copies bad -> RAM
# ERROR until a RAM clear, a commit no copy holds on read-back refused (and the next held
# commit numbered after it, so a cut boots there, not at a copy holding the refused one; a
# check() whose commit is refused keeping its faults for the next),
# the hash-chained log intact, and the same record bytes on CPython and MicroPython.  The
# table CRC-32 is checked against the published check value too.
import sys

from firmware.drivers.fram import FRAM
from firmware.jackpot import record as jrecord
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards
from firmware.store import crc32, eventlog, eventnames
from firmware.store.critical import STEP_LOCK, STEP_SETTLE, CriticalMemory
from firmware.store.errors import RamError, StoreError
from firmware.store.slots import FileSlot, FramSlot
from host_tests.fakes.flash import MemFS
from host_tests.fakes.fram import FramBus

failures = []


def check(ok, text):
    if not ok:
        failures.append(text)


# CRC-32/ISO-HDLC check value 0xCBF43926 (the published "123456789" check)
check(crc32.crc32_table(b"123456789") == 0xCBF43926, "table crc check value")
check(crc32.crc32(b"123456789") == 0xCBF43926, "crc check value")

fram_memory = bytearray(32768)
files = {}


def boot(now, cause):
    fs = MemFS(files)
    cm = CriticalMemory([FramSlot(FRAM(FramBus(fram_memory)), 0, 8192), FileSlot(fs, "cm_b.bin")], fs)
    return cm, cm.boot(now, cause)


cm, status = boot(1000, 1)
print("blank boot:", status, "|", cm.status_text())
check(status == "RAM ERROR" and not cm.wagering_allowed, "blank memory must be a RAM ERROR")
cm.ram_clear({"jackpot": jrecord.encode(Jackpot({"main": {"rate": (333, 1000)}}))}, 1000, 5, True)
print("after RAM clear:", cm.status_text())

seats = [1, 2, 3, 4, 5, 6, 7]
flop = cards.parse("Ah Kh Qh")
holes = ["2c 3d", "4c 5d", "Jh Th", "6c 7d", "9h 2h", "8c 8d", "3c 4d"]
hands = [(s, cards.parse(holes[s - 1]), True) for s in seats]
for round_no in (1, 2):
    jp = jrecord.decode(cm.section("jackpot"))
    jp.contribute(round_no, seats)
    cm.commit(round_no, STEP_LOCK, {"jackpot": jrecord.encode(jp)}, [(eventlog.LOCK, 0, 7, 700)],
              1000 + round_no)
    if round_no == 2:
        # power fails after LOCK: the reboot resumes round 2 at LOCK with the wagers counted once
        cm, status = boot(2000, 2)
        print("reboot mid-round:", status, "round", cm.round_no, "step", cm.step)
        check((cm.round_no, cm.step) == (2, STEP_LOCK), "round 2 not resumed at LOCK")
        jp = jrecord.decode(cm.section("jackpot"))
        check(not cm.commit(2, STEP_LOCK, {"jackpot": b"replay"}), "replayed LOCK accepted")
    misses = ["2s 7c", "3s 8c", "4s 9c", "5s Tc", "6s Jc", "7s Qc", "8s Kc"]
    settled = jp.settle(round_no, 5000 + round_no, flop, hands if round_no == 2 else
                        [(s, cards.parse(misses[s - 1]), True) for s in seats])
    events = [(eventlog.JACKPOT_HIT, h[2], h[3], h[10]) for h in settled.hits]
    cm.commit(round_no, STEP_SETTLE, {"jackpot": jrecord.encode(jp)}, events + [(eventlog.SETTLE, 0, 0, 0)],
              1100 + round_no)
    print("round", round_no, "paid", settled.total_paid(), "pool", jp.value[0])

record_bytes = cm._record
print("record bytes", len(record_bytes), "crc", "%08x" % crc32.crc32(record_bytes))

for copy_index in (0, 1):
    if copy_index == 0:
        fram_memory[40] ^= 0x08
    else:
        data = bytearray(files["cm_b.bin"])
        data[40] ^= 0x08
        files["cm_b.bin"] = bytes(data)
    cm, status = boot(3000 + copy_index, 1)
    logged = [(e[3], e[4]) for e in cm.log.events(cm.log.count - 4)]
    print("flip in copy", copy_index, "->", status, cm.copy_status)
    check(status == "repaired", "flip not repaired")
    check((eventlog.CM_ERROR, copy_index) in logged and (eventlog.CM_RECOVERED, copy_index) in logged,
          "repair not logged")

fram_memory[40] ^= 0x08
data = bytearray(files["cm_b.bin"])
data[40] ^= 0x08
files["cm_b.bin"] = bytes(data)
cm, status = boot(4000, 1)
print("flip in both copies ->", status, "|", cm.status_text())
try:
    cm.commit(3, STEP_LOCK, {"jackpot": b"x"})
    failures.append("commit accepted in RAM ERROR")
except RamError:
    print("commit refused in RAM ERROR")
cm.ram_clear({"jackpot": jrecord.encode(Jackpot())}, 4001, 9, True)
cm, status = boot(4002, 1)
print("after second RAM clear:", status, "log events", cm.log.count, "chain", cm.log.verify())
check(status == "ok" and cm.log.verify() is None, "RAM clear did not take")
for entry in cm.log.events(cm.log.count - 3):
    print(" ", entry[0], entry[1], entry[2], eventnames.NAMES[entry[3]], entry[4], entry[5], entry[6])

# the "key required" mark (header flags bit 0): set by the boot of a keyed program, kept by
# the boots without the key, removed only by a RAM clear
cm = CriticalMemory([FramSlot(FRAM(FramBus(fram_memory)), 0, 8192), FileSlot(MemFS(files), "cm_b.bin")],
                    MemFS(files))
cm.key = True
cm.boot(5000, 1)
cm, status = boot(5001, 1)
print("boot without the key after a keyed one:", status, cm.keyed, fram_memory[3], "|", cm.status_text())
check(cm.keyed and fram_memory[3] == 1 and files["cm_b.bin"][3] == 1, "key mark not kept")
cm.ram_clear({"jackpot": jrecord.encode(Jackpot())}, 5002, 9, True)
cm, status = boot(5003, 1)
print("after a RAM clear without the key:", status, cm.keyed, fram_memory[3])
check(not cm.keyed and fram_memory[3] == 0, "RAM clear kept the key mark")

# a board with no battery clock: after a power cut its clock reads far behind the log; the boot
# goes on from the newest time logged (never before it) and marks the times it could not know,
# until a real time comes (clock_real: NTP)
newest = eventlog.unpack(list(cm.log.entries(cm.log.count - 1))[0])[1]
cm, status = boot(10, 1)
shift = cm.clock_shift
cm.commit(1, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 10 + shift + 3)
cm.clock_real()
cm.commit(1, STEP_SETTLE, None, [(eventlog.SETTLE, 0, 0, 0)], 90000)
logged = [(eventlog.unpack(raw)[1], eventnames.NAMES[eventlog.unpack(raw)[3]], eventlog.time_unsure(raw))
          for raw in cm.log.entries(cm.log.count - 3)]
print("clock behind the log:", status, shift, logged, "chain", cm.log.verify())
check(logged == [(newest, "power up", True), (newest + 3, "lock", True), (90000, "settle", False)],
      "a clock behind the log went back in time or was not marked")
check(cm.log.verify() is None, "the marked entries broke the chain")



class DeadFlash(MemFS):
    """A flash whose writes fail."""

    def open(self, name, mode):
        if "w" in mode:
            raise OSError(5, "flash write failed")
        return MemFS.open(self, name, mode)


# both copies failing at once, the FRAM silently (it acknowledges its writes and keeps none),
# the flash refusing its file: read back, no copy holds the commit, which is refused, the RAM
# keeping the commit before it (what a boot finds)
bus = FramBus(fram_memory)
cm = CriticalMemory([FramSlot(FRAM(bus), 0, 8192), FileSlot(DeadFlash(files), "cm_b.bin")], MemFS(files))
cm.boot(90001, 1)
seq = cm.seq
bus.writeto = lambda addr, frame: None
try:
    cm.commit(2, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 90002)
    failures.append("a commit no copy holds was accepted")
except StoreError as error:
    print("commit held by no copy:", error, cm.copy_status)
check((cm.seq, cm.round_no, cm.step) == (seq, 1, STEP_SETTLE), "a refused commit changed the RAM")
cm, status = boot(90003, 1)
check((cm.round_no, cm.step) == (1, STEP_SETTLE), "the boot found another round")


def refused(*args, **kwargs):
    raise OSError(5, "EIO")


# the FRAM takes LOCK's writes and fails its reads, the flash refuses its file: LOCK is
# refused, though the FRAM holds it; then the FRAM refuses writes and the flash works: the
# idle commit is held by the flash, and a cut before its entries' commit must boot at it (it
# is numbered after the refused one), not at the FRAM's refused LOCK
bus = FramBus(fram_memory)
flash = FileSlot(DeadFlash(files), "cm_b.bin")
cm = CriticalMemory([FramSlot(FRAM(bus), 0, 8192), flash], MemFS(files))
cm.boot(90004, 1)
bus.readfrom_mem_into = refused
try:
    cm.commit(2, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 90005)
    failures.append("a commit no copy holds was accepted")
except StoreError:
    pass
bus.writeto = refused
flash.fs = MemFS(files)
held = []
write = flash.write
flash.write = lambda data: (write(data), held.append(files["cm_b.bin"]))
cm.commit_admin(None, [], 90006)
cut = {"cm_b.bin": held[0]}      # the power cut after the flash took the idle commit
cut_fs = MemFS(cut)
cm = CriticalMemory([FramSlot(FRAM(FramBus(bytearray(fram_memory))), 0, 8192),
                     FileSlot(cut_fs, "cm_b.bin")], cut_fs)
cm.boot(90007, 1)
print("cut after the commit held after a refused one:", cm.round_no, cm.step, cm.copy_status)
check((cm.round_no, cm.step) == (1, STEP_SETTLE), "the boot took the refused commit")

# check() finds both copies taking writes and failing their reads: its own commit is refused
# and the faults wait for the next commit a copy holds, logged before it in the order found
bus = FramBus(fram_memory)
fs = MemFS(files)
flash = FileSlot(fs, "cm_b.bin")
cm = CriticalMemory([FramSlot(FRAM(bus), 0, 8192), flash], fs)
cm.boot(90008, 1)
count = cm.log.count
bus.readfrom_mem_into = flash.read = refused
flash.same = lambda data, chunk: False
bad = cm.check(90009)
del bus.readfrom_mem_into, flash.read, flash.same
cm.commit(2, STEP_LOCK, None, [(eventlog.LOCK, 0, 1, 100)], 90010)
logged = [(eventnames.NAMES[e[3]], e[4]) for e in cm.log.events(count)]
print("check refused, then a commit:", bad, logged)
fault, end = "critical memory error", "critical memory recovered"
check(bad == 2 and logged == [(fault, 0), (fault, 0), (fault, 1), (fault, 1), ("lock", 0), (end, 0),
                              (end, 1)], "check()'s faults lost or out of order")

if failures:
    print("FAILED:", failures)
    sys.exit(1)
print("all checks passed")
