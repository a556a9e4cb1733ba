"""The meters' names for people (firmware.jackpot.meters' layouts, in their order): the
service protocol, the audit menu and the jackpot's reports (Jackpot.pool_meters,
table_meters) load this module; the round loop does not, so the names take no room in its
heap."""

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
