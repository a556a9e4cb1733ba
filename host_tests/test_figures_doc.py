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


def test_the_record_that_outgrows_the_store_buffers_is_the_one_the_page_names(tmp_path):
    # docs/critical-memory.md had said every table record (0.5-2.0 KB) fits the 2,048-byte
    # buffers made at boot; split pools with an envy bonus pass it, and the buffers grow in play
    from firmware.store.critical import RECORD_CAPACITY
    from host_tests import test_controller
    from host_tests.test_service import Table, royal_round

    class EnvyTable(Table):
        def __init__(self, directory):
            self.directory = directory
            test_controller.Table.__init__(self, directory, jackpot_config={
                "split": True, "wager": 500, "minor": {"reset": 500000}, "major": {"reset": 5000000},
                "envy": {"royal_flush": 50000, "straight_flush": 5000, "four_of_a_kind": 1000,
                         "full_house": 500, "flush": 100}})

    t = EnvyTable(tmp_path)
    t.ram_clear()
    memory = t.memory
    grew, longest = None, 0
    for played in range(1, 41):
        royal_round(t)
        t.chip(1, False)
        t.chip(3, False)
        longest = max(longest, memory._length)
        if grew is None and len(memory._buf) > RECORD_CAPACITY:
            grew = (played, memory._length, len(memory._buf))
    text = " ".join(read("critical-memory.md").split())
    assert grew is not None and RECORD_CAPACITY == 2048
    assert ("reach {:,} bytes at the {}th royal round and {:,} with a full log tail".format(
        grew[1], grew[0], longest)) in text
    assert "(%s bytes each there)" % "{:,}".format(grew[2]) in text
