"""Turn exact hand distributions into the rows the tool prints: one row per bet and pay table.

A row is a plain dict (it is printed as text and as JSON as it is)::

    game, bet, paytable, hand_rule   what was computed (hand_rule None where it does not apply)
    kind        "wager": a bet of its own; return = expected amount back per unit wagered,
                stake included, and house_edge = 1 - return.
                "bonus": a payout added to another wager (FCP Ante Bonus, UTH Blind);
                contribution = expected bonus per unit of that wager, house_edge None.
    deals       how many deals the figures cover (exact rows)
    hands       per pay line: hand, pays, count (exact, or None), probability, and more
    return, house_edge, contribution   floats, with *_exact "num/den" strings for exact rows
    method      "exact", or the Monte Carlo interval text
    notes       what the figure assumes

Counts stay integers and the sums are fractions.Fraction until they are printed.
"""

from fractions import Fraction

from firmware.jackpot import paytable as jackpot_table
from firmware.poker import paytables
from tools.game_math import brs, montecarlo

LOSES = "loses"


def hand_label(line_name):
    """Display text of a pay-table line name: "royal_flush" -> "Royal Flush"."""
    return line_name.replace("_", " ").title()


def fraction_text(x):
    """An exact Fraction as "num/den" text (JSON has no exact rationals)."""
    return "%d/%d" % (x.numerator, x.denominator)


def line_counts(table, counts):
    """{line name or LOSES: number of deals} for a {hand value: count} distribution."""
    out = {}
    for value, n in counts.items():
        line = table.line_for(value)
        key = LOSES if line is None else line[paytables.LINE]
        out[key] = out.get(key, 0) + n
    return out


def paytable_row(game, bet, table, hand_rule, counts, kind="wager", notes=""):
    """The exact row of a pay-table bet from its hand distribution.

    kind "wager": a winning line returns the stake plus odds, a push line (0 to 1) the stake.
    kind "bonus": only the odds are counted (the stake belongs to the base wager).
    """
    by_line = line_counts(table, counts)
    deals = sum(by_line.values())
    rows = []
    paid = Fraction(0)
    for line in table.lines:
        name = line[paytables.LINE]
        odds = Fraction(line[paytables.NUMERATOR], line[paytables.DENOMINATOR])
        n = by_line.get(name, 0)
        back = odds + 1 if kind == "wager" else odds
        paid += n * back
        rows.append({"hand": name, "pays": paytables.odds_text(line[paytables.NUMERATOR],
                                                               line[paytables.DENOMINATOR]),
                     "count": n, "probability": n / deals,
                     "return_share": float(n * back / deals)})
    n = by_line.get(LOSES, 0)
    rows.append({"hand": LOSES, "pays": "loses" if kind == "wager" else "nothing",
                 "count": n, "probability": n / deals, "return_share": 0.0})
    value = paid / deals
    row = {"game": game, "bet": bet, "paytable": table.name, "hand_rule": hand_rule,
           "kind": kind, "deals": deals, "hands": rows, "method": "exact", "notes": notes}
    if kind == "wager":
        row.update({"return": float(value), "return_exact": fraction_text(value),
                    "house_edge": float(1 - value), "house_edge_exact": fraction_text(1 - value),
                    "contribution": None})
    else:
        row.update({"return": None, "house_edge": None, "contribution": float(value),
                    "contribution_exact": fraction_text(value)})
    return row


JACKPOT_TABLE = "rules_11_9"


def jackpot_pays(wager, pool):
    """Pay multiple (Fraction, per unit of the jackpot wager) of each jackpot hand type at a pool.

    rules.md 11.9: the fixed odds, or the percent of the pool when that is greater; pool None
    means the fixed minimum pays.
    """
    out = []
    for hand_type in range(jackpot_table.HAND_TYPES):
        odds = Fraction(jackpot_table.DEFAULT_ODDS[hand_type])
        percent = jackpot_table.DEFAULT_PERCENT[hand_type]
        if pool is not None and percent:
            odds = max(odds, Fraction(pool * percent, 100 * wager))
        out.append(odds)
    return out


