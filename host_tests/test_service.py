"""The service protocol (firmware/service.py) against a real controller on critical memory.

Each hostile or refused command is checked to change nothing: the critical-memory copies,
the sequence number, the event log and the controller's phase are compared before and after.
Expected amounts come from the default jackpot configuration (firmware/jackpot/config.py:
100-cent wager, 70/100 to the pool, reset 1,000,000 cents) and rules.md 11.9 (royal flush:
10,000 to 1 or 100% of the pool, whichever is greater), worked out by hand.
"""

import calendar
import json

import pytest

from firmware import manifest, startup
from firmware import service as svc
from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.test_controller import SEEDED, cut_at_every_write, rewrite_both_copies
from host_tests.test_controller import Table as ControllerTable
from tools.audit import meters_table

RESET = 1000000


class Port:
    """A service port: bytes the test queues, replies the service writes."""

    def __init__(self):
        self.rx = bytearray()
        self.tx = bytearray()

    def any(self):
        return len(self.rx)

    def readinto(self, buf):
        n = min(len(buf), len(self.rx))
        buf[:n] = self.rx[:n]
        del self.rx[:n]
        return n

    def write(self, data):
        self.tx += data

    def replies(self):
        lines = bytes(self.tx).decode().splitlines()
        self.tx.clear()
        return [json.loads(line) for line in lines]


class Table(ControllerTable):
    """A controller on critical memory in a directory, with its service."""

    def __init__(self, directory):
        self.directory = directory
        ControllerTable.__init__(self, directory)

    def boot(self):
        c = ControllerTable.boot(self)
        self.port = Port()
        self.service = svc.Service(self.c, self.port)
        return c

    def ask(self, line):
        """Send one line through the port and the loop's poll; return the one reply."""
        self.port.rx += line.encode() + b"\n" if isinstance(line, str) else line
        for _ in range(200):
            self.service.poll(self.tick())
            if not self.port.rx:
                break
        replies = self.port.replies()
        assert len(replies) == 1, replies
        return replies[0]

    def chip(self, seat, ante=True):
        self.c.spot(sens.PLACED, sens.jackpot_spot(seat), self.tick())
        if ante:
            self.c.spot(sens.PLACED, sens.ante_spot(seat), self.tick())

    def fingerprint(self):
        """Everything a refused command must leave alone."""
        files = {}
        for name in sorted(p.name for p in self.directory.iterdir()):
            files[name] = (self.directory / name).read_bytes()
        jp = self.c.jackpot
        return (files, self.memory.seq, self.memory.log.count, self.c.phase,
                None if jp is None else (jp.config.as_dict(), list(jp.value), jp.table_meters()))


def ready_table(tmp_path):
    """A RAM-cleared table (open for bets) with its service console."""
    t = Table(tmp_path)
    t.ram_clear()
    return t


@pytest.fixture
def table(tmp_path):
    return ready_table(tmp_path)


def royal_round(t):
    """Seats 1 and 3 wager; seat 1 holds a royal flush with the flop (demo script's deal)."""
    t.chip(1)
    t.chip(3)
    t.press(btn.LOCK)
    t.deal([(1, "As Ks"), (3, "2c 7d"), (8, "Qs Js Ts 3h 4h"), (0, "9c 9d")])
    t.press(btn.SETTLE)
    assert t.c.phase == tc.CONFIRM
    t.key(True)
    t.press(btn.OK)
    t.key(False)
    assert t.c.phase == tc.RESULTS
    t.press(btn.SETTLE)
    assert t.c.phase == tc.OPEN


# ---------------------------------------------------------------------- reading

def test_help_lists_every_command(table):
    reply = table.ask("help")
    assert reply["ok"] is True and reply["protocol"] == 1
    for name in ("status", "meters", "hits", "log [START [COUNT]]", "program", "config",
                 "config_set {JSON}", "ram_clear", "ram_clear accept",
                 "clock_set YYYY-MM-DDThh:mm:ss"):
        assert name in reply["commands"]


def test_status_says_where_the_table_is(table):
    reply = table.ask("status")
    assert reply["phase"] == "OPEN" and reply["round"] == 1 and reply["memory"] == "ok"
    assert reply["key_on"] is False and reply["jackpot_open"] is True
    assert (reply["config_ok"], reply["config_text"]) == (True, "defaults")
    table.c.set_config_status(False, "config table_max: -1 is not a payout")
    reply = table.ask("status")          # a bad file: the technician reads why, whole
    assert (reply["config_ok"], reply["config_text"], reply["jackpot_open"]) == (
        False, "config table_max: -1 is not a payout", False)


def test_status_names_the_game_the_table_deals_with_its_file_refused(tmp_path):
    t = Table(tmp_path)
    t.game = tc.FCP
    t.boot()
    t.ram_clear()
    t.game = None                       # the file refused at the next boot
    t.boot()
    t.c.set_config_status(False, "config file: not UTF-8 text")
    reply = t.ask("status")
    assert (reply["game"], reply["config_ok"], reply["phase"]) == ("fcp", False, "OPEN")


def test_meters_after_a_round_with_two_wagers(table):
    table.chip(1)
    table.chip(3)
    table.press(btn.LOCK)
    reply = table.ask("meters")
    main = reply["pools"]["main"]
    assert main["value"] == RESET + 140          # 2 x 100 cents x 70/100
    assert main["wagers"] == 2 and main["wagered"] == 200 and main["contributions"] == 140
    assert reply["table"]["wagered"] == 200 and reply["table"]["retention"] == 60
    assert reply["audit"] == []
    assert list(reply["pools"]) == ["main"]


def test_hits_show_the_royal_flush_paid(table):
    royal_round(table)
    reply = table.ask("hits")
    assert len(reply["hits"]) == 1
    hit = reply["hits"][0]
    # 100% of the pool (1,000,140) beats 10,000 to 1 (1,000,000) [rules.md 11.9]
    assert (hit["seat"], hit["hand"], hit["amount"]) == (1, "Royal Flush", RESET + 140)
    assert hit["cards"] == "As Ks Qs Js Ts"


def test_log_pages_through_every_event_in_order(table):
    for _ in range(20):                  # 40 door events: more than one page of 32
        # _DOOR_LOG_MS apart: faster changes would be counted into one entry
        table.c.panel(btn.DOOR_OPEN, 0, table.tick(tc._DOOR_LOG_MS))
        table.c.panel(btn.DOOR_CLOSED, 0, table.tick(tc._DOOR_LOG_MS))
    count = table.memory.log.count
    assert count == 41                   # RAM clear + 40 door events
    first = table.ask("log")
    assert first["start"] == 0 and len(first["entries"]) == 32 and first["next"] == 32
    second = table.ask("log 32 32")
    assert [e[0] for e in first["entries"] + second["entries"]] == list(range(count))
    assert second["next"] is None and second["count"] == count
    assert second["entries"][-1][7] == second["head"]
    kinds = [e[3] for e in first["entries"] + second["entries"]]
    assert kinds[0] == ev.RAM_CLEAR and kinds[1:3] == [ev.DOOR_OPEN, ev.DOOR_CLOSE]
    short = table.ask("log 5 3")
    assert [e[0] for e in short["entries"]] == [5, 6, 7] and short["next"] == 8


def test_log_says_which_times_the_table_did_not_know(table):
    """After a power cut with the clock behind the log, the entries' times are counted on from
    the newest one before (critical memory's clock_shift) and marked: each entry's last field,
    time_unsure, says so (its kind stays the kind), until a real time comes (clock_set)."""
    table.c.tick(table.tick(), 50000)
    table.c.commit_admin([(ev.TAMPER, 1)])
    assert [table.ask("status")[k] for k in ("time", "time_unsure")] == [50000, False]
    table.boot()                                # the clock reads 1000 and a bit again
    table.c.commit_admin([(ev.TAMPER, 2)])
    # the status says the table goes on from its log's newest time, not knowing the time
    assert [table.ask("status")[k] for k in ("time", "time_unsure")] == [50000, True]
    table.c.clock_set()
    table.c.tick(table.tick(), 60000)
    table.c.commit_admin([(ev.TAMPER, 3)])
    reply = table.ask("log")
    assert reply["fields"][-1] == "time_unsure"
    rows = [(e[1], e[3], e[4], e[8]) for e in reply["entries"][-4:]]
    assert rows == [(50000, ev.TAMPER, 1, False), (50000, ev.POWER_UP, 0, True),
                    (50000, ev.TAMPER, 2, True), (60000, ev.TAMPER, 3, False)]


def test_log_gives_the_link_before_the_oldest_entry_of_a_wrapped_ring(table):
    log = table.memory.log
    assert table.ask("log")["base"] == "00" * 8            # the chain starts from eight zeros
    for _ in range(ev.PAGES):
        assert table.c.commit_admin([(ev.TAMPER, 1)] * ev.PAGE_ENTRIES) == ""
    reply = table.ask("log")
    assert reply["first"] == log.first_available() > 0
    assert reply["base"] == log.base.hex()
    assert ev.link_of(log.base, bytes(next(log.entries()))[:24]).hex() == reply["entries"][0][7]


