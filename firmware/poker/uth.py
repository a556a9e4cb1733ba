"""Ultimate Texas Hold'em settlement with the Progressive Jackpot wager [rules.md 2, 5].

    config = Config(hand_rule="hole2_board3", trips_table="trips_a", max_payout=None, ...)
    result = settle(config, seats, board, dealer)      # board: 5 cards, dealer: 2 cards
    result = void_round(config, seats)                 # misdeal: every wager returned
    entries = jackpot_hands(result)                    # input for firmware.jackpot.pools

A seat is a dict: ``seat`` (1..config.seats), ``cards`` (2 hole cards, ints or text),
wagers in cents ``ante``, ``blind``, ``play``, ``trips``, ``jackpot`` (missing = 0),
``decision`` (``"preflop"`` Play 3x/4x, ``"flop"`` 2x, ``"river"`` 1x, ``"fold"``, or
``"absent"``, which is settled as a fold [FCP 11.13]) and ``void`` (True: the seat's hand is
void and its wagers are returned [FCP 11.1]).  A seat with no wager is an empty spot: cards
dealt to it are discarded [FCP 11.4] (still counted against duplicates).

Everything is checked before anything is settled; a bad input raises ValueError naming it.
The jackpot wager is collected (never returned) unless void; a seat whose jackpot wager stands
(it made a Play wager) with a jackpot hand (hole cards + flop) of at least
``jackpot_min_category`` gets a JackpotClaim for the jackpot module, which pays it.
"""

from firmware.compat import const
from firmware.poker import hands, paytables
from firmware.poker import settle as common
from firmware.poker.settle import LOSE, PUSH, WIN, WagerResult

GAME = "uth"

HOLE2_BOARD3 = "hole2_board3"
BEST5OF7 = "best5of7"
HAND_RULES = (HOLE2_BOARD3, BEST5OF7)

PREFLOP = "preflop"
FLOP = "flop"
RIVER = "river"
FOLD = "fold"
ABSENT = "absent"
DECISIONS = (PREFLOP, FLOP, RIVER, FOLD, ABSENT)
# Allowed Play wager, as multiples of the Ante, for each street [rules.md 2].
PLAY_MULTIPLES = {PREFLOP: (3, 4), FLOP: (2,), RIVER: (1,)}

WAGERS = ("ante", "blind", "play", "trips", "jackpot")
SEAT_KEYS = ("seat", "cards", "decision", "void") + WAGERS
_HOLE_CARDS = const(2)
_BOARD_CARDS = const(5)
_FLOP_CARDS = const(3)
_DEALER_CARDS = const(2)


def _defaults():
    d = dict(common.COMMON_DEFAULTS)
    d["hand_rule"] = HOLE2_BOARD3           # [UTH 10.5] NZ rule; "best5of7" is the US rule
    d["trips_hand_rule"] = None             # None: the same as hand_rule
    d["blind_table"] = paytables.DEFAULTS[paytables.BET_BLIND]
    d["trips_table"] = paytables.DEFAULTS[paytables.BET_TRIPS]
    d["jackpot_wager"] = 100                # fixed by the table sign [UTH 11.2]
    d["jackpot_min_category"] = hands.FLUSH  # lowest qualifying jackpot hand [UTH 11.9]
    return d


class Config(common.Options):
    """UTH rule options (see _defaults for names and defaults); ValueError names a bad one."""

    DEFAULTS = _defaults()

    def check(self):
        common.choice(self.hand_rule, HAND_RULES, "option hand_rule")
        if self.trips_hand_rule is not None:
            common.choice(self.trips_hand_rule, HAND_RULES, "option trips_hand_rule")
        self.blind = paytables.check_bet(self.blind_table, paytables.BET_BLIND)
        self.trips = paytables.check_bet(self.trips_table, paytables.BET_TRIPS)
        if not common.is_int(self.jackpot_wager) or self.jackpot_wager < 1:
            raise ValueError("option jackpot_wager must be a whole number of cents >= 1, got %r"
                             % (self.jackpot_wager,))
        if (not common.is_int(self.jackpot_min_category) or self.jackpot_min_category < 0
                or self.jackpot_min_category > hands.STRAIGHT_FLUSH):
            raise ValueError("option jackpot_min_category must be a five-card category 0..8, got %r"
                             % (self.jackpot_min_category,))


