"""The simulator: the firmware's main loop on the simulated table, driven without a person.

What is checked is what the fakes decode from the wire (meter digits, ring colours, OLED
text), so these are end-to-end tests of the app, the drivers and the controller together.
"""

import io
import json
import re
from pathlib import Path

import pytest

from firmware.drivers import buttons as btn
from firmware.drivers import spot_lights
from firmware.table import screens
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
    assert simmod.run_script(sim, ["key on", "expect phase OPEN"], out, "demo.txt") == 1
    assert ("demo.txt line 2: 'expect phase OPEN': expected phase OPEN, saw 'RAM ERROR'"
            in out.getvalue())


# Each line is wrong in one way; the reason must say which (the words of the usage in the
# module docstring).  The first five are the audit's cases.
BAD_LINES = [
    ("chip 1 of", "the word after the seat must be on or off, got 'of'"),
    ("expect meter 5 1.00", "meter line must be 0, got '5' (this table's sign has 1 line"),
    ("deal abc", "deal SEED must be a whole number, got 'abc'"),
    ("shoe", "shoe needs the line the shoe sends"),
    ("shoe    # only a comment", "shoe needs the line the shoe sends"),
    ("press FOLD", "button must be one of LOCK, SETTLE, UP, DOWN, OK, BACK, got 'FOLD'"),
    ("press", "press takes 1 word after it, got 0"),
    ("press LOCK now", "press takes 1 word after it, got 2"),
    ("hold OK OK", "hold takes 1 word after it, got 2"),
    ("key", "key takes 1 word after it, got 0"),
    ("key maybe", "key must be on or off, got 'maybe'"),
    ("key on off", "key takes 1 word after it, got 2"),
    ("door ajar", "door must be open or shut, got 'ajar'"),
    ("chip", "chip takes 1 or 2 words after it, got 0"),
    ("chip 9", "seat must be 1..7, got '9'"),
    ("ante 0", "seat must be 1..7, got '0'"),
    ("ante one", "seat must be 1..7, got 'one'"),
    ("chip 1 off now", "chip takes 1 or 2 words after it, got 3"),
    ("deal 1 2", "deal takes 0 or 1 word after it, got 2"),
    ("deal -4", "deal SEED must be a whole number, got '-4'"),
    ("wait soon", "wait MS must be 0..600000, got 'soon'"),
    ("wait", "wait takes 1 word after it, got 0"),
    ("wait 1 2", "wait takes 1 word after it, got 2"),
    ("wait 600001", "wait MS must be 0..600000, got '600001'"),
    ("wait \u00b2", "wait MS must be 0..600000, got '\u00b2'"),     # a digit to isdigit(), not int()
    ("chip \u00b9", "seat must be 1..7, got '\u00b9'"),
    ("deal \u00b3", "deal SEED must be a whole number, got '\u00b3'"),
    ("show me", "show takes 0 words after it, got 1"),
    ("dance", "unknown command 'dance'"),
    ("expect", "expect needs what to check"),
    ("expect colour 1 red", "cannot expect 'colour'"),
    ("expect meter", "expect meter takes at least 2 words after it, got 0"),
    ("expect meter 0", "expect meter takes at least 2 words after it, got 1"),
    ("expect meter x 1.00", "meter line must be 0, got 'x'"),
    ("expect display", "expect display takes at least 1 word after it, got 0"),
    ("expect light 1", "expect light takes 2 words after it, got 1"),
    ("expect light 1 green now", "expect light takes 2 words after it, got 3"),
    ("expect light 8 red", "seat must be 1..7, got '8'"),
    ("expect light 1 gren", "colour must be one of off, red, green"),
    ("expect pattern 1 WON", "pattern must be one of OFF, IDLE, PLACED, ACCEPTED"),
    ("expect phase", "expect phase takes 1 or 2 words after it, got 0"),
    ("expect phase SHUFFLE", "phase must be one of OPEN, LOCKED"),
]


@pytest.mark.parametrize("line,message", BAD_LINES)
def test_bad_script_lines_are_refused_with_a_reason(line, message):
    sim = simmod.Simulation(None)
    before = sim.now
    with pytest.raises(simmod.ScriptError) as caught:
        sim.command(line)
    assert message in str(caught.value)
    assert "invalid literal" not in str(caught.value)
    assert sim.now == before                          # the table did not run


@pytest.mark.parametrize("line,message", BAD_LINES)
def test_a_bad_line_in_a_script_is_reported_with_file_and_line_and_nothing_runs(line, message):
    sim = simmod.Simulation(None)
    before = sim.now
    out, err = io.StringIO(), io.StringIO()
    script = ["# a comment", "key on", "", "show", line, "key off"]
    assert simmod.run_script(sim, script, out, "demo.txt", err) == simmod.BAD_SCRIPT
    assert err.getvalue().startswith("demo.txt line 5: %r: " % line.strip())
    assert message in err.getvalue() and err.getvalue().count("\n") == 1
    assert out.getvalue() == ""                       # no "show" ran
    assert sim.now == before and sim.table.key.level == 1      # nor "key on"


def test_the_audits_example_line_is_named_as_the_brief_shows():
    sim = simmod.Simulation(None)
    err = io.StringIO()
    lines = ["key on"] * 6 + ["expect meter 5 1.00"]
    assert simmod.run_script(sim, lines, io.StringIO(), "demo.txt", err) == simmod.BAD_SCRIPT
    assert err.getvalue().startswith("demo.txt line 7: 'expect meter 5 1.00': meter line must be 0")


@pytest.mark.parametrize("line", [
    "press lock", "hold ok", "key ON", "door OPEN", "chip 1 off", "chip 1 on", "ante 7",
    "shoe S3 As", "deal", "deal 42", "wait 0", "show", "  # just a comment", "",
    "expect meter 0 rAM Err", "expect display RAM", "expect light 1 red", "expect light 2 RED",
    "expect pattern 1 locked", "expect phase ram error", "expect phase RAM ERROR",
])
def test_good_script_lines_are_taken(line):
    sim = simmod.Simulation(None)
    assert simmod.run_script(sim, [line], io.StringIO(), "ok.txt") == 0


def test_chip_off_takes_the_chip_off():
    sim = simmod.Simulation(None)
    sim.command("chip 2")
    assert sim.covered(2)
    sim.command("chip 2 off")
    assert not sim.covered(2)


def test_a_script_that_cannot_be_read_is_one_clear_line(tmp_path, capsys):
    missing = tmp_path / "nowhere.txt"
    assert simmod.main(["--memory", "--script", str(missing)]) == simmod.BAD_SCRIPT
    out, err = capsys.readouterr()
    assert err == "sim: cannot read the script %s: No such file or directory\n" % missing
    assert out == ""
    assert simmod.main(["--memory", "--script", str(tmp_path)]) == simmod.BAD_SCRIPT
    assert "Is a directory" in capsys.readouterr().err


def test_the_command_line_help_lists_the_keys_and_every_script_command(capsys):
    # a newcomer's first look: --help must say what the keys do and what a script may hold
    with pytest.raises(SystemExit):
        simmod.main(["--help"])
    out = capsys.readouterr().out
    for line in simmod.KEYS_HELP.splitlines():
        assert line.strip() in out
    for verb, usage in simmod.USAGE.items():
        if verb != "expect":
            assert usage in out, usage
    assert "tools/sim_scripts/demo.txt" in out