def test_program_reports_the_boot_check(table):
    table.c.set_program(False, "changed-file firmware/app.mpy", "ab" * 32)
    reply = table.ask("program")
    assert reply["verified"] is False and reply["digest"] == "ab" * 32
    assert "changed-file" in reply["text"]


def test_program_with_the_manifest_result_gives_its_details(table):
    result = manifest.Result(manifest.OK, "all files match", digest="cd" * 32, authenticated=True,
                             board="pico_w", build_id="b-42")
    table.service.program = startup.program_facts(result)
    reply = table.ask("program")
    assert (reply["reason"], reply["build_id"], reply["authenticated"]) == ("ok", "b-42", True)


def test_config_reads_the_configuration_in_force(table):
    reply = table.ask("config")
    assert reply["jackpot"]["wager"] == 100 and reply["jackpot"]["main"]["reset"] == RESET
    assert reply["jackpot"]["pay"]["royal_flush"] == [10000, 100]
    assert reply["hand_rule"] == "hole2_board3" and reply["seats"] == 7


def test_config_names_the_hand_rule_trips_is_shown_on(tmp_path):
    # rules.md 2: Trips uses the hand rule unless trips_hand_rule says otherwise, and the
    # results name the hand Trips is paid on by it; the technician checking a table's rules
    # must read it too (a file's null: the hand rule itself)
    (tmp_path / "a").mkdir()
    assert ready_table(tmp_path / "a").ask("config")["trips_hand_rule"] == "hole2_board3"

    class TripsTable(Table):
        def boot(self):
            self.memory = CriticalMemory([FileSlot(self.fs, "a.bin"), FileSlot(self.fs, "b.bin")],
                                         self.fs)
            self.c = tc.RoundController(self.memory, SEEDED, trips_rule="best5of7")
            self.c.boot(self.now, 1000 + self.now)
            self.port = Port()
            self.service = svc.Service(self.c, self.port)
            return self.c

    (tmp_path / "b").mkdir()
    t = TripsTable(tmp_path / "b")
    t.ram_clear()
    reply = t.ask("config")
    assert (reply["hand_rule"], reply["trips_hand_rule"]) == ("hole2_board3", "best5of7")



@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_config_at_a_game_without_the_progressive_says_what_the_table_plays_with(tmp_path, game):
    # a Four Card Poker or Big Raise Stud table's config listed the $1 jackpot wager, pool
    # rates and pay table of a progressive it does not run, and UTH's hand rule; and in RAM
    # ERROR it said "no meters or configuration", though its game and seats stand
    t = Table(tmp_path)
    t.game = game
    t.boot()                                     # blank memory: RAM ERROR
    for _ in range(2):
        reply = t.ask("config")
        assert reply == {"ok": True, "cmd": "config", "game": game, "seats": 7,
                         "ante_sensors": True}, reply
        t.ram_clear()
    (tmp_path / "uth").mkdir()
    reply = ready_table(tmp_path / "uth").ask("config")
    assert reply["game"] == "uth" and reply["hand_rule"] == "hole2_board3" and reply["jackpot"]


# ---------------------------------------------------------------------- writing

def test_config_set_with_the_key_changes_commits_and_logs(table):
    table.key(True)
    reply = table.ask('config_set {"wager": 200}')
    assert reply["ok"] is True and reply["changes"] == [["wager", 100, 200]]
    assert table.c.jackpot.config.wager == 200
    change = [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE][-1]
    assert change[4:7] == (svc.SETTING_BASE + 0, 100, 200)
    table.boot()                          # power cut: the change was committed
    assert table.c.jackpot.config.wager == 200


def test_config_set_lines_pasted_together_commit_once_a_pass(table):
    # Each commit writes the FRAM and erases a flash sector (about 110 ms on the reference
    # board, 400 ms at worst): lines of one 64-byte read were all answered in one pass, a
    # commit each.  A pass answers no further line after one that committed.
    table.key(True)
    table.port.rx += b'config_set {"wager":200}\nconfig_set {"wager":300}\n'
    commits = []
    for _ in range(3):
        seq = table.memory.seq
        table.service.poll(table.tick())
        commits.append(table.memory.seq - seq)
    assert commits == [1, 1, 0]
    assert [r["ok"] for r in table.port.replies()] == [True, True]
    assert table.c.jackpot.config.wager == 300


def test_config_set_of_a_pool_in_use_waits_for_its_next_hit(table):
    table.key(True)
    reply = table.ask('config_set {"main": {"rate": [60, 100]}}')
    assert reply["ok"] and reply["changes"] == []
    assert reply["pending"] == [["main.rate", [70, 100], [60, 100]]]
    rate = [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE][-1]
    assert rate[5:7] == (700000, 600000)  # logged in parts per million



def test_a_change_still_waiting_for_its_hit_is_not_logged_again_by_the_next_request(table):
    # a rate change waits for the pool's next hit; each later config_set (the wager, an envy
    # bonus) logged it again and answered it as its own pending change, so the log showed
    # "main rate 70% to 60%" asked for three times, and the reply of a wager change said the
    # rate waits because of it
    table.key(True)
    table.ask('config_set {"main": {"rate": [60, 100]}}')
    reply = table.ask('config_set {"wager": 200}')
    assert reply["changes"] == [["wager", 100, 200]] and reply["pending"] == []
    reply = table.ask('config_set {"main": {"reset": 500000}}')
    assert reply["pending"] == [["main.reset", RESET, 500000]]
    logged = [e[4:7] for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE]
    assert logged == [(107, 700000, 600000), (100, 100, 200), (109, RESET, 500000)]
    requested = table.ask("config")["requested"]["main"]       # both still wait
    assert (requested["rate"], requested["reset"]) == ([60, 100], 500000)


@pytest.mark.parametrize("payload,logged", [
    # docs/service-protocol.md: a pay line is logged as odds x 1000 + percent, whatever its
    # numbers; a pay line that would also read as a fraction must not be logged as a rate
    ('{"pay": {"royal_flush": [0, 100]}}', (106, 10000100, 100)),      # 100% of the pool only
    ('{"pay": {"straight_flush": [5, 10]}}', (105, 1000010, 5010)),    # 5 to 1 or 10%
    ('{"pay": {"flush": [50, 0]}}', (102, 100000, 50000)),
    ('{"pay": {"four_of_a_kind": [1, 0]}}', (104, 500000, 1000)),
    ('{"main": {"reserve_rate": [1, 100]}}', (108, 0, 10000)),         # a rate: ppm
])
def test_config_set_logs_a_pay_line_as_odds_and_percent_never_as_a_rate(table, payload, logged):
    table.key(True)
    reply = table.ask("config_set " + payload)
    assert reply["ok"] is True, reply
    change = [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE][-1]
    assert change[4:7] == logged


def test_config_set_taking_back_a_pending_change_is_committed_logged_and_said(table):
    # a pool change waits for the pool's next hit; asking for the value in force again takes
    # it back: that is a change of what the table will do, so it must survive a power cut
    # (else the taken-back rate comes into force at the next hit), be logged, and be said
    table.key(True)
    table.ask('config_set {"main": {"rate": [60, 100]}}')
    seq = table.memory.seq
    reply = table.ask('config_set {"main": {"rate": [70, 100]}}')
    assert reply["ok"] is True and reply["changes"] == [] and reply["pending"] == []
    assert reply["withdrawn"] == [["main.rate", [60, 100], [70, 100]]]
    assert table.memory.seq == seq + 1
    change = [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE][-1]
    assert change[4:7] == (svc.SETTING_BASE + 7, 600000, 700000)
    table.boot()                                   # power cut
    assert table.ask("config")["requested"]["main"]["rate"] == [70, 100]
    assert table.ask("meters")["audit"] == []


def test_config_set_split_moves_the_money_and_the_sign_follows(table):
    table.key(True)
    reply = table.ask('config_set {"split": true, "minor": {"reset": 100000}}')
    assert reply["ok"] and ["split", False, True] in reply["changes"]
    meters = table.ask("meters")
    # firmware/jackpot/pools.py set_config: the pool becomes the Major pool and the Minor
    # pool starts at its reset amount (the 100,000 cents set with the split)
    assert {k: v["value"] for k, v in meters["pools"].items()} == {"minor": 100000, "major": RESET}
    assert meters["audit"] == []
    assert table.c.view.meter_slots == (1, 2)
    logged = [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE]
    assert (svc.SETTING_BASE + 1, 0, 1) in [e[4:7] for e in logged]


def test_config_set_split_logs_the_minor_pools_seed_as_an_operator_addition(table):
    table.key(True)
    assert table.ask('config_set {"split": true, "minor": {"reset": 100000}}')["ok"]
    added = [e[4:7] for e in table.memory.log.events() if e[3] == ev.OPERATOR_ADDITION]
    # the Minor pool starts at its reset amount (100,000 cents), all of it operator money
    assert added == [(1, 0, 100000)]
    assert table.ask("meters")["table"]["operator_additions"] == RESET + 100000


