"""Property tests of settlement over random deals and wagers (hypothesis).

- No money is created or lost: every cent wagered appears in exactly one result, a result
  returns all or nothing of its wager, totals add up, and winnings never exceed the exact
  odds (rounding only ever drops a fraction of a cent).
- A tie always pushes UTH Ante/Play/Blind (and always wins FCP Ante/Play).
- Trips, Aces Up, the Ante Bonus and the Three Card Extra never depend on the dealer's (or the
  community) cards they do not use.
- A void round returns exactly what was wagered.
- Swapping two seats swaps their results.
- The payout cap only moves winnings into cap_cut, never changes anything else.
"""

from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware.poker import brs, fcp, hands, paytables, uth

PROFILE = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

deck = st.permutations(list(range(52)))
cents = st.integers(min_value=1, max_value=50000)


def seat_numbers(count):
    return st.lists(st.integers(min_value=1, max_value=7), min_size=count, max_size=count,
                    unique=True)


# --- random wagers per game ----------------------------------------------------------------------

@st.composite
def uth_spot(draw, number, hole):
    ante = draw(st.one_of(st.just(0), cents))
    spot = {"seat": number, "cards": hole}
    if not ante:
        return spot
    decision = draw(st.sampled_from(uth.DECISIONS))
    multiple = {"preflop": draw(st.sampled_from((3, 4))), "flop": 2, "river": 1}.get(decision, 0)
    spot.update(ante=ante, blind=ante, play=multiple * ante, decision=decision,
                trips=draw(st.one_of(st.just(0), cents)), jackpot=draw(st.sampled_from((0, 100))),
                void=draw(st.integers(0, 9)) == 0)
    return spot


@st.composite
def uth_round(draw):
    cards = draw(deck)
    count = draw(st.integers(min_value=1, max_value=7))
    numbers = draw(seat_numbers(count))
    seats = [draw(uth_spot(n, cards[2 * i:2 * i + 2])) for i, n in enumerate(numbers)]
    board = cards[14:19]
    dealer = cards[19:21]
    options = {"hand_rule": draw(st.sampled_from(uth.HAND_RULES)),
               "trips_hand_rule": draw(st.sampled_from((None,) + uth.HAND_RULES)),
               "trips_table": draw(st.sampled_from(paytables.names(paytables.BET_TRIPS)))}
    return seats, board, dealer, options, cards[21:]


@st.composite
def fcp_spot(draw, number, held):
    ante = draw(st.one_of(st.just(0), cents))
    aces_up = draw(st.one_of(st.just(0), cents))
    spot = {"seat": number, "cards": held}
    if ante:
        decision = draw(st.sampled_from(fcp.DECISIONS))
        blind = draw(st.booleans())
        play = draw(st.sampled_from(fcp.PLAY_MULTIPLES)) * ante if decision == "play" or blind else 0
        spot.update(ante=ante, play=play, decision=decision, blind_play=blind and play > 0)
    if aces_up:
        spot["aces_up"] = aces_up
    if ante or aces_up:
        spot["void"] = draw(st.integers(0, 9)) == 0
    return spot


@st.composite
def fcp_round(draw):
    cards = draw(deck)
    count = draw(st.integers(min_value=1, max_value=7))
    numbers = draw(seat_numbers(count))
    seats = [draw(fcp_spot(n, cards[5 * i:5 * i + 5])) for i, n in enumerate(numbers)]
    options = {"blind_play": True,
               "aces_up_table": draw(st.sampled_from(paytables.names(paytables.BET_ACES_UP)))}
    return seats, cards[35:41], options, cards[41:]


@st.composite
def brs_spot(draw, number, held):
    risk = draw(st.one_of(st.just(0), cents))
    spot = {"seat": number, "cards": held}
    if not risk:
        return spot
    decision = draw(st.sampled_from(brs.DECISIONS))
    multiple = draw(st.sampled_from((1, 2, 3, 4))) if decision == "raise" else 0
    spot.update({"risk": risk, "raise": multiple * risk, "decision": decision,
                 "extra": draw(st.one_of(st.just(0), cents)), "void": draw(st.integers(0, 9)) == 0})
    return spot


@st.composite
def brs_round(draw):
    cards = draw(deck)
    count = draw(st.integers(min_value=1, max_value=7))
    numbers = draw(seat_numbers(count))
    seats = [draw(brs_spot(n, cards[3 * i:3 * i + 3])) for i, n in enumerate(numbers)]
    options = {"extra_table": draw(st.sampled_from(paytables.names(paytables.BET_EXTRA)))}
    return seats, cards[21:23], options, cards[23:]


# --- money --------------------------------------------------------------------------------------

WAGER_KEYS = ("ante", "blind", "play", "trips", "jackpot", "aces_up", "risk", "raise", "extra")


def wagered_in(seats):
    """Cents on the table, added up from the input alone."""
    return sum(spot.get(key, 0) for spot in seats for key in WAGER_KEYS)


