"""What each dealer-panel button does in each phase of the round (one function per phase).

Each handler takes the RoundController, the button and whether it was a long press, and
calls the controller's round steps; ``HANDLERS[phase]`` picks the one in force.

When a handler is called is the controller's business (RoundController.panel): a button
listed in ``LONG_ACTIONS`` for the phase and key state is called once, with long=True when
it was held (the Panel's LONG) or long=False when it was let go sooner (its RELEASE); any
other button is called on its PRESS, once.  UP and DOWN are called on PRESS, LONG and each
REPEAT, until the phase changes or another button is pressed.  So a long press never does
the short action first.
"""

from firmware.compat import const
from firmware.drivers import buttons as btn
from firmware.drivers.ticks import ticks_diff
from firmware.poker import cards as cardlib
from firmware.table import screens
from firmware.table.phases import (
    BEEP_ERROR,
    BEEP_OK,
    BOARD,
    CARD_ENTRY,
    CONFIG,
    CONFIG_ITEMS,
    CONFIRM_HITS,
    DEALER,
    LOCKED,
    OPEN,
    RAM_CLEAR,
    RAM_ERROR,
    TEST,
    UTH,
)

_LOCK = 1 << btn.LOCK
_SETTLE = 1 << btn.SETTLE
_OK = 1 << btn.OK
_BACK = 1 << btn.BACK

# Per phase, (key off, key on): the buttons (bit per button) with a long action.  Their
# short action waits for the release, so that holding them never does it first.
LONG_ACTIONS = (
    (_SETTLE, _LOCK | _SETTLE | _OK | _BACK),   # OPEN: long SETTLE last results; key + long
                                        # LOCK test, SETTLE config, OK audit, BACK link reconcile
    (_OK, _OK | _BACK),             # LOCKED: long OK card entry; key + long BACK void round
    (0, _BACK),                     # CONFIRM: key + long BACK void round
    (0, 0),                         # RESULTS
    (0, _OK),                       # RAM ERROR: key + long OK RAM clear
    (0, 0),                         # RAM CLEAR
    (0, 0),                         # AUDIT
    (0, 0),                         # CONFIG
    (0, 0),                         # TEST
    (0, 0),                         # CARD ENTRY
)
# Card entry fields, in the order OK steps through them.
_FIELD_DEST = const(0)
_FIELD_RANK = const(1)
_FIELD_SUIT = const(2)
# loaded for each supervisor action (supervised)
_SUPERVISOR_MODULE = const("firmware.table.supervisor")
_FIELDS = const(3)
_OK_TWICE_MS = const(500)   # an OK this soon after the OK in RESULTS that began the round: a double tap


def supervised(c, action, *args):
    """Run firmware.table.supervisor's `action` on the controller c (with args): the module
    is loaded for the call and let go after, so a supervisor's rare actions take no heap
    while the table plays.  When it cannot be loaded (a full heap) the action is refused
    with the reason and nothing changes: the supervisor presses again."""
    from firmware.heap import forget

    try:
        from firmware.table import supervisor
    except Exception as error:  # noqa: BLE001 - a refusal on the display, never a dead loop
        forget(_SUPERVISOR_MODULE)
        c._beep(BEEP_ERROR)
        c._refuse("Cannot load", error)
        return None
    try:
        return getattr(supervisor, action)(c, *args)
    finally:
        forget(_SUPERVISOR_MODULE)


def long_buttons(c):
    """Bit mask of the buttons whose long press means something now (phase and key)."""
    return LONG_ACTIONS[c.phase][1 if c.key_on else 0]


def _on_open(c, button, long):
    began, c.ok_began = c.ok_began, None
    if c.key_on and long:
        if button == btn.OK:
            c._open_audit()
            return
        if button == btn.SETTLE:
            if c.game != UTH:
                c._say("No jackpot on", "this game")
                return
            c.config_index = 0
            c.clock_edit = None     # (left by RAM ERROR, not BACK: not opened again)
            c._set_phase(CONFIG)
            return
        if button == btn.LOCK:
            c.test_step = 0
            c.test_button = -1
            c._set_phase(TEST)
            return
        if button == btn.BACK:
            if c.linked is None:
                c._say("No link", "at this table")
            else:
                c.linked.clear_mismatch()
            return
    if long:
        if button == btn.SETTLE:
            c.recall_results()      # hold SETTLE: the last round's results again
        return
    if button == btn.LOCK:
        c._lock()
    elif button == btn.UP:
        c.cursor = (c.cursor + 1) % c.seats
    elif button == btn.DOWN:
        c.cursor = (c.cursor - 1) % c.seats
    elif button == btn.OK:
        if began is not None and ticks_diff(c.now_ms, began) < _OK_TWICE_MS:
            # the second tap of a double tap on OK in RESULTS: no Ante mark the dealer did
            # not see made (a marked seat's jackpot chip is accepted at LOCK [UTH 11.1])
            c._say("New round: OK", "again marks ante")
            return
        c.ante_marked ^= 1 << c.cursor


def _on_locked(c, button, long):
    if button == btn.BACK and c.key_on:
        if long:
            supervised(c, "void_round")
        else:
            supervised(c, "void_seat", c.cursor)
        return
    if long:
        if button == btn.OK:
            c.entry[0] = c.cursor + 1
            c.entry_field = _FIELD_DEST
            c._set_phase(CARD_ENTRY)
        return
    if button == btn.SETTLE:
        c._settle()
    elif button == btn.UP:
        c.cursor = (c.cursor + 1) % c.round_seats()
    elif button == btn.DOWN:
        c.cursor = (c.cursor - 1) % c.round_seats()
    elif button == btn.OK:
        if c.rec.voided & 1 << c.cursor:
            c._say("Seat %d is void" % (c.cursor + 1), "cannot fold")
        else:
            c._toggle_fold(c.cursor)


