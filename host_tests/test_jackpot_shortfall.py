"""The shortfall option: rules.md's Decision (shortfall) as a named configuration option
(rules.md: "keep each one a named configuration option so an operator can choose the other
reading").  "operator" (the default, the Decision): a payout larger than what the pool holds
is paid in full, the difference operator-funded.  "cut": it is paid what the pool (or its
sub-pool) holds, the difference recorded as cut, not paid; an envy bonus follows it.

Amounts are worked by hand from firmware/jackpot/config.py's defaults (a 100-cent wager, 70
cents of it to the pool) with small reset amounts, so that a fixed-odds payout (four of a
kind 500 to 1: $500.00) is larger than the pool."""

import random

import pytest

from firmware import config_file
from firmware.drivers import buttons as btn
from firmware.jackpot import codec, record
from firmware.jackpot import config as cfg
from firmware.jackpot import hits as hitplan
from firmware.jackpot import meters as m
from firmware.jackpot import paytable as pt
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.table import audit as audit_menu
from firmware.table import controller as tc
from host_tests.test_controller import Table, events_of, lock_seats
from host_tests.test_jackpot_envy import old_state_bytes
from tools.link_pool import LinkedPool

C = cards.parse
PER_WAGER = 70
SMALL = {"main": {"reset": 30000}}          # $300.00: below four of a kind's $500.00


def _quads_for_seat_1(jp):
    """Seats 1 and 2 wager; seat 1 makes four aces with the flop (500 to 1: 50,000 cents)."""
    jp.contribute(1, [1, 2])
    return jp.settle(1, 100, C("Ah As 2c"), [(1, C("Ac Ad"), True), (2, C("7c 8d"), True)])


def _fields(hit):
    return (hit[m.H_SEAT], hit[m.H_AMOUNT], hit[m.H_SHORTFALL], hit[m.H_BEFORE], hit[m.H_AFTER],
            hit[m.H_CUT], hit[m.H_ENVY_SEATS], hit[m.H_ENVY_EACH], hit[m.H_ENVY_SHORTFALL],
            hit[m.H_ENVY_CUT])


def test_the_default_is_the_decision_paid_in_full_by_the_operator():
    config = cfg.default()
    assert config.shortfall == 0 and config.as_dict()["shortfall"] == "operator"
    assert dict(config.items())["shortfall"] == "operator"
    jp = Jackpot(SMALL)
    plan = _quads_for_seat_1(jp)
    pool = 30000 + 2 * PER_WAGER
    assert [_fields(h) for h in plan.hits] == [(1, 50000, 50000 - pool, pool, 0, 0, 0, 0, 0, 0)]
    pm = jp.meters[cfg.MAIN]
    assert (pm[m.PAID], pm[m.SHORTFALL], pm[m.CUT]) == (50000, 50000 - pool, 0)
    assert jp.value[cfg.MAIN] == 30000 and jp.audit() == []   # emptied: reset


def test_cut_pays_what_the_pool_holds_and_records_the_cut():
    jp = Jackpot(dict(SMALL, shortfall="cut"))
    assert jp.config.shortfall == 1 and jp.config.as_dict()["shortfall"] == "cut"
    plan = _quads_for_seat_1(jp)
    pool = 30000 + 2 * PER_WAGER
    # paid the pool (30,140), nothing operator-funded, 19,860 cut
    assert [_fields(h) for h in plan.hits] == [(1, pool, 0, pool, 0, 50000 - pool, 0, 0, 0, 0)]
    assert plan.total_paid() == pool
    pm = jp.meters[cfg.MAIN]
    assert (pm[m.PAID], pm[m.SHORTFALL], pm[m.CUT]) == (pool, 0, 50000 - pool)
    assert (jp.table[m.T_PAID], jp.table[m.T_SHORTFALL], jp.table[m.T_CUT]) == (pool, 0, 50000 - pool)
    assert jp.pool_meters(cfg.MAIN)["cut"] == 50000 - pool == jp.table_meters()["cut"]
    assert jp.value[cfg.MAIN] == 30000 and jp.audit() == []   # emptied: reset as before
    hit = jp.last_hits()[0]
    assert (hit["amount"], hit["cut"], hit["shortfall"]) == (pool, 50000 - pool, 0)


