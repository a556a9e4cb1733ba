"""The supervisor's rare actions on the round (key on): void the round or a seat, step a
configuration item, RAM clear, send the jackpot hands back to the locked round, take a card
out of it.

Each function takes the RoundController `c`.  The panel handlers load this module for one
action and let it go after (firmware.table.handlers.supervised): these actions come a few
times a shift, so their code takes no room in the heap while the table plays.
"""

from firmware.compat import const
from firmware.drivers import buttons as btn
from firmware.heap import NotLoaded
from firmware.jackpot import config as jcfg
from firmware.jackpot import meters as jm
from firmware.jackpot import pools
from firmware.jackpot import record as jprecord
from firmware.poker import cards as cardlib
from firmware.store import critical
from firmware.store import eventlog as ev
from firmware.table import roundrecord
from firmware.table.controller import SECTION_JACKPOT, SECTION_LINK, SECTION_ROUND
from firmware.table.phases import (
    BEEP_ERROR,
    BEEP_OK,
    CONFIG_ITEMS,
    LOCKED,
    RAM_ERROR,
    RESULTS,
    SUPERVISOR_ID,
    UTH,
    WIDTH,
)
from firmware.table.roundrecord import NO_CARD
from firmware.table.screens import money

_DAY = const(86400)
# The CONFIG_CHANGE setting id of the clock set by the supervisor (set_clock): after the menu's
# items (1, 2), before the jackpot keys' (firmware.jackpot.config.SETTING_BASE); audit.py's
# _CLOCK_SETTING.  Private consts: a name more in phases' globals left the audit menu no
# 2,560-byte piece of a heap a round of play has fragmented (table_bench, supervisor mid-run)
_CLOCK_SETTING = const(99)
# the clock's fields a supervisor may set, (low, high): year, month, day, hour, minute, second
# (the day also within its month: _month_days); a table never set reads before the first year
_CLOCK_RANGES = const(((2025, 2099), (1, 12), (1, 31), (0, 23), (0, 59), (0, 59)))


def void_round(c):
    """Void the round (a misdeal): every accepted jackpot wager returned, the round ended
    (STEP_VOID)."""
    mark = None
    if c.game == UTH and c.linked_elsewhere():
        return
    try:
        if c.game != UTH:
            amount = 0      # no progressive in this game: no jackpot round to reverse
        elif c.own_pool():
            amount = c.jackpot.void_round(c.rec.round_no).amount
        else:
            amount, mark = c.linked.void_round()
    except ValueError as error:
        c._refuse("Void refused", error)
        return
    phase = c.phase     # LOCKED, or CONFIRM: a void that fails leaves the hands waiting there
    c._set_phase(RESULTS)
    # the seats whose wagers this returns: a seat voided before was logged with its own void
    returned = c.rec.accepted & ~c.rec.voided
    if not c._commit(critical.STEP_VOID, [(ev.VOID, 0, returned, -amount)]):
        c._back_to(phase)
        if mark is not None:
            c.linked.rollback(mark)
        return
    c._link_committed()
    c._beep(BEEP_OK)
    c.message = ""
    c.results = ["ROUND VOID", "wagers returned"]
    c._show_wins(False)     # a win shown waiting at CONFIRM is taken off the sign
    c.hits = []
    c._refresh_meter()


def void_seat(c, seat):
    """Void one seat (0-based) of the locked round: its jackpot wager returned, committed
    with the round.  Refused once the round's jackpot hands are confirmed (c._confirmed):
    the boot after a power cut pays them as confirmed."""
    if not may_correct(c, "to void a seat", ("Hands confirmed", "cannot void seat")):
        return
    bit = 1 << seat
    if c.rec.voided & bit:
        c._say("Seat %d" % (seat + 1), "already void")
        return
    if c.rec.accepted & bit and c.linked_elsewhere():
        return
    mark = None
    if c.rec.accepted & bit:
        try:
            if c.own_pool():
                amount = -c.jackpot.void_seat(c.rec.round_no, seat + 1).amount
            else:
                amount, mark = c.linked.void_seat()
        except ValueError as error:
            c._refuse("Void refused", error)
            return
    else:
        amount = 0
    folded = c.rec.folded
    c.rec.voided |= bit
    c.rec.folded &= ~bit    # its wagers returned, not lost to a fold (the settle's folds)
    if not c._log_admin(ev.VOID, seat + 1, bit, amount, c._sections()):
        c.rec.voided &= ~bit
        c.rec.folded = folded
        if mark is not None:
            c.linked.rollback(mark)
        return
    c._link_committed()
    c._beep(BEEP_OK)
    c._say("Seat %d void" % (seat + 1), "wager returned" if amount else "")
    c._refresh_meter()