def test_a_script_saved_with_a_byte_order_mark_runs(tmp_path, capsys):
    # Windows editors (Notepad) start a UTF-8 file with one; it is not part of the first line
    script = tmp_path / "bom.txt"
    script.write_bytes(b"\xef\xbb\xbfexpect phase RAM ERROR\r\nshow\r\n")
    assert simmod.main(["--memory", "--script", str(script)]) == 0, capsys.readouterr().err
    assert "pattern " in capsys.readouterr().out


def test_a_script_that_is_not_utf8_names_the_line_and_column(tmp_path, capsys):
    script = tmp_path / "latin1.txt"
    script.write_bytes(b"# caf\xc3\xa9 ok\nshow\nexpect display r\xe9sultat\n")
    assert simmod.main(["--memory", "--script", str(script)]) == simmod.BAD_SCRIPT
    out, err = capsys.readouterr()
    assert err == "%s line 3: byte 0xe9 at column 17 is not UTF-8 text\n" % script
    assert out == ""


@pytest.mark.parametrize("service", [False, True])
def test_a_state_folder_that_cannot_be_used_is_one_clear_line(tmp_path, capsys, service):
    state = tmp_path / "notes.txt"            # --state naming a file, not a folder
    state.write_text("mine")
    script = tmp_path / "s.txt"
    script.write_text("show\n")
    args = ["--state", str(state)] + (["--service"] if service else ["--script", str(script)])
    assert simmod.main(args) == simmod.BAD_SCRIPT
    err = capsys.readouterr().err
    assert err.startswith("sim: cannot keep the table's state in %s: " % state) and "Not a directory" in err
    assert state.read_text() == "mine"