def test_a_payout_the_pool_covers_is_the_same_both_ways():
    for reading in ("operator", "cut"):
        jp = Jackpot({"shortfall": reading, "main": {"reset": 1000000}})
        plan = _quads_for_seat_1(jp)
        assert [_fields(h) for h in plan.hits] == [
            (1, 50000, 0, 1000140, 950140, 0, 0, 0, 0, 0)], reading
        assert jp.meters[cfg.MAIN][m.CUT] == 0 and jp.audit() == []


def test_the_readings_differ_exactly_where_a_payout_exceeds_the_pool():
    # rules.md 11.10 order, random pools and winners: the pool pays the same from itself both
    # ways; a payout it covers is the same; one it does not is paid in full by the operator,
    # or cut to what was left
    rng = random.Random(7)
    odds, percent = list(pt.DEFAULT_ODDS), list(pt.DEFAULT_PERCENT)
    differed = 0
    for _ in range(400):
        value = rng.choice((0, 1, 999, 15000, 60000, 120000, rng.randrange(0, 2000000)))
        winners = [(seat, rng.randrange(pt.HAND_TYPES)) for seat in range(1, rng.randrange(2, 8))]
        full, left_a, royal_a = hitplan.plan_pool(value, winners, 100, odds, percent)
        cut, left_b, royal_b = hitplan.plan_pool(value, winners, 100, odds, percent, cut=True)
        assert (left_a, royal_a) == (left_b, royal_b) and left_b >= 0
        for a, b in zip(full, cut):
            assert a[:2] == b[:2] and a[3] == b[3] and a[5:8] == b[5:8]   # same from the pool
            if a[hitplan.AMOUNT] <= a[hitplan.BEFORE]:
                assert a == b and a[hitplan.SHORTFALL] == 0 == a[hitplan.CUT]
            else:
                differed += 1
                assert a[hitplan.SHORTFALL] == a[hitplan.AMOUNT] - a[hitplan.BEFORE]
                assert (b[hitplan.AMOUNT], b[hitplan.SHORTFALL]) == (b[hitplan.BEFORE], 0)
                assert b[hitplan.CUT] == a[hitplan.SHORTFALL] and a[hitplan.CUT] == 0
        assert len(full) == len(cut)
    assert differed > 20


@pytest.mark.parametrize("reading", ["operator", "cut"])
def test_the_books_balance_and_no_pool_goes_negative_either_way(reading):
    rng = random.Random(11)
    jp = Jackpot({"split": True, "minor": {"reset": 20000}, "major": {"reset": 150000},
                  "envy": {"four_of_a_kind": 20000, "straight_flush": 50000},
                  "shortfall": reading})
    deck = list(range(52))
    for round_no in range(1, 301):
        seats = sorted(rng.sample(range(1, 8), rng.randrange(1, 8)))
        jp.contribute(round_no, seats)
        rng.shuffle(deck)
        flop = deck[:3]
        if rng.randrange(3) == 0:      # deal a flush-suited flop often enough for hits
            suit = rng.randrange(4)
            flop = [suit + 4 * r for r in rng.sample(range(13), 3)]
        rest = [c for c in deck if c not in flop]
        hands = [(s, rest[2 * i:2 * i + 2], rng.randrange(4) > 0) for i, s in enumerate(seats)]
        plan = jp.settle(round_no, 100 + round_no, flop, hands)
        for h in plan.hits:
            assert h[m.H_AFTER] >= 0
            if reading == "cut":
                assert h[m.H_SHORTFALL] == 0 == h[m.H_ENVY_SHORTFALL]
            else:
                assert h[m.H_CUT] == 0 == h[m.H_ENVY_CUT]
        assert min(jp.value) >= 0 and jp.audit() == [], round_no
    pm = jp.table_meters()
    assert pm["hits"] > 0
    if reading == "cut":
        assert pm["shortfall"] == 0 and pm["cut"] > 0
    else:
        assert pm["cut"] == 0 and pm["shortfall"] > 0
    data = record.encode(jp)
    assert record.encode(record.decode(data)) == data


