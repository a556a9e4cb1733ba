"""The jackpot state round-trips exactly through bytes, and corrupt bytes are rejected."""

import pytest

from firmware.jackpot import codec, record
from firmware.jackpot import config as cfg
from firmware.jackpot import meters as m
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards

C = cards.parse


def busy_table():
    """A split table with a pending change, hits on record and a round open."""
    jp = Jackpot({"wager": 100, "split": True,
                  "minor": {"rate": (20, 100), "reserve_rate": (1, 1000), "reset": 100_000,
                            "ceiling": 150_000},
                  "major": {"rate": (333_333, 1_000_000), "reserve_rate": (3, 200), "reset": 1_000_000}})
    jp.contribute(1, [1, 2, 3])
    jp.settle(1, 1_700_000_000, C("Qh Jh Th"), [(1, C("Ah Kh"), True), (2, C("9h 8h"), True),
                                                (3, C("2h 3h"), True)])
    jp.set_config({"major": {"rate": (30, 100)}, "pay": {"flush": (90, 0)}})
    jp.contribute(2, [4, 5])
    jp.void_seat(2, 5)
    return jp


def observable(jp):
    return (jp.config.items(), [p.ints() if p else None for p in jp.pending], jp.value, jp.reserve,
            jp.carry, jp.reserve_carry, jp.meters, jp.table, jp.last_round, jp.open_round,
            jp.open_wager, jp.open_seats, jp.open_overflow, jp.hits)


@pytest.mark.parametrize("make", [
    lambda: Jackpot(),
    lambda: Jackpot({"split": True}),
    busy_table,
], ids=["fresh", "fresh-split", "busy"])
def test_round_trip_is_exact(make):
    jp = make()
    data = record.encode(jp)
    back = record.decode(data)
    assert observable(back) == observable(jp)
    assert record.encode(back) == data


def test_decoded_state_goes_on_exactly_like_the_original():
    a = busy_table()
    b = record.decode(record.encode(a))
    for jp in (a, b):
        jp.settle(2, 1_700_000_100, C("5s 4s 3s"), [(4, C("As 2s"), True)])
        jp.contribute(3, [1, 7])
        jp.void_round(3)
        jp.set_config({"split": False})
    assert record.encode(a) == record.encode(b)


def test_state_is_compact():
    # The busy state (config, pending change, three pools with 30 meters each, table meters,
    # three hit records, an open round) fits in well under 512 bytes.
    assert len(record.encode(busy_table())) < 512
    assert len(record.encode(Jackpot())) < 256


def test_lifetime_meters_beyond_64_bits_round_trip():
    jp = Jackpot({"main": {"reset": 0}})
    big = 3 ** 50   # > 2**79
    jp.meters[cfg.MAIN][m.VOIDS] = big
    jp.table[m.T_VOIDS] = big
    jp.meters[cfg.MAIN][m.WAGERS] = big + 1   # voids cannot outnumber the wagers
    jp.table[m.T_WAGERS] = big + 1
    assert record.decode(record.encode(jp)).meters[cfg.MAIN][m.VOIDS] == big


def test_every_truncation_is_rejected():
    data = record.encode(busy_table())
    for n in range(len(data)):
        with pytest.raises(ValueError):
            record.decode(data[:n])


def test_trailing_bytes_rejected():
    with pytest.raises(ValueError, match="1 unexpected bytes"):
        record.decode(record.encode(Jackpot()) + b"\x00")


def test_bad_magic_and_version_rejected():
    data = bytearray(record.encode(Jackpot()))
    with pytest.raises(ValueError, match="bad magic"):
        record.decode(b"JQ" + bytes(data[2:]))
    data[2] = 8   # zigzag 4: version 4, after this firmware's
    with pytest.raises(ValueError, match="unknown version 4"):
        record.decode(bytes(data))
    data[2] = 0   # version 0, before the first
    with pytest.raises(ValueError, match="unknown version 0"):
        record.decode(bytes(data))
    with pytest.raises(ValueError, match="must be bytes"):
        record.decode("JP")


def test_padded_and_over_long_numbers_rejected():
    with pytest.raises(ValueError, match="padded"):
        codec.Reader(b"\x80\x00").int()
    with pytest.raises(ValueError, match="over-long"):
        codec.Reader(b"\xff" * 30).int()