class _Seat:
    """A seat's checked wagers and decision."""

    def __init__(self, config, spot, need_decision):
        n = spot["seat"]
        self.number = n
        self.void = spot.get("void", False)
        self.ante = common.amount(spot, "ante")
        self.blind = common.amount(spot, "blind")
        self.play = common.amount(spot, "play")
        self.trips = common.amount(spot, "trips")
        self.jackpot = common.amount(spot, "jackpot")
        self.decision = spot.get("decision")
        self.empty = not (self.ante or self.blind or self.play or self.trips or self.jackpot)
        if self.decision is not None:
            common.choice(self.decision, DECISIONS, "seat %d: decision" % n)
        if self.empty:
            return
        if self.ante != self.blind:
            raise ValueError("seat %d: Ante (%d) and Blind (%d) must be equal"
                             % (n, self.ante, self.blind))
        if not self.ante:
            what = "Trips" if self.trips else "jackpot" if self.jackpot else "Play"
            raise ValueError("seat %d: a %s wager needs Ante and Blind" % (n, what))
        if self.jackpot and self.jackpot != config.jackpot_wager:
            raise ValueError("seat %d: jackpot wager must be %d (the table sign), got %d"
                             % (n, config.jackpot_wager, self.jackpot))
        if self.decision is None:
            if need_decision and not self.void:
                raise ValueError("seat %d: decision missing (one of %s)" % (n, ", ".join(DECISIONS)))
            if self.play and self.play not in [m * self.ante for m in (1, 2, 3, 4)]:
                raise ValueError("seat %d: Play (%d) must be 1x to 4x the Ante (%d)"
                                 % (n, self.play, self.ante))
        elif self.decision in PLAY_MULTIPLES:
            allowed = PLAY_MULTIPLES[self.decision]
            if self.play not in [m * self.ante for m in allowed]:
                raise ValueError("seat %d: Play (%d) on the %s must be %s the Ante (%d)"
                                 % (n, self.play, self.decision,
                                    " or ".join(["%dx" % m for m in allowed]), self.ante))
        elif self.play:
            raise ValueError("seat %d: a seat that is %s cannot have a Play wager (%d)"
                             % (n, "folded" if self.decision == FOLD else "absent", self.play))

    def wager_list(self):
        return [("ante", self.ante), ("blind", self.blind), ("play", self.play),
                ("trips", self.trips), ("jackpot", self.jackpot)]


def _hand(rule, hole, board):
    if rule == BEST5OF7:
        return hands.best5(hole + board)
    return hands.hole2_board3(hole, board)


def _read_seats(config, seats, need_decision):
    return common.check_seats(GAME, config, Config, seats, SEAT_KEYS, _Seat, need_decision)


def void_round(config, seats):
    """Misdeal [FCP 11.2-11.12]: every wager of every seat is void and returned."""
    return common.void_all(GAME, _read_seats(config, seats, False))


def settle(config, seats, board, dealer):
    """Settle one UTH round: see the module docstring for the inputs."""
    checked = _read_seats(config, seats, True)
    deck = common.Deck()
    board = deck.take(board, _BOARD_CARDS, "board")
    dealer = deck.take(dealer, _DEALER_CARDS, "dealer")
    holes = common.take_seat_cards(deck, seats, checked, _HOLE_CARDS)

    dealer_hand = _hand(config.hand_rule, dealer, board)
    qualifies = hands.category(dealer_hand) >= hands.ONE_PAIR
    trips_rule = config.trips_hand_rule or config.hand_rule
    results = []
    claims = []
    for s, hole in zip(checked, holes):
        if s.empty:
            results.append(common.SeatResult(s.number, common.EMPTY, s.decision, None, hole))
        elif s.void:
            results.append(common.void_seat(s.number, s.wager_list()))
        else:
            results.append(_settle_seat(config, s, hole, board, dealer_hand, qualifies,
                                        trips_rule, claims))
    return common.RoundResult(GAME, results, claims=claims, dealer_hand=dealer_hand,
                              dealer_qualifies=qualifies)


