"""A stand-in jackpot state (one pool with meters and a conservation equation) and the
power-cut harness that drives critical memory through scenario rounds.

This module runs under CPython (pytest collects the few tests at the bottom) and under the
MicroPython unix VM (test_store_powercut.py runs its harness there on the real littlefs), so
it keeps to the subset both share.  The stand-in exists so the store can be proven before
firmware/jackpot/ lands; the integrated test uses the real pools when they exist.
"""

import struct

from firmware.store import eventlog
from firmware.store.critical import STEP_CONFIRM, STEP_LOCK, STEP_SETTLE, STEP_VOID, CriticalMemory
from firmware.store.slots import FileSlot, FramSlot

WAGER = 100            # cents per jackpot wager (table sign default, rules.md 2)
RATE_NUM = 67          # contribution 67% of each wager: a rate whose fractions carry
RATE_DEN = 100
SEED = 500000          # reset money: $5,000
FLUSH_PAYS = 100       # rules.md 2, pay table 11.9: flush 100 to 1
ROYAL_PAYS = 10000     # royal flush 10,000 to 1 or the whole pool, whichever is greater

# state fields, in encoding order
POOL, CONTRIB, ADDITIONS, PAYOUTS, SHORTFALL, WAGER_COUNT, WAGER_AMOUNT, CARRY, HITS, \
    LOCK_ROUND, LOCK_CONTRIB, LOCK_CARRY, LOCK_COUNT, VOIDS = range(14)
FIELDS = 14
_FORMAT = "<14i"


def fresh():
    """State right after a RAM clear with the reset values accepted."""
    state = [0] * FIELDS
    state[POOL] = SEED
    state[ADDITIONS] = SEED
    return state


PAD = 2000  # bytes of per-hand meters and hit history a real jackpot state carries


