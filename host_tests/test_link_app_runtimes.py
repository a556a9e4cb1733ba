"""The whole firmware of a linked table (App on the simulated board, Station on a real socket)
under the MicroPython VM and CPython, against Mosquitto and the link controller: it links,
takes a round's wagers, reconciles to the cent; the round controller's link work on an idle
tick allocates nothing (heap_lock); what a whole idle App.step allocates is measured and
printed (the MQTT client slices a memoryview per poll: docs/link.md, "Integration")."""

import json

import pytest

from host_tests.link_support import Broker, ControllerProcess, table_key
from host_tests.runtimes import ROOT, run_cpython, run_micropython

SCRIPT = ROOT / "host_tests" / "link_mp_app.py"
TABLE = 7
WAGER = 100  # cents, the default jackpot wager (firmware/jackpot/config.py, UTH 11.2)


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_linked_app_on_both_runtimes(tmp_path, runtime):
    broker = Broker(tmp_path).start()
    controller = ControllerProcess(tmp_path, broker.port, [TABLE], order_window=100)
    try:
        controller.start()
        run = run_micropython if runtime == "micropython" else run_cpython
        out = run(SCRIPT, [str(broker.port), str(TABLE), table_key(TABLE).hex()], timeout=90)
        assert out.returncode == 0, out.stdout + out.stderr
        got = json.loads(out.stdout.strip().splitlines()[-1])
        ledger = controller.ledger()
    finally:
        controller.stop()
        broker.stop()
    assert got["up"] and got["accepted"] == 0b11 and got["state"] == "UP"
    assert got["last_n"] == 1 == ledger["tables"][TABLE]["last_n"]
    assert got["totals"] == ledger["tables"][TABLE]["totals"] == [2 * WAGER, 2, 0, 0, 0]
    assert got["pool"] == ledger["pool"] and got["meter"] == ledger["pool"][0]
    assert got["locked_ok"]
    if runtime == "micropython":
        assert got["measured"]
        print("idle linked App.step on MicroPython: %d of %d ticks allocated, %d bytes in all, "
              "at most %d in one tick" % (got["alloc_ticks"], got["ticks"], got["alloc_bytes"],
                                          got["alloc_max"]))
        print("idle linked App.step time: median %d us, max %d us" % (got["median_us"], got["max_us"]))
        print("the Station alone: %d of %d ticks allocated, %d bytes in all"
              % (got["station_ticks"], got["ticks"], got["station_bytes"]))