def apply_config(c, index):
    """Step the configuration item `index` (CONFIG_ITEMS) to its next choice and commit it
    with the jackpot (refused on a linked table or with chips on the jackpot spots); the
    index after them starts setting the clock (edit_clock)."""
    if index == len(CONFIG_ITEMS):
        if c.tablelink is not None:
            c._beep(BEEP_ERROR)
            c._say("Linked table:", "clock from NTP")
        else:       # from the table's time (a board's never set: 2025), to the minute
            first = days(_CLOCK_RANGES[0][0], 1, 1) * _DAY
            c.clock_edit = list(date_of(max(c.wall, first))[:5]) + [0]
        return
    if c.tablelink is not None or c.link_required:     # (without its link: pool frozen)
        c._beep(BEEP_ERROR)
        c._say("Linked table:", "set at the link")
        return
    if c.placed:
        # a chip on a jackpot spot is a wager for this round, at the old settings
        c._beep(BEEP_ERROR)
        c._say("Chips on spots:", "clear them first")
        return
    label, key, choices = CONFIG_ITEMS[index]
    old = c._config_value(key)
    at = choices.index(old) if old in choices else -1
    refused = None
    # the next choice the configuration takes: one it refuses (a reset over the ceiling) is
    # passed over, so that no choice is a wall the menu cannot step past
    for i in range(1, len(choices) + 1):
        new = choices[(at + i) % len(choices)]
        if new == old:
            break
        if key == "wager":
            changes = {"wager": new}
        else:
            changes = {jcfg.POOL_KEYS[c._top_slot()]: {"reset": new}}
        try:
            c.jackpot.set_config(changes)
            refused = None
            break
        except NotLoaded as error:      # no heap for the checks' code: try again later
            refused = error
            break
        except ValueError as error:
            refused = refused or error
    else:
        new = old
    if refused is not None or new == old:
        c._beep(BEEP_ERROR)
        c._refuse("Config refused", refused or "no other value")
        why = str(refused)
        if why.startswith("config ") and ":" in why:
            # not "config main.ceil" (the reason cut): the setting in the way, whole (the
            # service's status has the reason in full)
            why = "see " + why[7:].split(":")[0]
            c._say("Config refused", why if len(why) <= WIDTH else why[4:])
        return
    try:
        sections = c.jackpot_sections()
    except MemoryError as error:    # no heap for the record it makes: refused, as committed
        c._store_failed(error)
        return
    # logged by its key (wager, main.reset, major.reset), as the service logs it and as a
    # change that waits for a hit is logged when it takes effect: one setting, one name in
    # the log (firmware before the seventeenth session logged the menu's item, 1 or 2)
    logged = jcfg.logged_change(c.jackpot.config, key if key == "wager" else
                                jcfg.POOL_KEYS[c._top_slot()] + ".reset", old, new)
    if c._log_admin(ev.CONFIG_CHANGE, logged[0], logged[1], logged[2], sections):
        c._beep(BEEP_OK)
        when = "after next hit" if c._config_pending(key) else "from now on"
        c._say("%s %s" % (label, money(new)), when)


