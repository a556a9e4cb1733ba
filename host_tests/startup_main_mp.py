# Run by host_tests/test_startup.py under CPython and the MicroPython VM: the board's main.py
# (firmware.startup.main) with the `board` module the test writes and, in place of
# firmware.app, a stand-in whose run() prints what the table would be started with and which
# modules are loaded at that moment.  Arguments: flash root, configuration file path.
import sys

import stand_in_app

import firmware

sys.modules["firmware.app"] = stand_in_app
firmware.app = stand_in_app
from firmware import startup  # noqa: E402

startup.main(sys.argv[1], sys.argv[2])
