"""Plan and run the enumerations a selection of bets needs, on one or more worker processes.

The heavy work (the 7-card distributions under both hand rules, the Big Raise Stud starts
and the Blind showdowns) is cut into a fixed set of chunks whose results are summed, so the
figures are the same whatever the number of workers.
"""

import math
import multiprocessing

from firmware.poker import paytables
from tools.game_math import bets, brs, exact, montecarlo

HAND_RULES = ("best5of7", "hole2_board3")
# (game, bet) in the order the tool prints them.
BETS = (
    ("uth", "trips"), ("uth", "blind"), ("uth", "jackpot"),
    ("fcp", "ante_bonus"), ("fcp", "aces_up"),
    ("brs", "three_card_extra"), ("brs", "risk_raise"),
)
GAMES = ("uth", "fcp", "brs")
CHUNKS = 8
MC_CHUNK = 25000
DEFAULT_TRIALS = 1000000
DEFAULT_SEED = 2026
DEFAULT_WAGER = 100
DEFAULT_POOL = 10000000
# Pay-table bets and the paytables module's bet names.
_PRESET_BET = {"trips": paytables.BET_TRIPS, "blind": paytables.BET_BLIND,
               "ante_bonus": paytables.BET_ANTE_BONUS, "aces_up": paytables.BET_ACES_UP,
               "three_card_extra": paytables.BET_EXTRA, "risk_raise": paytables.BET_RISK_RAISE}


class _Now:
    """A finished result with the .get() of an AsyncResult (the one-process executor)."""

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


class _Serial:
    """Runs each task at once in this process."""

    def apply_async(self, function, args):
        return _Now(function(*args))


def _check_choice(kind, given, known):
    """Raise ValueError naming every value of `given` not in `known`."""
    if given is None:
        return tuple(known)
    bad = [g for g in given if g not in known]
    if bad:
        raise ValueError("unknown %s %s (known: %s)" % (kind, ", ".join(map(repr, bad)), ", ".join(known)))
    return tuple(given)


def plan(games=None, bet_names=None, presets=None, hand_rules=None):
    """The (game, bet, preset list, hand rules) to compute; ValueError names a bad choice."""
    games = _check_choice("game", games, GAMES)
    bet_names = _check_choice("bet", bet_names, [b for _, b in BETS])
    known_presets = list(paytables.names()) + [bets.JACKPOT_TABLE]
    presets = _check_choice("pay table", presets, known_presets) if presets is not None else None
    rules = _check_choice("hand rule", hand_rules, HAND_RULES)
    out = []
    for game, bet in BETS:
        if game not in games or bet not in bet_names:
            continue
        if bet == "jackpot":
            names = [bets.JACKPOT_TABLE]
        else:
            names = list(paytables.names(_PRESET_BET[bet]))
        if presets is not None:
            names = [n for n in names if n in presets]
        if names:
            out.append((game, bet, names, rules if bet in ("trips", "blind") else (None,)))
    if not out:
        raise ValueError("the selection matches no bet: games %s, bets %s, pay tables %s"
                     % (", ".join(games), ", ".join(bet_names), ", ".join(presets or ())))
    return out


def compute(games=None, bet_names=None, presets=None, hand_rules=None, pool=DEFAULT_POOL,
            wager=DEFAULT_WAGER, trials=DEFAULT_TRIALS, seed=DEFAULT_SEED, jobs=2):
    """Rows (see tools.game_math.bets) for every selected bet, pay table and hand rule."""
    if not isinstance(wager, int) or wager <= 0:
        raise ValueError("jackpot wager must be a positive number of cents, got %r" % (wager,))
    if pool is not None and (not isinstance(pool, int) or pool < 0):
        raise ValueError("pool must be a non-negative number of cents, got %r" % (pool,))
    if not isinstance(trials, int) or trials < 1:
        raise ValueError("trials must be a positive integer, got %r" % (trials,))
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError("jobs must be a positive integer, got %r" % (jobs,))
    wanted = plan(games, bet_names, presets, hand_rules)
    need = set()
    for _, bet, names, rules in wanted:
        if bet in ("trips", "blind"):
            need.update(("seven", r) for r in rules)
        if bet == "blind":
            need.update(("showdown", r) for r in rules)
        if bet in ("jackpot", "risk_raise"):
            need.add(("five", None))
        if bet in ("ante_bonus", "aces_up"):
            need.add(("four", None))
        if bet == "three_card_extra":
            need.add(("three", None))
        if bet == "risk_raise":
            need.update(("starts", name) for name in names)
    if jobs == 1:
        return _compute(wanted, need, _Serial(), pool, wager, trials, seed)
    with multiprocessing.get_context("fork").Pool(jobs) as workers:
        return _compute(wanted, need, workers, pool, wager, trials, seed)


# Finished distributions of this process, by task key (and trials and seed for the estimate):
# they are pure functions of the key, so a second selection in one process reuses them.
_MEMO = {}


