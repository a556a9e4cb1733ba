"""docs/critical-memory.md's "Public API" calls are the code's: each call it writes with plain
parameter names takes them in that order, and one written with a default (`now=0`) is the
whole signature."""

import inspect
import re

from firmware.store import critical, eventlog, record, slots
from host_tests.runtimes import ROOT

API = (ROOT / "docs" / "critical-memory.md").read_text().split("\n## Public API", 1)[1]
API = API.split("\n## ", 1)[0]
OWNERS = {"cm": critical.CriticalMemory, "cm.log": eventlog.EventLog, "slot": slots.FileSlot,
          "record": record, "eventlog": eventlog}


def calls():
    """(what, the parameters the page names, the code's, whether the page gives them all)."""
    out = []
    for match in re.finditer(r"\b(?:(cm\.log|cm|slot|record|eventlog)\.(\w+)|CriticalMemory)"
                             r"\(((?:[^()]|\(\))*)\)", API):
        owner, name, args = match.groups()
        function = getattr(OWNERS[owner], name) if owner else critical.CriticalMemory.__init__
        words = [arg.split("=")[0].strip() for arg in args.split(",") if arg.strip()]
        if not all(re.fullmatch(r"\w+", word) for word in words):
            continue        # an example value, not the parameters: cm.reserve({name: ...})
        code = [p for p in inspect.signature(function).parameters if p != "self"]
        out.append((match.group(0), words, code, "=" in args))
    return out


def test_every_call_of_the_public_api_is_the_code_s():
    # the page's cm.ram_clear(..., round_no=0) had no `seed` (the RAM_CLEAR entry's c),
    # cm.log.entries(start=None) no `stop`, eventlog.link_of other names than the code's
    found = calls()
    assert len(found) >= 25 and any(what.startswith("cm.commit(") for what, *_ in found)
    wrong = [what for what, words, code, whole in found
             if words != (code if whole else code[:len(words)])]
    assert wrong == []


def test_no_call_of_the_public_api_leaves_out_a_parameter_without_a_default():
    for what, words, _, _ in calls():
        name = what.split("(", 1)[0]
        owner, _, attribute = name.rpartition(".")
        function = getattr(OWNERS[owner], attribute) if owner else critical.CriticalMemory.__init__
        needed = [p.name for p in inspect.signature(function).parameters.values()
                  if p.default is inspect.Parameter.empty and p.name != "self"]
        assert words[:len(needed)] == needed, what