def test_meters_after_a_split_still_account_for_the_table_meters(table):
    # The table meters are the sums of every pool's meters, the one no longer in use too: the
    # Jackpot pool's seed and contributions before the split must stay in the reply, or
    # operator_additions and contributions read as money from nowhere
    royal_round(table)                    # main paid the royal and was reset by the operator
    for seat in (1, 3):                   # the chips taken off the jackpot spots
        table.c.spot(sens.REMOVED, sens.jackpot_spot(seat), table.tick())
    table.key(True)
    assert table.ask('config_set {"split": true}')["ok"]
    meters = table.ask("meters")
    assert list(meters["pools"]) == ["minor", "major"]
    everything = dict(meters["pools"])
    everything.update(meters["pools_not_in_use"])
    assert list(meters["pools_not_in_use"]) == ["main"]
    for key in ("operator_additions", "paid", "shortfall", "hits", "resets"):
        assert meters["table"][key] == sum(p[key] for p in everything.values()), key
    assert meters["pools_not_in_use"]["main"]["moved_out"] == RESET
    assert meters["pools_not_in_use"]["main"]["value"] == 0
    assert meters["audit"] == []
    # the supervisor's printed report (tools/audit.py) shows it too
    assert "MAIN (NOT IN USE)" in meters_table(meters).splitlines()[0]


def test_config_set_needs_the_key(table):
    before = table.fingerprint()
    reply = table.ask('config_set {"wager": 200}')
    assert (reply["ok"], reply["code"]) == (False, svc.NOT_AUTHORISED)
    assert "key switch" in reply["error"]
    assert table.fingerprint() == before


def test_config_set_only_between_rounds(table):
    table.chip(1)
    table.press(btn.LOCK)
    table.key(True)
    before = table.fingerprint()
    reply = table.ask('config_set {"wager": 200}')
    assert (reply["ok"], reply["code"]) == (False, svc.NOT_NOW)
    assert "LOCKED" in reply["error"]
    assert table.fingerprint() == before


def test_config_set_after_a_power_cut_says_how_to_get_between_rounds(table):
    # the table comes back showing the last round's results ("settled before power cut"):
    # the technician must learn that SETTLE at the table leaves them, not just "RESULTS"
    royal_round(table)
    table.boot()
    assert table.c.phase == tc.RESULTS
    table.key(True)
    reply = table.ask('config_set {"wager": 200}')
    assert (reply["ok"], reply["code"]) == (False, svc.NOT_NOW)
    assert reply["error"] == ("config_set only between rounds, in OPEN or a supervisor menu "
                              "opened from it: the table is in RESULTS (SETTLE at the table "
                              "starts the next round)")
    table.press(btn.SETTLE)
    assert table.ask('config_set {"wager": 200}')["ok"] is True


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_config_set_is_refused_at_a_game_without_the_progressive(tmp_path, game):
    # the panel's configuration menu says "No jackpot on this game" there: the service must
    # not change (or split, moving the money of) a jackpot the table does not run
    t = Table(tmp_path)
    t.game = game
    t.boot()
    t.ram_clear()
    t.key(True)
    before = t.fingerprint()
    for payload in ('{"wager": 500}', '{"split": true}'):
        reply = t.ask("config_set " + payload)
        assert (reply["ok"], reply["code"]) == (False, svc.REFUSED), reply
        assert reply["error"] == "no progressive jackpot at this table: it plays %s" % game
    assert t.fingerprint() == before


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_meters_and_hits_at_a_game_without_the_progressive_say_so(tmp_path, game):
    # a Four Card Poker or Big Raise Stud table keeps only the defaults a RAM clear made in its
    # jackpot record: meters showed a $10,000 pool nobody can win and 0 rounds after a shift,
    # and the audit tool printed them with "Books: balance"
    from tools import audit

    t = Table(tmp_path)
    t.game = game
    t.boot()
    t.ram_clear()
    for name in ("meters", "hits"):
        reply = t.ask(name)
        assert (reply["ok"], reply["code"]) == (False, svc.NO_JACKPOT), reply
        assert reply["error"] == "no progressive jackpot at this table: it plays %s" % game
    assert t.ask("config")["ok"] and t.ask("status")["ok"]    # the rest still answers

    class Direct(audit.Link):
        def request(self, line, timeout=None):
            return t.ask(line)

    data = audit.read_all(Direct())
    text = audit.report(data)
    said = "none (no progressive jackpot at this table: it plays %s)" % game
    assert "Meters: " + said in text and "Last jackpot hits: " + said in text
    assert "Books:" not in text and "$10000.00" not in text and not data["unread"]


def test_meters_and_hits_of_a_table_changed_to_another_game_keep_its_jackpot_history(table):
    # a UTH table that took jackpot wagers and paid a royal, then configured for Four Card
    # Poker: its audit menu still shows the pool and meters it has a history of, but the
    # service answered no-jackpot, so tools.audit exported none of that money's records
    royal_round(table)
    table.game = tc.FCP
    table.boot()
    table.press(btn.SETTLE)                 # past the royal's results: Four Card Poker now
    assert table.c.game == tc.FCP
    meters = table.ask("meters")
    assert meters["ok"], meters
    assert meters["table"]["wagered"] == 200 and meters["table"]["paid"] == RESET + 140
    assert meters["pools"]["main"]["value"] == RESET and meters["audit"] == []
    hits = table.ask("hits")
    assert hits["ok"] and [(h["seat"], h["amount"]) for h in hits["hits"]] == [(1, RESET + 140)]


def test_meters_and_hits_of_a_table_switched_from_uth_keep_its_jackpot_history(tmp_path):
    # a UTH table whose pool took wagers and paid a royal, switched to Four Card Poker: its
    # audit menu still shows the jackpot its meters have a history of, but meters and hits
    # said "no progressive jackpot at this table" and tools.audit printed "Meters: none",
    # leaving the pool's money out of the audit
    from tools import audit

    t = ready_table(tmp_path)
    royal_round(t)
    t.game = tc.FCP                              # the file now says "fcp"
    t.boot()
    t.press(btn.SETTLE)                          # the last round's results again, then OPEN
    assert t.c.game == tc.FCP and t.c.phase == tc.OPEN
    meters = t.ask("meters")
    assert meters["ok"] and meters["table"]["wagered"] == 200, meters
    assert meters["pools"]["main"]["value"] == RESET
    hits = t.ask("hits")
    assert hits["ok"] and [h["seat"] for h in hits["hits"]] == [1]

    class Direct(audit.Link):
        def request(self, line, timeout=None):
            return t.ask(line)

    text = audit.report(audit.read_all(Direct()))
    assert "Books: balance" in text and "round 1 seat 1 Royal Flush" in text


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_a_game_without_the_progressive_in_ram_error_says_it_has_no_jackpot(tmp_path, game):
    # meters, hits and config_set said "RAM ERROR: no meters or configuration until a RAM
    # clear": after the clear the same commands said there is no progressive at all
    t = Table(tmp_path)
    t.game = game
    t.boot()                                     # blank memory: RAM ERROR
    said = "no progressive jackpot at this table: it plays %s" % game
    for line, code in (("meters", svc.NO_JACKPOT), ("hits", svc.NO_JACKPOT),
                       ('config_set {"wager": 500}', svc.REFUSED)):
        for key in (False, True):
            t.key(key)
            reply = t.ask(line)
            assert (reply["code"], reply["error"]) == (code, said), reply


def test_config_set_in_ram_error_says_ram_error_not_between_rounds(tmp_path):
    # no configuration to change until a RAM clear: the ram-error code, not "only between
    # rounds: the table is in RAM ERROR", which sends the technician looking for a round
    t = Table(tmp_path)                          # blank memory: RAM ERROR
    for key in (False, True):
        t.key(key)
        before = t.fingerprint()
        reply = t.ask('config_set {"wager": 200}')
        assert (reply["ok"], reply["code"]) == (False, svc.RAM_ERROR), reply
        assert "until a RAM clear" in reply["error"]
        assert t.fingerprint() == before


def test_config_set_is_refused_while_chips_are_on_the_jackpot_spots(table):
    # as the panel's configuration refuses it: a chip down was placed at the old wager
    table.chip(1)
    table.chip(1, ante=True)
    table.chip(3)
    table.key(True)
    before = table.fingerprint()
    reply = table.ask('config_set {"wager": 500}')
    assert (reply["ok"], reply["code"]) == (False, svc.REFUSED)
    assert reply["error"] == "chips on jackpot spots 13: clear them first"
    assert table.fingerprint() == before


