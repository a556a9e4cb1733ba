"""`python -m tools.config_check FILE`: validate a table configuration file as the firmware does,
then print the pay-table math (house edge) of what the file selects.

    python -m tools.config_check docs/table-config.example.json
    python -m tools.config_check FILE --board pico_w     also check the file names this board
    python -m tools.config_check FILE --no-math          validation only (UTH math takes a minute)

The validation is firmware.config_file.parse itself, so the host and the board accept and
refuse exactly the same files with the same messages (only a JSON syntax error is worded by
each runtime's own parser).  The math comes from tools.game_math
(exact enumerations; the UTH Blind adds a Monte Carlo estimate of --trials showdowns): each
pay-table bet at the preset the file selects, UTH Trips and Blind under the file's hand rules,
and the Progressive Jackpot at the file's wager with the pool at its reset amount.

Exit status: 0 valid, 1 invalid (the message names the key and the value), 2 unreadable.
"""

import argparse
import sys
from pathlib import Path

from firmware import config_file
from firmware.jackpot import config as jcfg
from firmware.jackpot import paytable as jackpot_table
from tools.game_math import run, text

ROOT = Path(__file__).resolve().parent.parent
NOT_BOARDS = ("__init__", "base")
JACKPOT_BET = "jackpot"


def known_boards():
    """Board names: the modules under boards/."""
    return sorted(p.stem for p in (ROOT / "boards").glob("*.py") if p.stem not in NOT_BOARDS)


def summary(table):
    """The validated configuration as readable lines."""
    o = table.options
    lines = ["game %s, board %s, seats %d" % (table.game, table.board or "(any)", o.seats),
             "table maximum payout: %s (%s)" % ("none" if o.max_payout is None else "%d cents" % o.max_payout,
                                                o.cap_scope)]
    for bet in sorted(table.paytables):
        lines.append("pay table %s: %s" % (bet, table.paytables[bet]))
    if table.game == "uth":
        lines.append("hand rule %s, Trips hand rule %s" % (o.hand_rule, o.trips_hand_rule or o.hand_rule))
        j = table.jackpot
        layout = "Minor and Major pools" if j.split else "one pool"
        lines.append("jackpot wager %d cents, %s" % (j.wager, layout))
        for slot in j.active_slots():
            p = j.pools[slot]
            lines.append("  pool %s: rate %d/%d, reserve rate %d/%d, reset %d cents, ceiling %s" % (
                jcfg.POOL_KEYS[slot], p.rate[0], p.rate[1], p.reserve_rate[0],
                p.reserve_rate[1], p.reset, p.ceiling or "none"))
        if table.link is not None:
            k = table.link
            lines.append("linked progressive: table %d, broker %s port %d, key file %s, Wi-Fi %s"
                         % (k.table, k.broker, k.port, k.key_file, k.wifi_ssid or "(none)"))
            lines.append("  (the pool is the link controller's: the file's pool lines are not used)")
        elif "link" in table.data:
            lines.append("link section disabled: a standalone table")
        if j.envy_paid():
            lines.append("  envy bonus: " + ", ".join(
                "%s %d cents" % (jackpot_table.KEYS[h], j.envy[h])
                for h in range(jackpot_table.HAND_TYPES) if j.envy[h]))
        if j.shortfall:
            lines.append("  shortfall cut: a payout above the pool is cut to what it holds")
    return lines


def selections(table):
    """The (bet, preset, hand rule) selections to compute, and notes on what is not computed."""
    picks, notes = [], []
    if table.game == "uth":
        o = table.options
        picks.append(("trips", table.paytables["trips"], o.trips_hand_rule or o.hand_rule))
        picks.append(("blind", table.paytables["blind"], o.hand_rule))
        j = table.jackpot
        if table.link is not None:
            notes.append("jackpot: a linked table's pool is the link controller's, not the file's, "
                         "so no jackpot figure is printed")
        elif j.envy_paid():
            notes.append("jackpot: the file sets an envy bonus, which tools.game_math does not "
                         "model, so no jackpot figure is printed")
        elif list(j.odds) == list(jackpot_table.DEFAULT_ODDS) and \
                list(j.percent) == list(jackpot_table.DEFAULT_PERCENT):
            picks.append((JACKPOT_BET, None, None))
        else:
            notes.append("jackpot: the file changes the rules.md 11.9 pay table; tools.game_math "
                         "computes only that table, so no jackpot figure is printed")
    else:
        for bet in sorted(table.paytables):
            picks.append((bet, table.paytables[bet], None))
    return picks, notes


def math_rows(table, trials=run.DEFAULT_TRIALS, jobs=2):
    """tools.game_math rows for the file's selections (one compute per selection)."""
    picks, notes = selections(table)
    rows = []
    for bet, preset, rule in picks:
        if bet == JACKPOT_BET:
            reset = table.jackpot.pools[table.jackpot.active_slots()[-1]].reset
            rows += run.compute(games=["uth"], bet_names=[JACKPOT_BET], wager=table.jackpot.wager,
                                pool=reset, trials=trials, jobs=jobs)
        else:
            rows += run.compute(games=[table.game], bet_names=[bet], presets=[preset],
                                hand_rules=[rule] if rule else None, trials=trials, jobs=jobs)
    return rows, notes


def main(argv=None, out=None):
    out = out or sys.stdout
    p = argparse.ArgumentParser(prog="python -m tools.config_check", description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="the configuration file (JSON)")
    p.add_argument("--board", help="the board the file must be for (%s)" % ", ".join(known_boards()))
    p.add_argument("--no-math", action="store_true", help="validate only")
    p.add_argument("--trials", type=int, default=run.DEFAULT_TRIALS,
                   help="Monte Carlo showdowns for the UTH Blind (default %(default)d)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default %(default)d)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be 1 or more, got %d" % args.jobs)
    if args.trials < 1:
        p.error("--trials must be 1 or more, got %d" % args.trials)
    if args.board is not None and args.board not in known_boards():
        p.error("unknown board %r (known: %s)" % (args.board, ", ".join(known_boards())))
    try:
        data = Path(args.file).read_bytes()
    except OSError as error:
        out.write("%s: cannot read: %s\n" % (args.file, error))
        return 2
    try:
        table = config_file.parse(data, args.board)
        if table.board is not None and table.board not in known_boards():
            raise config_file.ConfigError("config board: %r is not a known board (known: %s)"
                                          % (table.board, ", ".join(known_boards())))
    except config_file.ConfigError as error:
        out.write("%s: INVALID: %s\n" % (args.file, error))
        return 1
    out.write("%s: valid\n" % args.file)
    for line in summary(table):
        out.write("  %s\n" % line)
    if args.no_math:
        return 0
    rows, notes = math_rows(table, args.trials, args.jobs)
    out.write("\nPay-table math (tools.game_math) for the selected presets:\n")
    for line in text.summary(rows):
        out.write("  %s\n" % line)
    for note in notes:
        out.write("  note: %s\n" % note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
