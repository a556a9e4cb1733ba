"""The supervisor's audit menu as dealer-display lines: meters, the last hits, the event log.

``AuditMenu`` is a read-only sequence of display lines (``len``, ``menu[i]``, iteration): the
fixed part (meters, hits, status), built once when the menu opens, then every event the log
still holds, newest first, ``_ENTRY_LINES`` lines each::

    #12 07:19:56 r5         sequence number, wall clock (UTC; ?07:19:56 where the table
                            did not know the time), round (from the hundredth entry on, on
                            the lowest line below with room for it)
     jackpot hit S3         short name, then the values that matter for the kind
     $10001.40 Royal        (amounts in dollars, seats as S3, reasons by name)

Entries are read from the log when a line of them is asked for, ``_CACHE`` entries at a time,
so the whole log is reachable without a list of it: the heap holds a few entries, not 1,000.
No line is longer than the display; words are never cut, and a value with no room left on
its entry's lines is left out rather than shown cut.
"""

from firmware.compat import const
from firmware.drivers import shoe, spot_sensors
from firmware.jackpot import config as jcfg
from firmware.jackpot import meternames
from firmware.jackpot import paytable as jpay
from firmware.poker import cards as cardlib
from firmware.store import eventlog as ev
from firmware.store import eventnames
from firmware.table.phases import (
    BOARD,
    CONFIG_ITEMS,
    DEALER,
    GAME_TITLES,
    NOT_CHECKED,
    SIGN,
    UTH,
    WIDTH,
)
from firmware.table.screens import money, short

_ENTRY_LINES = const(3)       # display lines per event log entry
_CACHE = const(8)            # entries read from the log at once
_CHUNK_LINES = const(32)     # fixed lines kept per list (Lines)
_DAY = const(86400)
_CLOCK_SETTING = const(99)   # supervisor._CLOCK_SETTING: the clock set by the supervisor
_FROM_RAM = const(0xFFFF)    # CM_RECOVERED source: the record just committed, held in RAM
# jackpot hands (firmware.jackpot.paytable.NAMES order) in a few columns
_HAND_CODES = const(("Flush", "FH", "Quads", "SF", "Royal"))
_MISMATCH_LINES = const(6)   # the most lines a link mismatch's reason takes in the menu
# Meter names whose value is a count (or parts per million), not cents
_COUNTS = const(("wagers", "voids", "resets", "hits", "rounds", "config_changes", "envy_bonuses"))
# Meter name words shortened so that label and value share a line more often
_LABEL_WORDS = const((
    ("_", " "), ("four of a kind", "quads"), ("straight flush", "str flush"),
    ("royal flush", "royal"), ("contributions", "contrib"), (" reversed", " rev"),
    ("operator additions", "additions"), ("reserve", "rsv"), ("config changes", "config chg"),
))
# Jackpot configuration key words shortened for a setting's label (setting_label)
_SETTING_WORDS = const((
    (".", " "), ("_rate", " rate"), ("reserve", "rsv"), ("four_of_a_kind", "quads"),
    ("straight_flush", "SF"), ("royal_flush", "royal"), ("full_house", "FH"),
    ("wager", "JP wager"),
))


def clock(wall):
    """Seconds since 1970 (UTC) as the time of day, ``hh:mm:ss``."""
    t = wall % _DAY
    return "%02d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)


def seats(mask):
    """Seat bit mask (bit 0 = seat 1) as ``S1,3``; ``S-`` for none."""
    out = ""
    seat = 1
    while mask:
        if mask & 1:
            out += ("," if out else "") + str(seat)
        mask >>= 1
        seat += 1
    return "S" + (out or "-")


def dealt(dest, card):
    """Where a card went and which (CARD_DUPLICATE, CARD_REMOVED): ``S3 Ah``, ``board 7d``,
    ``dealer Kc``."""
    where = "dealer" if dest == DEALER else "board" if dest == BOARD else "S%d" % dest
    what = cardlib.name(card) if 0 <= card < cardlib.DECK_SIZE else "card %d" % card
    return "%s %s" % (where, what)