def ram_clear(c):
    """The RAM clear the supervisor accepted: a fresh jackpot and round committed to
    critical memory (CriticalMemory.ram_clear); a linked table keeps the link's ledger."""
    # the pools start at their reset amounts (operator additions); at a game without the
    # progressive, whose RAM CLEAR screen says "no jackpot pool", at nothing.  The file's
    # game, not that of a round kept from before the file changed: the clear ends that round
    jp = pools.Jackpot(c.jackpot_config, c.file_game == UTH)
    rec = roundrecord.RoundRecord()
    rec.game = c._game_code()   # the game known from the first round on, though the file goes
    try:
        sections = {SECTION_JACKPOT: jprecord.encode(jp), SECTION_ROUND: roundrecord.encode(rec)}
        if c.tablelink is not None:
            # the link's ledger is not the table's to reset: keep what the link knows
            sections[SECTION_LINK] = c.tablelink.section()
        elif c.link_factory is not None or c.link_required or (
                c.game_unknown and c.memory.section(SECTION_LINK) is not None):
            # the boot stopped at a bad record before it built the link, or there is no file
            # to build it from: the link's committed ledger (unacknowledged entries, claims
            # waiting to be paid, its numbers) is kept all the same, when it is readable
            from firmware.link.tablelink import section_ok
            kept = c.memory.section(SECTION_LINK)
            if section_ok(kept):
                sections[SECTION_LINK] = kept
        c.fit_record(jp)    # the buffers its configuration's record needs: or refused now
        # the pools' seed, operator additions on the meters: the RAM clear's entry says how
        # much, so the log accounts for them (a linked table's local pools, frozen while the
        # link pays its jackpots, included)
        c.memory.ram_clear(sections, c.wall, SUPERVISOR_ID, True, 0, sum(jp.value))
    except Exception as error:  # noqa: BLE001
        c._refuse("RAM clear failed", error)
        c._set_phase(RAM_ERROR)
        return
    c.jackpot = jp
    c.rec = rec
    c.results = []
    c.last_results = None   # the results before it are gone: no round to recall
    if c.tablelink is not None:
        c.tablelink.saved()
    elif c.link_factory is not None:
        c.link_required = True  # a link that cannot be built never opens the local pool
        try:
            c._start_link()
        except (ValueError, NotLoaded) as error:    # NotLoaded: its code (a damaged .mpy)
            c._refuse("Link failed", error)
    elif SECTION_LINK in sections:
        c.link_required = True  # a linked table without its file: closed until it is back
        c.link_up = False
    c._new_round()
    c._beep(BEEP_OK)
    c._say("RAM cleared", "pool reset" if c.game == UTH else "")
    c._refresh_meter()


def may_correct(c, need_key, confirmed):
    """True when the supervisor may correct the round: the key is on (else the dealer is
    told it is needed `need_key`) and the hands are not confirmed yet (else the two lines
    `confirmed` say why not)."""
    if not c.key_on:
        c._beep(BEEP_ERROR)
        c._say("Supervisor key", need_key)
        return False
    if c._confirmed():
        c._beep(BEEP_ERROR)
        c._say(*confirmed)
        return False
    return True

def send_back(c):
    """CONFIRM, the supervisor's key and LOCK: the jackpot hands are not paid but sent
    back to the locked round, where the dealer corrects a fold or a card (card entry) and
    settles again, and SETTLE checks the hands anew.  Logged first (JACKPOT_SENT_BACK,
    with the seats and what they would have been paid); nothing else was committed for
    CONFIRM but the round's cards, so nothing is undone."""
    # once OK was pressed and committed a power cut pays these hands, so they cannot go
    # back unpaid (the supervisor pays them with OK again, or voids the round)
    if not may_correct(c, "to send back", ("Confirmed:", "OK pays or void")):
        return
    seats, total = 0, 0
    for hit in c.hits:
        seats |= 1 << (hit[jm.H_SEAT] - 1)
        total += hit[jm.H_AMOUNT]
    if not c._log_admin(ev.JACKPOT_SENT_BACK, SUPERVISOR_ID, seats, ev.clamp(total)):
        return
    c._show_wins(False)     # the wins shown waiting are taken off the sign
    c.hits = []
    c.results = []
    c._set_phase(LOCKED)
    c._beep(BEEP_OK)
    c._say("Not paid: fix", "then SETTLE")

def remove_card(c, dest):
    """Card entry, the supervisor's key and SETTLE: the last card given to dest (0
    dealer, 1..7 a seat, 8 the board) is taken out of the round, a misread or mistyped
    card.  Committed with the round's cards and logged (CARD_REMOVED) at once, so that a
    power cut cannot bring it back; when that fails the card stays."""
    if not may_correct(c, "to remove a card", ("Hands confirmed", "cannot change")):
        return
    buf, label = c._dest_buffer(dest)
    last = -1
    if buf is not None:
        for i in range(len(buf)):
            if buf[i] != NO_CARD:
                last = i
    if last < 0:
        c._beep(BEEP_ERROR)
        c._say("Nothing to undo", label if buf is None else label + " is empty")
        return
    card = buf[last]
    buf[last] = NO_CARD
    if c.commit_admin([(ev.CARD_REMOVED, dest, card, 0)], c._sections()):
        buf[last] = card
        return
    c._link_committed()
    c._beep(BEEP_OK)
    c._say("Removed " + cardlib.name(card), label)


