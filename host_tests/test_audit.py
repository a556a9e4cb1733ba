"""tools/audit.py end to end: the simulator's firmware main loop answering the service protocol.

Every protocol command is sent through tools.audit to `python -m tools.sim --service` (the
app's loop with the service polled in App.step).  Expected amounts are worked out by hand
from the default jackpot configuration (100-cent wager, 70/100 to the pool, reset 1,000,000
cents) and rules.md 11.9 (royal flush: 10,000 to 1 or 100% of the pool, the greater).  The
hash-chain oracle is built here with hashlib and struct from the entry layout documented in
firmware/store/eventlog.py, not with the module's own link_of.
"""

import csv
import hashlib
import json
import os
import select
import struct
import threading
import time
import tty

import pytest

from firmware import service as svc
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot, PathFS
from firmware.table import controller as tc
from tools import audit

RESET = 1000000
ROYAL_ROUND = ["chip 1", "ante 1", "chip 3", "ante 3", "press LOCK",
               "shoe S1 As", "shoe S1 Ks", "shoe S3 2c", "shoe S3 7d",
               "shoe B Qs", "shoe B Js", "shoe B Ts", "shoe B 3h", "shoe B 4h",
               "shoe D 9c", "shoe D 9d", "press SETTLE", "key on", "press OK", "key off",
               "press SETTLE", "chip 1 off", "chip 3 off"]     # paid: the dealer takes the chips


def ram_clear(link):
    link.sim("key on")
    assert audit.ask(link, "ram_clear")["phase"] == "RAM CLEAR"
    assert audit.ask(link, "ram_clear accept")["phase"] == "OPEN"
    link.sim("key off")


@pytest.fixture
def sim():
    link = audit.SimLink(fresh=True)
    yield link
    link.close()


def test_every_command_against_the_simulator(sim):
    assert audit.ask(sim, "help")["protocol"] == svc.PROTOCOL
    status = audit.ask(sim, "status")
    assert (status["phase"], status["memory"]) == ("RAM ERROR", "RAM ERROR")
    assert sim.request("meters")["code"] == svc.RAM_ERROR
    assert sim.request("ram_clear")["code"] == svc.NOT_AUTHORISED
    ram_clear(sim)
    for line in ROYAL_ROUND:
        sim.sim(line)
    hits = audit.ask(sim, "hits")["hits"]
    assert [(h["round"], h["seat"], h["hand"], h["amount"]) for h in hits] == \
        [(1, 1, "Royal Flush", RESET + 140)]          # 100% of 1,000,140 > 10,000 x 100
    meters = audit.ask(sim, "meters")
    assert meters["pools"]["main"]["value"] == RESET  # reset after the royal
    assert meters["table"]["paid"] == RESET + 140 and meters["audit"] == []
    log = audit.ask(sim, "log")
    # the reset after the royal is the operator's money: logged in the settle's commit
    assert [e[3] for e in log["entries"]] == [ev.RAM_CLEAR, ev.LOCK, ev.SUPERVISOR_CONFIRM,
                                              ev.JACKPOT_HIT, ev.OPERATOR_ADDITION, ev.SETTLE]
    program = audit.ask(sim, "program")
    assert program["checked"] is False and program["verified"] is False  # the simulator has no build manifest
    assert program["text"] == "not checked"
    assert sim.request('config_set {"wager": 200}')["code"] == svc.NOT_AUTHORISED
    sim.sim("key on")
    assert audit.ask(sim, 'config_set {"wager": 200}')["changes"] == [["wager", 100, 200]]
    assert audit.ask(sim, "config")["jackpot"]["wager"] == 200
    before = audit.ask(sim, "status")["seq"]
    refused = sim.request('config_set {"wager": 1e9}')
    assert refused["code"] == svc.REFUSED and "config wager" in refused["error"]
    assert audit.ask(sim, "status")["seq"] == before


def test_hostile_bytes_through_the_simulators_loop_change_nothing(sim):
    ram_clear(sim)
    before = audit.ask(sim, "meters")
    seq = audit.ask(sim, "status")["seq"]
    for line in ("x" * 3000, "\x00\x01\x02", "\x7fmeters", "log 0 99", "config_set {"):
        assert sim.request(line)["ok"] is False
    assert audit.ask(sim, "meters") == before
    assert audit.ask(sim, "status")["seq"] == seq


