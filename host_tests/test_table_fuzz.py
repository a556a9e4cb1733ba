"""A test lab's randomized, stateful attack on the Ultimate Texas Hold'em table.

A hypothesis state machine drives the round controller as the dealer and the supervisor do,
in any order: short and long presses and chords of the six buttons, chips put on and taken
off the jackpot and Ante spots, shoe lines (good cards, cards seen twice, lines that are not
cards, cards for seats the table does not play), cards keyed on the panel (card entry is
reached by the buttons), the supervisor's key, the logic door, the loop's ticks with time
jumps and the tick count's wrap, and power cuts at any write of critical memory followed by a
reboot on the same memory.  It uses the controller tests' rig (host_tests.test_controller:
Table, CutFS, PowerCut, books_agree_with_the_log) and the shoe's own driver for the lines.

After every step it checks what a supervisor and a test lab rely on:
- nothing escapes the controller (only the test's own PowerCut);
- the jackpot's books balance and agree with the event log (the meters' audit, the wagers
  locked, voided and paid, the operator's additions); no pool or reserve goes negative;
- the meter sign shows the pool the table holds; every display line fits the OLED;
- no round is locked twice, no jackpot is paid twice (one JACKPOT_HIT per round and seat, for
  a seat whose wager was accepted), and the jackpot's open round holds exactly the accepted
  wagers of the locked round not voided;
- after a power cut the table comes back in the state of its last commit (or of the commit
  the cut interrupted, when one copy of it was whole): round number, step, round record
  (accepted wagers) and jackpot record (pools); it never comes back in RAM ERROR.

The default budget keeps CI to a few seconds; ``--run-slow`` runs a larger one.
"""

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from firmware.drivers import buttons as btn
from firmware.drivers import shoe as shoemod
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sens
from firmware.drivers.events import EMPTY, event_detail, event_kind
from firmware.drivers.ticks import ticks_add, ticks_diff
from firmware.jackpot import meters as jm
from firmware.jackpot import paytable
from firmware.jackpot import record as jprecord
from firmware.poker import cards as cardlib
from firmware.poker import hands
from firmware.store import eventlog as ev
from firmware.store.critical import STEP_CONFIRM, STEP_LOCK, CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from firmware.table.phases import CONFIG_ITEMS
from host_tests.fakes.pins import FakeUART
from host_tests.test_controller import (
    LONG_MS,
    SEEDED,
    SHORT_MS,
    TICKS_WRAP,
    CutFS,
    PowerCut,
    Table,
    books_agree_with_the_log,
    events_of,
)
from host_tests.test_panel_display_width import assert_fits
from host_tests.test_table_payout import BoardRig
from tools.sim import TICK_MS as SIM_TICK_MS

BUTTONS = (btn.LOCK, btn.SETTLE, btn.UP, btn.DOWN, btn.OK, btn.BACK)
TICK_MS = 20
# loop passes: the usual tick, a slow pass, a message's time, the door's and the shoe's log
# windows, a minute, an hour, a day (the tick count is exact for 6 days: firmware.drivers.ticks)
JUMPS = (TICK_MS, 100, 600, tc.MESSAGE_MS, tc._DOOR_LOG_MS + 1, 60000, 3600000, 86400000)
_RANKS = "23456789TJQKA"
_SUITS = "cdhs"
# hands rigged onto a seat (hole cards, then the board): the jackpot's confirmation paths
RIGGED = {
    "royal": ("As Ks", "Qs Js Ts 2d 3c"),
    "straight flush": ("9h 8h", "7h 6h 5h Kd 2c"),
    "quads": ("Ac Ad", "Ah As 7c 8d 2h"),
    "full house": ("Kc Kd", "Kh 7s 7c 2d 3h"),
    "flush": ("Ac 9c", "4c 6c Jc 2d 3h"),
}

# the jackpot configurations a RAM clear starts from: seeded (the controller tests' rig), the
# defaults (no seed: every payout a shortfall at first), sub-pools, a ceiling with a reserve,
# envy bonuses, payouts cut to the pool
JACKPOTS = {
    "seeded": SEEDED,
    "default": {},
    "split": {"split": True, "minor": {"reset": 50000}, "major": {"reset": 1000000}},
    "ceiling": {"main": {"reset": 20000, "ceiling": 20300, "reserve_rate": (10, 100)}},
    "envy": {"main": {"reset": 1000000}, "envy": {"royal_flush": 50000, "flush": 100}},
    "cut": {"shortfall": "cut", "main": {"reset": 1000}},
}