def _on_confirm(c, button, long):
    if button == btn.OK:
        c._confirm()
    elif button == btn.DOWN:
        # more jackpot hands than the screen lists: each is seen before it is confirmed
        c.confirm_top = min(c.confirm_top + 1, max(0, len(c.hits) - CONFIRM_HITS))
    elif button == btn.UP:
        c.confirm_top = max(0, c.confirm_top - 1)
    elif button == btn.LOCK:
        # a hand to correct (a fold not made, a card misread): back to the locked round
        supervised(c, "send_back")
    elif button == btn.BACK and c.key_on:
        if long:
            supervised(c, "void_round")
        else:
            # the jackpot hands are being checked: a seat cannot leave the round now
            c._say("Seat void only", "before SETTLE")


def _on_results(c, button, long):
    if button == btn.SETTLE or button == btn.OK:
        c._new_round()
        if button == btn.OK:
            c.ok_began = c.now_ms
    elif button == btn.BACK and c.key_on:
        c._say("Round settled:", "too late to void")
    elif button == btn.DOWN:
        c.results_top = min(c.results_top + 1, max(0, len(c.results) - screens.RESULT_LINES))
    elif button == btn.UP:
        c.results_top = max(0, c.results_top - 1)


def _on_ram_error(c, button, long):
    if c.key_on and long and button == btn.OK:
        if c.code_fault:
            # the memory is good: a RAM clear would wipe its round and meters, mending nothing
            c._refuse("RAM clear failed", c.code_fault)
        elif c.config_ok:
            c._set_phase(RAM_CLEAR)
        else:
            # the reset values would be the defaults', not the file's (nor a link ledger kept)
            c._say("CONFIG ERROR", "no RAM clear")


def _on_ram_clear(c, button, long):
    if button == btn.BACK:
        c._set_phase(RAM_ERROR)
    elif button == btn.OK and not long:
        if not c.key_on:
            c._say("Supervisor key", "needed")
            return
        supervised(c, "ram_clear")


def _on_audit(c, button, long):
    rows = screens.menu_rows(c)
    if button == btn.BACK:
        c._close_audit()
    elif button == btn.OK:
        # the next section (meters, hits, events ...): the event log is long to scroll through
        c.menu_top = c.menu.next_mark(c.menu_top, rows)
    elif button == btn.DOWN:
        # a page: the lines under the title, which stays on the top line
        c.menu_top = min(c.menu_top + (rows - 1 if long else 1), max(0, len(c.menu) - rows))
    elif button == btn.UP:
        c.menu_top = max(0, c.menu_top - (rows - 1 if long else 1))


def _on_config(c, button, long):
    # the items, then the clock (config_index len(CONFIG_ITEMS): OK edits it, c.clock_edit)
    if button == btn.BACK:
        if c.clock_edit is None:
            c._set_phase(OPEN)
        c.clock_edit = None         # (the clock being set: left as it was)
    elif not c.key_on:
        c._say("Supervisor key", "needed")
    elif c.clock_edit is not None:
        supervised(c, "edit_clock", button)
    elif button == btn.DOWN:
        c.config_index = (c.config_index + 1) % (len(CONFIG_ITEMS) + 1)
    elif button == btn.UP:
        c.config_index = (c.config_index - 1) % (len(CONFIG_ITEMS) + 1)
    elif button == btn.OK:
        supervised(c, "apply_config", c.config_index)


def _on_test(c, button, long):
    c.test_button = button          # named on the screen: every button is tested too
    c.message = ""                  # (a message would cover the button's line)
    if button == btn.BACK:
        c._set_phase(OPEN)
    elif button == btn.OK:
        c.test_step += 1


def _next_dest(c, dest, step):
    """The next card destination UP/DOWN reach from dest: the dealer (0) and the board (8)
    when the game deals them, the table's seats; never a seat the table does not have."""
    while True:
        dest = (dest + step) % (BOARD + 1)
        if dest == DEALER:
            if c.dealer_cards:
                return dest
        elif dest == BOARD:
            if c.board_cards:
                return dest
        elif dest <= c.round_seats():
            return dest


def _on_card_entry(c, button, long):
    entry = c.entry
    if button == btn.BACK:
        c._set_phase(LOCKED)
    elif button == btn.UP or button == btn.DOWN:
        step = 1 if button == btn.UP else -1
        field = c.entry_field
        if field == _FIELD_DEST:
            entry[0] = _next_dest(c, entry[0], step)
        elif field == _FIELD_RANK:
            entry[1] = (entry[1] + step) % len(cardlib.RANKS)
        else:
            entry[2] = (entry[2] + step) % len(cardlib.SUITS)
    elif button == btn.OK:
        c.entry_field = (c.entry_field + 1) % _FIELDS
    elif button == btn.SETTLE:
        supervised(c, "remove_card", entry[0])  # the supervisor's: the destination's last card
    elif button == btn.LOCK:
        problem = c._add_card(entry[0], cardlib.make(entry[1], entry[2]))
        if problem:
            c._beep(BEEP_ERROR)
            c._say("Card refused", problem)
        else:
            c._beep(BEEP_OK)
            c._say("Added " + cardlib.name(cardlib.make(entry[1], entry[2])), "")


HANDLERS = (_on_open, _on_locked, _on_confirm, _on_results, _on_ram_error, _on_ram_clear,
             _on_audit, _on_config, _on_test, _on_card_entry)
