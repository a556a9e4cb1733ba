"""The module tables of the README and the docs list every module of their package, so a module
added (or removed) shows up in the page a newcomer reads to find their way."""

import re

import pytest

from host_tests.runtimes import ROOT


def modules(package):
    return {p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}


def table_names(text, heading):
    """The `name.py` files named in the Markdown table that follows `heading`."""
    rest = text.split(heading, 1)[1]
    rows = []
    for line in rest.splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("|"):
            rows.append(line.split("|")[1] + "|" + line.split("|")[2])
    return {name.rsplit("/", 1)[-1] for name in re.findall(r"`([\w/.]+\.py)`", "\n".join(rows))}


@pytest.mark.parametrize("doc, heading, package", [
    ("docs/jackpot.md", "hardware. Time and round numbers", "firmware/jackpot"),
    ("docs/critical-memory.md", "MicroPython unix VM on the real littlefs.", "firmware/store"),
    ("docs/link.md", "controller talk through an MQTT broker", "firmware/link"),
])
def test_module_table_lists_every_module(doc, heading, package):
    listed = table_names((ROOT / doc).read_text(), heading)
    assert modules(package) <= listed, "%s does not list %s" % (doc, sorted(modules(package) - listed))


def test_readme_lists_every_top_level_firmware_module():
    text = (ROOT / "README.md").read_text().split("## Where things are", 1)[1].split("##", 1)[0]
    listed = set(re.findall(r"^      (\w+\.py) ", text, re.M))
    assert modules("firmware") == listed


def test_readme_names_every_document():
    text = (ROOT / "README.md").read_text().split("## Documents", 1)[1]
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= set(re.findall(r"`docs/([\w-]+\.md)`", text))


def test_link_test_table_lists_every_link_test():
    text = (ROOT / "docs" / "link.md").read_text().split("\n## Tests\n", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`host_tests/([\w/]+\.py)`", text))
    files = {p.name for p in (ROOT / "host_tests").glob("test_link_*.py")}
    files |= {"scenarios/" + p.name for p in (ROOT / "host_tests" / "scenarios").glob("link_*.py")}
    assert files <= listed, sorted(files - listed)