@pytest.mark.parametrize("payload,code,words", [
    ('{"wager": "200"}', svc.REFUSED, "config wager: '200'"),
    ('{"wager": 2.5}', svc.REFUSED, "config wager: 2.5"),
    ('{"wager": true}', svc.REFUSED, "config wager: True"),
    ('{"wager": 99999999999999999999999}', svc.REFUSED, "config wager: 99999999999999999999999"),
    ('{"wager": -1}', svc.REFUSED, "config wager: -1"),
    ('{"main": {"reset": 1073741824}}', svc.REFUSED, "config main.reset: 1073741824"),
    ('{"main": {"rate": [70, 3]}}', svc.REFUSED, "denominator 3"),
    ('{"main": {"rate": [2, 1]}}', svc.REFUSED, "config main.rate"),
    ('{"main": {"colour": 1}}', svc.REFUSED, "config main.colour: unknown pool parameter"),
    ('{"colour": "red"}', svc.REFUSED, "config colour: unknown key"),
    ('{"pay": {"royal_flush": [10000, 101]}}', svc.REFUSED, "pay.royal_flush percent"),
    ('{"pay": {"five_aces": [1, 0]}}', svc.REFUSED, "pay.five_aces: unknown hand"),
    ('{"split": "yes"}', svc.REFUSED, "config split: 'yes'"),
    ('{"wager": 200', svc.BAD_ARGUMENT, "not valid JSON"),
    ('[1, 2]', svc.BAD_ARGUMENT, "non-empty JSON object"),
    ('{}', svc.BAD_ARGUMENT, "non-empty JSON object"),
    ('', svc.BAD_ARGUMENT, "expected a JSON object"),
    ('{"wager": NaN}', svc.BAD_ARGUMENT, "not valid JSON: expected a value at line 1 column 11"),
    ("[" * 200 + "]" * 200, svc.BAD_ARGUMENT, "nested deeper than 4 levels at line 1 column 5"),
    ('{"pay": {"flush": {"flush": {"flush": [1, 0]}}}}', svc.BAD_ARGUMENT,
     "nested deeper than 4 levels at line 1 column 39"),
    ('{"wager": 300,}', svc.BAD_ARGUMENT, "expected a key in double quotes at line 1 column 15"),
    ('{"wager" 300}', svc.BAD_ARGUMENT, "expected ':' after the key at line 1 column 10"),
    ('{"wager": 0300}', svc.BAD_ARGUMENT, "leading zero in a number at line 1 column 11"),
    ('{"wager": 200, "wager": 300}', svc.BAD_ARGUMENT,
     'the key "wager" is given twice in one object at line 1 column 16'),
])
def test_hostile_config_set_is_refused_and_changes_nothing(table, payload, code, words):
    table.key(True)
    before = table.fingerprint()
    reply = table.ask(("config_set " + payload).strip())
    assert (reply["ok"], reply["code"], reply["cmd"]) == (False, code, "config_set")
    assert words in reply["error"]
    assert table.fingerprint() == before


class FailingSlot:
    """A copy whose writes fail (a dead FRAM and flash)."""

    physical = "dead"

    def __init__(self, slot):
        self.slot = slot

    def read(self):
        return self.slot.read()

    def write(self, data):
        raise OSError(5, "EIO")


def test_config_set_that_cannot_be_committed_is_undone(table):
    table.key(True)
    table.memory.copies = [FailingSlot(s) for s in table.memory.copies]
    reply = table.ask('config_set {"wager": 500}')
    assert (reply["ok"], reply["code"]) == (False, svc.STORE_FAILED)
    assert table.c.jackpot.config.wager == 100    # reloaded from what was committed



@pytest.mark.parametrize("payload", ['{"wager": 500}', '{"split": true}'])
def test_config_set_that_fails_before_its_commit_leaves_nothing_changed(table, monkeypatch,
                                                                        payload):
    # a failure after the jackpot took the change in RAM and before the commit (the heap
    # full while the log entries were made): the reply said "internal" and the change stayed
    # in RAM, uncommitted and unlogged, to be committed by the next LOCK with no CONFIG_CHANGE
    from firmware.jackpot import config as jcfg

    def full(*args):
        raise MemoryError("memory allocation failed")

    monkeypatch.setattr(jcfg, "logged_change", full)
    table.key(True)
    before = table.fingerprint()
    reply = table.ask("config_set " + payload)
    assert (reply["ok"], reply["code"]) == (False, svc.STORE_FAILED), reply
    assert "nothing changed" in reply["error"] and "MemoryError" in reply["error"]
    assert table.fingerprint() == before
    table.key(False)
    table.chip(1)
    table.press(btn.LOCK)                        # the next commit: the configuration as it was
    c = table.boot()
    assert c.jackpot.config.wager == 100 and not c.jackpot.config.split



def test_config_set_whose_record_needs_larger_buffers_grows_them_or_is_refused(table, monkeypatch):
    # split pools with an envy bonus make a larger record than one pool: the buffers grew at
    # the first round commit that needed them, late in play on a fragmented heap (MEMORY
    # FAULT, the round LOCKED); now in the change's own path, before its commit, or refused
    import json

    from firmware.jackpot import codec
    from firmware.store import critical
    from host_tests.test_controller import ENVY_SPLIT, scarce_heap

    heap = scarce_heap(monkeypatch, critical, codec, tc)
    payload = json.dumps(ENVY_SPLIT)
    small = len(table.memory._buf)
    heap.limit = small + 1          # no piece as large as the buffers the change needs
    table.key(True)
    before = table.fingerprint()
    reply = table.ask("config_set " + payload)
    assert (reply["ok"], reply["code"]) == (False, svc.STORE_FAILED), reply
    assert "nothing changed" in reply["error"] and "allocating" in reply["error"]
    assert table.fingerprint() == before and len(table.memory._buf) == small
    heap.limit = None
    reply = table.ask("config_set " + payload)
    assert reply["ok"] is True and table.c.jackpot.config.split
    assert len(table.memory._buf) > small
    heap.limit = 1024               # then hours of play: every round still commits
    table.key(False)
    for _ in range(30):
        royal_round(table)
    assert table.memory.round_no == 30 and len(table.c.jackpot.hits) == 25
    assert table.c.phase == tc.OPEN and table.memory.step == 3     # (settled)


def test_config_set_is_refused_at_a_linked_table_without_its_link(table):
    # a linked table booted without its file (or whose link could not be built) keeps its own
    # pool frozen since it was linked: config_set changed that pool's settings (a split moved
    # its money), which the link controller then found as a wager mismatch, or never saw
    table.c.link_required = True
    table.c.link(False, table.tick())
    table.key(True)
    before = table.fingerprint()
    for payload in ('{"wager": 500}', '{"split": true}'):
        reply = table.ask("config_set " + payload)
        assert (reply["ok"], reply["code"]) == (False, svc.REFUSED), reply
        assert "link controller" in reply["error"]
    assert table.fingerprint() == before
    table.press(btn.SETTLE, long=True)           # the panel's configuration menu: refused too
    table.press(btn.OK)
    assert "Linked table:\nset at the link" in table.screen()
    table.press(btn.BACK)
    assert table.fingerprint() == before


def test_ram_clear_from_ram_error_start_then_accept(tmp_path):
    t = Table(tmp_path)                          # blank memory: RAM ERROR
    assert t.ask("meters")["code"] == svc.RAM_ERROR
    assert t.ask("ram_clear")["code"] == svc.NOT_AUTHORISED
    t.key(True)
    started = t.ask("ram_clear")
    assert started["ok"] and started["phase"] == "RAM CLEAR" and started["reset"] == {"main": RESET}
    assert t.c.phase == tc.RAM_CLEAR and t.memory.status == "RAM ERROR"
    done = t.ask("ram_clear accept")
    assert done["ok"] and done["phase"] == "OPEN" and done["memory"] == "ok"
    assert t.ask("meters")["pools"]["main"]["value"] == RESET
    assert [e[3] for e in t.memory.log.events()] == [ev.RAM_CLEAR]


def test_ram_clear_refused_while_the_config_file_is_refused(tmp_path):
    """The RAM clear would start the pool from the built-in defaults, not the file's."""
    t = Table(tmp_path)
    t.c.set_config_status(False, "config table_max: -1 is not a payout")
    t.key(True)
    before = t.fingerprint()
    reply = t.ask("ram_clear")
    assert reply["code"] == svc.NOT_NOW and "config table_max: -1" in reply["error"]
    assert t.fingerprint() == before and t.c.phase == tc.RAM_ERROR


def test_ram_clear_refused_over_link_code_that_cannot_load(tmp_path, monkeypatch):
    """RAM ERROR for a linked table's code the VM cannot load: its memory is good, and a
    RAM clear would wipe it and mend nothing.  Refused, saying why (not the file's text)."""
    from firmware import heap

    t = ready_table(tmp_path)
    t.memory = CriticalMemory([FileSlot(t.fs, "a.bin"), FileSlot(t.fs, "b.bin")], t.fs)
    t.c = tc.RoundController(t.memory, SEEDED)
    t.service = svc.Service(t.c, t.port)
    t.c.link_factory = object()

    def cannot_load():
        raise heap.not_loaded("firmware.table.linked", ValueError("incompatible .mpy file"))

    monkeypatch.setattr(t.c, "_start_link", cannot_load)
    t.c.boot(t.now, 1000 + t.now)
    t.key(True)
    before = t.fingerprint()
    reply = t.ask("ram_clear")
    assert reply["code"] == svc.NOT_NOW
    assert reply["error"].startswith("no RAM clear: PROGRAM ERROR - cannot load firmware.table.linked")
    assert t.fingerprint() == before and t.c.phase == tc.RAM_ERROR


