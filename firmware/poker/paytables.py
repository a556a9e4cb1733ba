"""Pay tables of the three games as data, with named presets [rules.md 2-4].

A pay table is a ``PayTable``: the preset ``name``, the ``bet`` it pays (one of the ``BET_*``
names), the hand ``ranking`` it reads (``hands.KIND_FIVE``, ``KIND_FOUR`` or ``KIND_THREE``)
and its ``lines``, best hand first.  Each line is a tuple::

    (line, category, min_rank, numerator, denominator)

``line`` is the line's stable name (``"royal_flush"``, ``"pair_tens_or_better"``...),
``category`` the evaluator category of that ranking (``hands.STRAIGHT_FLUSH``...) or
``ROYAL`` for the five-card royal flush, ``min_rank`` the lowest rank index (0 deuce .. 12
ace, as ``hands.high_rank``) the hand's defining rank must reach (used for pairs), and the
odds are "numerator to denominator" in integers: 50 to 1 is ``(50, 1)``, 3 to 2 is
``(3, 2)``.  Odds of ``0`` to 1 mean the line pushes (the wager is returned, nothing won).
A value that reaches no line gets ``None``: the bet loses (for the UTH Blind a winning hand
with no line pushes; that is settlement's business, not the table's).

Public API (names are stable; the pay-table math tool imports them):

    PayTable(name, bet, ranking, lines)   validated table; ValueError names what is wrong
        .line_for(value) -> line tuple or None
        .odds(line_name) -> (numerator, denominator); ValueError for an unknown line
        .line_names() -> tuple of line names, best first
    get(name) -> PayTable               the preset; ValueError naming an unknown preset
    pay_line(table_or_name, value)      the line tuple a hand value hits, or None
    names(bet=None) -> tuple            preset names (of one bet), sorted
    default(bet) -> PayTable            the rules.md default table of a bet
    check_bet(name, bet) -> PayTable    get(name), and ValueError unless it pays that bet
    odds_text(numerator, denominator)   "3 to 2", "50 to 1", "push"
    DEFAULTS                            dict bet name -> default preset name
    BET_BLIND, BET_TRIPS, BET_ANTE_BONUS, BET_ACES_UP, BET_RISK_RAISE, BET_EXTRA
    BET_RANKING                         dict bet name -> the hand ranking it is paid on
    ROYAL                               category marker of the royal flush line
    LINE, _CATEGORY, _MIN_RANK, NUMERATOR, DENOMINATOR   indexes into a line tuple

Presets: ``blind_a`` (UTH Blind), ``trips_a``/``trips_b``/``trips_c`` (UTH Trips),
``ante_bonus_a`` (FCP Ante Bonus), ``aces_a``..``aces_d`` (FCP Aces Up),
``risk_raise_a`` (BRS Risk and Raise), ``extra_a``..``extra_c`` (BRS Three Card Extra).
"""

from firmware.compat import const
from firmware.poker import hands

# Indexes into a line tuple.
LINE = const(0)
_CATEGORY = const(1)
_MIN_RANK = const(2)
NUMERATOR = const(3)
DENOMINATOR = const(4)

# Category marker for the five-card royal flush: one above the straight flush.
ROYAL = const(9)

BET_BLIND = "blind"
BET_TRIPS = "trips"
BET_ANTE_BONUS = "ante_bonus"
BET_ACES_UP = "aces_up"
BET_RISK_RAISE = "risk_raise"
BET_EXTRA = "three_card_extra"
BETS = (BET_BLIND, BET_TRIPS, BET_ANTE_BONUS, BET_ACES_UP, BET_RISK_RAISE, BET_EXTRA)

# The hand ranking each bet is paid on.
BET_RANKING = {BET_BLIND: hands.KIND_FIVE, BET_TRIPS: hands.KIND_FIVE,
               BET_ANTE_BONUS: hands.KIND_FOUR, BET_ACES_UP: hands.KIND_FOUR,
               BET_RISK_RAISE: hands.KIND_FIVE, BET_EXTRA: hands.KIND_THREE}