def check_money(result, seats):
    assert result.wagered == wagered_in(seats)
    totals = [0, 0, 0, 0]
    for seat in result.seats:
        s_totals = [0, 0, 0, 0]
        for w in seat.wagers:
            assert w.seat == seat.seat
            assert w.won >= 0 and w.cap_cut >= 0
            if w.outcome == "lose":
                assert (w.returned, w.won) == (0, 0)
            elif w.outcome in ("push", "void"):
                assert (w.returned, w.won) == (w.amount, 0)
            else:
                assert w.outcome == "win" and w.returned == w.amount
                num, den = w.odds
                # Rounding drops at most a fraction of a cent and never adds one.
                exact = Fraction(w.base * num, den)
                assert exact - 1 < w.won + w.cap_cut <= exact
            assert w.paid == w.returned + w.won
            for i, value in enumerate((w.amount, w.returned, w.won, w.cap_cut)):
                s_totals[i] += value
        assert s_totals == [seat.wagered, seat.returned, seat.won, seat.cap_cut]
        assert seat.paid == seat.returned + seat.won
        for i in range(4):
            totals[i] += s_totals[i]
    assert totals == [result.wagered, result.returned, result.won, result.cap_cut]
    assert result.paid == result.returned + result.won


@PROFILE
@given(uth_round())
def test_uth_no_money_created_or_lost(deal):
    seats, board, dealer, options, _ = deal
    check_money(uth.settle(uth.Config(**options), seats, board, dealer), seats)


@PROFILE
@given(fcp_round())
def test_fcp_no_money_created_or_lost(deal):
    seats, dealer, options, _ = deal
    check_money(fcp.settle(fcp.Config(**options), seats, dealer), seats)


@PROFILE
@given(brs_round())
def test_brs_no_money_created_or_lost(deal):
    seats, community, options, _ = deal
    check_money(brs.settle(brs.Config(**options), seats, community), seats)


# --- void rounds ----------------------------------------------------------------------------------

def check_void(result, seats):
    assert result.void
    assert result.won == 0 and result.paid == result.wagered == wagered_in(seats)
    for spot in seats:
        staked = sum(spot.get(key, 0) for key in WAGER_KEYS)
        if staked:
            seat = result.seat(spot["seat"])
            assert seat.paid == staked and all(w.outcome == "void" for w in seat.wagers)


@PROFILE
@given(uth_round(), fcp_round(), brs_round())
def test_void_round_returns_exactly_what_was_wagered(u, f, b):
    check_void(uth.void_round(uth.Config(**u[3]), u[0]), u[0])
    check_void(fcp.void_round(fcp.Config(**f[2]), f[0]), f[0])
    check_void(brs.void_round(brs.Config(**b[2]), b[0]), b[0])


# --- ties ---------------------------------------------------------------------------------------

@PROFILE
@given(deck, st.sampled_from(uth.HAND_RULES), cents, st.sampled_from(("preflop", "flop", "river")))
def test_uth_tie_always_pushes_ante_play_blind(cards, rule, ante, decision):
    # Give the dealer the player's two ranks in other suits; keep the deals that tie.
    player = cards[:2]
    others = [c for c in cards[2:] if (c >> 2) in (player[0] >> 2, player[1] >> 2)]
    dealer = [c for c in others if c >> 2 == player[0] >> 2][:1] + \
             [c for c in others if c >> 2 == player[1] >> 2 and c != player[0]][-1:]
    assume(len(dealer) == 2 and dealer[0] != dealer[1])
    board = [c for c in cards[2:] if c not in dealer][:5]
    join = hands.best5 if rule == uth.BEST5OF7 else None
    if join:
        tie = join(player + board) == join(dealer + board)
    else:
        tie = hands.hole2_board3(player, board) == hands.hole2_board3(dealer, board)
    assume(tie)
    multiple = {"preflop": 4, "flop": 2, "river": 1}[decision]
    spot = {"seat": 1, "cards": player, "ante": ante, "blind": ante, "play": multiple * ante,
            "decision": decision}
    seat = uth.settle(uth.Config(hand_rule=rule), [spot], board, dealer).seat(1)
    assert [(w.wager, w.outcome) for w in seat.wagers] == [
        ("ante", "push"), ("blind", "push"), ("play", "push")]
    assert seat.paid == seat.wagered


@PROFILE
@given(deck, cents)
def test_fcp_tie_always_wins_ante_and_play(cards, ante):
    # The dealer gets the player's five ranks in other suits plus one more card; keep ties.
    player = cards[:5]
    dealer = []
    for card in player:
        for other in cards[5:]:
            if other >> 2 == card >> 2 and other not in dealer:
                dealer.append(other)
                break
    assume(len(dealer) == 5)
    dealer.append([c for c in cards[5:] if c not in dealer][0])
    assume(hands.best4(player) == hands.best4(dealer))
    spot = {"seat": 1, "cards": player, "ante": ante, "play": ante, "decision": "play"}
    seat = fcp.settle(fcp.Config(), [spot], dealer).seat(1)
    assert seat.wager("ante").outcome == "win" and seat.wager("play").outcome == "win"


