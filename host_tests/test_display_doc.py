"""The dealer-display lines the README quotes ("the display says `Seat 3 late bet` / `Ante not
in play`") are lines the firmware writes: each quoted line is in firmware/, as it stands or
with its numbers as %d."""

import re

from host_tests.runtimes import ROOT

README = " ".join((ROOT / "README.md").read_text().split())
FIRMWARE = "".join(path.read_text() for path in (ROOT / "firmware").rglob("*.py"))


def quoted_display_lines():
    lines = []
    for match in re.finditer(r"display(?:'s \w+ line)?(?: then)?(?: says| shows)?:? "
                             r"((?:`[^`]+`(?: / )?)+)", README):
        lines.extend(re.findall(r"`([^`]+)`", match.group(1)))
    return lines


def test_every_display_line_the_readme_quotes_is_one_the_firmware_writes():
    # The README said a double tap of OK shows `OK again marks ante`: the display's lines are
    # `New round: OK` / `again marks ante`, and a dealer looked for the one it named.
    lines = quoted_display_lines()
    assert "Seat 3 late bet" in lines and len(lines) >= 4
    missing = [line for line in lines
               if line not in FIRMWARE and re.sub(r"\d+", "%d", line) not in FIRMWARE]
    assert missing == []