_TOP_CATEGORY = {hands.KIND_FIVE: ROYAL, hands.KIND_FOUR: hands.FOUR_FOUR_OF_A_KIND,
                 hands.KIND_THREE: hands.THREE_STRAIGHT_FLUSH}
_RANKING_NAMES = {hands.KIND_FIVE: "five-card", hands.KIND_FOUR: "four-card",
                  hands.KIND_THREE: "three-card"}

_SIX = const(4)
_TEN = const(8)
_ACE = const(12)
# Largest odds numerator or denominator accepted, so a payout stays a modest integer.
_MAX_ODDS = const(1000000)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def odds_text(numerator, denominator):
    """Odds as a person reads them: ``"3 to 2"``, ``"50 to 1"``; 0 to 1 is ``"push"``."""
    if numerator == 0:
        return "push"
    return "%d to %d" % (numerator, denominator)


class PayTable:
    """One pay table: validated lines, best first, and the lookup of a hand value's line."""

    def __init__(self, name, bet, ranking, lines):
        if not isinstance(name, str) or not name:
            raise ValueError("pay table name must be non-empty text, got %r" % (name,))
        if bet not in BETS:
            raise ValueError("pay table %s: unknown bet %r (known: %s)" % (name, bet, ", ".join(BETS)))
        if ranking not in _TOP_CATEGORY:
            raise ValueError("pay table %s: unknown ranking %r" % (name, ranking))
        if ranking != BET_RANKING[bet]:
            raise ValueError("pay table %s: the %s bet is paid on %s hands, not %s"
                             % (name, bet, _RANKING_NAMES[BET_RANKING[bet]], _RANKING_NAMES[ranking]))
        if not isinstance(lines, (list, tuple)) or not lines:
            raise ValueError("pay table %s: lines must be a non-empty list" % name)
        top = _TOP_CATEGORY[ranking]
        seen = []
        previous = None
        checked = []
        for line in lines:
            if not isinstance(line, tuple) or len(line) != 5:
                raise ValueError("pay table %s: line %r must be (line, category, min_rank, "
                                 "numerator, denominator)" % (name, line))
            line_name, cat, min_rank, num, den = line
            if not isinstance(line_name, str) or not line_name or line_name in seen:
                raise ValueError("pay table %s: line name %r is empty or repeated" % (name, line_name))
            if not _is_int(cat) or cat < 0 or cat > top:
                raise ValueError("pay table %s: line %s has a bad category %r for the %s ranking"
                                 % (name, line_name, cat, _RANKING_NAMES[ranking]))
            if not _is_int(min_rank) or min_rank < 0 or min_rank > _ACE:
                raise ValueError("pay table %s: line %s has a bad min_rank %r"
                                 % (name, line_name, min_rank))
            if (not _is_int(num) or not _is_int(den) or num < 0 or den < 1
                    or num > _MAX_ODDS or den > _MAX_ODDS):
                raise ValueError("pay table %s: line %s has bad odds %r to %r"
                                 % (name, line_name, num, den))
            if previous is not None and (cat, min_rank) >= previous:
                raise ValueError("pay table %s: line %s is not below the line before it "
                                 "(lines go best hand first)" % (name, line_name))
            previous = (cat, min_rank)
            seen.append(line_name)
            checked.append((line_name, cat, min_rank, num, den))
        self.name = name
        self.bet = bet
        self.ranking = ranking
        self.lines = tuple(checked)

    def line_for(self, value):
        """The first (best) line the hand value reaches, or None when it reaches none."""
        if not _is_int(value) or value < 0 or hands.kind(value) != self.ranking:
            raise ValueError("pay table %s reads %s hand values, got %r"
                             % (self.name, _RANKING_NAMES[self.ranking], value))
        cat = hands.category(value)
        royal = hands.is_royal(value)
        rank = hands.high_rank(value)
        for line in self.lines:
            want = line[_CATEGORY]
            if want == ROYAL:
                if royal:
                    return line
            elif want == cat and rank >= line[_MIN_RANK]:
                return line
        return None

    def odds(self, line_name):
        """(numerator, denominator) of the named line; ValueError if the table has no such line."""
        for line in self.lines:
            if line[LINE] == line_name:
                return (line[NUMERATOR], line[DENOMINATOR])
        raise ValueError("pay table %s has no line %r" % (self.name, line_name))

    def line_names(self):
        """The line names, best hand first."""
        return tuple([line[LINE] for line in self.lines])

    def __repr__(self):
        return "PayTable(%r)" % self.name


