"""docs/critical-memory.md's table of event kinds is the code's: every kind of
firmware.store.eventlog, by number, with the name eventnames.NAMES gives it."""

import re

from firmware.store import eventlog, eventnames
from host_tests.runtimes import ROOT
from host_tests.test_wiring_doc import table


def test_event_kind_table_matches_the_event_log():
    text = (ROOT / "docs" / "critical-memory.md").read_text()
    header, rows = table(text, "event kinds")
    assert header == ["kind", "name", "a", "b", "c"]
    documented = [(int(row[0]), row[1]) for row in rows]
    assert documented == [(kind, eventnames.NAMES[kind])
                          for kind in range(eventlog.POWER_UP, eventlog.LAST_KIND + 1)]


def _fields_the_code_names():
    """{kind: the fields of a, b, c that firmware/store/eventlog.py's comment on the kind says
    it carries}: each kind's constant is commented with its fields, as `a seat, b round, ...`
    (the comment may run on over the lines under it)."""
    source = (ROOT / "firmware" / "store" / "eventlog.py").read_text()
    source = source.split("\nPOWER_UP = ", 1)[1].split("\nLAST_KIND = ", 1)[0]
    comments, kind = {}, None
    for line in ("POWER_UP = " + source).splitlines():
        match = re.match(r"([A-Z_]+) = const\((\d+)\)\s*(?:#(.*))?$", line)
        if match:
            kind = getattr(eventlog, match.group(1))
            comments[kind] = match.group(3) or ""
        elif kind is not None and re.match(r"\s+#", line):
            comments[kind] += " " + line.strip()[1:]
        else:
            kind = None
    return {kind: set(re.findall(r"(?:^|[,;:]) *([abc]) (?=[a-z0-9(])", text.strip()))
            for kind, text in comments.items()}


def test_every_field_the_code_fills_has_its_meaning_in_the_table():
    # The table said link down / up carried nothing, and the link's refusal only its round:
    # a technician reading `b` of a flapping link's entry, or `a` and `c` of a refused seat,
    # found no meaning for them.  A field the code's comment names is not '-' in the table.
    text = (ROOT / "docs" / "critical-memory.md").read_text()
    _, rows = table(text, "event kinds")
    documented = {int(row[0]): dict(zip("abc", row[2:5])) for row in rows}
    named = _fields_the_code_names()
    assert set(named) == set(range(eventlog.POWER_UP, eventlog.LAST_KIND + 1))
    assert named[eventlog.LOCK] == {"b", "c"}      # the reading of the comments itself
    missing = ["%d %s: %s" % (kind, eventnames.NAMES[kind], field)
               for kind in sorted(named) for field in sorted(named[kind])
               if documented[kind][field] == "-"]
    assert missing == []


def test_the_codes_an_entry_carries_are_numbered_in_the_table_as_the_code_numbers_them():
    # A technician reading a raw `log` reply (the service protocol) found `a` = 2 in a shoe
    # line rejected, `c` = 2 in a spot sensor fault or `b` = 3 in a jackpot hit, and only the
    # name of a tuple in the code to read it by: the table now numbers each code, and the
    # numbers are the code's.
    from firmware.drivers import shoe, spot_sensors
    from firmware.jackpot import paytable

    text = (ROOT / "docs" / "critical-memory.md").read_text()
    _, rows = table(text, "event kinds")
    cells = {int(row[0]): dict(zip("abc", row[2:5])) for row in rows}

    def numbered(cell):
        return {int(number): name.strip() for number, name in
                re.findall(r"(\d+) ([A-Za-z/][\w/ -]*?)(?=[,;)]|$)", cell.split(":", 1)[1])}

    def named(names, first):
        return {first + index: name for index, name in enumerate(names) if name}

    assert numbered(cells[eventlog.POWER_UP]["b"]) == named(eventlog.RESET_CAUSES, 1)
    assert numbered(cells[eventlog.CM_ERROR]["b"]) == named(eventnames.REASON_NAMES, 0)
    assert numbered(cells[eventlog.LINK_REJECT]["a"]) == named(eventlog.LINK_REASONS, 1)
    assert numbered(cells[eventlog.SHOE_REJECT]["a"]) == named(shoe.REASONS, 0)
    assert numbered(cells[eventlog.SENSOR_FAULT]["c"]) == named(spot_sensors.FAULT_NAMES[1:], 1)
    hands = named(paytable.NAMES, 0)
    assert numbered(cells[eventlog.JACKPOT_HIT]["b"]) == hands
    assert cells[eventlog.LINK_CLAIM]["b"] == "hand (as jackpot hit)"
