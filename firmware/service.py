"""The service protocol: meters, hits, event log, program check and configuration over a stream.

A technician's tool (``tools/audit.py``) or a terminal sends one command per line (ASCII,
ending in ``\\n``, ``\\r\\n`` or ``\\r``: whatever a terminal's Enter sends) and gets
exactly one reply line: a JSON object with ``"ok": true`` and the data, or ``"ok": false``
with ``"error"`` (a sentence) and ``"code"`` (a word).  docs/service-protocol.md is the
reference.  Commands::

    help                         the command list
    status                       phase, round, key switch, memory, log and program state
    meters                       every pool meter, the table meters, the books' audit
    hits                         the last 25 jackpot hits, oldest first
    log [START [COUNT]]          event log entries from START (default the oldest held)
    program                      the boot-time program verification: result and digest
    config                       the game and seats; UTH: the jackpot configuration in force
    config_set {JSON}            change jackpot configuration keys (firmware.jackpot.config)
    ram_clear                    start a RAM clear (the table shows the reset values)
    ram_clear accept             accept the reset values: the RAM clear happens
    clock_set YYYY-MM-DDThh:mm:ss   set the table's clock (UTC): its times known again

Commands that change state (``config_set``, ``ram_clear``, ``clock_set``) need the
supervisor: the key switch on, as the controller knows it, and the table between rounds
(``ram_clear`` only from RAM ERROR, like the panel).  Every change goes through the
controller's own rules and critical memory; a refused command changes nothing.

Input is hostile until proven otherwise: a line longer than MAX_LINE, a byte outside
printable ASCII, a line left unfinished for LINE_TIMEOUT_MS, bad JSON, wrong types, unknown
keys or huge numbers get an error reply and change nothing.  The line buffer is allocated
once; ``poll`` allocates nothing when no byte has arrived.

    service = Service(controller, port)   # port: any(), readinto(buf), write(bytes)
    service.poll(now_ms)                  # each loop pass: read what arrived, answer lines
    reply = service.handle("meters")      # one command as text -> reply dict (tests, sim)
"""

import json

from firmware import jsoncheck
from firmware.compat import const
from firmware.console import ConsolePort  # noqa: F401  (the board's port; re-exported)
from firmware.drivers import buttons as btn
from firmware.drivers.ticks import ticks_diff
from firmware.heap import NotLoaded
from firmware.jackpot import config as jcfg
from firmware.jackpot import meters as jm
from firmware.store import eventlog as ev
from firmware.table import controller as tc

PROTOCOL = const(1)
MAX_LINE = const(1024)          # bytes in one command line, newline excluded
READ_CHUNK = const(64)          # bytes taken from the port per poll
LINE_TIMEOUT_MS = const(2000)   # an unfinished line older than this is dropped
LOG_PAGE = const(32)            # most log entries in one reply
# a pass answers no further line once its replies reach this many bytes (the rest wait in the
# read buffer): a write to a 115,200-baud console blocks, and the loop feeds a 2 s watchdog.
# Nor after a line that committed critical memory (a FRAM write and a flash sector erase,
# about 110 ms on the reference board)
PASS_REPLY_BYTES = const(1024)
_MAX_NUMBER_DIGITS = const(10)
SETTING_BASE = jcfg.SETTING_BASE   # CONFIG_CHANGE setting id of a service change: 100 + key index

_NEWLINE = const(10)
_RETURN = const(13)
_TAB = const(9)
_SPACE = const(32)
_TILDE = const(126)

# Error codes.
BAD_LINE = "bad-line"
UNKNOWN = "unknown-command"
BAD_ARGUMENT = "bad-argument"
NOT_AUTHORISED = "not-authorised"
NOT_NOW = "not-between-rounds"
REFUSED = "refused"
RAM_ERROR = "ram-error"
NO_JACKPOT = "no-jackpot"
STORE_FAILED = "store-failed"
INTERNAL = "internal"

# The reply to a line when the heap has no room to answer it (made at import, as bytes)
NO_HEAP_REPLY = (b'{"ok": false, "cmd": null, "code": "internal", "error": "no heap left to answer '
                 b'the line (a command that changes something may have run: ask status); the '
                 b'table plays on"}\n')

# Phases in which the table is between rounds (the supervisor menus open from OPEN).
_BETWEEN_ROUNDS = (tc.OPEN, tc.AUDIT, tc.CONFIG, tc.TEST)

