"""The envy bonus: an operator option of rules.md 2 ("make them configuration, off by
default"), paid for a seat's jackpot hand to every other seat that played with a jackpot
wager, out of the pool after its winners (docs/jackpot.md, Decision (envy)).

The amounts below are worked by hand from the default configuration
(firmware/jackpot/config.py: a 100-cent wager, 70 cents of it to the pool) with the pool
seeded at $10,000.00 (SEED: the reset amount, an operator option too) and the pay table
of rules.md 11.9 (royal 10,000 to 1 or 100% of the pool, straight flush 1,000 to 1 or 10% of the pool)."""

import pytest

from firmware import config_file
from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights as lights
from firmware.jackpot import codec, record
from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot import paytable as pt
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards
from firmware.store import eventlog as ev
from firmware.table import audit as audit_menu
from firmware.table import controller as tc
from host_tests.test_controller import Table, events_of, lock_seats
from tools.link_pool import LinkedPool

C = cards.parse
RESET = 1000000
PER_WAGER = 70
ENVY = {"royal_flush": 50000, "straight_flush": 5000}
SEED = {"main": {"reset": RESET}}


def _fields(hit):
    return (hit[m.H_SEAT], hit[m.H_HAND], hit[m.H_AMOUNT], hit[m.H_SHORTFALL], hit[m.H_BEFORE],
            hit[m.H_AFTER], hit[m.H_ENVY_SEATS], hit[m.H_ENVY_EACH], hit[m.H_ENVY_SHORTFALL])


def _royal_for_seat_1(jp):
    """Seats 1-4 wager; seat 1 makes a royal with the flop, seat 4 folds."""
    jp.contribute(1, [1, 2, 3, 4])
    return jp.settle(1, 100, C("Qs Js Ts"), [(1, C("As Ks"), True), (2, C("2c 7d"), True),
                                             (3, C("3c 8d"), True), (4, C("4c 5d"), False)])


def test_the_envy_bonus_is_off_by_default():
    jp = Jackpot()
    assert jp.config.envy == [0] * pt.HAND_TYPES and not jp.config.envy_paid()
    plan = _royal_for_seat_1(jp)
    assert [h[m.H_SEAT] for h in plan.hits] == [1]
    assert jp.meters[cfg.MAIN][m.ENVY_COUNT] == 0 and jp.table[m.T_ENVY_AMOUNT] == 0


def test_a_royal_pays_the_envy_bonus_to_every_other_seat_that_played():
    jp = Jackpot(dict(SEED, envy=ENVY))
    plan = _royal_for_seat_1(jp)
    pool = RESET + 4 * PER_WAGER
    # the royal takes 100% of the pool (1,000,280 > 10,000 x 100); the bonuses of seats 2 and
    # 3 come after it, from an empty pool: operator-funded; seat 4 folded and gets none.  One
    # record for the hand, with the bonuses it paid.
    assert [_fields(h) for h in plan.hits] == [
        (1, pt.ROYAL_FLUSH, pool, 0, pool, 0, 0b110, 50000, 100000)]
    assert plan.total_paid() == pool + 100000
    assert jp.value[cfg.MAIN] == RESET               # reset after the royal
    pm = jp.meters[cfg.MAIN]
    assert (pm[m.PAID], pm[m.SHORTFALL], pm[m.HITS]) == (pool + 100000, 100000, 1)
    assert (pm[m.ENVY_COUNT], pm[m.ENVY_AMOUNT]) == (2, 100000)
    assert (jp.table[m.T_ENVY_COUNT], jp.table[m.T_ENVY_AMOUNT], jp.table[m.T_HITS]) == (2, 100000, 1)
    assert jp.table_meters()["envy_paid"] == 100000
    assert jp.pool_meters(cfg.MAIN)["envy_bonuses"] == 2
    assert jp.audit() == []
    assert [(h["seat"], h["envy_seats"], h["envy_each"], h["envy_shortfall"])
            for h in jp.last_hits()] == [(1, [2, 3], 50000, 100000)]