def hand(category, room=WIDTH):
    """A jackpot hand category (firmware.jackpot.paytable.NAMES index) as a name of at most
    `room` columns when one fits: ``Full House``, else ``FH``."""
    if not 0 <= category < len(jpay.NAMES):
        return "hand %d" % category
    name = short(jpay.NAMES[category])
    return name if len(name) <= room else _HAND_CODES[category]


def _named(names, index, what):
    if 0 <= index < len(names) and names[index]:
        return names[index]
    return "%s %d" % (what, index)


def wrap(tokens, rows, indent=""):
    """At most `rows` lines holding the tokens in order, words never cut: a token joins the
    current line when it fits, else starts the next one (indented a column when it fits); a
    token with no line left for it is left out.  The first line starts with `indent`."""
    out = []
    line = None
    for token in tokens:
        if line is None:
            line = indent + token
        elif len(line) + 1 + len(token) <= WIDTH:
            line += " " + token
        elif len(out) + 1 < rows:
            out.append(line)
            line = " " + token if len(token) < WIDTH else token
    if line is not None:
        out.append(line)
    # every token is made to fit a line; the cut only guards a line that would break the display
    return [text[:WIDTH] for text in out]


def label(name):
    """A meter name as a short display label (``paid_royal_flush`` -> ``paid royal``)."""
    for old, new in _LABEL_WORDS:
        name = name.replace(old, new)
    return name


def is_count(name):
    """True for a meter counted in units (wagers, hits, ppm), False for one in cents."""
    return name in _COUNTS or name.startswith("hits_") or name.endswith("_ppm")


def ordered(meters, names):
    """The keys of dict `meters`: those in `names` in that order, then the others sorted."""
    keys = [name for name in names if name in meters]
    for name in sorted(meters):
        if name not in keys:
            keys.append(name)
    return keys


def meter_lines(out, name, value):
    """Append the display lines of one meter to `out`: label and value on one line when they
    fit, else the label and then the value, right-aligned."""
    text = "%d" % value if is_count(name) else money(value)
    name = label(name)
    if len(name) + 1 + len(text) <= WIDTH:
        out.append(name + " " * (WIDTH - len(name) - len(text)) + text)
    else:
        out.append(name[:WIDTH])
        out.append(" " * (WIDTH - len(text)) + text)


def hit_lines(out, hit):
    """Append the display lines of one hit (a Jackpot.last_hits dict) to `out`."""
    out.extend(wrap(("S%d" % hit["seat"], money(hit["amount"]), short(hit["hand"]),
                     "r%d" % hit["round"]), 4))
    if hit.get("shortfall"):
        # paid in full, more than the pool held: this part operator-funded (the meter's name)
        out.extend(wrap(("shortfall", money(hit["shortfall"])), 2, " "))
    envied = hit.get("envy_seats")
    if envied:
        # the envy bonuses this hand paid: " envy $500.00" over " to S2,3"
        out.extend(wrap(("envy", money(hit["envy_each"]), "to S" + ",".join(
            [str(s) for s in envied])), 2, " "))
    if hit.get("cut"):
        # the shortfall option "cut": paid what the pool held, not the pay table's award
        out.extend(wrap(("cut", money(hit["cut"]), "of", money(hit["amount"] + hit["cut"])),
                        3, " "))
    if hit.get("envy_cut"):
        out.extend(wrap(("envy cut", money(hit["envy_cut"])), 2, " "))


def setting_label(key):
    """A jackpot configuration key as a label of at most 15 columns (``main.reserve_rate``
    -> ``main rsv rate``, ``pay.four_of_a_kind`` -> ``pay quads``)."""
    for old, new in _SETTING_WORDS:
        key = key.replace(old, new)
    return key


