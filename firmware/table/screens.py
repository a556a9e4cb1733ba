"""The round controller's view: what the table shows, and how each phase looks.

``View`` is what the app renders (seat lights, display lines, meter amounts and faults, and
one-shot win and beep requests).  ``seat_light`` and ``render_lines`` read a RoundController
and fill the view; nothing here changes the round.

The RESULTS screen shows ``RESULT_LINES`` result lines from ``c.results_top`` (UP/DOWN
scroll); its last line marks more lines above with ``^`` and below with ``v``.  The CONFIRM
screen lists ``CONFIRM_HITS`` jackpot hands from ``c.confirm_top``, scrolled and marked
alike.  The CARD
ENTRY screen marks the field UP/DOWN change (``c.entry_field``) with ``>``.
"""

from firmware.compat import const
from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.jackpot import config as jcfg
from firmware.jackpot import meters as jm
from firmware.jackpot import paytable as jpay
from firmware.poker import cards as cardlib
from firmware.store.critical import STEP_VOID
from firmware.table.phases import (
    AUDIT,
    BOARD,
    CARD_ENTRY,
    CONFIG,
    CONFIG_ITEMS,
    CONFIRM,
    CONFIRM_HITS,
    DEALER,
    GAME_TITLES,
    LINES,
    LOCKED,
    OPEN,
    RAM_CLEAR,
    RAM_ERROR,
    RESULTS,
    SIGN,
    TEST,
    UTH,
    WIDTH,
)

RESULT_LINES = const(6)      # result lines on the RESULTS screen, between title and hint
_SUIT_NAMES = const(("clubs", "diamonds", "hearts", "spades"))
_ENTRY_LABELS = const(("to   ", "rank ", "suit "))
MEMORY_CLOSED = "JP CLOSED MEMORY"  # the jackpot, while a copy of critical memory misses a commit


def closed_text(c, other="JP CLOSED"):
    """Why the jackpot takes no wager, as the OPEN screen and a LOCK with chips down say it:
    a copy of critical memory missing a commit, a linked table's link not up, else other."""
    if not c.memory.whole:
        return MEMORY_CLOSED
    return "JP CLOSED LINK" if c.link_required and not c.link_up else other