def test_the_bonus_comes_from_what_the_straight_flush_leaves():
    jp = Jackpot(dict(SEED, envy=ENVY))
    jp.contribute(1, [1, 2, 3])
    plan = jp.settle(1, 100, C("9h 8h 7h"), [(1, C("2c 3d"), True), (2, C("6h 5h"), True),
                                             (3, C("Kc Kd"), True)])
    pool = RESET + 3 * PER_WAGER                    # 1,000,210
    sf = pool // 10                                 # 10% = 100,021 > 1,000 x 100
    left = pool - sf
    assert [_fields(h) for h in plan.hits] == [
        (2, pt.STRAIGHT_FLUSH, sf, 0, pool, left, 0b101, 5000, 0)]
    assert jp.value[cfg.MAIN] == left - 10000 and jp.audit() == []


def test_two_winners_each_get_the_bonus_for_the_other_hand():
    jp = Jackpot(dict(SEED, envy=ENVY))
    jp.contribute(1, [1, 2, 3])
    # seat 1: 9-high straight flush, seat 2: jack-high straight flush, seat 3 nothing
    plan = jp.settle(1, 100, C("9h 8h 7h"), [(1, C("6h 5h"), True), (2, C("Th Jh"), True),
                                             (3, C("Kc Kd"), True)])
    paid = [(h[m.H_SEAT], h[m.H_ENVY_SEATS], h[m.H_ENVY_EACH]) for h in plan.hits]
    assert paid == [(1, 0b110, 5000), (2, 0b101, 5000)]
    assert jp.table[m.T_HITS] == 2 and jp.table[m.T_ENVY_COUNT] == 4
    assert jp.table[m.T_ENVY_AMOUNT] == 20000


def test_a_hand_without_an_envy_amount_pays_none():
    jp = Jackpot({"envy": {"royal_flush": 50000}})
    jp.contribute(1, [1, 2])
    plan = jp.settle(1, 100, C("9h 8h 7h"), [(1, C("6h 5h"), True), (2, C("Kc Kd"), True)])
    assert [h[m.H_ENVY_SEATS] for h in plan.hits] == [0]


def test_with_sub_pools_the_royal_bonus_comes_from_the_major_pool():
    jp = Jackpot({"split": True, "envy": ENVY})
    minor_before = jp.value[cfg.MINOR]
    _royal_for_seat_1(jp)
    minor_rate = 20                                  # default minor 20/100 of 100 cents
    assert jp.value[cfg.MINOR] == minor_before + 4 * minor_rate
    assert jp.meters[cfg.MAJOR][m.ENVY_AMOUNT] == 100000
    assert jp.meters[cfg.MINOR][m.ENVY_AMOUNT] == 0
    assert jp.audit() == []


@pytest.mark.parametrize("envy, error", [
    ([50000], "config envy: [50000] is not a dict"),
    ({"royal": 5}, "config envy.royal: unknown hand"),
    ({"royal_flush": -1}, "config envy.royal_flush: -1 is not an integer"),
    ({"royal_flush": True}, "config envy.royal_flush: True is not an integer"),
    ({"royal_flush": 1.5}, "config envy.royal_flush: 1.5 is not an integer"),
    ({"royal_flush": 10000000}, "config envy.royal_flush: 10000000 is not an integer in 0..9999999"),
])
def test_a_bad_envy_amount_is_refused_by_name(envy, error):
    with pytest.raises(ValueError) as caught:
        cfg.build({"envy": envy})
    assert str(caught.value).startswith(error)


def test_the_envy_amounts_are_settings_like_the_others():
    config = cfg.build({"envy": ENVY})
    assert cfg.build(config.as_dict()).ints() == config.ints()
    items = dict(config.items())
    assert items["envy.royal_flush"] == 50000 and items["envy.flush"] == 0
    # appended after the pools: the setting ids logged before the envy bonus keep their keys
    keys = [k for k, _ in config.items()]
    # (then the shortfall option, appended after them)
    assert keys.index("envy.flush") == len(cfg.default().items()) - pt.HAND_TYPES - 1
    assert keys.index("major.ceiling") == keys.index("envy.flush") - 1
    jp = Jackpot()
    change = jp.set_config({"envy": {"straight_flush": 2500}})
    assert change.changes == [("envy.straight_flush", 0, 2500)] and change.pending == []
    assert jp.config.envy[pt.STRAIGHT_FLUSH] == 2500