def setting_value(key, value):
    """The value a CONFIG_CHANGE carries for key (firmware.jackpot.config.logged_value) as
    text: money, a rate as a percent, a pay line as odds (and percent of the pool), on/off."""
    if key == "split":
        return "on" if value else "off"
    if key == "shortfall":
        return jcfg.SHORTFALLS[value] if 0 <= value < len(jcfg.SHORTFALLS) else "%d" % value
    if key.startswith("pay."):
        odds, percent = value // 1000, value % 1000
        if not odds and not percent:
            return "off"
        return "%d:1" % odds + ("/%d%%" % percent if percent else "")
    if key.endswith("rate"):
        whole, part = value // 10000, value % 10000
        if not part:
            return "%d%%" % whole
        text = "%04d" % part
        while text.endswith("0"):
            text = text[:-1]
        return "%d.%s%%" % (whole, text)
    if key.endswith("ceiling") and not value:
        return "off"
    return money(value)


def _setting(a, b, c):
    """The words of a CONFIG_CHANGE of jackpot setting a (jcfg.SETTING_BASE + its index):
    its label, then old and new values, or the new one where both do not fit a line."""
    keys = [item[0] for item in jcfg.default().items()]
    index = a - jcfg.SETTING_BASE
    if not 0 <= index < len(keys):
        return ("setting %d" % a, "%d" % b, "to %d" % c)
    key = keys[index]
    old, new = setting_value(key, b), setting_value(key, c)
    change = "%s to %s" % (old, new)
    return (setting_label(key), change if len(change) < WIDTH else "to " + new)


def _folds(kind, a):
    """A settle's seats folded (a), as words: none for another kind or no fold.  Six or
    seven seats take no commas ('fold S1234567'): with them the word is past a line, and
    would be cut."""
    if kind != ev.SETTLE or not a:
        return ()
    text = "fold " + seats(a)
    return (text if len(text) <= WIDTH else text.replace(",", ""),)