# What the "program" reply copies from the boot check's facts (firmware.startup.program_facts).
PROGRAM_FACTS = ("reason", "detail", "path", "authenticated", "board", "build_id")
COMMANDS = ("help", "status", "meters", "hits", "log", "program", "config", "config_set",
            "ram_clear", "clock_set")
HELP = ("help", "status", "meters", "hits", "log [START [COUNT]]", "program", "config",
        "config_set {JSON}", "ram_clear", "ram_clear accept", "clock_set YYYY-MM-DDThh:mm:ss")
_UTC = "dddd-dd-ddTdd:dd:dd"    # clock_set's time, a digit standing for each d


def _error(cmd, code, text):
    return {"ok": False, "cmd": cmd, "code": code, "error": text}


def _hex(data):
    out = ""
    for b in data:
        out += "%02x" % b
    return out


def _number(text, what):
    """A decimal argument as int, or ValueError naming it (digits only, at most 10)."""
    if not text or len(text) > _MAX_NUMBER_DIGITS:
        raise ValueError("%s %r is not a number of 1..%d digits" % (what, text, _MAX_NUMBER_DIGITS))
    for ch in text:
        if ch < "0" or ch > "9":
            raise ValueError("%s %r is not a whole number" % (what, text))
    return int(text)


class Service:
    """The service protocol on one port, for one RoundController (see the module docstring)."""

    def __init__(self, controller, port=None, program=None, shoe=None):
        self.controller = controller
        self.port = port
        self.program = program          # startup.program_facts() of the boot check, when there was one
        self.shoe = shoe                # the card shoe's driver: its last rejected line, for status
        self._line = bytearray(MAX_LINE)
        self._chunk = bytearray(READ_CHUNK)
        self._have = 0                  # bytes read into _chunk; _next: the first not taken yet
        self._next = 0
        self._sent = 0                  # reply bytes written in this pass
        self._length = 0
        self._overflow = False
        self._bad_byte = -1
        self._bad_at = 0
        self._last_byte = 0
        self._after_return = False      # the last byte ended a line with CR: an LF now is its pair
        self.now_ms = 0
        self.lines = 0                  # lines answered
        self.rejected = 0               # lines answered with an error

    # ------------------------------------------------------------------ bytes in

    def poll(self, now_ms):
        """Take what arrived on the port and answer every complete line.  Allocates nothing
        when nothing arrived."""
        self.now_ms = now_ms
        port = self.port
        if port is None:
            return
        taken = 0
        self._sent = 0
        memory = self.controller.memory
        seq = memory.seq
        while self._sent < PASS_REPLY_BYTES and memory.seq == seq:
            if self._next >= self._have:
                if taken >= READ_CHUNK or not port.any():
                    break
                self._have = port.readinto(self._chunk) or 0
                self._next = 0
                if not self._have:
                    break
                taken += self._have
            self._byte(self._chunk[self._next], now_ms)
            self._next += 1
        if self._length or self._overflow or self._bad_byte >= 0:
            if ticks_diff(now_ms, self._last_byte) >= LINE_TIMEOUT_MS:
                self._reset_line()
                try:
                    self._send(_error(None, BAD_LINE, "incomplete line dropped after %d ms "
                                      "without a newline" % LINE_TIMEOUT_MS))
                except MemoryError:
                    self._no_heap()

    def feed(self, data, now_ms=None):
        """Take bytes as if they arrived on the port (tests and the simulator)."""
        if now_ms is None:
            now_ms = self.now_ms
        for i in range(len(data)):
            self._byte(data[i], now_ms)

    def _reset_line(self):
        self._length = 0
        self._overflow = False
        self._bad_byte = -1

    def _byte(self, b, now_ms):
        # the timeout counts from the last byte: a person typing a command by hand is slow
        self._last_byte = now_ms
        # Enter is CR (PuTTY, minicom, screen), LF (mpremote) or CR LF: each ends one line
        after_return = self._after_return
        self._after_return = b == _RETURN
        if b == _NEWLINE or b == _RETURN:
            if not (b == _NEWLINE and after_return):
                self._end_line()
            return
        if (b < _SPACE and b != _TAB) or b > _TILDE:
            if self._bad_byte < 0:
                self._bad_byte = b
                self._bad_at = self._length + 1
            return
        if self._length >= MAX_LINE:
            self._overflow = True
            return
        self._line[self._length] = b
        self._length += 1

    def _end_line(self):
        try:
            if self._overflow:
                reply = _error(None, BAD_LINE, "line longer than %d bytes: ignored" % MAX_LINE)
            elif self._bad_byte >= 0:
                reply = _error(None, BAD_LINE, "byte 0x%02x at column %d is not printable ASCII: "
                               "line ignored" % (self._bad_byte, self._bad_at))
            else:
                reply = self.handle(str(self._line[:self._length], "ascii"))
            self._reset_line()
            self._send(reply)
        except MemoryError:
            # a full heap: the loop must go on (the watchdog, a round in play), never stop here
            self._reset_line()
            self._no_heap()

    def _no_heap(self):
        """The reply, made before the heap filled, to a line the heap had no room to answer."""
        self.lines += 1
        self.rejected += 1
        if self.port is not None:
            self._sent += len(NO_HEAP_REPLY)
            self.port.write(NO_HEAP_REPLY)

    def _send(self, reply):
        self.lines += 1
        if not reply.get("ok"):
            self.rejected += 1
        if self.port is not None:
            text = json.dumps(reply) + "\n"
            data = text.encode()
            if len(data) != len(text):
                # MicroPython's json.dumps writes a character beyond ASCII as it is (a key
                # given as "\u00e9" named back; a lone surrogate as bytes no decoder takes):
                # a reply stays ASCII, as CPython's is
                data = bytes([b if b < 128 else 63 for b in data])
            self._sent += len(data)
            self.port.write(data)

    # ------------------------------------------------------------------ commands

    def handle(self, text):
        """Answer one command line (text without the newline): the reply as a dict."""
        words = text.split(None, 1)     # any run of spaces and tabs separates words
        if not words:
            return _error(None, BAD_LINE, "empty line: send a command (try help)")
        cmd = words[0]
        rest = words[1].strip() if len(words) > 1 else ""
        if cmd not in COMMANDS:
            return _error(None, UNKNOWN, "unknown command %r (commands: %s)"
                          % (cmd[:32], ", ".join(COMMANDS)))
        try:
            return _HANDLERS[COMMANDS.index(cmd)](self, cmd, rest)
        except ValueError as error:
            return _error(cmd, BAD_ARGUMENT, "%s: %s" % (cmd, error))
        except Exception as error:  # noqa: BLE001 - a reply, never a dead main loop
            return _error(cmd, INTERNAL, "%s failed: %s %s" % (cmd, type(error).__name__, error))

    def _no_args(self, cmd, rest):
        if rest:
            raise ValueError("takes no arguments, got %r" % rest[:32])

    def _jackpot(self, cmd):
        if self.controller.jackpot is None:
            return _error(cmd, RAM_ERROR, "RAM ERROR: no meters or configuration until a RAM "
                          "clear (%s)" % self.controller.memory.ram_error_reason)
        return None

    def _help(self, cmd, rest):
        self._no_args(cmd, rest)
        return {"ok": True, "cmd": cmd, "protocol": PROTOCOL, "commands": list(HELP),
                "max_line": MAX_LINE}

    def _status(self, cmd, rest):
        self._no_args(cmd, rest)
        c = self.controller
        log = c.memory.log
        config_ok, config_text = c.config_state()
        return {"ok": True, "cmd": cmd, "protocol": PROTOCOL, "phase": tc.PHASE_NAMES[c.phase],
                "round": c.rec.round_no, "game": c.game, "key_on": c.key_on, "door_open": c.door_open,
                "jackpot_open": c.jackpot_open(), "memory": c.memory.status,
                "memory_text": c.memory.status_text(c.stopped_text()), "seq": c.memory.seq,
                "log_count": log.count, "log_first": log.first_available(),
                "log_broken_at": c.memory.log_broken_at, "program_ok": c.program_ok,
                "config_ok": config_ok, "config_text": config_text,
                "link_up": c.link_up, "last_refusal": c.last_refusal,
                "shoe_last_rejected": self._shoe_rejected(), "time": c.wall,
                "time_unsure": c.memory.clock_unsure}

    def _shoe_rejected(self):
        """The shoe's last rejected line with its reason, or '' (none yet, or no shoe)."""
        shoe = self.shoe
        if shoe is None or not shoe.last_reason:
            return ""
        return shoe.reject_text()

    def _no_jackpot(self, cmd):
        """The reply for a game without the progressive, whose jackpot record holds only the
        defaults a RAM clear made (a pool nobody can win, no rounds counted).  A table whose
        game changed keeps the meters and hits its jackpot has a history of, as the audit
        menu shows them."""
        c = self.controller
        jp = c.jackpot           # (None in RAM ERROR)
        if c.game != tc.UTH and (jp is None or not jp.table[jm.T_WAGERS]):
            return _error(cmd, NO_JACKPOT, "no progressive jackpot at this table: it plays %s"
                          % c.game)
        return None

    def _meters(self, cmd, rest):
        self._no_args(cmd, rest)
        problem = self._no_jackpot(cmd) or self._jackpot(cmd)
        if problem:
            return problem
        c = self.controller
        jp = c.jackpot
        linked = c.link_totals()
        if linked is not None:
            # A linked table's pool belongs to the link controller; its own meters are the
            # totals of its ledger, which reconciliation compares with the controller's.
            lk = c.tablelink
            # link_problem: why the link is in MISMATCH (the sign only says LINK Err)
            return {"ok": True, "cmd": cmd, "round": c.rec.round_no, "linked": True,
                    "link": lk.state_name(), "link_problem": lk.mismatch_text,
                    # (null: a new link has not heard the controller's pool, as its sign says)
                    "pools": {"linked": list(lk.amounts()) if lk.pool_known
                              else [None] * len(c.view.meter_slots)},
                    "table": linked, "audit": []}
        pools = {}
        idle = {}       # a pool a split or merge took out of use: the table meters count it too
        for slot in range(jcfg.POOL_SLOTS):
            if slot in jp.active_slots():
                pools[jcfg.POOL_KEYS[slot]] = jp.pool_meters(slot)
            elif max(jp.meters[slot]):
                idle[jcfg.POOL_KEYS[slot]] = jp.pool_meters(slot)
        # frozen: a linked table without its link (no file, or one not built): its own pool
        return {"ok": True, "cmd": cmd, "round": c.rec.round_no, "linked": False, "pools": pools,
                "pools_not_in_use": idle, "table": jp.table_meters(), "audit": jp.audit(),
                "frozen": c.link_required}

    def _hits(self, cmd, rest):
        self._no_args(cmd, rest)
        problem = self._no_jackpot(cmd) or self._jackpot(cmd)
        if problem:
            return problem
        # linked: these are the table's own pool's hits; the link controller keeps the others
        return {"ok": True, "cmd": cmd, "linked": self.controller.tablelink is not None,
                "hits": self.controller.jackpot.last_hits()}

    def _log(self, cmd, rest):
        log = self.controller.memory.log
        first = log.first_available()
        words = rest.split() if rest else []
        if len(words) > 2:
            raise ValueError("expected log [START [COUNT]], got %r" % rest[:32])
        start = _number(words[0], "START") if words else first
        count = _number(words[1], "COUNT") if len(words) > 1 else LOG_PAGE
        if start < first or start > log.count:
            raise ValueError("START %d is outside the held entries %d..%d" % (start, first, log.count))
        if count < 1 or count > LOG_PAGE:
            raise ValueError("COUNT %d must be 1..%d" % (count, LOG_PAGE))
        entries = []
        missing = []
        seq = start
        for entry in log.entries(start, start + count):
            if len(entries) + len(missing) >= count:
                break
            if entry is None:
                missing.append(seq)
            else:
                e = ev.unpack(entry)
                entries.append([e[0], e[1], e[2], e[3], e[4], e[5], e[6], _hex(e[7]),
                                ev.time_unsure(entry)])
            seq += 1
        following = seq if seq < log.count else None
        return {"ok": True, "cmd": cmd, "first": first, "count": log.count, "start": start,
                "head": _hex(log.head), "base": None if log.base is None else _hex(log.base),
                "fields": ["seq", "time", "round", "kind", "a", "b", "c", "link",
                           "time_unsure"],
                "entries": entries, "missing": missing, "next": following}

    def _program(self, cmd, rest):
        self._no_args(cmd, rest)
        c = self.controller
        p = self.program
        reply = {"ok": True, "cmd": cmd, "checked": p is not None,
                 "verified": p is not None and c.program_ok, "text": c.program_text,
                 "digest": c.program_digest}
        if p is not None:
            for name in PROGRAM_FACTS:
                reply[name] = p[name]
            reply["unverified"] = list(p["unverified"])
        return reply

    def _config(self, cmd, rest):
        self._no_args(cmd, rest)
        c = self.controller
        reply = {"ok": True, "cmd": cmd, "game": c.game, "seats": c.seats,
                 "ante_sensors": c.ante_sensors}
        if c.game != tc.UTH:
            # no progressive (its record holds only a RAM clear's defaults) nor hand rule option
            return reply
        problem = self._jackpot(cmd)
        if problem:
            return problem
        jp = c.jackpot
        reply["jackpot"] = jp.config.as_dict()
        reply["requested"] = jp.requested_config().as_dict()
        reply["hand_rule"] = c.hand_rule
        reply["trips_hand_rule"] = c.trips_rule or c.hand_rule     # the results' Trips hand
        return reply

    def _authorise(self, cmd, between_rounds=True):
        c = self.controller
        if not c.key_on:
            return _error(cmd, NOT_AUTHORISED, "%s needs the supervisor: turn the key switch on"
                          % cmd)
        if between_rounds and c.phase not in _BETWEEN_ROUNDS:
            # RESULTS: as after a power cut ("settled before power cut"), until the dealer moves on
            hint = " (SETTLE at the table starts the next round)" if c.phase == tc.RESULTS else ""
            return _error(cmd, NOT_NOW, "%s only between rounds, in OPEN or a supervisor menu "
                          "opened from it: the table is in %s%s"
                          % (cmd, tc.PHASE_NAMES[c.phase], hint))
        return None

    def _config_set(self, cmd, rest):
        c = self.controller
        if c.game != tc.UTH:
            # as the panel's configuration menu: "No jackpot on this game" (a RAM clear or the
            # key would not change that)
            return _error(cmd, REFUSED, "no progressive jackpot at this table: it plays %s" % c.game)
        problem = self._jackpot(cmd) or self._authorise(cmd)
        if problem:
            return problem
        if not rest:
            raise ValueError("expected a JSON object of configuration keys")
        try:
            jsoncheck.check(rest, jsoncheck.MAX_DEPTH, True)
            changes = json.loads(rest)
        except ValueError as error:
            return _error(cmd, BAD_ARGUMENT, "config_set: %s" % error)
        if not isinstance(changes, dict) or not changes:
            raise ValueError("expected a non-empty JSON object of configuration keys, got %s"
                             % rest[:40])
        if c.tablelink is not None or c.link_required:
            # (link_required: without its link, its own pool frozen since it was linked)
            return _error(cmd, REFUSED, "a linked table's jackpot is configured at the link controller")
        if c.placed:
            # as the panel's configuration: a chip down is a wager at the settings it was made at
            return _error(cmd, REFUSED, "chips on jackpot spots %s: clear them first"
                          % c._seat_list(c.placed))
        jp = c.jackpot
        asked = jp.requested_config()
        waiting = jcfg.diff(jp.config, asked)      # pool changes an earlier request left waiting
        try:
            result = jp.set_config(changes)
        except (ValueError, NotLoaded) as error:    # NotLoaded: no heap for the checks' code
            return _error(cmd, REFUSED, str(error))     # (refused before anything changed)
        except Exception as error:  # noqa: BLE001 - a full heap half-way through the change
            return self._undo(cmd, error)
        # this request's: a change still waiting as an earlier one asked is neither logged
        # nor answered again
        result.pending = [x for x in result.pending if x not in waiting]
        try:
            return self._commit_config(cmd, c, jp, asked, result)
        except Exception as error:  # noqa: BLE001 - the change in RAM must not outlive this
            return self._undo(cmd, error)

    def _undo(self, cmd, error):
        """A config_set that failed between the jackpot's change in RAM and its commit: the
        jackpot read back as committed (or the table stops, RoundController._store_failed),
        never left changed to be committed, unlogged, by the next round."""
        self.controller._store_failed(error)
        return _error(cmd, STORE_FAILED, "not committed, nothing changed: %s %s"
                      % (type(error).__name__, error))

    def _commit_config(self, cmd, c, jp, asked, result):
        done = result.changes + result.pending
        # A pool change still waiting for its hit, asked back to the value in force, is taken
        # back: neither a change now nor a pending one, but a change all the same.
        listed = [x[0] for x in done]
        withdrawn = [x for x in jcfg.diff(asked, jp.requested_config()) if x[0] not in listed]
        if not done and not withdrawn:
            return {"ok": True, "cmd": cmd, "changes": [], "pending": [], "withdrawn": []}
        events = []
        for key, old, new in done + withdrawn:
            events.append((ev.CONFIG_CHANGE,) + jcfg.logged_change(jp.config, key, old, new))
        for slot, _, addition in result.starts:
            if addition:        # a pool a split brought into use, seeded by the operator
                events.append((ev.OPERATOR_ADDITION, slot, 0, ev.clamp(addition)))
        # the reply made first: once committed, nothing may fail as if it were not
        reply = {"ok": True, "cmd": cmd, "changes": [list(x) for x in result.changes],
                 "pending": [list(x) for x in result.pending],
                 "withdrawn": [list(x) for x in withdrawn]}
        problem = c.commit_admin(events, c.jackpot_sections())
        if problem:
            return _error(cmd, STORE_FAILED, "not committed, nothing changed: %s" % problem)
        return reply

    def _ram_clear(self, cmd, rest):
        c = self.controller
        problem = self._authorise(cmd, between_rounds=False)
        if problem:
            return problem
        if rest not in ("", "accept"):
            raise ValueError("expected ram_clear or ram_clear accept, got %r" % rest[:32])
        if rest == "":
            if c.phase == tc.RAM_ERROR:
                c.panel(btn.LONG, btn.OK, self.now_ms)    # as the supervisor: key + long OK
                c.panel(btn.RELEASE, btn.OK, self.now_ms)
            if c.phase == tc.RAM_ERROR:
                return _error(cmd, NOT_NOW, "no RAM clear: " + (
                    c.code_fault or c.config_text))
            if c.phase != tc.RAM_CLEAR:
                return _error(cmd, NOT_NOW, "RAM clear only from RAM ERROR (memory is %s, table "
                              "in %s)" % (c.memory.status, tc.PHASE_NAMES[c.phase]))
            config = c.jackpot_config or jcfg.default()
            resets = {}
            # (no progressive at the other games: no pool to reset, as the screen says)
            for slot in config.active_slots() if c.file_game == tc.UTH else ():
                resets[jcfg.POOL_KEYS[slot]] = config.pools[slot].reset
            return {"ok": True, "cmd": cmd, "phase": tc.PHASE_NAMES[c.phase], "reset": resets,
                    "next": "ram_clear accept (or OK at the table); BACK at the table cancels"}
        if c.phase != tc.RAM_CLEAR:
            return _error(cmd, NOT_NOW, "no RAM clear started: send ram_clear first (table in %s)"
                          % tc.PHASE_NAMES[c.phase])
        c.panel(btn.PRESS, btn.OK, self.now_ms)           # as the supervisor: OK accepts
        c.panel(btn.RELEASE, btn.OK, self.now_ms)
        if c.phase == tc.RAM_CLEAR or c.jackpot is None:
            return _error(cmd, STORE_FAILED, "RAM clear failed: %s" % c.message.replace("\n", " "))
        return {"ok": True, "cmd": cmd, "phase": tc.PHASE_NAMES[c.phase],
                "memory": c.memory.status, "round": c.rec.round_no}

    def _clock_set(self, cmd, rest):
        c = self.controller
        problem = self._authorise(cmd)
        if problem:
            return problem
        if c.tablelink is not None:
            # (its link's messages are timed by it: set from NTP, which would then move it)
            return _error(cmd, REFUSED, "a linked table's clock is set from NTP")
        shape = "".join(["d" if "0" <= ch <= "9" else ch for ch in rest])
        if shape != _UTC and shape != _UTC + "Z":
            raise ValueError("expected a UTC time as YYYY-MM-DDThh:mm:ss, got %r" % rest[:32])
        unsure, was = c.memory.clock_unsure, c.wall
        from firmware.table.handlers import supervised
        problem = supervised(c, "set_clock", (int(rest[:4]), int(rest[5:7]), int(rest[8:10]),
                                              int(rest[11:13]), int(rest[14:16]), int(rest[17:19])))
        if problem is None:         # its code could not be loaded: the display says why
            return _error(cmd, INTERNAL, "not set: %s" % c.last_refusal)
        if problem:
            return _error(cmd, STORE_FAILED, "not committed, the clock not set: %s" % problem)
        return {"ok": True, "cmd": cmd, "time": c.wall, "moved": c.wall - was,
                "was_unsure": unsure}


_HANDLERS = (Service._help, Service._status, Service._meters, Service._hits, Service._log,
             Service._program, Service._config, Service._config_set, Service._ram_clear,
             Service._clock_set)
