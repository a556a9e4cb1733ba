"""Big Raise Stud Poker settlement: Risk, Raise and the Three Card Extra [rules.md 4, 5].

    config = Config(risk_raise_table="risk_raise_a", extra_table="extra_a", max_payout=None)
    result = settle(config, seats, community)  # community: the 2 community cards
    result = void_round(config, seats)         # misdeal: every wager returned

A seat is a dict: ``seat``, ``cards`` (the player's 3 cards, ints or text), wagers in cents
``risk``, ``raise``, ``extra`` (missing = 0), ``decision`` (``"raise"``, ``"fold"`` or
``"absent"``, settled as a fold [FCP 11.13]) and ``void``.

Settlement: Risk and Raise both pay by the Risk/Raise table on the player's three cards plus
both community cards: a line pays its odds, a pair of sixes to nines pushes, anything lower
loses [BRS 5.1-5.4].  A fold loses the Risk bet.  The Three Card Extra pays by its table on
the player's own three cards, also after a fold [BRS 4.1].  The Raise is a whole multiple of
the Risk bet from option ``raise_multiples`` (default 1x to 4x).
"""

from firmware.compat import const
from firmware.poker import hands, paytables
from firmware.poker import settle as common
from firmware.poker.settle import LOSE, WagerResult

_RAISE_MAX = const(4)      # the largest Raise, in Risk bets [BRS 4.1-4.2]

GAME = "brs"

RAISE = "raise"
FOLD = "fold"
ABSENT = "absent"
DECISIONS = (RAISE, FOLD, ABSENT)

WAGERS = ("risk", "raise", "extra")
SEAT_KEYS = ("seat", "cards", "decision", "void") + WAGERS
_PLAYER_CARDS = const(3)
_COMMUNITY_CARDS = const(2)


def _defaults():
    d = dict(common.COMMON_DEFAULTS)
    d["risk_raise_table"] = paytables.DEFAULTS[paytables.BET_RISK_RAISE]
    d["extra_table"] = paytables.DEFAULTS[paytables.BET_EXTRA]
    # Decision: [BRS 4.1-4.2] "Raise 1x to 4x" read as whole multiples of the Risk bet.
    d["raise_multiples"] = (1, 2, 3, 4)
    return d


class Config(common.Options):
    """BRS rule options (see _defaults for names and defaults); ValueError names a bad one."""

    DEFAULTS = _defaults()

    def check(self):
        self.risk_raise = paytables.check_bet(self.risk_raise_table, paytables.BET_RISK_RAISE)
        self.extra = paytables.check_bet(self.extra_table, paytables.BET_EXTRA)
        # [BRS 4.1-4.2]: Raise 1x to 4x the Risk bet
        self.raise_multiples = common.multiples(self.raise_multiples, "option raise_multiples",
                                                _RAISE_MAX)


class _Seat:
    """A seat's checked wagers and decision."""

    def __init__(self, config, spot, need_decision):
        n = spot["seat"]
        self.number = n
        self.void = spot.get("void", False)
        self.risk = common.amount(spot, "risk")
        self.raise_ = common.amount(spot, "raise")
        self.extra = common.amount(spot, "extra")
        self.decision = spot.get("decision")
        self.empty = not (self.risk or self.raise_ or self.extra)
        if self.decision is not None:
            common.choice(self.decision, DECISIONS, "seat %d: decision" % n)
        if self.empty:
            return
        if not self.risk:
            what = "Three Card Extra" if self.extra else "Raise"
            raise ValueError("seat %d: a %s wager needs a Risk bet" % (n, what))
        if self.decision is None and need_decision and not self.void:
            raise ValueError("seat %d: decision missing (one of %s)" % (n, ", ".join(DECISIONS)))
        if self.decision == RAISE or (self.decision is None and self.raise_):
            self._check_raise(config, n)
        elif self.raise_:
            raise ValueError("seat %d: a seat that is %s cannot have a Raise wager (%d)"
                             % (n, "folded" if self.decision == FOLD else "absent", self.raise_))

    def _check_raise(self, config, n):
        allowed = config.raise_multiples
        top = max(allowed)
        if self.raise_ > top * self.risk:
            raise ValueError("seat %d: Raise (%d) is over %dx the Risk bet (%d)"
                             % (n, self.raise_, top, self.risk))
        if self.raise_ not in [m * self.risk for m in allowed]:
            raise ValueError("seat %d: Raise (%d) must be %s the Risk bet (%d)"
                             % (n, self.raise_, ", ".join(["%dx" % m for m in allowed]), self.risk))

    def wager_list(self):
        return [("risk", self.risk), ("raise", self.raise_), ("extra", self.extra)]


def _read_seats(config, seats, need_decision):
    return common.check_seats(GAME, config, Config, seats, SEAT_KEYS, _Seat, need_decision)


def void_round(config, seats):
    """Misdeal [BRS 6.2-6.11]: every wager of every seat is void and returned."""
    return common.void_all(GAME, _read_seats(config, seats, False))


def settle(config, seats, community):
    """Settle one Big Raise Stud round: see the module docstring for the inputs."""
    checked = _read_seats(config, seats, True)
    deck = common.Deck()
    community = deck.take(community, _COMMUNITY_CARDS, "community")
    held = common.take_seat_cards(deck, seats, checked, _PLAYER_CARDS)
    results = []
    for s, player_cards in zip(checked, held):
        if s.empty:
            results.append(common.SeatResult(s.number, common.EMPTY, s.decision, None, player_cards))
        elif s.void:
            results.append(common.void_seat(s.number, s.wager_list()))
        else:
            results.append(_settle_seat(config, s, player_cards, community))
    return common.RoundResult(GAME, results)


def _settle_seat(config, s, player_cards, community):
    n = s.number
    hand = hands.best5(player_cards + community)
    folded = s.decision != RAISE
    seat = common.SeatResult(n, common.FOLDED if folded else common.PLAYED, s.decision, hand,
                             player_cards)
    if folded:
        seat.add(WagerResult(n, "risk", s.risk, LOSE, hand=hand))
    else:
        seat.add(common.pay_by_table(n, "risk", s.risk, config.risk_raise, hand))
        seat.add(common.pay_by_table(n, "raise", s.raise_, config.risk_raise, hand))
    if s.extra:
        # [BRS 4.1] the Three Card Extra is settled on the player's own cards, fold or not.
        seat.add(common.pay_by_table(n, "extra", s.extra, config.extra, hands.three(player_cards)))
    return seat.finish(config.max_payout, config.cap_scope)
