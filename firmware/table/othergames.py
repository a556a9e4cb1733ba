"""The round's end for the games without the progressive, Four Card Poker and Big Raise
Stud: every seat's hand read against the dealer or the pay table, and the round closed.

Each function takes the RoundController `c`.  A Four Card Poker or Big Raise Stud table's
controller loads this module when it is made (RoundController.other_game); a UTH table never
loads it.
"""

from firmware.poker import hands
from firmware.store import critical
from firmware.store import eventlog as ev
from firmware.table import roundrecord, screens
from firmware.table.phases import BEEP_OK, FCP, LOCKED, RESULTS, SEATS, WIDTH


def results(c):
    """The result lines of a Four Card Poker or Big Raise Stud round (c.results)."""
    if c.game == FCP:
        _results_fcp(c)
    else:
        _results_brs(c)


def finish(c):
    """Settle the round: results shown, round closed (no progressive to pay)."""
    c.hits = []
    results(c)
    c._set_phase(RESULTS)
    if not c._commit(critical.STEP_SETTLE, [(ev.SETTLE, c.rec.folded, 0, 0)]):
        c._back_to(LOCKED)
        return
    c.message = ""
    c._beep(BEEP_OK)
    c._refresh_meter()


def _results_fcp(c):
    """Four Card Poker: best four of the seat's five against the dealer's best four of
    six; the player wins ties [FCP 10.2]."""
    from firmware.poker import paytables  # the Aces Up lines (_side_line): the results only

    dealer = hands.best4(c._cards_of(c.rec.dealer))

    def verdict(hole):
        value = hands.best4(hole)
        return value, " W" if value >= dealer else " L"

    # Aces Up is settled on the same best four after the Ante is folded [FCP 9.1-9.3]; the
    # Ante Bonus, on trips or better whatever the dealer holds, is not (rules.md 3)
    c.results = _seat_lines(c, ["D " + screens.short(hands.name(dealer))], verdict, hands.best4,
                            paytables.BET_ACES_UP, "AcesUp", paytables.BET_ANTE_BONUS)


def _results_brs(c):
    """Big Raise Stud: the seat's three cards and the two community cards, read against the
    Risk/Raise pay table [BRS 5.1-5.4]: odds paid, a push, or a loss."""
    from firmware.poker import paytables  # only Big Raise Stud's results read a pay table

    board = c._cards_of(c.rec.board)
    table = paytables.default(paytables.BET_RISK_RAISE)

    def verdict(hole):
        value = hands.best5(hole + board)
        line = table.line_for(value)
        if line is None:
            return value, " L"
        if line[paytables.NUMERATOR] == 0:
            return value, " P"
        return value, " %d:%d" % (line[paytables.NUMERATOR], line[paytables.DENOMINATOR])

    # the Three Card Extra is settled on the seat's own three cards after a fold [BRS 4.1]
    c.results = _seat_lines(c, [], verdict, hands.three, paytables.BET_EXTRA, "Extra")


def _seat_lines(c, lines, verdict, side_hand, side_bet, side_label, bonus=None):
    """`lines` with one more per seat with cards: void, a fold with the hand side_hand(hole)
    values for the side bet a fold still settles, else its hand's name and what
    verdict(hole) says of it (verdict returns the hand's value and the text), and a line more
    where that hand reaches the `bonus` bet's pay table (``S1 Bonus Trips``: Four Card
    Poker's Ante Bonus, paid on the Ante whether it won or lost).  A seat the round record
    says had no Ante at LOCK (Aces Up alone, a late Ante) has neither: ``S2 Trips -``.  A
    seat whose side hand reaches the side bet's pay table gets a line more (_side_line)."""
    no_ante = roundrecord.no_ante(c.rec)
    for s in range(SEATS):      # (a seat the file's seats no longer count too: its cards
        hole = c._hole(s)       # were committed in a round locked before they were cut)
        status = _seat_status(c, s, hole)
        if status is not None:
            if status:
                lines.append(status)
            continue
        if c.rec.folded & (1 << s):
            lines.append(screens.fold_line(s + 1, hands.name(side_hand(hole))))
        else:
            value, text = verdict(hole)
            ante = not no_ante & (1 << s)
            lines.append(_seat_line(c, s, hands.name(value), text if ante else " -"))
            if bonus and ante:
                _side_line(lines, s, value, bonus, "Bonus")
        _side_line(lines, s, side_hand(hole), side_bet, side_label)
    return lines


def _side_line(lines, s, value, bet, label):
    """Append ``S1 Extra SF`` / ``S2 AcesUp Aces`` when hand `value` reaches a line of the
    side bet's pay table, so a dealer paying it does not have to read the hand again: the
    seat's own line judges the Ante, which the side bet does not follow [FCP 5.7, BRS 4.1].
    The table does not see the side bet's chips, so the line says what a wager there wins
    on.  Every preset pays the same hands (rules.md 3, 4), so the default table decides."""
    from firmware.poker import paytables

    line = paytables.default(bet).line_for(value)
    if line is None:
        return
    if line[paytables.LINE] == "pair_of_aces":
        name = "Aces"
    else:
        name = screens.short(hands.name(value)).replace("One Pair", "Pair")
    text = "S%d %s %s" % (s + 1, label, name)
    if len(text) > WIDTH:
        text = "S%d %s %s" % (s + 1, label, screens.tiny(name))
    lines.append(text[:WIDTH])


def _seat_status(c, s, hole):
    """None for a seat to show with its hand; '' for a seat without a hand; else its line (a
    void seat's, though voided before its hand was whole: its wagers are returned)."""
    if c.rec.voided & (1 << s):
        return "S%d void" % (s + 1)
    if len(hole) < c.seat_cards:
        return ""
    return None


def _seat_line(c, s, text, verdict):
    """``S1 Flush 6:1``: the hand's name at its shortest (``S1 FH 8:1``) where the verdict
    leaves the short one no room, never cut."""
    line = "S%d %s" % (s + 1, screens.short(text))
    if len(line) + len(verdict) > WIDTH:
        line = "S%d %s" % (s + 1, screens.tiny(screens.short(text)))
    return line[:WIDTH - len(verdict)] + verdict
