"""tools/wear_bench.py runs the real store on the real littlefs and meets the 10-year target."""

from host_tests.runtimes import ROOT
from tools import wear_bench


def test_wear_bench_reference_board_lasts_over_ten_years(capsys):
    (figures,) = wear_bench.main(["--rounds", "200", "--board", "fram+lfs"])
    out = capsys.readouterr().out
    assert "flash blocks erased per round" in out and "years" in out
    # at least one block erase per round (each commit rewrites the flash copy's data block)
    assert 1 <= figures["erases_per_round"] < 4
    assert figures["bytes_per_round"] >= figures["record"]  # the flash copy is written at least once
    assert figures["years"] > 10
    assert figures["pico_w_years"] > 10    # and on the board's own, smaller region


def test_lifetime_formula():
    # 256 blocks x 100,000 cycles / (2 erases x 525,600 rounds a year) = 24.35 years, and on
    # the Pico W's 148 blocks 14.08 years
    line = ("BENCH board=fram+lfs blocks=256 rounds=10 programs=50 erases=20 bytes=40000 hottest=1"
            " fram_bytes=0 record=900 log=3")
    figures = wear_bench.report(line)
    assert abs(figures["years"] - 24.35) < 0.01
    assert abs(figures["pico_w_years"] - 14.08) < 0.01
    assert figures["erases_per_round"] == 2 and figures["bytes_per_round"] == 4000


def test_blocks_option_lists_the_most_erased_blocks(capsys):
    # docs/critical-memory.md: "most-erased block (`--blocks` lists them)"; the option was
    # refused by the host's argument parser and the child's list never printed
    wear_bench.main(["--rounds", "20", "--board", "fram+lfs", "--blocks"])
    out = capsys.readouterr().out
    assert "hottest blocks" in out and "coldest" in out


def test_pico_w_region_is_its_filesystem_less_the_romfs_partition(capsys):
    # MicroPython's RPI_PICO_W board (ports/rp2/boards/RPI_PICO_W/mpconfigboard.h) gives its
    # littlefs 848 KB; a ROMFS install takes the partition docs/romfs.md asks for out of it.
    # The bench printed only issue 4's 1 MB region until the fifteenth session, 1.7x the
    # board's own.
    text = (ROOT / "docs" / "romfs.md").read_text()
    romfs_row = [line for line in text.splitlines() if line.startswith("| Raspberry Pi Pico W")]
    assert len(romfs_row) == 1 and "256 KB" in romfs_row[0]
    assert wear_bench.PICO_W_BLOCKS * wear_bench.BLOCK_SIZE == (848 - 256) * 1024
    (figures,) = wear_bench.main(["--rounds", "20", "--board", "fram+lfs", "--region-blocks", "148"])
    out = capsys.readouterr().out
    assert figures["blocks"] == 148 and "lifetime, 592 KB region" in out
    assert abs(figures["years"] - figures["pico_w_years"]) < 1e-9