def encode(state):
    """The state's bytes: the fields, then PAD bytes derived from them (standing in for the
    meters and hit history, so a copy is multi-block and a mix of two states shows)."""
    head = struct.pack(_FORMAT, *state)
    return head + (head * (PAD // len(head) + 1))[:PAD]


def decode(data):
    """The state list of encode's bytes; ValueError if the derived bytes do not match."""
    state = list(struct.unpack_from(_FORMAT, data, 0))
    if encode(state) != bytes(data):
        raise ValueError("stand-in state bytes are inconsistent (a mix of two states?)")
    return state


def conservation_error(state):
    """None if the meters reconcile to the cent, else a text naming the broken equation."""
    if state[POOL] != state[CONTRIB] + state[ADDITIONS] - state[PAYOUTS] + state[SHORTFALL]:
        return "pool %d != contributions + additions - payouts + shortfall %d" % (
            state[POOL], state[CONTRIB] + state[ADDITIONS] - state[PAYOUTS] + state[SHORTFALL])
    if state[WAGER_AMOUNT] * RATE_NUM != state[CONTRIB] * RATE_DEN + state[CARRY]:
        return "wagers x rate %d != contributions + carry %d" % (
            state[WAGER_AMOUNT] * RATE_NUM, state[CONTRIB] * RATE_DEN + state[CARRY])
    if state[WAGER_AMOUNT] != state[WAGER_COUNT] * WAGER:
        return "wager amount %d != count x %d" % (state[WAGER_AMOUNT], WAGER)
    if state[POOL] < 0 or state[CARRY] < 0 or state[CARRY] >= RATE_DEN:
        return "pool or carry out of range"
    return None


def lock(state, round_no, seats):
    """Accept `seats` jackpot wagers at "No more bets" and contribute them."""
    s = list(state)
    amount = seats * WAGER
    total = amount * RATE_NUM + s[CARRY]
    s[LOCK_ROUND], s[LOCK_CONTRIB] = round_no, total // RATE_DEN
    s[LOCK_CARRY], s[LOCK_COUNT] = s[CARRY], seats
    s[CONTRIB] += total // RATE_DEN
    s[POOL] += total // RATE_DEN
    s[CARRY] = total % RATE_DEN
    s[WAGER_COUNT] += seats
    s[WAGER_AMOUNT] += amount
    return s


def pay(state, amount):
    """Pay one jackpot from the pool; a shortfall is operator-funded, an empty pool resets."""
    s = list(state)
    s[HITS] += 1
    s[PAYOUTS] += amount
    if amount > s[POOL]:
        s[SHORTFALL] += amount - s[POOL]
        s[POOL] = 0
    else:
        s[POOL] -= amount
    if s[POOL] == 0:
        s[POOL] = SEED
        s[ADDITIONS] += SEED
    return s


def settle(state, flushes=0, royals=0):
    """Pay every fixed-odds flush first, then every royal (rules.md 2, order of 11.10)."""
    s = list(state)
    for _ in range(flushes):
        s = pay(s, FLUSH_PAYS * WAGER)
    for _ in range(royals):
        s = pay(s, max(ROYAL_PAYS * WAGER, s[POOL]))
    return s


def void(state):
    """Reverse the contribution of the locked round (rules.md 5: misdeal)."""
    s = list(state)
    s[CONTRIB] -= s[LOCK_CONTRIB]
    s[POOL] -= s[LOCK_CONTRIB]
    s[CARRY] = s[LOCK_CARRY]
    s[WAGER_COUNT] -= s[LOCK_COUNT]
    s[WAGER_AMOUNT] -= s[LOCK_COUNT] * WAGER
    s[VOIDS] += 1
    return s


def add(state, amount):
    """Operator addition to the pool."""
    s = list(state)
    s[POOL] += amount
    s[ADDITIONS] += amount
    return s


def script():
    """Scenario rounds: every seat betting, a round with a flush and a royal (shortfall and
    reset), a void, and an operator addition.  Each item: (round, step or None for an admin
    commit, function state -> state, events)."""
    return [
        (1, STEP_LOCK, lambda s: lock(s, 1, 7), [(eventlog.LOCK, 0, 7, 7 * WAGER)]),
        (1, STEP_SETTLE, lambda s: settle(s), [(eventlog.SETTLE, 0, 0, 0)]),
        (2, STEP_LOCK, lambda s: lock(s, 2, 7), [(eventlog.LOCK, 0, 7, 7 * WAGER)]),
        (2, STEP_CONFIRM, lambda s: s, [(eventlog.JACKPOT_HIT, 3, 5, FLUSH_PAYS * WAGER),
                                        (eventlog.JACKPOT_HIT, 6, 9, ROYAL_PAYS * WAGER),
                                        (eventlog.SUPERVISOR_CONFIRM, 1, 2, 0)]),
        (2, STEP_SETTLE, lambda s: settle(s, 1, 1), [(eventlog.SETTLE, 0, 2, 0)]),
        (3, STEP_LOCK, lambda s: lock(s, 3, 7), [(eventlog.LOCK, 0, 7, 7 * WAGER)]),
        (3, STEP_VOID, void, [(eventlog.VOID, 0, 7, 0)]),
        (3, None, lambda s: add(s, 12345), [(eventlog.OPERATOR_ADDITION, 0, 0, 12345)]),
        (4, STEP_LOCK, lambda s: lock(s, 4, 7), [(eventlog.LOCK, 0, 7, 7 * WAGER)]),
        (4, STEP_SETTLE, lambda s: settle(s), [(eventlog.SETTLE, 0, 0, 0)]),
    ]


class StandIn:
    """The stand-in as a model the harness drives (the integrated test has the real pools)."""

    name = "standin"
    fresh = staticmethod(fresh)
    encode = staticmethod(encode)
    decode = staticmethod(decode)
    conservation_error = staticmethod(conservation_error)
    script = staticmethod(script)


def apply(cm, item, state, now, model=StandIn):
    """Commit one script item on top of `state`; return (committed?, new state)."""
    round_no, step, change, events = item
    new = change(state)
    if step is None:
        cm.commit_admin({"jackpot": model.encode(new)}, events, now)
        return True, new
    return cm.commit(round_no, step, {"jackpot": model.encode(new)}, events, now), new


def reference_states(items, start):
    """The state before each item and after the last one."""
    states = [start]
    for item in items:
        states.append(item[2](states[-1]))
    return states


def reference_journals(items, start=(0, 0)):
    """The journal (round, step) before each item and after the last one."""
    journals = [start]
    for item in items:
        journals.append(journals[-1] if item[1] is None else (item[0], item[1]))
    return journals


BOOT_KINDS = (eventlog.POWER_UP, eventlog.CM_ERROR, eventlog.CM_RECOVERED, eventlog.RAM_CLEAR)


def story(cm):
    """The round events in the log (without the boot and repair entries), oldest first."""
    return [e[2:7] for e in cm.log.events() if e[3] not in BOOT_KINDS]


class Board:
    """Memories of one board that survive a reboot, and the devices built on them at boot.

    kind: "fram+lfs" (reference board: FRAM copy + littlefs file), "lfs2" (two files on
    littlefs), or "fram+memfs" (FRAM copy + dict filesystem, for fast CPython FRAM cuts)."""

    def __init__(self, kind, fram_memory=None, flash_memory=None, files=None):
        self.kind = kind
        self.fram_memory = fram_memory
        self.flash_memory = flash_memory
        self.files = files
        self.supply = None

    def copy(self):
        return Board(self.kind,
                     None if self.fram_memory is None else bytearray(self.fram_memory),
                     None if self.flash_memory is None else bytearray(self.flash_memory),
                     None if self.files is None else dict(self.files))

    def power_off(self):
        """The power goes: the devices of the last boot take no more writes."""
        if self.supply is not None:
            self.supply.off = True

    def power_on(self, supply, cut_on="all"):
        """Build the devices on the memories and return a CriticalMemory; the devices named
        by cut_on ("all", "flash" or "fram") run on `supply`, the others never fail."""
        from host_tests.fakes.flash import FlashDevice, MemFS
        from host_tests.fakes.fram import FramBus
        # A boot ends the one before it: objects of the old boot that the garbage collector
        # finalises later (littlefs files) must not write into the memory this boot mounts.
        self.power_off()
        self.supply = supply
        copies = []
        fs = None
        self.flash = None
        if self.flash_memory is not None:
            import vfs
            self.flash = FlashDevice(self.flash_memory, supply=supply, counted=cut_on != "fram")
            fs = vfs.VfsLfs2(self.flash, progsize=256)
        if self.files is not None:
            fs = MemFS(self.files)
        if self.fram_memory is not None:
            from firmware.drivers.fram import FRAM
            self.bus = FramBus(self.fram_memory, supply=supply, counted=cut_on != "flash")
            copies.append(FramSlot(FRAM(self.bus), 0, 16384))
            copies.append(FileSlot(fs, "cm_b.bin"))
        else:
            copies.append(FileSlot(fs, "cm_a.bin"))
            copies.append(FileSlot(fs, "cm_b.bin"))
        self.fs = fs
        return CriticalMemory(copies, fs)


def new_board(kind, blocks=48, model=StandIn, wrapped=False):
    """A blank board, formatted and initialised by a RAM clear with the stand-in reset values;
    `wrapped`: with an event ring that has wrapped, so the page the script completes moves
    the oldest entry held (and the link before it, kept in the record) on."""
    from host_tests.fakes.flash import FlashDevice, Supply
    board = Board(kind)
    if kind != "lfs2":
        board.fram_memory = bytearray(32768)
    if kind == "fram+memfs":
        board.files = {}
    else:
        import vfs
        board.flash_memory = bytearray(b"\xff" * (blocks * 4096))
        vfs.VfsLfs2.mkfs(FlashDevice(board.flash_memory), progsize=256)
    cm = board.power_on(Supply())
    status = cm.boot(1000, 1)
    assert status == "RAM ERROR", status
    cm.ram_clear({"jackpot": model.encode(model.fresh())}, 1000, 7, True)
    while wrapped and cm.log.first_available() == 0:
        cm.commit_admin(None, [(eventlog.DOOR_OPEN, 1)] * eventlog.PAGE_ENTRIES, 1000)
    # fill the event log to just before a page boundary, so the script completes a page
    while cm.log.count % 32 != 28:
        cm.commit_admin(None, [(eventlog.DOOR_OPEN + cm.log.count % 2, 1)], 1000)
    return board


def run_reference(board, cut_on="all", model=StandIn):
    """Run the whole script without a cut; return (operations used, final state, story,
    the reference states before each item)."""
    from host_tests.fakes.flash import Supply
    supply = Supply()
    work = board.copy()
    cm = work.power_on(supply, cut_on)
    cm.boot(2000, 1)
    state = model.decode(cm.section("jackpot"))
    states = reference_states(model.script(), state)
    for i, item in enumerate(model.script()):
        done, state = apply(cm, item, state, 2000 + i, model)
        assert done
    return supply.ops, state, story(cm), states


def position_of(states, state):
    """Indexes of the reference states equal to `state`."""
    return [i for i in range(len(states)) if states[i] == state]


def cut_and_check(board, cut_at, reference, cut_on="all", model=StandIn):
    """Cut the power at operation `cut_at` of the script run, reboot, check the recovered state
    is exactly the one before or after the interrupted commit, resume and finish the script,
    and check the final state and log equal the uncut run.  Returns None or an error text."""
    from host_tests.fakes.flash import Supply
    final, final_story = reference[1], reference[2]
    items = model.script()
    work = board.copy()
    supply = Supply(cut_at)
    cm = work.power_on(supply, cut_on)
    index = -1  # item being committed when the power went (-1: the boot commit)
    try:
        cm.boot(2000, 1)
        state = model.decode(cm.section("jackpot"))
        for i, item in enumerate(items):
            index = i
            _done, state = apply(cm, item, state, 2000 + i, model)
            if supply.off:
                break  # littlefs turned the cut into an I/O error the store absorbed
    except Exception:  # the power cut, or whatever littlefs raised while dying
        if not supply.off:
            raise
    if not supply.off:
        return "no cut happened at %d" % cut_at
    cm = work.power_on(Supply())
    status = cm.boot(3000, 2)
    if status not in ("ok", "repaired"):
        return "cut %d: status %s after reboot" % (cut_at, status)
    for i in range(len(cm.copies)):
        if cm.copy_status[i] != "ok":
            return "cut %d: copy %d not rebuilt: %s" % (cut_at, i, cm.copy_status[i])
    state = model.decode(cm.section("jackpot"))
    error = model.conservation_error(state)
    if error:
        return "cut %d: %s" % (cut_at, error)
    states = reference[3]
    journals = reference_journals(items)
    before = max(index, 0)
    allowed = (before, before + 1) if index >= 0 else (0,)
    where = [p for p in allowed if states[p] == state and journals[p] == (cm.round_no, cm.step)]
    if not where:
        return "cut %d in item %d: recovered state/journal %r is neither before nor after" % (
            cut_at, index, (cm.round_no, cm.step))
    position = where[-1]
    if position > 0 and items[position - 1][1] is not None:
        # the controller replays the last step it is unsure of: it must be refused
        last = items[position - 1]
        if cm.commit(last[0], last[1], {"jackpot": b"replayed"}, last[3], 3000):
            return "cut %d: replayed step committed twice" % cut_at
        if model.decode(cm.section("jackpot")) != state:
            return "cut %d: refused replay changed the state" % cut_at
    for i in range(position, len(items)):
        done, state = apply(cm, items[i], state, 3000 + i, model)
        if not done:
            return "cut %d: step %d refused on resume" % (cut_at, i)
    if state != final or model.decode(cm.section("jackpot")) != final:
        return "cut %d: final state differs from the uncut run" % cut_at
    broken = cm.log.verify()
    if broken is not None:
        return "cut %d: event log broken at %d" % (cut_at, broken)
    if story(cm) != final_story:
        return "cut %d: round events lost or doubled" % cut_at
    return None


# --- tests of the stand-in itself (CPython) ------------------------------------------------
def test_stand_in_reconciles_over_the_script():
    states = reference_states(script(), fresh())
    for state in states:
        assert conservation_error(state) is None
    final = states[-1]
    # by hand: 3 counted rounds of 7 x 100 cents = 2100 cents wagered, 67% = 1407 contributed
    assert final[WAGER_AMOUNT] == 2100 and final[CONTRIB] == 1407 and final[CARRY] == 0
    # the royal (1,000,000) exceeded the pool left after the flush: shortfall, then reset
    assert final[SHORTFALL] > 0 and final[HITS] == 2


def test_conservation_check_can_fail():
    state = fresh()
    state[POOL] += 1
    assert "pool" in conservation_error(state)
    state = lock(fresh(), 1, 3)
    state[CARRY] += 1
    assert "carry" in conservation_error(state)
