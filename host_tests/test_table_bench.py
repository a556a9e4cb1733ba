"""The table benchmark still runs: the firmware from .mpy on the MicroPython VM plays rounds.

Not a timing test: it checks that the benchmark's program completes a few rounds in a large
heap, that every jackpot wager was taken and the books balance, and that the idle tick still
runs under heap_lock.  The figures themselves are recorded in docs/performance.md."""

import re

from tools import table_bench


def test_table_benchmark_plays_rounds_on_the_micropython_vm(capsys):
    assert table_bench.main(["--rounds", "3", "--heap", "1024k"]) == 0
    out = capsys.readouterr().out
    assert "rounds played             3 (21 jackpot wagers" in out
    assert "books balance: yes" in out
    assert "idle tick allocates       nothing" in out
    used = re.search(r"heap in use after rounds  (\d+) bytes: firmware modules (\d+), "
                     r"simulated board \(fakes\) (\d+)", out)
    assert used is not None
    total, firmware, fakes = (int(x) for x in used.groups())
    assert 0 < firmware < total and 0 < fakes < total
