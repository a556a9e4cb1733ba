import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the long exhaustive checks marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow (make test ARGS=--run-slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def table(tmp_path):
    """A round controller on fresh critical memory, RAM-cleared: open for bets
    (host_tests.test_controller.Table; a test module may define its own ``table``)."""
    from host_tests.test_controller import Table

    t = Table(tmp_path)
    t.ram_clear()
    return t
