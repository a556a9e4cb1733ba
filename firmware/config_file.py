"""The table's configuration file: game, rule options, pay-table presets, jackpot, table maximum.

A JSON object (docs/configuration.md, example in docs/table-config.example.json)::

    {"format": 1,                       required, this module's format number
     "game": "uth",                     required: "uth", "fcp" or "brs"
     "board": "pico_w",                 optional: the board it was written for
     "table_max": 500000,               optional: maximum payout per hand in cents (null: none)
     "rules": {"hand_rule": "hole2_board3", ...},      the game's rule options
     "paytables": {"trips": "trips_a", "blind": "blind_a"},   preset per pay-table bet
     "jackpot": {"wager": 100, "main": {"rate": [70, 100], "reset": 1000000}, ...},  UTH only
     "link": {"table": 3, "broker": "10.1.2.3", "port": 1883, "key_file": "/link.key",
              "wifi_ssid": "casino-iot", "wifi_password": "..."}}   linked progressive, UTH only

Validation reuses the firmware's own validators: the game's ``Config`` (firmware.poker.uth,
fcp, brs) for the rule options, ``paytables.check_bet`` for the presets and
``firmware.jackpot.config.build`` for the jackpot keys.  Before them, the whole tree is checked
for size and type: no floats, no integer beyond +-_MAX_INT, bounded text, lists, objects and
depth.  Every error is a ``ConfigError`` (a ValueError) whose message names the key and the
value, and nothing is built from a file that has one.

    table = parse(text, board="pico_w")   # TableConfig, or ConfigError
    table = load("/config.json", board)   # the same from a file
    table.jackpot                         # firmware.jackpot.config.Config (None unless UTH)
    table.options                         # the game's Config (rule options, presets, table max)
    table.link                            # LinkConfig of a linked table, or None (standalone)
"""

import json

from firmware import jsoncheck
from firmware.compat import const
from firmware.jackpot import config as jcfg
from firmware.jackpot import pools
from firmware.poker import brs, fcp, paytables, uth

_FORMAT = const(1)
_MAX_FILE_BYTES = const(4096)
_MAX_INT = const(0x3FFFFFFF)       # integers stay small ints on 32-bit ports
_MAX_TEXT = const(64)
_MAX_KEY = const(32)
_MAX_ITEMS = const(32)             # keys of one object, items of one list
_MAX_DEPTH = jsoncheck.MAX_DEPTH

TOP_KEYS = ("format", "game", "board", "table_max", "rules", "paytables", "jackpot", "link")
LINK_KEYS = ("enabled", "table", "broker", "port", "key_file", "wifi_ssid", "wifi_password",
             "ntp_server")
LINK_REQUIRED = ("table", "broker")
_MAX_LINK_TABLE = const(9999)      # firmware.link.codec.MAX_TABLE
_DEFAULT_LINK_PORT = const(1883)
DEFAULT_KEY_FILE = "/link.key"
REQUIRED = ("format", "game")
GAMES = {uth.GAME: uth.Config, fcp.GAME: fcp.Config, brs.GAME: brs.Config}

# Pay-table bet of each game -> the game option holding its preset.
PAYTABLE_OPTIONS = {
    uth.GAME: {paytables.BET_BLIND: "blind_table", paytables.BET_TRIPS: "trips_table"},
    fcp.GAME: {paytables.BET_ANTE_BONUS: "ante_bonus_table", paytables.BET_ACES_UP: "aces_up_table"},
    brs.GAME: {paytables.BET_RISK_RAISE: "risk_raise_table", paytables.BET_EXTRA: "extra_table"},
}
# Game options the file sets under another key (the key that sets them instead).
ELSEWHERE = {"max_payout": "table_max", "jackpot_wager": "jackpot.wager",
             "blind_table": "paytables", "trips_table": "paytables",
             "ante_bonus_table": "paytables", "aces_up_table": "paytables",
             "risk_raise_table": "paytables", "extra_table": "paytables"}