def test_two_tables_one_each_way_keep_the_same_pools_and_differ_only_where_short():
    # the same rounds at two tables: the pools, reserves and resets stay the same; a hit
    # differs only where its payout exceeded what was left (operator-funded, or cut)
    rng = random.Random(5)
    layout = {"split": True, "minor": {"reset": 20000, "reserve_rate": (5, 100)},
              "major": {"reset": 150000}}
    full = Jackpot(dict(layout, shortfall="operator"))
    cut = Jackpot(dict(layout, shortfall="cut"))
    deck = list(range(52))
    short = 0
    for round_no in range(1, 201):
        seats = sorted(rng.sample(range(1, 8), rng.randrange(1, 8)))
        rng.shuffle(deck)
        suit = rng.randrange(4)
        flop = [suit + 4 * r for r in rng.sample(range(13), 3)]
        rest = [c for c in deck if c not in flop]
        hands = [(s, rest[2 * i:2 * i + 2], True) for i, s in enumerate(seats)]
        a, b = [], []
        for jp, out in ((full, a), (cut, b)):
            jp.contribute(round_no, seats)
            out.extend(jp.settle(round_no, round_no, flop, hands).hits)
        assert (full.value, full.reserve) == (cut.value, cut.reserve)
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if x[m.H_SHORTFALL]:
                short += 1
                assert y[m.H_AMOUNT] == x[m.H_AMOUNT] - x[m.H_SHORTFALL] == y[m.H_BEFORE]
                assert (y[m.H_SHORTFALL], y[m.H_CUT]) == (0, x[m.H_SHORTFALL])
                y = list(y)
                y[m.H_AMOUNT], y[m.H_SHORTFALL], y[m.H_CUT] = x[m.H_AMOUNT], x[m.H_SHORTFALL], 0
            assert x == y
        assert full.audit() == [] == cut.audit()
    assert short > 5
    assert full.table[m.T_PAID] - full.table[m.T_SHORTFALL] == cut.table[m.T_PAID]
    assert full.table[m.T_SHORTFALL] == cut.table[m.T_CUT] > 0


def _envy_quads(reading, reset):
    """Seats 1-4 wager and play; seat 1 makes four aces: 500 to 1 and a $300.00 envy bonus
    to each of seats 2-4 (90,000 cents)."""
    jp = Jackpot({"main": {"reset": reset}, "envy": {"four_of_a_kind": 30000},
                  "shortfall": reading})
    jp.contribute(1, [1, 2, 3, 4])
    plan = jp.settle(1, 100, C("Ah As 2c"), [(1, C("Ac Ad"), True), (2, C("7c 8d"), True),
                                             (3, C("7h 8h"), True), (4, C("7s 8s"), True)])
    return jp, plan


def test_an_envy_bonus_the_pool_cannot_pay_is_shared_with_cut():
    # pool 100,281; quads 50,000 leaves 50,281 for 90,000 of bonuses
    jp, plan = _envy_quads("operator", 100001)
    assert [_fields(h) for h in plan.hits] == [
        (1, 50000, 0, 100281, 50281, 0, 0b1110, 30000, 90000 - 50281, 0)]
    assert jp.audit() == [] and jp.value[cfg.MAIN] == 100001     # emptied: reset
    jp, plan = _envy_quads("cut", 100001)
    # shared equally: 16,760 each, the odd cent stays in the pool
    assert [_fields(h) for h in plan.hits] == [
        (1, 50000, 0, 100281, 50281, 0, 0b1110, 16760, 0, 90000 - 3 * 16760)]
    assert plan.total_paid() == 50000 + 3 * 16760
    assert jp.value[cfg.MAIN] == 1 and jp.audit() == []
    pm = jp.meters[cfg.MAIN]
    assert (pm[m.ENVY_COUNT], pm[m.ENVY_AMOUNT], pm[m.CUT]) == (3, 50280, 90000 - 50280)
    assert jp.last_hits()[0]["envy_cut"] == 90000 - 50280


def test_an_envy_bonus_after_an_emptied_pool_is_cut_to_nothing():
    # pool 30,280; quads takes all of it (19,720 cut); the bonuses find nothing
    jp, plan = _envy_quads("cut", 30000)
    assert [_fields(h) for h in plan.hits] == [
        (1, 30280, 0, 30280, 0, 50000 - 30280, 0, 0, 0, 90000)]
    assert jp.meters[cfg.MAIN][m.ENVY_COUNT] == 0 and jp.audit() == []
    assert jp.value[cfg.MAIN] == 30000
    data = record.encode(jp)
    assert record.encode(record.decode(data)) == data


