"""`python -m tools.audit`: read a table's meters, jackpot hits and event log, and check the log.

    python -m tools.audit --port /dev/ttyACM0        a board, on its USB serial console (pyserial)
    python -m tools.audit --sim [--state DIR]        the simulator (python -m tools.sim --service)
    python -m tools.audit --sim --export out/        also write meters, hits and events as CSV + JSON
    python -m tools.audit --port P --command 'config_set {"wager": 200}'    one protocol command
    python -m tools.audit --sim --fresh --sim-command "key on" --command ram_clear ...
    python -m tools.audit --port P --set-clock       set the table's clock to this computer's UTC

It speaks the service protocol (docs/service-protocol.md, firmware/service.py): one command
line out, one JSON reply line back (other console output, such as boot messages, is skipped).
The audit prints the program verification, whether the configuration file was taken
(`Configuration: FAILED: ...` when the table runs on the built-in defaults), the meters as
a table and the last jackpot hits, reads the whole event log page by page and recomputes
its hash chain on the host with ``firmware.store.eventlog.link_of``, then says whether the
chain is intact.

Exit status: 0 all well, 1 the event log's chain is broken or cannot be checked (RAM ERROR),
the books do not balance (the meters' audit lists a broken equation), the meters, hits or
configuration could not be read, or a command was refused, 2 the table could not be reached
or answered out of protocol.
"""

import argparse
import csv
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from firmware.store import eventlog, eventnames

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BAUD = 115200
REPLY_TIMEOUT_S = 10.0
LOG_PAGE = 32
# time_unsure: the table did not know the time (its clock was not set after a power cut):
# counted on from the entry before, in order, but no time of day (docs/critical-memory.md)
EVENT_FIELDS = ("seq", "time", "round", "kind", "a", "b", "c", "link", "time_unsure")
# a hit's time_unsure is its jackpot hit entry's in the log (empty: the entry has left the ring)
HIT_FIELDS = ("time", "round", "seat", "hand", "pool", "cards", "amount", "shortfall",
              "pool_before", "pool_after", "envy_seats", "envy_each", "envy_shortfall", "cut",
              "envy_cut", "time_unsure")


class ServiceError(Exception):
    """The table could not be reached, or answered something that is not the protocol."""


class Refused(ServiceError):
    """The table answered in protocol, but refused a reading the audit needs."""


class Link:
    """One conversation with a table: `request(line)` sends a command and returns its reply."""

    def _send(self, data):
        raise NotImplementedError

    def _readline(self, deadline):
        raise NotImplementedError

    def request(self, line, timeout=REPLY_TIMEOUT_S):
        """Send one command line; return the reply object.  Lines that are not a JSON object
        with an "ok" member (console noise) are skipped."""
        if "\n" in line:
            raise ValueError("one command per request, got a line break in %r" % line[:40])
        self._send(line.encode("ascii", "replace") + b"\n")
        deadline = time.monotonic() + timeout
        while True:
            raw = self._readline(deadline)
            if raw is None:
                raise ServiceError("no reply to %r within %.0f s" % (line[:40], timeout))
            try:
                reply = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(reply, dict) and "ok" in reply:
                return reply

    def close(self):
        """End the conversation."""


class SerialLink(Link):
    """A board's USB serial console (or a UART adapter) through pyserial."""

    def __init__(self, port, baudrate=DEFAULT_BAUD):
        import serial
        self.serial = serial.Serial(port, baudrate, timeout=0.1)
        self.serial.reset_input_buffer()

    def _send(self, data):
        self.serial.write(data)
        self.serial.flush()

    def _readline(self, deadline):
        buf = b""
        while time.monotonic() < deadline:
            buf += self.serial.readline()
            if buf.endswith(b"\n"):
                return buf
        return None

    def close(self):
        self.serial.close()


