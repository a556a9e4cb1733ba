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
