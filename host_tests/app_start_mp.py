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

os.chdir(sys.argv[1])
collect_often(True)
print("loading", gc.threshold())
table = simulated.make(sys.argv[1])
table_app, link = app.start(table.board, (None, {}, None, True, "defaults"))
print("loop", gc.threshold())
print("link", link)
print("phase", table_app.controller.phase)