def distribution(kind, rule=None):
    """One exact distribution computed in this process: kind "seven" (rule "best5of7" or
    "hole2_board3"), "five", "four" or "three" gives {hand value: count}; "starts" (rule = a
    Risk/Raise preset) gives the Big Raise Stud start sums."""
    key = (kind, rule)
    if kind not in ("seven", "five", "four", "three", "starts"):
        raise ValueError("unknown distribution %r" % (kind,))
    return _distributions({key}, _Serial(), 1, 0)[key]


def _memo_key(key, trials, seed):
    return key + (trials, seed) if key[0] == "showdown" else key


def _compute(wanted, need, workers, pool, wager, trials, seed):
    return _rows(wanted, _distributions(need, workers, trials, seed), pool, wager, trials, seed)


def _distributions(need, workers, trials, seed):
    done = dict((key, _MEMO[_memo_key(key, trials, seed)]) for key in need
                if _memo_key(key, trials, seed) in _MEMO)
    need = set(need) - set(done)
    pending = {}
    # Longest tasks first, so two workers finish together.
    if ("showdown", "hole2_board3") in need or ("showdown", "best5of7") in need:
        chunk_count = math.ceil(trials / MC_CHUNK)
        for rule in HAND_RULES:
            if ("showdown", rule) in need:
                pending[("showdown", rule)] = [
                    workers.apply_async(montecarlo.blind_chunk, (
                        rule, min(MC_CHUNK, trials - i * MC_CHUNK), seed, i))
                    for i in range(chunk_count)]
    if ("seven", "hole2_board3") in need:
        pairs = exact.hole_rank_pairs()
        pending[("seven", "hole2_board3")] = [
            workers.apply_async(exact.hole2_board3_chunk, (pairs[i::CHUNKS],)) for i in range(CHUNKS)]
    starts = None
    for key in sorted(k for k in need if k[0] == "starts"):
        starts = starts or brs.canonical_starts()
        table = paytables.get(key[1])
        pending[key] = [
            workers.apply_async(brs.start_sums, (table, starts[i::CHUNKS])) for i in range(CHUNKS)]
    if ("seven", "best5of7") in need:
        multisets = list(exact.rank_multisets(7))
        pending[("seven", "best5of7")] = [
            workers.apply_async(exact.seven_card_chunk, (multisets[i::CHUNKS],)) for i in range(CHUNKS)]
    if ("five", None) in need:
        done[("five", None)] = exact.five_card_counts()
    if ("four", None) in need:
        done[("four", None)] = exact.four_of_five_counts()
    if ("three", None) in need:
        done[("three", None)] = exact.three_card_counts()
    for key, parts in pending.items():
        results = [p.get() for p in parts]
        if key[0] == "showdown":
            done[key] = montecarlo.merge_cells(results)
        elif key[0] == "starts":
            done[key] = [item for part in results for item in part]
        else:
            done[key] = exact.merge(results)
    for key in need:
        _MEMO[_memo_key(key, trials, seed)] = done[key]
    return done


def _rows(wanted, done, pool, wager, trials, seed):
    rows = []
    for game, bet, names, rules in wanted:
        for rule in rules:
            for name in names:
                if bet == "trips":
                    rows.append(bets.paytable_row(
                        game, bet, paytables.get(name), rule, done[("seven", rule)],
                        notes="pays on the player's final hand whatever the outcome, folds included"))
                elif bet == "blind":
                    table = paytables.get(name)
                    counts = done[("seven", rule)]
                    exact_p, pays = bets.blind_inputs(table, counts)
                    estimate = montecarlo.stratified_given_win(exact_p, pays, done[("showdown", rule)])
                    rows.append(bets.blind_row(rule, table, counts, estimate, trials, seed))
                elif bet == "jackpot":
                    rows.append(bets.jackpot_row(done[("five", None)], wager, None))
                    if pool is not None:
                        rows.append(bets.jackpot_row(done[("five", None)], wager, pool))
                elif bet == "ante_bonus":
                    rows.append(bets.paytable_row(
                        game, bet, paytables.get(name), None, done[("four", None)], kind="bonus",
                        notes="contribution = expected bonus per unit Ante, best four of the player's "
                              "five cards; a hand this good is never folded"))
                elif bet == "aces_up":
                    rows.append(bets.paytable_row(
                        game, bet, paytables.get(name), None, done[("four", None)],
                        notes="best four of the player's five cards, whatever the dealer holds"))
                elif bet == "three_card_extra":
                    rows.append(bets.paytable_row(
                        game, bet, paytables.get(name), None, done[("three", None)],
                        notes="the player's own three cards, three-card ranking, settled even on a fold"))
                elif bet == "risk_raise":
                    rows.append(bets.brs_row(paytables.get(name), done[("starts", name)],
                                             done[("five", None)]))
    return rows