def test_read_all_report_and_export(sim, tmp_path):
    ram_clear(sim)
    for line in ROYAL_ROUND:
        sim.sim(line)
    data = audit.read_all(sim)
    assert data["chain"]["intact"] is True and data["chain"]["checked"] == 6
    text = audit.report(data)
    assert "event log chain intact: 6 entries" in text
    assert "round 1 seat 1 Royal Flush As Ks Qs Js Ts $10001.40" in text
    assert "Books: balance" in text
    # the simulator's program is not checked: said once ("NOT CHECKED  not checked" before)
    assert [line for line in text.splitlines() if line.startswith("Program:")] == ["Program: NOT CHECKED"]
    paths = audit.export(data, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["audit.json", "events.csv", "events.json", "hits.csv",
                                             "hits.json", "meters.csv", "meters.json"]
    with open(tmp_path / "out" / "events.csv") as f:
        events = list(csv.DictReader(f))
    assert [e["kind_name"] for e in events] == ["RAM clear", "lock", "supervisor confirmation",
                                                "jackpot hit", "operator addition", "settle"]
    assert events[3]["c"] == str(RESET + 140)
    with open(tmp_path / "out" / "meters.csv") as f:
        meters = {(r["scope"], r["meter"]): int(r["value"]) for r in csv.DictReader(f)}
    assert meters[("main", "value")] == RESET and meters[("table", "wagered")] == 200
    hits = json.loads((tmp_path / "out" / "hits.json").read_text())
    assert hits[0]["cards"] == "As Ks Qs Js Ts"


def test_cli_commands_print_one_reply_each(capsys):
    rc = audit.main(["--sim", "--fresh", "--sim-command", "key on", "--command", "ram_clear",
                     "--command", "ram_clear accept", "--command", 'config_set {"wager": 500}',
                     "--command", "config"])
    replies = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 0 and [r["ok"] for r in replies] == [True] * 4
    assert replies[3]["jackpot"]["wager"] == 500
    rc = audit.main(["--sim", "--fresh", "--command", "meters"])
    assert rc == 1 and json.loads(capsys.readouterr().out)["code"] == svc.RAM_ERROR


def test_cli_audit_of_a_table_in_ram_error_says_the_log_cannot_be_checked(capsys):
    assert audit.main(["--sim", "--fresh"]) == 1
    out = capsys.readouterr().out
    assert "Meters: none (the table is in RAM ERROR)" in out
    assert "event log NOT checked: critical memory is in RAM ERROR" in out
    # a blank memory holds no entry: not "entries 0..-1 read"
    assert "Event log: no entries held\n" in out and "..-1" not in out


def play_door_events(state, pairs):
    link = audit.SimLink(state=state, fresh=True)
    try:
        ram_clear(link)
        for _ in range(pairs):
            # one entry per change: the table counts door changes that come faster than
            # _DOOR_LOG_MS into one entry (a loose switch must not flood the log)
            link.sim("door open")
            link.sim("wait %d" % tc._DOOR_LOG_MS)
            link.sim("door shut")
            link.sim("wait %d" % tc._DOOR_LOG_MS)
    finally:
        link.close()


def test_cli_audit_of_a_kept_table_pages_the_whole_log(tmp_path, capsys):
    state = tmp_path / "table"
    play_door_events(state, 20)                 # 1 + 40 events: two pages
    out = tmp_path / "export"
    assert audit.main(["--sim", "--state", str(state), "--export", str(out)]) == 0
    text = capsys.readouterr().out
    # the second boot adds its power-up event
    assert "event log chain intact: 42 entries, 42 links recomputed" in text
    assert "operator_additions" in text and "1000000" in text
    with open(out / "events.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["seq"]) for r in rows] == list(range(42))
    assert rows[-1]["kind_name"] == "power up"


def test_an_export_after_a_ram_clear_gives_each_round_its_own_number(tmp_path):
    # Round 1 (a royal) and door entries fill a log page on flash; then both copies of
    # critical memory are lost and the supervisor RAM-clears.  The log is kept: the round
    # after the clear must be round 2, so that the exported events and hits never hold two
    # different "round 1"s.
    state = tmp_path / "table"
    link = audit.SimLink(state=state, fresh=True)
    try:
        ram_clear(link)
        for line in ROYAL_ROUND:
            link.sim(line)
        for _ in range(14):
            for line in ("door open", "wait %d" % tc._DOOR_LOG_MS, "door shut",
                         "wait %d" % tc._DOOR_LOG_MS):
                link.sim(line)
    finally:
        link.close()
    (state / "fram.bin").write_bytes(bytes(len((state / "fram.bin").read_bytes())))
    (state / "flash" / "cm_a.bin").write_bytes(b"CM")
    link = audit.SimLink(state=state)
    try:
        assert audit.ask(link, "status")["memory"] == "RAM ERROR"
        ram_clear(link)
        for line in ROYAL_ROUND:
            link.sim(line)
        data = audit.read_all(link)
    finally:
        link.close()
    assert data["chain"]["intact"] is True
    audit.export(data, tmp_path / "out")
    with open(tmp_path / "out" / "events.csv") as f:
        events = list(csv.DictReader(f))
    assert [e["round"] for e in events if e["kind_name"] == "jackpot hit"] == ["1", "2"]
    assert [e["round"] for e in events if e["kind_name"] == "lock"] == ["1", "2"]
    with open(tmp_path / "out" / "hits.csv") as f:
        assert [r["round"] for r in csv.DictReader(f)] == ["2"]
    assert "round 2 seat 1 Royal Flush" in audit.report(data)


def test_a_tampered_log_page_is_found(tmp_path, capsys):
    state = tmp_path / "table"
    play_door_events(state, 20)
    page = state / "flash" / "ev00.bin"
    data = bytearray(page.read_bytes())
    at = 5 * ev.ENTRY_SIZE + 20                 # entry 5's `c` field
    data[at] ^= 0x01
    page.write_bytes(bytes(data))
    assert audit.main(["--sim", "--state", str(state)]) == 1
    assert "event log chain BROKEN at entry 5" in capsys.readouterr().out
    link = audit.SimLink(state=state)
    try:
        assert audit.ask(link, "status")["log_broken_at"] == 5     # the board saw it at boot too
    finally:
        link.close()


def test_a_missing_log_page_is_found(tmp_path, capsys):
    state = tmp_path / "table"
    play_door_events(state, 20)
    os.remove(state / "flash" / "ev00.bin")
    assert audit.main(["--sim", "--state", str(state), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["log"]["missing"] == list(range(32))
    assert data["chain"]["broken_at"] == 0


# ---------------------------------------------------------------------- chain oracle

def chain(first, rows, previous=bytes(8)):
    """Entries as the protocol gives them, linked with hashlib: link = sha256(prev + body)[:8]."""
    out = []
    for i, (t, r, k, a, b, c) in enumerate(rows):
        seq = first + i
        body = struct.pack("<IIIHHii", seq, t, r, k, a, b, c)
        previous = hashlib.sha256(previous + body).digest()[:8]
        out.append({"seq": seq, "time": t, "round": r, "kind": k, "a": a, "b": b, "c": c,
                    "link": previous.hex()})
    return out


ROWS = [(1000, 0, ev.RAM_CLEAR, 1, 0, 0), (1010, 1, ev.LOCK, 0, 5, 200),
        (1020, 1, ev.SETTLE, 0, 0, 1000140), (1030, 1, ev.DOOR_OPEN, 1, 0, 0)]


def as_log(entries, first=0, count=None, head=None):
    return {"entries": entries, "first": first, "count": len(entries) + first if count is None else count,
            "head": entries[-1]["link"] if head is None else head, "missing": []}


def test_chain_intact():
    result = audit.verify_chain(as_log(chain(0, ROWS)))
    assert result["intact"] is True and result["checked"] == 4 and result["broken_at"] is None


def test_chain_of_entries_whose_time_the_table_did_not_know():
    """Such an entry's kind field carries eventlog.CLOCK_UNSURE in its top bit, which the
    service gives as time_unsure beside the kind: the chain is recomputed with it, the report
    says which entries' times are not times of day, and the export has the column."""
    marked = [(t, r, k | 0x8000 if i in (1, 2) else k, a, b, c)
              for i, (t, r, k, a, b, c) in enumerate(ROWS)]
    entries = chain(0, marked)
    for i, e in enumerate(entries):
        e["kind"] &= 0x7FFF
        e["time_unsure"] = i in (1, 2)
    assert audit.verify_chain(as_log(entries))["intact"] is True
    entries[1]["time_unsure"] = False            # the mark removed: the chain breaks there
    assert audit.verify_chain(as_log(entries))["broken_at"] == 1
    entries[1]["time_unsure"] = True
    data = {"status": {"phase": "OPEN", "round": 1, "memory": "ok", "memory_text": "MEMORY OK",
                       "time_unsure": True},
            "program": {"verified": False, "checked": False, "text": "not checked", "digest": ""},
            "meters": None, "hits": [], "log": as_log(entries)}
    data["chain"] = audit.verify_chain(data["log"])
    assert "Times NOT KNOWN for 2 entries (1..2)" in audit.report(data)
    assert "Clock: NOT SET" in audit.report(data)         # the table's status says so now
    data["status"]["time_unsure"] = False
    assert "Clock: NOT SET" not in audit.report(data)
    assert "time_unsure" in audit.EVENT_FIELDS and "time_unsure" in audit.HIT_FIELDS


def test_an_unset_clock_tells_the_technician_how_to_set_it():
    """A standalone table has no NTP: the report's clock line, read by a technician at such a
    table, names the way its clock is set (clock_set, tools.audit --set-clock with the key on)
    and not only NTP, which only a linked table has."""
    data = {"status": {"phase": "OPEN", "round": 1, "memory": "ok", "memory_text": "MEMORY OK",
                       "time_unsure": True},
            "program": {"verified": False, "checked": False, "text": "not checked", "digest": ""},
            "meters": None, "hits": [], "log": as_log(chain(0, ROWS))}
    data["chain"] = audit.verify_chain(data["log"])
    clock = [line for line in audit.report(data).splitlines() if line.startswith("Clock:")]
    assert len(clock) == 1 and "--set-clock" in clock[0] and "key" in clock[0], clock


def test_a_hits_time_is_marked_as_its_jackpot_hit_entry_is():
    entries = [{"seq": 0, "round": 4, "kind": ev.JACKPOT_HIT, "a": 2, "time_unsure": True},
               {"seq": 1, "round": 5, "kind": ev.JACKPOT_HIT, "a": 2, "time_unsure": False},
               {"seq": 2, "round": 6, "kind": ev.LOCK, "a": 0, "time_unsure": True}]
    hits = [{"round": 4, "seat": 2}, {"round": 5, "seat": 2}, {"round": 6, "seat": 1}]
    audit.mark_hit_times(hits, entries)
    assert [h["time_unsure"] for h in hits] == [True, False, None]   # None: left the ring


def test_chain_changed_field():
    entries = chain(0, ROWS)
    entries[2]["c"] = 2000140
    result = audit.verify_chain(as_log(entries))
    assert (result["intact"], result["broken_at"]) == (False, 2)


def test_chain_removed_entry():
    entries = chain(0, ROWS)
    del entries[1]
    result = audit.verify_chain(as_log(entries, count=4))
    assert (result["intact"], result["broken_at"]) == (False, 1)
    assert "missing" in result["message"]


def test_chain_removed_newest_entry():
    entries = chain(0, ROWS)
    result = audit.verify_chain(as_log(entries[:3], count=4, head=entries[3]["link"]))
    assert (result["intact"], result["broken_at"]) == (False, 3)


def test_chain_head_not_matching_the_anchor():
    result = audit.verify_chain(as_log(chain(0, ROWS), head="00" * 8))
    assert (result["intact"], result["broken_at"]) == (False, 3)


def test_chain_relinked_after_an_edit_still_fails_at_the_anchor():
    entries = chain(0, ROWS)
    forged = chain(0, ROWS[:2] + [(1020, 1, ev.SETTLE, 0, 0, 5)] + ROWS[3:])
    result = audit.verify_chain(as_log(forged, head=entries[-1]["link"]))
    assert (result["intact"], result["broken_at"]) == (False, 3)


def test_chain_of_a_ring_that_has_dropped_its_oldest_page():
    entries = chain(32, ROWS, previous=b"\x5a" * 8)
    result = audit.verify_chain(as_log(entries, first=32))
    assert result["intact"] is True and result["checked"] == 3
    assert "entries before 32 have left the ring" in result["message"]


def test_an_edit_of_the_oldest_entry_of_a_wrapped_ring_is_caught_from_the_tables_base():
    # the table sends the link of the entry before the oldest it holds (its `base`)
    base = b"\x5a" * 8
    entries = chain(32, ROWS, previous=base)
    log = as_log(entries, first=32)
    log["base"] = base.hex()
    result = audit.verify_chain(log)
    assert result["intact"] is True and result["checked"] == 4
    entries[0]["c"] = 1                       # an amount of the oldest entry changed
    assert audit.verify_chain(log)["broken_at"] == 32
    log["base"] = "zz"                        # a base that is not hex: broken, not a crash
    assert audit.verify_chain(log)["broken_at"] == 32


def test_chain_entry_out_of_range_is_broken_not_a_crash():
    entries = chain(0, ROWS)
    entries[1]["a"] = 70000
    entries[2]["link"] = "zz"
    assert audit.verify_chain(as_log(entries))["broken_at"] == 1


# ---------------------------------------------------------------------- serial link

class _BoardOnPty(threading.Thread):
    """A controller and its service behind the master side of a pseudo-terminal, with the
    console noise a board prints (boot text) before the replies."""

    def __init__(self, master, directory):
        super().__init__(daemon=True)
        self.master = master
        fs = PathFS(str(directory))
        memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
        self.controller = tc.RoundController(memory)
        self.controller.boot(0, 1000)
        self.service = svc.Service(self.controller, self)
        self.stop = False

    def write(self, data):
        os.write(self.master, b"MPY: soft reboot\r\n" + data)

    def run(self):
        while not self.stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.service.feed(os.read(self.master, 256))
                except OSError:
                    return


def test_serial_link_talks_to_a_board_over_a_tty(tmp_path):
    pytest.importorskip("serial")
    master, slave = os.openpty()
    tty.setraw(slave)
    board = _BoardOnPty(master, tmp_path)
    board.start()
    link = audit.SerialLink(os.ttyname(slave))
    try:
        assert audit.ask(link, "status")["phase"] == "RAM ERROR"
        assert link.request("hits")["code"] == svc.RAM_ERROR
        assert audit.read_log(link)["count"] == 0
    finally:
        board.stop = True
        link.close()
        board.join(2)
        os.close(master)
        os.close(slave)


def test_a_bad_simulator_command_is_an_error_reply(sim):
    reply = sim.request("sim dance")
    assert (reply["ok"], reply["cmd"]) == (False, "sim") and "unknown command 'dance'" in reply["error"]
    with pytest.raises(audit.ServiceError, match="simulator refused 'chip 9'"):
        sim.sim("chip 9")
    assert audit.ask(sim, "status")["ok"] is True


def test_a_bad_sim_command_option_is_said_as_refused_not_as_a_table_out_of_protocol(capsys):
    # the simulator answered, in protocol: the option's command was refused (exit 1)
    assert audit.main(["--sim", "--sim-command", "key onn", "--command", "status"]) == 1
    out = capsys.readouterr().out
    assert out == "--sim-command 'key onn' refused: key must be on or off, got 'onn'\n"


def test_an_export_onto_a_file_is_refused_with_the_reason(tmp_path, capsys):
    target = tmp_path / "c.json"
    target.write_text("{}")
    assert audit.main(["--sim", "--export", str(target)]) == 2
    assert "cannot export to %s" % target in capsys.readouterr().out
    assert target.read_text() == "{}"


def test_an_envy_bonus_set_on_the_console_is_paid_reported_and_exported(sim, tmp_path):
    ram_clear(sim)
    sim.sim("key on")
    change = audit.ask(sim, 'config_set {"envy": {"royal_flush": 50000}}')
    assert change["changes"] == [["envy.royal_flush", 0, 50000]]
    sim.sim("key off")
    for line in ROYAL_ROUND:
        sim.sim(line)
    data = audit.read_all(sim)
    assert [(h["seat"], h["amount"], h["envy_seats"], h["envy_each"]) for h in data["hits"]] == \
        [(1, RESET + 140, [3], 50000)]
    assert data["meters"]["table"]["envy_paid"] == 50000 and data["meters"]["audit"] == []
    text = audit.report(data)
    assert ("round 1 seat 1 Royal Flush As Ks Qs Js Ts $10001.40; envy bonus $500.00 each to "
            "seats 3 ($500.00 of it operator-funded)") in text
    audit.export(data, tmp_path / "out")
    with open(tmp_path / "out" / "hits.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["envy_seats"], r["envy_each"], r["envy_shortfall"]) for r in rows] == \
        [("3", "50000", "50000")]          # the royal emptied the pool: operator-funded
    with open(tmp_path / "out" / "events.csv") as f:
        events = list(csv.DictReader(f))
    assert [(e["a"], e["b"], e["c"]) for e in events if e["kind_name"] == "envy bonus"] == \
        [("1", str(1 << 2), "50000")]


def test_the_shortfall_option_cut_set_on_the_console_is_paid_reported_and_exported(sim, tmp_path):
    ram_clear(sim)
    sim.sim("key on")
    # a royal at 20,000 to 1 (2,000,000 cents) from a pool of 1,000,140: the pool is paid
    change = audit.ask(sim, 'config_set {"pay": {"royal_flush": [20000, 100]}, "shortfall": "cut"}')
    assert change["changes"] == [["pay.royal_flush", [10000, 100], [20000, 100]],
                                 ["shortfall", "operator", "cut"]]
    sim.sim("key off")
    for line in ROYAL_ROUND:
        sim.sim(line)
    data = audit.read_all(sim)
    assert [(h["seat"], h["amount"], h["shortfall"], h["cut"]) for h in data["hits"]] == \
        [(1, RESET + 140, 0, 2000000 - RESET - 140)]
    table = data["meters"]["table"]
    assert (table["paid"], table["shortfall"], table["cut"]) == (RESET + 140, 0, 2000000 - RESET - 140)
    assert data["meters"]["audit"] == []
    assert ("round 1 seat 1 Royal Flush As Ks Qs Js Ts $10001.40; cut to the pool: $9998.60 "
            "not paid") in audit.report(data)
    audit.export(data, tmp_path / "out")
    with open(tmp_path / "out" / "hits.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["amount"], r["cut"], r["envy_cut"]) for r in rows] == [("1000140", "999860", "0")]
    with open(tmp_path / "out" / "events.csv") as f:
        events = list(csv.DictReader(f))
    assert [(e["a"], e["b"], e["c"]) for e in events if e["a"] == "124"] == [("124", "0", "1")]


def test_the_audit_of_a_linked_table_reports_and_exports_its_pool_and_ledger(tmp_path):
    # a linked table's meters reply (docs/service-protocol.md, firmware/service.py): the pool
    # amounts from the link controller, one per active pool, and the table's own ledger totals
    meters = {"ok": True, "cmd": "meters", "round": 3, "linked": True, "link": "UP",
              "pools": {"linked": [250070, 1000000]},
              "table": {"wagered": 200, "wagers": 2, "reversed": 0, "paid": 0, "hits": 0},
              "audit": []}
    log = chain(0, [(1000, 0, 5, 1, 0, 0)])
    data = {"status": {"phase": "OPEN", "round": 3, "memory": "ok", "memory_text": "MEMORY OK"},
            "program": {"verified": True, "checked": True, "text": "ok", "digest": "ab"},
            "meters": meters, "hits": [], "config": None,
            "log": as_log(log), "chain": audit.verify_chain(as_log(log))}
    text = audit.report(data)
    assert "linked table, link UP" in text
    assert "Books: reconciled by the link controller, not checked here" in text
    assert "Books: balance" not in text         # the table checked no equations of that pool
    assert [line.split() for line in text.splitlines() if line.startswith("pool ")] == \
        [["pool", "1", "250070"], ["pool", "2", "1000000"]]
    assert "wagered" in text and "200" in text
    audit.export(data, tmp_path / "out")
    with open(tmp_path / "out" / "meters.csv") as f:
        rows = {(r["scope"], r["meter"]): int(r["value"]) for r in csv.DictReader(f)}
    assert rows[("linked", "pool 1")] == 250070 and rows[("linked", "pool 2")] == 1000000
    assert rows[("table", "wagered")] == 200


@pytest.mark.parametrize("option,value,shown", [
    ("--command", "status\nmeters", "0x0a"),
    ("--command", "meters\x03", "0x03"),       # Ctrl-C: on the USB console it stops the table
    ("--command", "config_set {\"wager\": \u201c200\u201d}", "0x201c"),
    ("--sim-command", "key on\x04", "0x04"),
])
def test_a_command_the_protocol_cannot_carry_is_refused_before_the_table_is_reached(
        monkeypatch, capsys, option, value, shown):
    opened = []
    monkeypatch.setattr(audit, "SimLink", lambda *args: opened.append(args))
    with pytest.raises(SystemExit) as stop:
        audit.main(["--sim", option, value])
    assert stop.value.code == 2 and opened == []
    err = capsys.readouterr().err
    assert "%s %r" % (option, value) in err and shown in err


class LocalLink(audit.Link):
    """The service protocol in this process, on a controller over critical memory."""

    def __init__(self, service):
        self.service = service

    def request(self, line, timeout=None):
        return json.loads(json.dumps(self.service.handle(line)))


def _audit_of_a_table_failing(command, tmp_path, monkeypatch):
    """tools.audit --sim's exit status, of a table whose `command` fails inside the service
    (a MemoryError, as a full heap on the board gives)."""
    from host_tests.test_service import ready_table

    table = ready_table(tmp_path)

    def fails(self, cmd, rest):
        raise MemoryError("memory allocation failed, allocating 1024 bytes")

    monkeypatch.setattr(svc, "_HANDLERS", tuple(
        fails if svc.COMMANDS[i] == command else h for i, h in enumerate(svc._HANDLERS)))
    monkeypatch.setattr(audit, "SimLink", lambda state, fresh: LocalLink(table.service))
    return audit.main(["--sim"])


@pytest.mark.parametrize("command", ["meters", "hits", "config"])
def test_a_reading_the_table_could_not_answer_is_said_and_fails_the_audit(
        tmp_path, monkeypatch, capsys, command):
    # e.g. a full heap on the board (the reply's code is internal): the audit must not print
    # "Meters: none (the table is in RAM ERROR)" or "Last jackpot hits: 0", nor exit 0
    assert _audit_of_a_table_failing(command, tmp_path, monkeypatch) == 1
    out = capsys.readouterr().out
    assert ("NOT READ: %s failed: MemoryError memory allocation failed, allocating 1024 bytes "
            "(internal)" % command) in out, out
    assert "the table is in RAM ERROR" not in out
    assert ("Last jackpot hits: 0" in out) == (command != "hits")
    assert "event log chain intact" in out


@pytest.mark.parametrize("command", ["status", "program", "log"])
def test_a_reading_the_audit_needs_refused_is_said_as_refused_not_out_of_protocol(
        tmp_path, monkeypatch, capsys, command):
    assert _audit_of_a_table_failing(command, tmp_path, monkeypatch) == 1
    assert capsys.readouterr().out == (
        "audit not done: the table refused %s: %s failed: MemoryError memory allocation failed, "
        "allocating 1024 bytes (internal)\n" % (command, command))


def test_books_that_do_not_balance_fail_the_audit(tmp_path, monkeypatch, capsys):
    # the report said "Books: DO NOT BALANCE" and the exit status was still 0 ("all well"),
    # so a script that runs the audit and checks its status passed a table whose pool had
    # money from nowhere
    from host_tests.test_service import ready_table

    table = ready_table(tmp_path)
    table.c.jackpot.value[0] += 1           # a cent no meter accounts for
    monkeypatch.setattr(audit, "SimLink", lambda state, fresh: LocalLink(table.service))
    assert audit.main(["--sim"]) == 1
    out = capsys.readouterr().out
    assert "Books: DO NOT BALANCE: main value 1000001 != meters 1000000" in out
    assert "event log chain intact" in out


def test_the_report_says_what_part_of_a_hands_payout_the_operator_funded(tmp_path):
    # a royal at 20,000 to 1 (2,000,000 cents) from a pool of 1,000,140: the pool pays what it
    # holds, the operator the rest (rules.md, Decision (shortfall)); the report said so of an
    # envy bonus but not of the hand's own payout
    from host_tests.test_service import ready_table, royal_round

    table = ready_table(tmp_path)
    table.key(True)
    assert table.ask('config_set {"pay": {"royal_flush": [20000, 100]}}')["ok"]
    table.key(False)
    royal_round(table)
    data = audit.read_all(LocalLink(table.service))
    assert [(h["amount"], h["shortfall"]) for h in data["hits"]] == [(2000000, 2000000 - RESET - 140)]
    assert ("round 1 seat 1 Royal Flush As Ks Qs Js Ts $20000.00 ($9998.60 of it "
            "operator-funded)\n") in audit.report(data) + "\n"


def test_the_reports_meters_say_they_are_cents(tmp_path):
    # the meters table printed "paid 1000140" under the last hits in dollars ("$10001.40")
    # with nothing to say the meters are cents, not dollars
    from host_tests.test_service import ready_table, royal_round

    table = ready_table(tmp_path)
    royal_round(table)
    text = audit.report(audit.read_all(LocalLink(table.service)))
    paid = [line.split() for line in text.splitlines() if line.startswith("paid ")]
    assert paid == [["paid", str(RESET + 140)], ["paid", str(RESET + 140)]]
    assert "(money in cents, as 1000140 for $10001.40;" in text
    assert "seat 1 Royal Flush As Ks Qs Js Ts $10001.40" in text

@pytest.mark.parametrize("ok, text, said", [
    (False, "config rules.seats: 9 is not a seat count 1..7",
     "Configuration: FAILED (jackpot wagering closed): config rules.seats: 9 is not a seat count 1..7"),
    (True, "/config.json uth", "Configuration: ok: /config.json uth"),
])
def test_the_report_says_whether_the_configuration_file_was_taken(tmp_path, ok, text, said):
    # the table's audit menu says "config FAILED" and its jackpot stays closed; the report
    # said nothing of it: a table running on the built-in defaults audited as all well
    from host_tests.test_service import ready_table

    t = ready_table(tmp_path)
    t.c.set_config_status(ok, text)

    class Direct(audit.Link):
        def request(self, line, timeout=None):
            return t.ask(line)

    report = audit.report(audit.read_all(Direct()))
    assert said in report.splitlines(), report

def test_a_simulator_that_cannot_start_says_why_not_that_it_did_not_answer(tmp_path, capsys):
    # --state naming a file: the simulator stops at once with its reason, which the audit says
    # (it had said "no reply to 'status' within 10 s", as if the table were slow)
    state = tmp_path / "state"
    state.write_text("")
    assert audit.main(["--sim", "--state", str(state)]) == 2
    out = capsys.readouterr().out
    assert "the simulator has stopped" in out and "cannot keep the table's state in" in out
    assert "within" not in out


def test_set_clock_sends_this_computers_utc_time(capsys, monkeypatch):
    assert audit.clock_command(0) == "clock_set 1970-01-01T00:00:00"
    assert audit.clock_command(1796099400) == "clock_set 2026-12-01T04:30:00"
    # a minute ahead of the simulator's clock (which runs from this computer's), so that its
    # RAM clear, timed by a simulated clock that may run ahead, is never after it
    ahead = int(time.time()) + 60
    monkeypatch.setattr(audit, "clock_command", lambda: "clock_set " + time.strftime(
        "%Y-%m-%dT%H:%M:%S", time.gmtime(ahead)))
    rc = audit.main(["--sim", "--fresh", "--sim-command", "key on", "--command", "ram_clear",
                     "--command", "ram_clear accept", "--set-clock"])
    replies = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 0 and [r["cmd"] for r in replies] == ["ram_clear", "ram_clear", "clock_set"]
    assert (replies[2]["ok"], replies[2]["time"], replies[2]["was_unsure"]) == (True, ahead, False)
    assert 50 <= replies[2]["moved"] <= 60
    # the key off: refused, and said so by the exit status
    rc = audit.main(["--sim", "--fresh", "--set-clock"])
    reply = json.loads(capsys.readouterr().out)
    assert rc == 1 and reply["code"] == svc.NOT_AUTHORISED
