"""The round controller: the dealer's round as a state machine, events in, a view out.

Pure: no ``machine``, no clock, no files.  Time comes in with every event (``now_ms`` ticks
for the user interface) and with ``tick`` (``wall`` seconds for the logs).  The jackpot
(``firmware.jackpot.pools.Jackpot``) and the critical memory (``firmware.store.critical.
CriticalMemory``) are objects it is given; every change of money is committed to critical
memory before it is shown, and a failed commit puts the jackpot back as it was committed.

Inputs, from the app's drivers::

    spot(kind, spot, now_ms)       spot_sensors event: sensor bit of a jackpot or Ante spot
                                   (spot_sensors.jackpot_spot / ante_spot give the wiring)
    panel(kind, button, now_ms)    buttons event: PRESS/LONG/REPEAT/RELEASE of LOCK..BACK,
                                   KEY_ON/OFF, DOOR_OPEN/CLOSED; a button with a long meaning
                                   acts on its LONG or, short, on its RELEASE (see panel)
    card(dest, card, now_ms)       a card from the shoe or the panel: dest 0 dealer, 1..7 seat, 8 board
    shoe_reject(reason, now_ms)    a shoe line the driver rejected (its shoe.REASONS code):
                                   shown to the dealer, counted in the event log
    link(up, now_ms)               the linked-progressive link went down or came back
    link_poll(now_ms)              linked tables, every tick after the link's service(): pool
                                   amounts, payouts, link events, commits of the link section
    tick(now_ms, wall)             every loop tick: timers; allocates nothing

Output: ``view`` (seat light patterns, dealer display lines, meter amounts and faults, one-shot
win and beep requests with serial numbers) which the app renders when ``view.version``
changes; with ``batch`` set (the App) the lines and lights are drawn by ``draw``, once a loop
pass however many events came in it.

The dealer's round [rules.md 2, 5]:

    OPEN      bets open; chips on jackpot spots light PLACED.  UP/DOWN pick a seat, OK marks
              its Ante (tables without Ante sensors).
    LOCK      "No more bets": a placed jackpot chip is accepted if its seat has an Ante; the
              accepted wagers are contributed and committed (STEP_LOCK).  A chip placed later
              flashes LATE; one removed from an accepted spot raises TAMPER.
    LOCKED    cards arrive from the shoe (or the panel: long OK).  UP/DOWN pick a seat, OK
              marks it folded.  Key + BACK voids the selected seat; key + long BACK voids the
              round (misdeal).
    SETTLE    every seat's hand is shown; jackpot hands (hole cards + flop) are lit.  With a
              jackpot hit the round waits in CONFIRM for the supervisor (key + OK) [11.13],
              its wins on the sign at once (own pool), then the jackpot is paid and
              committed (STEP_CONFIRM, STEP_SETTLE).
    RESULTS   UP/DOWN scroll the result lines; SETTLE or OK clears the table for the next
              round.

A long press does only its long action: the short action of a button that has a long one
(firmware.table.handlers.LONG_ACTIONS) waits for the button to be let go.

Linked table (``link_factory`` set before ``boot``; docs/link.md "Integration"): the pool
belongs to the link controller.  The table's own Jackpot is kept (its configuration gives the
wager and the pay table) but is frozen: never contributed to, never paid from, never shown.
At LOCK the wagers become a link contribution committed in the same STEP_LOCK record as the
round; a void reverses it; a confirmed hit is claimed on the link in the STEP_SETTLE commit
and paid when the controller's payout arrives (logged as JACKPOT_HIT with the amount paid,
shown on the sign).  The table's linked meters are the link's ledger totals.

Supervisor (key on) from OPEN: long OK audit menu, long SETTLE configuration, long LOCK test
mode.  With no good copy of critical memory the controller sits in RAM ERROR until a RAM clear
(key + long OK, then OK to accept the reset values).
"""

from firmware.compat import const
from firmware.drivers import buttons as btn
from firmware.drivers import shoe as shoemod
from firmware.drivers import spot_sensors as sensors
from firmware.drivers.ticks import ticks_add, ticks_diff
from firmware.heap import NotLoaded
from firmware.jackpot import codec as jpcodec
from firmware.jackpot import config as jcfg
from firmware.jackpot import meters as jm
from firmware.jackpot import pools
from firmware.jackpot import record as jprecord
from firmware.poker import cards as cardlib
from firmware.poker import hands
from firmware.store import critical
from firmware.store import eventlog as ev
from firmware.table import handlers, roundrecord, screens
from firmware.table.phases import (  # noqa: F401 - re-exported: callers name them tc.OPEN, ...
    AUDIT,
    BEEP_ALARM,
    BEEP_ERROR,
    BEEP_JACKPOT,
    BEEP_OK,
    BEEP_RANK,
    BEST5OF7,
    BOARD,
    BRS,
    CARD_ENTRY,
    CONFIG,
    CONFIG_ITEMS,
    CONFIRM,
    DEALER,
    DISPLAY,
    FCP,
    FLOP,
    GAME_CARDS,
    HOLE2_BOARD3,
    LINES,
    LOCKED,
    MESSAGE_MS,
    NOT_CHECKED,
    OPEN,
    PHASE_NAMES,
    RAM_CLEAR,
    RAM_ERROR,
    RESULTS,
    SEATS,
    SIGN,
    SUPERVISOR_ID,
    TEST,
    UTH,
    WIDTH,
)
from firmware.table.roundrecord import NO_CARD
from firmware.table.screens import money  # noqa: F401 - re-exported

SECTION_JACKPOT = "jackpot"
SECTION_ROUND = "round"
_DOOR_LOG_MS = const(10000)       # door changes faster than this are counted into one entry
_LINK_LOG_MS = const(10000)       # link changes (down, up) likewise
_RECALL_MS = const(10000)         # the last round's results recalled in OPEN show this long
# a round's wins on the sign (firmware.drivers.meter_sign: win_ms, 15 s, from the hit; with
# more wins on a line, a 3 s turn each at least): a boot within it shows them again
_WIN_S = const(15)
_WIN_TURN_S = const(3)
_BOOT_SCAN_MS = const(500)        # after a boot into a locked round: the sensors' first reports
_SCAN_WAITS = const(2)            # boot_scan: the first loop pass, which starts that time, to come
_BUS_LOGGED = const(1 << 14)     # faults_logged: the sensor bus (bits 0-13: the spots)
_SHOE_LOG_MS = const(10000)       # at most one SHOE_REJECT event log entry this often
# ... and twice as long after each entry (but the first two) that counts more than one, or comes
# less than _LOG_SLOW_MS after the one before, up to this: a fault that repeats for hours, fast or
# every few minutes, takes 5 or 6 entries an hour, not 360; 10 s again at an entry of one that
# comes _LOG_SLOW_MS or more after the one before, and once _LOG_QUIET_MS passed with none
# (_wait_next)
_LOG_WAIT_MAX_MS = const(640000)
_LOG_SLOW_MS = const(300000)
_LOG_QUIET_MS = const(1280000)
# a copy of critical memory whose write failed is written again in OPEN after this, then
# after twice as long at each failure (the read-back logs each), up to about 17 minutes
_MEMORY_RETRY_MS = const(2000)
_MEMORY_RETRY_MAX_MS = const(1024000)
_SCROLL = const(0x0C)            # firmware.drivers.buttons' UP and DOWN (1 << 2 | 1 << 3)
CHORD_MS = const(60)             # presses this close (up to three panel polls): hit together
_TWICE = const(" twice")          # the end of a refusal for a card already in the round
SECTION_LINK = "link"            # firmware.link.tablelink.SECTION: the link's ledger
SECTION_LINK_ROUND = "lround"    # linked table: "round lock_time" of the round last locked
# why a linked table's link is stopped (link_stop): nothing of it can be committed
_LINK_STOPPED = const("RAM ERROR: the link ledger cannot be saved")
_JACKPOT_SECTION_BYTES = const(1024)  # the jackpot section: 212-973 bytes measured (25 hits
                                      # kept); fit_record makes it what the configuration needs


# The round record's game byte: the game's index here, plus _BEST5 for UTH's best5of7 rule,
# plus the seats in play (1..7) times _SEATS_AT (0: not recorded, a record from before them;
# an older firmware reads the game from bits 0-2 only), plus _TRIPS_OTHER when UTH's Trips is
# settled on the other hand rule (an older firmware ignores it)
_GAMES = (UTH, FCP, BRS)
_BEST5 = const(4)
_GAME_BITS = const(7)
_SEATS_AT = const(8)
_TRIPS_OTHER = const(0x80)
_RULE_BITS = const(0x87)   # _GAME_BITS | _TRIPS_OTHER: what a round is dealt under

# Why a linked table with an envy bonus, or the shortfall option "cut", in force keeps its
# jackpot closed (_linked_option)
LINKED_ENVY_TEXT = "envy bonus set: not paid when linked; set envy 0 standalone"
LINKED_CUT_TEXT = "shortfall cut: link pays in full; set operator standalone"
# Why an unkeyed program stops at a table that ran keyed (critical memory's mark)
_KEYED_TEXT = const("PROGRAM ERROR - no /manifest.key (keyed table)")


def _wait_next(logged, ms, wait, base, count):
    """The time from a rate-limited entry (the shoe's bad lines, the link's changes; this
    one counts `count`) to the next (at least base: max(wait, base)): twice the last wait, up
    to _LOG_WAIT_MAX_MS, when the last entry (`logged`, `ms` ago) is less than _LOG_SLOW_MS
    old or this one counts more than one; else base, and base again at the next entry (half
    of base kept: a change and its return, a link down and back, are no flapping).  A shoe
    that babbles, a link that flaps for hours, fast or slow (every 12 s, every minute), must
    not push the records out of the log: its entries come up to 640 s apart, each counting
    the changes since the last, the state reached logged when the wait is up with no change
    after it needed.  A fault that comes back every 5 minutes or more (an access point that
    restarts) is logged at once each time, and its return within base."""
    if logged and (ms < _LOG_SLOW_MS or count > 1):
        return min(2 * wait, _LOG_WAIT_MAX_MS)
    return base // 2


