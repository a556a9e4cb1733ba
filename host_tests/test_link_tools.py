"""The link's host programs: the demo runs its whole story and reconciles, the benchmark runs
(slow), and a machine without mosquitto fails the link tests instead of skipping them."""

import pytest

from host_tests import link_support
from host_tests.runtimes import run_cpython
from tools import link_broker


def test_demo_tells_its_story_and_reconciles():
    out = run_cpython(link_support.ROOT / "tools" / "link_demo.py", ["--fast"], timeout=90)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    for line in ("ROYAL FLUSH confirmed", "the MQTT broker dies", "LINK dn", "jackpot wagers closed",
                 "four of a kind, queued", "the broker is back", "RECONCILED to the cent"):
        assert line in text, line
    assert "NOT RECONCILED" not in text and "DIFFERS" not in text


@pytest.mark.slow
def test_benchmark_quick_run_prints_its_figures():
    out = run_cpython(link_support.ROOT / "tools" / "link_bench.py", ["--quick"], timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "contributions/s applied" in out.stdout and "median" in out.stdout


def test_missing_mosquitto_fails_with_the_install_command(monkeypatch):
    monkeypatch.setattr(link_broker.shutil, "which", lambda name: None)
    monkeypatch.setattr(link_broker.os.path, "exists", lambda path: False)
    with pytest.raises(RuntimeError, match="ensure_mosquitto.sh"):
        link_broker.mosquitto_binary()
    with pytest.raises(pytest.fail.Exception, match="tools/ensure_mosquitto.sh"):
        link_support.mosquitto_binary()
