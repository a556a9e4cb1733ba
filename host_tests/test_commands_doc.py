"""The commands the README gives a newcomer are the ones the Makefile and the tools have: the two
commands of a fresh machine, every `make` target it names (with ARGS passed on wherever the
README or a document shows ARGS), every tool and option of its command list, and CI's."""

import re
import subprocess
import sys

import pytest

from host_tests.runtimes import ROOT

README = (ROOT / "README.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()


def recipe(target):
    """The recipe lines of a Makefile target."""
    lines = MAKEFILE.split("\n%s:" % target, 1)[1].splitlines()[1:]
    body = []
    for line in lines:
        if not line.startswith("\t"):
            break
        body.append(line.strip())
    return body


def other_commands():
    text = README.split("## Other commands", 1)[1].split("\n## ", 1)[0]
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.startswith("    ")]


def test_the_readme_gives_exactly_two_commands_for_a_fresh_machine_and_ci_runs_the_second():
    text = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in text.splitlines() if line.startswith("    ")]
    assert commands == ["make sim", "make test"]
    for target in ("sim", "test"):        # both set up the virtual environment first
        assert re.search(r"^%s: \$\(STAMP\)" % target, MAKEFILE, re.M)
    assert "\nmake test\n" in (ROOT / ".ci" / "run").read_text()


def test_every_make_target_named_exists_and_takes_args():
    docs = README + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    named = set(re.findall(r"(?:`|^ +)make ([a-z][\w-]*)", docs, re.M))
    assert named >= {"sim", "test", "bench", "game-math", "link-demo", "link-bench"}
    for target in named:
        body = recipe(target)
        runs = [line for line in body if "$(PY) -m " in line]
        assert runs, "make %s runs no tool" % target
        # `make bench ARGS=...` had dropped the ARGS: every target that runs a tool passes them
        assert "$(ARGS)" in runs[-1], "make %s does not pass ARGS to %s" % (target, runs[-1])


@pytest.mark.parametrize("command", [c for c in other_commands() if c.startswith(".venv/bin/python -m ")])
def test_every_tool_and_option_of_the_command_list_exists(command):
    words = command.split()
    module, options = words[2], [w for w in words[3:] if w.startswith("--")]
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=str(ROOT), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("usage:"), (module, done.stderr[-300:])
    for option in options:
        assert option in done.stdout, "%s has no %s" % (module, option)


def test_the_build_command_does_not_promise_a_signed_manifest_without_a_key():
    # `tools.build` without --key prints "manifest  not authenticated (no --key)": the README
    # had called its manifest signed
    line = [c for c in README.splitlines() if "-m tools.build " in c][0]
    comment = line.split("#", 1)[1]
    assert "signed" not in comment or "only with --key" in comment


def test_a_tool_s_synopsis_in_the_docs_lists_every_option_it_has():
    # docs/critical-memory.md's `python -m tools.wear_bench [--rounds N] ...` left out
    # --region-blocks, the option that gives the Pico W's own filesystem's lifetime
    synopses = []
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        synopses += re.findall(r"`python -m (tools\.\w+)((?: \[[^]`]+\])+)`",
                               " ".join(page.read_text().split()))
    assert "tools.wear_bench" in [module for module, _ in synopses]
    for module, options in synopses:
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=str(ROOT),
                              capture_output=True, text=True, timeout=120)
        has = set(re.findall(r"^  (--[a-z][\w-]*)", done.stdout, re.M)) - {"--help"}
        assert set(re.findall(r"--[a-z][\w-]*", options)) == has, module