@pytest.mark.parametrize("edit, words", [
    (lambda jp: jp.value.__setitem__(cfg.MAJOR, jp.value[cfg.MAJOR] + 1), ["major value"]),
    (lambda jp: jp.reserve.__setitem__(cfg.MINOR, jp.reserve[cfg.MINOR] + 1), ["minor reserve"]),
    (lambda jp: jp.meters[cfg.MINOR].__setitem__(m.PAID, jp.meters[cfg.MINOR][m.PAID] + 1),
     ["minor value"]),
    (lambda jp: jp.table.__setitem__(m.T_RETENTION, jp.table[m.T_RETENTION] + 1), ["wagers"]),
    (lambda jp: jp.carry.__setitem__(cfg.MAJOR, jp.carry[cfg.MAJOR] + 1_000_000), ["carry"]),
    (lambda jp: jp.value.__setitem__(cfg.MAIN, 5), ["unused pool main"]),
    (lambda jp: jp.table.__setitem__(m.T_HITS, 99), ["table hits"]),
    (lambda jp: jp.hits[0].__setitem__(m.H_AFTER, 1), ["pool after"]),
    (lambda jp: jp.hits[0].__setitem__(m.H_CARDS, jp.hits[0][m.H_CARDS + 1]), ["duplicate card"]),
    (lambda jp: jp.hits[0].__setitem__(m.H_SEAT, 8), ["hit seat 8"]),
    (lambda jp: setattr(jp, "open_round", 1), ["open round 1"]),
    (lambda jp: setattr(jp, "open_seats", 300), ["open seats 300"]),
    # a negative meter is named (the names are loaded from firmware.jackpot.meternames)
    (lambda jp: jp.meters[cfg.MAJOR].__setitem__(m.VOIDED, -3), ["major meter voided -3"]),
    (lambda jp: jp.table.__setitem__(m.T_COLLECTED, -1), ["table meter collected -1"]),
])
def test_inconsistent_state_rejected_with_reason(edit, words):
    jp = busy_table()
    edit(jp)
    with pytest.raises(ValueError) as err:
        record.decode(record.encode(jp))
    for word in words:
        assert word in str(err.value)


def _more(jp, slot, meter, by, value=True, table=None):
    """Raise a pool meter (and the matching table meter, and the pool value) so the pool and
    conservation equations still hold."""
    jp.meters[slot][meter] += by
    if table is not None:
        jp.table[table] += by
    if value:
        jp.value[slot] += by


def _reversed_above_contributions(jp):
    by = jp.meters[cfg.MAJOR][m.CONTRIB] - jp.meters[cfg.MAJOR][m.REVERSED] + 7
    _more(jp, cfg.MAJOR, m.REVERSED, by, value=False)
    jp.value[cfg.MAJOR] -= by
    jp.table[m.T_RETENTION] += by        # the wagers equation still holds


def _retention_reversed_above_retention(jp):
    by = jp.table[m.T_RETENTION] - jp.table[m.T_RETENTION_REVERSED] + 1
    jp.table[m.T_RETENTION_REVERSED] += by
    _more(jp, cfg.MAJOR, m.CONTRIB, by)  # credited to the pool instead: the equations hold


def _hand_moved(jp):
    jp.table[m.T_HIT_COUNT + 0] -= 1     # the flush counted as a full house: total unchanged
    jp.table[m.T_HIT_COUNT + 1] += 1