def test_ram_clear_twice_in_one_boot(tmp_path):
    """The console's RAM clear presses OK as the panel sends it (press, then release), so a
    second RAM clear in the same boot, with no OK pressed at the table since, works too."""
    t = Table(tmp_path)
    t.key(True)
    assert t.ask("ram_clear")["phase"] == "RAM CLEAR"
    assert t.ask("ram_clear accept")["phase"] == "OPEN"
    t.c._enter_ram_error("memory failed again")     # as after a failed commit
    assert t.c.phase == tc.RAM_ERROR
    again = t.ask("ram_clear")
    assert again["ok"] and again["phase"] == "RAM CLEAR", again
    assert t.ask("ram_clear accept")["phase"] == "OPEN"


def test_after_a_ram_clear_status_hits_and_log_never_name_two_rounds_by_one_number(tmp_path):
    """The log outlives the RAM clear: the rounds after it are numbered after the log's, so
    that the console's status, hits and log replies never give one number to two rounds."""
    t = ready_table(tmp_path)
    royal_round(t)                                  # round 1, in the log
    rewrite_both_copies(tmp_path, t.memory, lambda s: s.__setitem__("round", b"xyz"))
    t.boot()
    assert t.ask("status")["phase"] == "RAM ERROR"  # a record the table cannot read
    t.key(True)
    assert t.ask("ram_clear")["phase"] == "RAM CLEAR"
    assert t.ask("ram_clear accept")["round"] == 2
    t.key(False)
    royal_round(t)
    assert [h["round"] for h in t.ask("hits")["hits"]] == [2]
    entries = t.ask("log")["entries"]
    assert [e[2] for e in entries if e[3] == ev.LOCK] == [1, 2]
    assert [e[2] for e in entries if e[3] == ev.JACKPOT_HIT] == [1, 2]
    assert t.ask("status")["round"] == 3


def test_ram_clear_refused_when_memory_is_good(table):
    royal_round(table)
    table.key(True)
    before = table.fingerprint()
    for line, code in (("ram_clear", svc.NOT_NOW), ("ram_clear accept", svc.NOT_NOW),
                       ("ram_clear now", svc.BAD_ARGUMENT)):
        reply = table.ask(line)
        assert (reply["ok"], reply["code"]) == (False, code), line
    assert table.fingerprint() == before


def test_ram_clear_accept_needs_a_start(tmp_path):
    t = Table(tmp_path)
    t.key(True)
    before = t.fingerprint()
    reply = t.ask("ram_clear accept")
    assert reply["code"] == svc.NOT_NOW and "send ram_clear first" in reply["error"]
    assert t.fingerprint() == before


# ---------------------------------------------------------------------- the clock

# 2026-12-01T04:30:00 UTC in seconds since 1970, by the host's calendar, not the firmware's
SET_AT = calendar.timegm((2026, 12, 1, 4, 30, 0))


def unsure_table(tmp_path):
    """A table whose clock went back at a power cut: its log's newest time is 50000 and the
    board's clock reads 1000 and a bit, so its times go on from 50000, marked unknown."""
    t = ready_table(tmp_path)
    t.c.tick(t.tick(), 50000)
    t.c.commit_admin([(ev.TAMPER, 1)])
    t.raw = 1000 + t.now                    # what the board's clock reads at the boot
    t.boot()
    assert (t.c.wall, t.memory.clock_unsure) == (50000, True)
    return t


def test_clock_set_makes_the_times_logged_after_it_known_again(tmp_path):
    t = unsure_table(tmp_path)
    t.c.commit_admin([(ev.TAMPER, 2)])            # before the set: marked
    t.key(True)
    reply = t.ask("clock_set 2026-12-01T04:30:00")
    assert reply == {"ok": True, "cmd": "clock_set", "time": SET_AT, "moved": SET_AT - 50000,
                     "was_unsure": True}
    status = t.ask("status")
    assert (status["time"], status["time_unsure"]) == (SET_AT, False)
    t.c.tick(t.tick(), t.raw + 65)                # the board's clock a minute on
    t.c.commit_admin([(ev.TAMPER, 3)])
    rows = [(e[1], e[3], e[4], e[5], e[6], e[8]) for e in t.ask("log")["entries"][-4:]]
    # the set is logged at the time set, unmarked: CONFIG_CHANGE of the clock (99), b how
    # far it moved, c 1: the times before it were not known
    assert rows == [(50000, ev.POWER_UP, 0, 0, 0, True), (50000, ev.TAMPER, 2, 0, 0, True),
                    (SET_AT, ev.CONFIG_CHANGE, 99, SET_AT - 50000, 1, False),
                    (SET_AT + 65, ev.TAMPER, 3, 0, 0, False)]


def test_a_clock_set_twice_logs_how_far_it_moved_the_second_time(tmp_path):
    t = ready_table(tmp_path)                     # the clock believed (1000): not unsure
    t.key(True)
    assert t.ask("clock_set 2026-12-01T04:30:00Z")["was_unsure"] is False
    reply = t.ask("clock_set 2026-12-02T05:31:01")
    assert (reply["ok"], reply["moved"], reply["was_unsure"]) == (True, 86400 + 3661, False)
    entries = t.ask("log")["entries"]
    assert [(e[3], e[4], e[5], e[6]) for e in entries[-2:]] == [
        (ev.CONFIG_CHANGE, 99, SET_AT - 1000, 0), (ev.CONFIG_CHANGE, 99, 86400 + 3661, 0)]


@pytest.mark.parametrize("value, error", [
    ("", "clock_set: expected a UTC time as YYYY-MM-DDThh:mm:ss, got ''"),
    ("2026-12-01 04:30:00", "clock_set: expected a UTC time as YYYY-MM-DDThh:mm:ss, got "
                            "'2026-12-01 04:30:00'"),
    ("2026-12-1T04:30:00", "clock_set: expected a UTC time as YYYY-MM-DDThh:mm:ss, got "
                           "'2026-12-1T04:30:00'"),
    ("2026-12-01T04:30:00+01:00", "clock_set: expected a UTC time as YYYY-MM-DDThh:mm:ss, "
                                  "got '2026-12-01T04:30:00+01:00'"),
    ("2026-02-29T04:30:00", "clock_set: day 29 is not 1..28 in 2026-02"),
    ("2026-04-31T04:30:00", "clock_set: day 31 is not 1..30 in 2026-04"),
    ("2026-12-00T04:30:00", "clock_set: day 0 is not 1..31 in 2026-12"),
    ("2026-13-01T04:30:00", "clock_set: month 13 is not 1..12"),
    ("2026-12-01T24:00:00", "clock_set: hour 24 is not 0..23"),
    ("2026-12-01T04:60:00", "clock_set: minute 60 is not 0..59"),
    ("2026-12-01T04:30:60", "clock_set: second 60 is not 0..59"),
    ("2024-12-01T04:30:00", "clock_set: year 2024 is not 2025..2099"),
])
def test_clock_set_refuses_a_time_that_is_not_one_saying_what_is_wrong(tmp_path, value, error):
    t = unsure_table(tmp_path)
    t.key(True)
    before = t.fingerprint()
    reply = t.ask(("clock_set " + value).strip())
    assert (reply["ok"], reply["code"], reply["error"]) == (False, svc.BAD_ARGUMENT, error)
    assert t.fingerprint() == before and t.memory.clock_unsure


def test_a_leap_day_is_a_date(tmp_path):
    t = ready_table(tmp_path)
    t.key(True)
    assert t.ask("clock_set 2028-02-29T23:59:59")["time"] == calendar.timegm(
        (2028, 2, 29, 23, 59, 59))


def test_clock_set_before_the_newest_logged_time_is_refused_and_logs_nothing(tmp_path):
    t = ready_table(tmp_path)
    t.c.tick(t.tick(), SET_AT)                    # a time the table knows (NTP, say)
    t.c.clock_set()
    t.c.commit_admin([(ev.TAMPER, 1)])            # logged at 04:30:00
    t.c.tick(t.tick(), SET_AT + 600)              # ten minutes on, nothing logged since
    t.key(True)
    before = t.fingerprint()
    reply = t.ask("clock_set 2026-12-01T04:29:59")
    assert (reply["ok"], reply["code"]) == (False, svc.BAD_ARGUMENT)
    assert reply["error"] == ("clock_set: 2026-12-01T04:29:59 is before the log's newest time, "
                              "2026-12-01T04:30:00 (entry #1): its times never go back")
    assert t.fingerprint() == before and t.c.wall == SET_AT + 600
    # back to the newest time itself is no step back: the log stays in order
    assert t.ask("clock_set 2026-12-01T04:30:00")["moved"] == -600
    assert [e[1] for e in t.ask("log")["entries"][-2:]] == [SET_AT, SET_AT]


