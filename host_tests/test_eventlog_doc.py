"""docs/critical-memory.md's table of event kinds is the code's: every kind of
firmware.store.eventlog, by number, with the name eventnames.NAMES gives it."""

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