def _settle_seat(config, s, hole, board, dealer_hand, qualifies, trips_rule, claims):
    n = s.number
    hand = _hand(config.hand_rule, hole, board)
    folded = s.decision not in PLAY_MULTIPLES
    seat = common.SeatResult(n, common.FOLDED if folded else common.PLAYED, s.decision, hand, hole)
    if folded:
        # [UTH 10.2] a fold loses Ante and Blind.
        seat.add(WagerResult(n, "ante", s.ante, LOSE, hand=hand))
        seat.add(WagerResult(n, "blind", s.blind, LOSE, hand=hand))
    elif hand > dealer_hand:
        if qualifies:
            seat.add(WagerResult(n, "ante", s.ante, WIN, s.ante, hand, None, (1, 1)))
        else:
            seat.add(WagerResult(n, "ante", s.ante, PUSH, hand=hand))
        line = config.blind.line_for(hand)
        if line is None:
            # [rules.md 2] a winning hand below the Blind table pushes the Blind.
            seat.add(WagerResult(n, "blind", s.blind, PUSH, hand=hand))
        else:
            seat.add(WagerResult(n, "blind", s.blind, WIN,
                                 common.winnings(s.blind, line[3], line[4]), hand, line[0],
                                 (line[3], line[4])))
        seat.add(WagerResult(n, "play", s.play, WIN, s.play, hand, None, (1, 1)))
    else:
        # [UTH 10.6] equal hands push; [UTH 10.7] a better dealer hand wins; [UTH 10.1] an
        # unqualified dealer pushes the Ante whatever the comparison.
        outcome = PUSH if hand == dealer_hand else LOSE
        seat.add(WagerResult(n, "ante", s.ante, outcome if qualifies else PUSH, hand=hand))
        seat.add(WagerResult(n, "blind", s.blind, outcome, hand=hand))
        seat.add(WagerResult(n, "play", s.play, outcome, hand=hand))
    if s.trips:
        # [UTH 10.3-10.4] Trips pays on the player's own hand, whatever else happened.
        trips_hand = hand if trips_rule == config.hand_rule else _hand(trips_rule, hole, board)
        seat.add(common.pay_by_table(n, "trips", s.trips, config.trips, trips_hand))
    if s.jackpot:
        jackpot_cards = hole + board[:_FLOP_CARDS]
        jackpot_hand = hands.best5(jackpot_cards)
        line = None
        # [UTH 10.2] only a seat that made a Play wager can win the jackpot.
        if not folded and hands.category(jackpot_hand) >= config.jackpot_min_category:
            claims.append(common.JackpotClaim(n, jackpot_hand, jackpot_cards))
            line = "jackpot_claim"
        # [UTH 11.12] the jackpot wager is collected; any prize comes from the pool.
        seat.add(WagerResult(n, "jackpot", s.jackpot, LOSE, hand=jackpot_hand, line=line))
    return seat.finish(config.max_payout, config.cap_scope)


def jackpot_hands(result):
    """(seat, hole cards, played) for each seat whose jackpot wager stands (not void), the
    form the jackpot module's settle takes: a folded seat gives None and False [UTH 10.2]."""
    out = []
    for seat in result.seats:
        wager = seat.wager("jackpot")
        if wager is not None and wager.outcome != common.VOID:
            played = seat.status == common.PLAYED
            out.append((seat.seat, list(seat.cards) if played else None, played))
    return out
