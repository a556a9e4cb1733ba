"""What the three games' settlement shares: result records, money checks, odds, the payout cap.

Money is integer cents.  A win at odds N to D pays ``amount * N // D`` on top of the returned
wager: the fraction of a cent an odd amount leaves (3 to 2 on 125 cents is 187.5) is not paid,
so rounding can never create money; the dropped fraction is below one cent per wager.

Result records (plain classes, MicroPython friendly):

    WagerResult  seat, wager, amount, outcome (WIN/LOSE/PUSH/VOID), returned, won, paid,
                 hand, hand_name, line, odds, base (what the odds were applied to: the
                 amount, or the Ante for the FCP Ante Bonus, whose own amount is 0), cap_cut
    SeatResult   seat, status (PLAYED/FOLDED/VOID/EMPTY), decision, hand, hand_name, cards,
                 wagers (list of WagerResult), wagered, returned, won, paid, cap_cut; wager(name)
    JackpotClaim seat, hand, hand_name, cards (the hole cards and the flop)
    RoundResult  game, void, seats (sorted by seat), claims, dealer_hand, dealer_name,
                 dealer_qualifies, wagered, returned, won, paid, cap_cut; seat(number)

Every amount in a result satisfies ``paid == returned + won``; a lost wager returns 0, a
pushed or void one returns its amount, a won one returns its amount plus ``won``.
"""

from firmware.compat import const
from firmware.poker import cards as cardlib
from firmware.poker import hands

WIN = "win"
LOSE = "lose"
PUSH = "push"
VOID = "void"

PLAYED = "played"
FOLDED = "folded"
VOID_SEAT = "void"
EMPTY = "empty"

CAP_HAND = "hand"
CAP_WAGER = "wager"
CAP_SCOPES = (CAP_HAND, CAP_WAGER)

_DEFAULT_SEATS = const(7)


def is_int(x):
    """True for an int that is not a bool."""
    return isinstance(x, int) and not isinstance(x, bool)


def check_amount(value, what):
    """Return value if it is a whole number of cents >= 0, else ValueError naming `what`."""
    if not is_int(value) or value < 0:
        raise ValueError("%s must be a whole number of cents >= 0, got %r" % (what, value))
    return value


def winnings(amount, numerator, denominator):
    """What a win at numerator to denominator adds to `amount`, rounded down to the cent."""
    return amount * numerator // denominator


def hand_name(value):
    """Display name of a hand value, or None for no hand."""
    return None if value is None else hands.name(value)


class WagerResult:
    """How one wager settled."""

    def __init__(self, seat, wager, amount, outcome, won=0, hand=None, line=None, odds=None,
                 base=None):
        self.seat = seat
        self.wager = wager
        self.amount = amount
        self.outcome = outcome
        self.returned = 0 if outcome == LOSE else amount
        self.won = won
        self.hand = hand
        self.hand_name = hand_name(hand)
        self.line = line
        self.odds = odds
        self.base = amount if base is None else base
        self.cap_cut = 0

    @property
    def paid(self):
        return self.returned + self.won

    def key(self):
        """Everything but the seat number, as a tuple (for comparing two results)."""
        return (self.wager, self.amount, self.outcome, self.returned, self.won, self.hand,
                self.line, self.odds, self.base, self.cap_cut)

    def __eq__(self, other):
        return (isinstance(other, WagerResult) and self.seat == other.seat
                and self.key() == other.key())

    def __repr__(self):
        return "WagerResult(seat=%r, %s %d %s: returned %d, won %d%s)" % (
            self.seat, self.wager, self.amount, self.outcome, self.returned, self.won,
            ", cap cut %d" % self.cap_cut if self.cap_cut else "")


def pay_by_table(seat, wager, amount, table, value):
    """Settle a bet paid only by `table` on hand `value`: a line wins at its odds, 0 to 1 pushes,
    no line loses."""
    line = table.line_for(value)
    if line is None:
        return WagerResult(seat, wager, amount, LOSE, hand=value)
    num = line[3]
    den = line[4]
    outcome = WIN if num else PUSH
    return WagerResult(seat, wager, amount, outcome, winnings(amount, num, den), value,
                       line[0], (num, den))