def _five(name, bet, pays, extra=()):
    """A five-card table paying royal..straight in that order, plus extra lines below."""
    lines = [
        ("royal_flush", ROYAL, 0, pays[0], 1),
        ("straight_flush", hands.STRAIGHT_FLUSH, 0, pays[1], 1),
        ("four_of_a_kind", hands.FOUR_OF_A_KIND, 0, pays[2], 1),
        ("full_house", hands.FULL_HOUSE, 0, pays[3], 1),
        ("flush", hands.FLUSH, 0, pays[4][0], pays[4][1]),
        ("straight", hands.STRAIGHT, 0, pays[5], 1),
    ]
    return PayTable(name, bet, hands.KIND_FIVE, lines + list(extra))


def _trips(name, bet, pays):
    """UTH Trips: royal-SF-quads-FH-flush-straight-trips [rules.md 2]."""
    return _five(name, bet, pays[:4] + ((pays[4], 1),) + pays[5:6],
                 [("three_of_a_kind", hands.THREE_OF_A_KIND, 0, pays[6], 1)])


def _ante_bonus(name, bet, pays):
    """FCP Ante Bonus: quads-SF-trips [rules.md 3]."""
    return PayTable(name, bet, hands.KIND_FOUR, [
        ("four_of_a_kind", hands.FOUR_FOUR_OF_A_KIND, 0, pays[0], 1),
        ("straight_flush", hands.FOUR_STRAIGHT_FLUSH, 0, pays[1], 1),
        ("three_of_a_kind", hands.FOUR_THREE_OF_A_KIND, 0, pays[2], 1),
    ])


def _aces(name, bet, pays):
    """FCP Aces Up: quads-SF-trips-flush-straight-two pair-pair of aces [rules.md 3]."""
    return PayTable(name, bet, hands.KIND_FOUR, [
        ("four_of_a_kind", hands.FOUR_FOUR_OF_A_KIND, 0, pays[0], 1),
        ("straight_flush", hands.FOUR_STRAIGHT_FLUSH, 0, pays[1], 1),
        ("three_of_a_kind", hands.FOUR_THREE_OF_A_KIND, 0, pays[2], 1),
        ("flush", hands.FOUR_FLUSH, 0, pays[3], 1),
        ("straight", hands.FOUR_STRAIGHT, 0, pays[4], 1),
        ("two_pair", hands.FOUR_TWO_PAIR, 0, pays[5], 1),
        ("pair_of_aces", hands.FOUR_ONE_PAIR, _ACE, pays[6], 1),
    ])


def _risk_raise(name, bet, pays):
    """BRS Risk and Raise: royal..straight, then trips, two pair, pair of tens or better and
    (a push) pair of sixes to nines [rules.md 4]."""
    return _five(name, bet, pays[:6], [
        ("three_of_a_kind", hands.THREE_OF_A_KIND, 0, pays[6], 1),
        ("two_pair", hands.TWO_PAIR, 0, pays[7], 1),
        ("pair_tens_or_better", hands.ONE_PAIR, _TEN, pays[8], 1),
        ("pair_sixes_to_nines", hands.ONE_PAIR, _SIX, pays[9], 1),
    ])