def card_text(card):
    return cardlib.name(card)


def dest_text(dest):
    return "D" if dest == tc.DEALER else "B" if dest == tc.BOARD else "S%d" % dest


class FuzzTable(Table):
    """The controller tests' Table with the panel's chord window on (as the App sets it), a
    chosen number of seats and Ante sensors, a tick count that wraps as the board's does, a
    wall clock that never runs back, and its critical memory's commits watched."""

    def __init__(self, directory, seats, ante_sensors, on_memory, jackpot_config):
        self.seats = seats
        self.ante_sensors = ante_sensors
        self.on_memory = on_memory
        self.wall = 1000
        Table.__init__(self, directory, jackpot_config=jackpot_config)

    def boot(self):
        self.memory = CriticalMemory([FileSlot(self.fs, "a.bin"), FileSlot(self.fs, "b.bin")], self.fs)
        self.on_memory(self.memory)
        self.c = tc.RoundController(self.memory, self.jackpot_config, seats=self.seats,
                                    ante_sensors=self.ante_sensors)
        self.c.chord_ms = tc.CHORD_MS
        self.c.boot(self.now, self.wall)
        return self.c

    def tick(self, ms=TICK_MS):
        self.now = ticks_add(self.now, ms)
        self.wall += 1 + ms // 1000
        return self.now


def _record_state(memory):
    """What a commit leaves in critical memory that the table resumes from."""
    def copy(name):
        data = memory.section(name)
        return None if data is None else bytes(data)

    return (memory.round_no, memory.step, copy(tc.SECTION_JACKPOT), copy(tc.SECTION_ROUND))


