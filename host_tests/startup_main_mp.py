# Run by host_tests/test_startup.py under CPython and the MicroPython VM: the board's main.py
# as tools/build.py writes it (its text in the file given), with the `board` module the test
# writes and, in place of firmware.app, the test's stand_in_app: its run() prints what the
# table would be started with and which modules are loaded at that moment, or it fails as the
# table would (a full heap while its code loads or while it runs).  Arguments: flash root,
# configuration file path, main.py's path.
import sys

import stand_in_app

import firmware

sys.modules["firmware.app"] = stand_in_app
firmware.app = stand_in_app
import firmware.startup  # noqa: E402

firmware.startup.ROOT = sys.argv[1]
firmware.startup.CONFIG_PATH = sys.argv[2]
with open(sys.argv[3]) as f:
    main_py = f.read()
exec(main_py)