def test_with_sub_pools_the_cut_is_to_the_sub_pool():
    jp = Jackpot({"split": True, "minor": {"reset": 30000}, "major": {"reset": 1000000},
                  "shortfall": "cut"})
    plan = _quads_for_seat_1(jp)
    minor = 30000 + 2 * 20
    assert [(h[m.H_POOL], h[m.H_AMOUNT], h[m.H_CUT]) for h in plan.hits] == [
        (cfg.MINOR, minor, 50000 - minor)]
    assert jp.meters[cfg.MINOR][m.CUT] == 50000 - minor and jp.meters[cfg.MAJOR][m.CUT] == 0
    assert jp.value[cfg.MAJOR] == 1000000 + 2 * 50 and jp.audit() == []


def test_the_option_is_a_setting_logged_like_the_others():
    jp = Jackpot()
    result = jp.set_config({"shortfall": "cut"})
    assert result.changes == [("shortfall", "operator", "cut")] and result.pending == []
    assert jp.config.shortfall == 1 and jp.table[m.T_CONFIG_CHANGES] == 1
    setting, old, new = cfg.logged_change(jp.config, "shortfall", "operator", "cut")
    assert (setting, old, new) == (124, 0, 1)
    assert audit_menu.setting_label("shortfall") == "shortfall"
    assert (audit_menu.setting_value("shortfall", 0), audit_menu.setting_value("shortfall", 1)) \
        == ("operator", "cut")
    assert cfg.build(jp.config.as_dict()).ints() == jp.config.ints()
    assert jp.config.ints()[-1] == 1 and len(jp.config.ints()) == cfg.CONFIG_INTS


@pytest.mark.parametrize("value", ["Cut", "", 1, True, None, ["cut"]])
def test_a_bad_value_is_refused_naming_the_key(value):
    with pytest.raises(ValueError, match="config shortfall: .* is not one of operator, cut"):
        cfg.build({"shortfall": value})
    text = '{"format": 1, "game": "uth", "jackpot": {"shortfall": %s}}' % (
        '"%s"' % value if isinstance(value, str) else "1")
    with pytest.raises(config_file.ConfigError, match="config jackpot.shortfall: "):
        config_file.parse(text)


def test_the_config_file_sets_it_and_a_linked_table_refuses_it():
    from tools import config_check

    table = config_file.parse('{"format": 1, "game": "uth", "jackpot": {"shortfall": "cut"}}')
    assert table.jackpot.shortfall == 1
    assert "  shortfall cut: a payout above the pool is cut to what it holds" in \
        config_check.summary(table)
    default = config_file.parse('{"format": 1, "game": "uth"}')
    assert default.jackpot.shortfall == 0
    assert not [line for line in config_check.summary(default) if "shortfall" in line]
    with pytest.raises(config_file.ConfigError, match="config jackpot.shortfall: 'cut' is a "
                                                      "standalone table's option"):
        config_file.parse('{"format": 1, "game": "uth", "jackpot": {"shortfall": "cut"},'
                          ' "link": {"table": 3, "broker": "10.1.2.3"}}')
    assert config_file.parse('{"format": 1, "game": "uth", "jackpot": {"shortfall": "operator"},'
                             ' "link": {"table": 3, "broker": "10.1.2.3"}}').link.table == 3
    with pytest.raises(ValueError, match="config shortfall: 'cut' is a standalone table's option"):
        LinkedPool({"shortfall": "cut"})
    assert LinkedPool({"shortfall": "operator"}).config.shortfall == 0


def _version_2_bytes(jp):
    """The state as the firmware before the shortfall option wrote it (version 2): 35 config
    ints, 32 meters per pool, 26 table meters, 17 ints a hit."""
    return old_state_bytes(jp, 2, 35, 32, 26, 17)


def test_a_state_written_before_the_option_reads_as_the_default():
    old = Jackpot(dict(SMALL, envy={"four_of_a_kind": 500}))
    _quads_for_seat_1(old)                          # operator-funded shortfall on record
    old.contribute(2, [3])                          # a round open at the upgrade
    data = _version_2_bytes(old)
    jp = record.decode(data)
    assert jp.config.shortfall == 0 and jp.config.envy == old.config.envy
    assert jp.value == old.value and jp.meters == old.meters and jp.hits == old.hits
    assert jp.hits[0][m.H_SHORTFALL] > 0 and jp.hits[0][m.H_CUT] == 0
    assert jp.open_round == 2 and jp.audit() == []
    again = record.encode(jp)
    assert again[2] == 2 * record.VERSION == 6 and record.encode(record.decode(again)) == again
    with pytest.raises(ValueError, match="truncated|end"):
        record.decode(data[:-1])


