# The configuration file loader (firmware/config_file.py) on both runtimes: the example file
# is accepted with the options it names, and each kind of bad file (wrong type, unknown key,
# huge number, float, truncated JSON, wrong board, bad preset) is refused with a message
# naming the key and the value.
from firmware import config_file as cf
from host_tests.scenario_support import Checker

checker = Checker(30)
check = checker.check

with open("docs/table-config.example.json") as f:
    example = f.read()
table = cf.parse(example, "pico_w")
check("game", table.game, "uth")
check("hand rule", table.options.hand_rule, "hole2_board3")
check("trips preset", table.options.trips.name, "trips_a")
check("table max", table.table_max, 1000000)
check("jackpot wager", (table.jackpot.wager, table.options.jackpot_wager), (100, 100))
check("pool reset", table.jackpot.pools[0].reset, 1000000)

HEAD = '{"format": 1, "game": "uth", '
BAD = [
    ("wrong type", HEAD + '"jackpot": {"wager": "100"}}', "config jackpot.wager: '100'"),
    ("float", HEAD + '"table_max": 2.5}', "config table_max: 2.5 is not a whole number"),
    ("huge", HEAD + '"table_max": 123456789012345678901234567890}', "config table_max: 1234567890"),
    ("unknown key", HEAD + '"colour": "red"}', "config colour: unknown key"),
    ("unknown rule", HEAD + '"rules": {"peek": true}}', "config rules.peek: unknown uth rule"),
    ("bad rule value", HEAD + '"rules": {"hand_rule": "nz"}}', "option hand_rule must be one of"),
    ("bad preset", HEAD + '"paytables": {"trips": "aces_a"}}', "config paytables.trips: pay table aces_a"),
    ("wrong board", HEAD + '"board": "esp32_s3"}', "config board: 'esp32_s3' was written for another"),
    ("truncated", HEAD + '"jackpot": {"wager": 1', "config file: not valid JSON"),
    ("binary", b"\x00\x01\xfe\xff", "config file: not UTF-8 text"),
    ("control bytes", b"\x00\x01\x02", "config file: not valid JSON"),
    ("seats", HEAD + '"rules": {"seats": 12}}', "config rules.seats: 12 is not a seat count 1..7"),
    ("pool rate", HEAD + '"jackpot": {"main": {"rate": [3, 7]}}}', "config jackpot.main.rate: denominator 7"),
    ("deep", HEAD + '"rules": {"a": {"b": {"c": {"d": 0}}}}}', "nested deeper than 4 levels"),
]
for label, text, words in BAD:
    try:
        cf.parse(text, "pico_w")
        check(label, "accepted", "refused")
    except cf.ConfigError as error:
        message = str(error)
        if message.startswith("config file: not valid JSON"):
            message = "config file: not valid JSON"   # the parsers' own wording differs
        check(label, words in message, True)
        print("   ", message[:76])
checker.finish()