class SeatResult:
    """One seat's wagers and totals."""

    def __init__(self, seat, status, decision=None, hand=None, seat_cards=None):
        self.seat = seat
        self.status = status
        self.decision = decision
        self.hand = hand
        self.hand_name = hand_name(hand)
        self.cards = tuple(seat_cards) if seat_cards else ()
        self.wagers = []
        self.wagered = 0
        self.returned = 0
        self.won = 0
        self.cap_cut = 0

    @property
    def paid(self):
        return self.returned + self.won

    def add(self, result):
        self.wagers.append(result)

    def wager(self, name):
        """The WagerResult of the named wager, or None if the seat did not make it."""
        for result in self.wagers:
            if result.wager == name:
                return result
        return None

    def finish(self, max_payout, scope):
        """Apply the payout cap, then add up the totals."""
        budget = max_payout
        for result in self.wagers:
            if max_payout is not None:
                if scope == CAP_WAGER:
                    budget = max_payout
                allowed = result.won if result.won < budget else budget
                result.cap_cut = result.won - allowed
                result.won = allowed
                budget -= allowed
            self.wagered += result.amount
            self.returned += result.returned
            self.won += result.won
            self.cap_cut += result.cap_cut
        return self

    def key(self):
        return (self.status, self.decision, self.hand, self.cards,
                tuple([w.key() for w in self.wagers]), self.wagered, self.returned, self.won,
                self.cap_cut)

    def __eq__(self, other):
        return isinstance(other, SeatResult) and self.seat == other.seat and self.key() == other.key()

    def __repr__(self):
        return "SeatResult(seat=%r, %s, wagered %d, paid %d)" % (
            self.seat, self.status, self.wagered, self.paid)


class JackpotClaim:
    """A seat whose jackpot wager stands with a hand for the jackpot module to pay."""

    def __init__(self, seat, hand, claim_cards):
        self.seat = seat
        self.hand = hand
        self.hand_name = hands.name(hand)
        self.cards = tuple(claim_cards)

    def key(self):
        return (self.seat, self.hand, self.cards)

    def __eq__(self, other):
        return isinstance(other, JackpotClaim) and self.key() == other.key()

    def __repr__(self):
        return "JackpotClaim(seat=%r, %s, %s)" % (self.seat, self.hand_name,
                                                  cardlib.names(self.cards))


class RoundResult:
    """Every seat's results, the round totals and the jackpot claims."""

    def __init__(self, game, seat_results, void=False, claims=(), dealer_hand=None,
                 dealer_qualifies=None):
        self.game = game
        self.void = void
        self.seats = sorted(seat_results, key=lambda s: s.seat)
        self.claims = sorted(claims, key=lambda c: c.seat)
        self.dealer_hand = dealer_hand
        self.dealer_name = hand_name(dealer_hand)
        self.dealer_qualifies = dealer_qualifies
        self.wagered = 0
        self.returned = 0
        self.won = 0
        self.cap_cut = 0
        for s in self.seats:
            self.wagered += s.wagered
            self.returned += s.returned
            self.won += s.won
            self.cap_cut += s.cap_cut

    @property
    def paid(self):
        return self.returned + self.won

    def seat(self, number):
        """The SeatResult of seat `number`; ValueError if it is not in this round."""
        for s in self.seats:
            if s.seat == number:
                return s
        raise ValueError("seat %r is not in this round" % (number,))

    def __repr__(self):
        return "RoundResult(%s%s, %d seats, wagered %d, paid %d)" % (
            self.game, " void" if self.void else "", len(self.seats), self.wagered, self.paid)


class Options:
    """Named rule options with defaults; a subclass lists them in DEFAULTS and checks them."""

    DEFAULTS = {}

    def __init__(self, **options):
        for name in options:
            if name not in self.DEFAULTS:
                raise ValueError("unknown option %r (known: %s)"
                                 % (name, ", ".join(sorted(self.DEFAULTS))))
        for name in self.DEFAULTS:
            setattr(self, name, options[name] if name in options else self.DEFAULTS[name])
        self.seats = _check_seat_count(self.seats)
        if self.max_payout is not None:
            check_amount(self.max_payout, "option max_payout")
        if self.cap_scope not in CAP_SCOPES:
            raise ValueError("option cap_scope must be one of %s, got %r"
                             % (", ".join(CAP_SCOPES), self.cap_scope))
        self.check()

    def check(self):
        """Validate the game's own options (subclasses)."""

    def options(self):
        """The options as a dict."""
        result = {}
        for name in self.DEFAULTS:
            result[name] = getattr(self, name)
        return result


# Options every game has.
COMMON_DEFAULTS = {
    "max_payout": None,      # table maximum payout per hand in cents; None: no cap
    "cap_scope": CAP_HAND,   # cap the whole hand's winnings, or each wager on its own
    "seats": _DEFAULT_SEATS,  # seat numbers run 1..seats
}


