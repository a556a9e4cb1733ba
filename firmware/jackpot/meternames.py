"""The jackpot's books for people: the meters' names (firmware.jackpot.meters' layouts, in
their order), the last hits written out, and the check that the books balance to the cent,
whose lines name the meters.  The service protocol, the audit menu, the jackpot's reports
(Jackpot.pool_meters, table_meters, last_hits, audit) and the boot's reading of a record
load this module; the round loop does not, so it takes no room in its heap."""

from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot import paytable
from firmware.jackpot.pools import mask_seats
from firmware.poker import cards as cardlib

POOL_METER_NAMES = (
    "wagers", "wagered", "voids", "voided", "contributions", "contributions_reversed",
    "reserve_contributions", "reserve_reversed", "overflow", "overflow_reversed",
    "operator_additions", "reserve_funded", "paid", "shortfall", "moved_in", "moved_out",
    "reserve_moved_in", "reserve_moved_out", "resets", "hits",
    "hits_flush", "hits_full_house", "hits_four_of_a_kind", "hits_straight_flush",
    "hits_royal_flush", "paid_flush", "paid_full_house", "paid_four_of_a_kind",
    "paid_straight_flush", "paid_royal_flush", "envy_bonuses", "envy_paid", "cut",
)

TABLE_METER_NAMES = (
    "rounds", "wagers", "wagered", "voids", "voided", "retention", "retention_reversed",
    "operator_additions", "paid", "shortfall", "hits", "collected", "resets", "config_changes",
    "hits_flush", "hits_full_house", "hits_four_of_a_kind", "hits_straight_flush",
    "hits_royal_flush", "paid_flush", "paid_full_house", "paid_four_of_a_kind",
    "paid_straight_flush", "paid_royal_flush", "envy_bonuses", "envy_paid", "cut",
)


def named(values, names):
    """Dict of meter name -> value."""
    out = {}
    for i in range(len(names)):
        out[names[i]] = values[i]
    return out


def last_hits(jp):
    """The last (up to 25) jackpot hits as dicts, oldest first."""
    out = []
    for h in jp.hits:
        out.append({"time": h[m.H_TIME], "round": h[m.H_ROUND], "seat": h[m.H_SEAT],
                    "hand": paytable.NAMES[h[m.H_HAND]], "pool": cfg.POOL_KEYS[h[m.H_POOL]],
                    "cards": cardlib.names(h[m.H_CARDS:m.H_CARDS + 5]),
                    "amount": h[m.H_AMOUNT], "shortfall": h[m.H_SHORTFALL],
                    "pool_before": h[m.H_BEFORE], "pool_after": h[m.H_AFTER],
                    "envy_seats": mask_seats(h[m.H_ENVY_SEATS]),
                    "envy_each": h[m.H_ENVY_EACH], "envy_shortfall": h[m.H_ENVY_SHORTFALL],
                    "cut": h[m.H_CUT], "envy_cut": h[m.H_ENVY_CUT]})
    return out


def _relations():
    """The meters' relations the check tests, built for its call (the audit menu loads this
    module to name the meters, never to check the books)."""
    # (whole, part) pool meters: a part can never exceed its whole
    parts = ((m.PAID, m.SHORTFALL), (m.CONTRIB, m.REVERSED), (m.RESERVE_CONTRIB, m.RESERVE_REVERSED),
             (m.OVERFLOW, m.OVERFLOW_REVERSED), (m.WAGERED, m.VOIDED), (m.WAGERS, m.VOIDS),
             (m.HITS, m.RESETS))                  # a pool resets only after a hit of its own
    table_parts = ((m.T_WAGERED, m.T_VOIDED), (m.T_WAGERS, m.T_VOIDS),
                   (m.T_RETENTION, m.T_RETENTION_REVERSED), (m.T_WAGERS, m.T_ROUNDS))
    # (table meter, pool meter) pairs: the table's equals the sum of the pools'
    table_sums = (((m.T_PAID, m.PAID), (m.T_SHORTFALL, m.SHORTFALL), (m.T_HITS, m.HITS),
                   (m.T_ADDITIONS, m.ADDITIONS), (m.T_RESETS, m.RESETS),
                   (m.T_ENVY_COUNT, m.ENVY_COUNT), (m.T_ENVY_AMOUNT, m.ENVY_AMOUNT), (m.T_CUT, m.CUT))
                  + tuple((m.T_HIT_COUNT + h, m.HIT_COUNT + h) for h in range(paytable.HAND_TYPES))
                  + tuple((m.T_HIT_AMOUNT + h, m.HIT_AMOUNT + h) for h in range(paytable.HAND_TYPES)))
    return parts, table_parts, table_sums


