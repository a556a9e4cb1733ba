"""A figure quoted in two pages is the same in both: docs/performance.md gathers them."""

import re

from host_tests.runtimes import ROOT


def read(name):
    return (ROOT / "docs" / name).read_text()


def number(text):
    return int(text.replace(",", ""))


def test_power_cut_points_of_the_default_run():
    text = read("critical-memory.md").split("Cut points tried (default run", 1)[1]
    rows = text.split("\n\n", 2)[1].splitlines()[2:]     # after the header and the separator
    tried = [number(re.match(r"([\d,]+) of", row.strip("| ").split("|")[-1].strip()).group(1))
             for row in rows if "**total**" not in row]
    total = number(re.search(r"\*\*([\d,]+)\*\*", rows[-1]).group(1))
    assert sum(tried) == total
    quoted = re.search(r"([\d,]+) cut points on the real MicroPython littlefs",
                       " ".join(read("performance.md").split()))
    assert number(quoted.group(1)) == total


def test_the_encoded_jackpot_state_sizes_are_the_codes():
    # the fresh and the busy table's jackpot section (host_tests/test_jackpot_record.busy_table)
    from firmware.jackpot import record
    from firmware.jackpot.pools import Jackpot
    from host_tests.test_jackpot_record import busy_table

    fresh, busy = len(record.encode(Jackpot())), len(record.encode(busy_table()))
    text = " ".join(read("jackpot.md").split())
    assert "| encoded state, fresh table | %d bytes " % fresh in text
    assert "a pending change and an open round | %d bytes " % busy in text
    text = " ".join(read("performance.md").split())
    assert "after 400 rounds with 25 hits | %d / %d / " % (fresh, busy) in text


def test_the_record_buffers_a_table_is_set_up_with_are_the_ones_the_page_names(tmp_path,
                                                                               monkeypatch):
    # docs/critical-memory.md had said every table record (0.5-2.0 KB) fits the 2,048-byte
    # buffers made at boot; split pools with an envy bonus passed it, and the buffers grew in
    # play.  Now they are made for the configuration's largest record when the table is set
    # up: 40 royal rounds on a heap with no kilobyte in one piece take no new buffer.
    from firmware.jackpot import codec
    from firmware.store import critical
    from firmware.store.critical import RECORD_CAPACITY
    from firmware.table import controller as tc
    from host_tests import test_controller
    from host_tests.test_service import Table, royal_round

    heap = test_controller.scarce_heap(monkeypatch, critical, codec, tc)
    text = " ".join(read("critical-memory.md").split())
    rows = []
    for label, config in (("one pool, seeded", test_controller.SEEDED),
                          ("split pools, envy bonus, $5 wager", test_controller.ENVY_SPLIT)):
        class ConfiguredTable(Table):
            def __init__(self, directory, config=config):
                self.directory = directory
                test_controller.Table.__init__(self, directory, jackpot_config=config)

        heap.limit = None
        directory = tmp_path / str(len(rows))
        directory.mkdir()
        t = ConfiguredTable(directory)
        t.ram_clear()
        memory = t.memory
        made = (len(t.c._jp_writer.buf), len(memory._buf))
        heap.limit = 1024
        passed, longest = None, 0
        for played in range(1, 41):
            royal_round(t)
            t.chip(1, False)
            t.chip(3, False)
            longest = max(longest, memory._length)
            if passed is None and memory._length > RECORD_CAPACITY:
                passed = (played, memory._length)
        assert (len(t.c._jp_writer.buf), len(memory._buf)) == made
        assert "| {} | {:,} bytes | {:,} bytes | {:,} bytes |".format(
            label, made[0], made[1], longest) in text
        rows.append((passed, longest))
    assert RECORD_CAPACITY == 2048 and rows[0][0] is None
    assert "one seeded pool's reaches {:,} bytes".format(rows[0][1]) in text
    (played, size), longest = rows[1]
    assert ("reach {:,} bytes at the {}th royal round and {:,} with a full log tail".format(
        size, played, longest)) in text
