# UTH settlement on both runtimes: hand-worked rounds (amounts from the rules.md pay tables),
# rejections, a void round, and seeded random rounds whose money must add up.
from firmware.poker import uth
from host_tests.scenario_support import Checker, Lcg, money_problems, show_round

checker = Checker(44)
check = checker.check


def show(result):
    return show_round(result, 8)


def spot(number, hole, ante, decision, multiple=0, trips=0, jackpot=0):
    return {"seat": number, "cards": hole, "ante": ante, "blind": ante, "play": multiple * ante,
            "decision": decision, "trips": trips, "jackpot": jackpot}


config = uth.Config()
# Board Qs Js Ts 2d 3c, dealer 2h 2c: three deuces (qualifies).
# Seat 1 As Ks: royal flush.  Ante 1000 wins 1000, Blind 500 to 1 = 500000, Play 4x 4000,
#   Trips 100 at 50 = 5000, jackpot claim on As Ks Qs Js Ts.
# Seat 2 9s 8s: straight flush.  Blind 50 to 1 on 500 = 25000; Play 3x 1500.
# Seat 4 Ad Kd: folded (A K Q J T straight at the river): Ante, Blind lost; Trips 200 at 4 to 1 = 800.
# Seat 6 4h 5h must use both hole cards: 5 4 3 2 needs an ace or a six, so queen high; river
#   1x: the dealer's trips win, everything lost.
result = uth.settle(config, [
    spot(1, "As Ks", 1000, "preflop", 4, trips=100, jackpot=100),
    spot(2, "9s 8s", 500, "preflop", 3),
    spot(4, "Ad Kd", 1000, "fold", trips=200, jackpot=100),
    spot(6, "4h 5h", 300, "river", 1),
], "Qs Js Ts 2d 3c", "2h 2c")
print("round 1: dealer", result.dealer_name, "qualifies", result.dealer_qualifies)
got = show(result)
check("seat 1 blind royal", got[(1, "blind")], ("win", 1000, 500000))
check("seat 1 trips royal", got[(1, "trips")], ("win", 100, 5000))
check("seat 1 jackpot collected", got[(1, "jackpot")], ("lose", 0, 0))
check("seat 2 blind straight flush", got[(2, "blind")], ("win", 500, 25000))
check("seat 2 play 3x", got[(2, "play")], ("win", 1500, 1500))
check("seat 4 folded ante", got[(4, "ante")], ("lose", 0, 0))
check("seat 4 trips straight on a fold", got[(4, "trips")], ("win", 200, 800))
check("seat 6 play loses", got[(6, "play")], ("lose", 0, 0))
check("claims", [(c.seat, c.hand_name) for c in result.claims], [(1, "Royal Flush")])
check("jackpot hands", uth.jackpot_hands(result), [(1, [51, 47], True), (4, None, False)])
check("round wagered", result.wagered, 1000 * 2 + 4000 + 100 + 100 + 500 * 2 + 1500 + 1000 * 2 + 200
      + 100 + 300 * 3)
# Seat 1's jackpot wager is collected, not returned: 6100 returned.
check("round paid", result.paid, (6100 + 1000 + 500000 + 4000 + 5000) + (2500 + 500 + 25000 + 1500)
      + (200 + 800))

# Dealer not qualified (Kd 3s on 2c 7d 9h Js 4c: king high): Ante pushes; the player's ace high
# wins Play 2x 2000; the Blind pushes on a hand below a straight.
result = uth.settle(config, [spot(3, "Ah 8d", 1000, "flop", 2)], "2c 7d 9h Js 4c", "Kd 3s")
print("round 2: dealer", result.dealer_name, "qualifies", result.dealer_qualifies)
got = show(result)
check("unqualified dealer: ante push", got[(3, "ante")], ("push", 1000, 0))
check("unqualified dealer: blind push", got[(3, "blind")], ("push", 1000, 0))
check("unqualified dealer: play wins", got[(3, "play")], ("win", 2000, 2000))

