"""The panel's press bookkeeping on both runtimes: the same long and short presses give the
same round under CPython and the MicroPython VM, and the events that only update the press
masks (a PRESS whose short action waits, the LONG and RELEASE of a press that already acted)
allocate nothing, checked under micropython.heap_lock() on the VM."""

import pytest

from host_tests import runtimes

SCRIPT = r'''
from firmware.compat import micropython
from firmware.drivers import buttons as btn
from firmware.drivers import spot_sensors as sens
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS
from host_tests.scenario_support import Checker

checker = Checker(40)
check = checker.check
fs = MemFS({})
memory = CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs)
c = tc.RoundController(memory)
c.boot(0, 100)
now = [0]


def send(kind, button, ms=20):
    now[0] += ms
    c.panel(kind, button, now[0])


def locked(kind, button):
    """send() with the heap locked: 1 if it allocated."""
    now[0] += 20
    micropython.heap_lock()
    try:
        c.panel(kind, button, now[0])
    except MemoryError:
        micropython.heap_unlock()
        return 1
    micropython.heap_unlock()
    return 0


def phase():
    return tc.PHASE_NAMES[c.phase]


def voids():
    return [e[4:6] for e in memory.log.events(memory.log.first_available()) if e[3] == ev.VOID]


allocated = 0
send(btn.KEY_ON, 0)
allocated += locked(btn.PRESS, btn.OK)          # RAM ERROR, key on: OK waits
send(btn.LONG, btn.OK, 1000)
check("key + long OK: RAM CLEAR", phase(), "RAM CLEAR")
allocated += locked(btn.RELEASE, btn.OK)         # its release accepts nothing
check("release of the long OK", phase(), "RAM CLEAR")
send(btn.PRESS, btn.OK)
send(btn.RELEASE, btn.OK, 100)
check("OK accepts the RAM clear", phase(), "OPEN")
for seat in (1, 2):
    c.spot(sens.PLACED, sens.jackpot_spot(seat), now[0])
    c.spot(sens.PLACED, sens.ante_spot(seat), now[0])

allocated += locked(btn.PRESS, btn.LOCK)         # key on: LOCK waits
check("key + LOCK pressed: not yet", phase(), "OPEN")
send(btn.LONG, btn.LOCK, 1000)
allocated += locked(btn.RELEASE, btn.LOCK)
check("key + long LOCK: test, not locked", (phase(), c.rec.accepted), ("TEST", 0))
send(btn.PRESS, btn.BACK)                        # acts at once
allocated += locked(btn.LONG, btn.BACK)          # held: ignored
allocated += locked(btn.RELEASE, btn.BACK)
check("BACK leaves test mode", phase(), "OPEN")

allocated += locked(btn.PRESS, btn.OK)
send(btn.LONG, btn.OK, 1000)
allocated += locked(btn.RELEASE, btn.OK)
check("key + long OK: audit, no Ante mark", (phase(), c.ante_marked), ("AUDIT", 0))
send(btn.PRESS, btn.BACK)
send(btn.RELEASE, btn.BACK)
send(btn.KEY_OFF, 0)

send(btn.PRESS, btn.LOCK)
check("LOCK without the key locks at once", (phase(), c.rec.accepted), ("LOCKED", 3))
send(btn.RELEASE, btn.LOCK, 100)
allocated += locked(btn.PRESS, btn.OK)
send(btn.LONG, btn.OK, 1000)
allocated += locked(btn.RELEASE, btn.OK)
check("long OK: card entry, no fold", (phase(), c.rec.folded), ("CARD ENTRY", 0))
send(btn.PRESS, btn.BACK)
send(btn.RELEASE, btn.BACK)
send(btn.PRESS, btn.OK)
send(btn.RELEASE, btn.OK, 100)
check("short OK folds the seat", (phase(), c.rec.folded), ("LOCKED", 1))
send(btn.PRESS, btn.OK)
send(btn.LONG, btn.OK, 1000)
send(btn.RELEASE, btn.OK)
send(btn.PRESS, btn.UP)                          # card entry: UP held steps the field
send(btn.LONG, btn.UP, 1000)
send(btn.PRESS, btn.BACK)
send(btn.RELEASE, btn.BACK)
allocated += locked(btn.REPEAT, btn.UP)          # held out of card entry: ignored
allocated += locked(btn.REPEAT, btn.UP)
check("UP held out of card entry moves no cursor", (phase(), c.cursor), ("LOCKED", 0))
allocated += locked(btn.RELEASE, btn.UP)
send(btn.PRESS, btn.UP)
send(btn.RELEASE, btn.UP)
check("UP pressed again moves it", c.cursor, 1)
send(btn.PRESS, btn.DOWN)
send(btn.RELEASE, btn.DOWN)

send(btn.KEY_ON, 0)
allocated += locked(btn.PRESS, btn.BACK)
send(btn.LONG, btn.BACK, 1000)
allocated += locked(btn.RELEASE, btn.BACK)
check("key + long BACK: round void only", (phase(), c.rec.voided, voids()), ("RESULTS", 0, [(0, 3)]))
send(btn.KEY_OFF, 0)
send(btn.PRESS, btn.SETTLE)                      # the next round
send(btn.RELEASE, btn.SETTLE)
send(btn.PRESS, btn.SETTLE)
send(btn.LONG, btn.SETTLE, 1000)                 # the last round's results again
send(btn.RELEASE, btn.SETTLE)
send(btn.PRESS, btn.DOWN)                        # DOWN held scrolls them
send(btn.LONG, btn.DOWN, 1000)
send(btn.REPEAT, btn.DOWN, 150)
check("held SETTLE recalls the round", (phase(), c.recalling, c.cursor), ("OPEN", True, 0))
send(btn.PRESS, btn.BACK)                        # BACK leaves them
send(btn.RELEASE, btn.BACK)
allocated += locked(btn.REPEAT, btn.DOWN)        # held out of the recall: ignored
allocated += locked(btn.REPEAT, btn.DOWN)
check("DOWN held out of the recall moves no cursor", (c.recalling, c.cursor), (False, 0))
send(btn.RELEASE, btn.DOWN)
check("press bookkeeping allocated", allocated, 0)
checker.finish()
'''


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("panel") / "panel_presses.py"
    path.write_text(SCRIPT)
    return path


def test_presses_on_cpython_and_micropython_agree(script):
    cpython = runtimes.run_cpython(script, timeout=120)
    assert cpython.returncode == 0, cpython.stdout + cpython.stderr
    vm = runtimes.run_micropython(script, timeout=120)
    assert vm.returncode == 0, vm.stdout + vm.stderr
    assert vm.stdout == cpython.stdout
    assert "press bookkeeping allocated" in vm.stdout and "GOT" not in vm.stdout
