"""Four Card Poker settlement: Ante, Play, Ante Bonus and Aces Up [rules.md 3, 5].

    config = Config(aces_up_table="aces_a", blind_play=False, max_payout=None, ...)
    result = settle(config, seats, dealer)     # dealer: 6 cards, best four of six
    result = void_round(config, seats)         # misdeal: every wager returned

A seat is a dict: ``seat``, ``cards`` (5 cards, ints or text), wagers in cents ``ante``,
``aces_up``, ``play`` (missing = 0), ``blind_play`` (True when the Play wager was placed
before the cards were seen; only where option ``blind_play`` allows it [FCP 5.8]),
``decision`` (``"play"``, ``"fold"`` or ``"absent"``, settled as a fold [FCP 11.13]) and
``void``.  A seat with only Aces Up needs no decision and may not have a Play wager.

Settlement: the player's best four of five against the dealer's best four of six; equal or
better wins Ante and Play 1 to 1, lower loses both [FCP 5.7, 10.2].  The Ante Bonus pays on
the player's hand by its table whatever the dealer holds, but not on a folded hand; it is
reported as its own result ``ante_bonus`` with amount 0 (nothing extra was wagered) and the
bonus in ``won``.  Aces Up pays on the player's hand whatever the dealer holds, also after a
fold of the Ante (the player keeps the Aces Up).  A blind Play wager of a seat that folds is
withdrawn: returned with outcome void and line ``"withdrawn"``.
"""

from firmware.compat import const
from firmware.poker import hands, paytables
from firmware.poker import settle as common
from firmware.poker.settle import LOSE, VOID, WIN, WagerResult

GAME = "fcp"

PLAY = "play"
FOLD = "fold"
ABSENT = "absent"
DECISIONS = (PLAY, FOLD, ABSENT)
# Play wager as multiples of the Ante [FCP 5.2, 9.1-9.3].
PLAY_MULTIPLES = (1, 2, 3)

WAGERS = ("ante", "play", "aces_up")
SEAT_KEYS = ("seat", "cards", "decision", "void", "blind_play") + WAGERS
_PLAYER_CARDS = const(5)
_DEALER_CARDS = const(6)


def _defaults():
    d = dict(common.COMMON_DEFAULTS)
    d["ante_bonus_table"] = paytables.DEFAULTS[paytables.BET_ANTE_BONUS]
    d["aces_up_table"] = paytables.DEFAULTS[paytables.BET_ACES_UP]
    d["blind_play"] = False      # [FCP 5.8] only where the operator allows a blind Play wager
    d["aces_up_alone"] = True    # [FCP 5.1] Aces Up without Ante, at the operator's discretion
    return d


