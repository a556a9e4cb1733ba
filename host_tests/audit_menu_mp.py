# The audit menu over a full, wrapped event log, under MicroPython or CPython (run by
# host_tests/test_audit_menu.py): logs EVENTS door events, opens the audit menu with the
# supervisor key, pages with long DOWN to the oldest entry, and prints what the screen shows
# there, how much heap the open menu keeps (after a collection, at every screen) and how much
# is still kept once BACK has closed it.
import gc
import sys

from firmware.drivers import buttons as btn
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import audit  # noqa: F401 - the controller loads it at the first audit:
from firmware.table import controller as tc  # its code is not the open menu's heap
from host_tests.fakes.flash import MemFS

_alloc = getattr(gc, "mem_alloc", lambda: 0)   # MicroPython only: CPython prints 0
EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 1120
BATCH = ev.MAX_EVENTS_PER_COMMIT

fs = MemFS({})
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a.bin"), FileSlot(fs, "b.bin")], fs))
c.boot(0, 100)
c.panel(btn.KEY_ON, 0, 1)
c.panel(btn.LONG, btn.OK, 2)
c.panel(btn.PRESS, btn.OK, 3)
logged = 0
while logged < EVENTS:
    n = min(BATCH, EVENTS - logged)
    problem = c.commit_admin([(ev.DOOR_OPEN if i % 2 == 0 else ev.DOOR_CLOSE, 1) for i in range(n)])
    if problem:
        print("commit failed", problem)
        sys.exit(1)
    logged += n
log = c.memory.log
gc.collect()
base = _alloc()
c.panel(btn.PRESS, btn.OK, 10)
c.panel(btn.LONG, btn.OK, 1100)           # key + long OK: the audit menu
c.panel(btn.RELEASE, btn.OK, 1200)
if c.phase != tc.AUDIT:
    print("not in the audit menu:", tc.PHASE_NAMES[c.phase])
    sys.exit(1)
kept = 0
presses = 0
last = -1
while c.menu_top != last:
    last = c.menu_top
    c.panel(btn.LONG, btn.DOWN, 2000 + presses)
    presses += 1
    gc.collect()
    kept = max(kept, _alloc() - base)
print("count", log.count, "oldest", log.first_available())
print("lines", len(c.menu), "long presses", presses)
print("kept", kept)
for line in c.view.lines:
    print("|" + line)
c.panel(btn.PRESS, btn.BACK, 3000)
c.panel(btn.RELEASE, btn.BACK, 3100)


def in_use():
    # collected from a fresh frame: the stale pointers the loop left on the C stack (which the
    # collector scans conservatively) would otherwise keep the closed menu alive
    gc.collect()
    return _alloc() - base


print("closed", tc.PHASE_NAMES[c.phase], in_use())
