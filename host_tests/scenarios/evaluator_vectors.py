# Evaluator vectors: each hand with the category a poker player names for it, and hands in
# strictly rising order. The labels are written by hand from the ranking in rules.md section 1.
from firmware.poker import cards, hands
from host_tests.scenario_support import Checker

FIVE = [
    ("As Ks Qs Js Ts", "Royal Flush"),
    ("9h Th Jh Qh Kh", "Straight Flush"),
    ("Ad 2d 3d 4d 5d", "Straight Flush"),
    ("7c 7d 7h 7s 2c", "Four of a Kind"),
    ("Kc Kd Kh 2s 2c", "Full House"),
    ("2h 7h 9h Jh Kh", "Flush"),
    ("Ac 2d 3h 4s 5c", "Straight"),
    ("Tc Jd Qh Ks Ac", "Straight"),
    ("5c 5d 5h Ks 2c", "Three of a Kind"),
    ("5c 5d Kh Ks 2c", "Two Pair"),
    ("Ac Ad 9h 7s 2c", "One Pair"),
    ("Ac Qd 9h 7s 2c", "High Card"),
    ("Qc Kd Ah 2s 3c", "High Card"),
]

SEVEN = [
    ("As Ks Qs Js Ts 2c 2d", "Royal Flush"),
    ("2c 3c 4c 5c 6c 7c 8d", "Straight Flush"),
    ("Kc Kd Kh Qs Qc Qd 2c", "Full House"),
    ("9c 9d 9h 9s 8c 8d 8h", "Four of a Kind"),
    ("Ac 2c 3c 4c 5d 6h 7s", "Straight"),
    ("2h 4h 6h 8h Th Jc Qd", "Flush"),
    ("2c 2d 3c 3d 4c 4d 5h", "Two Pair"),
    ("Ac Kd 9h 7s 5c 3d 2h", "High Card"),
]

# Rising order, each strictly better than the one before (kickers included).
RISING = [
    "7c 5d 4h 3s 2c",
    "Ac Kd Qh Js 9c",
    "2c 2d 3h 4s 5c",
    "2c 2d Ah Ks Qc",
    "Ac Ad 4h 3s 2c",
    "Ac Ad Kh 3s 2c",
    "3c 3d 2h 2s 4c",
    "3c 3d 2h 2s Ac",
    "Ac Ad Kh Ks 2c",
    "Ac Ad Kh Ks Qc",
    "2c 2d 2h 4s 3c",
    "Ac Ad Ah Ks Qc",
    "Ac 2d 3h 4s 5c",
    "2c 3d 4h 5s 6c",
    "Tc Jd Qh Ks Ac",
    "2h 3h 4h 5h 7h",
    "Ah Kh Qh Jh 9h",
    "2c 2d 2h 3s 3c",
    "Ac Ad Ah Ks Kc",
    "2c 2d 2h 2s 3c",
    "Ac Ad Ah As Kc",
    "Ad 2d 3d 4d 5d",
    "9h Th Jh Qh Kh",
    "As Ks Qs Js Ts",
]

FOUR = [
    ("7c 7d 7h 7s", "Four of a Kind"),
    ("Jh Qh Kh Ah", "Straight Flush"),
    ("Ah 2h 3h 4h", "Straight Flush"),
    ("5c 5d 5h Ks", "Three of a Kind"),
    ("2h 7h 9h Jh", "Flush"),
    ("Ac 2d 3h 4s", "Straight"),
    ("5c 5d Kh Ks", "Two Pair"),
    ("Ac Ad 9h 7s", "One Pair"),
    ("Ac Qd 9h 7s", "High Card"),
    ("7c 7d 7h 7s 2c 3c", "Four of a Kind"),
    ("Jh Qh Kh Ah 2c 2d", "Straight Flush"),
    ("5c 5d 5h 6c 7c 9c", "Three of a Kind"),
    ("5c 5d 5h 6c 7c 8c", "Straight Flush"),
]

THREE = [
    ("Ah Kh Qh", "Straight Flush"),
    ("Ah 2h 3h", "Straight Flush"),
    ("5c 5d 5h", "Three of a Kind"),
    ("Ac 2d 3h", "Straight"),
    ("2h 7h 9h", "Flush"),
    ("Ac Ad 9h", "One Pair"),
    ("Ac Qd 9h", "High Card"),
]

checker = Checker(24)


def check(label, got, want):
    checker.check("%-24s %s" % (label, got), got, want)


for text, want in FIVE:
    check(text, hands.name(hands.best5(cards.parse(text))), want)
for text, want in SEVEN:
    check(text, hands.name(hands.best5(cards.parse(text))), want)
for text, want in FOUR:
    check(text, hands.name(hands.best4(cards.parse(text))), want)
for text, want in THREE:
    check(text, hands.name(hands.three(cards.parse(text))), want)

previous = -1
for text in RISING:
    value = hands.best5(cards.parse(text))
    check(text, "above" if value > previous else "not above", "above")
    previous = value

# The NZ rule must use both hole cards: a board straight does not play for the player.
hole = cards.parse("2c 2d")
board = cards.parse("9h Th Jh Qs Kd")
check("NZ 22 on 9TJQK", hands.name(hands.hole2_board3(hole, board)), "One Pair")
check("7 of 7 on 9TJQK", hands.name(hands.best5(hole + board)), "Straight")

for bad in ("Xs", "A", "1h", "Asx", "10x", "As As"):
    checker.rejected("parse " + bad, cards.parse, bad)

checker.finish()