# --- side bets ignore the dealer -----------------------------------------------------------------

SIDE_BETS = ("trips", "aces_up", "ante_bonus", "extra")


def side_bets(result):
    return [(s.seat, w.key()) for s in result.seats for w in s.wagers if w.wager in SIDE_BETS]


@PROFILE
@given(uth_round(), st.data())
def test_uth_trips_never_depends_on_the_dealer(deal, data):
    seats, board, dealer, options, rest = deal
    other = data.draw(st.permutations(rest))[:2]
    config = uth.Config(**options)
    assert side_bets(uth.settle(config, seats, board, dealer)) == \
        side_bets(uth.settle(config, seats, board, other))


@PROFILE
@given(fcp_round(), st.data())
def test_fcp_aces_up_and_ante_bonus_never_depend_on_the_dealer(deal, data):
    seats, dealer, options, rest = deal
    other = data.draw(st.permutations(rest))[:6]
    config = fcp.Config(**options)
    assert side_bets(fcp.settle(config, seats, dealer)) == side_bets(fcp.settle(config, seats, other))


@PROFILE
@given(brs_round(), st.data())
def test_brs_three_card_extra_never_depends_on_the_community_cards(deal, data):
    seats, community, options, rest = deal
    other = data.draw(st.permutations(rest))[:2]
    config = brs.Config(**options)
    assert side_bets(brs.settle(config, seats, community)) == \
        side_bets(brs.settle(config, seats, other))


# --- swapping seats -----------------------------------------------------------------------------

def swap_numbers(seats, a, b):
    swapped = []
    for spot in seats:
        spot = dict(spot)
        if spot["seat"] == a:
            spot["seat"] = b
        elif spot["seat"] == b:
            spot["seat"] = a
        swapped.append(spot)
    return swapped


def check_swap(before, after, a, b):
    rename = {a: b, b: a}
    assert sorted(s.seat for s in before.seats) == sorted(rename.get(s.seat, s.seat) for s in after.seats)
    for seat in before.seats:
        moved = after.seat(rename.get(seat.seat, seat.seat))
        assert seat.key() == moved.key()
    assert before.wagered == after.wagered and before.paid == after.paid


@PROFILE
@given(uth_round(), st.data())
def test_uth_swapping_two_seats_swaps_their_results(deal, data):
    seats, board, dealer, options, _ = deal
    assume(len(seats) >= 2)
    i, j = data.draw(st.lists(st.integers(0, len(seats) - 1), min_size=2, max_size=2, unique=True))
    a, b = seats[i]["seat"], seats[j]["seat"]
    config = uth.Config(**options)
    before = uth.settle(config, seats, board, dealer)
    after = uth.settle(config, swap_numbers(seats, a, b), board, dealer)
    check_swap(before, after, a, b)
    rename = {a: b, b: a}
    assert sorted((rename.get(c.seat, c.seat), c.hand, c.cards) for c in before.claims) == \
        sorted((c.seat, c.hand, c.cards) for c in after.claims)


@PROFILE
@given(fcp_round(), st.data())
def test_fcp_swapping_two_seats_swaps_their_results(deal, data):
    seats, dealer, options, _ = deal
    assume(len(seats) >= 2)
    a, b = seats[0]["seat"], seats[-1]["seat"]
    config = fcp.Config(**options)
    check_swap(fcp.settle(config, seats, dealer), fcp.settle(config, swap_numbers(seats, a, b), dealer),
               a, b)


@PROFILE
@given(brs_round(), st.data())
def test_brs_swapping_two_seats_swaps_their_results(deal, data):
    seats, community, options, _ = deal
    assume(len(seats) >= 2)
    a, b = seats[0]["seat"], seats[-1]["seat"]
    config = brs.Config(**options)
    check_swap(brs.settle(config, seats, community),
               brs.settle(config, swap_numbers(seats, a, b), community), a, b)


# --- the payout cap --------------------------------------------------------------------------------

@PROFILE
@given(uth_round(), st.integers(min_value=0, max_value=200000), st.sampled_from(("hand", "wager")))
def test_uth_cap_only_moves_winnings_into_cap_cut(deal, cap, scope):
    seats, board, dealer, options, _ = deal
    free = uth.settle(uth.Config(**options), seats, board, dealer)
    capped = uth.settle(uth.Config(max_payout=cap, cap_scope=scope, **options), seats, board, dealer)
    for s_free, s_cap in zip(free.seats, capped.seats):
        for w_free, w_cap in zip(s_free.wagers, s_cap.wagers):
            assert (w_cap.wager, w_cap.outcome, w_cap.returned) == \
                (w_free.wager, w_free.outcome, w_free.returned)
            assert w_cap.won + w_cap.cap_cut == w_free.won
            assert w_cap.won <= cap
        if scope == "hand":
            assert s_cap.won == min(s_free.won, cap)