def jackpot_row(counts, wager, pool):
    """Exact return of the Progressive Jackpot wager over all 2,598,960 hole-plus-flop hands.

    The wager is collected even when it wins [11.12], so the return per unit is the sum of
    probability x odds with no stake added back.  Also gives the pool at which the return
    reaches 100% (the percent pays grow linearly with the pool above the fixed odds).
    """
    by_type = {}
    for value, n in counts.items():
        t = jackpot_table.hand_type(value)
        by_type[t] = by_type.get(t, 0) + n
    deals = sum(by_type.values())
    pays = jackpot_pays(wager, pool)
    rows = []
    value = Fraction(0)
    for t in range(jackpot_table.HAND_TYPES - 1, -1, -1):
        n = by_type.get(t, 0)
        value += n * pays[t]
        rows.append({"hand": jackpot_table.KEYS[t], "pays": "%s to 1" % _number(pays[t]),
                     "pays_cents": _number(pays[t] * wager), "count": n, "probability": n / deals,
                     "return_share": float(n * pays[t] / deals)})
    n = by_type.get(jackpot_table.NO_HIT, 0)
    rows.append({"hand": LOSES, "pays": "loses", "pays_cents": 0, "count": n,
                 "probability": n / deals, "return_share": 0.0})
    value /= deals
    return {"game": "uth", "bet": "jackpot", "paytable": JACKPOT_TABLE, "hand_rule": None,
            "kind": "wager", "deals": deals, "hands": rows, "method": "exact",
            "return": float(value), "return_exact": fraction_text(value),
            "house_edge": float(1 - value), "house_edge_exact": fraction_text(1 - value),
            "contribution": None, "wager_cents": wager, "pool_cents": pool,
            "break_even_pool_cents": _number(break_even_pool(by_type, deals, wager)),
            "notes": ("the jackpot hand is the two hole cards plus the flop under either hand rule; "
                      "pays from firmware/jackpot/paytable.py (rules.md 11.9); the wager is not "
                      "returned [11.12]; assumes a seat holding a jackpot hand always makes its Play "
                      "wager; pool contributions and the operator's retention are not part of the return")}


def jackpot_return(by_type, deals, wager, pool):
    """Exact return per unit of the jackpot wager at a pool (None: the fixed minimum pays)."""
    pays = jackpot_pays(wager, pool)
    return sum(Fraction(by_type.get(t, 0), deals) * pays[t] for t in range(jackpot_table.HAND_TYPES))


def break_even_pool(by_type, deals, wager):
    """The smallest pool (cents, exact) at which the jackpot wager returns 100%, or None.

    The return is continuous, non-decreasing and piecewise linear in the pool, bending where
    a percent-of-pool pay overtakes its fixed odds; the crossing of 1 is solved exactly on
    the piece where it happens.  0 when the fixed pays alone already return 100%.
    """
    bends = sorted(set(Fraction(jackpot_table.DEFAULT_ODDS[t] * wager * 100,
                                jackpot_table.DEFAULT_PERCENT[t])
                       for t in range(jackpot_table.HAND_TYPES) if jackpot_table.DEFAULT_PERCENT[t]))
    if not bends:
        return None
    low = Fraction(0)
    low_value = jackpot_return(by_type, deals, wager, low)
    if low_value >= 1:
        return low
    for high in bends + [bends[-1] * 2]:
        high_value = jackpot_return(by_type, deals, wager, high)
        if high_value >= 1 or high == bends[-1] * 2:
            if high_value == low_value:
                return None
            return low + (1 - low_value) * (high - low) / (high_value - low_value)
        low, low_value = high, high_value
    return None


def _number(x):
    """An exact Fraction as an int when whole, else a float (for printing)."""
    if x is None:
        return None
    if x.denominator == 1:
        return x.numerator
    return float(x)