def money(cents):
    """Cents as dollars text: ``$1234.56``."""
    sign = "-" if cents < 0 else ""
    cents = -cents if cents < 0 else cents
    return "%s$%d.%02d" % (sign, cents // 100, cents % 100)


class View:
    """What the table shows; the app renders it when ``version`` changes."""

    def __init__(self, seats):
        self.version = 0
        self.seat_light = bytearray([lights.IDLE] * seats)
        self.lines = [""] * LINES
        self.meter = [0, 0, 0]          # per pool slot, cents (-1: not known, none shown)
        self.meter_slots = (0,)         # the slots shown, one sign line each
        self.meter_fault = ""           # alternated with the amount when not empty
        self.win = (0, 0, 0, 0)         # (sign line, seat, amount, new amount): the last win
        self.wins = []                  # this round's wins in order, as win; win_serial counts them
        self.win_serial = 0
        self.beep = 0
        self.beep_serial = 0


def paid_lines(tag, seat, amount):
    """The results line of a seat paid (tag "JP" or "envy", amount as text), never cutting
    the amount: ``JP S3 $500.00``; shorter forms when that does not fit the display
    (``JP3 $1000000.00``, ``JP3~$10737418.23``); else two lines, the amount indented."""
    for form in ("%s S%d %s", "%s%d %s", "%s%d%s"):
        line = form % (tag, seat, amount)
        if len(line) <= WIDTH:
            return [line]
    return ["%s S%d" % (tag, seat), " " + amount]


def hit_name(hit):
    """The jackpot hand name of a hit record."""
    return jpay.NAMES[hit[jm.H_HAND]]


def short(name):
    """Hand names short enough for a display line."""
    return (name.replace("Three of a Kind", "Trips").replace("Four of a Kind", "Quads")
            .replace("Straight Flush", "Str Flush").replace("High Card", "High"))


# The shortest hand names, for a line whose verdict leaves short() names no room
_TINY = const((("Royal Flush", "Royal"), ("Str Flush", "SF"), ("Full House", "FH"),
               ("Straight", "Str"), ("Two Pair", "2 Pair"), ("One Pair", "Pair")))


def fold_line(seat, name):
    """``S1 fold Flush``: a folded seat's line with the hand its side bets are still settled
    on (UTH Trips, Four Card Poker's Aces Up, Big Raise Stud's Three Card Extra), at its
    shortest (``S1 fold SF``) where the short name has no room."""
    line = "S%d fold %s" % (seat, short(name))
    if len(line) > WIDTH:
        line = "S%d fold %s" % (seat, tiny(short(name)))
    return line[:WIDTH]


def tiny(name):
    """A short() hand name at its shortest: ``FH`` for ``Full House``."""
    for long_name, code in _TINY:
        if name == long_name:
            return code
    return name


def seat_light(c, s):
    """The spot-light pattern of seat index s in the controller's present state."""
    bit = 1 << s
    phase = c.phase
    if phase == TEST:
        return 1 + (c.test_step + s) % (len(lights.STATE_NAMES) - 1)
    if phase == RAM_ERROR or phase == RAM_CLEAR:
        return lights.LOCKED
    if (c.faults | c.ante_faults) & bit:
        return lights.FAULT
    if c.tamper & bit:
        return lights.TAMPER
    # a seat voided, or the whole round (its results: every wager returned), is dark
    voided = c.rec.voided & bit or phase == RESULTS and c.memory.step == STEP_VOID
    if c.game != UTH:
        # no progressive: a seat lights when its Ante is down, and stays dim once locked
        if phase == OPEN or phase == AUDIT or phase == CONFIG:
            return lights.PLACED if (c.ante | c.ante_marked) & bit else lights.IDLE
        if c.late & bit:
            return lights.LATE
        return lights.OFF if voided else lights.LOCKED
    if phase == OPEN or phase == AUDIT or phase == CONFIG:
        if not c.jackpot_open():
            return lights.LOCKED
        return lights.PLACED if c.placed & bit else lights.IDLE
    if c.late & bit:
        return lights.LATE
    for hit in c.hits:
        if hit[jm.H_SEAT] == s + 1:
            return lights.WINNER
    if voided:
        return lights.OFF
    if c.rec.accepted & bit:
        return lights.ACCEPTED
    return lights.LOCKED


def _cards_text(cards, room):
    """The cards' names, spaced if they fit in room characters, else run together
    (``AsAdAhKs2d``: a five-card hand on a 16-character line)."""
    text = cardlib.names(cards)
    return text if len(text) <= room else text.replace(" ", "")


def _setting(mark, label, amount, later):
    """A configuration line, ``>Reset $10000.00*``: never its amount cut, rather its label
    run together and then shortened (``>Res$10737418.23*``)."""
    text = "%s%s %s%s" % (mark, label, amount, later)
    if len(text) <= WIDTH:
        return text
    label = label.replace(" ", "")
    room = WIDTH - len(mark) - len(amount) - len(later)
    return mark + label[:room if room > 0 else 0] + amount + later


def round_words(round_no, word, label="ROUND"):
    """``ROUND 12 OPEN`` (label ``Round``: ``Round 12 settled``), or ``R1234 LOCKED`` once
    the round number makes it too long for a display line: the number is never cut."""
    text = "%s %d %s" % (label, round_no, word)
    return text if len(text) <= WIDTH else "R%d %s" % (round_no, word)


def _bits(c, mask):
    return "".join(["1" if mask & (1 << s) else "0" for s in range(c.seats)])


def menu_rows(c):
    """The audit menu's lines on screen: all but the last while the door is open, which
    shows DOOR OPEN there (never over a menu line)."""
    return LINES - 1 if c.door_open else LINES


def render_lines(c):
    """Write the dealer display's eight lines for the controller's present state."""
    lines = c.view.lines
    for i in range(LINES):
        lines[i] = ""
    phase = c.phase
    cursor = "S%d" % (c.cursor + 1)
    if phase == OPEN:
        lines[0] = round_words(c.rec.round_no, "OPEN")
        lines[1] = "JP OPEN" if c.jackpot_open() else closed_text(c)
        if not c.program_ok:
            lines[1] = "PROGRAM ERROR"
        elif not c.config_ok or c._linked_option():
            lines[1] = "CONFIG ERROR"
            # the game dealt all the same: the round record's when the file was refused
            lines[6] = "GAME UNKNOWN" if c.game_unknown else GAME_TITLES[c.game]
        elif c.game != UTH:
            lines[1] = GAME_TITLES[c.game]
        elif c.tablelink is not None:
            lines[6] = c.tablelink.dealer_text()    # why the link keeps it closed, if known
        if c.game == UTH:       # (the other games take no jackpot wager: their spots say nothing)
            lines[2] = "placed " + (c._seat_list(c.placed) or "-")
        ante = c.ante | c.ante_marked
        lines[3] = "ante " + (c._seat_list(ante) or "-")
        lines[4] = "sel %s OK=ante" % cursor
        lines[5] = "LOCK=no more bet"
        if c.key_on:
            lines[7] = "KEY ON"             # its long presses open the menus
        if c.recalling:
            last = c.rec.round_no - 1
            lines[0] = "LAST ROUND %d" % last
            if len(lines[0]) > WIDTH:
                lines[0] = "LAST R%d" % last     # never the number cut (round 1,000,000 on)
            top = c.recall_top
            shown = c.last_results[top:top + RESULT_LINES]
            for i in range(RESULT_LINES):
                lines[1 + i] = shown[i] if i < len(shown) else ""
            more = len(c.last_results) > top + RESULT_LINES
            lines[7] = "UP/DN " + ("^" if top else "") + ("v" if more else "")
    elif phase == LOCKED:
        lines[0] = round_words(c.rec.round_no, "LOCKED")
        if c.game == UTH:
            lines[1] = "JP " + (c._seat_list(c.rec.accepted & ~c.rec.voided) or "none")
        else:
            lines[1] = GAME_TITLES[c.game]          # no progressive: no jackpot seats
        # only the hands this game deals (Four Card Poker: no board; Big Raise Stud: no dealer)
        if c.board_cards:
            lines[2] = "B " + (_cards_text(c._cards_of(c.rec.board), WIDTH - 2) or "-")
        if c.dealer_cards:
            lines[3] = "D " + (_cards_text(c._cards_of(c.rec.dealer), WIDTH - 2) or "-")
        lines[4] = "%s %s" % (cursor, _cards_text(c._hole(c.cursor), WIDTH - 3) or "-")
        lines[5] = "need " + (c._missing() or "nothing")
        # the cursor seat's fold shows in the hint, which says what OK does to it
        lines[6] = "FOLDED OK=unfold" if c.rec.folded & (1 << c.cursor) else "OK=fold SETTLE"
        if c.rec.voided & (1 << c.cursor):
            lines[6] = cursor + " VOID  SETTLE"    # no fold for it (OK refuses)
        lines[7] = "hold OK=cards"
        if c.key_on:
            lines[7] = "KEY ON BACK=void"   # a short BACK voids the cursor seat
    elif phase == CONFIRM:
        lines[0] = "JACKPOT! r%d" % c.rec.round_no
        if len(lines[0]) > WIDTH:
            lines[0] = "JP! r%d" % c.rec.round_no    # round 1,000,000 on: its number whole
        if len(c.hits) > CONFIRM_HITS:
            # more winners than lines: the count is on the title, the list in the results
            # (cut, "JACKPOT x4 r1234" would name round 1234 for round 12345)
            lines[0] = "JACKPOT x%d r%d" % (len(c.hits), c.rec.round_no)
            if len(lines[0]) > WIDTH:
                lines[0] = "JP x%d r%d" % (len(c.hits), c.rec.round_no)
        row = 1
        top = c.confirm_top
        for hit in c.hits[top:top + CONFIRM_HITS]:
            lines[row] = ("S%d %s" % (hit[jm.H_SEAT], short(hit_name(hit))))[:WIDTH]
            lines[row + 1] = (" ~" if c.hits_estimated else " ") + money(hit[jm.H_AMOUNT])
            row += 2
        below = top + CONFIRM_HITS < len(c.hits)
        if top or below:
            # UP/DOWN bring the other hands on screen (their marks take LOCK=back's place)
            lines[7] = ("KEY+OK to pay" if not c.key_on else "OK to pay") + " " + (
                "^" if top else " ") + ("v" if below else "")
        elif not c.key_on:
            lines[7] = "KEY+OK to pay"
        else:
            # once the confirmation is committed LOCK sends nothing back (supervisor.send_back)
            lines[7] = "OK to pay" if c._confirmed() else "OK=pay LOCK=back"
    elif phase == RESULTS:
        results = c.results
        top = min(c.results_top, max(0, len(results) - RESULT_LINES))
        lines[0] = round_words(c.rec.round_no, "RESULT")
        for i in range(min(RESULT_LINES, len(results) - top)):
            lines[1 + i] = results[top + i][:WIDTH]
        above = top > 0
        below = top + RESULT_LINES < len(results)
        lines[7] = "SETTLE=next"
        if above or below:
            lines[7] += " " + ("^" if above else " ") + ("v" if below else "")
    elif phase == RAM_ERROR:
        lines[0] = "RAM ERROR"
        lines[1] = c.stopped_text()
        for i, text in enumerate(c.menu[:3]):
            lines[2 + i] = text
        if c.link_factory is not None:
            lines[5] = "LINK STOPPED"     # controller.link_stop
        elif not c.config_ok:
            lines[5] = "CONFIG ERROR"     # no RAM clear until the file is fixed (handlers)
        if c.code_fault:
            lines[6] = "fix the program"    # no RAM clear: the memory is good (handlers)
            lines[7] = "then restart"
        elif c.config_ok:
            lines[6] = "KEY+long OK:"
            lines[7] = "RAM clear"
        else:
            lines[6] = "fix config file"    # before it, no RAM clear (handlers)
            lines[7] = "then RAM clear"
    elif phase == RAM_CLEAR:
        lines[0] = "RAM CLEAR?"
        if c.file_game != UTH:
            # no progressive at the game the clear opens (the file's): no pool to reset
            lines[1] = GAME_TITLES[c.file_game]
            lines[2] = "no jackpot pool"
        else:
            lines[1] = "reset values:"
            config = c.jackpot_config or jcfg.default()
            row = 2
            for slot in config.active_slots():
                amount = money(config.pools[slot].reset)
                # the pool's name as the configuration and the service give it ("main")
                name = jcfg.POOL_KEYS[slot]
                line = "%s %s" % (name, amount)
                # never a cut amount: "major $1234567.8" would read as another sum
                lines[row] = line if len(line) <= WIDTH else "%s %s" % (name[:3], amount)
                row += 1
        lines[6] = "OK=accept"
        lines[7] = "BACK=cancel"
    elif phase == AUDIT:
        # the title (AUDIT, BACK) stays on the top line; the lines under it scroll
        for i in range(menu_rows(c)):
            if c.menu_top + i < len(c.menu):
                lines[i] = c.menu[c.menu_top + i if i else 0]
    elif phase == CONFIG and c.clock_edit is not None:
        e = c.clock_edit
        lines[0] = "CLOCK UTC (BACK)"
        lines[2] = "%04d-%02d-%02d %02d:%02d" % (e[0], e[1], e[2], e[3], e[4])
        lines[3] = " " * (3 * e[5] + 2 if e[5] else 0) + ("^^" if e[5] else "^^^^")
        lines[6] = "UP/DN OK=next"
    elif phase == CONFIG:
        lines[0] = "CONFIG (BACK)"
        lines[4] = ("%sClock " % (">" if c.config_index == len(CONFIG_ITEMS) else " ")
                    + ("NOT SET" if c.memory.clock_unsure else "ok"))
        pending = False
        for i, item in enumerate(CONFIG_ITEMS):
            mark = ">" if i == c.config_index else " "
            later = "*" if c._config_pending(item[1]) else ""
            pending = pending or later
            lines[1 + i] = _setting(mark, item[0], money(c._config_value(item[1])), later)
        if c.jackpot.config.split:
            lines[1 + len(CONFIG_ITEMS)] = "  of Major pool"     # the reset's (_top_slot)
        if pending:
            lines[5] = "*after next hit"
        lines[6] = "UP/DN OK=change"
    elif phase == TEST:
        lines[0] = "TEST MODE (BACK)"
        lines[1] = "jp  " + _bits(c, c.placed)
        lines[2] = "ant " + _bits(c, c.ante)
        lines[3] = "flt " + _bits(c, c.faults | c.ante_faults)
        lines[4] = "key " + ("on" if c.key_on else "off")
        lines[5] = "door " + ("open" if c.door_open else "shut")
        lines[6] = "button " + (btn.BUTTON_NAMES[c.test_button] if c.test_button >= 0 else "-")
        lines[7] = "OK=next pattern"
    elif phase == CARD_ENTRY:
        dest, rank, suit = c.entry
        target = "dealer" if dest == DEALER else "board" if dest == BOARD else "seat %d" % dest
        lines[0] = "ENTER CARD " + cardlib.RANKS[rank] + cardlib.SUITS[suit]
        values = (target, cardlib.RANKS[rank], _SUIT_NAMES[suit])
        for field in range(len(values)):
            mark = ">" if field == c.entry_field else " "
            lines[1 + field] = mark + _ENTRY_LABELS[field] + values[field]
        lines[4] = "UP/DN change >"
        lines[5] = "OK=next LOCK=add"
        lines[6] = "BACK=done"
        lines[7] = "key+SETTLE=undo"
    if c.message and phase != AUDIT:
        first, second = c.message.split("\n")
        lines[6] = first[:WIDTH]
        lines[7] = second[:WIDTH]
    # (test mode has the door's own line; the audit menu leaves the door its own)
    taken = LINES
    for flag in ("DOOR OPEN" if c.door_open and phase != TEST else "",
                 "SIGN FAULT" if c.parts_down & SIGN and phase != AUDIT and phase != TEST else ""):
        if flag:
            # on the lowest free line; on a full screen in place of its title, not of a
            # message; the sign's above the door's, never in its place (the door's first)
            row = LINES - 1
            while row and lines[row]:
                row -= 1
            if row != taken:
                lines[row] = flag
                taken = row