def test_clock_set_needs_the_key_and_the_table_between_rounds(tmp_path):
    t = unsure_table(tmp_path)
    before = t.fingerprint()
    reply = t.ask("clock_set 2026-12-01T04:30:00")
    assert (reply["code"], reply["error"]) == (
        svc.NOT_AUTHORISED, "clock_set needs the supervisor: turn the key switch on")
    t.chip(1)
    t.press(btn.LOCK)
    t.key(True)
    before = t.fingerprint()
    reply = t.ask("clock_set 2026-12-01T04:30:00")
    assert reply["code"] == svc.NOT_NOW and "the table is in LOCKED" in reply["error"]
    assert t.fingerprint() == before and t.memory.clock_unsure


def test_clock_set_that_cannot_be_committed_leaves_the_clock_as_it_was(tmp_path):
    t = unsure_table(tmp_path)
    t.key(True)
    t.memory.copies = [FailingSlot(s) for s in t.memory.copies]
    reply = t.ask("clock_set 2026-12-01T04:30:00")
    assert (reply["ok"], reply["code"]) == (False, svc.STORE_FAILED)
    assert reply["error"].startswith("not committed, the clock not set: ")
    status = t.ask("status")
    assert (status["time"], status["time_unsure"]) == (50000, True)


def test_a_power_cut_at_any_write_of_a_clock_set_keeps_its_entry_whole_or_not_at_all(tmp_path):
    def make(d):
        return unsure_table(d)

    def action(t):
        t.key(True)
        t.ask("clock_set 2026-12-01T04:30:00")

    def check(t, state, before, after, cut):
        assert state in (before, after), cut
        assert t.memory.log_broken_at is None
        entries = t.ask("log")["entries"]
        sets = [e for e in entries if e[3] == ev.CONFIG_CHANGE]
        assert sets == ([] if state == before else [sets[0]])
        if sets:
            assert (sets[0][1], sets[0][4:7], sets[0][8]) == (SET_AT, [99, SET_AT - 50000, 1], False)
        # no battery clock: the boot after the cut does not know the time, and goes on from
        # the newest one logged, never before it
        times = [e[1] for e in entries]
        assert times == sorted(times) and t.c.wall == times[-1]
        assert t.memory.clock_unsure and entries[-1][3] == ev.POWER_UP and entries[-1][8]
        t.key(True)
        assert t.ask("clock_set 2026-12-01T04:30:00")["ok"] is True
        assert t.ask("status")["time_unsure"] is False

    assert cut_at_every_write(tmp_path, make, action, check) == 2


# ---------------------------------------------------------------------- hostile lines

@pytest.mark.parametrize("raw,code,words", [
    (b"x" * 5000 + b"\n", svc.BAD_LINE, "longer than 1024"),
    (b"meters\x00\n", svc.BAD_LINE, "byte 0x00 at column 7"),
    (b"\xff\xfe\xfd\n", svc.BAD_LINE, "byte 0xff at column 1"),
    (b"\x1b[A meters\n", svc.BAD_LINE, "byte 0x1b"),
    (b"\n", svc.BAD_LINE, "empty line"),
    (b"   \t \n", svc.BAD_LINE, "empty line"),
    (b"METERS\n", svc.UNKNOWN, "unknown command 'METERS'"),
    (b"rm -rf /\n", svc.UNKNOWN, "unknown command 'rm'"),
    (b"meters now\n", svc.BAD_ARGUMENT, "takes no arguments"),
    (b"log -1\n", svc.BAD_ARGUMENT, "START '-1' is not a whole number"),
    (b"log 99999999999\n", svc.BAD_ARGUMENT, "1..10 digits"),
    (b"log 9999\n", svc.BAD_ARGUMENT, "outside the held entries"),
    (b"log 0 0\n", svc.BAD_ARGUMENT, "COUNT 0 must be 1..32"),
    (b"log 0 33\n", svc.BAD_ARGUMENT, "COUNT 33"),
    (b"log 0 1 2\n", svc.BAD_ARGUMENT, "expected log [START [COUNT]]"),
    (b"log 1e3\n", svc.BAD_ARGUMENT, "not a whole number"),
])
def test_hostile_lines_get_an_error_and_change_nothing(table, raw, code, words):
    table.key(True)
    before = table.fingerprint()
    reply = table.ask(raw)
    assert (reply["ok"], reply["code"]) == (False, code)
    assert words in reply["error"]
    assert table.fingerprint() == before
    assert table.ask("status")["ok"] is True     # and the next line is answered normally


@pytest.mark.parametrize("line,cmd,check", [
    # a terminal or a script may send a tab between words: any run of spaces and tabs is one
    # separator (docs/service-protocol.md)
    (b"log\t5\n", "log", lambda r: r["start"] == 5),
    (b"log \t 5\t\t3\n", "log", lambda r: [e[0] for e in r["entries"]] == [5, 6, 7]),
    (b"status\t\n", "status", lambda r: r["phase"] == "OPEN"),
    (b'config\t\n', "config", lambda r: r["jackpot"]["wager"] == 100),
])
def test_tabs_separate_words_like_spaces(table, line, cmd, check):
    for _ in range(6):
        table.c.panel(btn.DOOR_OPEN, 0, table.tick(tc._DOOR_LOG_MS))
        table.c.panel(btn.DOOR_CLOSED, 0, table.tick(tc._DOOR_LOG_MS))
    reply = table.ask(line)
    assert reply["ok"] is True and reply["cmd"] == cmd, reply
    assert check(reply)


def test_a_tab_before_a_supervisor_argument_is_a_separator(tmp_path):
    t = Table(tmp_path)
    t.key(True)
    assert t.ask(b"ram_clear\n")["ok"] is True
    reply = t.ask(b"ram_clear\taccept\n")
    assert reply["ok"] is True and reply["phase"] == "OPEN", reply
    t.key(True)
    reply = t.ask(b'config_set\t{"wager": 200}\n')
    assert reply["ok"] is True and reply["changes"] == [["wager", 100, 200]], reply


def test_binary_flood_is_answered_line_by_line_and_the_buffer_recovers(table):
    import random
    rng = random.Random(7)
    garbage = bytes(rng.randrange(256) for _ in range(20000))
    before = table.fingerprint()
    table.port.rx += garbage + b"\n"
    for _ in range(2000):
        table.service.poll(table.tick())
        if not table.port.rx:
            break
    replies = table.port.replies()
    assert replies and all(r["ok"] is False for r in replies)
    # one reply per line end: a CR, an LF, or a CR LF pair (counted once)
    text = garbage + b"\n"
    ends = text.count(b"\r") + text.count(b"\n") - text.count(b"\r\n")
    assert len(replies) == ends
    assert table.fingerprint() == before
    assert table.ask("status")["phase"] == "OPEN"


def test_an_unfinished_line_is_dropped_after_the_timeout(table):
    table.port.rx += b'config_set {"wager": 2'
    table.service.poll(table.tick())
    assert table.port.replies() == []
    table.service.poll(table.tick(svc.LINE_TIMEOUT_MS + 20))
    reply = table.port.replies()
    assert len(reply) == 1 and reply[0]["code"] == svc.BAD_LINE and "incomplete line" in reply[0]["error"]
    assert table.ask("config")["jackpot"]["wager"] == 100     # the rest was not glued on


def test_a_command_typed_slowly_by_hand_is_taken(table):
    # 0.4 s a key: the line takes 2.8 s, longer than the timeout, which counts from the last byte
    for ch in b"status\n":
        table.port.rx += bytes([ch])
        for _ in range(20):
            table.service.poll(table.tick())
    replies = table.port.replies()
    assert len(replies) == 1 and replies[0]["cmd"] == "status" and replies[0]["ok"]


def test_a_line_split_across_polls_and_crlf_is_one_command(table):
    table.port.rx += b"sta"
    table.service.poll(table.tick())
    table.port.rx += b"tus\r\n"
    table.service.poll(table.tick())
    replies = table.port.replies()
    assert len(replies) == 1 and replies[0]["cmd"] == "status"


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"])
def test_enter_in_any_terminal_program_ends_the_line(table, ending):
    # PuTTY, minicom, screen and picocom send CR alone for Enter; mpremote LF; others CR LF:
    # each is one line end, answered at once (not dropped as unfinished two seconds later)
    table.port.rx += b"status" + ending + b"help" + ending
    table.service.poll(table.tick())
    replies = table.port.replies()
    assert [r["cmd"] for r in replies] == ["status", "help"] and all(r["ok"] for r in replies)
    table.service.poll(table.tick(svc.LINE_TIMEOUT_MS + 20))
    assert table.port.replies() == []               # nothing left over, no empty line


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"])
def test_the_console_watch_answers_each_line_end_while_the_protocol_cannot_load(
        table, monkeypatch, ending):
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    table.port.rx += b"status" + ending + b"help" + ending
    watch.poll(table.tick())
    watch.poll(table.tick())                # one reply a pass
    replies = table.port.replies()
    assert [r["code"] for r in replies] == [svc.INTERNAL] * 2 and watch.refused == 2