def test_a_bad_script_from_the_command_line_exits_with_its_line_and_no_traceback(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "demo.txt"
    script.write_text("key on\nchip 1 of\nshow\n")
    root = Path(simmod.__file__).parent.parent
    done = subprocess.run([sys.executable, "-m", "tools.sim", "--memory", "--script", str(script)],
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == simmod.BAD_SCRIPT
    assert done.stderr == ("%s line 2: 'chip 1 of': the word after the seat must be on or off, "
                           "got 'of'\n" % script)
    assert "Traceback" not in done.stderr and done.stdout == ""


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
    # booted from the FRAM copy, not into RAM ERROR: the locked round resumes where it was
    assert simmod.tc.PHASE_NAMES[again.controller.phase] == "LOCKED"
    assert again.controller.rec.accepted == 0b10
    assert again.app.memory.status == "ok"
    again.run(6000)
    assert again.meter_text(0) == "10000.70"
    fresh = simmod.Simulation(str(tmp_path), fresh=True)
    assert "RAM ERROR" in fresh.display()[0]


def test_the_chips_stay_on_the_felt_across_a_restart(tmp_path):
    # README: a later run resumes a locked round "like the real one across a power cut"; the
    # chips on the spots do not vanish in a power cut, so the resumed round raises no tamper
    # alarm and deals to the seats that wagered
    from firmware.store import eventlog as ev
    sim = simmod.Simulation(str(tmp_path))
    ram_clear(sim)
    for line in ("chip 2", "ante 2", "chip 4", "press LOCK"):
        sim.command(line)
    again = simmod.Simulation(str(tmp_path))          # the power comes back
    again.run(2000)
    assert again.covered(2) and again.covered(2, ante=True) and again.covered(4)
    assert not again.covered(1)
    assert again.pattern(2) == "ACCEPTED" and again.controller.tamper == 0
    assert ev.TAMPER not in [e[3] for e in again.app.memory.log.events()]
    assert [line.split()[0] for line in again.deal(3)][:2] == ["S2", "S2"]
    again.command("chip 2 off")                        # a real removal after LOCK still alarms
    assert again.pattern(2) == "TAMPER"
    fresh = simmod.Simulation(str(tmp_path), fresh=True)
    assert not fresh.covered(2) and not fresh.covered(4)


def test_garbled_shoe_line_is_shown_and_the_round_goes_on():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    sim.command("ante 1")
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


@pytest.mark.parametrize("game, result", [("fcp", "S1 Trips W"), ("brs", "S1 FH 8:1")])
def test_the_other_games_replay_their_own_demo_without_a_terminal(monkeypatch, capsys, game, result):
    """`make sim ARGS="--game fcp"` with no terminal: the game's demo, not UTH's (which looks
    for the progressive this table has not got).  The results are worked out by hand: FCP
    trip aces beat the dealer's two pair [FCP 9.4, 10.2]; BRS aces full of kings pays 8 to 1 on
    the Risk/Raise pay table [BRS 5.2-5.4]."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert simmod.main(["--game", game]) == 0
    out = capsys.readouterr().out
    assert "demo_%s.txt" % game in out and result in out


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


# ---------------------------------------------------------------------- interactive keys


def record_panel(sim, monkeypatch):
    """Every panel event the firmware's panel driver decodes from the pins, as (kind, button)."""
    seen = []
    real = sim.controller.panel

    def panel(kind, button, now_ms):
        seen.append((kind, button))
        real(kind, button, now_ms)
    monkeypatch.setattr(sim.controller, "panel", panel)
    return seen


def no_terminal():
    raise AssertionError("only t asks for a line")


def test_capital_d_opens_and_shuts_the_door_and_presses_no_button(monkeypatch):
    sim = simmod.Simulation(None)
    seen = record_panel(sim, monkeypatch)
    assert simmod.press_key(sim, "D", no_terminal) == "logic door opened"
    sim.run(simmod.SETTLE_MS)
    assert sim.table.door.level == 1 and sim.controller.door_open     # switch open: door open
    assert "door OPEN" in sim.snapshot()
    assert simmod.press_key(sim, "D", no_terminal) == "logic door shut"
    sim.run(simmod.SETTLE_MS)
    assert sim.table.door.level == 0 and not sim.controller.door_open
    assert (btn.DOOR_OPEN, 0) in [(k, 0) for k, _ in seen]
    assert not [b for k, b in seen if k in (btn.PRESS, btn.LONG, btn.RELEASE) and b == btn.DOWN]


def test_capital_v_is_the_long_down_and_d_a_short_one(monkeypatch):
    sim = simmod.Simulation(None)
    seen = record_panel(sim, monkeypatch)
    simmod.press_key(sim, "V", no_terminal)
    assert sim.table.buttons["DOWN"].level == 0                       # held while the table runs
    sim.run(simmod.LONG_MS + simmod.SHORT_MS)
    assert sim.table.buttons["DOWN"].level == 1                       # and let go
    assert (btn.LONG, btn.DOWN) in seen
    del seen[:]
    simmod.press_key(sim, "d", no_terminal)
    sim.run(simmod.SETTLE_MS)
    assert sim.table.buttons["DOWN"].level == 1
    assert (btn.PRESS, btn.DOWN) in seen and (btn.LONG, btn.DOWN) not in seen
    assert (btn.RELEASE, btn.DOWN) in seen                            # released, not only pressed


def test_a_short_press_stays_short_while_other_keys_run_the_table(monkeypatch):
    # A chip key runs the table 400 ms at once; the LOCK pushed before it is let go after
    # its own 100 ms, not after the chip's time, so it never becomes a long press.
    sim = simmod.Simulation(None)
    seen = record_panel(sim, monkeypatch)
    simmod.press_key(sim, "l", no_terminal)
    simmod.press_key(sim, "1", no_terminal)
    simmod.press_key(sim, "2", no_terminal)
    sim.run(simmod.SETTLE_MS)
    assert (btn.LONG, btn.LOCK) not in seen and (btn.RELEASE, btn.LOCK) in seen
    assert sim.covered(1) and sim.covered(2)


def test_the_same_key_twice_gives_two_presses(monkeypatch):
    sim = simmod.Simulation(None)
    seen = record_panel(sim, monkeypatch)
    simmod.press_key(sim, "u", no_terminal)
    simmod.press_key(sim, "u", no_terminal)
    sim.run(simmod.SETTLE_MS)
    assert seen.count((btn.RELEASE, btn.UP)) == 2


def locked_with_seat_3():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    for line in ("chip 3", "ante 3", "press LOCK"):
        sim.command(line)
    assert simmod.tc.PHASE_NAMES[sim.controller.phase] == "LOCKED"
    return sim


def spy_shoe(sim, monkeypatch):
    """The bytes put on the simulated shoe UART's receive line."""
    sent = []
    real = sim.table.shoe.inject

    def inject(data):
        sent.append(bytes(data))
        real(data)
    monkeypatch.setattr(sim.table.shoe, "inject", inject)
    return sent


def test_a_typed_shoe_line_goes_down_the_uart_and_reaches_the_controller(monkeypatch):
    sim = locked_with_seat_3()
    sent = spy_shoe(sim, monkeypatch)
    assert simmod.press_key(sim, "t", lambda: "S3 Ah\n") == "typed to the shoe: S3 Ah"
    assert sent == [b"S3 Ah\n"]                      # the wire bytes, as the shoe sends them
    # Ah is card 50: rank index 12 (A) * 4 + suit index 2 (h), the encoding of
    # docs/shoe-protocol.md / firmware/poker/cards.py (RANKS "23456789TJQKA", SUITS "cdhs")
    assert sim.controller._hole(2) == [50]
    simmod.press_key(sim, "t", lambda: "s3 kH")      # case-insensitive, no line end: still one line
    assert sent[-1] == b"s3 kH\n"
    assert sim.controller._hole(2) == [50, 46]       # K = rank index 11: 11 * 4 + 2
    assert "Shoe line bad" not in "\n".join(sim.display())


def test_typed_lines_take_the_same_path_as_dealt_cards(monkeypatch):
    sim = locked_with_seat_3()
    sent = spy_shoe(sim, monkeypatch)
    dealt = sim.deal(5)
    simmod.press_key(sim, "t", lambda: "B 7d\n")
    assert sent == [(x + "\n").encode() for x in dealt] + [b"B 7d\n"]


@pytest.mark.parametrize("typed,reason", [
    ("S9 Ah\n", "bad destination"),        # seats are S1..S7 (docs/shoe-protocol.md)
    ("S3 Zz\n", "bad card"),                   # no rank Z, no suit z
    ("S3 Ah Kd Qc Js Th\n", "line too long"),  # a line is at most 16 bytes
])
def test_a_bad_typed_line_is_rejected_by_the_firmware_and_the_loop_goes_on(typed, reason):
    sim = locked_with_seat_3()
    notice = simmod.press_key(sim, "t", lambda: typed)
    assert "shoe line rejected (%s)" % reason in notice               # the simulator's status line
    shown = "\n".join(sim.display())
    assert "Shoe line bad" in shown, shown                       # what the dealer sees
    # the firmware's reason, in its message for the dealer (at least the 16 characters an
    # OLED line holds) and in the driver's text for the event log
    assert reason[:16] in sim.controller.message
    assert sim.app.shoe.reject_text().startswith("shoe line rejected (%s)" % reason)
    assert sim.controller._hole(2) == []
    assert simmod.tc.PHASE_NAMES[sim.controller.phase] == "LOCKED"
    simmod.press_key(sim, "t", lambda: "S3 Ah\n")   # the next good line is taken
    assert sim.controller._hole(2) == [50]


def test_blank_or_several_typed_lines_send_nothing(monkeypatch):
    sim = locked_with_seat_3()
    sent = spy_shoe(sim, monkeypatch)
    assert simmod.press_key(sim, "t", lambda: "\n") == "nothing typed"
    assert simmod.press_key(sim, "t", lambda: "") == "nothing typed"      # end of input
    assert "one shoe line at a time" in simmod.press_key(sim, "t", lambda: "S3 Ah\nS3 Kh\n")
    assert sent == [] and sim.controller._hole(2) == []


def test_an_unknown_key_says_so_and_changes_nothing():
    sim = simmod.Simulation(None)
    before = sim.snapshot()
    assert "does nothing" in simmod.press_key(sim, "z", no_terminal)
    assert "one key at a time" in simmod.press_key(sim, "", no_terminal)   # "" is in every key list
    assert "one key at a time" in simmod.press_key(sim, "ld", no_terminal)
    assert sim.snapshot() == before


def test_the_on_screen_help_and_the_readme_list_the_keys_the_simulator_handles():
    for word in ("t type a shoe line", "D door", "V is the long DOWN", "c deal"):
        assert word in simmod.KEYS_HELP
    readme = (Path(simmod.__file__).parent.parent / "README.md").read_text()
    for word in ("`V` for a long DOWN", "`D` opens", "`t` asks for one shoe line", "`c` deals"):
        assert word in readme
    sim = simmod.Simulation(None)
    for ch in "1234567!@#$%^&lsudobLSUOBVkDct":
        assert "does nothing" not in simmod.press_key(sim, ch, lambda: "H\n"), ch


# ---------------------------------------------------------------------- what the rings mean


def columns(snapshot, label):
    """The seven cells of the snapshot's row that starts with label."""
    for line in snapshot.splitlines():
        if line.split()[:1] == [label]:
            return line.split()[1:]
    raise AssertionError("no %r row in\n%s" % (label, snapshot))


def test_each_ring_shows_its_pattern_name_under_its_colour():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    for line in ("chip 1", "ante 1", "chip 3", "press LOCK", "chip 7"):
        sim.command(line)
    shown = sim.snapshot()
    assert columns(shown, "seat") == ["S%d" % s for s in range(1, 8)]
    colours, patterns = columns(shown, "ring"), columns(shown, "pattern")
    # spot_lights' docstring: ACCEPTED steady green; LOCKED steady dim red (no wager
    # accepted: seat 3 had no Ante); LATE red flashing (a chip after LOCK)
    assert (colours[0], patterns[0]) == ("green", "ACCEPTED")
    assert (colours[2], patterns[2]) == ("red", "LOCKED")
    assert patterns[6] == "LATE" and colours[6] in ("red", "off")
    assert patterns[1] == "LOCKED"
    assert simmod.run_script(sim, ["expect pattern 1 ACCEPTED", "expect pattern 7 late"],
                             io.StringIO()) == 0
    screen = simmod.screen_text(sim, "notice")
    assert columns(screen, "colour")[0] == "green" and columns(screen, "pattern")[0] == "ACCEPTED"


def test_an_open_table_shows_idle_and_placed_rings():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    sim.command("chip 4")
    colours, patterns = columns(sim.snapshot(), "ring"), columns(sim.snapshot(), "pattern")
    # spot_lights' docstring: IDLE a dim blue light runs round; PLACED steady amber
    assert (colours[3], patterns[3]) == ("amber", "PLACED")
    assert (colours[0], patterns[0]) == ("blue", "IDLE")


def test_the_ring_legend_names_every_pattern_with_its_colours():
    legend = simmod.legend_text()
    assert legend.startswith("Rings: ")
    assert all(len(line) <= 80 for line in legend.splitlines())
    flat = " ".join(legend.split())
    for name in spot_lights.STATE_NAMES:
        assert name + " " in flat
    # the colours in firmware/drivers/spot_lights.py's docstring, as the fake names them
    for entry in ("OFF dark", "IDLE blue moving", "PLACED amber 4 of 8,", "ACCEPTED green,",
                  "LOCKED dim red 2 of 8,", "LATE red flashing,", "WINNER rainbow moving",
                  "FAULT magenta moving", "TAMPER red/white moving"):
        assert entry in flat, flat
    sim = simmod.Simulation(None)
    assert legend in simmod.screen_text(sim, "notice")


def test_a_replayed_script_starts_with_the_ring_legend(tmp_path, capsys):
    script = tmp_path / "one.txt"
    script.write_text("show\n")
    assert simmod.main(["--memory", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(simmod.legend_text() + "\n")
    assert "pattern " in out


# ---------------------------------------------------------------------- supervisor functions

README = Path(simmod.__file__).parent.parent / "README.md"


def panel_section():
    """README.md's "The dealer panel" section, which must come after the simulator paragraph."""
    text = README.read_text()
    start = text.index("## The dealer panel")
    assert text.index("make sim ARGS=\"--game fcp\"") < start < text.index("## Where things are")
    return text[start:text.index("\n## ", start + 1)]


def readme_row(phase):
    """The cells of the panel table's row for phase (LOCK, SETTLE, UP / DOWN, OK, BACK)."""
    for line in panel_section().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].split(" (")[0] == phase:
            return dict(zip(("LOCK", "SETTLE", "UP / DOWN", "OK", "BACK"), cells[1:]))
    raise AssertionError("no %s row in the README's panel table" % phase)


def keys(sim, typed):
    """Type keys in the simulator, each one let go and the table settled before the next."""
    for ch in typed:
        notice = simmod.press_key(sim, ch, no_terminal)
        assert "does nothing" not in notice, ch
        sim.run(simmod.LONG_MS + simmod.SETTLE_MS)


def phase(sim):
    return simmod.tc.PHASE_NAMES[sim.controller.phase]


def open_table():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    return sim


def locked_table():
    sim = open_table()
    for line in ("chip 1", "ante 1", "chip 2", "ante 2", "press LOCK"):
        sim.command(line)
    assert phase(sim) == "LOCKED" and sim.controller.cursor == 0     # the cursor is on seat 1
    return sim


def confirm_table():
    sim = locked_table()
    # seat 1 has a royal flush with the flop: a jackpot hand to confirm
    for line in ("As", "Ks", "2c", "7d"):
        sim.command("shoe S%d %s" % (1 if line in ("As", "Ks") else 2, line))
    for line in ("B Qs", "B Js", "B Ts", "B 3h", "B 4h", "D 9c", "D 9d", "press SETTLE"):
        sim.command(line if line.startswith("press") else "shoe " + line)
    assert phase(sim) == "CONFIRM"
    return sim


def shows(sim, text):
    return text in "\n".join(sim.display())


# (help words, README row and button, README cell words, README simulator words, start, keys,
#  what must then be true)
SUPERVISOR = [
    ("O audit", "OPEN", "OK", "key+long: audit", "audit `k` `O`", open_table, "kO",
     lambda sim: phase(sim) == "AUDIT" and shows(sim, "AUDIT")),
    ("S configuration", "OPEN", "SETTLE", "key+long: configuration", "configuration `k` `S`",
     open_table, "kS", lambda sim: phase(sim) == "CONFIG" and shows(sim, "CONFIG")),
    ("L test mode", "OPEN", "LOCK", "key+long: test mode", "test mode `k` `L`", open_table, "kL",
     lambda sim: phase(sim) == "TEST" and shows(sim, "TEST MODE")),
    ("b voids the seat at the cursor", "LOCKED", "BACK", "key: void the cursor seat",
     "void the seat at the\ncursor `k` `b`", locked_table, "kb",
     lambda sim: sim.controller.rec.voided == 0b1 and phase(sim) == "LOCKED" and shows(sim, "Seat 1 void")),
    ("B voids the round", "LOCKED", "BACK", "key+long: void the round", "void the round `k` `B`",
     locked_table, "kB", lambda sim: phase(sim) == "RESULTS" and shows(sim, "ROUND VOID")),
    ("B also at CONFIRM", "CONFIRM", "BACK", "key+long: void the round", "void the round `k` `B`",
     confirm_table, "kB", lambda sim: phase(sim) == "RESULTS" and shows(sim, "ROUND VOID")),
    ("LOCKED, no key needed: O enters a card", "LOCKED", "OK", "long: card entry (no key needed)",
     "card entry `O` while LOCKED", locked_table, "O",
     lambda sim: phase(sim) == "CARD ENTRY" and shows(sim, "ENTER CARD")),
    ("CONFIRM: o pays the jackpot", "CONFIRM", "OK", "key: confirm and pay", "pay a jackpot `k` `o`",
     confirm_table, "ko",
     lambda sim: phase(sim) == "RESULTS" and sim.controller.jackpot.last_hits()[-1]["seat"] == 1),
    ("l sends back", "CONFIRM", "LOCK", "key: send the jackpot hands back unpaid",
     "send it back unpaid `k` `l`", confirm_table, "kl",
     lambda sim: phase(sim) == "LOCKED" and not sim.controller.jackpot.last_hits()),
    ("key: s takes one out", "CARD ENTRY", "SETTLE", "key: take the marked destination's last card",
     "(a card out: `k` `s`)", locked_table, "Olks",
     lambda sim: phase(sim) == "CARD ENTRY" and len(sim.controller._hole(0)) == 0),
    ("RAM ERROR: O, then o, clears", "RAM ERROR", "OK", "key+long: RAM CLEAR screen",
     "RAM\nclear `k` `O` `o`", lambda: simmod.Simulation(None), "kOo",
     lambda sim: phase(sim) == "OPEN" and sim.app.memory.status == "ok"),
]


@pytest.mark.parametrize("row", SUPERVISOR, ids=[row[0] for row in SUPERVISOR])
def test_each_supervisor_function_is_in_the_help_and_the_readme_and_happens(row):
    help_words, readme_phase, button, cell, sim_words, start, typed, done = row
    assert help_words in simmod.KEYS_HELP
    assert cell in readme_row(readme_phase)[button]
    assert " ".join(sim_words.split()) in " ".join(panel_section().split())
    sim = start()
    keys(sim, typed)
    assert done(sim), sim.snapshot()


@pytest.mark.parametrize("start,typed,stays", [
    (open_table, "O", "OPEN"),          # no key: a long OK is not the audit
    (open_table, "S", "OPEN"),
    (open_table, "L", "LOCKED"),        # no key: LOCK locks at once, held or not
    (locked_table, "B", "LOCKED"),      # no key: no void
    (locked_table, "b", "LOCKED"),
    (confirm_table, "o", "CONFIRM"),    # no key: not paid
], ids=["O", "S", "L", "B", "b", "o"])
def test_without_the_key_the_supervisor_keys_do_not_act(start, typed, stays):
    sim = start()
    keys(sim, typed)
    assert phase(sim) == stays and sim.controller.rec.voided == 0


@pytest.mark.parametrize("typed", ["kO", "kS", "kL"])
def test_b_leaves_audit_configuration_and_test_mode(typed):
    sim = open_table()
    keys(sim, typed)
    assert phase(sim) != "OPEN"
    assert "b leaves them" in simmod.KEYS_HELP and "back to OPEN" in readme_row(phase(sim))["BACK"]
    keys(sim, "b")
    assert phase(sim) == "OPEN"


def test_card_entry_adds_the_marked_card_and_b_goes_back():
    sim = locked_table()
    keys(sim, "O")
    assert "l adds it, b done" in simmod.KEYS_HELP
    assert readme_row("CARD ENTRY")["LOCK"] == "add the card"
    keys(sim, "l")
    assert len(sim.controller._hole(0)) == 1             # the destination starts at seat 1
    keys(sim, "b")
    assert phase(sim) == "LOCKED"


def test_the_readme_panel_table_has_a_row_for_every_phase():
    for name in simmod.tc.PHASE_NAMES:
        row = readme_row(name)
        assert len(row) == 5 and all(row.values()), (name, row)


def results_table():
    sim = locked_table()
    for line in ("S1 2c", "S1 7d", "S2 3c", "S2 8d", "B Qs", "B Jh", "B 4s", "B 5h", "B 9c",
                 "D 9d", "D Kc"):
        sim.command("shoe " + line)
    sim.command("press SETTLE")
    assert phase(sim) == "RESULTS"
    return sim


def start_in(name):
    """A simulated table in phase name, the key off."""
    if name == "RAM ERROR":
        return simmod.Simulation(None)
    starts = {"OPEN": open_table, "LOCKED": locked_table, "CONFIRM": confirm_table,
              "RESULTS": results_table}
    if name in starts:
        return starts[name]()
    sim = simmod.Simulation(None) if name == "RAM CLEAR" else open_table()
    if name == "CARD ENTRY":
        sim = locked_table()
    keys(sim, {"RAM CLEAR": "kOk", "AUDIT": "kOk", "CONFIG": "kSk", "TEST": "kLk",
               "CARD ENTRY": "O"}[name])
    assert phase(sim) == name
    return sim


def fingerprint(sim):
    """What a button press could change (its message aside: a refusal may say why)."""
    c = sim.controller
    rec = c.rec
    return (phase(sim), c.cursor, c.ante_marked, rec.folded, rec.voided, rec.accepted,
            list(rec.board), list(rec.dealer), [c._hole(s) for s in range(c.seats)], c.menu_top,
            c.results_top, list(c.entry), c.entry_field, c.config_index, c.test_step,
            c.jackpot and (c.jackpot.config.wager, list(c.jackpot.value)), c.memory.round_no)


SHORT_KEYS = {"LOCK": "l", "SETTLE": "s", "OK": "o", "BACK": "b"}
LONG_KEYS = {"LOCK": "L", "SETTLE": "S", "OK": "O", "BACK": "B"}


@pytest.mark.parametrize("name", simmod.tc.PHASE_NAMES)
def test_a_dash_in_the_readme_panel_table_is_a_button_that_does_nothing(name):
    # A '-' cell: neither a short nor a long press, with the key or without, changes anything.
    row = readme_row(name)
    idle = [button for button, cell in row.items() if cell == "-"]
    if "UP / DOWN" in idle:
        idle.remove("UP / DOWN")
        idle += ["UP", "DOWN"]
    sim = start_in(name)
    for key_on in (False, True):
        if key_on:
            keys(sim, "k")
        for button in idle:
            for ch in (SHORT_KEYS.get(button, button[0].lower()),
                       LONG_KEYS.get(button, {"UP": "U", "DOWN": "V"}.get(button))):
                before = fingerprint(sim)
                keys(sim, ch)
                assert fingerprint(sim) == before, (name, key_on, button, ch)


def seven_seat_results():
    """RESULTS with all seven seats in: seven result lines, one more than the screen shows."""
    sim = open_table()
    for seat in range(1, 8):
        sim.command("chip %d" % seat)
        sim.command("ante %d" % seat)
    sim.command("press LOCK")
    sim.deal(7)
    sim.command("press SETTLE")
    if phase(sim) == "CONFIRM":           # seed 7 has no jackpot hand; be sure all the same
        keys(sim, "kok")
    assert phase(sim) == "RESULTS" and len(sim.controller.results) > screens.RESULT_LINES
    return sim


def wager(sim):
    return sim.controller.jackpot.config.wager


# (phase, button, words of its README cell, start, keys, what must then be true)
ACTIONS = [
    ("OPEN", "LOCK", "No more bets: locks the round", open_table, "l",
     lambda sim: phase(sim) == "LOCKED" and shows(sim, "No more bets")),
    ("OPEN", "UP / DOWN", "move the seat cursor", open_table, "u",
     lambda sim: sim.controller.cursor == 1),
    ("OPEN", "UP / DOWN", "move the seat cursor", open_table, "d",
     lambda sim: sim.controller.cursor == 6),
    ("OPEN", "OK", "Ante on/off for the cursor seat", open_table, "o",
     lambda sim: sim.controller.ante_marked == 0b1),
    ("OPEN", "SETTLE", "long: the last round's results again", results_table, "sS",
     lambda sim: phase(sim) == "OPEN" and shows(sim, "LAST ROUND 1")),
    ("LOCKED", "SETTLE", "settle: results", results_table, "",
     lambda sim: phase(sim) == "RESULTS"),
    ("LOCKED", "SETTLE", "or CONFIRM for a jackpot hand", confirm_table, "",
     lambda sim: phase(sim) == "CONFIRM"),
    ("LOCKED", "UP / DOWN", "move the seat cursor", locked_table, "uu",
     lambda sim: sim.controller.cursor == 2),
    ("LOCKED", "OK", "fold/unfold the cursor seat", locked_table, "o",
     lambda sim: sim.controller.rec.folded == 0b1 and phase(sim) == "LOCKED"),
    ("LOCKED", "OK", "fold/unfold the cursor seat", locked_table, "oo",
     lambda sim: sim.controller.rec.folded == 0),
    ("RESULTS", "SETTLE", "next round", results_table, "s",
     lambda sim: phase(sim) == "OPEN" and sim.controller.rec.round_no == 2),
    ("RESULTS", "OK", "next round", results_table, "o",
     lambda sim: phase(sim) == "OPEN" and sim.controller.rec.round_no == 2),
    # (the dealer's line is above seat 1's: two lines down take seat 1's off)
    ("RESULTS", "UP / DOWN", "scroll the results", seven_seat_results, "dd",
     lambda sim: sim.controller.results_top == 2 and not shows(sim, "S1 ")),
    ("RESULTS", "UP / DOWN", "scroll the results", seven_seat_results, "du",
     lambda sim: sim.controller.results_top == 0 and shows(sim, "S1 ")),
    ("RAM CLEAR", "BACK", "cancel", lambda: start_in("RAM CLEAR"), "b",
     lambda sim: phase(sim) == "RAM ERROR"),
    ("RAM CLEAR", "OK", "key: clear the critical memory", lambda: start_in("RAM CLEAR"), "o",
     lambda sim: phase(sim) == "RAM CLEAR" and sim.app.memory.status != "ok"),
    ("RAM CLEAR", "OK", "key: clear the critical memory", lambda: start_in("RAM CLEAR"), "ko",
     lambda sim: phase(sim) == "OPEN" and sim.app.memory.status == "ok"),
    ("AUDIT", "UP / DOWN", "scroll", lambda: start_in("AUDIT"), "dd",
     lambda sim: sim.controller.menu_top == 2),
    ("AUDIT", "UP / DOWN", "long: a page", lambda: start_in("AUDIT"), "V",
     lambda sim: sim.controller.menu_top >= simmod.tc.LINES),
    ("AUDIT", "OK", "next section", lambda: start_in("AUDIT"), "o",
     lambda sim: sim.controller.menu_top > 0 and phase(sim) == "AUDIT"),
    ("CONFIG", "UP / DOWN", "key: choose the setting", lambda: start_in("CONFIG"), "kd",
     lambda sim: sim.controller.config_index == 1),
    ("CONFIG", "UP / DOWN", "key: choose the setting", lambda: start_in("CONFIG"), "d",
     lambda sim: sim.controller.config_index == 0 and shows(sim, "Supervisor key")),
    # the first setting is the jackpot wager; the next of its choices (CONFIG_ITEMS) after $1
    ("CONFIG", "OK", "key: change it to its next value", lambda: start_in("CONFIG"), "ko",
     lambda sim: wager(sim) == 200),
    ("CONFIG", "OK", "key: change it to its next value", lambda: start_in("CONFIG"), "o",
     lambda sim: wager(sim) == 100),
    ("TEST", "OK", "next light pattern", lambda: start_in("TEST"), "o",
     lambda sim: sim.controller.test_step == 1),
    ("CARD ENTRY", "UP / DOWN", "change the marked field", lambda: start_in("CARD ENTRY"), "u",
     lambda sim: sim.controller.entry[0] == 2),
    ("CARD ENTRY", "OK", "next field: destination, rank, suit", lambda: start_in("CARD ENTRY"),
     "o", lambda sim: sim.controller.entry_field == 1),
]


@pytest.mark.parametrize("row", ACTIONS, ids=["%s %s %s" % (r[0], r[1], r[4]) for r in ACTIONS])
def test_what_the_readme_panel_table_says_a_button_does_it_does(row):
    name, button, words, start, typed, done = row
    assert words in readme_row(name)[button]
    sim = start()
    keys(sim, typed)
    assert done(sim), sim.snapshot()


def test_test_mode_ok_moves_every_ring_to_its_next_pattern():
    sim = start_in("TEST")
    before = columns(sim.snapshot(), "pattern")
    keys(sim, "o")
    after = columns(sim.snapshot(), "pattern")
    names = spot_lights.STATE_NAMES
    # each ring steps to the next of the patterns after OFF (screens.seat_light in TEST)
    assert after == [names[1 + names.index(b) % (len(names) - 1)] for b in before]


@pytest.mark.parametrize("game", ["uth", "fcp"])
def test_the_interactive_screen_fits_an_80_by_24_terminal(game):
    sim = simmod.Simulation(None, game=game)
    ram_clear(sim)
    for line in ("chip 1", "ante 1", "press LOCK"):
        sim.command(line)
    screen = re.sub(r"\x1b\[[0-9;]*m", "", simmod.screen_text(sim, "notice"))
    lines = screen.splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, screen
    assert all(len(line) <= simmod.HELP_WIDTH for line in simmod.KEYS_HELP.splitlines())
    assert lines[0].startswith("round 1  phase LOCKED")       # the phase, on the top line
    assert "key off  door shut" in screen and "|ROUND 1 LOCKED  |" in screen


def test_the_interactive_simulator_in_a_terminal_takes_keys_and_quits_on_ctrl_c(tmp_path):
    # the real terminal loop in a pseudo-terminal: a key acts and is shown; Ctrl-C quits as q
    # does, with no traceback
    import os
    import pty
    import select
    import sys
    import time

    pid, fd = pty.fork()
    if pid == 0:                                  # the child: the simulator, as make sim runs it
        os.chdir(str(Path(simmod.__file__).parent.parent))
        os.execvp(sys.executable, [sys.executable, "-m", "tools.sim", "--memory"])
    seen = b""

    def read_for(seconds):
        nonlocal seen
        end = time.time() + seconds
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    return
    read_for(4)
    os.write(fd, b"k")
    read_for(1.5)
    assert b"supervisor key on" in seen and b"key ON" in seen
    os.write(fd, b"\x03")
    read_for(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"Traceback" not in seen


@pytest.mark.parametrize("game", ["fcp", "brs"])
def test_the_service_mode_runs_the_game_asked_for(monkeypatch, game):
    # python -m tools.sim --service --game fcp: the service speaks for a Four Card Poker table
    served = []
    monkeypatch.setattr(simmod, "serve", lambda sim: served.append(sim.controller.game) or 0)
    assert simmod.main(["--service", "--memory", "--fresh", "--game", game]) == 0
    assert served == [game]


# ---------------------------------------------------------------------- dealing with c


def test_c_deals_only_the_cards_still_missing():
    # two cards typed for seat 3, then c: the rest of the round is dealt around them, never a
    # card the table has (a "seen twice" refusal would log a fouled deck) nor one too many
    from firmware.store import eventlog as ev

    sim = locked_with_seat_3()
    for line in ("shoe S3 As", "shoe S3 Ks", "shoe B Qs"):
        sim.command(line)
    refused = sim.controller.last_refusal
    dealt = sim.deal(0)
    assert not [x for x in dealt if x.startswith("S3") or x in ("B As", "B Ks", "B Qs")]
    assert sim.controller._hole(2) == [51, 47]
    assert sim.controller.last_refusal == refused            # every card dealt was taken
    assert sim.controller._missing() == ""
    log = sim.app.memory.log
    assert not [e for e in log.events(log.first_available()) if e[3] == ev.CARD_DUPLICATE]
    assert simmod.press_key(sim, "c", no_terminal) == "nothing to deal: every hand has its cards"


def test_c_says_when_the_table_refuses_the_cards():
    sim = simmod.Simulation(None)
    ram_clear(sim)
    sim.command("chip 1")
    sim.command("ante 1")
    notice = simmod.press_key(sim, "c", no_terminal)       # bets still open
    assert "LOCK first" in notice, notice
    notice = simmod.press_key(sim, "c", no_terminal)       # the same refusal again
    assert "LOCK first" in notice and "none of the" in notice, notice


# ---------------------------------------------------------------------- the terminal's keys


@pytest.mark.parametrize("typed,name", [
    ("\x1b[D", "left arrow"),          # its last byte is D: the logic door
    ("\x1b[B", "down arrow"),          # B: a long BACK, which voids the round with the key on
    ("\x1bOB", "down arrow"),          # the same in the terminal's application mode
    ("\x1b[3~", "Delete"),             # 3: seat 3's jackpot chip
    ("\x1bOP", "F1"),                  # O: a long OK
    ("\x1bOS", "F4"),                  # S: a long SETTLE
    ("\x1bl", "Alt+l"),
])
def test_an_arrow_or_function_key_is_one_key_that_does_nothing(typed, name):
    # a terminal sends these keys as escape sequences whose bytes are ordinary keys: each is
    # one key, which does nothing (it must not open the door or void a round)
    sim = locked_with_seat_3()
    sim.command("key on")
    sim.run(6000)                               # the sign has counted up to the pool
    before = sim.snapshot()
    keys, rest = simmod.split_keys(typed + "u")
    assert keys == [typed, "u"] and rest == "", name
    assert "does nothing" in simmod.press_key(sim, keys[0], no_terminal)
    sim.run(simmod.LONG_MS + simmod.SETTLE_MS)
    assert sim.snapshot() == before
    assert not sim.table.door.level and not sim.controller.door_open


def test_a_key_flood_cut_inside_an_escape_sequence_keeps_it_whole():
    # a held left arrow: 21 of them and the first byte of the 22nd fill one 64-byte read
    data = "\x1b[D" * 22
    keys, rest = simmod.split_keys(data[:64])
    assert keys == ["\x1b[D"] * 21 and rest == "\x1b"
    keys, rest = simmod.split_keys(rest + data[64:])
    assert keys == ["\x1b[D"] and rest == ""
    assert simmod.split_keys("\x1b") == ([], "\x1b")      # a lone Escape waits for more


def spawn_sim(rows=24, cols=80, ignore_hangup=False):
    """The interactive simulator (python -m tools.sim --memory) in a pseudo-terminal of
    rows x cols; returns (pid, master fd, read_for(seconds) -> all the output so far)."""
    import fcntl
    import os
    import pty
    import select
    import signal
    import struct
    import sys
    import termios
    import time

    pid, fd = pty.fork()
    if pid == 0:                                  # the child: the simulator, as make sim runs it
        if ignore_hangup:                         # as under nohup
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.chdir(str(Path(simmod.__file__).parent.parent))
        os.execvp(sys.executable, [sys.executable, "-m", "tools.sim", "--memory"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    seen = [b""]

    def read_for(seconds):
        end = time.time() + seconds
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen[0] += os.read(fd, 65536)
                except OSError:
                    break
        return seen[0]
    return pid, fd, read_for


def wait_exit(pid, seconds):
    """The exit code of child pid if it ends within seconds, else None (it is killed)."""
    import os
    import signal
    import time

    end = time.time() + seconds
    while time.time() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def test_the_simulator_ends_when_its_terminal_is_gone():
    # the terminal closed under a simulator that does not die of the hang-up (nohup): the end
    # of its input ends it, instead of a loop spinning for ever on a dead terminal
    import os

    pid, fd, read_for = spawn_sim(ignore_hangup=True)
    assert b"phase RAM ERROR" in read_for(4)
    os.close(fd)
    assert wait_exit(pid, 5) is not None


def test_a_terminal_too_small_is_told_and_a_resize_redraws_the_table():
    import fcntl
    import os
    import struct
    import termios

    pid, fd, read_for = spawn_sim(rows=20, cols=70)
    try:
        seen = read_for(4)
        assert b"80 x 24" in seen and b"70 x 20" in seen, seen[-400:]
        assert b"+dealer display" not in seen            # not a table scrolled off the screen
        assert b"phase RAM ERROR" in seen                 # the state is still in view
        start = len(seen)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        seen = read_for(2)[start:]
        assert b"+dealer display" in seen, seen[-400:]    # redrawn whole without a key pressed
        os.write(fd, b"q")
        read_for(1)
    finally:
        assert wait_exit(pid, 5) == 0


def test_a_small_screen_says_what_size_it_needs():
    sim = simmod.Simulation(None)
    screen = simmod.screen_text(sim, "notice")
    assert simmod.fit_screen(screen, 80, 24) == screen
    small = simmod.fit_screen(screen, 60, 10)
    lines = small.splitlines()
    assert len(lines) <= 10 and max(len(line) for line in lines) <= 60, small
    assert lines[0].startswith("round 0  phase RAM ERROR")
    assert "80 x 24" in small and "60 x 10" in small and "notice" in small


def test_a_linked_tables_screen_fits_an_80_by_24_terminal():
    from firmware.link import mqtt
    from firmware.link.setup import LinkSetup
    from host_tests.link_support import FAST, table_key

    # nothing listens on port 1: the link stays DOWN, its line at its widest
    setup = LinkSetup(9999, table_key(9999), mqtt.tcp_opener("127.0.0.1", 1), FAST, keepalive=2)
    sim = simmod.Simulation(None, fresh=True, link=setup)
    ram_clear(sim)
    screen = re.sub(r"\x1b\[[0-9;]*m", "", simmod.screen_text(sim, "notice"))
    lines = screen.splitlines()
    assert "link DOWN" in screen and "table 9999" in screen
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, screen


def test_after_a_stop_and_fg_the_keys_act_at_once_again():
    # Ctrl-Z then fg: the shell had the terminal back in line mode with echo meanwhile; the
    # simulator, continued, takes its keys one at a time again and draws the table anew
    import os
    import signal
    import termios

    pid, fd, read_for = spawn_sim()
    try:
        assert b"phase RAM ERROR" in read_for(4)
        os.kill(pid, signal.SIGSTOP)              # (from a pty's test the tty's Ctrl-Z is discarded)
        mode = termios.tcgetattr(fd)
        mode[3] |= termios.ICANON | termios.ECHO   # what the shell leaves while it has the terminal
        termios.tcsetattr(fd, termios.TCSANOW, mode)
        start = len(read_for(0.5))
        os.kill(pid, signal.SIGCONT)
        seen = read_for(1.5)[start:]
        assert b"+dealer display" in seen         # drawn again, without a key
        os.write(fd, b"k")                        # no Enter
        seen = read_for(1.5)[start:]
        assert b"supervisor key on" in seen, seen[-300:]
        os.write(fd, b"q")
        read_for(1)
    finally:
        assert wait_exit(pid, 5) == 0


@pytest.mark.parametrize("game", ["fcp", "brs"])
def test_a_random_deal_gives_no_hand_to_a_seat_with_only_a_jackpot_chip_at_the_other_games(game):
    # README: `c` deals "to the seats whose cards the table takes: a seat with only a jackpot
    # chip plays no hand".  Four Card Poker and Big Raise Stud take no jackpot wager: seat 2's
    # chip on its jackpot spot is no bet, and seat 2 is dealt nothing; seat 1 (Ante) plays.
    sim = simmod.Simulation(None, game=game)
    ram_clear(sim)
    for line in ("ante 1", "chip 2", "press LOCK"):
        sim.command(line)
    lines = sim.deal(3)
    assert any(x.startswith("S1 ") for x in lines)
    assert not any(x.startswith("S2 ") for x in lines), lines


@pytest.mark.parametrize("game", ["uth", "fcp", "brs"])
def test_a_random_deal_gives_a_hand_to_a_seat_whose_ante_is_marked_on_the_panel(game):
    # The dealer marks seat 2's Ante with OK (its sensor does not see the chip): the table
    # takes its cards and SETTLE asks for them, so `c` deals them too.
    sim = simmod.Simulation(None, game=game)
    ram_clear(sim)
    for line in ("ante 1", "press UP", "press OK", "press LOCK"):
        sim.command(line)
    assert sim.controller.ante_marked == 0b10
    lines = sim.deal(3)
    assert sum(1 for x in lines if x.startswith("S2 ")) == sim.controller.seat_cards, lines


def test_expect_meter_at_a_table_without_a_progressive_says_so():
    # a Four Card Poker table's sign shows no pool: the script line is refused with a reason
    # a person can act on, not "must be 0..-1"
    sim = simmod.Simulation(None, game="fcp")
    ram_clear(sim)
    with pytest.raises(simmod.ScriptError) as error:
        sim.parse("expect meter 0 10000.00")
    assert "-1" not in str(error.value)
    assert "no progressive" in str(error.value), str(error.value)


def test_a_table_without_a_progressive_does_not_call_its_sign_line_jackpot():
    sim = simmod.Simulation(None, game="brs")            # RAM ERROR: the sign says rAM Err
    shown = sim.snapshot()
    assert "meter sign 0" in shown and "rAM Err" in shown
    assert "JACKPOT [" not in shown, shown
    # nor its memory line a jackpot: the display says ROUNDS DISABLED, so does the top line
    assert "memory: RAM ERROR - ROUNDS DISABLED (memory blank)" in shown and "JACKPOT" not in shown


def test_fresh_removes_only_the_simulators_own_files(tmp_path):
    # --fresh --state DIR on a folder that holds other things (make sim ARGS="--fresh --state ."
    # in the checkout): the table's memory starts blank, nothing else in the folder is touched
    sim = simmod.Simulation(str(tmp_path))
    ram_clear(sim)
    sim.command("chip 2")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "thesis.tex").write_text("mine too")
    again = simmod.Simulation(str(tmp_path), fresh=True)
    assert simmod.tc.PHASE_NAMES[again.controller.phase] == "RAM ERROR"     # blank memory
    assert not again.covered(2)                                            # no chips kept
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert (tmp_path / "sub" / "thesis.tex").read_text() == "mine too"


def test_the_screen_says_when_the_dealer_display_is_inverted():
    # test mode lights every pixel of the display around the text on every other step: the
    # text read back is the same, so the box must say the display is shown inverted
    sim = simmod.Simulation(None)
    ram_clear(sim)
    for line in ("key on", "hold LOCK"):
        sim.command(line)
    assert "INVERTED" not in simmod.screen_text(sim, "")
    sim.command("press OK")
    assert sim.table.oled.inverse
    assert "+INVERTED display+" in simmod.screen_text(sim, "")     # the box, as wide
    assert "dealer display (inverted: lit background)" in sim.snapshot()
    sim.command("press BACK")
    assert "INVERTED" not in simmod.screen_text(sim, "")


def test_a_replay_that_passes_ends_saying_so():
    # a script with no show line: the person replaying it is told it ran to the end and where
    # the table is, not left with nothing but the exit status
    sim = simmod.Simulation(None)
    out = io.StringIO()
    lines = ["key on", "hold OK", "press OK", "key off", "# RAM clear", "expect phase OPEN",
             "chip 1", "expect pattern 1 PLACED"]
    assert simmod.run_script(sim, lines, out, "mine.txt") == 0
    last = out.getvalue().splitlines()[-1]
    assert last == "mine.txt: 7 commands replayed, 2 expectations met; the table is in OPEN", last


def test_a_typed_line_that_is_not_utf8_is_shown_without_stopping_the_simulator():
    # a Latin-1 terminal sends e as the byte 0xe9: the line goes down the shoe as typed and is
    # rejected there; the screen shows the byte escaped, never a character a UTF-8 terminal
    # cannot take (the simulator stopped with UnicodeEncodeError in a UTF-8 locale)
    sim = locked_with_seat_3()
    typed = b"S3 \xe9\n".decode("utf-8", "surrogateescape")     # as the terminal loop reads it
    notice = simmod.press_key(sim, "t", lambda: typed)
    assert "S3 \\xe9" in notice, notice
    simmod.screen_text(sim, notice).encode("utf-8")             # strict: no lone surrogate
    assert "garbage bytes" in notice


def test_a_script_deal_with_nothing_left_to_deal_says_so():
    sim = locked_with_seat_3()
    assert sim.command("deal 1").startswith("dealt: S3 ")
    assert sim.command("deal 2") == "dealt: nothing, every hand has its cards"


def test_a_second_simulator_on_the_same_state_is_refused_with_the_reason(tmp_path, capsys):
    # make sim in one terminal and tools.audit --sim --state .sim in another (README) had run
    # two tables on the same files: each overwrote the other's commits without a word
    import subprocess
    import sys

    root = Path(simmod.__file__).parent.parent
    holder = subprocess.Popen([sys.executable, "-m", "tools.sim", "--service", "--state", str(tmp_path)],
                              cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        holder.stdin.write("status\n")
        holder.stdin.flush()
        assert '"ok": true' in holder.stdout.readline()           # it runs, holding the state
        before = (tmp_path / "fram.bin").read_bytes()
        script = tmp_path / "s.txt"
        script.write_text("show\n")
        second = ["--state", str(tmp_path), "--fresh", "--script", str(script)]
        assert simmod.main(second) == simmod.BAD_SCRIPT
        err = capsys.readouterr().err
        assert err == ("sim: cannot keep the table's state in %s: another simulator is running on it "
                       "(quit that one first, or give another --state)\n" % tmp_path)
        assert (tmp_path / "fram.bin").read_bytes() == before     # --fresh wiped nothing
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    # once it has quit, the state is free again; a restart in one process keeps its lock
    sim = simmod.Simulation(str(tmp_path))
    assert simmod.Simulation(str(tmp_path)).controller is not sim.controller


@pytest.mark.parametrize("sent, replies", [
    (b"status\r" * 40, ["status"] * 40),                 # a terminal's CR line ends, pasted
    (b"help\r" * 3 + b"status\r\nhelp", ["help"] * 3 + ["status", None]),
])
def test_the_service_mode_answers_every_line_piped_to_it(sent, replies):
    # `tools.sim --service` with lines ended by CR alone (what PuTTY, minicom and screen send,
    # which the protocol takes): stdin's readline sees one long line, which went onto the
    # service port faster than the firmware reads it while it writes long replies, so the
    # port's FIFO overflowed and commands reached the table cut and joined ('statusstatus',
    # 'stus': unknown command), and the replies still due at the end of input were not
    # written.  Every line gets its one reply now, in order; a last line without its end is
    # dropped with the reply the table gives it ('incomplete line').
    sim = simmod.Simulation(None)
    out = io.BytesIO()
    assert simmod.serve(sim, io.BytesIO(sent), out) == 0
    got = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert [reply["cmd"] for reply in got] == replies, got
    assert all(reply["ok"] for reply in got if reply["cmd"])
    if replies[-1] is None:
        assert got[-1]["code"] == "bad-line" and "incomplete line" in got[-1]["error"]


@pytest.mark.parametrize("game", ["fcp", "brs"])
def test_a_jackpot_chip_key_at_a_game_without_the_progressive_names_the_ante_key(game):
    # A newcomer at a Four Card Poker or Big Raise Stud table presses 1 to bet: that is the
    # jackpot spot, which this game does not use, so the ring stayed blue and the line said
    # only "seat 1 jackpot spot: chip on", not where this game's bet goes.
    sim = simmod.Simulation(None, game=game)
    notice = simmod.press_key(sim, "1", no_terminal)
    assert notice.startswith("seat 1 jackpot spot: chip on")
    assert "no jackpot" in notice and "Ante" in notice and "'!'" in notice, notice
    assert simmod.press_key(sim, "!", no_terminal) == "seat 1 Ante spot: chip on"
    uth = simmod.Simulation(None)
    assert simmod.press_key(uth, "1", no_terminal) == "seat 1 jackpot spot: chip on"
