"""The configuration file (firmware/config_file.py) and `python -m tools.config_check`.

Valid files must give exactly the options the firmware's own validators build; every bad
file must raise ConfigError naming the key and the value.  The pay-table figures printed by
config_check are tools.game_math's (tested in test_game_math.py); here they are only checked
to be the rows of the presets the file selects.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from firmware import config_file as cf
from firmware.jackpot import config as jcfg
from firmware.poker import uth
from tools import config_check
from tools.game_math import run

DOCS = Path(__file__).resolve().parent.parent / "docs"
EXAMPLE = DOCS / "table-config.example.json"
FCP_EXAMPLE = DOCS / "table-config.fcp.example.json"


def uth_file(**changes):
    data = {"format": 1, "game": "uth"}
    data.update(changes)
    return json.dumps(data)


def test_the_example_files_are_valid():
    table = cf.parse(EXAMPLE.read_bytes(), board="pico_w")
    assert table.game == "uth" and table.board == "pico_w" and table.table_max == 1000000
    assert table.options.hand_rule == "hole2_board3" and table.options.trips.name == "trips_a"
    assert table.jackpot.wager == 100 and table.jackpot.pools[jcfg.MAIN].reset == 1000000
    fcp = cf.parse(FCP_EXAMPLE.read_text())
    assert fcp.game == "fcp" and fcp.options.aces_up.name == "aces_b" and fcp.jackpot is None


def test_a_minimal_file_gives_the_rules_md_defaults():
    table = cf.parse(uth_file())
    assert table.paytables == {"blind": "blind_a", "trips": "trips_a"}
    assert table.options.max_payout is None and table.options.seats == 7
    assert table.jackpot.as_dict() == jcfg.default().as_dict()


def test_file_options_are_the_game_configs_options():
    text = uth_file(table_max=250000, rules={"hand_rule": "best5of7", "trips_hand_rule": "hole2_board3"},
                    paytables={"trips": "trips_c"}, jackpot={"wager": 500, "split": True})
    table = cf.parse(text)
    expected = uth.Config(hand_rule="best5of7", trips_hand_rule="hole2_board3", trips_table="trips_c",
                          max_payout=250000, jackpot_wager=500)
    assert table.options.options() == expected.options()
    assert table.jackpot.split is True and table.jackpot.wager == 500
    # the Trips hand rule goes to the table too: the results name the hand Trips is paid on
    assert table.controller_args() == {"jackpot_config": table.jackpot, "hand_rule": "best5of7",
                                       "trips_rule": "hole2_board3", "game": "uth", "seats": 7}


@pytest.mark.parametrize("game, rules, extra", [
    ("fcp", {"aces_up_alone": False, "seats": 5}, {"aces_up_alone": False}),
    ("fcp", {"seats": 5}, {}),
    ("brs", {"seats": 5}, {}),
])
def test_controller_args_set_up_a_table_of_the_file_s_game(tmp_path, game, rules, extra):
    # docs/configuration.md gives table.controller_args() as RoundController's keyword
    # arguments; at a Four Card Poker or Big Raise Stud file it raised AttributeError (no
    # hand_rule), and left out the game and Four Card Poker's aces_up_alone
    from firmware.store.critical import CriticalMemory
    from firmware.store.slots import FileSlot, PathFS
    from firmware.table.controller import RoundController

    table = cf.parse(json.dumps({"format": 1, "game": game, "rules": rules}))
    args = table.controller_args()
    assert args == dict({"jackpot_config": None, "game": game, "seats": 5}, **extra)
    fs = PathFS(str(tmp_path))
    c = RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs), **args)
    assert (c.game, c.seats, c.aces_up_alone) == (game, 5, not extra)


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    # an editor that writes UTF-8 with a BOM (Windows Notepad did by default): the file looks
    # right, so "expected a value at line 1 column 1" would send a technician hunting
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    assert cf.load(str(path), board="pico_w").table_max == 1000000
    assert cf.parse("\ufeff" + uth_file(table_max=5)).table_max == 5
    with pytest.raises(cf.ConfigError, match="expected a value"):   # only the one, at the start
        cf.parse("\ufeff\ufeff" + uth_file())


def test_load_reads_a_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(uth_file(board="esp32_s3"))
    assert cf.load(str(path), board="esp32_s3").board == "esp32_s3"
    with pytest.raises(cf.ConfigError, match="config board: 'esp32_s3' was written for another board"):
        cf.load(str(path), board="pico_w")


def test_a_file_too_large_is_refused_with_its_size_on_the_board_as_on_the_laptop(tmp_path):
    # the board reads one byte past the limit, not the whole file: the message must still
    # give the file's size, the one config_check (which reads it all) gives
    path = tmp_path / "config.json"
    path.write_bytes(uth_file().encode() + b" " * 20000)
    size = path.stat().st_size
    with pytest.raises(cf.ConfigError) as board:
        cf.load(str(path))
    with pytest.raises(cf.ConfigError) as laptop:
        cf.parse(path.read_bytes())
    assert str(board.value) == str(laptop.value) == "config file: %d bytes (limit 4096)" % size


@pytest.mark.parametrize("text,message", [
    # syntax and size
    ('{"format": 1, "game": "uth"', "config file: not valid JSON"),
    (b"\xff\xfe{}", "config file: not UTF-8 text"),
    ("", "config file: not valid JSON"),
    ("[1, 2]", "the top level must be an object, got [1, 2]"),
    ('"uth"', "the top level must be an object, got 'uth'"),
    (" " * 5000, "config file: 5000 characters (limit 4096)"),
    # a key given twice: json.loads would keep the last one without a word
    ('{"format": 1, "game": "uth",\n "table_max": 500, "table_max": 5000}',
     'config file: the key "table_max" is given twice in one object at line 2 column 20'),
    ('{"format": 1, "game": "uth", "jackpot": {"wager": 100, "main": {"reset": 5, "reset": 6}}}',
     'config file: the key "reset" is given twice in one object at line 1 column 77'),
    # required and unknown keys
    ('{"game": "uth"}', "config format: missing"),
    ('{"format": 1}', "config game: missing"),
    ('{"format": 2, "game": "uth"}', "config format: 2 is not 1"),
    ('{"format": true, "game": "uth"}', "config format: True is not 1"),
    ('{"format": 1, "game": "baccarat"}', "config game: 'baccarat' is not one of brs, fcp, uth"),
    ('{"format": 1, "game": "uth", "colour": "red"}', "config colour: unknown key (value 'red'"),
    (uth_file(rules={"dealer_peeks": True}),
     "config rules.dealer_peeks: unknown uth rule option (value True)"),
    (uth_file(rules={"trips_table": "trips_b"}), "config rules.trips_table: set it with paytables"),
    (uth_file(rules={"max_payout": 5}), "config rules.max_payout: set it with table_max"),
    (uth_file(rules={"jackpot_wager": 5}), "config rules.jackpot_wager: set it with jackpot.wager"),
    (uth_file(paytables={"aces_up": "aces_a"}), "config paytables.aces_up: not a pay-table bet of uth"),
    (uth_file(jackpot={"colour": 1}), "config jackpot.colour: unknown key (value 1)"),
    (uth_file(jackpot={"main": {"colour": 1}}), "config jackpot.main.colour: unknown pool parameter"),
    ('{"format": 1, "game": "fcp", "jackpot": {"wager": 100}}',
     "config jackpot: the Progressive Jackpot is a uth wager"),
    # wrong types
    (uth_file(rules="best5of7"), "config rules: 'best5of7' is not an object"),
    (uth_file(rules={"hand_rule": "nz"}),
     "config rules: option hand_rule must be one of hole2_board3, best5of7, got 'nz'"),
    (uth_file(rules={"hand_rule": 7}), "option hand_rule must be one of hole2_board3, best5of7, got 7"),
    # the Trips hand rule now reaches the table's results: a wrong one is refused, not ignored
    (uth_file(rules={"trips_hand_rule": "best7"}),
     "config rules: option trips_hand_rule must be one of hole2_board3, best5of7, got 'best7'"),
    (uth_file(rules={"cap_scope": "table"}), "option cap_scope must be one of hand, wager, got 'table'"),
    (uth_file(rules={"seats": 8}), "config rules.seats: 8 is not a seat count 1..7"),
    (uth_file(rules={"seats": True}), "config rules.seats: True is not a seat count"),
    (uth_file(paytables={"trips": "trips_z"}), "config paytables.trips: unknown pay table 'trips_z'"),
    (uth_file(paytables={"trips": "aces_a"}),
     "config paytables.trips: pay table aces_a pays the aces_up bet, not trips"),
    (uth_file(paytables={"trips": 3}), "config paytables.trips: unknown pay table 3"),
    (uth_file(table_max="lots"), "config table_max: 'lots' is not a payout in cents"),
    (uth_file(table_max=0), "config table_max: 0 is not a payout in cents >= 1"),
    (uth_file(table_max=2.5), "config table_max: 2.5 is not a whole number"),
    (uth_file(jackpot={"wager": "100"}), "config jackpot.wager: '100' is not an integer"),
    (uth_file(jackpot={"split": "no"}), "config jackpot.split: 'no' is not True or False"),
    (uth_file(jackpot={"main": {"rate": 0.7}}), "config jackpot.main.rate: 0.7 is not a whole number"),
    (uth_file(jackpot={"main": {"rate": [70, 3]}}), "config jackpot.main.rate: denominator 3"),
    (uth_file(jackpot={"main": {"reset": 2000000, "ceiling": 1000000}}),
     "config jackpot.main.ceiling: 1000000 is below"),
    (uth_file(board="Pico W"), "config board: 'Pico W' may only hold a-z, 0-9 and _"),
    ('{"format": 1, "game": "brs", "rules": {"raise_multiples": [0]}}', "option raise_multiples must be"),
    ('{"format": 1, "game": "fcp", "rules": {"blind_play": 1}}',
     "option blind_play must be True or False, got 1"),
    # huge numbers and structures
    (uth_file(table_max=10 ** 12), "config table_max: 1000000000000 is too large"),
    (uth_file(jackpot={"main": {"reset": 2 ** 30}}), "config jackpot.main.reset: 1073741824 is too large"),
    (uth_file(jackpot={"wager": -(10 ** 30)}),
     "config jackpot.wager: -1000000000000000000000000000000 is too large"),
    (uth_file(jackpot={"wager": 10 ** 60}),
     "config jackpot.wager: 1000000000000000000000000000000000000... is too large"),
    (uth_file(jackpot={"wager": 10 ** 5 + 1}), "config jackpot.wager: 100001 is not an integer in 1..100000"),
    ('{"format": 1, "game": "uth", "table_max": 1e400}', "config table_max: inf is not a whole number"),
    ('{"format": 1, "game": "uth", "table_max": NaN}',
     "config file: not valid JSON: expected a value at line 1 column 43"),
    ('{"format": 1, "game": "uth",}', "config file: not valid JSON: expected a key in double quotes"),
    ('{"format": 1 "game": "uth"}', "config file: not valid JSON: expected ',' or '}' at line 1 column 14"),
    ('{"format": 1,\n "jackpot": {"wager": 0200}}',
     "config file: not valid JSON: leading zero in a number at line 2 column 23"),
    ('{"format": 1, "rules": ' + "[" * 2000 + "]" * 2000 + "}",
     "config file: nested deeper than 4 levels at line 1 column 27"),
    (uth_file(board="x" * 65), "config board: text of 65 characters (limit 64)"),
    (uth_file(rules={"k%d" % i: 1 for i in range(33)}), "config rules: object of 33 keys (limit 32)"),
    (uth_file(rules={"raise_multiples": list(range(40))}), "config rules.raise_multiples: list of 40 items"),
    (uth_file(rules={"a": {"b": {"c": {"d": 1}}}}), "config file: nested deeper than 4 levels at line 1"),
    # the table would pay flushes all the same: an option it does not apply is refused
    (uth_file(rules={"jackpot_min_category": 6}),
     "config rules.jackpot_min_category: the table pays every jackpot hand of its pay table"),
    (uth_file(rules={"y" * 40: 1}), "config rules: key of 40 characters (limit 32)"),
])
def test_bad_files_are_refused_naming_key_and_value(text, message):
    with pytest.raises(cf.ConfigError) as error:
        cf.parse(text, board="pico_w")
    assert message in str(error.value)
    assert isinstance(error.value, ValueError)


def test_a_refused_file_builds_nothing_and_a_good_one_after_it_is_unaffected():
    with pytest.raises(cf.ConfigError):
        cf.parse(uth_file(paytables={"trips": "trips_b"}, jackpot={"wager": "x"}))
    assert cf.parse(uth_file()).paytables["trips"] == "trips_a"


# ---------------------------------------------------------------------- tools.config_check

def test_config_check_reports_an_invalid_file(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(uth_file(jackpot={"main": {"reset": 1.5}}))
    assert config_check.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID: config jackpot.main.reset: 1.5 is not a whole number" in out


def test_config_check_refuses_an_unknown_board(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(uth_file(board="arduino_uno"))
    assert config_check.main([str(path), "--no-math"]) == 1
    assert "'arduino_uno' is not a known board" in capsys.readouterr().out
    assert config_check.known_boards() == ["esp32_s3", "pico_w", "simulated"]


def test_config_check_unreadable_file(tmp_path, capsys):
    assert config_check.main([str(tmp_path / "missing.json")]) == 2


@pytest.mark.parametrize("option,value", [("--jobs", "0"), ("--trials", "-5")])
def test_config_check_refuses_a_count_below_one_before_any_work(option, value, capsys):
    with pytest.raises(SystemExit) as stop:
        config_check.main(["docs/table-config.fcp.example.json", option, value])
    assert stop.value.code == 2
    assert "%s must be 1 or more, got %s" % (option, value) in capsys.readouterr().err


def test_config_check_validates_and_summarises_without_math(capsys):
    assert config_check.main([str(EXAMPLE), "--no-math", "--board", "pico_w"]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "pay table trips: trips_a" in out and "reset 1000000 cents" in out


def test_config_check_says_a_linked_table_is_linked_and_where(tmp_path, capsys):
    # the link section is what a technician provisions: table number, broker, key file, Wi-Fi;
    # the file's pool lines are not the pool of a linked table, nor is a jackpot figure at them
    path = tmp_path / "linked.json"
    path.write_text(uth_file(link={"table": 3, "broker": "10.1.2.3", "wifi_ssid": "casino-iot",
                                   "wifi_password": "s3cret"}))
    assert config_check.main([str(path), "--no-math"]) == 0
    out = capsys.readouterr().out
    assert ("linked progressive: table 3, broker 10.1.2.3 port 1883, key file /link.key, "
            "Wi-Fi casino-iot\n    (the pool is the link controller's: the file's pool lines "
            "are not used)\n") in out
    assert "s3cret" not in out
    table = cf.parse(path.read_text())
    picks, notes = config_check.selections(table)
    assert config_check.JACKPOT_BET not in [p[0] for p in picks]
    assert any("link controller" in note for note in notes)


def test_config_check_prints_the_math_of_the_selected_presets(capsys):
    assert config_check.main([str(FCP_EXAMPLE), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    rows = run.compute(games=["fcp"], presets=["aces_b", "ante_bonus_a"], jobs=1)
    edge = "%.4f%%" % (100 * [r for r in rows if r["paytable"] == "aces_b"][0]["house_edge"])
    assert "aces_b" in out and edge in out and "ante_bonus_a" in out
    assert "aces_a" not in out            # only what the file selects


def test_config_check_selects_uth_presets_under_the_files_hand_rules():
    table = cf.parse(uth_file(rules={"hand_rule": "best5of7", "trips_hand_rule": "hole2_board3"},
                              paytables={"trips": "trips_b"}, jackpot={"wager": 500}))
    picks, notes = config_check.selections(table)
    assert picks == [("trips", "trips_b", "hole2_board3"), ("blind", "blind_a", "best5of7"),
                     ("jackpot", None, None)]
    assert notes == []
    changed = cf.parse(uth_file(jackpot={"pay": {"flush": [50, 0]}}))
    picks, notes = config_check.selections(changed)
    assert [p[0] for p in picks] == ["trips", "blind"] and "changes the rules.md 11.9" in notes[0]
    envy = cf.parse(uth_file(jackpot={"envy": {"royal_flush": 50000}}))
    picks, notes = config_check.selections(envy)
    assert [p[0] for p in picks] == ["trips", "blind"] and "envy bonus" in notes[0]
    assert "  envy bonus: royal_flush 50000 cents" in config_check.summary(envy)


def test_config_check_jackpot_row_uses_the_files_wager_and_reset(monkeypatch):
    table = cf.parse(uth_file(jackpot={"wager": 200, "main": {"reset": 2500000}}))
    # Trips and Blind take a minute: compute only the jackpot selection here.
    monkeypatch.setattr(config_check, "selections", lambda t: ([("jackpot", None, None)], []))
    rows, _ = config_check.math_rows(table, jobs=1)
    assert [(r["wager_cents"], r["pool_cents"]) for r in rows] == [(200, None), (200, 2500000)]
    # Five-card hand counts (royal 4, straight flush 36, quads 624, full house 3,744, flush
    # 5,108 of 2,598,960: the standard table, e.g. Wikipedia "Poker probability").  With a
    # 200-cent wager and a 2,500,000-cent pool the royal pays 100% of the pool = 12,500 to 1
    # and the straight flush 10% = 1,250 to 1 [rules.md 11.9]; the wager is not returned.
    fixed = Fraction(4 * 10000 + 36 * 1000 + 624 * 500 + 3744 * 150 + 5108 * 100, 2598960)
    at_pool = Fraction(4 * 12500 + 36 * 1250 + 624 * 500 + 3744 * 150 + 5108 * 100, 2598960)
    assert Fraction(rows[0]["return_exact"]) == fixed
    assert Fraction(rows[1]["return_exact"]) == at_pool
