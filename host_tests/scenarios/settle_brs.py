# Big Raise Stud settlement on both runtimes: hand-worked rounds (amounts from the rules.md pay
# tables), rejections, a void round, and seeded random rounds whose money must add up.
from firmware.poker import brs
from host_tests.scenario_support import Checker, Lcg, money_problems, show_round

checker = Checker(44)
check = checker.check


def show(result):
    return show_round(result, 6)


config = brs.Config()
# Community Ks Ts.
# Seat 1 As Qs Js: royal flush: Risk 100 at 500 = 50000, Raise 4x 400 at 500 = 200000,
#   Extra 100 on A Q J suited: a three-card flush, 4 to 1 = 400.
# Seat 2 9c 9d 3h: pair of nines: Risk and Raise push.
# Seat 3 Tc 4d 3c: pair of tens with the community ten: 1 to 1 on Risk 200 and Raise 2x 400.
# Seat 4 Ah Kh Qh: folds (a pair of kings at the community): Risk lost, Extra 100 mini royal 40 = 4000.
# Seat 5 5c 5d 2h: pair of fives: Risk 300 and Raise 1x 300 lose; Extra 100 pair 1 to 1 = 100.
result = brs.settle(config, [
    {"seat": 1, "cards": "As Qs Js", "risk": 100, "raise": 400, "extra": 100, "decision": "raise"},
    {"seat": 2, "cards": "9c 9d 3h", "risk": 100, "raise": 300, "decision": "raise"},
    {"seat": 3, "cards": "Tc 4d 3c", "risk": 200, "raise": 400, "decision": "raise"},
    {"seat": 4, "cards": "Ah Kh Qh", "risk": 100, "extra": 100, "decision": "fold"},
    {"seat": 5, "cards": "5c 5d 2h", "risk": 300, "raise": 300, "extra": 100, "decision": "raise"},
], "Ks Ts")
got = show(result)
check("royal risk", got[(1, "risk")], ("win", 100, 50000))
check("royal raise", got[(1, "raise")], ("win", 400, 200000))
check("extra three-card flush", got[(1, "extra")], ("win", 100, 400))
check("nines push risk", got[(2, "risk")], ("push", 100, 0))
check("nines push raise", got[(2, "raise")], ("push", 300, 0))
check("tens win raise", got[(3, "raise")], ("win", 400, 400))
check("fold loses risk", got[(4, "risk")], ("lose", 0, 0))
check("fold keeps extra", got[(4, "extra")], ("win", 100, 4000))
check("fives lose raise", got[(5, "raise")], ("lose", 0, 0))
check("extra pair", got[(5, "extra")], ("win", 100, 100))
check("round wagered", result.wagered, 600 + 400 + 600 + 200 + 700)
check("round paid", result.paid, (600 + 250400) + 400 + (600 + 600) + (100 + 4000) + (100 + 100))

# Every Extra preset on three of a kind (30, 25, 25 to 1) for 100.
for preset, want in (("extra_a", 3000), ("extra_b", 2500), ("extra_c", 2500)):
    result = brs.settle(brs.Config(extra_table=preset), [
        {"seat": 1, "cards": "9c 9d 9h", "risk": 100, "extra": 100, "decision": "fold"}], "2c 3d")
    check("extra trips " + preset, result.seat(1).wager("extra").won, want)

# Cap 1000000 per hand on a royal with Risk 1000 and Raise 4000.
result = brs.settle(brs.Config(max_payout=1000000), [
    {"seat": 1, "cards": "As Qs Js", "risk": 1000, "raise": 4000, "decision": "raise"}], "Ks Ts")
show(result)
check("cap: won", result.won, 1000000)
check("cap: cut", result.cap_cut, 1500000)

result = brs.void_round(config, [{"seat": 6, "risk": 500, "raise": 2000, "extra": 100}])
show(result)
check("void round", (result.void, result.paid, result.won), (True, 2600, 0))

BAD = [
    ("raise 5x", {"seat": 1, "cards": "Tc Td 3h", "risk": 100, "raise": 500, "decision": "raise"}),
    ("raise 1.5x", {"seat": 1, "cards": "Tc Td 3h", "risk": 100, "raise": 150, "decision": "raise"}),
    ("extra without risk", {"seat": 1, "cards": "Tc Td 3h", "extra": 100}),
    ("two cards", {"seat": 1, "cards": "Tc Td", "risk": 100, "decision": "fold"}),
    ("duplicate with community", {"seat": 1, "cards": "Tc Td Ks", "risk": 100, "decision": "fold"}),
]
for label, seat in BAD:
    checker.rejected(label, brs.settle, config, [seat], "Ks Ts")

rng = Lcg(4242)
rand = rng.below


bad_rounds = 0
paid_total = 0
for _round in range(150):
    deck = rng.shuffle(list(range(52)))
    seats = []
    staked = 0
    for n in range(1, 8):
        risk = 100 * (1 + rand(5))
        decision = brs.DECISIONS[rand(3)]
        raised = risk * (1 + rand(4)) if decision == "raise" else 0
        extra = 100 * rand(2)
        seats.append({"seat": n, "cards": deck[3 * n - 3:3 * n], "risk": risk, "raise": raised,
                      "extra": extra, "decision": decision})
        staked += risk + raised + extra
    result = brs.settle(config, seats, deck[21:23])
    bad_rounds += money_problems(result, staked)
    paid_total += result.paid
print("random rounds paid in all", paid_total)
check("random rounds add up", bad_rounds, 0)

checker.finish()
