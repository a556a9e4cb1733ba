# Run by host_tests/test_service.py under the MicroPython VM (and CPython): the service on
# the console port (sys.stdin/sys.stdout), as firmware.app.run wires it on the board: a
# ConsoleWatch that loads firmware.service at the first byte.  It first proves that polling
# an empty console allocates nothing and has not loaded the service module, then answers
# what arrives until it has answered `want` lines (argv[1]) or 3 s have passed.
import sys
import time

from firmware.app import ConsoleWatch
from firmware.compat import IS_MICROPYTHON, micropython
from firmware.console import ConsolePort
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS

want = int(sys.argv[1])
fs = MemFS()
c = tc.RoundController(CriticalMemory([FileSlot(fs, "a"), FileSlot(fs, "b")], fs))
c.boot(0, 100)


class Shell:
    """The app as ConsoleWatch sees it: a controller and the service slot it replaces."""


shell = Shell()
shell.controller = c
shell.service = ConsoleWatch(shell, None, ConsolePort())


def idle_allocates():
    """1 if 100 polls of the empty console allocate (a new module global would, so: local)."""
    if not IS_MICROPYTHON:
        return 0
    watch = shell.service
    watch.poll(0)
    allocated = 0
    micropython.heap_lock()
    try:
        for t in range(100):
            watch.poll(t)
    except MemoryError:
        allocated = 1
    micropython.heap_unlock()
    return allocated


def write_allocates():
    """1 if a write to the console allocates (the reply to a line the heap had no room to
    answer is written with the heap full): on stderr here, stdout carrying the replies."""
    if not IS_MICROPYTHON:
        return 0
    port = ConsolePort(sys.stdin, sys.stderr)
    data = b"a write with the heap locked\n"
    port.write(data)
    allocated = 0
    micropython.heap_lock()
    try:
        port.write(data)
    except MemoryError:
        allocated = 1
    micropython.heap_unlock()
    return allocated


sys.stderr.write("idle-allocated %d\n" % idle_allocates())
sys.stderr.write("write-allocated %d\n" % write_allocates())
sys.stderr.write("service-loaded-idle %d\n" % ("firmware.service" in sys.modules))
sys.stdout.write("ready\n")
sys.stdout.flush()


def now_ms():
    return int(time.time() * 1000) & 0x3FFFFFFF


start = time.time()
while getattr(shell.service, "lines", 0) < want and time.time() - start < 3:
    shell.service.poll(now_ms())
    time.sleep(0.005)
