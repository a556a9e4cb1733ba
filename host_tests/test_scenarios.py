"""Every script in host_tests/scenarios runs under CPython and under the real MicroPython VM.

This is MicroPython's own test convention: CPython's output is the expected output, and the
MicroPython run must print exactly the same.  Each scenario also checks its own results and
exits non-zero on a mismatch, so it fails on either runtime by itself.  Adding a scenario is
adding one file.
"""

from pathlib import Path

import pytest

from host_tests.runtimes import run_cpython, run_micropython

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.py"))


@pytest.mark.parametrize("script", SCENARIOS, ids=[s.stem for s in SCENARIOS])
def test_scenario_same_on_both_runtimes(script):
    expected = run_cpython(script)
    assert expected.returncode == 0, "CPython run failed:\n" + expected.stdout + expected.stderr
    assert expected.stdout.strip(), "scenario printed nothing"
    got = run_micropython(script)
    assert got.returncode == 0, "MicroPython run failed:\n" + got.stdout + got.stderr
    assert got.stdout == expected.stdout


def test_there_are_scenarios():
    assert len(SCENARIOS) >= 2


def test_a_failing_check_fails_the_scenario_on_both_runtimes(tmp_path):
    script = tmp_path / "wrong.py"
    script.write_text("from host_tests.scenario_support import Checker\n"
                      "c = Checker()\nc.check('two', 1 + 1, 3)\nc.rejected('no error', int, '5')\n"
                      "c.finish()\n")
    for run in (run_cpython, run_micropython):
        result = run(script)
        assert result.returncode == 1
        assert "GOT 2 WANT 3" in result.stdout and "failures 2" in result.stdout
