# Critical-memory commits in a fragmented heap, as after hours of play on a board.  The memory
# is the one firmware.app.make_memory builds on the simulated board (FRAM copy decoded at the
# wire by boards/simulated.FileFRAM, second copy and event pages in files).  On MicroPython
# the heap is fragmented on purpose (blocks laid one after the other, every other one freed):
# free memory is left only in holes of about `hole` bytes (any larger hole left, from garbage
# freed late, is plugged; the few blocks of twice `hole` that still fit then are counted).
#   1. 100 seven-seat rounds with the real jackpot pools (LOCK and SETTLE: 200 commits of the
#      jackpot and round sections with their events, some rounds with a flush hit) in holes
#      of ROUNDS_HOLE bytes: every commit succeeds and the books check (the jackpot's own
#      audit of the pool equation, 700 wagers counted, the committed sections equal to the
#      state in RAM).
#   2. the store alone, in holes of STORE_HOLE bytes: 64 commits of log events (two log
#      pages written) and, every 8th, a section given ready-made (the caller allocates
#      nothing), so an allocation of the commit path larger than a hole fails it (the
#      store's own largest is under 100 bytes).
# Before the store's kept buffers a commit built the record in fresh 0.5-1.8 KB objects:
# phase 1 (then in 448-byte holes) failed at its third commit and phase 2 at its first.
# Before the jackpot section was encoded into a kept buffer and the committed sections became
# views of the committed copy, phase 1 needed 320-byte holes.
# Then a reboot from the copies finds the same state with the event chain intact.
# CPython has no heap to fragment: it makes the same commits and prints the same lines.
import gc
import os
import sys
from binascii import hexlify

from boards import simulated
from firmware.app import make_memory
from firmware.jackpot import record as jrecord
from firmware.jackpot.codec import Writer
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards
from firmware.store import eventlog
from firmware.store.critical import STEP_LOCK, STEP_SETTLE
from firmware.store.slots import PathFS
from firmware.table import roundrecord
from host_tests.scenario_support import Checker, Lcg

MICROPYTHON = sys.implementation.name == "micropython"
ROUNDS = 100
SEATS = (1, 2, 3, 4, 5, 6, 7)
# The jackpot section is encoded into a kept buffer, as the round controller does; what is
# left of a round in fresh objects is the pools' settlement (its payout plan objects take up
# to 160 bytes), so the rounds run in holes of 256 bytes.
ROUNDS_HOLE = 256
STORE_HOLE = 128
STORE_COMMITS = 64
FLUSH_EVERY = 20
FLUSH = cards.parse("9h 2h Ah Kh 7h")   # two hole cards and a flop: a flush

WRITER = Writer(bytearray(1024))  # made while the heap is whole, like the controller's
checker = Checker(44)
check = checker.check


