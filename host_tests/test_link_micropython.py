"""The table's network end under the real MicroPython VM: Station (our MQTT client and the
TableLink) over a real socket to Mosquitto and the controller, reconciled to the cent."""

import json

import pytest

from host_tests.link_support import Broker, ControllerProcess, table_key
from host_tests.runtimes import ROOT, run_cpython, run_micropython

SCRIPT = ROOT / "host_tests" / "link_mp_table.py"
ROUNDS = 12


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_station_reconciles_with_the_controller(tmp_path, runtime):
    broker = Broker(tmp_path).start()
    controller = ControllerProcess(tmp_path, broker.port, [4], order_window=100)
    try:
        controller.start()
        run = run_micropython if runtime == "micropython" else run_cpython
        out = run(SCRIPT, [str(broker.port), "4", table_key(4).hex(), str(ROUNDS)], timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        got = json.loads(out.stdout.strip().splitlines()[-1])
        ledger = controller.ledger()
    finally:
        controller.stop()
        broker.stop()
    # wagers the script placed: rounds 1..12 with 1 + round % 7 wagers each, then one more
    count = sum(1 + r % 7 for r in range(1, ROUNDS + 1)) + 1
    placed = count * 100
    assert got["state"] == "UP"
    assert got["last_n"] == ROUNDS + 2 == ledger["tables"][4]["last_n"]
    # four of a kind pays 500 to 1 on the 100-cent wager [rules.md 11.9]
    assert got["paid"] == [[[1, 2, 50000, 0]]]
    assert got["totals"] == ledger["tables"][4]["totals"] == [placed, count, 0, 50000, 1]
    assert got["pool"] == ledger["pool"] == [1000000 + placed * 7 // 10 - 50000]
    assert got["events"][:2] == ["link reconciling", "link up"]