class RoundController:
    """The round state machine of one table (see the module docstring)."""

    def __init__(self, memory, jackpot_config=None, hand_rule=HOLE2_BOARD3, ante_sensors=True,
                 seats=SEATS, game=UTH, aces_up_alone=True, trips_rule=None):
        if game not in GAME_CARDS and game is not None:
            raise ValueError("game must be one of %s, got %r" % (", ".join(sorted(GAME_CARDS)), game))
        for rule in (hand_rule, trips_rule or hand_rule):
            if rule not in (HOLE2_BOARD3, BEST5OF7):
                raise ValueError("hand rule must be %r or %r, got %r" % (HOLE2_BOARD3, BEST5OF7, rule))
        if not isinstance(seats, int) or seats < 1 or seats > SEATS:
            raise ValueError("seats must be 1..%d, got %r" % (SEATS, seats))
        self.memory = memory
        if isinstance(jackpot_config, dict):
            jackpot_config = jcfg.build(jackpot_config)
        self.jackpot_config = jackpot_config    # the RAM clear's configuration (None: default)
        # The configuration's game and hand rule: each new round's.  A round locked before a
        # power cut is finished under its own (boot), though the file changed meanwhile.
        # game None (no file, or one refused): the game (and seats) the round record names
        # (boot), else UTH
        self.game_unknown = game is None
        self.game_kept = False      # no file's game: critical memory's is played (boot)
        self.seats_kept = False     # ... and its seats, fewer than the board's
        self.file_game = game or UTH
        self.file_rule = hand_rule
        # UTH's Trips hand rule where the file's trips_hand_rule is not the hand rule (None:
        # the same): the dealer pays Trips from the hand the results name for it [rules.md 2]
        self.file_trips = trips_rule if trips_rule != hand_rule else None
        self.other_game = None
        self._play(self.file_game, hand_rule, self.file_trips)
        self.ante_sensors = ante_sensors
        # Four Card Poker: Aces Up without an Ante is offered [FCP 5.1] (the file's rule)
        self.aces_up_alone = aces_up_alone
        self.seats = seats
        self.view = screens.View(seats)
        self._beep_ms = -1        # when the last beep was asked for (_beep)
        self.rec = roundrecord.RoundRecord()
        self.jackpot = None
        # The jackpot section is encoded here at every commit: made now, while the heap is whole.
        self._jp_writer = jpcodec.Writer(bytearray(_JACKPOT_SECTION_BYTES))
        self.phase = OPEN
        self.now_ms = 0
        self.wall = 0            # the clock's seconds, shifted on (memory.clock_shift) where
        self._wall_in = 0        # it read earlier than the log after a power cut; the reading
        self._shift = 0          # and the shift it was made of
        self.placed = 0          # jackpot spots covered (debounced, not faulted)
        self.ante = 0            # Ante spots covered
        self.ante_marked = 0     # Ante confirmed on the panel (resumed: the record's marks)
        self.marks_unknown = False  # a round resumed after a power cut: the spots at LOCK unseen
        self.ante_locked = 0     # the seats with an Ante sensed, marked or unseen (fault) at LOCK
        self.faults = 0          # jackpot spots in fault
        self.ante_faults = 0     # Ante spots in fault
        self.last_refusal = ""       # the last refusal or failure in full (_refuse)
        self.last_results = None     # the previous round's result lines (recall in OPEN; None:
                                     # no round shown since the boot or the RAM clear)
        self.recall_until = 0        # tick until which OPEN shows them (recalling)
        self.recalling = False
        self.recall_top = 0          # first recalled line shown (UP/DOWN scroll)
        self.ok_began = None         # the tick of the OK that began this round (handlers._on_open)
        self.boot_scan = False       # a locked round resumed: spots not yet compared (tick)
        self.boot_scan_ms = 0
        self.duplicate_logged = -1   # the round whose duplicate card is logged (one a round)
        self.door_changes = 0        # door changes since the last door entry, not yet logged
        self.door_logged = False     # a door entry made less than _DOOR_LOG_MS ago, at door_logged_ms
        self.door_logged_ms = 0
        self.link_changes = 0        # the same for the link's changes (down, up)
        self.link_logged = False
        self.link_logged_ms = 0
        self.link_wait = _LINK_LOG_MS    # the time from a link entry to the next
        self.parts_down = 0      # DISPLAY, SIGN: those that do not answer (App: set_display)
        self.parts_logged = 0    # those whose failure is in the log this round
        self.faults_logged = 0   # faults in the log this round: jackpot spot bits, Ante << SEATS, bus
        self.late = 0            # chips placed after LOCK
        self.tamper = 0          # accepted chips removed after LOCK
        self.unseen = 0          # jackpot spots in fault at LOCK (or at a resume's boot scan):
                                 # a chip seen there later may have been down in time
        self.recheck = 0         # accepted spots unseen at boot whose sensor just recovered:
                                 # their chip must be reported by the tick, or it is gone
        self.refused_down = 0    # chips not taken, down since before LOCK, whose sensor went
                                 # into fault: seen again, they are the same chips, not late
        self.cursor = 0
        self.key_on = False
        self.door_open = False
        self.link_up = True
        self.link_required = False
        self.program_ok = True
        # set before boot: the program passed its check with no key; where critical memory
        # says the table ran keyed (memory.keyed), the boot stops in RAM ERROR saying so, before
        # any round work, until the key is back or a supervisor's RAM clear re-commissions it
        self.unkeyed = False
        self.program_text = NOT_CHECKED     # what the boot-time program verification said
        self.program_digest = ""
        self.config_ok = True
        self.config_text = "defaults"       # where the table's configuration came from
        self.code_fault = ""        # why the boot stopped in RAM ERROR for code that cannot
                                    # load, the memory good ("": none such)
        self.message = ""
        self.message_until = 0
        self.results = []
        self.hits = []
        self.menu = []
        self.menu_top = 0
        self.entry = [0, cardlib.ACE, 3]  # card entry: destination, rank, suit
        self.previous_phase = OPEN
        self.test_step = 0
        self.test_button = -1    # the button last pressed in test mode (-1: none yet)
        self.config_index = 0
        self.clock_edit = None   # CONFIG's clock being set: [year, month, day, hour, minute, field]
        self.entry_field = 0     # card entry: the field UP/DOWN change (0 to, 1 rank, 2 suit)
        self.results_top = 0     # first result line on the RESULTS screen (UP/DOWN scroll)
        self.confirm_top = 0     # first jackpot hand on the CONFIRM screen (UP/DOWN scroll)
        self._waiting = 0        # bit per button: pressed, its short action waits for RELEASE
        #                          (UP, DOWN: held, scrolling in this phase)
        self._acted = 0          # bit per button: acted on its PRESS; its LONG is ignored
        # Buttons hit together (panel): 0 leaves it off, for callers that send each press on
        # its own (the service, scripted tests); the App sets CHORD_MS for the dealer's panel.
        self.chord_ms = 0
        # Set by the App, whose loop pass may bring many events (a burst of shoe lines): the
        # view's lines and lights are drawn once a pass, when it reads them (draw), not at
        # each event.  False: drawn at every event, for callers that read the view after each.
        # The entries of what happened (_evidence) are then committed together, once a pass.
        self.batch = False
        self._stale = False      # (batch) an event changed the view since it was drawn
        self._held = []          # (batch) the pass's entries, for one commit at its tick
        self._held_wait = False  # their commit failed: tried again from _held_retry
        self._held_retry = 0
        self._mem_due = False    # a copy failed: written again (in OPEN) from _mem_retry
        self._mem_retry = 0
        self._mem_wait = _MEMORY_RETRY_MS
        self._changed_by = -1    # the button whose PRESS changed the phase less than chord_ms
        self._changed_ms = 0     # ago and is still held (else -1), and when it did (from the
        self._changed_new = False    # next loop pass's tick once that has come: tick)
        # linked progressive (None / unused on a standalone table)
        self.link_factory = None     # callable(section bytes or None, log) -> TableLink
        self.tablelink = None
        self.hits_estimated = False  # self.hits amounts are estimates until the link pays
        self.shoe_rejects = 0        # shoe lines rejected since the last SHOE_REJECT entry
        self.shoe_reason = 0         # the last one's reason
        self.shoe_logged = False     # a SHOE_REJECT entry made less than _LOG_QUIET_MS ago, at shoe_logged_ms
        self.shoe_logged_ms = 0
        self.shoe_wait = _SHOE_LOG_MS
        self.linked = None           # a firmware.table.linked.LinkedRound on a linked table
        self._decoded = None         # (jackpot, round record) of the copy the boot takes
        try:
            # the record buffers as large as a RAM clear's record needs, now, while the heap
            # is whole: the RAM clear does not then grow them beside the smaller ones (the
            # boot fits them again to the jackpot it reads; no memory: the game's rules alone)
            if memory is not None:
                self.fit_record(pools.Jackpot(self.jackpot_config, self.game == UTH))
        except MemoryError:
            pass    # the RAM clear asks again, and is refused without the room

    # ------------------------------------------------------------------ boot

    def boot(self, now_ms, wall, reset_cause=0, cause_name=""):
        """Read critical memory and resume: the open round in its committed state, or RAM ERROR.

        reset_cause (the board's code) and cause_name (its name, which ports agree on where
        codes differ: eventlog.RESET_CAUSES) go into the power-up log entry; cause_name, when
        it is not a plain power-on, is shown to the dealer unless the boot has more to say."""
        self.now_ms = now_ms
        self.wall = wall
        cause = ev.RESET_CAUSES.index(cause_name) + 1 if cause_name in ev.RESET_CAUSES else 0
        self._decoded = None
        # each copy is decoded before the boot takes it: one that does not decode is a bad copy,
        # never the one the others are rebuilt from
        status = self.memory.boot(wall, reset_cause, cause, self._decode_copy)
        self._clock(wall)
        if self.game_unknown and self.link_factory is None and self.memory.section(SECTION_LINK):
            # no file at a table that was linked: never its local pool, frozen since then (the
            # RAM clear of a bad record keeps the link's ledger too)
            self.link_required = True
            self.link_up = False
        if status == critical.STATUS_RAM_ERROR:
            self._enter_ram_error()
            return self.phase
        decoded, self._decoded = self._decoded, None
        try:
            if decoded is None:      # no copy decoded: the newest again, to say why
                self._decode_copy({SECTION_JACKPOT: self.memory.section(SECTION_JACKPOT),
                                   SECTION_ROUND: self.memory.section(SECTION_ROUND)})
                decoded, self._decoded = self._decoded, None
            self.jackpot, self.rec = decoded
            if self.link_factory is not None:
                self._start_link()
            self.fit_record(self.jackpot)   # while the heap is whole
        except ValueError as error:
            self._enter_ram_error("bad record: %s" % error)
            return self.phase
        except NotLoaded as error:      # the link's code: a program fault, no record's
            # (the memory is good: no RAM clear, which would wipe it and mend nothing)
            self.code_fault = "PROGRAM ERROR - %s" % error
            self._enter_ram_error(self.code_fault)
            return self.phase
        code = self.rec.game
        if code != roundrecord.UNKNOWN and (code ^ self._game_code()) & _RULE_BITS and \
                code & 3 < len(_GAMES):
            # locked (or settled) under another game, hand rule or Trips hand rule than the
            # file's now: the round is finished, and its results shown, under its own (Trips
            # on the hand rule in a record from before _TRIPS_OTHER, as that firmware showed
            # it); the next is the file's
            rule, other = (BEST5OF7, HOLE2_BOARD3) if code & _BEST5 else (HOLE2_BOARD3, BEST5OF7)
            self._play(_GAMES[code & 3], rule, other if code & _TRIPS_OTHER else None)
        if self.game_unknown and code & 3 < len(_GAMES):
            # no game from the file: the table stays the game it was, never the default's
            self.game_unknown = False
            self.game_kept = True
            self.file_game, self.file_rule, self.file_trips = self.game, self.hand_rule, self.trips_rule
            seats = code // _SEATS_AT & 7
            if 0 < seats < self.seats:
                # nor the file's seats: those it gave (the board's are all the table has)
                self.seats = seats
                self.seats_kept = True
                self.view = screens.View(seats)
        if self.unkeyed and self.memory.keyed:
            # a program this table must refuse finishes no round (no payout, no claim)
            self._enter_ram_error(_KEYED_TEXT)
            return self.phase
        step = self.memory.step
        if step == critical.STEP_LOCK:
            self.rec.round_no = self.memory.round_no
            self._set_phase(LOCKED)
            # the Antes at LOCK are committed with it (sensed, marked or unseen; the panel's
            # marks only by a table without Ante sensors or older firmware; none by firmware
            # older still): the hand of a seat with an Ante at LOCK is still asked for (read
            # back before the resumed message says whether cards are missing); where the
            # record may not hold them all, a seat may have a wager the sensors do not see, so
            # no seat's cards are refused as without one
            self.marks_unknown = True
            if self.rec.marks & roundrecord.MARKS_KEPT:
                self.ante_marked = self.rec.marks & ~roundrecord.MARKS_KEPT
                if roundrecord.antes_kept(self.rec):
                    # every Ante at LOCK is in the record: the round goes on as before the cut
                    # (a seat without one has its cards refused, a chip put down is late)
                    self.ante_locked = self.ante_marked
                    self.marks_unknown = False
            # cards missing: the folds marked were lost with them unless the round's cards
            # were committed (_toggle_fold), and a seat not folded again reads as played
            self._say(screens.round_words(self.rec.round_no, "resumed", "Round"),
                      "SETTLE again" if not self._missing() else "cards again"
                      if roundrecord.holds_cards(self.memory.section(SECTION_ROUND))
                      else "redo folds+cards")
            if self.game != self.file_game:
                self._say(screens.round_words(self.rec.round_no, "is " + self.game.upper(),
                                              "Round"), self.file_game.upper() + " next round")
            elif self.hand_rule != self.file_rule or self.trips_rule != self.file_trips:
                self._say(screens.round_words(self.rec.round_no, "old rule", "Round"),
                          "new rule next")
            elif self.game == UTH and self.tablelink is not None and self.own_pool():
                self._say(screens.round_words(self.rec.round_no, "own pool", "Round"),
                          "linked next round")
            # What was on the spots before the cut is not known: the chips the sensors report
            # now are the round's, and an accepted chip missing after the first reports was
            # taken while the power was off (tick).
            # (counted from the loop's first pass: the boot's own time, critical memory read
            # and committed, can pass it on a board before the sensors are first read)
            self.boot_scan = _SCAN_WAITS
        elif step == critical.STEP_CONFIRM:
            self.rec.round_no = self.memory.round_no
            self._set_phase(LOCKED)     # where a payout that cannot be made leaves it
            self._pay_confirmed()
        elif step == critical.STEP_SETTLE or step == critical.STEP_VOID:
            # The last round ended before the power went: its results again (the dealer may
            # not have paid it yet); SETTLE opens the next round as usual.
            self.rec.round_no = self.memory.round_no
            self._show_last_results(step == critical.STEP_VOID)
        else:
            self._new_round()
        if cause_name and cause_name != "power-on" and not self.message:
            self._say("Restarted after", cause_name)
        self._refresh_meter()
        return self.phase

    def set_program(self, ok, text, digest=""):
        """The result of the boot-time program verification: a failed check closes the jackpot.
        (An unkeyed one at a table that ran keyed stops in the boot itself: unkeyed.)"""
        self.program_ok = ok
        self.program_text = text
        self.program_digest = digest or ""
        if not ok:
            self._beep(BEEP_ALARM)
        self._refresh_meter()

    def set_config_status(self, ok, text):
        """What loading the configuration file said: a bad file closes the jackpot.  With no
        file the text says which game critical memory kept (boot), the defaults' or not."""
        self.config_ok = ok
        if ok and self.link_required and self.tablelink is None:
            text += ", link ledger kept: JP closed"     # (boot: no file at a linked table)
        elif ok and self.game_kept:
            text += " (%s%s kept from memory)" % (
                self.file_game, ", %d seats" % self.seats if self.seats_kept else "")
        self.config_text = text
        if not ok:
            self._beep(BEEP_ALARM)
        self._refresh_meter()

    def set_display(self, ok, now_ms, part=DISPLAY):
        """The dealer display (DISPLAY) or the meter sign (SIGN) stopped answering (ok False)
        or answers again: the other one shows the fault meanwhile (the sign alternates
        ``dISP Err``, the display says ``SIGN FAULT``), and the event log gets it once a round
        (DISPLAY_FAULT, a the part)."""
        self.now_ms = now_ms
        if ok:
            self.parts_down &= ~part
        else:
            self.parts_down |= part
            self._beep(BEEP_ERROR)
            if part == SIGN:
                self._say("Meter sign", "FAULT bus")
            if not self.parts_logged & part and self._evidence(ev.DISPLAY_FAULT, part):
                self.parts_logged |= part
        self._refresh_meter()

    def jackpot_sections(self):
        """The jackpot's state as the critical-memory section to commit, after a change between
        rounds (its configuration's): the buffers sized for it first (fit_record, MemoryError
        when the heap has no room: the caller refuses the change)."""
        self.fit_record(self.jackpot)
        return {SECTION_JACKPOT: jprecord.encode_into(self.jackpot, self._jp_writer)}

    def fit_record(self, jp):
        """Make the jackpot writer and critical memory's record buffers as large as the largest
        record `jp`'s configuration can make (jprecord.size_bound, the round record, at a
        linked table the link's sections): at boot and in a configuration change's own path,
        before its commit, so that no round's commit ever needs a new buffer (after hours of
        play the heap may have no piece that large).  MemoryError when it has none now."""
        bound = jprecord.size_bound(jp)
        if len(self._jp_writer.buf) < bound:
            self._jp_writer.buf = bytearray(bound)
        sizes = {SECTION_JACKPOT: bound, SECTION_ROUND: roundrecord.SIZE}
        if self.linked is not None:
            self.linked.section_bounds(sizes, jp.config.wager)
        self.memory.reserve(sizes)

    def commit_admin(self, events, sections=None):
        """Commit events (and sections) outside the round steps, e.g. a change between rounds.

        Returns '' when committed (or, when critical memory is unusable, kept to be logged with
        the RAM clear), else what went wrong; then the committed jackpot has been put back."""
        if self.jackpot is None or self.memory.ram_error:
            if self._held:
                self.memory.defer(self._held, self.wall)    # the pass's entries: the same
                self._held = []
            if not sections:
                self.memory.defer(events, self.wall)  # a door opened in RAM ERROR is evidence too
            return ""
        held, events = self._take_held(events)
        try:
            self.memory.commit_admin(sections, events, self.wall)
        except Exception as error:  # noqa: BLE001 - any store failure must leave money as committed
            self._hold_again(held)
            self._store_failed(error)
            self._render()
            return str(error) or type(error).__name__
        self._refresh_meter()
        return ""

    def _decode_copy(self, sections):
        """The jackpot and the round record of a copy's sections, kept for the boot;
        ValueError names what does not decode."""
        data = sections.get(SECTION_JACKPOT)
        if data is None:
            raise ValueError("no jackpot section")
        jp = jprecord.decode(data)
        data = sections.get(SECTION_ROUND)
        self._decoded = (jp, roundrecord.decode(data) if data is not None else roundrecord.RoundRecord())

    def _play(self, game, hand_rule, trips_rule=None):
        """Deal `game` under `hand_rule` (UTH's Trips under `trips_rule`, None: the same) from
        now on (the cards it deals, its results)."""
        self.game = game
        self.hand_rule = hand_rule
        self.trips_rule = trips_rule
        self.seat_cards, self.dealer_cards, self.board_cards = GAME_CARDS[game]
        if game == UTH:
            # The progressive belongs to UTH [rules.md 2]; the other games settle without it.
            if self.other_game is not None:
                from firmware.heap import forget

                self.other_game = None
                forget("firmware.table.othergames")
        elif self.other_game is None:
            # Four Card Poker's and Big Raise Stud's results: loaded with such a table's
            # controller, so that a heap too small for them shows at boot, not mid-round
            from firmware.table import othergames

            self.other_game = othergames

    def _game_code(self):
        """The round record's game byte for the configuration's game and hand rule (in play
        but while a round kept from before the file changed is finished) and seats."""
        return (_GAMES.index(self.file_game) | (_BEST5 if self.file_rule == BEST5OF7 else 0)
                | self.seats * _SEATS_AT | (_TRIPS_OTHER if self.file_trips else 0))

    def _load_jackpot(self):
        data = self.memory.section(SECTION_JACKPOT)
        if data is None:
            raise ValueError("no jackpot section")
        return jprecord.decode(data)

    def _new_round(self):
        if self.phase == RESULTS:
            # the round just shown, though it had no line (no seat's cards): never the one before
            self.last_results = self.results
        if self.game != self.file_game or self.hand_rule != self.file_rule or \
                self.trips_rule != self.file_trips:
            # a round kept from before is over
            self._play(self.file_game, self.file_rule, self.file_trips)
            self._refresh_meter()
        self.rec.game = self._game_code()
        self.rec.round_no = self.memory.round_no + 1
        self.rec.accepted = 0
        self.rec.folded = 0
        self.rec.voided = 0
        self.rec.marks = 0
        self.rec.clear_cards()
        self.late = 0
        self.tamper = 0
        self.unseen = 0
        self.recheck = 0
        self.refused_down = 0
        self.ante_marked = 0
        self.marks_unknown = False
        self.faults_logged = 0
        self.parts_logged = 0
        self.hits = []
        self.hits_estimated = False
        self.results = []
        self.message = ""
        self.view.wins = []
        if self.cursor >= self.seats:
            self.cursor = 0         # it was on a seat of a round locked before the seats were cut
        self._set_phase(OPEN)

    # ------------------------------------------------------------------ inputs

    def _clock(self, wall):
        """The time logged from the clock's reading `wall`: shifted on where critical memory
        found it earlier than its log (a new int only when the reading or the shift changed)."""
        shift = self.memory.clock_shift
        if wall != self._wall_in or shift != self._shift:
            self._wall_in, self._shift = wall, shift
            self.wall = wall + shift

    def clock_set(self, shift=0):
        """The clock reads a real time now (NTP), or does `shift` seconds on from its reading
        (the supervisor set it: supervisor.set_clock): the times logged from it are known."""
        self.memory.clock_real()
        self.memory.clock_shift = shift
        self._clock(self._wall_in)

    def tick(self, now_ms, wall):
        """Advance time; clears an expired message.  Allocates nothing when nothing happens."""
        self.now_ms = now_ms
        self._clock(wall)
        # times are ticks, which wrap (every 2**30 ms, 12.4 days, on a board): compared by
        # ticks_diff, and a rate limit's window closed here so that its time never goes stale
        if self.message and ticks_diff(now_ms, self.message_until) >= 0:
            self.message = ""
            self._render()
        if self.shoe_rejects:
            self._log_shoe_rejects(now_ms)
        if self.boot_scan == _SCAN_WAITS:
            self.boot_scan = True
            self.boot_scan_ms = ticks_add(now_ms, _BOOT_SCAN_MS)
        elif self.boot_scan and ticks_diff(now_ms, self.boot_scan_ms) >= 0:
            self._check_spots_after_boot()
        if self.recheck:
            self._check_recovered_spots()
        if self.door_logged and ticks_diff(now_ms, self.door_logged_ms) >= _DOOR_LOG_MS:
            self.door_logged = False
        if self.shoe_logged and ticks_diff(now_ms, self.shoe_logged_ms) >= _LOG_QUIET_MS:
            self.shoe_logged = False     # (quiet long enough: the next wait is base, _wait_next)
        if self.door_changes:
            self._log_door(now_ms)
        if self.link_changes:       # (before its window closes: changes through it go on)
            self._log_link(now_ms)
        if self.link_logged and ticks_diff(now_ms, self.link_logged_ms) >= _LOG_QUIET_MS:
            self.link_logged = False
        if self.recalling and ticks_diff(now_ms, self.recall_until) >= 0:
            self.recalling = False
            self._render()
        if self._changed_by >= 0 and not self._chord_starts(now_ms) and \
                ticks_diff(now_ms, self._changed_ms) >= self.chord_ms:
            self._changed_by = -1
        if self._held_wait and ticks_diff(now_ms, self._held_retry) >= 0:
            self._held_wait = False
        if self._held and not self._held_wait:
            self._commit_held()
        if self.phase == OPEN and self.jackpot is not None and not self.memory.whole:
            # the jackpot is closed until every copy holds the last commit: an idle table
            # (nothing to commit before LOCK) tries the failed one again, after a bus glitch
            # or a moment without heap for a file at once, and not a commit every pass if it
            # keeps failing (a failure already logged logs nothing: the store's read-back)
            if not self._mem_due:
                self._mem_due = True
                self._mem_retry = ticks_add(now_ms, self._mem_wait)
            elif ticks_diff(now_ms, self._mem_retry) >= 0:
                self._mem_due = False
                self._mem_wait = min(2 * self._mem_wait, _MEMORY_RETRY_MAX_MS)
                self._commit_held()
        else:
            self._mem_due = False    # (out of OPEN a round's commits write it; whole: at once)
            if self._mem_wait != _MEMORY_RETRY_MS and self.memory.whole:
                self._mem_wait = _MEMORY_RETRY_MS

    def _chord_starts(self, now_ms):
        """True at the first loop pass after a button's PRESS changed the phase: the window of
        the buttons hit with it counts from now, after the time the change took (a commit:
        about 110 ms on a board), in which they went down or bounced unseen."""
        if self._changed_new and now_ms != self._changed_ms:
            self._changed_ms = now_ms
            self._changed_new = False
            return True
        return False

    def recall_results(self):
        """Show the previous round's results on the OPEN screen for _RECALL_MS (a double tap
        went past them, or the dealer wants another look); any button ends it."""
        if self.last_results is None:
            self._say("No results yet", "")
            return
        self.recalling = True
        self.recall_top = 0
        self.recall_until = ticks_add(self.now_ms, _RECALL_MS)

    def _log_door(self, now_ms):
        """Log the door's state: a change at once, but changes coming faster than _DOOR_LOG_MS
        (a loose switch) as one entry when that time is up, with their count in b, so that a
        flapping door can neither push the records out of the log nor wear the flash."""
        if self.door_logged and ticks_diff(now_ms, self.door_logged_ms) < _DOOR_LOG_MS:
            return
        changes = self.door_changes
        kind = ev.DOOR_OPEN if self.door_open else ev.DOOR_CLOSE
        if self._evidence(kind, 1, changes if changes > 1 else 0):
            self.door_changes = 0
        # a commit that failed (MEMORY FAULT shown) is tried again in _DOOR_LOG_MS with its
        # changes counted (as the shoe's log): not a failing write and an alarm at every tick
        self.door_logged = True
        self.door_logged_ms = now_ms

    def _show_last_results(self, void):
        if void:
            self.results = ["ROUND VOID", "wagers returned"]
        else:
            jp = self.jackpot
            self.hits = [h for h in jp.hits if h[jm.H_ROUND] == self.rec.round_no] if jp else []
            self._make_results()
            # a power cut within the wins' time on the sign: they are shown again, never
            # later (a win on the sign days after says a new one).  A clock unsure at boot
            # (a Pico W's restarts at 2021: the log's newest time on from there) cannot tell
            # how long the power was off: the wins are not shown, as after a long cut (the
            # dealer display still lists them)
            hits = self.hits
            if self.linked is None and hits and not self.memory.clock_unsure and \
                    0 <= self.wall - hits[0][jm.H_TIME] < max(_WIN_S, _WIN_TURN_S * len(hits)):
                self._show_wins()
            if self.linked is not None:
                # a linked table's jackpot is the link's: its lines come from the event log
                self.results = self.results + self.linked.resumed_lines(self.rec.round_no)
        self._set_phase(RESULTS)
        self._say(screens.round_words(self.rec.round_no, "void" if void else "settled", "Round"),
                  "before power cut")

    def _check_spots_after_boot(self):
        self.boot_scan = False
        if not self._chips_held():
            return
        # (a spot beyond the file's seats is not read: no alarm for it)
        gone = self.rec.accepted & ~self.rec.voided & ~self.placed & ~self.faults & ((1 << self.seats) - 1)
        self.unseen |= self.faults
        for seat in range(self.seats):
            if gone & 1 << seat:
                self._tamper(seat, "chip off at boot")
        self._render()

    def _check_recovered_spots(self):
        """An accepted jackpot spot whose sensor was in fault at the resume's boot scan has
        recovered: its chip was reported with the CLEARED (the driver announces a covered
        spot at once), or it was taken while the power was off."""
        gone = self.recheck & ~self.placed & ~self.faults
        self.unseen &= ~self.recheck
        self.recheck = 0
        for seat in range(self.seats):
            if gone & 1 << seat and not self.tamper & 1 << seat:
                self._tamper(seat, "chip off at boot")
        self._render()

    def _tamper(self, seat, why):
        self.tamper |= 1 << seat
        self._beep(BEEP_ALARM)
        self._say("TAMPER seat %d" % (seat + 1), why)
        self._evidence(ev.TAMPER, seat + 1)

    def spot(self, kind, spot, now_ms, reason=0):
        """A bet-spot sensor event (firmware.drivers.spot_sensors kinds); for FAULT, reason is
        the sensor's fault (spot_sensors.CHATTER, STUCK or BUS; 0 unknown)."""
        self.now_ms = now_ms
        ante = sensors.ANTE_FIRST <= spot < sensors.ANTE_FIRST + SEATS
        if not ante and not 0 <= spot < SEATS:
            return
        seat = spot - sensors.ANTE_FIRST if ante else spot
        if seat >= self.seats:
            return
        bit = 1 << seat
        if kind == sensors.FAULT:
            self._sensor_fault(seat, ante, reason)
        if ante:
            if kind == sensors.PLACED:
                self.ante |= bit
                if (self.game != UTH and (self.phase == LOCKED or self.phase == CARD_ENTRY)
                        and self.ante_sensors and not self.marks_unknown
                        and not self.ante_locked & bit):
                    # where the ring is the Ante's: a late bet, shown as at a jackpot spot
                    # (without Ante sensors what was down at LOCK is not known: none is late)
                    self.late |= bit
                    self._beep(BEEP_ERROR)
                    self._say("Seat %d late bet" % (seat + 1), "Ante not in play")
            elif kind == sensors.REMOVED or kind == sensors.FAULT:
                self.ante &= ~bit
                if self.game != UTH:
                    self.late &= ~bit
            elif kind == sensors.CLEARED:
                self.ante_faults &= ~bit
            self._render()
            return
        if kind == sensors.FAULT:
            if self._chips_held() and self.placed & ~self.rec.accepted & ~self.late & bit:
                self.refused_down |= bit    # not late, so down since before LOCK
            self.faults |= bit
            self.placed &= ~bit
        elif kind == sensors.CLEARED:
            self.faults &= ~bit
            if (self._chips_held() and self.unseen & self.rec.accepted & ~self.rec.voided & bit
                    and not self.boot_scan):
                self.recheck |= bit     # not known since boot: its chip must show (tick)
        elif kind == sensors.PLACED:
            self.placed |= bit
            if self._chips_held() and not self.boot_scan:
                if self.refused_down & bit:
                    # the driver announces a chip anew after a fault: the same chip as before
                    self.refused_down &= ~bit
                elif self.unseen & bit and not self.rec.accepted & bit:
                    # its sensor was in fault at LOCK: the chip may have been down in time,
                    # so it is no late bet, but it was not taken either
                    self._beep(BEEP_ERROR)
                    self._say("Seat %d JP chip" % (seat + 1), "NOT taken: fault")
                elif not self.rec.accepted & bit:
                    self.late |= bit
                    self._beep(BEEP_ERROR)
                    self._say("Seat %d late bet" % (seat + 1), "NOT accepted")
        elif kind == sensors.REMOVED:
            self.placed &= ~bit
            # a late chip taken away is late no more, whatever the phase: its ring must not
            # go on flashing LATE over an empty spot in RESULTS
            self.late &= ~bit
            self.unseen &= ~bit     # seen empty after LOCK: a chip put there now is late
            self.refused_down &= ~bit
            if self._chips_held() and not self.boot_scan:
                # a voided seat's chip is handed back: its removal is no tamper
                if self.rec.accepted & ~self.rec.voided & bit and not self.tamper & bit:
                    self._tamper(seat, "chip removed")
        self._render()

    def _sensor_fault(self, seat, ante, reason):
        """A spot sensor of seat (index) went into fault: the dealer is told which and why, it
        counts for nothing until it clears, and the event log gets it once per spot per round
        (a sensor that keeps failing and recovering cannot fill the log)."""
        bit = 1 << seat
        if ante:
            self.ante_faults |= bit
        self._beep(BEEP_ERROR)
        if reason == sensors.BUS:
            # the expander stopped answering: every spot at once, one message, one entry
            self._say("Spot sensors", "FAULT bus")
            logged, entry = _BUS_LOGGED, (ev.SENSOR_FAULT, 0, 0, reason)
        else:
            others = (self.faults | self.ante_faults) & ~bit
            if others:
                # another seat's spot is in fault too (a pass may bring several): every seat
                # said, not the last one alone (the log has each spot and why)
                self._say("Spot FAULT seats", self._seat_list(others | bit))
            else:
                why = sensors.FAULT_NAMES[reason] if 0 < reason < len(sensors.FAULT_NAMES) else "fault"
                self._say("Seat %d %s spot" % (seat + 1, "Ante" if ante else "JP"),
                          "FAULT " + why)
            logged = bit << SEATS if ante else bit
            entry = (ev.SENSOR_FAULT, seat + 1, 2 if ante else 1, reason)
        if not self.faults_logged & logged and self._evidence(*entry):
            self.faults_logged |= logged

    def panel(self, kind, button, now_ms):
        """A dealer panel event (firmware.drivers.buttons kinds) in the order the Panel sends
        them: PRESS, then LONG if held, then RELEASE.  Allocates nothing.

        One press does one thing.  A button with a long action in this phase and key state
        (handlers.long_buttons) does its short action on RELEASE when no LONG came, and its
        long action on LONG (a LONG with no PRESS before it counts as a long press).  Any
        other button acts on PRESS, and the LONG and RELEASE of that press are ignored.  UP
        and DOWN act on PRESS, LONG and every REPEAT (scrolling), but not once the phase
        changed, or another button was pressed, while held."""
        self.now_ms = now_ms
        if kind == btn.KEY_ON or kind == btn.KEY_OFF:
            self.key_on = kind == btn.KEY_ON
            self._render()
            return
        if kind == btn.DOOR_OPEN or kind == btn.DOOR_CLOSED:
            self.door_open = kind == btn.DOOR_OPEN
            self.door_changes += 1
            self._log_door(now_ms)
            self._render()
            return
        if not 0 <= button <= btn.BACK:
            return
        if kind == btn.RELEASE and button == self._changed_by:
            self._changed_by = -1           # let go: the next press is a press of its own
        if kind == btn.PRESS and self._changed_by >= 0 and button != self._changed_by:
            self._chord_starts(now_ms)
            if 0 <= ticks_diff(now_ms, self._changed_ms) < self.chord_ms:
                # Hit together with the button that just changed the phase, still held (a
                # palm across the panel): pressed in the old phase, it does nothing in the
                # new one, nor its LONG or RELEASE (SETTLE and OK must not pay at CONFIRM).
                bit = 1 << button
                self._acted |= bit
                self._waiting &= ~bit
                return
        if button == btn.UP or button == btn.DOWN:
            # held (LONG, REPEAT: scrolling), it belongs to the phase it was pressed in: held
            # through a change (_set_phase), it moves no cursor of the new one
            bit = 1 << button
            if kind == btn.PRESS:
                self._acted &= ~bit
                self._waiting |= bit
            elif kind == btn.RELEASE:
                self._waiting &= ~bit
                return
            elif self._acted & bit:
                return
        if self.recalling:
            if button == btn.UP or button == btn.DOWN:
                if kind == btn.PRESS or kind == btn.REPEAT:   # they scroll the recalled lines
                    step = 1 if button == btn.DOWN else -1
                    last = max(0, len(self.last_results) - screens.RESULT_LINES)
                    self.recall_top = max(0, min(self.recall_top + step, last))
                    self.recall_until = ticks_add(now_ms, _RECALL_MS)
                    self._render()
                return
            if kind == btn.PRESS:
                self.recalling = False      # any other button ends the recall, and does its job
        long = kind == btn.LONG
        if button == btn.UP or button == btn.DOWN:
            if kind != btn.PRESS and kind != btn.LONG and kind != btn.REPEAT:
                return
        else:
            bit = 1 << button
            if kind == btn.PRESS:
                # (and UP or DOWN held stops: what it moved may be another thing now, the
                # recall ended, a card entry or clock field passed, the clock editor left)
                self._acted = self._acted & ~bit | self._waiting & _SCROLL
                if handlers.long_buttons(self) & bit:
                    self._waiting |= bit
                    return
                self._waiting &= ~bit
                self._acted |= bit
            elif kind == btn.LONG:
                if self._acted & bit:
                    return
                self._waiting &= ~bit
            elif kind == btn.RELEASE:
                waiting = self._waiting & bit
                self._waiting &= ~bit
                self._acted &= ~bit
                if not waiting:
                    return
            else:
                return
        phase = self.phase
        handlers.HANDLERS[phase](self, button, long)
        if kind == btn.PRESS and self.phase != phase:
            self._changed_by = button
            self._changed_ms = now_ms
            self._changed_new = True
        if self.phase != RESULTS:
            self.results_top = 0
        self._render()

    def card(self, dest, card, now_ms):
        """A card for the dealer (0), seat 1..7 or the board (8); wrong cards are refused."""
        self.now_ms = now_ms
        problem = self._add_card(dest, card)
        if problem:
            self._beep(BEEP_ERROR)
            self._refuse("Card refused", problem)
            if problem.endswith(_TWICE) and self.duplicate_logged != self.rec.round_no:
                # a card seen twice may be a fouled deck: the supervisor must be able to find
                # it later (once a round: a shoe repeating itself cannot fill the log)
                if self._evidence(ev.CARD_DUPLICATE, dest, card):
                    self.duplicate_logged = self.rec.round_no
        self._render()

    def shoe_reject(self, reason, now_ms):
        """The shoe driver rejected a line (reason: its firmware.drivers.shoe.REASONS code):
        the dealer sees why, and the event log gets the reason and the count, at most one
        entry every _SHOE_LOG_MS so that a babbling shoe cannot wear out the flash (the rest
        are counted into the next entry, with the last reason, or OVERRUN if one was among
        them)."""
        self.now_ms = now_ms
        if self.shoe_reason != shoemod.OVERRUN or not self.shoe_rejects:
            self.shoe_reason = reason   # bytes lost outrank a later bad line until logged
        self.shoe_rejects += 1
        self._beep(BEEP_ERROR)
        if reason == shoemod.OVERRUN:
            # the UART may have dropped whole lines: a card dealt may be missing
            self._say("Shoe bytes lost", "check the cards")
        else:
            name = shoemod.REASONS[reason] if 0 < reason < len(shoemod.REASONS) else "reason %d" % reason
            self._say("Shoe line bad", name)
        self._log_shoe_rejects(now_ms)
        self._render()

    def _log_shoe_rejects(self, now_ms):
        since = ticks_diff(now_ms, self.shoe_logged_ms)
        if self.shoe_logged and since < max(self.shoe_wait, _SHOE_LOG_MS):
            return
        self.shoe_wait = _wait_next(self.shoe_logged, since, self.shoe_wait, _SHOE_LOG_MS,
                                    self.shoe_rejects)
        if self._evidence(ev.SHOE_REJECT, self.shoe_reason, self.shoe_rejects):
            self.shoe_rejects = 0
        # a commit that failed (MEMORY FAULT shown) is tried again in shoe_wait, with the
        # count kept: not a failing write and an alarm at every tick
        self.shoe_logged = True
        self.shoe_logged_ms = now_ms

    def link(self, up, now_ms):
        """The link to the link controller went down or came back (linked tables only)."""
        self.now_ms = now_ms
        if up == self.link_up:
            return
        self.link_up = up
        self.link_changes += 1
        self._log_link(now_ms)
        self._refresh_meter()
        self._render()

    def _log_link(self, now_ms):
        """Log the link's state as the door's (_log_door): a flapping link (a weak Wi-Fi, the
        link's room for entries filling and emptying) counted into one entry per LINK_LOG_MS,
        longer while it goes on, fast or slow (_wait_next), not an entry per change pushing
        the records out of the log."""
        since = ticks_diff(now_ms, self.link_logged_ms)
        if self.link_logged and since < max(self.link_wait, _LINK_LOG_MS):
            return
        changes = self.link_changes
        self.link_wait = _wait_next(self.link_logged, since, self.link_wait, _LINK_LOG_MS, changes)
        if self._evidence(ev.LINK_UP if self.link_up else ev.LINK_DOWN, 0,
                          changes if changes > 1 else 0):
            self.link_changes = 0
        self.link_logged = True
        self.link_logged_ms = now_ms

    def link_poll(self, now_ms):
        """Linked tables, every tick after the link's service(): payouts that arrived, link
        events, the link section when it changed, and the pool amounts on the meter sign
        (firmware.table.linked.LinkedRound.poll).  Allocates nothing while nothing changes."""
        if self.tablelink is None or self.link_stop() is not None:
            return
        self.now_ms = now_ms
        self.linked.poll(now_ms)

    def link_stop(self):
        """Why a linked table's link must not run now, or None: in RAM ERROR (until the RAM
        clear) neither the link's ledger nor its message numbers can be committed, so the
        link stops, sending and taking nothing: numbers sent and not saved would be used
        again after a restart, and refused as replayed."""
        if self.jackpot is None or self.memory.ram_error:
            return _LINK_STOPPED
        return None

    def link_totals(self):
        """The linked table's own ledger meters (dict of firmware.table.linked.TOTAL_NAMES),
        or None."""
        if self.tablelink is None:
            return None
        return self.linked.totals()

    def _start_link(self):
        """Load the linked table's round work and build the link (linked.LinkedRound);
        NotLoaded when its code cannot load (a damaged .mpy's ValueError is no bad record)."""
        try:
            from firmware.table import linked  # a standalone table never loads it
        except Exception as error:  # noqa: BLE001 - a full heap, a damaged .mpy
            from firmware.heap import not_loaded

            raise not_loaded("firmware.table.linked", error) from None
        self.linked = linked.LinkedRound(self)

    def _linked_option(self):
        """Why this linked table's configuration in force (critical memory's, set while it
        was standalone) keeps its jackpot closed, or None: an envy bonus, or the shortfall
        option "cut", which the link controller, paying its hits, does not apply, so the
        jackpot stays closed rather than promise what nobody pays (a RAM clear from the
        file's configuration, which cannot have them, opens it)."""
        if self.linked is None or self.jackpot is None:
            return None
        if self.jackpot.config.envy_paid():
            return LINKED_ENVY_TEXT
        return LINKED_CUT_TEXT if self.jackpot.config.shortfall else None

    def config_state(self):
        """(ok, text) of the configuration: the file's check, or why the one in force keeps
        a linked table's jackpot closed."""
        why = self._linked_option()
        if self.config_ok and why:
            return False, why
        return self.config_ok, self.config_text

    # ------------------------------------------------------------------ state

    def stopped_text(self):
        """What RAM ERROR stops at this table: its jackpot, or its rounds (no progressive)."""
        return "JACKPOT DISABLED" if self.game == UTH else "ROUNDS DISABLED"

    def jackpot_open(self):
        """True when jackpot wagers may be accepted: memory good, every copy of it holding the
        last commit, link up, program verified."""
        return (self.game == UTH and self.jackpot is not None and self.memory.wagering_allowed
                and self.memory.whole and self.program_ok and self.config_ok
                and not self._linked_option() and (self.link_up or not self.link_required))

    def _chips_held(self):
        """True from LOCK until the round is paid: accepted jackpot chips must stay on their
        spots, and a chip placed is a late bet.  Once the results are shown the dealer
        collects the wagers [11.12] and a chip placed waits for the next round.  Never at a
        game without the progressive: its jackpot spots take no wager."""
        return self.game == UTH and self.phase in (LOCKED, CONFIRM, CARD_ENTRY)

    def _set_phase(self, phase):
        if phase != self.phase:
            # A button held through the change belongs to the old phase: its release or long
            # press must not act in the new one (a thumb on OK must not pay a jackpot).
            self._acted |= self._waiting
            self._waiting = 0
        self.phase = phase

    def _back_to(self, phase):
        """The phase again after a step's commit failed, unless the failure stopped the table
        (RAM ERROR: the committed state could not be read back; only a RAM clear leaves it)."""
        if self.phase != RAM_ERROR:
            self._set_phase(phase)

    def _refuse(self, title, error):
        """Tell the dealer what was refused or failed (the display shows the reason's first
        columns) and keep the whole reason for the technician (service ``status``)."""
        text = str(error) or type(error).__name__
        self.last_refusal = "%s: %s" % (title, text)
        self._say(title, text)

    def _say(self, first, second=""):
        self.message = first + "\n" + second
        self.message_until = ticks_add(self.now_ms, MESSAGE_MS)

    def _show_wins(self, shown=True):
        """The round's jackpot wins (self.hits) for the sign, each on its pool's line with the
        pool's amount (not yet debited at CONFIRM), or at a linked table (a round of its own
        pool's, locked before the file linked it) the link's, which the line shows; shown
        False: their lines' wins end (those that waited at CONFIRM, paid, sent back or void).
        None while the amounts are a linked table's estimates (another table may hit first):
        the link's payout shows its wins."""
        if self.hits_estimated:
            return
        slots = self.jackpot.active_slots()
        for hit in self.hits:
            slot = hit[jm.H_POOL]
            line = slots.index(slot) if slot in slots else 0
            new = self.jackpot.value[slot] if self.tablelink is None else \
                max(0, self.view.meter[slots[line]])    # (-1, not heard yet: a dark line)
            self._show_win(line, hit[jm.H_SEAT] if shown else 0, hit[jm.H_AMOUNT], new)

    def _show_win(self, line, seat, amount, new):
        """A jackpot win for the sign: one more in view.wins (the app shows every one); seat 0
        ends the line's wins."""
        self.view.wins.append((line, seat, amount, new))
        if seat:
            self.view.win = self.view.wins[-1]
        self.view.win_serial += 1

    def _beep(self, pattern):
        view = self.view
        # the app plays one beep a loop pass (one now_ms): a tamper's alarm and a refusal in
        # the same pass sound the alarm
        if self._beep_ms == self.now_ms and BEEP_RANK[view.beep] > BEEP_RANK[pattern]:
            return
        self._beep_ms = self.now_ms
        view.beep = pattern
        view.beep_serial += 1

    def _sections(self):
        sections = {SECTION_JACKPOT: jprecord.encode_into(self.jackpot, self._jp_writer),
                    SECTION_ROUND: roundrecord.encode(self.rec)}
        if self.tablelink is not None:
            sections[SECTION_LINK] = self.tablelink.section()
            sections[SECTION_LINK_ROUND] = self.linked.round_section()
        return sections

    def _link_committed(self):
        """After a commit that carried the link section."""
        if self.tablelink is not None:
            self.linked.committed()

    def _commit(self, step, events):
        """Commit this round's step; on failure reload the committed jackpot and say so."""
        held, events = self._take_held(events)
        try:
            self.memory.commit(self.rec.round_no, step, self._sections(), events, self.wall)
            self._refresh_meter()       # (a copy may have failed, or been written again)
            return True
        except Exception as error:  # noqa: BLE001 - any store failure must leave money as committed
            self._hold_again(held)
            self._store_failed(error)
            return False

    def _log_admin(self, kind, a=0, b=0, c=0, sections=None):
        return not self.commit_admin([(kind, a, b, c)], sections)

    def _evidence(self, kind, a=0, b=0, c=0):
        """Log what happened (a fault, a tamper, the door, the shoe, the link): at once, or
        with batch set (the App) held for the one commit of every such entry of the loop pass
        at its tick: a pass in which each spot's sensor chattered made 14 commits, each a FRAM
        write and a flash sector erase (about 110 ms on the reference board), past the 2 s
        watchdog.  True when committed or held (False: the caller keeps what it counts)."""
        if not self.batch:
            return self._log_admin(kind, a, b, c)
        if len(self._held) >= ev.MAX_EVENTS_PER_COMMIT:
            return False            # a store failing for long: no more than one commit holds
        self._held.append((kind, a, b, c))
        # tried at this pass's tick, with any a failed commit left (the flash may work again:
        # a tamper held for the retry was lost to a power cut before it); each source's own
        # rate limit keeps a failing store from being written at every pass
        self._held_wait = False
        return True

    def _commit_held(self):
        self.commit_admin([])

    def _take_held(self, events):
        """(held, events): the pass's held entries put before the events of a commit, in the
        same commit (the log keeps their order) when it has room for them (else they wait
        for the pass's tick)."""
        held = self._held
        if not held or len(held) + len(events) > ev.MAX_EVENTS_PER_COMMIT:
            return (), events
        self._held = []
        return held, held + list(events)

    def _hold_again(self, held):
        if held:
            # not committed (MEMORY FAULT shown): kept, and tried again in _SHOE_LOG_MS (or
            # with the next commit, or a new entry's), not a failing write and an alarm at
            # every pass
            self._held = held + self._held
            self._held_wait = True
            self._held_retry = ticks_add(self.now_ms, _SHOE_LOG_MS)

    def _store_failed(self, error):
        self._beep(BEEP_ALARM)
        if self.memory.ram_error:
            self._enter_ram_error(str(error))
            return
        try:
            self.jackpot = self._load_jackpot()
        except ValueError:
            self._enter_ram_error("jackpot record unreadable")
            return
        except Exception as reload_error:  # noqa: BLE001 - heap.NotLoaded, a full heap
            # What is in RAM was not committed and the committed state cannot be read back
            # now: the table must not play on with it.  It stops; the restart reads the
            # committed state at boot.
            from firmware.heap import Stop

            raise Stop("commit failed (%s) and the committed state could not be read back "
                       "(%s): restart" % (error, reload_error)) from None
        self._refuse("MEMORY FAULT", error)
        self._refresh_meter()

    def _enter_ram_error(self, reason=""):
        self.jackpot = None
        self._set_phase(RAM_ERROR)
        self.message = ""
        if reason:
            # on the screen's three lines for it; whole in the service's status (the memory
            # itself may read "ok": a record in it is what the program cannot read)
            self.last_refusal = "RAM ERROR: " + reason
            self.menu = [reason[i:i + WIDTH] for i in range(0, min(len(reason), 3 * WIDTH), WIDTH)]
        else:
            # why, and what each copy was found to be ("0 bad crc", "1 io error ...")
            self.menu = [self.memory.ram_error_reason[:WIDTH]]
            for i, found in enumerate(self.memory.copy_status):
                self.menu.append(("%d %s" % (i, found))[:WIDTH])
        self._beep(BEEP_ALARM)
        self._refresh_meter()

    # ------------------------------------------------------------------ cards

    def _dest_buffer(self, dest):
        if dest == DEALER:
            if not self.dealer_cards:
                return None, "no dealer hand"
            return memoryview(self.rec.dealer)[:self.dealer_cards], "dealer"
        if dest == BOARD:
            if not self.board_cards:
                return None, "no board"
            return memoryview(self.rec.board)[:self.board_cards], "board"
        if 1 <= dest <= self.round_seats():
            start = (dest - 1) * roundrecord.HOLE
            return memoryview(self.rec.hole)[start:start + self.seat_cards], "seat %d" % dest
        if DEALER < dest < BOARD:
            return None, "S%d not in play" % dest   # a seat of the board's the table does not play
        return None, "bad dest %d" % dest

    def _has_card(self, card):
        for buf in (self.rec.hole, self.rec.dealer, self.rec.board):
            for seen in buf:
                if seen == card:
                    return True
        return False

    def _add_card(self, dest, card):
        """Store a card; return '' or the reason it was refused."""
        if self.phase == OPEN:
            return "LOCK first"     # cards dealt while bets are open: the dealer forgot LOCK
        if self.phase != LOCKED and self.phase != CARD_ENTRY:
            return "not dealing now"
        if not isinstance(card, int) or card < 0 or card >= cardlib.DECK_SIZE:
            return "bad card %r" % (card,)
        buf, label = self._dest_buffer(dest)
        if buf is None:
            return label
        if DEALER < dest < BOARD and self.no_wager(dest - 1):
            # dealt to an empty spot: discarded, and play continues [FCP 11.4, BRS 6.9]
            return "S%d no wager" % dest
        if self._has_card(card):
            return cardlib.name(card) + _TWICE
        for i in range(len(buf)):
            if buf[i] == NO_CARD:
                buf[i] = card
                return ""
        return "%s full" % label

    def no_wager(self, seat):
        """True when seat index `seat` is known to have no wager: a game whose every hand
        needs an Ante (UTH [3.1]; Big Raise Stud's Risk bet [BRS 3.1]; Four Card Poker where
        the operator does not offer Aces Up alone [FCP 5.1], rules.aces_up_alone), Ante
        sensors fitted, the seat's Ante spot empty, sound and not marked on the panel, and no
        jackpot wager of its accepted (an Ante placed after LOCK is a late bet, not a wager of
        the round).  In a round resumed after a power cut no seat is refused (an older
        firmware's record may not say which seats had an Ante at LOCK); a seat the record says
        had none gets no Ante lines in the results (othergames)."""
        if self.game == FCP and self.aces_up_alone or not self.ante_sensors or self.marks_unknown:
            return False
        return not (self.ante_locked | self.ante_faults | self.rec.accepted) & (1 << seat)

    def _cards_of(self, buf):
        out = []
        for card in buf:
            if card != NO_CARD:
                out.append(card)
        return out

    def _hole(self, seat):
        start = seat * roundrecord.HOLE
        return self._cards_of(self.rec.hole[start:start + self.seat_cards])

    def _player_value(self, hole, board, rule=None):
        if (rule or self.hand_rule) == BEST5OF7:
            return hands.best5(hole + board)
        return hands.hole2_board3(hole, board)

    # ------------------------------------------------------------------ round steps

    def _lock(self):
        seats_ok = self.ante | self.ante_marked if self.ante_sensors else self.ante_marked
        accepted = 0
        # (as now: the LOCK commit may write a failing copy again, or fail one)
        is_open = self.jackpot_open()
        closed = screens.closed_text(self, "JACKPOT CLOSED")
        if is_open:
            accepted = self.placed & seats_ok & ~self.faults
        seats = [s + 1 for s in range(self.seats) if accepted & (1 << s)]
        amount = len(seats) * self.jackpot.config.wager
        mark = None
        try:
            if self.game != UTH:
                pass  # no progressive in this game: the local jackpot round is never opened
            elif self.tablelink is None:
                self.jackpot.contribute(self.rec.round_no, seats)
            else:
                # linked: the wagers go to the link controller's pool, not the frozen local one
                mark = self.linked.lock(seats, amount)
        except ValueError as error:
            self._beep(BEEP_ERROR)
            self._refuse("LOCK refused", error)
            return
        self.rec.accepted = accepted
        # (and the spots in fault then: unseen, their chips may have been down in time)
        self.ante_locked = seats_ok | self.ante_faults
        # the Antes go with the round: a resumed round still asks for their hands, and its
        # results, before a power cut and after, give a seat without one no Ante lines
        self.rec.marks = roundrecord.MARKS_KEPT | self.ante_locked
        if self.ante_sensors:
            self.rec.game |= roundrecord.ANTES_SENSED
        self._set_phase(LOCKED)
        if not self._commit(critical.STEP_LOCK, [(ev.LOCK, 0, accepted, amount)]):
            self._back_to(OPEN)
            self.rec.accepted = 0
            if mark is not None:
                self.linked.rollback(mark)
            return
        self._link_committed()
        self._beep(BEEP_OK)
        refused = self.placed & ~accepted
        # spots whose chip could not be seen: the jackpot spot, or the Ante of a seat with a
        # jackpot chip, in fault (the dealer must not read "0 wagers" as "no chips")
        self.unseen = self.faults
        if self.ante_sensors:
            faulted = (self.faults | self.placed & self.ante_faults & ~self.ante_marked) & ~accepted
        else:
            faulted = self.faults & ~accepted
        if self.game != UTH:
            self._say("No more bets", "")
        elif (refused or faulted) and not is_open:
            self._say(closed, "no wagers taken")
        elif faulted:
            self._say("Fault, no JP:", "seats " + self._seat_list(faulted))
        elif refused:
            self._say("No Ante, no JP:", "seats " + self._seat_list(refused))
        else:
            self._say("No more bets", "%d jackpot wager%s" % (len(seats), "" if len(seats) == 1 else "s"))
        self._refresh_meter()

    def _seat_list(self, mask):
        """The seats of mask as digits, ``1357``: seven seats fit a display line."""
        return "".join([str(s + 1) for s in range(SEATS) if mask & (1 << s)])

    def round_seats(self):
        """The seats this round deals to: the file's, and up to the last seat of a round
        locked before the file cut the seats that has a jackpot wager, an Ante marked on the
        panel (resumed: an Ante at LOCK, the record's marks) or cards (its hand is still to be
        dealt, folded or voided: _missing asks for it, and the cursor and card entry must
        reach it)."""
        seats = SEATS
        hole = self.rec.hole
        while seats > self.seats and not (self.rec.accepted | self.ante_marked) >> (seats - 1):
            start = (seats - 1) * roundrecord.HOLE
            for i in range(start, start + roundrecord.HOLE):
                if hole[i] != NO_CARD:
                    return seats
            seats -= 1
        return seats

    def _missing(self):
        """'' when the cards needed to settle are in, else what is missing, short enough to
        follow "need " on a display line (``flop 2/3``, ``seat 4 hand``, ``dealer 0/6``).

        UTH needs every jackpot seat's hole cards and the flop (the jackpot hand), and the turn
        and river too: the jackpot is paid only to a seat that made its Play wager [UTH 10.2],
        after the other wagers are settled [11.12], so not before the last decision (a seat
        can still fold at the river).  The other games need the dealer's or the board's cards
        and the whole hand of every seat dealt or with its Ante (Risk) chip sensed or marked
        on the panel (resumed: or in the record's marks, a spot in fault at LOCK too): a seat
        whose cards a power cut lost, or the shoe missed, would otherwise have no result
        line."""
        if self.game != UTH:
            for cards, want, label in ((self.rec.dealer, self.dealer_cards, "dealer"),
                                       (self.rec.board, self.board_cards, "board")):
                have = len(self._cards_of(cards))
                if have < want:
                    return "%s %d/%d" % (label, have, want)
            wagered = (self.ante & ~self.ante_faults if self.ante_sensors else 0) | self.ante_marked
            if not self.marks_unknown:
                wagered &= self.ante_locked     # an Ante placed after LOCK is not in the round
            for s in range(SEATS):  # (cards committed to a seat the file's seats dropped too)
                have = len(self._hole(s))
                bit = 1 << s
                if (have or wagered & bit) and have < self.seat_cards \
                        and not (self.rec.folded | self.rec.voided) & bit:
                    return "seat %d %d/%d" % (s + 1, have, self.seat_cards)
            return ""
        board = self._cards_of(self.rec.board)
        if len(board) < FLOP:
            return "flop %d/3" % len(board)
        for s in range(SEATS):      # (a jackpot seat the file's seats no longer count too)
            bit = 1 << s
            if self.rec.accepted & bit and not (self.rec.folded | self.rec.voided) & bit:
                if len(self._hole(s)) < self.seat_cards:
                    return "seat %d hand" % (s + 1)
        if len(board) < self.board_cards:
            return "board %d/%d" % (len(board), self.board_cards)
        return ""

    def _toggle_fold(self, seat):
        """Fold (or unfold) seat index `seat`.  A folded seat cannot win the jackpot [UTH
        10.2], nor read as a win on the results: once the round's cards are in critical
        memory (a seat void committed them), a fold is committed at once with the round, so
        that a power cut cannot resume the round with its cards, SETTLE again on the display,
        and no fold.  (Before that, a cut loses the cards with the fold, and the display asks
        for the cards again.)  When the commit fails the fold is undone and the dealer sees
        the fault."""
        bit = 1 << seat
        if self.rec.accepted & ~self.rec.voided & bit and self._confirmed():
            self._beep(BEEP_ERROR)
            self._say("Hands confirmed", "cannot fold")
            return
        self.rec.folded ^= bit
        if roundrecord.holds_cards(self.memory.section(SECTION_ROUND)):
            if self.commit_admin([], self._sections()):
                self.rec.folded ^= bit
                return
            self._link_committed()
        self.message = ""      # so the screen's own fold line shows at once, not in 4 s

    def _confirmed(self):
        """True when the supervisor's confirmation of this round's jackpot hands is committed
        (STEP_CONFIRM) and its payout is not: the boot after a power cut pays the hands as
        committed, unseen, so they must not change (a pay that failed, or a link that
        could not take the claim, leaves the round there until it is paid or void)."""
        return (self.memory.step == critical.STEP_CONFIRM
                and self.memory.round_no == self.rec.round_no)

    def _jackpot_hands(self):
        # every seat with a wager, one the file's seats no longer count too (a round locked
        # before they were cut): its committed cards, or _missing asks for them
        out = []
        for s in range(SEATS):
            bit = 1 << s
            if self.rec.accepted & bit and not self.rec.voided & bit:
                played = not self.rec.folded & bit
                out.append((s + 1, self._hole(s) if played else None, played))
        return out

    def _settle(self):
        missing = self._missing()
        if missing:
            self._beep(BEEP_ERROR)
            self._say("Cannot settle", missing)
            return
        if self.game != UTH:
            self.other_game.finish(self)
            return
        if self.linked_elsewhere():
            return
        flop = self._cards_of(self.rec.board)[:FLOP]
        own = self.own_pool()
        try:
            if own:
                plan = self.jackpot.preview(self.rec.round_no, self.wall, flop, self._jackpot_hands())
            else:
                plan = self.linked.plan(flop)
        except ValueError as error:
            self._beep(BEEP_ERROR)
            self._refuse("Cannot settle", error)
            return
        self.hits = plan.hits
        self.hits_estimated = not own
        self._make_results()
        if plan.hits:
            # The supervisor may take minutes to come: commit the round's cards first, so that
            # a power cut meanwhile resumes the round with them (SETTLE again, not re-keying).
            if self.commit_admin([], self._sections()):
                return
            self._set_phase(CONFIRM)
            self.confirm_top = 0
            self.message = ""
            self._beep(BEEP_JACKPOT)
            self._show_wins()       # on the sign at once, not when (if) the supervisor comes
            return
        self._pay(None)

    def _confirm(self):
        if not self.key_on:
            self._beep(BEEP_ERROR)
            self._say("Supervisor key", "needed to pay")
            return
        confirm = (ev.SUPERVISOR_CONFIRM, SUPERVISOR_ID, len(self.hits), 0)
        if not self._commit(critical.STEP_CONFIRM, [confirm]):
            return
        self._pay_confirmed()

    def _pay_confirmed(self):
        """Pay after the supervisor's confirmation (also when resuming after a power cut)."""
        self._make_results()
        self._pay(True)

    def own_pool(self):
        """True when this round's jackpot is the table's own pool: a standalone table's, or a
        linked table's round locked before the file linked it (its own pool's round is open:
        a linked table never opens one), finished as it began."""
        return self.tablelink is None or self.jackpot.open_round == self.rec.round_no

    def linked_elsewhere(self):
        """True, and the dealer told, when this UTH round was locked on the link and the file
        has made the table standalone since: its wagers are in the link's pool (the table's
        own has no round open), so it is neither settled nor voided here."""
        if self.tablelink is None and self.jackpot.open_round != self.rec.round_no:
            self._beep(BEEP_ERROR)
            self._say("Round was linked", "link table again")
            return True
        return False

    def _pay(self, confirmed):
        if not self.own_pool():
            self.linked.pay(confirmed)
            return
        flop = self._cards_of(self.rec.board)[:FLOP]
        before = list(self.jackpot.value)
        try:
            plan = self.jackpot.settle(self.rec.round_no, self.wall, flop, self._jackpot_hands())
        except ValueError as error:
            self._beep(BEEP_ERROR)
            self._refuse("Cannot settle", error)
            return
        events = []
        for hit in plan.hits:
            events.append((ev.JACKPOT_HIT, hit[jm.H_SEAT], hit[jm.H_HAND], ev.clamp(hit[jm.H_AMOUNT])))
            if hit[jm.H_ENVY_SEATS]:
                events.append((ev.JACKPOT_ENVY, hit[jm.H_SEAT], hit[jm.H_ENVY_SEATS],
                               hit[jm.H_ENVY_EACH]))
        for applied in plan.applied:
            # a pool change that waited for this hit takes effect now: logged as it happens
            for key, old, new in applied[1]:
                events.append((ev.CONFIG_CHANGE,) + jcfg.logged_change(self.jackpot.config, key,
                                                                       old, new))
        for slot, _, addition in plan.resets:
            if addition:
                # the reset money the reserve could not cover comes from the operator
                events.append((ev.OPERATOR_ADDITION, slot, 0, ev.clamp(addition)))
        events.append((ev.SETTLE, self.rec.folded, ev.clamp(plan.total_paid()),
                       ev.clamp(sum(self.jackpot.value))))
        self._set_phase(RESULTS)
        if not self._commit(critical.STEP_SETTLE, events):
            self._back_to(CONFIRM if confirmed is None and plan.hits else LOCKED)
            return
        self.hits = plan.hits
        self.message = ""
        self._make_results()
        if confirmed:
            self._show_wins(False)          # those shown waiting end: each paid one anew
        self._show_wins()                   # the envy bonuses are no wins on the sign
        if plan.hits:
            self._beep(BEEP_JACKPOT)
        elif before != self.jackpot.value:
            self._beep(BEEP_OK)
        self._refresh_meter()

    def _make_results(self):
        """One display line per seat with cards: hand name and the verdict against the dealer."""
        if self.game != UTH:
            self.other_game.results(self)
            return
        board = self._cards_of(self.rec.board)
        dealer = self._cards_of(self.rec.dealer)
        dealer_value = 0
        full = len(board) == self.board_cards and len(dealer) == self.dealer_cards
        lines = []
        if full:
            dealer_value = self._player_value(dealer, board)
            # [UTH 10.1] the dealer plays with a pair or better: below it every Ante pushes,
            # whatever the seats' verdicts say of their Play and Blind
            lines.append("D High Ante push" if hands.category(dealer_value) < hands.ONE_PAIR
                         else "D " + screens.short(hands.name(dealer_value)))
        # every seat with cards: one the file's seats no longer count too (a round locked
        # before they were cut), whose hand was settled and may have won an envy bonus
        for s in range(SEATS):
            bit = 1 << s
            hole = self._hole(s)
            if self.rec.voided & bit:
                lines.append("S%d void" % (s + 1))     # (its hand whole or not)
                continue
            if len(hole) < self.seat_cards:
                continue
            if len(board) < FLOP:
                if self.rec.folded & bit:
                    lines.append("S%d fold" % (s + 1))
                continue
            if self.rec.folded & bit:
                # Trips is still settled on a folded hand [UTH 10.3]: the dealer reads it here
                lines.append(screens.fold_line(s + 1, hands.name(
                    self._player_value(hole, board, self.trips_rule))))
                continue
            # the hand the seat holds on the board dealt, whether or not the dealer's cards
            # are in (a UTH round settles without them: the jackpot needs none)
            value = self._player_value(hole, board)
            verdict = ""
            if full:
                verdict = " W" if value > dealer_value else " L" if value < dealer_value else " T"
            lines.append(("S%d %s" % (s + 1, screens.short(hands.name(value))))[:WIDTH - 2] + verdict)
            if self.trips_rule not in (None, self.hand_rule):
                # Trips on the other hand rule: its hand on a line of its own (S2 Trips Flush)
                lines.append("S%d Trips %s" % (s + 1, screens.tiny(screens.short(hands.name(
                    self._player_value(hole, board, self.trips_rule))))))
        for hit in self.hits:
            lines.extend(screens.paid_lines("JP", hit[jm.H_SEAT], ("~" if self.hits_estimated
                                                                    else "") + money(hit[jm.H_AMOUNT])))
            envied = hit[jm.H_ENVY_SEATS]
            for s in range(SEATS):
                if envied & (1 << s):
                    lines.extend(screens.paid_lines("envy", s + 1, money(hit[jm.H_ENVY_EACH])))
        self.results = lines

    # ------------------------------------------------------------------ supervisor

    def _open_audit(self):
        """Open the audit menu (firmware.table.audit.open_menu), loading its module.  When
        it cannot be loaded or built (a full heap) the supervisor is told why and the table
        stays as it was."""
        try:
            from firmware.table import audit  # loaded while the menu is open (_close_audit)

            menu = audit.open_menu(self)
        except Exception as error:  # noqa: BLE001 - a refusal on the display, never a dead loop
            self._forget_audit()
            self._beep(BEEP_ERROR)
            self._refuse("Audit not opened", error)
            return
        self.menu = menu
        self.menu_top = 0
        self._set_phase(AUDIT)

    def _close_audit(self):
        """Back to OPEN from the audit menu.  The menu and its module are let go: the audit
        takes room in the heap only while a supervisor has it open."""
        self.menu = []
        self._set_phase(OPEN)
        self._forget_audit()

    def _forget_audit(self):
        # the menu's module and the names it loaded for people (a later use loads them again)
        from firmware.heap import forget

        for name in ("firmware.table.audit", "firmware.store.eventnames",
                     "firmware.jackpot.meternames"):
            forget(name)

    def _top_slot(self):
        """The pool whose reset amount the menu sets: the only pool, or the Major pool."""
        return jcfg.MAJOR if self.jackpot.config.split else jcfg.MAIN

    def _config_value(self, key):
        config = self.jackpot.requested_config()
        if key == "wager":
            return config.wager
        return config.pools[self._top_slot()].reset

    def _config_pending(self, key):
        """True when the menu's value for key waits for the pool's next hit to apply."""
        if key == "wager":
            return False
        return self._config_value(key) != self.jackpot.config.pools[self._top_slot()].reset

    # ------------------------------------------------------------------ view

    def _sign_line(self, slot):
        slots = self.view.meter_slots
        for i in range(len(slots)):
            if slots[i] == slot:
                return i
        return 0

    def _refresh_meter(self):
        view = self.view
        if self.jackpot is None:
            # no pool is known (-1): the sign shows the fault alone, never "0.00" for a pool
            # that may hold thousands (the RAM clear resets it; a linked one lives on)
            view.meter_fault = "RAM Err"
            view.meter_slots = (0,)
            view.meter[0] = -1
        elif self.game != UTH:
            view.meter_slots = ()  # no progressive at this game: the sign shows no pool
            view.meter_fault = self._meter_fault()
        else:
            view.meter_slots = self.jackpot.active_slots()
            if self.tablelink is None:
                # a linked table without its link: no amount, its local pool is frozen
                for slot in view.meter_slots:
                    view.meter[slot] = -1 if self.link_required else self.jackpot.value[slot]
            else:
                # a new link has heard no pool yet: no amount (-1), never 0.00 (or a count up
                # from it once the pool is heard, as if it had been reset)
                amounts = self.tablelink.amounts()
                known = self.tablelink.pool_known
                for i in range(len(view.meter_slots)):
                    view.meter[view.meter_slots[i]] = amounts[i] if known and i < len(amounts) else -1
            view.meter_fault = self._meter_fault()
        self._render()

    def _meter_fault(self):
        """The text the meter sign alternates with the amount ('' for none)."""
        if not self.program_ok:
            return "PrOG Err"
        if not self.config_ok or self._linked_option():
            return "CONF Err"
        if not self.memory.whole:
            return "MEM Err"
        if self.parts_down & DISPLAY:
            return "dISP Err"
        if self.link_required and not self.link_up:
            if self.tablelink is not None and self.tablelink.fault_text():
                return self.tablelink.fault_text()
            return "LINK dn"
        return ""

    def _render(self):
        self.view.version += 1
        self._stale = True
        if not self.batch:
            self.draw()

    def draw(self):
        """Draw the view's seat lights and lines for the present state, if an event changed
        it since they were last drawn (the App, once a loop pass: batch)."""
        if not self._stale:
            return
        self._stale = False
        for s in range(self.seats):
            self.view.seat_light[s] = screens.seat_light(self, s)
        screens.render_lines(self)
