"""The "Public API" calls of docs/critical-memory.md and docs/jackpot.md are the code's: each
call a page writes with plain parameter names takes them in that order, and one written with a
default (`now=0`) is the whole signature."""

import inspect
import re

import pytest

from firmware.jackpot import pools
from firmware.jackpot import record as jrecord
from firmware.store import critical, eventlog, record, slots
from host_tests.runtimes import ROOT

PAGES = {
    "critical-memory.md": ({"cm": critical.CriticalMemory, "cm.log": eventlog.EventLog,
                            "slot": slots.FileSlot, "record": record, "eventlog": eventlog},
                           ("CriticalMemory", critical.CriticalMemory), "cm.commit("),
    "jackpot.md": ({"jp": pools.Jackpot, "record": jrecord}, ("Jackpot", pools.Jackpot),
                   "jp.settle("),
}


def calls(page):
    """(what, the parameters the page names, the code's, whether the page gives them all,
    the code's parameters without a default)."""
    owners, (constructor, made), _ = PAGES[page]
    api = (ROOT / "docs" / page).read_text().split("\n## Public API", 1)[1].split("\n## ", 1)[0]
    names = "|".join(re.escape(owner) for owner in sorted(owners, key=len, reverse=True))
    out = []
    for match in re.finditer(r"\b(?:(%s)\.(\w+)|%s)\(((?:[^()]|\(\))*)\)" % (names, constructor),
                             api):
        owner, name, args = match.groups()
        function = getattr(owners[owner], name) if owner else made.__init__
        words = [arg.split("=")[0].strip() for arg in args.split(",") if arg.strip()]
        if not all(re.fullmatch(r"\w+", word) for word in words):
            continue        # an example value, not the parameters: cm.reserve({name: ...})
        parameters = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
        needed = [p.name for p in parameters if p.default is inspect.Parameter.empty]
        out.append((match.group(0), words, [p.name for p in parameters], "=" in args, needed))
    return out


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_call_of_the_public_api_is_the_code_s(page):
    # docs/critical-memory.md's cm.ram_clear(..., round_no=0) had no `seed` (the RAM_CLEAR
    # entry's c), cm.log.entries(start=None) no `stop`, eventlog.link_of other names than the
    # code's; docs/jackpot.md's Jackpot(config=None) no `fresh`
    found = calls(page)
    assert len(found) >= 10 and any(what.startswith(PAGES[page][2]) for what, *_ in found)
    wrong = [what for what, words, code, whole, _ in found
             if words != (code if whole else code[:len(words)])]
    assert wrong == []


@pytest.mark.parametrize("page", sorted(PAGES))
def test_no_call_of_the_public_api_leaves_out_a_parameter_without_a_default(page):
    for what, words, _, _, needed in calls(page):
        assert words[:len(needed)] == needed, what
