# Run by host_tests/test_service.py under the MicroPython VM (and CPython): the service on
# the console port (sys.stdin/sys.stdout), as firmware.app.main wires it on the board.  It
# first proves that polling an empty console allocates nothing, then answers what arrives
# until it has answered `want` lines (argv[1]) or 3 s have passed.
import sys
import time

from firmware import service as svc
from firmware.compat import IS_MICROPYTHON, micropython
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS

want = int(sys.argv[1])
fs = MemFS()
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a"), FileSlot(fs, "b")], fs))
c.boot(0, 100)
port = svc.ConsolePort()
service = svc.Service(c, port)


def idle_allocates():
    """1 if 100 polls of the empty console allocate (a new module global would, so: local)."""
    if not IS_MICROPYTHON:
        return 0
    service.poll(0)
    allocated = 0
    micropython.heap_lock()
    try:
        for t in range(100):
            service.poll(t)
    except MemoryError:
        allocated = 1
    micropython.heap_unlock()
    return allocated


sys.stderr.write("idle-allocated %d\n" % idle_allocates())
sys.stdout.write("ready\n")
sys.stdout.flush()


def now_ms():
    return int(time.time() * 1000) & 0x3FFFFFFF


start = time.time()
while service.lines < want and time.time() - start < 3:
    service.poll(now_ms())
    time.sleep(0.005)