def test_the_envy_state_round_trips_through_bytes():
    jp = Jackpot(dict(SEED, envy=ENVY))
    _royal_for_seat_1(jp)
    data = record.encode(jp)
    back = record.decode(data)
    assert back.hits == jp.hits and back.meters == jp.meters and back.table == jp.table
    assert back.config.envy == jp.config.envy
    assert record.encode(back) == data


def old_state_bytes(jp, version, config_ints, pool_meters, table_meters, hit_ints):
    """The state of jp as an older firmware wrote it (docs/jackpot.md, byte format): its
    version, then that version's counts of config ints, meters per pool, table meters and
    ints a hit."""
    w = codec.Writer()
    w.raw(b"JP")
    w.int(version)
    for v in jp.config.ints()[:config_ints]:
        w.int(v)
    for _ in range(cfg.POOL_SLOTS):
        w.int(0)                                     # no pending change
    for slot in range(cfg.POOL_SLOTS):
        for v in (jp.value[slot], jp.reserve[slot], jp.carry[slot], jp.reserve_carry[slot]):
            w.int(v)
        w.ints(jp.meters[slot][:pool_meters])
    w.ints(jp.table[:table_meters])
    for v in (jp.last_round, jp.open_round, jp.open_wager, jp.open_seats):
        w.int(v)
    w.ints(jp.open_overflow)
    w.int(len(jp.hits))
    for h in jp.hits:
        w.ints(h[:hit_ints])
    return w.bytes()


def _version_1_bytes(jp):
    """The state as the firmware before the envy bonus wrote it (version 1): 30 config ints,
    30 meters per pool, 24 table meters, 14 ints a hit."""
    return old_state_bytes(jp, 1, 30, 30, 24, 14)


def test_a_state_written_before_the_envy_bonus_is_still_read():
    old = Jackpot()
    _royal_for_seat_1(old)
    old.contribute(2, [2, 5])                        # a round open at the upgrade
    data = _version_1_bytes(old)
    jp = record.decode(data)
    assert jp.config.envy == [0] * pt.HAND_TYPES
    assert jp.value == old.value and jp.meters == old.meters and jp.hits == old.hits
    assert (jp.open_round, jp.open_seats) == (2, old.open_seats) and jp.audit() == []
    again = record.encode(jp)
    assert again[2] == 2 * record.VERSION and record.decode(again).value == old.value  # as now
    with pytest.raises(ValueError, match="truncated|end"):
        record.decode(data[:-1])


def _hit_state(field, value):
    jp = Jackpot(dict(SEED, envy=ENVY))
    _royal_for_seat_1(jp)
    jp.hits[0][field] = value
    return record.encode(jp)


@pytest.mark.parametrize("field, value, error", [
    (m.H_ENVY_SEATS, 0b111, "seat 1 paid an envy bonus for its own hand"),
    (m.H_ENVY_SEATS, 1 << 7, "hit envy seats 128 out of range 0..127"),
    (m.H_ENVY_SEATS, 0, "hit envy bonus 50000 for seats mask 0"),
    (m.H_ENVY_EACH, 0, "hit envy bonus 0 for seats mask 6"),
    (m.H_ENVY_EACH, 10000000, "hit envy bonus 10000000 out of range 0..9999999"),
    (m.H_ENVY_SHORTFALL, -1, "hit envy shortfall -1 out of range"),
])
def test_a_corrupt_envy_record_is_refused_by_name(field, value, error):
    with pytest.raises(ValueError, match=error):
        record.decode(_hit_state(field, value))


