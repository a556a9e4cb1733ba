"""What each dealer-panel button does in each phase of the round (one function per phase).

Each handler takes the RoundController, the button and whether it was a long press, and
calls the controller's round steps; ``HANDLERS[phase]`` picks the one in force.
"""

from firmware.drivers import buttons as btn
from firmware.poker import cards as cardlib
from firmware.table.phases import (
    BEEP_ERROR,
    BEEP_OK,
    BOARD,
    CARD_ENTRY,
    CONFIG,
    CONFIG_ITEMS,
    LINES,
    LOCKED,
    OPEN,
    RAM_CLEAR,
    RAM_ERROR,
    TEST,
)


def _on_open(c, button, long):
    if c.key_on and long:
        if button == btn.OK:
            c._open_audit()
            return
        if button == btn.SETTLE:
            c.config_index = 0
            c._set_phase(CONFIG)
            return
        if button == btn.LOCK:
            c.test_step = 0
            c._set_phase(TEST)
            return
    if long:
        return
    if button == btn.LOCK:
        c._lock()
    elif button == btn.UP:
        c.cursor = (c.cursor + 1) % c.seats
    elif button == btn.DOWN:
        c.cursor = (c.cursor - 1) % c.seats
    elif button == btn.OK:
        c.ante_marked ^= 1 << c.cursor


def _on_locked(c, button, long):
    if button == btn.BACK and c.key_on:
        if long:
            c._void_round()
        else:
            c._void_seat(c.cursor)
        return
    if long:
        if button == btn.OK:
            c.entry[0] = c.cursor + 1
            c._set_phase(CARD_ENTRY)
        return
    if button == btn.SETTLE:
        c._settle()
    elif button == btn.UP:
        c.cursor = (c.cursor + 1) % c.seats
    elif button == btn.DOWN:
        c.cursor = (c.cursor - 1) % c.seats
    elif button == btn.OK:
        c.rec.folded ^= 1 << c.cursor


def _on_confirm(c, button, long):
    if button == btn.OK:
        c._confirm()
    elif button == btn.BACK and c.key_on and long:
        c._void_round()


def _on_results(c, button, long):
    if button == btn.SETTLE or button == btn.OK:
        c._new_round()


def _on_ram_error(c, button, long):
    if c.key_on and long and button == btn.OK:
        c._set_phase(RAM_CLEAR)


def _on_ram_clear(c, button, long):
    if button == btn.BACK:
        c._set_phase(RAM_ERROR)
    elif button == btn.OK and not long:
        if not c.key_on:
            c._say("Supervisor key", "needed")
            return
        c._ram_clear()


def _on_audit(c, button, long):
    if button == btn.BACK:
        c._set_phase(OPEN)
    elif button == btn.DOWN:
        c.menu_top = min(c.menu_top + (LINES if long else 1), max(0, len(c.menu) - LINES))
    elif button == btn.UP:
        c.menu_top = max(0, c.menu_top - (LINES if long else 1))


def _on_config(c, button, long):
    if button == btn.BACK:
        c._set_phase(OPEN)
    elif not c.key_on:
        c._say("Supervisor key", "needed")
    elif button == btn.DOWN:
        c.config_index = (c.config_index + 1) % len(CONFIG_ITEMS)
    elif button == btn.UP:
        c.config_index = (c.config_index - 1) % len(CONFIG_ITEMS)
    elif button == btn.OK:
        c._apply_config(c.config_index)


def _on_test(c, button, long):
    if button == btn.BACK:
        c._set_phase(OPEN)
    elif button == btn.OK:
        c.test_step += 1


def _on_card_entry(c, button, long):
    entry = c.entry
    if button == btn.BACK:
        c._set_phase(LOCKED)
    elif button == btn.UP or button == btn.DOWN:
        step = 1 if button == btn.UP else -1
        field = c.config_index % 3
        if field == 0:
            entry[0] = (entry[0] + step) % (BOARD + 1)
        elif field == 1:
            entry[1] = (entry[1] + step) % 13
        else:
            entry[2] = (entry[2] + step) % 4
    elif button == btn.OK:
        c.config_index = (c.config_index + 1) % 3
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
