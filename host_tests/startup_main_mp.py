# Run by host_tests/test_startup.py under CPython and the MicroPython VM: the board's main.py
# (tools/build.py MAIN_PY: firmware.startup.main, then firmware.app.main) with the `board`
# module the test writes.  Arguments: flash root, configuration file path, and a mode:
# "stand-in": firmware.app is the test's stand_in_app, whose main() prints what the table
# would be started with and which modules are loaded at that moment; "failing-run": the real
# firmware.app.main, with a run() that fails as a full heap would.
import sys

import firmware

if sys.argv[3] == "stand-in":
    import stand_in_app

    sys.modules["firmware.app"] = stand_in_app
    firmware.app = stand_in_app
import firmware.startup  # noqa: E402

started = firmware.startup.main(sys.argv[1], sys.argv[2])
import firmware.app  # noqa: E402

if sys.argv[3] == "failing-run":
    def run(hw, checks):
        raise MemoryError("no 2048 bytes")

    firmware.app.run = run
firmware.app.main(*started)