def block(size):
    """A tuple taking size bytes of heap in one piece (8-byte words: MicroPython on x64)."""
    return (None,) * (size // 8 - 2)


def fragment(hole):
    """Fill the heap with `hole`-byte blocks, the space left over with ever smaller ones, then
    free every other `hole`-byte block in address order: free memory is left only in holes of
    `hole` bytes.  Returns the lists that keep the others."""
    gc.collect()
    n = gc.mem_free() // hole + 64
    blocks = [None] * n
    rest = [None] * 2048
    try:
        for i in range(n):
            blocks[i] = block(hole)
    except MemoryError:
        pass
    size = hole
    i = 0
    while size >= 32 and i < len(rest):
        try:
            rest[i] = block(size)
            i += 1
        except MemoryError:
            size //= 2
    blocks.sort(key=id)  # id is the address on MicroPython
    free = False
    for i in range(n):
        if blocks[i] is not None:
            if free:
                blocks[i] = None
            free = not free
    return blocks, rest


def scrub(depth):
    """Overwrite the C stack below this frame: a stale pointer left there by a deeper call
    would keep garbage alive through a collection, and free it later as a larger hole."""
    if depth:
        scrub(depth - 1)


def plug(size, plugs):
    """Put blocks of size bytes in the empty places of the list plugs while they fit; return
    how many fitted.  Garbage a stale pointer kept through a collection comes free later as a
    larger hole, and small garbage freed next to a hole widens it: this closes such holes."""
    placed = 0
    for i in range(len(plugs)):
        if plugs[i] is None:
            try:
                plugs[i] = block(size)
            except MemoryError:
                break
            placed += 1
    return placed


def fragmented(hole, run, args):
    """run(*args) in a heap fragmented into `hole`-byte holes (on MicroPython); returns
    (how many blocks of twice `hole` still fitted once the heap was plugged, run's result)."""
    kept = plugs = None
    wide = 0
    if MICROPYTHON:
        plugs = [None] * 2048
        kept = fragment(hole)
        scrub(64)
        gc.collect()
        plug(hole + 16, plugs)
        scrub(64)
        gc.collect()
        wide = plug(2 * hole, plugs)  # 0 when the heap is fragmented as meant
    result = run(*args)
    del kept, plugs  # the heap is whole again
    gc.collect()
    return wide, result


def play(cm, jp, rec, rng, deck):
    """Commit LOCK and SETTLE of ROUNDS seven-seat rounds dealt from deck; return (commits
    done, events sent, jackpot hits, the MemoryError or refusal that stopped it, or None)."""
    committed = events_sent = hits = 0
    for round_no in range(1, ROUNDS + 1):
        time = 2000 + 60 * round_no
        rec.round_no = round_no
        rec.accepted = 0x7F
        try:
            jp.contribute(round_no, SEATS)
            sections = {"jackpot": jrecord.encode_into(jp, WRITER), "round": roundrecord.encode(rec)}
            if not cm.commit(round_no, STEP_LOCK, sections, [(eventlog.LOCK, 0, 7, 700)], time):
                return committed, events_sent, hits, "round %d LOCK refused" % round_no
            committed += 1
            events_sent += 1
            for i in range(17):
                j = i + rng.below(52 - i)
                deck[i], deck[j] = deck[j], deck[i]
            if round_no % FLUSH_EVERY == 0:  # a flush for one seat: its hole cards and the flop
                seat = round_no // FLUSH_EVERY % 7 + 1
                for card, place in zip(FLUSH, (2 * seat - 2, 2 * seat - 1, 14, 15, 16)):
                    at = deck.index(card)
                    deck[at], deck[place] = deck[place], card
            hands = [(s, deck[2 * s - 2:2 * s], True) for s in SEATS]
            settled = jp.settle(round_no, time + 30, deck[14:17], hands)
            events = [(eventlog.JACKPOT_HIT, h[2], h[3], h[10]) for h in settled.hits]
            hits += len(events)
            events.append((eventlog.SETTLE, 0, settled.total_paid(), jp.value[0]))
            if not cm.commit(round_no, STEP_SETTLE, {"jackpot": jrecord.encode_into(jp, WRITER)}, events,
                             time + 30):
                return committed, events_sent, hits, "round %d SETTLE refused" % round_no
            committed += 1
            events_sent += len(events)
        except MemoryError as error:  # no room to say more here: told once the heap is back
            return committed, events_sent, hits, error
    return committed, events_sent, hits, None


def admin(cm, section, events):
    """STORE_COMMITS commits of ready-made events (and every 8th, a ready-made section);
    return (commits done, the MemoryError that stopped them, or None)."""
    done = 0
    try:
        while done < STORE_COMMITS:
            if done % 8 == 0:
                cm.commit_admin(section, events[done % 2], 9000 + done)
            else:
                cm.commit_admin(None, events[done % 2], 9000 + done)
            done += 1
    except MemoryError as error:
        return done, error
    return done, None


def say_failure(done, failed):
    if failed is not None:
        print("commit %d failed: %r" % (done + 1, failed))
        if MICROPYTHON and isinstance(failed, MemoryError):
            sys.print_exception(failed, sys.stdout)


folder = "/tmp/store_frag_%s" % hexlify(os.urandom(6)).decode()
table = simulated.make(folder)   # FRAM image and flash files in folder, as tools/table_bench


def boot(now):
    memory = make_memory(table.board, PathFS(table.flash_dir))
    return memory, memory.boot(now, 1)


cm, status = boot(1000)
check("blank memory", status, "RAM ERROR")
jp = Jackpot({"main": {"rate": (333, 1000)}})
rec = roundrecord.RoundRecord()
cm.ram_clear({"jackpot": jrecord.encode(jp), "round": roundrecord.encode(rec)}, 1000, 5, True)
check("after RAM clear", cm.status, "ok")

# 1. rounds
events_before = cm.log.count
wide, (committed, events_sent, hits, failed) = fragmented(
    ROUNDS_HOLE, play, (cm, jp, rec, Lcg(20261130), list(range(52))))
check("rounds: fragmented (blocks of 2 x hole free)", wide < 4, True)
say_failure(committed, failed)
check("rounds: commits that succeeded", committed, 2 * ROUNDS)
check("rounds: jackpot audit problems", jp.audit(), [])
check("rounds: jackpot wagers counted", jp.table_meters()["wagers"], 7 * committed // 2)
check("rounds: committed jackpot = jackpot in RAM", cm.section("jackpot"), jrecord.encode(jp))
check("rounds: committed round = round in RAM", cm.section("round"), roundrecord.encode(rec))
check("rounds: events logged", cm.log.count, events_before + events_sent)
print("jackpot hits", hits, "pool", jp.value[0], "record bytes", len(cm._record), "seq", cm.seq)

# 2. the store alone
events_before = cm.log.count
round_section = roundrecord.encode(rec)
door = ([(eventlog.DOOR_OPEN, 1)], [(eventlog.DOOR_CLOSE, 1), (eventlog.TAMPER, 3)])
wide, (done, failed) = fragmented(STORE_HOLE, admin, (cm, {"round": round_section}, door))
check("store: fragmented (blocks of 2 x hole free)", wide < 4, True)
say_failure(done, failed)
check("store: commits that succeeded", done, STORE_COMMITS)
check("store: events logged", cm.log.count, events_before + 3 * STORE_COMMITS // 2)
print("record bytes", len(cm._record), "seq", cm.seq, "events", cm.log.count)

again, status = boot(9900)
check("reboot", (status, again.copy_status), ("ok", ["ok", "ok"]))
check("reboot: seq", again.seq, cm.seq + 1)
check("reboot: jackpot", again.section("jackpot"), jrecord.encode(jp))
check("reboot: round", again.section("round"), roundrecord.encode(rec))
check("reboot: journal", (again.round_no, again.step), (ROUNDS, STEP_SETTLE))
check("reboot: jackpot books", jrecord.decode(again.section("jackpot")).audit(), [])
check("reboot: event chain", again.log.verify(), None)

table.fram.file.close()
for place in (table.flash_dir, folder):
    for name in os.listdir(place):
        if place != folder or name != simulated.FLASH_DIR:
            os.remove(place + "/" + name)
    os.rmdir(place)
checker.finish()