def values(kind, a, b, c, jackpot=True):
    """The words showing an event's values, most important first.  At a table without the
    progressive (jackpot False) a lock or settle that moved no jackpot money shows none: its
    zero wagers and pool are no pool's; a void that returned none shows only the seat voided
    (its wagers were returned: "$0.00" would say none were)."""
    if not jackpot and not c and (kind == ev.LOCK or kind == ev.SETTLE or kind == ev.VOID):
        if kind == ev.VOID and a:
            return ("S%d" % a,)
        if not b:
            return _folds(kind, a)
    if kind == ev.POWER_UP:
        # the cause's name, where the board named it (the codes differ from port to port)
        return (ev.RESET_CAUSES[b - 1],) if 0 < b <= len(ev.RESET_CAUSES) else ("cause %d" % a,)
    if kind == ev.CM_ERROR:
        return ("copy %d" % a, _named(eventnames.REASON_NAMES, b, "reason"))
    if kind == ev.CM_RECOVERED:
        return ("copy %d" % a, "from RAM" if b == _FROM_RAM else "from %d" % b, "seq %d" % c)
    if kind == ev.RAM_CLEAR:
        if not jackpot:
            # critical memory's commit number before the clear (as CM_RECOVERED's), never
            # '#n', an entry's number
            return ("sup %d" % a, "seq %d" % b)
        # the seed the reset values put in the pools, labelled where the label fits, on the
        # line below the name: it takes the place of the sequence number before the clear,
        # which has no room beside it (the service and tools.audit show that number)
        seed = money(c)
        return ("sup %d" % a, "seed " + seed if len(seed) + 6 < WIDTH else seed)
    if kind == ev.LOCK or kind == ev.VOID:
        who, amount = seats(b), money(c)
        name = eventnames.SHORT_NAMES.get(kind, "")
        if len(name) + len(who) + 2 > WIDTH and len(who) + len(amount) + 2 > WIDTH:
            # six or seven seats share no line with the name or the amount: the amount
            # first, beside the name, so that the wagers taken or returned are never left out
            return (amount, who)
        return (who, amount)
    if kind == ev.JACKPOT_HIT or kind == ev.LINK_CLAIM:
        # the amount (won, or the wager of a claim) and the hand share the entry's last line
        amount = money(c)
        return ("S%d" % a, amount, hand(b, WIDTH - 2 - len(amount)))
    if kind == ev.JACKPOT_ENVY:
        # each seat's bonus, then "S1>2,3": for seat 1's hand, to seats 2 and 3 (the bonus is
        # at most $99999.99, jcfg.MAX_ENVY, so both fit the entry's two lines)
        return (money(c), "S%d>%s" % (a, seats(b)[1:]))
    if kind == ev.SUPERVISOR_CONFIRM:
        return ("sup %d" % a, "hits %d" % b)
    if kind == ev.JACKPOT_SENT_BACK:
        # the seats beside the name, as digits (S1234567) where S1,2,3,... would not fit
        # there, and what they would have been paid on the last line
        who = seats(b)
        if len(eventnames.SHORT_NAMES[kind]) + len(who) + 2 > WIDTH:
            who = who.replace(",", "")
        return (who, money(c))
    if kind == ev.CARD_DUPLICATE or kind == ev.CARD_REMOVED:
        return (dealt(a, b),)
    if kind == ev.CONFIG_CHANGE:
        if a >= jcfg.SETTING_BASE:
            return _setting(a, b, c)
        if a == _CLOCK_SETTING:
            # set by the supervisor: how far it moved (the entry's time is the one set)
            days, t = divmod(abs(b), _DAY)
            return ("clock", ("-" if b < 0 else "+") + ("%dd" % days if days else "") + clock(t))
        if 1 <= a <= len(CONFIG_ITEMS):
            what, old, new = CONFIG_ITEMS[a - 1][0], money(b), money(c)
        else:
            what, old, new = "setting %d" % a, "%d" % b, "%d" % c
        # the old value only when the line has room for it before the new one
        if len(old) + len(new) + 5 <= WIDTH:
            return (what, old, "to " + new)
        return (what, "to " + new)
    if kind == ev.DOOR_OPEN or kind == ev.DOOR_CLOSE:
        return ("id %d" % a, "x%d" % b) if b > 1 else ("id %d" % a,)
    if kind == ev.TAMPER:
        return ("S%d" % a,)
    if kind == ev.LINK_DOWN or kind == ev.LINK_UP:
        return ("x%d" % b,) if b > 1 else ()
    if kind == ev.SETTLE:
        pool = "pool " + money(c)
        paid = "paid " + money(b)
        if len(paid) >= WIDTH:
            # paid $10,000,000.00 or more: the amount on a line of its own, whole (the pool,
            # which no line has room for then, is on the meters)
            return ("paid", money(b), pool)
        # the folds where the lines have room for them (the service's log has them all)
        return ((paid, pool) if b else (pool,)) + _folds(kind, a)
    if kind == ev.LOG_ERROR:
        return ("at #%d" % b,)
    if kind == ev.OPERATOR_ADDITION:
        return (_named(jcfg.POOL_KEYS, a, "pool"), money(c))
    if kind == ev.LINK_REFUSED and a:
        # one seat's hand refused (the round's others paid): why
        return ("S%d" % a, "pay table" if c == 2 else "wager")
    if kind == ev.LINK_REJECT:
        return (_named(ev.LINK_REASONS, a - 1, "reason"), "x%d" % b)
    if kind == ev.LINK_MISMATCH:
        # table's / controller's linked wagers, on one line where they fit it (a cumulative
        # total soon outgrows it), else one a line, labelled, never cut (entry_lines then
        # leaves the kind's name out: the labels say what disagrees)
        both = money(b) + "/" + money(c)
        if len(both) < WIDTH:
            return (both,)
        ours, theirs = money(b), money(c)
        if len(ours) + 7 < WIDTH and len(theirs) + 6 < WIDTH:
            return ("table " + ours, "link " + theirs)
        return ("T " + ours, "L " + theirs)
    if kind == ev.SHOE_REJECT:
        return (_named(shoe.REASONS, a, "reason"), "x%d" % b)
    if kind == ev.LOOP_FAULT:
        # the boots in a row, and the fault's id (the same id: the same error again)
        return ("x%d" % a, "id %08x" % (b & 0x7FFFFFFF))
    if kind == ev.DISPLAY_FAULT and a == SIGN:
        return ("sign",)            # the meter sign (the dealer display's entry shows none)
    if kind == ev.SENSOR_FAULT:
        reason = _named(spot_sensors.FAULT_NAMES, c, "reason")
        if a == 0:
            return ("bus",) if reason == "bus" else ("bus", reason)
        return ("S%d" % a, "ante" if b == 2 else "JP", reason)
    return ()


