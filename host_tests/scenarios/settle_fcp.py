# Four Card Poker settlement on both runtimes: hand-worked rounds (amounts from the rules.md pay
# tables), rejections, a void round, and seeded random rounds whose money must add up.
from firmware.poker import fcp
from host_tests.scenario_support import Checker, Lcg, money_problems, show_round

checker = Checker(44)
check = checker.check


def show(result):
    return show_round(result, 10)


config = fcp.Config(blind_play=True)
# Dealer Ah As Kd 7s 3c 2h: best four A A K 7.
# Seat 1 Ac Ad Kc 7h 2s: A A K 7, a tie: the player wins Ante 1000 and Play 3x 3000; Aces Up 500
#   pair of aces 1 to 1.
# Seat 2 9c 9d 9h 9s 4c: four nines, Play 2x: wins; Ante Bonus 25 x 1000; Aces Up 100 at 50.
# Seat 3 Qc Qd 5h 8s 6d: pair of queens, played: loses Ante 500 and Play 500.
# Seat 5 Jc Jd Jh Ks 2c: folds: Ante lost, no bonus; blind Play 1000 withdrawn; Aces Up 200 trips 8 = 1600.
# Seat 7 Tc Td 4h 5s 6c: Aces Up only 100, pair of tens: loses.
result = fcp.settle(config, [
    {"seat": 1, "cards": "Ac Ad Kc 7h 2s", "ante": 1000, "play": 3000, "aces_up": 500, "decision": "play"},
    {"seat": 2, "cards": "9c 9d 9h 9s 4c", "ante": 1000, "play": 2000, "aces_up": 100, "decision": "play"},
    {"seat": 3, "cards": "Qc Qd 5h 8s 6d", "ante": 500, "play": 500, "decision": "play"},
    {"seat": 5, "cards": "Jc Jd Jh Ks 2c", "ante": 1000, "play": 1000, "blind_play": True,
     "aces_up": 200, "decision": "fold"},
    {"seat": 7, "cards": "Tc Td 4h 5s 6c", "aces_up": 100},
], "Ah As Kd 7s 3c 2h")
print("dealer", result.dealer_name)
got = show(result)
check("tie: player wins ante", got[(1, "ante")], ("win", 1000, 1000))
check("tie: player wins play", got[(1, "play")], ("win", 3000, 3000))
check("aces up pair of aces", got[(1, "aces_up")], ("win", 500, 500))
check("ante bonus quads", got[(2, "ante_bonus")], ("win", 0, 25000))
check("aces up quads", got[(2, "aces_up")], ("win", 100, 5000))
check("lower hand loses play", got[(3, "play")], ("lose", 0, 0))
check("fold: ante lost", got[(5, "ante")], ("lose", 0, 0))
check("fold: blind play withdrawn", got[(5, "play")], ("void", 1000, 0))
check("fold: no ante bonus", (5, "ante_bonus") in got, False)
check("fold: aces up kept", got[(5, "aces_up")], ("win", 200, 1600))
check("aces up only: pair of tens", got[(7, "aces_up")], ("lose", 0, 0))
check("round wagered", result.wagered, 4500 + 3100 + 1000 + 2200 + 100)
check("round paid", result.paid, (4500 + 4500) + (3100 + 1000 + 2000 + 25000 + 5000) + 0
      + (1000 + 200 + 1600) + 0)

# Dealer's best four of six: the sixth card Kh makes three kings over three queens.
result = fcp.settle(config, [{"seat": 1, "cards": "Qc Qd Qh 8s 2c", "ante": 1000, "play": 1000,
                              "decision": "play"}], "Kc Kd 2h 3s 7c Kh")
got = show(result)
check("dealer four of six wins", got[(1, "ante")], ("lose", 0, 0))
check("ante bonus trips regardless", got[(1, "ante_bonus")], ("win", 0, 2000))

# Every Aces Up preset on a flush (6, 5, 6, 6 to 1) for 100.
for preset, want in (("aces_a", 600), ("aces_b", 500), ("aces_c", 600), ("aces_d", 600)):
    result = fcp.settle(fcp.Config(aces_up_table=preset),
                        [{"seat": 1, "cards": "2d 6d 9d Jd Kc", "aces_up": 100}], "Ah As Kd 7s 3c 2h")
    check("aces up flush " + preset, result.seat(1).wager("aces_up").won, want)

# Cap 30000 per hand: quads with Play 3x: 1000 + 3000 + 25000 + Aces Up 50 x 1000 = 79000.
result = fcp.settle(fcp.Config(max_payout=30000), [
    {"seat": 1, "cards": "9c 9d 9h 9s 2c", "ante": 1000, "play": 3000, "aces_up": 1000,
     "decision": "play"}], "2d 3d 4s 8d Jc Qs")
show(result)
check("cap: won", result.won, 30000)
check("cap: cut", result.cap_cut, 49000)

result = fcp.void_round(config, [{"seat": 2, "ante": 500, "play": 1500, "aces_up": 100}])
show(result)
check("void round", (result.void, result.paid, result.won), (True, 2100, 0))

BAD = [
    ("play 4x", {"seat": 1, "cards": "Ac Ad 4h 8s Kc", "ante": 100, "play": 400, "decision": "play"}),
    ("play from aces up only", {"seat": 1, "cards": "Ac Ad 4h 8s Kc", "aces_up": 100, "play": 100,
                                "decision": "play"}),
    ("four cards", {"seat": 1, "cards": "Ac Ad 4h 8s", "ante": 100, "play": 100, "decision": "play"}),
    ("duplicate with dealer", {"seat": 1, "cards": "Ah Ad 4h 8s Kc", "ante": 100, "play": 100,
                               "decision": "play"}),
    ("float ante", {"seat": 1, "cards": "Ac Ad 4h 8s Kc", "ante": 1.5, "decision": "fold"}),
]
for label, seat in BAD:
    checker.rejected(label, fcp.settle, config, [seat], "Ah As Kd 7s 3c 2h")

rng = Lcg(777)
rand = rng.below


bad_rounds = 0
paid_total = 0
for _round in range(120):
    deck = rng.shuffle(list(range(52)))
    seats = []
    staked = 0
    for n in range(1, 8):
        ante = 100 * rand(6)
        aces_up = 100 * rand(3)
        seat = {"seat": n, "cards": deck[5 * n - 5:5 * n], "aces_up": aces_up}
        if ante:
            decision = fcp.DECISIONS[rand(3)]
            play = ante * (1 + rand(3)) if decision == "play" else 0
            seat.update({"ante": ante, "play": play, "decision": decision})
        staked += ante + seat.get("play", 0) + aces_up
        seats.append(seat)
    result = fcp.settle(config, seats, deck[35:41])
    bad_rounds += money_problems(result, staked)
    paid_total += result.paid
print("random rounds paid in all", paid_total)
check("random rounds add up", bad_rounds, 0)

checker.finish()
