# Jackpot rounds on both runtimes: hand-worked payouts of rules.md 11.10, then 400 seeded
# rounds with voids, hits, additions, splits, merges and config changes, checked against
# integer oracles kept by this script (exact shares in millionths of a cent).
import sys

from firmware.jackpot import meters as m
from firmware.jackpot import record
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards

UNIT = 1000000
failures = []


def expect(what, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


# rules.md 11.10 by hand: pool 2,000,000, flush 100 x 100 = 10,000 -> 1,990,000; SF max(100,000,
# 10% = 199,000) -> 1,791,000; royal takes the 1,791,000 left; reset 2,000,000 by the operator.
jp = Jackpot({"wager": 100, "main": {"rate": (0, 1), "reset": 2000000}})
jp.contribute(1, [1, 2, 3])
s = jp.settle(1, 10, cards.parse("Qh Jh Th"), [(1, cards.parse("Ah Kh"), True),
                                              (2, cards.parse("9h 8h"), True),
                                              (3, cards.parse("2h 3h"), True)])
expect("11.10 amounts", [h[m.H_AMOUNT] for h in s.hits], [10000, 199000, 1791000])
expect("11.10 reset", s.resets, [[0, 0, 2000000]])
print("11.10:", [h[m.H_AMOUNT] for h in s.hits], "reset", s.resets)

# The envy bonus (docs/jackpot.md, Decision (envy)) by hand: pool 2,000,000, seat 2's straight
# flush takes max(100,000, 10% = 200,000) -> 1,800,000; seats 1 and 3 played and get 5,000
# each from what is left -> 1,790,000; seat 4 folded and gets none.
jp = Jackpot({"wager": 100, "main": {"rate": (0, 1), "reset": 2000000},
              "envy": {"straight_flush": 5000}})
jp.contribute(1, [1, 2, 3, 4])
s = jp.settle(1, 10, cards.parse("9h 8h 7h"), [(1, cards.parse("2c 3d"), True),
                                              (2, cards.parse("6h 5h"), True),
                                              (3, cards.parse("Kc Kd"), True),
                                              (4, cards.parse("4c 4d"), False)])
expect("envy payouts", [(h[m.H_SEAT], h[m.H_AMOUNT], h[m.H_ENVY_SEATS], h[m.H_ENVY_EACH])
                        for h in s.hits], [(2, 200000, 0b101, 5000)])
expect("envy pool", jp.value[0], 1790000)
expect("envy meters", (jp.table[m.T_HITS], jp.table[m.T_ENVY_COUNT], jp.table[m.T_ENVY_AMOUNT]),
       (1, 2, 10000))
expect("envy books", jp.audit(), [])
expect("envy record", record.encode(record.decode(record.encode(jp))), record.encode(jp))
print("envy:", [(h[m.H_SEAT], h[m.H_AMOUNT], h[m.H_ENVY_SEATS]) for h in s.hits],
      "pool", jp.value[0])

# The shortfall option "cut" (docs/jackpot.md, Decision (shortfall)): pool 30,280; seat 1's
# four aces (500 to 1: 50,000) is paid the pool, 19,720 cut; the 90,000 of envy bonuses for
# seats 2-4 find an empty pool and are cut too; the pool resets to 30,000.
jp = Jackpot({"main": {"reset": 30000}, "envy": {"four_of_a_kind": 30000}, "shortfall": "cut"})
jp.contribute(1, [1, 2, 3, 4])
s = jp.settle(1, 10, cards.parse("Ah As 2c"), [(1, cards.parse("Ac Ad"), True),
                                               (2, cards.parse("7c 8d"), True),
                                               (3, cards.parse("7h 8h"), True),
                                               (4, cards.parse("7s 8s"), True)])
expect("cut payouts", [(h[m.H_SEAT], h[m.H_AMOUNT], h[m.H_SHORTFALL], h[m.H_CUT],
                        h[m.H_ENVY_SEATS], h[m.H_ENVY_CUT]) for h in s.hits],
       [(1, 30280, 0, 19720, 0, 90000)])
expect("cut meters", (jp.table[m.T_PAID], jp.table[m.T_SHORTFALL], jp.table[m.T_CUT], jp.value[0]),
       (30280, 0, 109720, 30000))
expect("cut books", jp.audit(), [])
expect("cut record", record.encode(record.decode(record.encode(jp))), record.encode(jp))
print("cut:", [(h[m.H_SEAT], h[m.H_AMOUNT], h[m.H_CUT]) for h in s.hits], "pool", jp.value[0])

seed = [12345]


def rand(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed[0] >> 8) % n


PRESETS = [
    ("Qh Jh Th", ["Ah Kh", "9h 8h", "2h 3h", "Kd 9c", "4h 5h", "2c 2d", "Ac Ad"]),
    ("9h 9s 2d", ["9c 9d", "2c 2s", "Ah Ad", "Kh Kd", "2h Qs", "3c 4c", "5d 6d"]),
    ("5s 4s 3s", ["As 2s", "7s 6s", "Ks Qs", "5c 5d", "Jd Td", "8s 9h", "2c 6h"]),
]


def deal():
    if rand(3) == 0:
        flop, holes = PRESETS[rand(len(PRESETS))]
        return cards.parse(flop), [cards.parse(h) for h in holes]
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = rand(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck[:3], [deck[3 + 2 * i:5 + 2 * i] for i in range(7)]


def share_ppm(jp):
    total = 0
    for slot in jp.active_slots():
        total += jp.config.pools[slot].rate_ppm() + jp.config.pools[slot].reserve_ppm()
    return total


jp = Jackpot({"wager": 25, "main": {"rate": (333333, 1000000), "reserve_rate": (7, 1000),
                                    "reset": 40000, "ceiling": 300000},
              "minor": {"rate": (3, 16), "reset": 5000},
              "major": {"rate": (123457, 1000000), "reserve_rate": (1, 40), "reset": 50000}})
wagers = 0
exact = 0            # sum of wager x share rate, in millionths of a cent
additions = sum(jp.value)
paid_from_pools = 0
for round_no in range(1, 401):
    if round_no % 90 == 0:
        change = jp.set_config({"split": not jp.config.split})
        for start in change.starts:
            additions += start[2]
    if round_no % 55 == 0:
        jp.set_config({"main": {"rate": (rand(400000), 1000000)}, "major": {"reset": 60000}})
    if round_no % 71 == 0:
        jp.add(jp.active_slots()[0], 777)
        additions += 777
    seats = [s for s in range(1, 8) if rand(2)]
    wager, ppm = jp.config.wager, share_ppm(jp)
    jp.contribute(round_no, seats)
    wagers += len(seats) * wager
    exact += len(seats) * wager * ppm
    kind = rand(8)
    if kind == 0:
        jp.void_round(round_no)
        wagers -= len(seats) * wager
        exact -= len(seats) * wager * ppm
        continue
    if kind == 1 and seats:
        jp.void_seat(round_no, seats[0])
        wagers -= wager
        exact -= wager * ppm
        seats = seats[1:]
    flop, holes = deal()
    s = jp.settle(round_no, 1000 + round_no, flop, [(x, holes[x - 1], rand(5) > 0) for x in seats])
    for h in s.hits:
        paid_from_pools += h[m.H_AMOUNT] - h[m.H_SHORTFALL]
    for r in s.resets:
        additions += r[2]
    carries = sum(jp.carry) + sum(jp.reserve_carry)
    credited = (exact - carries) // UNIT
    t = jp.table
    retention = t[m.T_RETENTION] - t[m.T_RETENTION_REVERSED]
    if (exact - carries) % UNIT:
        failures.append("round %d: carries do not make whole cents" % round_no)
    if sum(jp.value) + sum(jp.reserve) != additions + credited - paid_from_pools:
        failures.append("round %d: money does not balance" % round_no)
    if wagers != credited + retention + jp.carried_cents():
        failures.append("round %d: carry equation broken" % round_no)
    if retention != (wagers * UNIT - exact) // UNIT:
        failures.append("round %d: retention is not the floor of the exact share" % round_no)
    if jp.audit():
        failures.append("round %d: %s" % (round_no, jp.audit()))

data = record.encode(jp)
expect("round trip", record.encode(record.decode(data)), data)
tm = jp.table_meters()
for name in sorted(tm):
    print(name, tm[name])
print("values", jp.value, "reserves", jp.reserve, "carries", jp.carry, jp.reserve_carry)
for hit in jp.last_hits()[-3:]:
    print(sorted(hit.items()))
print("state bytes", len(data))
print(data.hex() if hasattr(data, "hex") else "")
if failures:
    for f in failures[:10]:
        print("FAIL", f)
    sys.exit(1)
print("ok")