def entry_lines(entry, jackpot=True, unsure=False):
    """The _ENTRY_LINES display lines of one unpacked event log entry (jackpot: as values;
    unsure: its time was not known, eventlog.time_unsure, shown ``?07:19:56``)."""
    seq, time, round_no, kind, a, b, c = entry[:7]
    top = "#%d %s%s" % (seq, "?" if unsure else "", clock(time))
    if len(top) > WIDTH:
        # a seventh digit of the sequence (a busy table's millionth entry): hh:mm, not a
        # cut second
        top = top[:-3]
    tag = " r%d" % round_no
    if len(top) + len(tag) <= WIDTH:
        top += tag
        tag = ""
    name = eventnames.SHORT_NAMES.get(kind) or "kind %d" % kind
    words = (name,) + values(kind, a, b, c, jackpot)
    if kind == ev.CONFIG_CHANGE and a >= jcfg.SETTING_BASE and len(name) + len(words[1]) + 2 > WIDTH:
        # a jackpot setting's label says what changed; the kind's name only where it fits
        words = words[1:]
    elif kind == ev.JACKPOT_HIT and len(words[2]) + len(words[3]) + 2 > WIDTH:
        # a win of $100,000.00 or more leaves its hand no room beside the amount: the hand
        # beside the seat ("hit S1 Royal"), the amount on a line of its own, both whole
        words = ("hit", words[1], hand(b, WIDTH - 1 - len("hit %s " % words[1])), words[2])
    elif kind == ev.LINK_MISMATCH and len(words) > 2:
        words = words[1:]     # the two figures take both lines, labelled
    if kind == ev.JACKPOT_HIT and tag:
        words = ("hit",) + words[1:]    # room for the round: "hit S3 r300"
    rest = wrap(words, _ENTRY_LINES - 1, " ")
    while len(rest) < _ENTRY_LINES - 1:
        rest.append("")
    # from the hundredth entry on the round has no room beside number and clock: it goes on
    # the lowest of the entry's lines with room for it (never cutting a value)
    for i in range(len(rest) - 1, -1, -1):
        if tag and len(rest[i]) + len(tag) <= WIDTH:
            rest[i] += tag
            tag = ""
    return [top[:WIDTH]] + rest


def _missing(seq, why):
    return ["#%d" % seq, " " + why, ""]


