"""Count the categories of all 133,784,560 seven-card hands with the firmware evaluator.

`python -m tools.count7` prints the counts next to the published ones and the run time.
The deck is split by the lowest card between worker processes (one per core).
"""

import argparse
import sys
import time
from collections import Counter
from itertools import combinations
from multiprocessing import Pool, cpu_count

from firmware.poker import hands

PUBLISHED = {  # standard combinatorial counts (e.g. Wikipedia, "Poker probability", 7-card hands)
    "Royal Flush": 4324, "Straight Flush": 37260, "Four of a Kind": 224848,
    "Full House": 3473184, "Flush": 4047644, "Straight": 6180020, "Three of a Kind": 6461620,
    "Two Pair": 31433400, "One Pair": 58627800, "High Card": 23294460,
}


def _count_from(lowest):
    """Category counts of every seven-card hand whose lowest card is `lowest`."""
    counts = [0] * 9
    royals = 0
    best5 = hands.best5
    royal = hands.ROYAL_FLUSH
    hand = [lowest, 0, 0, 0, 0, 0, 0]
    for rest in combinations(range(lowest + 1, 52), 6):
        hand[1:] = rest
        value = best5(hand)
        counts[value >> 17] += 1
        if value == royal:
            royals += 1
    return counts, royals


def count_seven_card_categories(processes=None):
    """Return ({category: count}, royal count) over all seven-card hands."""
    totals = Counter()
    royals = 0
    with Pool(processes or cpu_count()) as pool:
        for counts, royal in pool.imap_unordered(_count_from, range(46)):
            for category, n in enumerate(counts):
                if n:
                    totals[category] += n
            royals += royal
    return dict(totals), royals


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.count7", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=cpu_count(),
                        help="worker processes (default: one per core, %d)" % cpu_count())
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be 1 or more, got %d" % args.processes)
    start = time.time()
    counts, royals = count_seven_card_categories(args.processes)
    seconds = time.time() - start
    ours = {"Royal Flush": royals, "Straight Flush": counts[hands.STRAIGHT_FLUSH] - royals}
    names = ["High Card", "One Pair", "Two Pair", "Three of a Kind", "Straight", "Flush",
             "Full House", "Four of a Kind"]
    for category, label in enumerate(names):
        ours[label] = counts.get(category, 0)
    ok = True
    print("%-16s %12s %12s" % ("category", "evaluator", "published"))
    for label, want in PUBLISHED.items():
        mark = "" if ours[label] == want else "  MISMATCH"
        ok = ok and not mark
        print("%-16s %12d %12d%s" % (label, ours[label], want, mark))
    print("%-16s %12d %12d" % ("total", sum(counts.values()), 133784560))
    print("%s in %.0f s on %d processes" % ("all match" if ok else "MISMATCH", seconds, args.processes))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
