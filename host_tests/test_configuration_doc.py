"""docs/configuration.md lists the configuration file's keys, each game's rule options and
pay-table presets: checked against firmware/config_file.py and the games' own options."""

import re

from firmware import config_file as cf
from firmware.poker import paytables
from host_tests.runtimes import ROOT

DOC = (ROOT / "docs" / "configuration.md").read_text()


def rows_after(marker):
    lines = DOC.split(marker, 1)[1].splitlines()
    first = [i for i, line in enumerate(lines) if line.startswith("|")][0]
    out = []
    for line in lines[first + 2:]:   # after the header and the separator
        if not line.startswith("|"):
            break
        out.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return out


def test_top_level_and_link_keys():
    documented = [row[0].strip("`") for row in rows_after("## Keys")]
    assert documented + ["link"] == list(cf.TOP_KEYS)
    link = DOC.split("`link`: a linked progressive table", 1)[1].split(". Its keys", 1)[0]
    assert re.findall(r"`(\w+)`", link) == list(cf.LINK_KEYS)


def test_rule_options_of_each_game():
    rows = {row[0]: set(re.findall(r"^`(\w+)`|[,(] ?`(\w+)` \(", row[1])) for row in
            rows_after("`rules` options, by game")}
    common = {name for pair in rows.pop("all") for name in pair if name}
    for game, options in cf.GAMES.items():
        documented = common | {name for pair in rows[game] for name in pair if name}
        assert documented == set(options.DEFAULTS) - set(cf.ELSEWHERE), game


def test_paytable_presets_of_each_bet():
    documented = {}
    for game, bet, presets in rows_after("`paytables` bets and presets"):
        names = re.findall(r"`(\w+)`", presets)
        documented[(game, bet.strip("`"))] = names
        default = [n for n in names if "`%s` (default)" % n in presets] or names
        assert default[0] == paytables.DEFAULTS[bet.strip("`")]
    code = {}
    for game, bets in cf.PAYTABLE_OPTIONS.items():
        for bet in bets:
            code[(game, bet)] = [name for name, spec in paytables._PRESETS.items() if spec[0] == bet]
    assert documented == code