class Config(common.Options):
    """FCP rule options (see _defaults for names and defaults); ValueError names a bad one."""

    DEFAULTS = _defaults()

    def check(self):
        self.ante_bonus = paytables.check_bet(self.ante_bonus_table, paytables.BET_ANTE_BONUS)
        self.aces_up = paytables.check_bet(self.aces_up_table, paytables.BET_ACES_UP)
        for name in ("blind_play", "aces_up_alone"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError("option %s must be True or False, got %r" % (name, getattr(self, name)))


class _Seat:
    """A seat's checked wagers and decision."""

    def __init__(self, config, spot, need_decision):
        n = spot["seat"]
        self.number = n
        self.void = spot.get("void", False)
        self.ante = common.amount(spot, "ante")
        self.play = common.amount(spot, "play")
        self.aces_up = common.amount(spot, "aces_up")
        self.blind_play = spot.get("blind_play", False)
        self.decision = spot.get("decision")
        self.empty = not (self.ante or self.play or self.aces_up)
        if not isinstance(self.blind_play, bool):
            raise ValueError("seat %d: blind_play must be True or False, got %r" % (n, self.blind_play))
        if self.decision is not None:
            common.choice(self.decision, DECISIONS, "seat %d: decision" % n)
        if self.empty:
            if self.blind_play:
                raise ValueError("seat %d: blind_play without a Play wager" % n)
            return
        if not self.ante:
            if self.play:
                what = "an Aces-Up-only seat" if self.aces_up else "a seat without an Ante"
                raise ValueError("seat %d: a Play wager (%d) is not allowed from %s"
                                 % (n, self.play, what))
            if self.blind_play:
                raise ValueError("seat %d: blind_play without an Ante" % n)
            if not config.aces_up_alone:
                raise ValueError("seat %d: Aces Up without an Ante is not offered at this table" % n)
            return
        if self.blind_play:
            if not config.blind_play:
                raise ValueError("seat %d: a blind Play wager is not offered at this table" % n)
            self._check_play(n)
        if self.decision == PLAY:
            self._check_play(n)
        elif self.decision is None:
            if need_decision and not self.void:
                raise ValueError("seat %d: decision missing (one of %s)" % (n, ", ".join(DECISIONS)))
            if self.play:
                self._check_play(n)
        elif self.play and not self.blind_play:
            raise ValueError("seat %d: a seat that is %s cannot have a Play wager (%d)"
                             % (n, "folded" if self.decision == FOLD else "absent", self.play))

    def _check_play(self, n):
        if self.play not in [m * self.ante for m in PLAY_MULTIPLES]:
            raise ValueError("seat %d: Play (%d) must be 1x, 2x or 3x the Ante (%d)"
                             % (n, self.play, self.ante))

    def wager_list(self):
        return [("ante", self.ante), ("play", self.play), ("aces_up", self.aces_up)]


def _read_seats(config, seats, need_decision):
    return common.check_seats(GAME, config, Config, seats, SEAT_KEYS, _Seat, need_decision)


def void_round(config, seats):
    """Misdeal [FCP 11.2-11.12]: every wager of every seat is void and returned."""
    return common.void_all(GAME, _read_seats(config, seats, False))


def settle(config, seats, dealer):
    """Settle one Four Card Poker round: see the module docstring for the inputs."""
    checked = _read_seats(config, seats, True)
    deck = common.Deck()
    dealer = deck.take(dealer, _DEALER_CARDS, "dealer")
    held = common.take_seat_cards(deck, seats, checked, _PLAYER_CARDS)
    dealer_hand = hands.best4(dealer)
    results = []
    for s, player_cards in zip(checked, held):
        if s.empty:
            results.append(common.SeatResult(s.number, common.EMPTY, s.decision, None, player_cards))
        elif s.void:
            results.append(common.void_seat(s.number, s.wager_list()))
        else:
            results.append(_settle_seat(config, s, player_cards, dealer_hand))
    return common.RoundResult(GAME, results, dealer_hand=dealer_hand, dealer_qualifies=True)


def _settle_seat(config, s, player_cards, dealer_hand):
    n = s.number
    hand = hands.best4(player_cards)
    folded = bool(s.ante) and s.decision != PLAY
    seat = common.SeatResult(n, common.FOLDED if folded else common.PLAYED, s.decision, hand,
                             player_cards)
    if s.ante:
        if folded:
            seat.add(WagerResult(n, "ante", s.ante, LOSE, hand=hand))
            if s.play:
                # [FCP 5.8] a blind Play wager may be withdrawn when the player folds.
                seat.add(WagerResult(n, "play", s.play, VOID, hand=hand, line="withdrawn"))
        else:
            # [FCP 5.7] the player wins ties.
            outcome = WIN if hand >= dealer_hand else LOSE
            won = outcome == WIN
            seat.add(WagerResult(n, "ante", s.ante, outcome, s.ante if won else 0, hand, None,
                                 (1, 1) if won else None))
            seat.add(WagerResult(n, "play", s.play, outcome, s.play if won else 0, hand, None,
                                 (1, 1) if won else None))
            line = config.ante_bonus.line_for(hand)
            if line is not None:
                seat.add(WagerResult(n, "ante_bonus", 0, WIN,
                                     common.winnings(s.ante, line[3], line[4]), hand, line[0],
                                     (line[3], line[4]), s.ante))
    if s.aces_up:
        seat.add(common.pay_by_table(n, "aces_up", s.aces_up, config.aces_up, hand))
    return seat.finish(config.max_payout, config.cap_scope)
