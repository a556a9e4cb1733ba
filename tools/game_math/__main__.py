"""`python -m tools.game_math`: probabilities, returns and house edges of every pay table.

Examples::

    python -m tools.game_math                       every bet, preset and hand rule (about a minute)
    python -m tools.game_math --game uth --bet trips
    python -m tools.game_math --bet jackpot --pool 25000000 --wager 100
    python -m tools.game_math --json > game-math.json
"""

import argparse
import json
import sys
import time

from tools.game_math import run, text


def parser():
    p = argparse.ArgumentParser(prog="python -m tools.game_math", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", action="append", help="uth, fcp or brs (repeatable; default all)")
    p.add_argument("--bet", action="append",
                   help="trips, blind, jackpot, ante_bonus, aces_up, three_card_extra, risk_raise "
                        "(repeatable; default all)")
    p.add_argument("--paytable", action="append", help="only these presets (repeatable)")
    p.add_argument("--hand-rule", action="append", help="best5of7 or hole2_board3 (UTH; default both)")
    p.add_argument("--pool", type=int, default=run.DEFAULT_POOL, metavar="CENTS",
                   help="jackpot pool for the second jackpot row (default %(default)d); -1 for none")
    p.add_argument("--wager", type=int, default=run.DEFAULT_WAGER, metavar="CENTS",
                   help="jackpot wager (default %(default)d)")
    p.add_argument("--trials", type=int, default=run.DEFAULT_TRIALS,
                   help="Monte Carlo showdowns per hand rule for the Blind (default %(default)d)")
    p.add_argument("--seed", type=int, default=run.DEFAULT_SEED,
                   help="Monte Carlo seed (default %(default)d)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default %(default)d)")
    p.add_argument("--json", action="store_true", help="print a JSON list of objects instead")
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    started = time.perf_counter()
    try:
        rows = run.compute(games=args.game, bet_names=args.bet, presets=args.paytable,
                           hand_rules=args.hand_rule, pool=None if args.pool == -1 else args.pool,
                           wager=args.wager, trials=args.trials, seed=args.seed, jobs=args.jobs)
    except ValueError as e:
        p.error(str(e))
    seconds = time.perf_counter() - started
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(text.report(rows, seconds, args.jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