def blind_row(hand_rule, table, counts, estimate, trials, seed):
    """The UTH Blind row: E[Blind pay | the player's hand beats the dealer's], estimated."""
    strata_of = blind_strata(table, counts)
    deals = sum(counts.values())
    rows = []
    for line in list(table.lines) + [None]:
        name = BELOW if line is None else line[paytables.LINE]
        pays = ("push" if line is None else
                paytables.odds_text(line[paytables.NUMERATOR], line[paytables.DENOMINATOR]))
        strata = [s for s, n in strata_of.items() if n == name]
        count = sum(n for v, n in counts.items() if montecarlo.stratum(v) in strata)
        given_win = sum(estimate["given_win"][s] for s in strata)
        rows.append({"hand": name, "pays": pays, "count": count, "probability": count / deals,
                     "win_rate": (given_win * estimate["win_probability"] / (count / deals)
                                  if count else None),
                     "probability_given_win": given_win})
    method = ("monte carlo: 95%% CI [%.4f, %.4f], %d showdowns, seed %d"
              % (estimate["low"], estimate["high"], trials, seed))
    return {"game": "uth", "bet": "blind", "paytable": table.name, "hand_rule": hand_rule,
            "kind": "bonus", "deals": deals, "hands": rows, "method": method,
            "return": None, "house_edge": None, "contribution": estimate["estimate"],
            "contribution_interval": [estimate["low"], estimate["high"]],
            "win_probability": estimate["win_probability"],
            "blind_paid_per_hand": estimate["paid_per_hand"],
            "notes": ("contribution = expected Blind pay (odds only, per unit Blind) given that the "
                      "player's hand beats the dealer's, every hand played to the showdown (no folds); "
                      "P(hand) is exact, the win rate of each hand category is sampled")}


BELOW = "below_straight"


def blind_strata(table, counts):
    """{stratum: Blind line name (or BELOW)}; ValueError if a line splits a stratum."""
    out = {}
    for value in counts:
        line = table.line_for(value)
        name = BELOW if line is None else line[paytables.LINE]
        s = montecarlo.stratum(value)
        if out.setdefault(s, name) != name:
            raise ValueError("pay table %s pays inside a hand category (%s and %s), which the "
                             "Blind estimate cannot stratify" % (table.name, out[s], name))
    return out


def blind_inputs(table, counts):
    """Exact probability and Blind pay per unit of each stratum (below a straight: push, 0)."""
    strata_of = blind_strata(table, counts)
    deals = sum(counts.values())
    exact_p = {}
    for value, n in counts.items():
        s = montecarlo.stratum(value)
        exact_p[s] = exact_p.get(s, 0) + Fraction(n, deals)
    pays = {}
    for s, name in strata_of.items():
        pays[s] = 0.0 if name == BELOW else float(Fraction(*table.odds(name)))
    return dict((s, float(p)) for s, p in exact_p.items()), pays


def brs_row(table, sums, counts5):
    """Big Raise Stud Poker Risk and Raise with the best decision per start (exact)."""
    summary = brs.summarize(sums)
    row = paytable_row("brs", "risk_raise", table, None, counts5,
                       notes=("hands: probability of the player's final five cards; house edge per "
                              "Risk bet with the best decision (fold, 1x or 4x) for each three-card "
                              "start; element of risk = house edge / average total wager"))
    edge = summary["house_edge"]
    average = summary["average_wager"]
    row.update({
        "return": float(1 - edge), "return_exact": fraction_text(1 - edge),
        "house_edge": float(edge), "house_edge_exact": fraction_text(edge),
        "element_of_risk": float(summary["element_of_risk"]),
        "element_of_risk_exact": fraction_text(summary["element_of_risk"]),
        "average_wager": float(average),
        "decisions": {"fold": summary["by_raise"][brs.FOLD], "raise_1x": summary["by_raise"][1],
                      "raise_4x": summary["by_raise"][brs.MAX_RAISE]},
        "strategy": brs.strategy_classes(sums),
        "strategy_table": brs.strategy_table(sums),
    })
    for line in row["hands"]:
        line.pop("return_share")
    return row