def test_the_console_watch_reads_a_chunk_a_pass_while_the_protocol_cannot_load(
        table, monkeypatch):
    # a full heap, and Enter held down (or a pasted page) on a 115,200-baud console: every
    # line end waiting was answered in one pass, 300 of them 45 KB, 4 s of blocking writes
    # against the 2 s watchdog; at most a read chunk's worth of bytes is taken a pass
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    table.port.rx += b"\n" * 300 + b"x" * 200
    watch.poll(table.tick())
    assert len(table.port.replies()) == 1 and watch.refused == 1
    for _ in range(299):
        watch.poll(table.tick())
    assert watch.refused == 300 and len(table.port.rx) == 200
    assert len(table.port.replies()) == 299
    watch.poll(table.tick())                # a line without its end: a chunk a pass
    assert len(table.port.rx) == 200 - svc.READ_CHUNK and table.port.replies() == []


def test_the_console_watch_blocks_a_pass_for_one_reply_at_most(table, monkeypatch):
    # 64 line ends in one read chunk (Enter held down, or a pasted page) were all answered
    # in one pass: 64 replies of 146 bytes (159 now), 0.8 s of blocking writes on a 115,200-baud
    # console, against the 20 ms tick and the 2 s watchdog; one reply a pass is 14 ms
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    table.port.rx += b"\r" * 64 + b"\n" * 64
    longest = 0
    for _ in range(200):
        before = len(table.port.tx)
        watch.poll(table.tick())
        longest = max(longest, len(table.port.tx) - before)
    assert watch.refused == 127 and not table.port.rx    # (the last CR and the first LF: one)
    assert longest * 1000 // 11520 < app.TICK_MS, longest



def test_a_line_typed_while_the_protocol_could_not_load_is_refused_whole(table, monkeypatch):
    # typed by hand, a key a pass: "st" arrived while the heap was full (dropped), then the
    # protocol loaded and took "atus" for a command: "unknown command 'atus'"; the line whose
    # start was dropped is refused whole, and the next line goes to the protocol
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    watch.app.service = watch
    for ch in b"status\n":
        table.port.rx += bytes([ch])
        watch.app.service.poll(table.tick())
        if ch == ord("t") and sys.modules.get("firmware.service", 1) is None:
            monkeypatch.delitem(sys.modules, "firmware.service")    # the heap has room again
    replies = table.port.replies()
    assert [r["code"] for r in replies] == [svc.INTERNAL], replies
    assert "could not be loaded" in replies[0]["error"]
    table.port.rx += b"status\n"
    watch.app.service.poll(table.tick())
    assert [r["cmd"] for r in table.port.replies()] == ["status"]




def test_a_line_abandoned_while_the_protocol_could_not_load_is_forgotten_after_the_timeout(
        table, monkeypatch):
    # "sta" typed while the heap was full, then nothing: the next command, typed minutes
    # later with the heap free, was refused as the end of that line; as in the protocol, an
    # unfinished line is dropped after LINE_TIMEOUT_MS without a byte
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    watch.app.service = watch
    assert app._LINE_TIMEOUT_MS == svc.LINE_TIMEOUT_MS
    table.port.rx += b"sta"
    watch.app.service.poll(table.tick())
    monkeypatch.delitem(sys.modules, "firmware.service")         # the heap has room again
    watch.app.service.poll(table.tick(svc.LINE_TIMEOUT_MS))
    table.port.rx += b"status\n"
    watch.app.service.poll(table.tick())
    assert [r.get("cmd") for r in table.port.replies()] == ["status"]


def test_a_crlf_line_refused_while_the_protocol_could_not_load_gets_one_reply(table, monkeypatch):
    # its CR answered by the stand-in, the protocol loaded at the LF and took it for an
    # empty line: two replies to one line
    import sys

    from firmware import app
    monkeypatch.setitem(sys.modules, "firmware.service", None)   # its import fails
    watch = app.ConsoleWatch(type("Shell", (), {"controller": table.c})(), port=table.port)
    watch.app.service = watch
    table.port.rx += b"status\r\n"
    watch.app.service.poll(table.tick())
    monkeypatch.delitem(sys.modules, "firmware.service")         # the heap has room again
    for _ in range(3):
        watch.app.service.poll(table.tick())
    assert [r["code"] for r in table.port.replies()] == [svc.INTERNAL]
    table.port.rx += b"status\r\n"
    watch.app.service.poll(table.tick())
    assert [r["cmd"] for r in table.port.replies()] == ["status"]
    # the LF of a CR LF refused alone, in the next pass: no line begun, the next one loads
    monkeypatch.setitem(sys.modules, "firmware.service", None)
    watch = app.ConsoleWatch(watch.app, port=table.port)
    watch.app.service = watch
    table.port.rx += b"status\r"
    watch.poll(table.tick())
    table.port.rx += b"\n"
    watch.poll(table.tick())
    monkeypatch.delitem(sys.modules, "firmware.service")
    table.port.rx += b"help\n"
    watch.poll(table.tick())
    assert [r.get("cmd") for r in table.port.replies()] == [None, "help"]


def test_a_crlf_split_between_two_polls_is_one_line_end(table):
    table.port.rx += b"status\r"
    table.service.poll(table.tick())
    table.port.rx += b"\nhelp\r\n"
    table.service.poll(table.tick())
    assert [r["cmd"] for r in table.port.replies()] == ["status", "help"]


def test_poll_reads_at_most_a_chunk_per_pass(table):
    table.port.rx += b"status\n" * 20            # 140 bytes
    table.service.poll(table.tick())
    assert len(table.port.rx) == 140 - svc.READ_CHUNK


def test_a_pasted_batch_of_log_lines_goes_out_over_passes_within_the_watchdog(table):
    # On a 115,200-baud UART console (the ESP32-S3's UART0) a write blocks the loop until the
    # bytes are sent (11,520 a second), and the loop feeds the 2 s watchdog once a pass.
    # 16 "log" lines arrive in one 64-byte read: answered in one pass, 16 pages of 32 entries
    # (27 KB) took 2.4 s and the watchdog reset the table.
    for _ in range(2):
        assert table.c.commit_admin([(ev.TAMPER, 1)] * 20) == ""
    port = table.port
    port.rx += b"log\n" * 16
    longest = 0
    for _ in range(40):
        before = len(port.tx)
        table.service.poll(table.tick())
        longest = max(longest, len(port.tx) - before)
    replies = port.replies()
    assert [len(r["entries"]) for r in replies] == [32] * 16          # every line answered
    assert longest * 1000 // 11520 < 1000, longest       # each pass well inside the 2 s


def test_an_internal_failure_is_a_reply_not_a_crash(table):
    def broken(start=None, stop=None):
        raise OSError(5, "EIO")
        yield  # pragma: no cover
    table.memory.log.entries = broken
    reply = table.ask("log")
    assert (reply["ok"], reply["code"]) == (False, svc.INTERNAL) and "OSError" in reply["error"]


# ---------------------------------------------------------------------- the console port