class SimLink(Link):
    """The simulator in a child process (`python -m tools.sim --service`) on its stdin/stdout."""

    def __init__(self, state=None, fresh=False, python=sys.executable):
        command = [python, "-m", "tools.sim", "--service"]
        command += ["--state", str(state)] if state else ["--memory"]
        if fresh:
            command.append("--fresh")
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT)
        self.process = subprocess.Popen(command, cwd=str(ROOT), env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._pending = b""

    def _stopped(self):
        """ServiceError with what the simulator said as it stopped (its last stderr lines)."""
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        said = self.process.stderr.read().decode("utf-8", "replace").strip()[-400:]
        return ServiceError("the simulator has stopped: %s" % (said or "it said nothing"))

    def _send(self, data):
        if self.process.poll() is not None:
            raise self._stopped()
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self._stopped() from None

    def _readline(self, deadline):
        out = self.process.stdout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                return None
            chunk = os.read(out.fileno(), 65536)
            if not chunk:       # the simulator stopped (a bad --state, say): say why
                raise self._stopped()
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line + b"\n"

    def sim(self, command):
        """A simulator script command (tools/sim.py), such as "key on" or "press LOCK"."""
        reply = self.request("sim " + command)
        if not reply["ok"]:
            raise ServiceError("simulator refused %r: %s" % (command, reply.get("error")))
        return reply.get("text", "")

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---------------------------------------------------------------------- reading

def ask(link, line):
    """The reply to one command; ServiceError unless it is ok."""
    reply = link.request(line)
    if not reply.get("ok"):
        raise Refused("the table refused %s: %s (%s)" % (line.split(" ")[0], reply.get("error"),
                                                          reply.get("code")))
    return reply


def read_log(link):
    """Every held event-log entry, page by page: dict with entries (dicts), first, count,
    head (hex link of the newest entry), base (hex link of the entry before the first, None
    when the table does not know it) and missing (sequence numbers the table could not read)."""
    reply = ask(link, "log")
    entries, missing = [], []
    while True:
        for row in reply["entries"]:
            entries.append(dict(zip(reply["fields"], row)))
        missing += reply.get("missing", [])
        if reply["next"] is None:
            break
        reply = ask(link, "log %d %d" % (reply["next"], LOG_PAGE))
    return {"entries": entries, "first": reply["first"], "count": reply["count"],
            "head": reply["head"], "base": reply.get("base"), "missing": missing}


def read_all(link):
    """Status, program check, meters, last hits, configuration and the whole event log."""
    out = {"status": ask(link, "status"), "program": ask(link, "program"), "unread": {}}
    meters = link.request("meters")
    out["meters"] = meters if meters.get("ok") else None
    hits = link.request("hits")
    out["hits"] = hits["hits"] if hits.get("ok") else []
    out["hits_linked"] = bool(hits.get("linked"))
    config = link.request("config")
    out["config"] = config if config.get("ok") else None
    if meters.get("code") == "no-jackpot":
        out["no_jackpot"] = meters.get("error")     # Four Card Poker, Big Raise Stud
    for name, reply in (("meters", meters), ("hits", hits), ("config", config)):
        # RAM ERROR has none of them, a game without the progressive no meters nor hits (each
        # said as such); any other failure is the audit's to report
        if not reply.get("ok") and reply.get("code") not in ("ram-error", "no-jackpot"):
            out["unread"][name] = "%s (%s)" % (reply.get("error"), reply.get("code"))
    out["log"] = read_log(link)
    mark_hit_times(out["hits"], out["log"]["entries"])
    if out["status"]["memory"] == "RAM ERROR":
        out["chain"] = {"intact": False, "broken_at": None, "checked": 0,
                        "message": "event log NOT checked: critical memory is in RAM ERROR, so the "
                                   "log's anchor is unknown until a RAM clear"}
    else:
        out["chain"] = verify_chain(out["log"])
    return out


def mark_hit_times(hits, entries):
    """Give each hit the time_unsure of its jackpot hit entry (same round and seat) in the
    log entries read; None where the log no longer holds it (or a table before the mark)."""
    unsure = {}
    for e in entries:
        if e["kind"] == eventlog.JACKPOT_HIT and "time_unsure" in e:
            unsure[(e["round"], e["a"])] = e["time_unsure"]
    for h in hits:
        h["time_unsure"] = unsure.get((h["round"], h["seat"]))


# ---------------------------------------------------------------------- checking

def verify_chain(log):
    """Recompute the hash chain of the entries read (firmware.store.eventlog.link_of).

    Returns a dict: intact (bool), broken_at (first sequence number that fails, or None),
    checked (entries whose link was recomputed) and message (one sentence)."""
    entries = sorted(log["entries"], key=lambda e: e["seq"])
    first, count = log["first"], log["count"]
    expected = first
    previous = eventlog.GENESIS if first == 0 else None
    checked = 0
    base = log.get("base")
    if first and base is not None:
        # the link of the entry before the oldest held, kept by the table: the oldest is checked too
        try:
            previous = bytes.fromhex(base)
        except (ValueError, TypeError):
            previous = b""

    def broken(seq, why):
        return {"intact": False, "broken_at": seq, "checked": checked,
                "message": "event log chain BROKEN at entry %d: %s" % (seq, why)}

    for e in entries:
        seq = e["seq"]
        if seq != expected:
            return broken(expected, "entry missing (next entry read is %d)" % seq)
        try:
            kind = e["kind"] | (eventlog.CLOCK_UNSURE if e.get("time_unsure") else 0)
            body = eventlog.make_body(seq, e["time"], e["round"], kind, e["a"], e["b"], e["c"])
            link = bytes.fromhex(e["link"])
        except (ValueError, TypeError) as error:
            return broken(seq, "entry unreadable (%s)" % error)
        if previous is not None:
            if eventlog.link_of(previous, body) != link:
                return broken(seq, "its link does not match the entries before it")
            checked += 1
        previous = link
        expected += 1
    if expected != count:
        return broken(expected, "entry missing (the table counts %d entries)" % count)
    if count and (previous is None or previous.hex() != log["head"]):
        return broken(count - 1, "the newest entry does not match the anchor in critical memory")
    note = "" if first == 0 else " (entries before %d have left the ring)" % first
    return {"intact": True, "broken_at": None, "checked": checked,
            "message": "event log chain intact: %d entries, %d links recomputed%s"
                       % (count - first, checked, note)}


# ---------------------------------------------------------------------- output

def money(cents):
    sign = "-" if cents < 0 else ""
    return "%s$%d.%02d" % (sign, abs(cents) // 100, abs(cents) % 100)


def linked_pools(meters):
    """A linked table's pool amounts as [("pool 1", cents), ...], or None for a standalone
    table (the linked reply's "pools" is {"linked": [amount of each active pool]})."""
    if not meters.get("linked"):
        return None
    return [("pool %d" % (i + 1), amount) for i, amount in enumerate(meters["pools"]["linked"])]


def _all_pools(meters):
    """The pools in use, then those a split or merge took out of use ("main (not in use)"):
    the table meters are the sums over all of them."""
    pools = dict(meters["pools"])
    for name, values in meters.get("pools_not_in_use", {}).items():
        pools[name + " (not in use)"] = values
    return pools


# what the meters' numbers are: the table prints them as the service sends them
UNITS = ("(money in cents, as 1000140 for $10001.40; wagers, voids, rounds, hits, resets, "
         "envy_bonuses and config_changes are counts; *_ppm millionths of a cent)")


def meters_table(meters):
    """The pool and table meters as aligned text, one meter a row, one pool a column (a linked
    table: the link controller's pool amounts, then the table's own ledger totals)."""
    pools = _all_pools(meters)
    linked = linked_pools(meters)
    if linked is not None:
        rows = [["LINKED POOL", "AMOUNT"]] + [
            [name, "not known" if amount is None else str(amount)] for name, amount in linked]
    else:
        names = list(pools)
        rows = [["POOL METER"] + [n.upper() for n in names]]
        for key in pools[names[0]]:
            rows.append([key] + [str(pools[n][key]) for n in names])
    rows.append(["", ""])
    rows.append(["TABLE METER", ""])
    for key, value in meters["table"].items():
        rows.append([key, str(value)])
    width = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        lines.append("  ".join([r[0].ljust(width[0])] + [c.rjust(width[i + 1]) for i, c in
                                                          enumerate(r[1:])]).rstrip())
    lines.append(UNITS)
    return "\n".join(lines)


def report(data):
    """The whole audit as text."""
    out = []
    s, p = data["status"], data["program"]
    out.append("Table: phase %s, round %d, memory %s, %s" % (s["phase"], s["round"], s["memory"],
                                                             s["memory_text"]))
    if s.get("time_unsure"):
        out.append("Clock: NOT SET (lost in a power cut): the table's times go on from its log's "
                   "newest, in order, but are no times of day until NTP sets it (a linked table) "
                   "or it is set here: tools.audit --set-clock, the key on, between rounds")
    verdict = "VERIFIED" if p["verified"] else "FAILED" if p.get("checked", True) else "NOT CHECKED"
    text = p["text"]      # (said once: a program not checked reads "not checked")
    out.append("Program: %s%s" % (verdict, "" if text.upper() == verdict else "  " + text))
    out.append("Program digest: %s" % (p["digest"] or "(none)"))
    if "config_ok" in s:
        # a file refused runs the table on the built-in defaults (the audit menu's config FAILED)
        out.append("Configuration: %s%s" % (
            "ok: " if s["config_ok"] else "FAILED (jackpot wagering closed): "
            if s.get("game") == "uth" else "FAILED: ", s["config_text"]))
    out.append("")
    unread = data.get("unread", {})
    if "meters" in unread:
        out.append("Meters: NOT READ: %s" % unread["meters"])
    elif data.get("no_jackpot"):
        out.append("Meters: none (%s)" % data["no_jackpot"])
    elif data["meters"] is None:
        out.append("Meters: none (the table is in RAM ERROR)")
    else:
        if data["meters"].get("linked"):
            out.append("Meters: linked table, link %s: the pool belongs to the link controller, "
                       "which reconciles the table's ledger below" % data["meters"].get("link"))
        elif data["meters"].get("frozen"):
            out.append("Meters: a linked table without its link (no configuration file, or "
                       "its link not built): its own pool below is frozen since it was linked, "
                       "not the live pool")
        out.append(meters_table(data["meters"]))
        problems = data["meters"].get("audit") or []
        if data["meters"].get("linked"):
            # the table checks no accounting equations of a pool it does not own
            out.append("Books: reconciled by the link controller, not checked here")
        else:
            out.append("Books: %s" % ("balance" if not problems else "DO NOT BALANCE: "
                                      + "; ".join(problems)))
    out.append("")
    if "hits" in unread:
        out.append("Last jackpot hits: NOT READ: %s" % unread["hits"])
    elif data.get("no_jackpot"):
        out.append("Last jackpot hits: none (%s)" % data["no_jackpot"])
    elif data.get("hits_linked"):
        counted = (data["meters"] or {}).get("table", {}).get("hits", "?")
        out.append("Last jackpot hits: linked table: its hits are the link controller's (%s in "
                   "the table's ledger; each one is a jackpot hit entry of the event log); from "
                   "its own pool: %d" % (counted, len(data["hits"])))
    else:
        out.append("Last jackpot hits: %d" % len(data["hits"]))
    if "config" in unread:
        out.append("Configuration: NOT READ: %s" % unread["config"])
    for h in data["hits"]:
        line = "  round %d seat %d %s %s %s" % (h["round"], h["seat"], h["hand"], h["cards"],
                                                money(h["amount"]))
        if h.get("shortfall"):
            # more than the pool held, paid in full: the rest came from the operator
            line += " (%s of it operator-funded)" % money(h["shortfall"])
        if h.get("envy_seats"):
            line += "; envy bonus %s each to seats %s" % (
                money(h["envy_each"]), ", ".join(str(s) for s in h["envy_seats"]))
            if h.get("envy_shortfall"):
                line += " (%s of it operator-funded)" % money(h["envy_shortfall"])
        if h.get("cut") or h.get("envy_cut"):
            # the shortfall option "cut": paid what the pool held, not the pay table's award
            line += "; cut to the pool: %s not paid" % money(h.get("cut", 0) + h.get("envy_cut", 0))
        out.append(line)
    log = data["log"]
    out.append("")
    if log["count"] > log["first"]:
        out.append("Event log: entries %d..%d read" % (log["first"], log["count"] - 1))
    else:
        out.append("Event log: no entries held")
    out.append(data["chain"]["message"])
    unsure = [e["seq"] for e in log.get("entries", []) if e.get("time_unsure")]
    if unsure:
        out.append("Times NOT KNOWN for %d entries (%d..%d): the table's clock was not set after a "
                   "power cut; counted on from the entry before them, in order, but no time of day"
                   % (len(unsure), unsure[0], unsure[-1]))
    return "\n".join(out)


def event_rows(log):
    """Event-log entries as dicts with the kind's name, for export."""
    rows = []
    for e in log["entries"]:
        row = dict(e)
        row["kind_name"] = eventnames.NAMES.get(e["kind"], "kind %d" % e["kind"])
        rows.append(row)
    return rows


def _write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            # a list (a hit's envy seats) as words, as the cards are: "2 3"
            writer.writerow(dict((k, " ".join(str(v) for v in row.get(k))
                                  if isinstance(row.get(k), list) else row.get(k)) for k in fields))


def export(data, directory):
    """Write meters, hits and events as CSV and JSON (and audit.json, everything) into directory.
    Returns the paths written."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    meter_rows = []
    if data["meters"] is not None:
        linked = linked_pools(data["meters"])
        if linked is not None:
            for name, amount in linked:
                meter_rows.append({"scope": "linked", "meter": name, "value": amount})
        else:
            for pool, values in _all_pools(data["meters"]).items():
                for key, value in values.items():
                    meter_rows.append({"scope": pool, "meter": key, "value": value})
        for key, value in data["meters"]["table"].items():
            meter_rows.append({"scope": "table", "meter": key, "value": value})
    events = event_rows(data["log"])
    written = []
    for name, fields, rows in (("meters", ("scope", "meter", "value"), meter_rows),
                               ("hits", HIT_FIELDS, data["hits"]),
                               ("events", EVENT_FIELDS + ("kind_name",), events)):
        _write_csv(d / (name + ".csv"), fields, rows)
        (d / (name + ".json")).write_text(json.dumps(rows, indent=1) + "\n")
        written += [d / (name + ".csv"), d / (name + ".json")]
    (d / "audit.json").write_text(json.dumps(data, indent=1) + "\n")
    written.append(d / "audit.json")
    return written


# ---------------------------------------------------------------------- command line

def parser():
    p = argparse.ArgumentParser(prog="python -m tools.audit", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="serial port of the board (e.g. /dev/ttyACM0, COM3)")
    where.add_argument("--sim", action="store_true", help="the simulator in a child process")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD, help="serial speed (default %(default)d)")
    p.add_argument("--state", help="simulator state directory (default: memory only)")
    p.add_argument("--fresh", action="store_true", help="simulator starts with blank memory")
    p.add_argument("--sim-command", action="append", default=[],
                   help="simulator script command run first, e.g. 'key on' (repeatable)")
    p.add_argument("--command", action="append", default=[],
                   help="send this protocol command and print its reply (repeatable; no audit)")
    p.add_argument("--set-clock", action="store_true",
                   help="after any --command, set the table's clock to this computer's UTC time "
                        "(clock_set: the key switch on, the table between rounds; no audit)")
    p.add_argument("--export", metavar="DIR", help="write meters, hits and events as CSV and JSON")
    p.add_argument("--json", action="store_true", help="print the audit as one JSON object")
    return p


def unsendable(line):
    """The first character of line that no protocol line may hold (docs/service-protocol.md:
    printable ASCII and tab), or None.  A line break would split the command in two, and on
    a board's USB console Ctrl-C (0x03) stops the table's program."""
    for ch in line:
        if ch != "\t" and not " " <= ch <= "~":
            return ch
    return None


def clock_command(now=None):
    """The clock_set line that sets a table's clock to this computer's UTC time (or `now`,
    seconds since 1970)."""
    return time.strftime("clock_set %Y-%m-%dT%H:%M:%S", time.gmtime(now))


def main(argv=None, out=None):
    out = out or sys.stdout
    args = parser().parse_args(argv)
    if args.sim_command and not args.sim:
        parser().error("--sim-command needs --sim")
    for option, lines in (("--command", args.command), ("--sim-command", args.sim_command)):
        for line in lines:
            bad = unsendable(line)
            if bad is not None:
                parser().error("%s %r: character 0x%02x is not printable ASCII (one command of "
                               "printable ASCII per option)" % (option, line, ord(bad)))
    try:
        link = SimLink(args.state, args.fresh) if args.sim else SerialLink(args.port, args.baud)
    except (OSError, ImportError) as error:
        out.write("cannot open the table: %s\n" % error)
        return 2
    try:
        for command in args.sim_command:
            reply = link.request("sim " + command)
            if not reply.get("ok"):
                out.write("--sim-command %r refused: %s\n" % (command, reply.get("error")))
                return 1
        if args.command or args.set_clock:
            status = 0
            for command in args.command + ([None] if args.set_clock else []):
                if command is None:     # the time read as it goes, not when the table started
                    command = clock_command()
                reply = link.request(command)
                out.write(json.dumps(reply) + "\n")
                if not reply.get("ok"):
                    status = 1
            return status
        data = read_all(link)
    except Refused as error:
        out.write("audit not done: %s\n" % error)
        return 1
    except ServiceError as error:
        out.write("table did not answer in protocol: %s\n" % error)
        return 2
    finally:
        link.close()
    if args.json:
        out.write(json.dumps(data, indent=1) + "\n")
    else:
        out.write(report(data) + "\n")
    if args.export:
        try:
            for path in export(data, args.export):
                out.write("wrote %s\n" % path)
        except OSError as error:
            out.write("cannot export to %s: %s (give a folder)\n" % (args.export, error))
            return 2
    balanced = not (data["meters"] or {}).get("audit")
    return 0 if data["chain"]["intact"] and not data["unread"] and balanced else 1


if __name__ == "__main__":
    sys.exit(main())