@pytest.mark.parametrize("edit, words", [
    # every equation balances, and yet the numbers cannot be
    (lambda jp: _more(jp, cfg.MAJOR, m.SHORTFALL, jp.meters[cfg.MAJOR][m.PAID] + 500,
                      table=m.T_SHORTFALL), ["major shortfall", "above paid"]),
    (_reversed_above_contributions, ["major contributions_reversed", "above contributions"]),
    (lambda jp: _more(jp, cfg.MAJOR, m.VOIDED, 10_000, value=False),
     ["major voided", "above wagered"]),
    (lambda jp: _more(jp, cfg.MINOR, m.VOIDS, 10, value=False), ["minor voids", "above wagers"]),
    (_retention_reversed_above_retention, ["retention_reversed", "above retention"]),
    (_hand_moved, ["table hits_flush", "table hits_full_house"]),
    (lambda jp: _more(jp, cfg.MINOR, m.ADDITIONS, 200_000, table=m.T_ADDITIONS),
     ["minor value", "above its ceiling 150000"]),
    # hits on record that the meters or the pool do not account for
    (lambda jp: (jp.hits[0].__setitem__(m.H_SHORTFALL, 100),
                 jp.hits[0].__setitem__(m.H_AFTER, jp.hits[0][m.H_AFTER] + 100)),
     ["hit shortfall 100"]),
    (lambda jp: jp.hits.append(list(jp.hits[0])), ["hits on record", "hits_flush 2", "minor"]),
    (lambda jp: jp.hits[0].__setitem__(m.H_ROUND, 2), ["round 1 recorded after", "round 2"]),
    (lambda jp: jp.hits[0].__setitem__(m.H_POOL, cfg.MAJOR), ["Flush paid by the major pool"]),
    (lambda jp: setattr(jp, "open_wager", 50), ["open wager 50", "wager 100"]),
    (lambda jp: _more(jp, cfg.MINOR, m.RESETS, 5, value=False, table=m.T_RESETS),
     ["minor resets 5", "above hits 1"]),
    (lambda jp: jp.table.__setitem__(m.T_ROUNDS, 99), ["table rounds 99 above wagers"]),
    (lambda jp: jp.table.__setitem__(m.T_COLLECTED, jp.table[m.T_WAGERED]),
     ["table collected", "above wagered"]),
    # every wager taken is collected, voided or in the open round: a collected meter that
    # lost a wager, or an open round naming seats whose wagers were never taken (a void
    # would return them from the pool), balances every other equation
    (lambda jp: jp.table.__setitem__(m.T_COLLECTED, jp.table[m.T_COLLECTED] - 100),
     ["table collected 200 + voided 100 + open round 100 below wagered 500"]),
    (lambda jp: setattr(jp, "open_seats", 0b1111111),
     ["table collected 300 + voided 100 + open round 700 above wagered 500"]),
])
def test_state_that_balances_but_cannot_be_is_rejected(edit, words):
    jp = busy_table()
    assert jp.audit() == []
    edit(jp)
    with pytest.raises(ValueError) as err:
        record.decode(record.encode(jp))
    for word in words:
        assert word in str(err.value)


def test_a_bad_hit_on_record_is_named_by_its_place_and_round():
    jp = busy_table()
    jp.hits[2][m.H_SEAT] = 8          # the third of three hits (the royal of round 1)
    with pytest.raises(ValueError, match=r"hit 3 of 3 on record \(round 1\): hit seat 8"):
        record.decode(record.encode(jp))


def test_bad_config_in_the_record_rejected():
    jp = Jackpot()
    jp.config.pools[cfg.MAIN].rate = (1, 3)
    with pytest.raises(ValueError, match="main.rate"):
        record.decode(record.encode(jp))


def test_every_single_bit_flip_is_rejected_or_decodes_canonically():
    # A flip either gives a ValueError or a state that encodes back to the flipped bytes
    # (e.g. a different hit time): never another exception, never a silent re-interpretation.
    data = record.encode(busy_table())
    rejected = 0
    for i in range(len(data)):
        for bit in range(8):
            bad = bytearray(data)
            bad[i] ^= 1 << bit
            try:
                back = record.decode(bytes(bad))
            except ValueError:
                rejected += 1
                continue
            assert record.encode(back) == bytes(bad)
    # Most flips break a range or a meter equation; the CRC of the store catches the rest.
    assert rejected > len(data) * 8 // 2


def test_encode_into_a_kept_writer_gives_encode_bytes_in_the_same_buffer():
    kept = bytearray(1024)
    writer = codec.Writer(kept)
    busy = busy_table()
    assert bytes(record.encode_into(busy, writer)) == record.encode(busy)
    jp = Jackpot()
    first = bytes(record.encode_into(jp, writer))   # shorter than the busy table's: reset works
    assert first == record.encode(jp)
    assert writer.buf is kept                      # nothing new allocated for the section
    jp.contribute(3, [1, 2])
    again = record.encode_into(jp, writer)
    assert bytes(again) == record.encode(jp) != first and writer.buf is kept
    assert record.decode(bytes(again)).open_round == 3


