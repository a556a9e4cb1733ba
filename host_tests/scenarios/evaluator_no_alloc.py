# Hand evaluation allocates nothing: every evaluator runs with the MicroPython heap locked
# (on CPython the lock is a stand-in, so the output is the same on both runtimes).
import sys

from firmware.compat import micropython
from firmware.poker import cards, hands

seven = cards.parse("As Kd 9h 9c 5s 3c 2d")
flush7 = cards.parse("2h 4h 6h 8h Th Jc Qd")
hole = cards.parse("As Kd")
board = cards.parse("Ah Kh Qh 2c 7d")
six = cards.parse("Jh Qh Kh Ah 2c 2d")
three = cards.parse("Ah Kh Qh")

results = [0, 0, 0, 0, 0, 0]
failed = 0


def run(rounds):
    for _ in range(rounds):
        results[0] = hands.best5(seven)
        results[1] = hands.best5(flush7)
        results[2] = hands.hole2_board3(hole, board)
        results[3] = hands.best4(six)
        results[4] = hands.three(three)
        results[5] = hands.category(results[0]) + hands.category(results[2])


run(1)
micropython.heap_lock()
try:
    run(200)
except MemoryError:
    failed = 1
micropython.heap_unlock()
print("allocated under heap_lock:", "yes" if failed else "no")
for value in results[:5]:
    print(hands.name(value))
if failed:
    sys.exit(1)