_NAME_CHARS = const("abcdefghijklmnopqrstuvwxyz0123456789_")
_BOM = const("\ufeff")             # what some editors put before the text of a UTF-8 file


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key and the value."""


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_tree(path, value, depth):
    """Size and type checks of every value, before any meaning is read."""
    where = path or "(top level)"
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if value > _MAX_INT or value < -_MAX_INT:
            raise ConfigError("config %s: %s is too large (limit +-%d)" % (where, _short(value), _MAX_INT))
        return
    if isinstance(value, float):
        raise ConfigError("config %s: %r is not a whole number (no fractions: cents and "
                          "integer odds only)" % (where, value))
    if isinstance(value, str):
        if len(value) > _MAX_TEXT:
            raise ConfigError("config %s: text of %d characters (limit %d): %s"
                              % (where, len(value), _MAX_TEXT, _short(value)))
        return
    if depth >= _MAX_DEPTH:
        raise ConfigError("config %s: nested deeper than %d levels: %s" % (where, _MAX_DEPTH, _short(value)))
    if isinstance(value, list):
        if len(value) > _MAX_ITEMS:
            raise ConfigError("config %s: list of %d items (limit %d)" % (where, len(value), _MAX_ITEMS))
        for i in range(len(value)):
            _check_tree("%s[%d]" % (where, i), value[i], depth + 1)
        return
    if isinstance(value, dict):
        if len(value) > _MAX_ITEMS:
            raise ConfigError("config %s: object of %d keys (limit %d)" % (where, len(value), _MAX_ITEMS))
        for key in value:
            if len(key) > _MAX_KEY:
                raise ConfigError("config %s: key of %d characters (limit %d): %s"
                                  % (where, len(key), _MAX_KEY, _short(key)))
            _check_tree(key if not path else path + "." + key, value[key], depth + 1)
        return
    raise ConfigError("config %s: unexpected value %s" % (where, _short(value)))


def _object(key, value):
    if not isinstance(value, dict):
        raise ConfigError("config %s: %s is not an object" % (key, _short(value)))
    return value


def _name(key, value):
    if not isinstance(value, str) or not value:
        raise ConfigError("config %s: %s is not a name" % (key, _short(value)))
    for ch in value:
        if ch not in _NAME_CHARS:
            raise ConfigError("config %s: %s may only hold a-z, 0-9 and _" % (key, _short(value)))
    return value


class LinkConfig:
    """The "link" section: this table's number on the link, the MQTT broker (host, port), the
    file holding the table's link key, the Wi-Fi network to join and the NTP server (None:
    ntptime's, pool.ntp.org)."""

    def __init__(self, table, broker, port, key_file, wifi_ssid, wifi_password, ntp_server=None):
        self.table = table
        self.broker = broker
        self.port = port
        self.key_file = key_file
        self.wifi_ssid = wifi_ssid
        self.wifi_password = wifi_password
        self.ntp_server = ntp_server


