"""docs/service-protocol.md names what the service says: every field of a `status` and a
`config` reply, and the CONFIG_CHANGE setting ids of config_set, checked against the code."""

import re

from firmware.jackpot import config as jcfg
from host_tests.runtimes import ROOT
from host_tests.test_service import ready_table

DOC = (ROOT / "docs" / "service-protocol.md").read_text()


def section(heading):
    return DOC.split("\n### %s\n" % heading, 1)[1].split("\n### ", 1)[0]


def named(text):
    return set(re.findall(r"`(\w+)`", text))


def test_every_status_and_config_field_is_documented(tmp_path):
    t = ready_table(tmp_path)
    for command, heading in (("status", "`status`"), ("config", "`config`")):
        reply = t.ask(command)
        assert reply["ok"] is True
        missing = set(reply) - {"ok", "cmd"} - named(section(heading))
        assert not missing, "docs/service-protocol.md %s does not name %s" % (command, sorted(missing))


def test_config_change_setting_ids_are_the_code_s():
    rows = [line for line in section("`config_set {JSON}` — supervisor").splitlines()
            if re.match(r"\| \d", line)]
    documented = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        for ident, keys in zip(cells[0::2], cells[1::2]):
            first, _, last = ident.partition("-")
            names = [k.strip() for k in keys.split("(")[0].split(",")]
            prefix = names[0].split(".")[0] + "." if "." in names[0] else ""
            names = [names[0]] + [n if "." in n else prefix + n for n in names[1:]]
            ids = range(int(first), int(last or first) + 1)
            assert len(ids) == len(names), row
            documented.update(zip(ids, names))
    code = {jcfg.SETTING_BASE + i: item[0] for i, item in enumerate(jcfg.default().items())}
    assert documented == code


def test_the_reply_sizes_quoted_are_the_replies_of_a_table_just_ram_cleared(tmp_path):
    # docs/service-protocol.md's Figures (and performance.md) had kept the sizes of an older
    # protocol (status 325 B, meters 1,226 B, config 971 B): within 5% of what the table sends
    t = ready_table(tmp_path)
    row = [line for line in DOC.splitlines() if line.startswith("| reply sizes |")][0]
    perf = " ".join((ROOT / "docs" / "performance.md").read_text().split())
    for command in ("status", "meters", "config"):
        t.port.rx += command.encode() + b"\n"
        for _ in range(50):
            t.service.poll(t.tick())
        sent = len(t.port.tx)
        t.port.tx.clear()
        quoted = int(re.search(r"`%s`[^,]*? ([\d,]+) B" % command, row).group(1).replace(",", ""))
        assert abs(quoted - sent) <= sent // 20, (command, quoted, sent)
        assert re.search(r"`%s`[^,]*? %s B" % (command, "{:,}".format(quoted)), perf), command


def test_the_reply_codes_are_the_code_s_and_every_page_spells_them_so():
    # docs/critical-memory.md named the reply of a change refused for want of heap
    # `store failed`: a technician grepping the replies for it finds nothing (`store-failed`).
    from firmware import service

    codes = {value for name, value in vars(service).items()
             if name.isupper() and isinstance(value, str) and re.fullmatch(r"[a-z]+(-[a-z]+)*", value)}
    rows = DOC.split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", rows, re.M))
    assert documented == codes and "store-failed" in codes
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        text = " ".join(page.read_text().split())
        for code in codes:
            if "-" in code:
                assert "`%s`" % code.replace("-", " ") not in text, (page.name, code)
