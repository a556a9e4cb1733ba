# The jackpot state as bytes on both runtimes: the same bytes from the same state, exact
# round trip, every truncation rejected, one bit flipped in every byte rejected or decoded
# canonically, and books that do not balance rejected with a reason.
import sys

from firmware.jackpot import meters as m
from firmware.jackpot import record
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards

failures = []

jp = Jackpot({"wager": 100, "split": True,
              "minor": {"rate": (20, 100), "reserve_rate": (1, 1000), "reset": 100000, "ceiling": 150000},
              "major": {"rate": (333333, 1000000), "reserve_rate": (3, 200), "reset": 1000000}})
jp.contribute(1, [1, 2, 3])
jp.settle(1, 1700000000, cards.parse("Qh Jh Th"), [(1, cards.parse("Ah Kh"), True),
                                                   (2, cards.parse("9h 8h"), True),
                                                   (3, cards.parse("2h 3h"), True)])
jp.set_config({"major": {"rate": (30, 100)}})
jp.contribute(2, [4, 5])
jp.void_seat(2, 5)
data = record.encode(jp)
print("bytes", len(data))
print(data.hex())

back = record.decode(data)
if record.encode(back) != data:
    failures.append("round trip changed the bytes")
if back.value != jp.value or back.table != jp.table or back.hits != jp.hits:
    failures.append("round trip changed the state")

truncations = 0
for n in range(len(data)):
    try:
        record.decode(data[:n])
        failures.append("truncation to %d bytes accepted" % n)
    except ValueError:
        truncations += 1
print("truncations rejected", truncations, "of", len(data))

rejected = 0
canonical = 0
for i in range(len(data)):
    bad = bytearray(data)
    bad[i] ^= 1 << (i % 8)
    try:
        again = record.decode(bytes(bad))
    except ValueError:
        rejected += 1
        continue
    if record.encode(again) == bytes(bad):
        canonical += 1
    else:
        failures.append("flip at byte %d decoded to other bytes" % i)
print("bit flips rejected", rejected, "decoded canonically", canonical)

jp.value[2] += 1
try:
    record.decode(record.encode(jp))
    failures.append("unbalanced books accepted")
except ValueError as err:
    print("unbalanced:", str(err)[:60])
jp.value[2] -= 1
jp.hits[0][m.H_SEAT] = 9
try:
    record.decode(record.encode(jp))
    failures.append("seat 9 accepted")
except ValueError as err:
    print("bad hit:", err)

if failures:
    for f in failures:
        print("FAIL", f)
    sys.exit(1)
print("ok")