# Flush 3 to 2 on an odd Blind: 125 -> 187 (the half cent is not paid).
result = uth.settle(config, [spot(1, "Ah 7h", 125, "preflop", 3)], "Kh 4h 2h 9c Tc", "Qd Qs")
got = show(result)
check("blind 3 to 2 on 125", got[(1, "blind")], ("win", 125, 187))

# best5of7 against hole2_board3 on the same cards (As 3c on Ks Qs Js Ts 2d).
for rule, want in (("hole2_board3", ("lose", 0, 0)), ("best5of7", ("win", 1000, 500000))):
    result = uth.settle(uth.Config(hand_rule=rule), [spot(1, "As 3c", 1000, "preflop", 4)],
                        "Ks Qs Js Ts 2d", "2c 2h")
    check("hand rule %s blind" % rule, show(result)[(1, "blind")], want)

# Payout cap 100000 per hand on the royal.
result = uth.settle(uth.Config(max_payout=100000), [spot(1, "As Ks", 1000, "preflop", 4)],
                    "Qs Js Ts 2d 3c", "2h 2c")
show(result)
check("cap: won", result.won, 100000)
check("cap: cut", result.cap_cut, 1000 + 500000 + 4000 - 100000)

# Void round (misdeal) and void seat.
result = uth.void_round(config, [spot(1, "As", 1000, "preflop", 4, trips=100, jackpot=100)])
show(result)
check("void round paid", (result.void, result.paid, result.won), (True, 6200, 0))

# Rejections, each with its message.
BAD = [
    ("play 2x preflop", [spot(1, "Ah 8d", 1000, "preflop", 2)], "2c 7d 9h Js 4c", "Kd 3s"),
    ("ante != blind", [{"seat": 1, "cards": "Ah 8d", "ante": 10, "blind": 20, "decision": "fold"}],
     "2c 7d 9h Js 4c", "Kd 3s"),
    ("jackpot alone", [{"seat": 1, "cards": "Ah 8d", "jackpot": 100}], "2c 7d 9h Js 4c", "Kd 3s"),
    ("duplicate card", [spot(1, "Ah 2c", 1000, "fold")], "2c 7d 9h Js 4c", "Kd 3s"),
    ("three hole cards", [spot(1, "Ah 8d 8c", 1000, "fold")], "2c 7d 9h Js 4c", "Kd 3s"),
    ("negative trips", [spot(1, "Ah 8d", 1000, "fold", trips=-1)], "2c 7d 9h Js 4c", "Kd 3s"),
    ("bool ante", [spot(1, "Ah 8d", True, "fold")], "2c 7d 9h Js 4c", "Kd 3s"),
]
for label, seats, board, dealer in BAD:
    checker.rejected(label, uth.settle, config, seats, board, dealer)
checker.rejected("unknown pay table", uth.Config, trips_table="trips_q")

# Seeded random rounds: every cent is accounted for.
rng = Lcg(12345)
rand = rng.below


bad_rounds = 0
paid_total = 0
for round_no in range(150):
    deck = rng.shuffle(list(range(52)))
    seats = []
    staked = 0
    for n in range(1, 8):
        ante = 100 * (1 + rand(10))
        decision = uth.DECISIONS[rand(5)]
        multiple = {"preflop": 3 + rand(2), "flop": 2, "river": 1}.get(decision, 0)
        s = spot(n, deck[2 * n:2 * n + 2], ante, decision, multiple, trips=100 * rand(3),
                 jackpot=100 * rand(2))
        staked += 2 * ante + multiple * ante + s["trips"] + s["jackpot"]
        seats.append(s)
    rule = uth.HAND_RULES[round_no % 2]
    result = uth.settle(uth.Config(hand_rule=rule), seats, deck[16:21], deck[21:23])
    bad_rounds += money_problems(result, staked)
    paid_total += result.paid
print("random rounds paid in all", paid_total)
check("random rounds add up", bad_rounds, 0)

checker.finish()