def _int_in(key, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError("config %s: %s is not a whole number %d..%d" % (key, _short(value), low, high))
    return value


def _text(key, value, allow_empty=False):
    if not isinstance(value, str) or (not value and not allow_empty):
        raise ConfigError("config %s: %s is not text" % (key, _short(value)))
    for ch in value:
        if ord(ch) < 0x20 or ord(ch) > 0x7E:
            raise ConfigError("config %s: %s holds a character that is not printable ASCII"
                              % (key, _short(value)))
    return value


def _link(game, data):
    """The LinkConfig of a "link" section, or None when it is absent or disabled."""
    section = _object("link", data)
    for key in section:
        if key not in LINK_KEYS:
            raise ConfigError("config link.%s: unknown key (value %s; known: %s)"
                              % (key, _short(section[key]), ", ".join(LINK_KEYS)))
    enabled = section.get("enabled", True)
    if enabled is not True and enabled is not False:
        raise ConfigError("config link.enabled: %s is not true or false" % _short(enabled))
    if not enabled:
        # switched off, it is still checked: turning it on must not reveal a bad value
        _link_values(section, False)
        return None
    if game != uth.GAME:
        raise ConfigError("config link: the linked progressive is a %s jackpot, this table plays %s"
                          % (uth.GAME, game))
    return LinkConfig(*_link_values(section, True))


def _link_values(section, required):
    """(table, broker, port, key_file, ssid, password, ntp_server) of a link section; a value
    missing is an error when `required` (else the first two may be None)."""
    if required:
        for key in LINK_REQUIRED:
            if key not in section:
                raise ConfigError("config link.%s: missing (required: %s)"
                                  % (key, ", ".join(LINK_REQUIRED)))
    table = broker = None
    if "table" in section:
        table = _int_in("link.table", section["table"], 1, _MAX_LINK_TABLE)
    if "broker" in section:
        broker = _text("link.broker", section["broker"])
    ntp = None
    if "ntp_server" in section:
        ntp = _text("link.ntp_server", section["ntp_server"])
    for key, host in (("broker", broker), ("ntp_server", ntp)):
        # (the loop's NTP client puts each label of the name in a DNS query: 1-63 characters)
        if host is not None and (" " in host or (key == "ntp_server" and [
                1 for label in host[:-1 if host.endswith(".") else None].split(".")
                if not 0 < len(label) < 64])):
            raise ConfigError("config link.%s: %s is not a host name or address" % (key, _short(host)))
    port = _int_in("link.port", section.get("port", _DEFAULT_LINK_PORT), 1, 65535)
    key_file = _text("link.key_file", section.get("key_file", DEFAULT_KEY_FILE))
    if not key_file.startswith("/"):
        raise ConfigError("config link.key_file: %s is not an absolute path" % _short(key_file))
    ssid = _text("link.wifi_ssid", section.get("wifi_ssid", ""), True)
    password = _text("link.wifi_password", section.get("wifi_password", ""), True)
    return table, broker, port, key_file, ssid, password, ntp


class TableConfig:
    """A validated configuration file (see the module docstring)."""

    def __init__(self, game, board, options, paytable_names, jackpot, jackpot_changes, data,
                 link=None):
        self.format = _FORMAT
        self.game = game
        self.board = board
        self.options = options              # uth.Config / fcp.Config / brs.Config
        self.paytables = paytable_names     # {bet: preset name}, every bet of the game
        self.jackpot = jackpot              # jcfg.Config, or None for FCP and BRS
        self.jackpot_changes = jackpot_changes
        self.data = data                    # the file's object as read
        self.link = link                    # LinkConfig (linked table) or None

    @property
    def table_max(self):
        """Maximum payout per hand in cents, or None."""
        return self.options.max_payout

    def controller_args(self):
        """Keyword arguments for firmware.table.controller.RoundController: the game, its
        seats and jackpot configuration (None but at UTH), UTH's hand rule (and trips_rule, the
        Trips hand rule where it is the other one), and aces_up_alone=False for a Four Card
        Poker table that refuses cards to a seat without an Ante (rules.aces_up_alone false)."""
        options = self.options
        args = {"jackpot_config": self.jackpot, "game": self.game, "seats": options.seats}
        hand_rule = getattr(options, "hand_rule", None)     # UTH's only
        if hand_rule is not None:
            args["hand_rule"] = hand_rule
            if options.trips_hand_rule not in (None, hand_rule):
                args["trips_rule"] = options.trips_hand_rule
        if getattr(options, "aces_up_alone", True) is False:   # FCP's only
            args["aces_up_alone"] = False
        return args


def parse(text, board=None):
    """Validate a configuration file's text (str or bytes); ConfigError names the first problem.

    board: the running board's name; a file written for another board is refused."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > _MAX_FILE_BYTES:
            raise ConfigError("config file: %d bytes (limit %d)" % (len(text), _MAX_FILE_BYTES))
        try:
            text = str(text, "utf-8")
        except (UnicodeError, ValueError):
            raise ConfigError("config file: not UTF-8 text") from None
    if not isinstance(text, str):
        raise ConfigError("config file: expected text, got %s" % type(text).__name__)
    if text.startswith(_BOM):
        text = text[1:]     # an editor's UTF-8 byte order mark is not content (RFC 8259 8.1)
    if len(text) > _MAX_FILE_BYTES:
        raise ConfigError("config file: %d characters (limit %d)" % (len(text), _MAX_FILE_BYTES))
    try:
        # strict, and the same verdict on both runtimes; json.loads then never recurses deep
        jsoncheck.check(text, _MAX_DEPTH, True)
        data = json.loads(text)
    except ValueError as error:
        raise ConfigError("config file: %s" % error) from None
    return build(data, board)


def build(data, board=None):
    """Validate an already decoded configuration object (see parse)."""
    if not isinstance(data, dict):
        raise ConfigError("config file: the top level must be an object, got %s" % _short(data))
    _check_tree("", data, 0)
    for key in data:
        if key not in TOP_KEYS:
            raise ConfigError("config %s: unknown key (value %s; known: %s)"
                              % (key, _short(data[key]), ", ".join(TOP_KEYS)))
    for key in REQUIRED:
        if key not in data:
            raise ConfigError("config %s: missing (required: %s)" % (key, ", ".join(REQUIRED)))
    if data["format"] != _FORMAT or isinstance(data["format"], bool):
        raise ConfigError("config format: %s is not %d (this firmware reads format %d)"
                          % (_short(data["format"]), _FORMAT, _FORMAT))
    game = data["game"]
    if not isinstance(game, str) or game not in GAMES:
        raise ConfigError("config game: %s is not one of %s" % (_short(game), ", ".join(sorted(GAMES))))
    file_board = None
    if "board" in data:
        file_board = _name("board", data["board"])
        if board is not None and file_board != board:
            raise ConfigError("config board: %s was written for another board (this is %r)"
                              % (_short(file_board), board))
    options = {}
    rules = _object("rules", data.get("rules", {}))
    known = GAMES[game].DEFAULTS
    for key in rules:
        if key in ELSEWHERE:
            raise ConfigError("config rules.%s: set it with %s, not rules (value %s)"
                              % (key, ELSEWHERE[key], _short(rules[key])))
        if key not in known:
            raise ConfigError("config rules.%s: unknown %s rule option (value %s)"
                              % (key, game, _short(rules[key])))
        options[key] = rules[key]
    if game == "uth" and rules.get("jackpot_min_category", known["jackpot_min_category"]) != \
            known["jackpot_min_category"]:
        # the table pays the jackpot's own hands (rules 11.9: flush and up, jackpot.pay); an
        # option it would not apply must not pass for one it does
        raise ConfigError("config rules.jackpot_min_category: the table pays every jackpot hand "
                          "of its pay table, flush and up (rules 11.9, jackpot.pay); only the "
                          "default is accepted (value %s)" % _short(rules["jackpot_min_category"]))
    if "seats" in rules:
        seats = rules["seats"]
        if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= pools.MAX_SEATS:
            raise ConfigError("config rules.seats: %s is not a seat count 1..%d"
                              % (_short(seats), pools.MAX_SEATS))
    names = {}
    chosen = _object("paytables", data.get("paytables", {}))
    for bet in chosen:
        if bet not in PAYTABLE_OPTIONS[game]:
            raise ConfigError("config paytables.%s: not a pay-table bet of %s (value %s; bets: %s)"
                              % (bet, game, _short(chosen[bet]), ", ".join(sorted(PAYTABLE_OPTIONS[game]))))
        try:
            paytables.check_bet(chosen[bet], bet)
        except ValueError as error:
            raise ConfigError("config paytables.%s: %s" % (bet, error)) from None
    for bet in PAYTABLE_OPTIONS[game]:
        names[bet] = chosen.get(bet, paytables.DEFAULTS[bet])
        options[PAYTABLE_OPTIONS[game][bet]] = names[bet]
    table_max = data.get("table_max")
    if table_max is not None:
        if isinstance(table_max, bool) or not isinstance(table_max, int) or table_max < 1:
            raise ConfigError("config table_max: %s is not a payout in cents >= 1 (or null)"
                              % _short(table_max))
        options["max_payout"] = table_max
    jackpot = None
    changes = {}
    if "jackpot" in data:
        if game != uth.GAME:
            raise ConfigError("config jackpot: the Progressive Jackpot is a %s wager, this table "
                              "plays %s (value %s)" % (uth.GAME, game, _short(data["jackpot"])))
        changes = _object("jackpot", data["jackpot"])
    if game == uth.GAME:
        try:
            jackpot = jcfg.build(changes)
        except ValueError as error:
            text = str(error)
            if text.startswith("config "):
                text = text[len("config "):]
            raise ConfigError("config jackpot.%s" % text) from None
        options["jackpot_wager"] = jackpot.wager
    try:
        game_config = GAMES[game](**options)
    except ValueError as error:
        raise ConfigError("config rules: %s" % error) from None
    link = _link(game, data["link"]) if "link" in data else None
    if link is not None and jackpot.envy_paid():
        # the link controller pays a linked table's hits out of the shared pool
        raise ConfigError("config jackpot.envy: the envy bonus is a standalone table's option; "
                          "a linked table's jackpot is paid by the link controller (value %s)"
                          % _short(changes["envy"]))
    if link is not None and jackpot.shortfall:
        # the link controller pays a linked table's hits in full (shortfall "operator")
        raise ConfigError("config jackpot.shortfall: %s is a standalone table's option; a linked "
                          "table's jackpot is paid in full by the link controller"
                          % _short(changes["shortfall"]))
    return TableConfig(game, file_board, game_config, names, jackpot, changes, data, link)


def load(path, board=None):
    """Read and validate the configuration file at `path` (see parse).  OSError if unreadable."""
    with open(path, "rb") as f:
        data = f.read(_MAX_FILE_BYTES + 1)
        if len(data) > _MAX_FILE_BYTES:
            # the file's whole size, as parse() of all of it says (tools.config_check)
            raise ConfigError("config file: %d bytes (limit %d)" % (f.seek(0, 2), _MAX_FILE_BYTES))
    return parse(data, board)