class TableFuzz(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="table_fuzz_"))
        self.t = None
        self.removed = 0         # seats whose jackpot chip was taken off since the last OPEN
        self.felt = 0            # spots covered on the felt (sensor bits), outlasting a power cut
        self.stable = 0          # spots the sensors last reported covered (spot_sensors)
        self.faulted = 0         # spots whose sensor is in fault
        self.key_on = False
        self.door_open = False
        self.cut_armed = False
        self.cuts = 0
        self.steps = 0           # steps since the last power cut
        self.committed = None    # the state the last whole commit left
        self.inflight = None     # the state of the commit being written, if any
        self.booted_from = None  # the state the last boot read

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------------ the rig

    def _watch(self, memory):
        """Note each commit's state before and after it is written, and what a boot reads."""
        fuzz = self
        write, boot = memory._write, memory.boot

        def _write(sections, events, now, round_no, step, replace):
            before = _record_state(memory)
            jp, rnd = (None, None) if replace else before[2:]
            if sections:
                if tc.SECTION_JACKPOT in sections:
                    jp = bytes(sections[tc.SECTION_JACKPOT])
                if tc.SECTION_ROUND in sections:
                    rnd = bytes(sections[tc.SECTION_ROUND])
            fuzz.inflight = (round_no, step, jp, rnd)
            c = fuzz.t.c if fuzz.t is not None else None
            if step == STEP_LOCK and c is not None and c.phase == tc.LOCKED and before[1] != STEP_LOCK:
                # "No more bets": only a chip on its spot now is taken [rules.md 5]
                felt = fuzz.felt & ((1 << c.seats) - 1)
                assert not c.rec.accepted & ~felt, "LOCK took seats %s, chips on %s" % (
                    bin(c.rec.accepted), bin(felt))
            try:
                write(sections, events, now, round_no, step, replace)
            except Exception:
                fuzz.inflight = None        # refused (not a power cut): nothing written
                raise
            fuzz.inflight = None
            fuzz.committed = _record_state(memory)

        def _boot(*args, **kwargs):
            status = boot(*args, **kwargs)
            fuzz.booted_from = _record_state(memory)
            return status

        memory._write = _write
        memory.boot = _boot

    def _do(self, action):
        """Run one step; a power cut in it (an armed cut reached) reboots the table."""
        self.steps += 1
        try:
            action()
        except PowerCut:
            self._reboot()

    def _reboot(self, boot_cut=None):
        """The power comes back; boot_cut: it goes again at that write of the boot."""
        t = self.t
        t.fs.cut_at = None
        self.cut_armed = False
        self.cuts += 1
        self.steps = 0
        allowed = [s for s in (self.committed, self.inflight) if s is not None]
        shown = list(t.c.results) if t.c.phase == tc.RESULTS else None
        self.inflight = None
        while True:
            t.now = ticks_add(t.now, 5000)      # the power is off a while
            t.wall += 5
            if boot_cut is not None:
                t.fs.cut_at = t.fs.writes + boot_cut
            try:
                self.booted_from = None
                t.boot()
                t.fs.cut_at = None
                break
            except PowerCut:
                # the boot's own writes cut: what it read, or committed, may be next
                allowed += [s for s in (self.committed, self.inflight, self.booted_from) if s]
                t.fs.cut_at = boot_cut = None
                self.inflight = None
        assert self.booted_from in allowed, (
            "after a power cut the table resumed %r, not its last commit %r" % (self.booted_from, allowed))
        c = t.c
        assert c.phase != tc.RAM_ERROR, "a single power cut left no good copy: %s" % c.menu
        round_no, step = self.booted_from[:2]
        if step == STEP_LOCK:
            assert c.phase == tc.LOCKED and c.rec.round_no == round_no
        if shown is not None and self.booted_from == allowed[0] and c.phase == tc.RESULTS:
            # the results the dealer was paying from, again (not yet paid, maybe)
            assert c.results == shown, "results before the cut %r, after %r" % (shown, c.results)
        self.committed = _record_state(t.memory)
        # the App's boot: the key and door as they are, then the first scan's covered spots
        if self.key_on:
            c.panel(btn.KEY_ON, 0, t.now)
        if self.door_open:
            c.panel(btn.DOOR_OPEN, 0, t.now)
        self._loop(TICK_MS)
        self.faulted = 0                    # the sensors start afresh
        self.stable = self.felt
        for bit in range(16):
            if self.felt & 1 << bit:
                c.spot(sens.PLACED, bit, t.now)
        self._loop(TICK_MS)

    def _loop(self, ms):
        """One loop pass ms after the last: the shoe's bytes, then the controller's tick."""
        t = self.t
        now = t.tick(ms)
        self.shoe.poll(now)
        event = self.shoe.events.pop()
        while event != EMPTY:
            kind = event_kind(event)
            if kind == shoemod.CARD:
                t.c.card(shoemod.card_dest(event), shoemod.card_of(event), now)
            elif kind == shoemod.REJECT:
                t.c.shoe_reject(event_detail(event), now)
            event = self.shoe.events.pop()
        t.c.tick(now, t.wall)

    def _line(self, data):
        self.uart.inject(data)
        for _ in range(4):
            self._loop(TICK_MS)

    # ------------------------------------------------------------------ rules

    @initialize(seats=st.sampled_from([7, 7, 6, 4]), ante_sensors=st.booleans(),
                start=st.sampled_from([0, TICKS_WRAP - 3000, TICKS_WRAP - 70000]),
                jackpot=st.sampled_from(sorted(JACKPOTS)))
    def start(self, seats, ante_sensors, start, jackpot):
        t = FuzzTable(self.dir, seats, ante_sensors, self._watch, JACKPOTS[jackpot])
        t.fs = CutFS(str(self.dir))
        t.now = start
        t.boot()
        t.ram_clear()
        assert t.c.phase == tc.OPEN
        self.t = t
        self.uart = FakeUART()
        self.shoe = shoemod.Shoe(self.uart)

    @rule(button=st.sampled_from(BUTTONS), long=st.booleans())
    def press(self, button, long):
        self._do(lambda: self.t.press(button, long))

    @rule(first=st.sampled_from(BUTTONS), second=st.sampled_from(BUTTONS),
          gap=st.sampled_from([0, TICK_MS, 40, 80]), ticks=st.booleans())
    def chord(self, first, second, gap, ticks):
        """Two buttons hit together (a palm across the panel), with loop passes between."""
        t = self.t

        def go():
            t.c.panel(btn.PRESS, first, t.tick())
            if ticks:
                self._loop(TICK_MS)
            t.c.panel(btn.PRESS, second, t.tick(gap))
            if ticks:
                self._loop(TICK_MS)
            t.c.panel(btn.RELEASE, first, t.tick(SHORT_MS))
            t.c.panel(btn.RELEASE, second, t.tick())
        self._do(go)

    @rule(button=st.sampled_from(BUTTONS), repeats=st.integers(0, 4))
    def hold(self, button, repeats):
        """A button held: PRESS, LONG, REPEATs (the Panel repeats UP and DOWN), RELEASE."""
        t = self.t

        def go():
            t.c.panel(btn.PRESS, button, t.tick())
            t.c.panel(btn.LONG, button, t.tick(LONG_MS))
            for _ in range(repeats):
                t.c.panel(btn.REPEAT, button, t.tick(200))
            t.c.panel(btn.RELEASE, button, t.tick())
        self._do(go)

    @rule(kind=st.sampled_from([btn.PRESS, btn.LONG, btn.RELEASE, btn.REPEAT]),
          button=st.integers(0, 7))
    def stray_event(self, kind, button):
        """One panel event out of its usual order (a bounce, a lost PRESS)."""
        self._do(lambda: self.t.c.panel(kind, button, self.t.tick()))

    @rule(on=st.booleans())
    def key(self, on):
        self.key_on = on
        self._do(lambda: self.t.key(on))

    @rule(opened=st.booleans())
    def door(self, opened):
        self.door_open = opened
        self._do(lambda: self.t.c.panel(btn.DOOR_OPEN if opened else btn.DOOR_CLOSED, 0, self.t.tick()))

    @rule(seat=st.integers(1, 7), ante=st.booleans())
    def chip(self, seat, ante):
        """A chip put on an empty spot or taken off a covered one."""
        spot = sens.ante_spot(seat) if ante else sens.jackpot_spot(seat)
        bit = 1 << spot
        self.felt ^= bit
        kind = sens.PLACED if self.felt & bit else sens.REMOVED
        c = self.t.c
        seat_bit = 1 << (seat - 1)
        if kind == sens.REMOVED and not ante:
            self.removed |= seat_bit
        if self.faulted & bit:
            return                      # its sensor sees nothing now
        self.stable ^= bit
        # what the rules say of this chip: an accepted one taken off after LOCK is a tamper,
        # one put down after LOCK on a spot not accepted is a late bet [rules.md 5]
        watched = (not ante and seat <= c.seats and c._chips_held() and not c.boot_scan
                   and not (c.faults | c.unseen | c.refused_down) & seat_bit)
        tamper = watched and kind == sens.REMOVED and c.rec.accepted & ~c.rec.voided & seat_bit
        late = watched and kind == sens.PLACED and not c.rec.accepted & seat_bit
        self._do(lambda: c.spot(kind, spot, self.t.tick()))
        if self.t.c is c and watched:
            # (a seat whose Ante sensor is in fault shows FAULT on its ring, before all else)
            ring = c.view.seat_light[seat - 1]
            shown = (c.faults | c.ante_faults) & seat_bit
            if tamper:
                assert c.tamper & seat_bit and (shown or ring == lights.TAMPER)
            if late:
                assert c.late & seat_bit and (shown or ring == lights.LATE)

    @rule(seat=st.integers(1, 7), ante=st.booleans(),
          reason=st.sampled_from([sens.CHATTER, sens.STUCK, sens.BUS]))
    def sensor_fails(self, seat, ante, reason):
        """A spot's sensor goes into fault: chips put on or taken off it meanwhile are not
        seen (spot_sensors: a faulted spot reports nothing until it recovers)."""
        spot = sens.ante_spot(seat) if ante else sens.jackpot_spot(seat)
        if self.faulted & 1 << spot:
            return
        self.faulted |= 1 << spot
        self._do(lambda: self.t.c.spot(sens.FAULT, spot, self.t.tick(), reason))

    @rule(which=st.integers(0, 15))
    def sensor_recovers(self, which):
        """A faulted sensor recovers (CLEARED); as spot_sensors does, a covered spot is then
        announced PLACED, and one reported covered before the fault and empty now REMOVED."""
        faulted = [spot for spot in range(16) if self.faulted & 1 << spot]
        if not faulted:
            return
        spot = faulted[which % len(faulted)]
        bit = 1 << spot
        self.faulted &= ~bit
        t = self.t

        def go():
            t.c.spot(sens.CLEARED, spot, t.tick())
            if self.felt & bit:
                self.stable |= bit
                t.c.spot(sens.PLACED, spot, t.tick())
            elif self.stable & bit:
                self.stable &= ~bit
                t.c.spot(sens.REMOVED, spot, t.tick())
        c = t.c
        seat_bit = 1 << spot
        # an accepted jackpot chip found gone: a tamper [rules.md 5]
        tamper = (spot < sens.ANTE_FIRST and spot < c.seats and c._chips_held() and not c.boot_scan
                  and not self.felt & bit and self.stable & bit
                  and c.rec.accepted & ~c.rec.voided & seat_bit)
        self._do(go)
        if tamper and t.c is c:
            assert c.tamper & seat_bit, "seat %d's accepted chip gone, no TAMPER" % (spot + 1)

    @rule(dest=st.integers(0, 8), card=st.integers(0, cardlib.DECK_SIZE - 1))
    def shoe_card(self, dest, card):
        """A good shoe line (a card already in the round is refused as seen twice)."""
        self._do(lambda: self._line(("%s %s\n" % (dest_text(dest), card_text(card))).encode()))

    @rule(data=st.one_of(
        st.binary(max_size=24),
        st.sampled_from([b"S9 As\n", b"S0 As\n", b"X As\n", b"S1 1s\n", b"S1 Ax\n", b"S1 As*00\n",
                         b"S1  \n", b"S1 As Ks\n", b"S1 As\r\r\n", b"S12345678901234567 As\n",
                         b"H\n", b"\n", b"S1 A", b"B 10h\n", b"s3 aS\n"])))
    def shoe_garbage(self, data):
        """Bytes from a shoe that is not well: lines that are no card, partial lines."""
        self._do(lambda: self._line(data))

    @rule(seed=st.randoms(use_true_random=False), rig=st.sampled_from([None] + sorted(RIGGED)),
          rigged_seat=st.integers(1, 7))
    def deal_round(self, seed, rig, rigged_seat):
        """The shoe deals a whole round: two cards to every seat, the dealer's two and the
        board, distinct; a seat may be rigged a jackpot hand."""
        deck = list(range(cardlib.DECK_SIZE))
        seed.shuffle(deck)
        lines = []
        hole_rig, board_rig = RIGGED[rig] if rig else ("", "")
        rigged = [cardlib.parse(hole_rig), cardlib.parse(board_rig)] if rig else [[], []]
        for cards in rigged:
            for card in cards:
                deck.remove(card)
        wagers = [s for s in range(1, 8) if self.t.c.rec.accepted & 1 << (s - 1)]
        if wagers:                      # the hand goes to a jackpot wager, mostly
            rigged_seat = wagers[rigged_seat % len(wagers)]
        for seat in range(1, 8):
            hole = rigged[0] if seat == rigged_seat and rig else [deck.pop(), deck.pop()]
            for card in hole:
                lines.append("S%d %s" % (seat, card_text(card)))
        for card in [deck.pop(), deck.pop()]:
            lines.append("D " + card_text(card))
        for card in rigged[1] or [deck.pop() for _ in range(5)]:
            lines.append("B " + card_text(card))

        def go():
            for line in lines:
                self._line((line + "\n").encode())
        self._do(go)

    @rule(ms=st.sampled_from(JUMPS))
    def tick(self, ms):
        self._do(lambda: self._loop(ms))

    @rule(before=st.integers(1, 5000))
    def near_the_wrap(self, before):
        """The loop stalls until just before the tick count wraps (12.4 days of uptime)."""
        t = self.t

        def go():
            ahead = (TICKS_WRAP - before - t.now) % TICKS_WRAP
            while ahead:
                step = min(ahead, 86400000)
                self._loop(step)
                ahead -= step
        self._do(go)

    @rule(seats=st.integers(1, 127), antes=st.integers(0, 127))
    def bets(self, seats, antes):
        """Players bet: jackpot chips on the seats of one mask, Ante chips on those of the
        other (a spot already covered stays so)."""
        t = self.t

        def go():
            for seat in range(1, 8):
                for ante, mask in ((False, seats), (True, antes)):
                    spot = sens.ante_spot(seat) if ante else sens.jackpot_spot(seat)
                    if mask & 1 << (seat - 1) and not self.felt & 1 << spot:
                        self.felt |= 1 << spot
                        if not self.faulted & 1 << spot:
                            self.stable |= 1 << spot
                            t.c.spot(sens.PLACED, spot, t.tick())
        self._do(go)

    @rule(seed=st.randoms(use_true_random=False), rig=st.sampled_from([None] + sorted(RIGGED)),
          rigged_seat=st.integers(1, 7), pay=st.booleans())
    def dealer_round(self, seed, rig, rigged_seat, pay):
        """A round as the dealer plays it from where the table is: LOCK, the shoe deals,
        SETTLE, the supervisor confirms a jackpot hand (or not), SETTLE for the next round."""
        t = self.t

        def go():
            if t.c.phase == tc.OPEN:
                t.press(btn.LOCK)
            self.deal_round(seed, rig, rigged_seat)
            t.press(btn.SETTLE)
            if t.c.phase == tc.CONFIRM and pay:
                t.key(True)
                t.press(btn.OK)
                t.key(self.key_on)
            if t.c.phase == tc.RESULTS and pay:
                t.press(btn.SETTLE)
        self._do(go)

    @rule()
    def collect(self):
        """The dealer collects every chip on the felt."""
        t = self.t

        def go():
            for spot in range(16):
                if self.felt & 1 << spot:
                    self.felt &= ~(1 << spot)
                    if spot < sens.ANTE_FIRST:
                        self.removed |= 1 << spot
                    if not self.faulted & 1 << spot:
                        self.stable &= ~(1 << spot)
                        t.c.spot(sens.REMOVED, spot, t.tick())
        self._do(go)

    @rule(item=st.integers(0, 3), steps=st.integers(1, 3))
    def supervisor_config(self, item, steps):
        """The supervisor steps a configuration item (key, long SETTLE, the item, OK)."""
        t = self.t

        def go():
            t.key(True)
            t.press(btn.SETTLE, long=True)
            for _ in range(item):
                t.press(btn.DOWN)
            for _ in range(steps):
                t.press(btn.OK)
            t.press(btn.BACK)
            t.key(self.key_on)
        self._do(go)

    @rule(button=st.sampled_from(BUTTONS), long=st.booleans(), key=st.booleans(),
          files=st.sampled_from([("a.bin",), ("b.bin",), ("a.bin", "b.bin"), ()]))
    def flash_refuses(self, button, long, key, files):
        """A press while the flash refuses the writes of some files (a worn or failing
        device): a commit that fails leaves the money as committed and says so."""
        t = self.t
        fs = t.fs
        real = fs.open

        def refusing(name, mode):
            if "w" in mode and (name in files or not files):
                raise OSError(5, "flash write failed")
            return real(name, mode)

        # (no power cut meanwhile: with one copy refused, a cut tearing the other is two
        # faults at once, which two copies cannot survive: docs/critical-memory.md)
        armed, fs.cut_at = fs.cut_at, None

        def go():
            fs.open = refusing
            try:
                press_keyed(t, button, long, key, self.key_on)
            finally:
                del fs.open
        self._do(go)
        fs.cut_at = armed
        c = t.c
        if c.phase != tc.RAM_ERROR:
            # what RAM holds is what critical memory holds
            assert _record_state(t.memory) == self.committed
            assert bytes(jprecord.encode(c.jackpot)) == self.committed[2]
        else:
            self._reboot()

    @precondition(lambda self: self.steps >= 4)
    @rule(writes=st.integers(0, 6))
    def power_cut_armed(self, writes):
        """The power will go at a coming write of critical memory (whatever step makes it)."""
        self.t.fs.cut_at = self.t.fs.writes + writes
        self.cut_armed = True

    @precondition(lambda self: self.steps >= 4)
    @rule(boot_cut=st.one_of(st.none(), st.integers(0, 4)))
    def power_cut_now(self, boot_cut):
        """The power goes between writes (and again at a write of the boot, maybe)."""
        self.inflight = None
        self._reboot(boot_cut)

    # ------------------------------------------------------------------ invariants

    @invariant()
    def books_balance(self):
        if self.t is None:
            return
        c = self.t.c
        assert c.phase != tc.RAM_ERROR, "RAM ERROR at a table cleared once: %s" % c.menu
        jp = c.jackpot
        assert jp.audit() == []
        for slot in range(3):
            assert jp.value[slot] >= 0 and jp.reserve[slot] >= 0
        books_agree_with_the_log(self.t)
        for slot in c.view.meter_slots:
            assert c.view.meter[slot] == jp.value[slot]

    @invariant()
    def display_fits(self):
        if self.t is not None:
            assert_fits(self.t)

    @invariant()
    def each_wager_counted_once_and_each_jackpot_paid_once(self):
        if self.t is None:
            return
        c, memory = self.t.c, self.t.memory
        wagers = CONFIG_ITEMS[0][2] + (c.jackpot.config.wager,)     # those the menu sets
        locked = {}
        for e in events_of(memory, ev.LOCK):
            n = bin(e[5]).count("1")
            assert e[6] == 0 if not n else e[6] % n == 0 and e[6] // n in wagers, (
                "LOCK amount %d for seats %s" % (e[6], bin(e[5])))
            locked[e[2]] = e[5]
        paid = set()
        for e in events_of(memory, ev.JACKPOT_HIT):
            round_no, seat = e[2], e[4]
            assert (round_no, seat) not in paid, "round %d seat %d paid twice" % (round_no, seat)
            assert locked.get(round_no, 0) & 1 << (seat - 1), (
                "round %d seat %d paid, no wager" % (round_no, seat))
            paid.add((round_no, seat))
        if c.game == tc.UTH and c.phase in (tc.LOCKED, tc.CONFIRM, tc.CARD_ENTRY) and c.own_pool():
            assert c.jackpot.open_round == c.rec.round_no
            assert c.jackpot.open_seats == c.rec.accepted & ~c.rec.voided
        if c.phase == tc.RESULTS:
            for hit in c.jackpot.hits:
                if hit[jm.H_ROUND] != c.rec.round_no:
                    continue
                seat = hit[jm.H_SEAT]
                bit = 1 << (seat - 1)
                assert c.rec.accepted & bit and not (c.rec.folded | c.rec.voided) & bit, (
                    "seat %d paid: accepted %s folded %s voided %s" % (
                        seat, bin(c.rec.accepted), bin(c.rec.folded), bin(c.rec.voided)))
                five = paytable.jackpot_cards(c._hole(seat - 1), c._cards_of(c.rec.board)[:3])
                assert hit[jm.H_HAND] == paytable.hand_type(hands.best5(five))
        if c.phase == tc.OPEN:
            self.removed = 0
        assert not c.tamper & ~self.removed, (
            "TAMPER for seats %s, no chip taken" % bin(c.tamper & ~self.removed))
        if c.phase in (tc.LOCKED, tc.CONFIRM, tc.CARD_ENTRY):
            for s in range(c.seats):
                if c.view.seat_light[s] == lights.ACCEPTED:
                    assert (c.rec.accepted & ~c.rec.voided) & 1 << s, "seat %d lit, no wager" % (s + 1)
        if self.committed is not None and self.committed[1] == STEP_CONFIRM:
            assert c.phase in (tc.LOCKED, tc.CONFIRM, tc.RESULTS)


