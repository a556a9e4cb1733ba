"""The simulator: the firmware's main loop on the simulated table, driven without a person.

What is checked is what the fakes decode from the wire (meter digits, ring colours, OLED
text), so these are end-to-end tests of the app, the drivers and the controller together.
"""

import io
from pathlib import Path

import pytest

from tools import sim as simmod

DEMO = Path(simmod.__file__).parent / "sim_scripts" / "demo.txt"


def test_the_demo_script_plays_a_whole_round():
    sim = simmod.Simulation(None)
    out = io.StringIO()
    assert simmod.run_script(sim, DEMO.read_text().splitlines(), out) == 0, out.getvalue()
    assert "S1 Royal Flush" in out.getvalue()
    assert sim.controller.jackpot.audit() == []


def test_a_failed_expectation_names_the_line_and_what_was_seen():
    sim = simmod.Simulation(None)
    out = io.StringIO()
    assert simmod.run_script(sim, ["key on", "expect phase OPEN"], out) == 1
    assert "line 2: expect phase OPEN: expected phase OPEN, saw 'RAM ERROR'" in out.getvalue()


@pytest.mark.parametrize("line,message", [
    ("press FOLD", "button must be one of"),
    ("chip 9", "seat must be 1..7"),
    ("wait soon", "expected a number of milliseconds"),
    ("dance", "unknown command 'dance'"),
    ("expect colour 1 red", "cannot expect 'colour'"),
])
def test_bad_script_lines_are_refused_with_a_reason(line, message):
    sim = simmod.Simulation(None)
    with pytest.raises(simmod.ScriptError, match=message):
        sim.command(line)


def ram_clear(sim):
    for line in ("key on", "hold OK", "press OK", "key off"):
        sim.command(line)


def test_table_keeps_its_pool_across_a_restart(tmp_path):
    sim = simmod.Simulation(str(tmp_path))
    ram_clear(sim)
    for line in ("chip 2", "ante 2", "press LOCK"):
        sim.command(line)
    assert sim.controller.view.meter[0] == 1000070
    again = simmod.Simulation(str(tmp_path))          # the power comes back
    assert again.controller.phase == again.controller.phase  # booted
    assert again.controller.rec.accepted == 0b10
    assert again.app.memory.status == "ok"
    again.run(6000)
    assert again.meter_text(0) == "10000.70"
    fresh = simmod.Simulation(str(tmp_path), fresh=True)
    assert "RAM ERROR" in fresh.display()[0]


def test_garbled_shoe_line_is_shown_and_the_round_goes_on():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    sim.command("press LOCK")
    sim.command("shoe S9 As")
    assert "Shoe line bad" in "\n".join(sim.display())
    sim.command("shoe S1 As")
    assert sim.controller._hole(0) == [51]


def test_deal_gives_cards_to_every_seat_with_a_chip():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    for line in ("chip 4", "ante 4", "ante 6", "press LOCK"):
        sim.command(line)
    lines = sim.deal(3)
    assert sum(1 for x in lines if x.startswith("S4 ")) == 2
    assert sum(1 for x in lines if x.startswith("S6 ")) == 2
    assert len(sim.controller._cards_of(sim.controller.rec.board)) == 5
    sim.command("press SETTLE")
    assert sim.controller.phase in (3, 2)  # RESULTS, or CONFIRM for a jackpot hand


def test_make_sim_without_a_terminal_replays_the_demo(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert simmod.main([]) == 0
    assert "replaying" in capsys.readouterr().out


def test_a_four_card_poker_table_deals_five_and_six_and_shows_results():
    sim = simmod.Simulation(None, game="fcp")
    ram_clear(sim)
    for line in ("ante 2", "ante 5", "press LOCK"):
        sim.command(line)
    lines = sim.deal(11)
    assert sum(1 for x in lines if x.startswith("S2 ")) == 5
    assert sum(1 for x in lines if x.startswith("D ")) == 6 and not any(x.startswith("B ") for x in lines)
    sim.command("press SETTLE")
    sim.run(400)
    shown = "\n".join(sim.display())
    assert "ROUND 1 RESULT" in shown and "S2 " in shown and "S5 " in shown


def test_file_backed_fram_keeps_bytes_in_its_file_not_in_ram(tmp_path):
    from boards.simulated import FRAM_SIZE, FileFRAM

    path = tmp_path / "fram.bin"
    path.write_bytes(b"\x07" * 10)                   # an older, shorter image
    chip = FileFRAM(str(path))
    assert chip.memory is None                        # the image lives in the file only
    assert path.stat().st_size == FRAM_SIZE
    chip.i2c_write(b"xyz", memaddr=FRAM_SIZE - 2)     # wraps past the top address to 0
    chip.i2c_write(b"\x01\x00ab")                     # address in the first two bytes: 0x0100
    again = FileFRAM(str(path))                       # the power comes back
    out = bytearray(5)
    again.i2c_read(out, memaddr=FRAM_SIZE - 2)
    assert bytes(out) == b"xyz\x07\x07"
    out = bytearray(3)
    again.i2c_read(out, memaddr=0x100)
    assert bytes(out) == b"ab\x00"