@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_console_port_answers_on_stdin_stdout(runtime):
    """The board's wiring (ConsolePort on sys.stdin/stdout) under both runtimes, through a pipe."""
    import os
    import subprocess
    import sys

    from host_tests import runtimes
    script = str(runtimes.ROOT / "host_tests" / "service_console_mp.py")
    env = dict(os.environ)
    if runtime == "micropython":
        command = [runtimes.micropython_binary(), script, "3"]
        env["MICROPYPATH"] = ".frozen:" + str(runtimes.ROOT)
    else:
        command = [sys.executable, script, "3"]
        env["PYTHONPATH"] = str(runtimes.ROOT)
    process = subprocess.Popen(command, cwd=str(runtimes.ROOT), env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"ready\n"
    out, err = process.communicate(b"status\nlog 0 40\n\x07bell\n", timeout=30)
    replies = [json.loads(line) for line in out.decode().splitlines()]
    assert [r.get("cmd") for r in replies] == ["status", "log", None], out + err
    assert replies[0]["phase"] == "RAM ERROR"
    assert replies[1]["code"] == svc.BAD_ARGUMENT and replies[2]["code"] == svc.BAD_LINE
    assert b"idle-allocated 0" in err
    assert b"write-allocated 0" in err      # a reply goes out with the heap full too
    assert b"service-loaded-idle 0" in err    # the protocol's code loads at the first byte


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_console_watch_answers_when_the_protocol_cannot_load(runtime):
    """ConsoleWatch loads firmware.service at the first byte; when that fails (MicroPython: a
    locked heap, as a full one; CPython: the module unimportable) the line gets an error reply
    in the protocol's form, the table plays on, and the next line loads the protocol."""
    from firmware import app
    from host_tests import runtimes
    script = runtimes.ROOT / "host_tests" / "console_watch_mp.py"
    done = (runtimes.run_micropython(script) if runtime == "micropython"
            else runtimes.run_cpython(script))
    assert done.returncode == 0, done.stdout + done.stderr
    f = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert (f["refused"], f["still_watching"], f["reply_ok"]) == ("1", "1", "0")
    assert f["reply_code"] == svc.INTERNAL == app.SERVICE_UNAVAILABLE
    assert "could not be loaded" in f["reply_error"]
    # the protocol's failure shape, docs/service-protocol.md: "cmd" null as for any line
    # whose command is not known (the reply had no "cmd" at all)
    assert f["reply_keys"] == "cmd code error ok cmd null"
    assert ("heap is full" if runtime == "micropython" else "firmware.service") in f["reply_error"]
    assert (f["service_loaded"], f["second_cmd"]) == ("1", "status 1")
    # a line the loaded protocol has no heap to answer: a MemoryError out of the poll stopped
    # the table's loop (and the watchdog reset it, a round in play or not)
    assert (f["full_heap_survived"], f["full_heap_code"]) == ("1", svc.INTERNAL), f
    assert "no heap left" in f["full_heap_error"] and f["after_full_heap"] == "help"


def test_status_gives_the_shoes_last_rejected_line_for_the_technician(table):
    from host_tests.test_drivers_shoe import feed

    assert table.ask("status")["shoe_last_rejected"] == ""          # the table's own: none
    shoe, events = feed(b"S3 A\rs\n")                                # a CR inside the line
    service = svc.Service(table.c, table.port, shoe=shoe)
    reply = service.handle("status")
    assert reply["shoe_last_rejected"] == "shoe line rejected (garbage bytes): 'S3 A\\x0ds'"


@pytest.mark.parametrize("game, stopped", [(tc.UTH, "JACKPOT DISABLED"), (tc.FCP, "ROUNDS DISABLED"),
                                           (tc.BRS, "ROUNDS DISABLED")])
def test_memory_text_in_ram_error_says_what_it_stops_at_the_tables_game(tmp_path, game, stopped):
    # a Four Card Poker or Big Raise Stud table has no jackpot: its memory line said JACKPOT
    # DISABLED while its dealer display said ROUNDS DISABLED
    t = Table(tmp_path)
    t.game = game
    t.boot()                                     # blank memory: RAM ERROR
    text = t.ask("status")["memory_text"]
    assert text == "RAM ERROR - %s (memory blank)" % stopped, text
    assert stopped in t.screen()


@pytest.mark.parametrize("game", [tc.FCP, tc.BRS])
def test_ram_clear_at_a_game_without_the_progressive_lists_no_pool_to_reset(tmp_path, game):
    # its RAM CLEAR screen says "no jackpot pool"; the reply listed a $10,000 main pool reset
    t = Table(tmp_path)
    t.game = game
    t.boot()                                     # blank memory: RAM ERROR
    t.key(True)
    started = t.ask("ram_clear")
    assert started["ok"] and started["phase"] == "RAM CLEAR" and started["reset"] == {}, started
    assert "no jackpot pool" in t.screen()
    assert t.ask("ram_clear accept")["ok"] and t.c.game == game



def test_the_seed_a_ram_clear_puts_in_the_pools_is_in_its_log_entry(tmp_path):
    # the RAM clear seeds each pool with its reset amount, counted on the operator_additions
    # meter, but only a reset after a hit and a split's seed were logged (OPERATOR_ADDITION):
    # the log accounted for $11,000.00 fewer operator additions than the meter reported
    t = Table(tmp_path)
    t.jackpot_config = {"split": True, "minor": {"reset": 100000}, "major": {"reset": RESET}}
    t.boot()
    t.ram_clear()
    assert [e[3:7] for e in t.memory.log.events()] == [(ev.RAM_CLEAR, 1, 0, 100000 + RESET)]
    assert t.ask("meters")["table"]["operator_additions"] == 100000 + RESET
    royal_round(t)                          # the Major pool's reset after it: logged as before
    logged = [e[6] for e in t.memory.log.events() if e[3] in (ev.RAM_CLEAR, ev.OPERATOR_ADDITION)]
    assert logged == [100000 + RESET, RESET]
    assert sum(logged) == t.ask("meters")["table"]["operator_additions"]


def test_a_ram_clear_without_a_seed_or_a_progressive_logs_none(tmp_path):
    t = Table(tmp_path)
    t.jackpot_config = None                 # the default: no reset amount
    t.boot()
    t.ram_clear()
    assert [e[3:7] for e in t.memory.log.events()] == [(ev.RAM_CLEAR, 1, 0, 0)]
    (tmp_path / "fcp").mkdir()
    f = Table(tmp_path / "fcp")
    f.game = tc.FCP                         # its record's default pool is no pool of its
    f.boot()
    f.ram_clear()
    assert [e[3:7] for e in f.memory.log.events()] == [(ev.RAM_CLEAR, 1, 0, 0)]


def test_the_meters_reply_accounts_for_every_cent_wagered_as_documented(tmp_path):
    # docs/service-protocol.md: wagered - voided = the pools' net increments + the net
    # retention + carried, to the cent; a rate of 33.3333% leaves a fraction of a cent per
    # wager, carried in millionths of a cent (carry_ppm) until it makes a whole one
    table = Table(tmp_path)
    table.jackpot_config = {"wager": 200, "main": {"rate": (333333, 1000000),
                                                   "reserve_rate": (7, 1000)}}
    table.boot()
    table.ram_clear()
    for seats in ((1, 2, 3), (4,), (1, 5, 6, 7)):
        for seat in seats:
            table.chip(seat)
        table.press(btn.LOCK)
        table.key(True)
        table.press(btn.BACK, long=True)    # a void round: its reversal counts too
        table.key(False)
        table.press(btn.SETTLE)
        for seat in seats:
            table.c.spot(sens.REMOVED, sens.jackpot_spot(seat), table.tick())
            table.c.spot(sens.REMOVED, sens.ante_spot(seat), table.tick())
        for seat in seats:
            table.chip(seat)
        table.press(btn.LOCK)
        table.deal([(s, h) for s, h in zip(seats, ("2c 3d", "4h 6s", "8c 9c", "Jd Qd"))]
                   + [(8, "As Kh 7d 5c Th"), (0, "2s 3s")])
        table.press(btn.SETTLE)
        assert table.c.phase == tc.RESULTS
        table.press(btn.SETTLE)
        for seat in seats:
            table.c.spot(sens.REMOVED, sens.jackpot_spot(seat), table.tick())
            table.c.spot(sens.REMOVED, sens.ante_spot(seat), table.tick())
    reply = table.ask("meters")
    t, p = reply["table"], reply["pools"]["main"]
    assert (t["wagered"], t["voided"]) == (2 * 8 * 200, 8 * 200)
    increments = (p["contributions"] - p["contributions_reversed"] + p["reserve_contributions"]
                  - p["reserve_reversed"])
    assert 0 <= t["carried"] <= 4 and 0 < p["carry_ppm"] < 1000000
    assert t["wagered"] - t["voided"] == (increments + t["retention"] - t["retention_reversed"]
                                          + t["carried"])
    # by hand: 1,600 cents kept; 33.3333% is 533.33280 of them, 0.7% 11.2
    assert p["contributions"] - p["contributions_reversed"] == 533
    assert p["carry_ppm"] == 332800
    assert p["reserve_contributions"] - p["reserve_reversed"] == 11
    assert p["reserve_carry_ppm"] == 200000
    assert t["carried"] == 1 and t["retention"] - t["retention_reversed"] == 1600 - 533 - 11 - 1


def test_a_hits_pool_after_is_before_the_rounds_envy_bonuses_as_documented(tmp_path):
    # two flushes, each paying $1.00 of envy bonus to the two other seats: each hit's
    # pool_before/pool_after is its own payout (100 to 1, $100.00); the four bonuses come after
    table = Table(tmp_path)
    table.jackpot_config = {"main": {"reset": RESET}, "envy": {"flush": 100}}
    table.boot()
    table.ram_clear()
    for seat in (1, 2, 3):
        table.chip(seat)
    table.press(btn.LOCK)
    table.deal([(1, "Ah Kh"), (2, "2h 7h"), (3, "Ac Kd"), (8, "Qh Jh 3h 4c 9d"), (0, "9c 9s")])
    table.settle()
    assert table.c.phase == tc.RESULTS
    hits = table.ask("hits")["hits"]
    start = RESET + 3 * 70
    assert [(h["pool_before"], h["pool_after"]) for h in hits] == [
        (start, start - 10000), (start - 10000, start - 20000)]
    after = start - 20000 - 4 * 100
    assert table.ask("meters")["pools"]["main"]["value"] == after
    settle = [e for e in table.memory.log.events() if e[3] == ev.SETTLE]
    assert [e[5:7] for e in settle] == [(20400, after)]


def test_a_split_tables_settle_entry_carries_both_pools_total_as_documented(tmp_path):
    table = Table(tmp_path)
    table.jackpot_config = {"split": True, "minor": {"reset": 100000}, "major": {"reset": RESET}}
    table.boot()
    table.ram_clear()
    for seat in (1, 2):
        table.chip(seat)
    table.press(btn.LOCK)
    table.deal([(1, "Ah Kh"), (2, "2c 3d"), (8, "Qh Jh 3h 4c 9d"), (0, "9c 9s")])
    table.settle()
    pools = table.ask("meters")["pools"]
    # a flush, 100 to 1, from the Minor pool: $1,000.00 + 2 x 20 cents - $100.00
    assert (pools["minor"]["value"], pools["major"]["value"]) == (90040, RESET + 100)
    settle = [e[5:7] for e in table.memory.log.events() if e[3] == ev.SETTLE]
    assert settle == [(10000, 90040 + RESET + 100)]
