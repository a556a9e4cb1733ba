"""Evaluator benchmark: `python -m tools.bench` (or `make bench`).

Prints, in one run:
- evaluations per second on CPython for 5-card, 7-card and NZ-rule (both hole cards and three
  of the five board cards) hands, next to `treys` and `phevaluator` on the same hands;
- evaluations per second on the MicroPython unix VM, with the evaluator as bytecode and as a
  native .mpy (mpy-cross -march=x64 -X emit=native);
- heap bytes allocated per evaluation on MicroPython, and the RAM the evaluator module takes.
Targets (issue 2): 7-card on CPython at least 5x treys; native at least 1.5x bytecode;
zero bytes per evaluation.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from phevaluator import evaluate_cards
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from firmware.poker import cards, hands
from host_tests.runtimes import micropython_binary
from tools.build import HOT_MODULES, compile_module
from tools.cli import at_least

ROOT = Path(__file__).resolve().parent.parent


def rates(contenders, repeat=5):
    """Best evaluations per second of each (function, items), measured in turns.

    Taking turns spreads any load from other processes over every contender alike, so the
    ratios stay fair on a busy machine.
    """
    best = [0.0] * len(contenders)
    for _ in range(repeat):
        for i, (function, items) in enumerate(contenders):
            start = time.perf_counter()
            function(items)
            seconds = time.perf_counter() - start
            best[i] = max(best[i], len(items) / seconds)
    return best


def cpython_figures(count, seed):
    rng = random.Random(seed)
    five = [rng.sample(range(52), 5) for _ in range(count)]
    seven = [rng.sample(range(52), 7) for _ in range(count)]
    deals = [(h[:2], h[2:]) for h in seven]
    treys = TreysEvaluator()
    to_treys = {c: TreysCard.new(cards.name(c)) for c in range(52)}
    five_t = [[to_treys[c] for c in h] for h in five]
    seven_t = [[to_treys[c] for c in h] for h in seven]
    deals_t = [([to_treys[c] for c in h], [to_treys[c] for c in b]) for h, b in deals]

    def ours5(items):
        f = hands.best5
        for h in items:
            f(h)

    def ours_nz(items):
        f = hands.hole2_board3
        for h, b in items:
            f(h, b)

    def treys_any(items):
        e = treys.evaluate
        for h in items:
            e(h[:2], h[2:])

    def treys_nz(items):
        e = treys.evaluate
        for h, b in items:
            min(e(h, list(t)) for t in combinations(b, 3))

    def phe_any(items):
        for h in items:
            evaluate_cards(*h)

    def phe_nz(items):
        for h, b in items:
            min(evaluate_cards(h[0], h[1], *t) for t in combinations(b, 3))

    rows = []
    for label, ours, ours_items, t_fn, t_items, p_fn, p_items in (
        ("5-card", ours5, five, treys_any, five_t, phe_any, five),
        ("7-card", ours5, seven, treys_any, seven_t, phe_any, seven),
        ("NZ rule", ours_nz, deals, treys_nz, deals_t, phe_nz, deals),
    ):
        rows.append((label, *rates([(ours, ours_items), (t_fn, t_items), (p_fn, p_items)])))
    return rows


def micropython_figures(count):
    """Run tools/mp/bench_eval.py under MicroPython as bytecode and as native code."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ("bytecode", "native"):
            tree = Path(tmp) / variant
            shutil.copytree(ROOT / "firmware", tree / "firmware",
                            ignore=shutil.ignore_patterns("__pycache__"))
            for module in HOT_MODULES:
                target = (tree / module).with_suffix(".mpy")
                compile_module(module, target, "x64", variant == "native", ROOT)
                os.remove(tree / module)
            env = dict(os.environ, MICROPYPATH=".frozen:" + str(tree))
            run = subprocess.run([micropython_binary(), "-X", "heapsize=16M",
                                  str(ROOT / "tools/mp/bench_eval.py"), str(count)],
                                 env=env, capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit("MicroPython %s run failed:\n%s%s" % (variant, run.stdout, run.stderr))
            results[variant] = dict(line.split() for line in run.stdout.splitlines() if line.strip())
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=at_least(1), default=30000, help="hands per CPython measurement")
    parser.add_argument("--mp-count", type=at_least(1), default=3000,
                        help="hands per MicroPython measurement")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    print("CPython %s, %d hands each (fixed seed %d)" % (sys.version.split()[0], args.count, args.seed))
    print("%-8s %12s %12s %12s %10s %10s" % ("hands", "ours/s", "treys/s", "phevaluator/s",
                                              "vs treys", "vs phe"))
    for label, ours, treys, phe in cpython_figures(args.count, args.seed):
        print("%-8s %12.0f %12.0f %12.0f %9.2fx %9.2fx" % (label, ours, treys, phe, ours / treys, ours / phe))

    mp = micropython_figures(args.mp_count)
    print()
    print("MicroPython unix VM (x64), %d hands each" % args.mp_count)
    print("%-8s %12s %12s %10s" % ("hands", "bytecode/s", "native/s", "native gain"))
    for key, label in (("five", "5-card"), ("seven", "7-card"), ("nz", "NZ rule")):
        b = int(mp["bytecode"]["per_second_" + key])
        n = int(mp["native"]["per_second_" + key])
        print("%-8s %12d %12d %9.2fx" % (label, b, n, n / b))
    for variant in ("bytecode", "native"):
        figures = mp[variant]
        print("%-8s heap bytes per evaluation: 5-card %s, 7-card %s, NZ %s; runs under heap_lock: %s;"
              " module RAM %s bytes" % (
                  variant, figures["heap_bytes_per_eval_five"], figures["heap_bytes_per_eval_seven"],
                  figures["heap_bytes_per_eval_nz"],
                  "yes" if figures["runs_under_heap_lock"] == "1" else "NO",
                  figures["module_bytes"]))


if __name__ == "__main__":
    main()