def press_keyed(table, button, long, key, key_on):
    """`button` pressed (long) on `table`, with the supervisor's key turned for it when `key`
    and left as it was (`key_on`) after."""
    if key:
        table.key(True)
    table.press(button, long)
    if key:
        table.key(key_on)


def run_machine(examples, steps, machine=None):
    """Run the state machine (TableFuzz unless given) for `examples` runs of `steps` steps."""
    cls = type("FuzzRun", (machine or TableFuzz,), {})
    cls.TestCase.settings = settings(max_examples=examples, stateful_step_count=steps, deadline=None,
                                     suppress_health_check=list(HealthCheck))
    cls.TestCase("runTest").runTest()


def test_the_table_survives_a_random_dealer_supervisor_and_power_supply():
    run_machine(examples=15, steps=40)


@pytest.mark.slow
def test_the_table_survives_a_long_random_night():
    run_machine(examples=400, steps=120)


# ---------------------------------------------------------------------- the whole loop

class WrappingRig(BoardRig):
    """The simulator's table (the App on the simulated board, driven through its pins) whose
    tick count wraps at 2**30 as the board's time.ticks_ms() does."""

    def run(self, ms):
        for _ in range(ms // SIM_TICK_MS):
            self._tick()

    def _tick(self):
        for name in [n for n, at in self.releases.items() if ticks_diff(self.now, at) >= 0]:
            self.table.buttons[name].release()
            del self.releases[name]
        self.now = ticks_add(self.now, SIM_TICK_MS)
        self.wall += SIM_TICK_MS // 10          # (a wall clock that never runs back)
        self.table.pwm.now = self.now
        if self.pending_lines:
            self.table.shoe.inject(self.pending_lines.pop(0))
        self.app.step(self.now, self.wall // 100)


class LoopFuzz(RuleBasedStateMachine):
    """The same attack on the App's loop: every input through the simulated board's pins,
    UART and sensor expander, the outputs read back from the fakes at the wire."""

    def __init__(self):
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="table_loop_fuzz_")
        self.b = None
        self.key_on = False
        self.door_open = False

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def _power_up(self, now):
        def before_boot(table):
            table.key.level = 0 if self.key_on else 1
            table.open_door(self.door_open)
        b = WrappingRig(self.dir, before_boot=before_boot)
        b.now = now
        b.wall = 0
        b.run(400)
        self.b = b

    @initialize(start=st.sampled_from([0, TICKS_WRAP - 2000, TICKS_WRAP - 30000]))
    def start(self, start):
        self._power_up(start)
        self.b.ram_clear()
        assert self.b.controller.phase == tc.OPEN

    @rule(name=st.sampled_from(btn.BUTTON_NAMES), long=st.booleans())
    def press(self, name, long):
        self.b.press(name, long)

    @rule(first=st.sampled_from(btn.BUTTON_NAMES), second=st.sampled_from(btn.BUTTON_NAMES),
          gap=st.sampled_from([0, SIM_TICK_MS, 60, 200]))
    def chord(self, first, second, gap):
        b = self.b
        b.table.buttons[first].press()
        b.run(gap)
        b.table.buttons[second].press()
        b.run(200)
        b.table.buttons[first].release()
        b.table.buttons[second].release()
        b.run(200)

    @rule(on=st.booleans())
    def key(self, on):
        self.key_on = on
        self.b.key(on)

    @rule(opened=st.booleans())
    def door(self, opened):
        self.door_open = opened
        self.b.door(opened)

    @rule(seat=st.integers(1, 7), ante=st.booleans())
    def chip(self, seat, ante):
        self.b.toggle_chip(seat, ante)

    @rule(seat=st.integers(1, 7))
    def bet(self, seat):
        for ante in (False, True):
            if not self.b.covered(seat, ante):
                self.b.chip(seat, ante)

    @rule(seed=st.integers(0, 1000))
    def deal(self, seed):
        self.b.deal(seed)

    @rule(line=st.one_of(st.binary(max_size=20).map(lambda d: d.decode("utf-8", "surrogateescape")),
                         st.tuples(st.integers(0, 8), st.integers(0, 51)).map(
                             lambda dc: "%s %s" % (dest_text(dc[0]), card_text(dc[1])))))
    def shoe(self, line):
        self.b.shoe(line)

    @rule(ms=st.sampled_from(JUMPS[:6]))
    def wait(self, ms):
        self.b.run(ms)

    @rule(ms=st.sampled_from([1000, 60000, 86400000]), before=st.integers(1, 3000))
    def stall(self, ms, before):
        """The loop stalls ms (or until just before the tick count wraps), then runs on."""
        b = self.b
        b.now = ticks_add(b.now, ms) if ms != 86400000 else TICKS_WRAP - before
        b.run(400)

    @rule()
    def power_cut(self):
        """The power goes between two loop passes and comes back on the same memory."""
        self._power_up(ticks_add(self.b.now, 3000))
        assert self.b.controller.phase != tc.RAM_ERROR

    @rule(copy=st.integers(0, 1), name=st.sampled_from(["LOCK", "SETTLE", "OK", "BACK"]),
          long=st.booleans(), key=st.booleans())
    def power_cut_at_a_copy(self, copy, name, long, key):
        """The power goes while a press's commit writes critical memory's copy (copy 0 on the
        FRAM, copy 1 the flash file: half of it written), and comes back."""
        b = self.b
        memory = b.app.memory
        seq = memory.seq            # the last whole commit
        slot = memory.copies[copy]

        def torn(data):
            type(slot).write(slot, bytes(data)[:len(data) // 2])
            raise PowerCut(copy)

        slot.write = torn
        try:
            press_keyed(b, name, long, key, self.key_on)
        except PowerCut:
            self._power_up(ticks_add(b.now, 3000))
            c = self.b.controller
            assert c.phase != tc.RAM_ERROR
            # booted from the last whole commit or the one cut (then its power-up entry)
            assert self.b.app.memory.seq > seq, "resumed an older commit than seq %d" % seq
        finally:
            del slot.write

    @invariant()
    def what_people_see(self):
        b = self.b
        if b is None:
            return
        c = b.controller
        assert c.phase != tc.RAM_ERROR
        rig = type("Rig", (), {})()     # what the controller tests' checks read
        rig.c, rig.memory = c, c.memory
        books_agree_with_the_log(rig)
        assert_fits(rig)
        b.run(200)                      # the display's pages go one a tick
        for _ in range(10):             # (a message that ran out in the last tick: its pages)
            if not b.app.oled.pending():
                break
            b.run(SIM_TICK_MS)
        shown = b.display()
        want = [line.rstrip() for line in c.view.lines]
        assert shown == want, "the OLED shows %r, the controller %r" % (shown, want)


def test_the_loop_survives_a_random_dealer_supervisor_and_power_supply():
    run_machine(examples=5, steps=30, machine=LoopFuzz)


@pytest.mark.slow
def test_the_loop_survives_a_long_random_night():
    run_machine(examples=100, steps=80, machine=LoopFuzz)