def audit(jp):
    """List of broken accounting equations (empty when the books balance to the cent)."""
    parts, table_parts, table_sums = _relations()
    problems = []
    wagers = jp.table[m.T_WAGERED] - jp.table[m.T_VOIDED]
    credited = 0
    for slot in range(cfg.POOL_SLOTS):
        pm = jp.meters[slot]
        if m.pool_value_from_meters(pm) != jp.value[slot]:
            problems.append("%s value %d != meters %d" % (
                cfg.POOL_KEYS[slot], jp.value[slot], m.pool_value_from_meters(pm)))
        if m.reserve_from_meters(pm) != jp.reserve[slot]:
            problems.append("%s reserve %d != meters %d" % (
                cfg.POOL_KEYS[slot], jp.reserve[slot], m.reserve_from_meters(pm)))
        credited += (pm[m.CONTRIB] - pm[m.REVERSED] + pm[m.RESERVE_CONTRIB]
                     - pm[m.RESERVE_REVERSED])
        awarded = pm[m.ENVY_AMOUNT]
        counted = 0
        for hand in range(paytable.HAND_TYPES):
            awarded += pm[m.HIT_AMOUNT + hand]
            counted += pm[m.HIT_COUNT + hand]
        if awarded != pm[m.PAID] or counted != pm[m.HITS]:
            problems.append("%s paid %d in %d hits != hands and envy %d in %d" % (
                cfg.POOL_KEYS[slot], pm[m.PAID], pm[m.HITS], awarded, counted))
        if pm[m.ENVY_AMOUNT] < pm[m.ENVY_COUNT] or (pm[m.ENVY_AMOUNT] and not pm[m.ENVY_COUNT]):
            # every envy bonus is at least a cent
            problems.append("%s envy paid %d for %d bonuses" % (
                cfg.POOL_KEYS[slot], pm[m.ENVY_AMOUNT], pm[m.ENVY_COUNT]))
        for gross, part in parts:
            if pm[part] > pm[gross]:
                # the equations hold whatever these are; a part above its whole is still
                # money from nowhere (a shortfall above what was paid raises the pool)
                    problems.append("%s %s %d above %s %d" % (
                    cfg.POOL_KEYS[slot], POOL_METER_NAMES[part], pm[part],
                    POOL_METER_NAMES[gross], pm[gross]))
        ceiling = jp.config.pools[slot].ceiling
        if ceiling and slot in jp.active_slots() and jp.value[slot] > ceiling:
            problems.append("%s value %d above its ceiling %d" % (
                cfg.POOL_KEYS[slot], jp.value[slot], ceiling))
    retention = jp.table[m.T_RETENTION] - jp.table[m.T_RETENTION_REVERSED]
    if wagers != credited + retention + jp.carried_cents():
        problems.append("wagers %d != increments %d + retention %d + carried %d" % (
            wagers, credited, retention, jp.carried_cents()))
    for gross, part in table_parts:
        if jp.table[part] > jp.table[gross]:
            problems.append("table %s %d above %s %d" % (
                TABLE_METER_NAMES[part], jp.table[part], TABLE_METER_NAMES[gross],
                jp.table[gross]))
    t = jp.table
    held = len(mask_seats(jp.open_seats)) * jp.open_wager
    taken = t[m.T_COLLECTED] + t[m.T_VOIDED] + held
    if taken != t[m.T_WAGERED]:
        # each wager is collected after its round's payout [11.12], voided, or still in
        # the open round: exactly one of them
        problems.append("table collected %d + voided %d + open round %d %s wagered %d" % (
            t[m.T_COLLECTED], t[m.T_VOIDED], held,
            "above" if taken > t[m.T_WAGERED] else "below", t[m.T_WAGERED]))
    for tm, pmi in table_sums:
        total = 0
        for slot in range(cfg.POOL_SLOTS):
            total += jp.meters[slot][pmi]
        if total != jp.table[tm]:
            problems.append("table %s %d != pools %d" % (TABLE_METER_NAMES[tm],
                                                          jp.table[tm], total))
    return problems