def days(year, month, day):
    """Days from 1970-01-01 to a date of the Gregorian calendar."""
    if month < 3:
        year -= 1       # (counted in years from March: the leap day ends one)
        month += 12
    return 365 * year + year // 4 - year // 100 + year // 400 + (153 * month - 457) // 5 + day - 719469


def _month_days(year, month):
    return days(year + month // 12, month % 12 + 1, 1) - days(year, month, 1)


def date_of(seconds):
    """(year, month, day, hour, minute, second) of seconds since 1970, UTC."""
    d, t = divmod(seconds, _DAY)
    year = 1970 + d // 366
    while days(year + 1, 1, 1) <= d:
        year += 1
    month = 1
    while month < 12 and days(year, month + 1, 1) <= d:
        month += 1
    return (year, month, d - days(year, month, 1) + 1, t // 3600, t // 60 % 60, t % 60)


def iso(seconds):
    """Seconds since 1970 as a UTC time, ``2026-12-01T04:30:00``."""
    return "%04d-%02d-%02dT%02d:%02d:%02d" % date_of(seconds)


def set_clock(c, fields):
    """The supervisor sets the table's clock to `fields`, a UTC (year, month, day, hour,
    minute, second): logged (CONFIG_CHANGE of _CLOCK_SETTING, b the seconds it moved, c 1 where
    the table did not know the time), and the times logged from it known from then on, as
    NTP makes them.  ValueError names what cannot be: a date that does not exist, a time of
    day out of range, a time before the log's newest (its times never go back).  Returns ''
    once committed, else why not (the clock as it was)."""
    year, month, day, hour, minute, second = fields
    for i, name in ((0, "year"), (1, "month"), (3, "hour"), (4, "minute"), (5, "second")):
        low, high = _CLOCK_RANGES[i]
        if not low <= fields[i] <= high:
            raise ValueError("%s %d is not %d..%d" % (name, fields[i], low, high))
    last = _month_days(year, month)
    if not 1 <= day <= last:
        raise ValueError("day %d is not 1..%d in %04d-%02d" % (day, last, year, month))
    when = days(year, month, day) * _DAY + hour * 3600 + minute * 60 + second
    m = c.memory
    newest = m.log.count - 1
    if newest >= 0:
        for raw in m.log.entries(newest):
            if raw is None:
                raise ValueError("the log's newest entry #%d cannot be read" % newest)
            then = ev.unpack(raw)[1]
            if when < then:
                raise ValueError("%s is before the log's newest time, %s (entry #%d): its "
                                 "times never go back" % (iso(when), iso(then), newest))
    saved = (m.clock_shift, m.clock_unsure, m.clock_known)
    moved = when - c.wall
    c.clock_set(m.clock_shift + moved)
    problem = c.commit_admin([(ev.CONFIG_CHANGE, _CLOCK_SETTING, ev.clamp(moved),
                               1 if saved[1] else 0)])
    if problem:
        m.clock_shift, m.clock_unsure, m.clock_known = saved
        c._clock(c._wall_in)
    return problem


def edit_clock(c, button):
    """CONFIG's clock being set (c.clock_edit): UP/DOWN step the field, OK goes to the next
    one, and on the minute sets the clock to it (set_clock, at second 0)."""
    e = c.clock_edit
    field = e[5]
    if button == btn.OK:
        if field < 4:
            e[5] += 1
            return
        c.clock_edit = None
        try:
            problem = set_clock(c, e[:5] + [0])
        except ValueError as error:     # before the log's newest time (or that unreadable)
            c._beep(BEEP_ERROR)
            c._refuse("Clock refused", error)
            c._say("Clock refused:", "before the log" if "before" in str(error) else "log unread")
            return
        if not problem:
            c._beep(BEEP_OK)
            c._say("Clock set", "%02d:%02d UTC" % (e[3], e[4]))
        return
    step = 1 if button == btn.UP else -1 if button == btn.DOWN else 0
    if step:
        low, high = _CLOCK_RANGES[field]
        e[field] = low + (e[field] - low + step) % (high - low + 1)
        # the day within its month (a day past it stepped round from 1, or cut to its last)
        last = _month_days(e[0], e[1])
        if e[2] > last:
            e[2] = 1 if field == 2 and step > 0 else last
