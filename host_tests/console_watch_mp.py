# Run by host_tests/test_service.py under CPython and the MicroPython VM: the console watch
# (firmware.app.ConsoleWatch) when the service protocol cannot be loaded.  On MicroPython the
# heap is locked while a line arrives (loading fails with MemoryError, as in a full heap); on
# CPython the module is made unimportable (ImportError).  The table must play on, answer the
# line with an error reply, and load the protocol for the next line.  Prints "key value" lines.
import json
import sys

from firmware.app import ConsoleWatch
from firmware.compat import IS_MICROPYTHON, micropython
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS


class Port:
    """A console whose buffers exist before the heap is locked."""

    def __init__(self):
        self.inbox = bytearray(64)
        self.size = 0
        self.at = 0
        self.out = bytearray(2048)
        self.out_size = 0

    def give(self, data):
        self.inbox[:len(data)] = data
        self.size, self.at = len(data), 0

    def any(self):
        return 1 if self.at < self.size else 0

    def readinto(self, buf):
        buf[0] = self.inbox[self.at]
        self.at += 1
        return 1

    def write(self, data):
        for i in range(len(data)):
            self.out[self.out_size] = data[i]
            self.out_size += 1

    def lines(self):
        return bytes(self.out[:self.out_size]).decode().splitlines()


class Shell:
    """The app as ConsoleWatch sees it."""


fs = MemFS()
shell = Shell()
shell.controller = tc.RoundController(CriticalMemory([FileSlot(fs, "a"), FileSlot(fs, "b")], fs))
shell.controller.boot(0, 100)
port = Port()
watch = ConsoleWatch(shell, None, port)
shell.service = watch
port.give(b"status\n")
if IS_MICROPYTHON:
    micropython.heap_lock()
    try:
        watch.poll(0)
    finally:
        micropython.heap_unlock()
else:
    sys.modules["firmware.service"] = None      # CPython: importing it raises ImportError
    watch.poll(0)
    del sys.modules["firmware.service"]
print("refused", watch.refused)
print("still_watching", int(shell.service is watch))
first = json.loads(port.lines()[0])
print("reply_ok", int(first["ok"]))
print("reply_code", first["code"])
print("reply_error", first["error"])
print("reply_keys", " ".join(sorted(first)), "cmd null" if first.get("cmd", 0) is None else "cmd not null")
port.give(b"status\n")
shell.service.poll(1)
print("service_loaded", int(shell.service is not watch))
second = json.loads(port.lines()[1])
print("second_cmd", second.get("cmd"), int(second["ok"]))
# the protocol loaded, a line arrives when the heap has no room to answer it: the loop must
# go on (a MemoryError out of poll stopped the table's loop), the line answered all the same
port.give(b"meters\n")
if IS_MICROPYTHON:
    micropython.heap_lock()
else:
    dumps = json.dumps

    def no_heap(*args):
        raise MemoryError()

    sys.modules["firmware.service"].json.dumps = no_heap     # CPython's stand-in for a full heap
try:
    shell.service.poll(2)
    survived = 1
except MemoryError:
    survived = 0
finally:
    if IS_MICROPYTHON:
        micropython.heap_unlock()
    else:
        sys.modules["firmware.service"].json.dumps = dumps
print("full_heap_survived", survived)
third = json.loads(port.lines()[2]) if len(port.lines()) > 2 else {"code": "none", "error": ""}
print("full_heap_code", third["code"])
print("full_heap_error", third["error"])
port.give(b"help\n")
shell.service.poll(3)
print("after_full_heap", json.loads(port.lines()[-1]).get("cmd"))