class Lines:
    """The audit menu's fixed display lines, appended in order and read by index, kept in
    lists of _CHUNK_LINES: one list of them all would be a kilobyte or two in one piece,
    which a heap fragmented by hours of play may not have when a supervisor opens the menu.
    A line longer than the display is cut (the lines are made to fit; this guards it)."""

    def __init__(self):
        self.chunks = [[]]
        self.count = 0

    def append(self, line):
        last = self.chunks[-1]
        if len(last) == _CHUNK_LINES:
            last = []
            self.chunks.append(last)
        last.append(line if len(line) <= WIDTH else line[:WIDTH])
        self.count += 1

    def extend(self, lines):
        for line in lines:
            self.append(line)

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        if not 0 <= i < self.count:
            raise IndexError("fixed line %d of %d" % (i, self.count))
        return self.chunks[i // _CHUNK_LINES][i % _CHUNK_LINES]


class AuditMenu:
    """The audit menu's lines: `fixed` (display lines: a Lines, or any sequence of them),
    then the entries `log` (an EventLog) holds when the menu opens, newest first, read on
    demand.  `marks` are the line numbers where sections start (OK jumps between them);
    `jackpot` False for a table whose game has no progressive (entry_lines)."""

    def __init__(self, fixed, log, marks=(), jackpot=True):
        self.fixed = fixed
        self.log = log
        self.jackpot = jackpot
        self.marks = list(marks) + [len(fixed)]
        self.newest = log.count - 1
        self.oldest = log.first_available()
        self.entries = max(0, self.newest - self.oldest + 1)
        self._start = 0           # sequence number of _cache[0]
        self._cache = []          # the display lines of the entries read last

    def __len__(self):
        return len(self.fixed) + _ENTRY_LINES * self.entries

    def __getitem__(self, i):
        if isinstance(i, slice):
            # as a list slices (step 1): screens that show a menu's first lines slice it
            n = len(self)
            start = 0 if i.start is None else max(0, min(n, i.start + n if i.start < 0 else i.start))
            stop = n if i.stop is None else max(0, min(n, i.stop + n if i.stop < 0 else i.stop))
            return [self[j] for j in range(start, stop)]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("audit line %d of %d" % (i, len(self)))
        if i < len(self.fixed):
            return self.fixed[i]
        index = (i - len(self.fixed)) // _ENTRY_LINES
        return self.lines_of(self.newest - index)[(i - len(self.fixed)) % _ENTRY_LINES]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __contains__(self, text):
        for line in self:
            if line == text:
                return True
        return False

    def lines_of(self, seq):
        """The display lines of the entry numbered seq (read from the log if not cached)."""
        offset = seq - self._start
        if not 0 <= offset < len(self._cache):
            # scrolling goes mostly to older entries: read the window ending just above seq
            self._start = max(self.oldest, seq - _CACHE + 2)
            self._cache = self._read(self._start, min(self.newest, self._start + _CACHE - 1))
            offset = seq - self._start
        return self._cache[offset]

    def _read(self, first, last):
        out = []
        seq = first
        try:
            for raw in self.log.entries(first, last + 1):
                if seq > last:
                    break
                if raw is None:
                    out.append(_missing(seq, "unreadable"))
                else:
                    entry = ev.unpack(raw)
                    # a page overwritten since the menu opened holds newer entries
                    out.append(entry_lines(entry, self.jackpot, ev.time_unsure(raw))
                               if entry[0] == seq
                               else _missing(seq, "overwritten"))
                seq += 1
        except Exception:  # noqa: BLE001 - the audit shows what it can read
            pass
        while seq <= last:
            out.append(_missing(seq, "unreadable"))
            seq += 1
        return out

    def next_mark(self, top, rows):
        """Where a screen of `rows` lines showing from line `top` goes next: the next section
        start (just under the title, which stays on the top line), then the last screen (the
        oldest entries), then back to the first line."""
        last = max(0, len(self) - rows)
        for mark in self.marks:
            if top < mark - 1 < last:
                return mark - 1
        return last if top < last else 0


def open_menu(c):
    """The audit menu of the round controller `c` (an AuditMenu): the round, the link (a
    linked table), every pool's meters, the table meters, the last hits, the memory, the
    configuration and the program checks, then every event the log holds, newest first,
    read from the log as it is scrolled."""
    jp = c.jackpot
    lines = Lines()
    lines.extend(("AUDIT  (BACK)", "OK=next section", "round %d" % c.rec.round_no))
    marks = [0]
    lk = c.tablelink
    if lk is not None:
        lines.append("LINKED table %d" % lk.table)
        lines.append("link " + lk.state_name())
        if lk.mismatch_text:
            # what disagrees, for the technician: the sign only says LINK Err
            lines.extend(wrap(lk.mismatch_text.split(), _MISMATCH_LINES, " "))
        # (none heard yet: as many as the table's sign shows, no amount)
        for i in range(len(lk.amounts()) if lk.pool_known else len(c.view.meter_slots)):
            # numbered from 1, as tools.audit's report and export name them
            lines.extend(wrap(("pool %d" % (i + 1), money(lk.amounts()[i]) if lk.pool_known
                               else "not known"), 2))
        marks.append(len(lines))
        lines.append("linked meters")
        from firmware.table.linked import TOTAL_NAMES

        totals = c.link_totals()
        for key in TOTAL_NAMES:
            meter_lines(lines, key, totals[key])
        lines.append("entries %d/%d" % (lk.acked, lk.last_n))
        lines.append("hits queued %d" % len(lk.awaiting))
        lines.append("local JP frozen")
    elif c.link_required:
        # a linked table without its link (no file): the sign shows no amount, nor does
        # the pool below stand for the linked one
        lines.extend(("LINKED, no link", "local JP frozen"))
    if c.game == UTH or jp.table_meters()["wagers"]:
        # (a table whose game changed keeps showing the jackpot its meters have a history of)
        _jackpot_lines(lines, marks, jp)
    else:
        # no progressive at this game: the reset values in the record the table keeps are no
        # pool of its (the sign shows none), so none is shown here either
        marks.append(len(lines))
        lines.append(GAME_TITLES[c.game][:WIDTH])
        lines.append("no jackpot")
    marks.append(len(lines))
    # a copy not ok (a write failed, a bad read): the commits go on on the other, and the
    # supervisor sees that only one is kept
    faulty = [i for i in range(len(c.memory.copy_status)) if c.memory.copy_status[i] != "ok"]
    lines.append("memory " + ("FAULT" if faulty else c.memory.status))
    for i in faulty:
        lines.extend(wrap(("copy %d" % i, c.memory.copy_status[i]), 2))
    if c.memory.keyed:
        lines.append("keyed table")     # critical memory's mark: it needs /manifest.key
    if c.memory.clock_unsure:
        # the entries' times since the power cut are marked ?07:21:01: not times of day
        lines.append("clock NOT SET")
    config_ok, config_text = c.config_state()
    lines.append("config " + ("ok" if config_ok else "FAILED"))
    for i in range(0, min(len(config_text), 4 * WIDTH), WIDTH):
        lines.append(config_text[i:i + WIDTH])
    # no check made (the simulator, a test rig): the line below says so, no "ok" above it
    lines.append("program" if c.program_text == NOT_CHECKED else
                 "program " + ("ok" if c.program_ok else "FAILED"))
    text = c.program_text + " " + c.program_digest
    for i in range(0, min(len(text), 8 * WIDTH), WIDTH):
        lines.append(text[i:i + WIDTH])
    log = c.memory.log
    marks.append(len(lines))
    lines.append("events %d" % log.count)
    lines.append("held from #%d" % log.first_available())
    return AuditMenu(lines, log, marks, c.game == UTH)


def _jackpot_lines(lines, marks, jp):
    """Every pool's meters, the table meters and the last hits of the Jackpot jp."""
    # the pools in use, then any a split or merge took out of use ("off"): the table meters
    # count them too
    active = jp.active_slots()
    for slot in list(active) + [s for s in range(jcfg.POOL_SLOTS) if s not in active]:
        if slot not in active and not max(jp.meters[slot]):
            continue
        meters = jp.pool_meters(slot)
        marks.append(len(lines))
        lines.extend(wrap((jcfg.POOL_KEYS[slot] + ("" if slot in active else " off"),
                           money(meters["value"])), 2))
        for key in ordered(meters, meternames.POOL_METER_NAMES):
            meter_lines(lines, key, meters[key])
    marks.append(len(lines))
    lines.append("table meters")
    table = jp.table_meters()
    for key in ordered(table, meternames.TABLE_METER_NAMES):
        meter_lines(lines, key, table[key])
    hits = jp.last_hits()
    marks.append(len(lines))
    lines.append("last hits %d" % len(hits))
    for hit in hits[::-1]:
        hit_lines(lines, hit)
