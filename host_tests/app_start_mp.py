# Run by host_tests/test_startup.py under the MicroPython VM: the loading phase as
# firmware.startup.main() sets it up, then firmware.app.start() (everything app.run() does
# before its loop) on the simulated board; prints the garbage collector's threshold in each
# phase and the table's phase.  Argument: a scratch folder (the board's flash and FRAM).
import gc
import os
import sys

from boards import simulated
from firmware import app
from firmware.heap import collect_often
from firmware.store import slots

os.chdir(sys.argv[1])
# On a board app.start keeps its files at the flash's root ("/"); here that root is the
# simulated board's flash folder, not the host's "/", where one run's round would be the next
# run's memory.
_PathFS = slots.PathFS
slots.PathFS = lambda directory: _PathFS(sys.argv[1].rstrip("/") + "/" + simulated.FLASH_DIR
                                         + directory)
collect_often(True)
print("loading", gc.threshold())
table = simulated.make(sys.argv[1])
table_app, link = app.start(table.board, (None, {}, None, True, "defaults"))
print("loop", gc.threshold())
print("link", link)
print("phase", table_app.controller.phase)
# a clock reading before 2025 was never set (a Pico W's after a power cut): its times are
# marked; the VM's clock is the host's, set
memory = table_app.controller.memory
print("clock", memory.clock_from, memory.clock_unsure)
print("files", " ".join(sorted(os.listdir(simulated.FLASH_DIR))) or "-")
