# The rules' pay math timed inside MicroPython, for tools/table_bench.py: settling a full
# seven-seat UTH table with Trips and the jackpot wager with the rules' settlement module,
# which the table's firmware does not load.  Timed in a VM of its own, so that it takes
# nothing from the firmware's heap (nor, since the fifteenth session, adds its names to the
# benchmark's script, tools/mp/table_bench.py).  Prints "settle7_us N".
import time

from firmware.poker import uth

config = uth.Config()
seats = []
deck = list(range(52))
for s in range(7):
    seats.append({"seat": s + 1, "cards": [deck[2 * s], deck[2 * s + 1]], "ante": 500,
                  "blind": 500, "play": 2000, "trips": 500, "jackpot": 100,
                  "decision": "preflop"})
board = deck[14:19]
dealer = deck[19:21]
uth.settle(config, seats, board, dealer)
t0 = time.ticks_us()
for _ in range(20):
    uth.settle(config, seats, board, dealer)
print("settle7_us", time.ticks_diff(time.ticks_us(), t0) // 20)