def _cut_state():
    jp = Jackpot(dict(SMALL, shortfall="cut"))
    _quads_for_seat_1(jp)
    return jp


@pytest.mark.parametrize("field, value, error", [
    (m.H_CUT, -1, "hit cut -1 out of range"),
    (m.H_ENVY_CUT, -5, "hit envy cut -5 out of range"),
])
def test_a_corrupt_cut_is_refused_by_name(field, value, error):
    jp = _cut_state()
    jp.hits[0][field] = value
    with pytest.raises(ValueError, match=error):
        record.decode(record.encode(jp))


def test_a_cut_that_does_not_add_up_is_refused():
    jp = _cut_state()
    jp.hits[0][m.H_CUT] += 1                        # more cut on record than the meters hold
    with pytest.raises(ValueError, match="hits on record hold cut"):
        record.decode(record.encode(jp))
    jp = _cut_state()
    jp.hits[0][m.H_AMOUNT] -= 10                     # a cut that left money in the pool
    jp.hits[0][m.H_AFTER] += 10
    with pytest.raises(ValueError, match="hit cut 19860 with shortfall 0, pool after 10"):
        record.decode(record.encode(jp))
    jp = _cut_state()
    jp.table[m.T_CUT] -= 1                          # the table's meter no longer the sum
    assert jp.audit() == ["table cut 19859 != pools 19860"]
    with pytest.raises(ValueError, match="table cut 19859 != pools 19860"):
        record.decode(record.encode(jp))
    jp = _cut_state()
    data = bytearray(record.encode(jp))
    w = codec.Writer()
    w.ints(jp.config.ints())
    at = 3 + len(w.bytes()) - 1                     # the option: the last config int
    assert data[at] == 2                            # zigzag 1
    data[at] = 4
    with pytest.raises(ValueError, match="config shortfall: 2 is not 0 or 1"):
        record.decode(bytes(data))


class CutTable(Table):
    """A table whose RAM clear starts from a $300.00 pool with the shortfall option "cut"."""

    def boot(self):
        c = super().boot()
        c.jackpot_config = cfg.build(dict(SMALL, shortfall="cut"))
        return c


def test_the_table_pays_the_cut_amount_and_the_audit_menu_shows_the_cut(tmp_path):
    table = CutTable(tmp_path)
    table.ram_clear()
    lock_seats(table, (1, 2))
    table.deal([(1, "Ac Ad"), (2, "7c 8d"), (8, "Ah As 2c 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.CONFIRM
    table.key(True)
    table.press(btn.OK)
    table.key(False)
    assert table.c.phase == tc.RESULTS
    pool = 30000 + 2 * PER_WAGER
    assert [e[4:7] for e in events_of(table.memory, ev.JACKPOT_HIT)] == [(1, pt.FOUR_OF_A_KIND, pool)]
    assert "JP S1 $301.40" in table.c.results
    out = []
    for hit in table.c.jackpot.last_hits():
        audit_menu.hit_lines(out, hit)
    assert out == ["S1 $301.40 Quads", " r1", " cut $198.60 of", " $500.00"]
    lines = []
    audit_menu._jackpot_lines(lines, [], table.c.jackpot)
    assert "cut" + " " * 6 + "$198.60" in lines          # pool and table meters
    table.boot()                                          # read back from critical memory
    assert table.c.jackpot.meters[cfg.MAIN][m.CUT] == 50000 - pool
    assert table.c.jackpot.config.shortfall == 1


def test_a_table_linked_with_cut_in_force_keeps_its_jackpot_closed(tmp_path):
    from host_tests.test_link_wiring import Rig

    standalone = CutTable(tmp_path)                  # set while standalone...
    standalone.ram_clear()
    rig = Rig(tmp_path)                              # ...then the table is linked
    rig.step(count=20)
    assert rig.c.jackpot.config.shortfall == 1
    assert not rig.c.jackpot_open() and rig.c.config_state() == (False, tc.LINKED_CUT_TEXT)
    assert rig.c.view.lines[1] == "CONFIG ERROR" and rig.c.view.meter_fault == "CONF Err"
    assert len(tc.LINKED_CUT_TEXT) <= 64                  # the audit menu shows 4 lines of it