def test_an_envy_shortfall_that_does_not_add_up_is_refused():
    # two seats were paid 50,000 each, all of it operator-funded (the royal emptied the pool)
    with pytest.raises(ValueError, match="hit envy shortfall 350000 out of range 0..100000"):
        record.decode(_hit_state(m.H_ENVY_SHORTFALL, 7 * 50000))
    with pytest.raises(ValueError, match="hit envy shortfall 0 of 100000 paid after the pool "
                                         "was emptied"):
        record.decode(_hit_state(m.H_ENVY_SHORTFALL, 0))


def test_envy_bonuses_counted_without_their_money_do_not_balance():
    jp = Jackpot()
    jp.meters[cfg.MAIN][m.ENVY_COUNT] += 5
    jp.table[m.T_ENVY_COUNT] += 5
    assert "main envy paid 0 for 5 bonuses" in jp.audit()


def test_books_that_hide_an_envy_bonus_do_not_balance():
    jp = Jackpot(dict(SEED, envy=ENVY))
    _royal_for_seat_1(jp)
    jp.meters[cfg.MAIN][m.ENVY_AMOUNT] -= 1
    assert any("hands and envy" in p for p in jp.audit())


def test_a_linked_table_refuses_the_envy_bonus(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"format": 1, "game": "uth", "jackpot": {"envy": {"royal_flush": 50000}},'
                    ' "link": {"table": 3, "broker": "10.1.2.3"}}')
    with pytest.raises(config_file.ConfigError, match="config jackpot.envy: the envy bonus is a "
                                                      "standalone table's option"):
        config_file.load(str(path), None)
    path.write_text('{"format": 1, "game": "uth", "jackpot": {"envy": {"royal_flush": 50000}}}')
    assert config_file.load(str(path), None).jackpot.envy[pt.ROYAL_FLUSH] == 50000
    with pytest.raises(ValueError, match="config envy: the envy bonus is a standalone"):
        LinkedPool({"envy": {"royal_flush": 50000}})


class EnvyTable(Table):
    """A table whose RAM clear starts from a configuration with the envy bonus BONUS."""

    BONUS = ENVY

    def boot(self):
        c = super().boot()
        c.jackpot_config = cfg.build(dict(SEED, envy=self.BONUS))
        return c


