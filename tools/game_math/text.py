"""The rows as an aligned text report for operators and regulators."""

GAME_NAMES = {"uth": "Ultimate Texas Hold'em", "fcp": "Four Card Poker", "brs": "Big Raise Stud Poker"}
BET_NAMES = {"trips": "Trips", "blind": "Blind", "jackpot": "Progressive Jackpot",
             "ante_bonus": "Ante Bonus", "aces_up": "Aces Up", "three_card_extra": "Three Card Extra",
             "risk_raise": "Risk and Raise"}


def percent(x, places=4):
    """A fraction as a percentage text: 0.034955 -> "3.4955%"."""
    return "%.*f%%" % (places, 100 * x)


def grouped(n):
    """An int with thousands separators, or "-" for None."""
    return "-" if n is None else "{:,}".format(n)


def table(header, rows, right=()):
    """Lines of an aligned table; columns whose index is in `right` are right-aligned."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = []
    for r in [header] + rows:
        cells = []
        for i, cell in enumerate(r):
            cell = str(cell)
            cells.append(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]))
        out.append("  ".join(cells).rstrip())
    return out


def figure(row):
    """The headline figure of a row: the return, or the bonus contribution."""
    if row["kind"] == "wager":
        return percent(row["return"])
    if row["bet"] == "blind":
        return "%.4f per Blind won" % row["contribution"]
    return "%.4f per Ante" % row["contribution"]


def summary(rows):
    """The one-line-per-row overview."""
    body = []
    for row in rows:
        edge = "n/a (bonus)" if row["house_edge"] is None else percent(row["house_edge"])
        name = row["paytable"]
        if row.get("pool_cents") is not None:
            name += ", pool %sc" % grouped(row["pool_cents"])
        body.append([row["game"], BET_NAMES[row["bet"]], name, row["hand_rule"] or "-",
                     edge, figure(row), row["method"]])
    return table(["GAME", "BET", "PAY TABLE", "HAND RULE", "HOUSE EDGE", "RETURN / BONUS", "METHOD"],
                 body, right=(4, 5))


def label(hand):
    return hand.replace("_", " ").title()


def details(row):
    """The per-hand block of one row."""
    rule = "" if row["hand_rule"] is None else ", hand rule %s" % row["hand_rule"]
    if row.get("pool_cents") is not None:
        rule += ", pool %s cents" % grouped(row["pool_cents"])
    head = "%s - %s, pay table %s%s" % (GAME_NAMES[row["game"]], BET_NAMES[row["bet"]],
                                        row["paytable"], rule)
    out = [head, "=" * len(head)]
    if row["bet"] == "blind":
        body = [[label(h["hand"]), h["pays"], grouped(h["count"]), "%.10f" % h["probability"],
                 "-" if h["win_rate"] is None else "%.4f" % h["win_rate"],
                 "%.6f" % h["probability_given_win"]] for h in row["hands"]]
        out += table(["HAND", "PAYS", "COUNT", "PROBABILITY", "WIN RATE", "P(HAND | WIN)"], body,
                     right=(2, 3, 4, 5))
    elif row["bet"] == "jackpot":
        body = [[label(h["hand"]), h["pays"], grouped(h["pays_cents"]), grouped(h["count"]),
                 "%.10f" % h["probability"], "%.6f" % h["return_share"]] for h in row["hands"]]
        out += table(["HAND", "PAYS", "PAYS (CENTS)", "COUNT", "PROBABILITY", "RETURN"], body,
                     right=(2, 3, 4, 5))
    elif row["bet"] == "risk_raise":
        body = [[label(h["hand"]), h["pays"], grouped(h["count"]), "%.10f" % h["probability"]]
                for h in row["hands"]]
        out += table(["FINAL HAND", "PAYS", "COUNT", "PROBABILITY"], body, right=(2, 3))
    else:
        body = [[label(h["hand"]), h["pays"], grouped(h["count"]), "%.10f" % h["probability"],
                 "%.6f" % h["return_share"]] for h in row["hands"]]
        out += table(["HAND", "PAYS", "COUNT", "PROBABILITY", "RETURN" if row["kind"] == "wager"
                      else "BONUS"], body, right=(2, 3, 4))
    out.append("deals: %s" % grouped(row["deals"]))
    if row["kind"] == "wager":
        out.append("return %s, house edge %s (%s)" % (percent(row["return"]), percent(row["house_edge"]),
                                                     row["method"]))
        out.append("house edge exactly %s" % row["house_edge_exact"])
    elif row["bet"] == "blind":
        low, high = row["contribution_interval"]
        out.append("Blind pays %.4f per unit given a win (95%% CI %.4f to %.4f); the player's hand wins "
                   "%.4f of showdowns; Blind paid per hand %.4f"
                   % (row["contribution"], low, high, row["win_probability"], row["blind_paid_per_hand"]))
        out.append("method: %s" % row["method"])
    else:
        out.append("bonus per unit Ante %.6f, exactly %s (%s)" % (row["contribution"],
                                                               row["contribution_exact"], row["method"]))
    if row["bet"] == "jackpot":
        be = row["break_even_pool_cents"]
        out.append("jackpot wager %s cents; pool %s; return reaches 100%% at a pool of %s cents"
                   % (grouped(row["wager_cents"]),
                      "not counted (fixed minimum pays)" if row["pool_cents"] is None
                      else grouped(row["pool_cents"]) + " cents",
                      "-" if be is None else grouped(int(round(be)))))
    if row["bet"] == "risk_raise":
        d = row["decisions"]
        out.append("element of risk %s (house edge per unit wagered, average wager %.4f Risk units)"
                   % (percent(row["element_of_risk"]), row["average_wager"]))
        out.append("starts: raise 4x %s, raise 1x %s, fold %s (of 22,100)"
                   % (grouped(d["raise_4x"]), grouped(d["raise_1x"]), grouped(d["fold"])))
        out.append("")
        out.append("Best decision per three-card start:")
        out += ["  " + line for line in table(["START", "DECISION"],
                                              [list(x) for x in row["strategy_table"]])]
    out.append("note: %s" % row["notes"])
    return out


def report(rows, seconds, jobs):
    """The whole text report."""
    out = ["Pay-table mathematics from the firmware's own evaluator (firmware.poker.hands)", ""]
    out += summary(rows)
    for row in rows:
        out += [""] + details(row)
    out += ["", "computed in %.1f s with %d worker process%s" % (seconds, jobs, "" if jobs == 1 else "es")]
    return "\n".join(out)