def _check_seat_count(n):
    if not is_int(n) or n < 1 or n > 16:
        raise ValueError("option seats must be 1..16, got %r" % (n,))
    return n


def choice(value, allowed, what):
    """Return value if it is one of `allowed`, else ValueError naming `what`."""
    if value not in allowed:
        raise ValueError("%s must be one of %s, got %r" % (what, ", ".join(allowed), value))
    return value


def multiples(value, what, high):
    """Return value as a tuple of distinct ints 1..high (allowed wager multiples)."""
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError("%s must be a non-empty list of whole multiples, got %r" % (what, value))
    for i in range(len(value)):
        m = value[i]
        if not is_int(m) or m < 1 or m > high or m in value[:i]:
            raise ValueError("%s must be distinct whole multiples 1..%d, got %r" % (what, high, value))
    return tuple(value)


class Deck:
    """Collects every card of a round and rejects one seen twice (the round's 52 distinct)."""

    def __init__(self):
        self.seen = 0

    def take(self, given, count, what, partial=False):
        """Return `given` (card ints or text) as a list of `count` card ints (partial: up to
        `count`), recording them."""
        if isinstance(given, str):
            try:
                given = cardlib.parse(given)
            except ValueError as e:
                raise ValueError("%s: %s" % (what, e)) from None
        cardlib.check(given, None if partial else count, what)
        if len(given) > count:
            raise ValueError("%s: expected at most %d cards, got %d" % (what, count, len(given)))
        for card in given:
            bit = 1 << card
            if self.seen & bit:
                raise ValueError("%s: card %s already dealt elsewhere this round"
                                 % (what, cardlib.name(card)))
            self.seen |= bit
        return list(given)


def read_seats(seats, config, keys):
    """Check the seat list: dicts with known `keys`, distinct seat numbers 1..config.seats."""
    if not isinstance(seats, (list, tuple)):
        raise ValueError("seats must be a list of seat dicts, got %r" % (seats,))
    numbers = []
    for spot in seats:
        if not isinstance(spot, dict):
            raise ValueError("each seat must be a dict, got %r" % (spot,))
        number = spot.get("seat")
        if not is_int(number) or number < 1 or number > config.seats:
            raise ValueError("seat number must be 1..%d, got %r" % (config.seats, number))
        if number in numbers:
            raise ValueError("seat %d appears twice" % number)
        numbers.append(number)
        for key in spot:
            if key not in keys:
                raise ValueError("seat %d: unknown field %r (known: %s)"
                                 % (number, key, ", ".join(keys)))
        void = spot.get("void", False)
        if not isinstance(void, bool):
            raise ValueError("seat %d: void must be True or False, got %r" % (number, void))
    return seats


def check_seats(game, config, config_class, seats, keys, seat_class, need_decision):
    """Check the config's type and the seat list; return each seat checked by seat_class."""
    if not isinstance(config, config_class):
        raise ValueError("config must be a %s.Config, got %r" % (game, config))
    read_seats(seats, config, keys)
    return [seat_class(config, spot, need_decision) for spot in seats]


def void_all(game, checked):
    """Misdeal: every wager of every seat with a wager is void and returned."""
    results = [void_seat(s.number, s.wager_list()) for s in checked if not s.empty]
    return RoundResult(game, results, void=True)


def take_seat_cards(deck, seats, checked, count):
    """Each seat's cards taken from the deck (duplicates refused); None for an empty or void
    seat that was given none.  An empty spot's or a void seat's cards may be fewer: they are
    discarded and play continues [FCP 11.4, BRS 6.9] (a hand collected early [FCP 11.15])."""
    held = []
    for spot, s in zip(seats, checked):
        given = spot.get("cards")
        if (s.empty or s.void) and not given:
            held.append(None)
        else:
            held.append(deck.take(given, count, "seat %d cards" % s.number, s.empty or s.void))
    return held


def amount(spot, key):
    """The seat's wager `key` in cents (0 when absent), checked."""
    return check_amount(spot.get(key, 0), "seat %d: %s" % (spot["seat"], key))


def void_seat(number, wagers):
    """A seat whose wagers are all void and returned; wagers is [(name, amount)]."""
    seat = SeatResult(number, VOID_SEAT)
    for name, value in wagers:
        if value:
            seat.add(WagerResult(number, name, value, VOID))
    return seat.finish(None, CAP_HAND)