def _envy_round(table):
    lock_seats(table, (1, 2, 3))
    table.deal([(1, "As Ks"), (2, "2c 7d"), (3, "3c 8d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)


def test_the_table_pays_logs_and_shows_the_envy_bonus(tmp_path):
    table = EnvyTable(tmp_path)
    table.ram_clear()
    assert table.c.jackpot.config.envy == cfg.build({"envy": ENVY}).envy
    _envy_round(table)
    assert table.c.phase == tc.CONFIRM
    # the supervisor confirms the royal: the bonuses are not jackpot hands to verify
    assert "S1 Royal Flush" in table.screen() and "S2" not in table.screen()
    assert "JACKPOT x" not in table.screen()
    assert [table.c.view.seat_light[s] == lights.WINNER for s in range(3)] == [True, False, False]
    table.key(True)
    table.press(btn.OK)
    table.key(False)
    assert table.c.phase == tc.RESULTS
    pool = RESET + 3 * PER_WAGER
    assert [e[4:7] for e in events_of(table.memory, ev.SUPERVISOR_CONFIRM)][-1][1] == 1
    assert [e[4:7] for e in events_of(table.memory, ev.JACKPOT_HIT)] == [(1, pt.ROYAL_FLUSH, pool)]
    assert [e[4:7] for e in events_of(table.memory, ev.JACKPOT_ENVY)] == [(1, 0b110, 50000)]
    assert "envy S2 $500.00" in table.c.results and "envy S3 $500.00" in table.c.results
    assert "JP S1 $10002.10" in table.c.results
    assert table.c.view.win[1:3] == (1, pool)        # the sign shows the winner only
    settle = events_of(table.memory, ev.SETTLE)[-1]
    assert settle[5] == pool + 100000                # the round paid the bonuses too
    # the audit menu names the entry
    lines = audit_menu.entry_lines(events_of(table.memory, ev.JACKPOT_ENVY)[0])
    assert lines[1:] == [" envy $500.00", " S1>2,3"]
    # and its last hits list the bonuses as such
    out = []
    for hit in table.c.jackpot.last_hits():
        audit_menu.hit_lines(out, hit)
    assert out == ["S1 $10002.10", " Royal Flush r1", " envy $500.00", " to S2,3"]
    # after a power cut the results still list the bonuses (read back from the hit records)
    before = list(table.c.results)
    table.boot()
    assert table.c.phase == tc.RESULTS and table.c.results == before


def test_the_largest_envy_entry_fits_the_audit_menu():
    # the most a bonus can be, paid for seat 1's hand to the six other seats
    entry = (9, 4000, 12, ev.JACKPOT_ENVY, 1, 0b1111110, cfg.MAX_ENVY)
    assert audit_menu.entry_lines(entry)[1:] == [" envy $99999.99", " S1>2,3,4,5,6,7"]


def test_a_paid_line_fits_the_display_and_never_cuts_the_amount():
    from firmware.table import screens

    assert screens.paid_lines("JP", 1, "$1000000.00") == ["JP1 $1000000.00"]
    assert screens.paid_lines("envy", 3, "$500.00") == ["envy S3 $500.00"]
    assert screens.paid_lines("envy", 7, "$99999.99") == ["envy7 $99999.99"]
    assert screens.paid_lines("JP", 7, "~$10737418.23") == ["JP7~$10737418.23"]
    # the most odds x wager can pay: 1,000,000 to 1 on $1,000.00
    assert screens.paid_lines("JP", 7, "~$1000000000.00") == ["JP S7", " ~$1000000000.00"]


FH_ENVY = {"full_house": 100}
# flop 7h 7d 7c: seats 1-6 make full houses, seat 7 four of a kind
SEVEN = [(1, "As Ad"), (2, "Ks Kd"), (3, "Qs Qd"), (4, "Js Jd"), (5, "Ts Td"), (6, "9s 9d"),
         (7, "7s 2c")]


def test_a_rounds_envy_bonuses_leave_its_jackpot_hands_in_the_last_hits():
    # seven winners paying 36 bonuses: the last 25 hits are jackpot hands, each with the
    # bonuses it paid
    jp = Jackpot({"envy": FH_ENVY})
    jp.contribute(1, [1, 2, 3, 4, 5, 6, 7])
    plan = jp.settle(1, 100, C("7h 7d 7c"), [(s, C(h), True) for s, h in SEVEN])
    assert [h[m.H_SEAT] for h in plan.hits] == [1, 2, 3, 4, 5, 6, 7]
    assert [h["seat"] for h in jp.last_hits()] == [1, 2, 3, 4, 5, 6, 7]
    assert [len(h["envy_seats"]) for h in jp.last_hits()] == [6, 6, 6, 6, 6, 6, 0]
    assert jp.table[m.T_ENVY_COUNT] == 36 and jp.table[m.T_ENVY_AMOUNT] == 3600
    assert jp.audit() == []


class FullHouseEnvyTable(EnvyTable):
    BONUS = FH_ENVY


def test_the_results_after_a_power_cut_keep_every_winner_and_bonus(tmp_path):
    table = FullHouseEnvyTable(tmp_path)
    table.ram_clear()
    lock_seats(table, range(1, 8))
    table.deal(SEVEN + [(8, "7h 7d 7c 3h 4h"), (0, "5c 6c")])
    table.settle()
    before = list(table.c.results)
    assert "JP S1 $150.00" in before and "JP S7 $500.00" in before
    assert sum(1 for line in before if line.startswith("envy")) == 36
    table.boot()                                     # the power is cut on the results
    assert table.c.phase == tc.RESULTS and table.c.results == before


def test_the_audit_menu_shows_the_envy_bonus_count_as_a_count():
    from firmware.table import audit as menu

    assert menu.is_count("envy_bonuses") and not menu.is_count("envy_paid")


def test_a_table_linked_with_an_envy_bonus_in_force_keeps_its_jackpot_closed(tmp_path):
    from host_tests.test_link_wiring import Rig

    standalone = EnvyTable(tmp_path)                 # set while standalone...
    standalone.ram_clear()
    rig = Rig(tmp_path)                              # ...then the table is linked
    rig.step(count=20)
    assert rig.c.jackpot.config.envy_paid()
    assert not rig.c.jackpot_open() and rig.c.config_state() == (False, tc.LINKED_ENVY_TEXT)
    assert rig.c.view.lines[1] == "CONFIG ERROR" and rig.c.view.meter_fault == "CONF Err"
    rig.c.set_config_status(True, "/config.json uth")   # the file alone is fine: still closed
    assert not rig.c.jackpot_open() and rig.c.config_state()[0] is False
    # the supervisor's audit menu shows the whole reason
    rig.key(True)
    rig.press(btn.OK, long=True)
    menu = list(rig.c.menu)
    start = menu.index("config FAILED") + 1
    end = next(i for i in range(start, len(menu)) if menu[i].startswith("program"))
    assert "".join(menu[start:end]) == tc.LINKED_ENVY_TEXT
    rig.press(btn.BACK)
    rig.key(False)
    # a RAM clear from the file's configuration (no envy bonus) opens the jackpot again
    rig.memory.status = "RAM ERROR"
    rig.c._set_phase(tc.RAM_ERROR)
    rig.ram_clear()
    rig.step(100, 20)
    assert rig.c.phase == tc.OPEN and not rig.c.jackpot.config.envy_paid()
    assert rig.c.config_state()[0] is True and rig.c.jackpot_open()


def test_a_hand_the_pay_table_does_not_pay_is_no_hit_and_takes_no_envy_bonus(tmp_path):
    # an operator may take the flush out of the jackpot with a pay line of 0 to 1 and 0%
    jp = Jackpot(dict(SEED, pay={"flush": (0, 0)}))
    jp.contribute(1, [1, 2])
    plan = jp.settle(1, 100, C("Qh Jh 3h"), [(1, C("Ah Kh"), True), (2, C("2c 7d"), True)])
    assert plan.hits == [] and jp.table[m.T_HITS] == 0
    assert jp.value[cfg.MAIN] == RESET + 2 * PER_WAGER
    with pytest.raises(ValueError, match=r"config envy.flush: 500 cents for a hand the pay table "
                                         r"does not pay \(pay.flush is 0 to 1 and 0%\)"):
        cfg.build({"pay": {"flush": (0, 0)}, "envy": {"flush": 500}})
    # at the table: a flush is played out as any hand, with no supervisor to call
    table = Table(tmp_path)
    table.c.jackpot_config = cfg.build(dict(SEED, pay={"flush": (0, 0)}))
    table.ram_clear()
    lock_seats(table, (1, 3))
    table.deal([(1, "Ah Kh"), (3, "2c 7d"), (8, "Qh Jh 3h 4c 9d"), (0, "9c 9s")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.RESULTS and table.c.hits == []
    assert events_of(table.memory, ev.JACKPOT_HIT) == []


def test_an_envy_bonus_to_a_seat_the_file_no_longer_counts_is_shown(tmp_path):
    # Seats 1 and 6 play; seat 1's royal goes to CONFIRM (the round's cards committed), the
    # power goes and the file now says 5 seats.  SETTLE again pays seat 6 its $500 bonus (it
    # is on the record): the results must list it, or the dealer never pays it.
    from firmware.store.critical import CriticalMemory
    from firmware.store.slots import FileSlot

    table = EnvyTable(tmp_path)
    table.ram_clear()
    lock_seats(table, (1, 6))
    table.deal([(1, "As Ks"), (6, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    table.press(btn.SETTLE)
    assert table.c.phase == tc.CONFIRM
    table.memory = CriticalMemory([FileSlot(table.fs, "a.bin"), FileSlot(table.fs, "b.bin")],
                                  table.fs)
    table.c = tc.RoundController(table.memory, seats=5)
    table.c.boot(table.now, 1000 + table.now)
    table.settle()
    assert table.c.phase == tc.RESULTS
    assert [h["envy_seats"] for h in table.c.jackpot.last_hits()] == [[6]]
    assert "envy S6 $500.00" in table.c.results
    assert "S6 High L" in table.c.results