def _extra(name, bet, pays):
    """BRS Three Card Extra: SF-trips-straight-flush-pair [rules.md 4]."""
    return PayTable(name, bet, hands.KIND_THREE, [
        ("straight_flush", hands.THREE_STRAIGHT_FLUSH, 0, pays[0], 1),
        ("three_of_a_kind", hands.THREE_THREE_OF_A_KIND, 0, pays[1], 1),
        ("straight", hands.THREE_STRAIGHT, 0, pays[2], 1),
        ("flush", hands.THREE_FLUSH, 0, pays[3], 1),
        ("pair", hands.THREE_ONE_PAIR, 0, pays[4], 1),
    ])


# Every preset: name -> (bet, builder, the builder's pay figures).  A table is built by get()
# the first time it is asked for and kept: a table holds only the presets its game pays.
_PRESETS = {
    # UTH Blind: royal 500, SF 50, quads 10, FH 3, flush 3 to 2, straight 1.
    "blind_a": (BET_BLIND, _five, (500, 50, 10, 3, (3, 2), 1)),
    "trips_a": (BET_TRIPS, _trips, (50, 40, 30, 8, 7, 4, 3)),
    "trips_b": (BET_TRIPS, _trips, (50, 40, 30, 8, 6, 5, 3)),
    "trips_c": (BET_TRIPS, _trips, (50, 40, 30, 9, 6, 4, 3)),
    # FCP Ante Bonus: quads 25, straight flush 20, trips 2.
    "ante_bonus_a": (BET_ANTE_BONUS, _ante_bonus, (25, 20, 2)),
    "aces_a": (BET_ACES_UP, _aces, (50, 40, 8, 6, 4, 2, 1)),
    "aces_b": (BET_ACES_UP, _aces, (50, 40, 8, 5, 4, 3, 1)),
    "aces_c": (BET_ACES_UP, _aces, (50, 30, 7, 6, 5, 2, 1)),
    "aces_d": (BET_ACES_UP, _aces, (50, 40, 9, 6, 4, 2, 1)),
    # BRS Risk and Raise: ... two pair 2, pair of tens or better 1, sixes to nines push.
    "risk_raise_a": (BET_RISK_RAISE, _risk_raise, (500, 100, 40, 8, (6, 1), 4, 3, 2, 1, 0)),
    "extra_a": (BET_EXTRA, _extra, (40, 30, 6, 4, 1)),
    "extra_b": (BET_EXTRA, _extra, (40, 25, 6, 4, 1)),
    "extra_c": (BET_EXTRA, _extra, (35, 25, 6, 4, 1)),
}
_built = {}

DEFAULTS = {
    BET_BLIND: "blind_a",
    BET_TRIPS: "trips_a",
    BET_ANTE_BONUS: "ante_bonus_a",
    BET_ACES_UP: "aces_a",
    BET_RISK_RAISE: "risk_raise_a",
    BET_EXTRA: "extra_a",
}


def names(bet=None):
    """Sorted preset names, all of them or only those paying `bet`."""
    return tuple(sorted([n for n in _PRESETS if bet is None or _PRESETS[n][0] == bet]))


def get(name):
    """The preset called `name` (the same PayTable every time); ValueError naming it if there
    is no such preset."""
    spec = _PRESETS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError("unknown pay table %r (known: %s)" % (name, ", ".join(names())))
    table = _built.get(name)
    if table is None:
        table = _built[name] = spec[1](name, spec[0], spec[2])
    return table


def check_bet(name, bet):
    """The preset `name` (or a PayTable given directly), checked to pay `bet`."""
    table = name if isinstance(name, PayTable) else get(name)
    if table.bet != bet:
        raise ValueError("pay table %s pays the %s bet, not %s" % (table.name, table.bet, bet))
    return table


def default(bet):
    """The rules.md default pay table of `bet`."""
    if bet not in DEFAULTS:
        raise ValueError("unknown bet %r (known: %s)" % (bet, ", ".join(BETS)))
    return get(DEFAULTS[bet])


def pay_line(table, value):
    """The line tuple hand `value` hits on `table` (a PayTable or a preset name), or None."""
    if not isinstance(table, PayTable):
        table = get(table)
    return table.line_for(value)