def test_a_kept_writer_too_small_grows_and_still_encodes_the_same():
    jp = busy_table()
    small = bytearray(8)
    writer = codec.Writer(small)
    early = codec.Writer(small).view()          # a view handed out before the growth
    assert bytes(record.encode_into(jp, writer)) == record.encode(jp)
    assert len(writer.buf) >= len(record.encode(jp)) and writer.buf is not small
    assert len(small) == 8 and len(early) == 0  # the kept buffer itself was never resized


def test_config_ints_follow_the_documented_order():
    config = busy_table().config
    expected = [config.wager, 1 if config.split else 0] + list(config.odds) + list(config.percent)
    for pool in config.pools:
        expected += [pool.rate[0], pool.rate[1], pool.reserve_rate[0], pool.reserve_rate[1],
                     pool.reset, pool.ceiling]
    expected += list(config.envy) + [config.shortfall]
    assert config.ints() == expected and len(expected) == cfg.CONFIG_INTS
    got = []
    config.each_int(got.append)
    assert got == expected


LET_GO_MP = """\
import sys

from firmware.jackpot import config as cfg
from firmware.jackpot import record
from firmware.jackpot.pools import Jackpot

data = record.encode(Jackpot({"split": True}))
print("decoded", record.decode(data).value)
print("built", cfg.build({"wager": 200}).wager)
try:
    cfg.build({"wager": 0})
except ValueError as error:
    print("refused", str(error).split(":")[0])
for name in ("firmware.jackpot.restore", "firmware.jackpot.configcheck"):
    print(name, "loaded" if name in sys.modules else "let go")
"""


def test_decoding_and_validating_load_their_code_only_for_the_call(tmp_path):
    # On the MicroPython VM, firmware.jackpot.restore and configcheck are let go after each
    # call, also on an error (the table decodes and builds a configuration only at boot, at a
    # RAM clear and for a change), so their code takes no heap while the table plays.
    # CPython keeps them loaded (heap.let_go): reloading them at every call only costs time.
    from host_tests import runtimes

    script = tmp_path / "let_go.py"
    script.write_text(LET_GO_MP)
    done = runtimes.run_micropython(script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "decoded %s" % Jackpot({"split": True}).value, "built 200", "refused config wager",
        "firmware.jackpot.restore let go", "firmware.jackpot.configcheck let go"]


ENVY = {"royal_flush": 50000, "straight_flush": 5000, "four_of_a_kind": 1000, "full_house": 500,
        "flush": 100}


@pytest.mark.parametrize("changes", [
    {}, {"main": {"reset": 1_000_000}}, {"split": True, "wager": 500, "envy": ENVY},
    {"split": True, "wager": 500, "envy": ENVY, "shortfall": "cut"}, {"shortfall": "cut"},
], ids=["default", "seeded", "split-envy", "split-envy-cut", "cut"])
def test_no_state_a_configuration_plays_into_encodes_longer_than_its_size_bound(changes):
    # size_bound (the record buffers made when the table is set up) against the widest state
    # the encoding can hold under the configuration: every amount and meter just below 2**34,
    # a change waiting at its widest in each pool in use, 25 hits of the widest hand
    jp = Jackpot(changes)
    bound = record.size_bound(jp)
    config = jp.config
    wide = (1 << 34) - 1
    envy = max(config.envy)
    cut = config.shortfall
    for slot in config.active_slots():
        jp.pending[slot] = cfg.PoolConfig((999_999, 1_000_000), (999_999, 1_000_000),
                                          cfg.MAX_AMOUNT, cfg.MAX_AMOUNT)
        jp.value[slot] = jp.reserve[slot] = jp.open_overflow[slot] = wide
        jp.carry[slot] = jp.reserve_carry[slot] = cfg.RATE_UNIT - 1
        jp.meters[slot] = [wide] * m.POOL_METERS
    jp.table = [wide] * m.TABLE_METERS
    jp.last_round = jp.open_round = 0xFFFFFFFF
    jp.open_wager, jp.open_seats = config.wager, 127
    slot = config.active_slots()[-1]
    jp.hits = [[0xFFFFFFFF, 0xFFFFFFFF, 7, 4, slot, 51, 50, 49, 48, 47, wide, 0 if cut else wide,
                wide, wide, 126 if envy else 0, envy, 6 * envy, wide if cut else 0,
                6 * envy if cut else 0]] * m.LAST_HITS
    assert len(record.encode(jp)) <= bound
    assert bound - len(record.encode(jp)) < 8     # and near it: no heap spent on nothing
