# Run by host_tests/test_app.py under CPython and the MicroPython VM: the board's boot-time
# checks (firmware.startup.startup_checks) on an install folder and a configuration file given
# as arguments, then what is left of them: which modules stay loaded and, on MicroPython, the
# heap the checks' modules would hold had they been kept (the table's own modules are loaded
# first, so only what the checks add is counted).  Prints "key value" lines.
import gc
import sys

from firmware import app, startup  # noqa: F401  (the table's modules, loaded first here)
from firmware.compat import IS_MICROPYTHON


def heap():
    gc.collect()
    return gc.mem_alloc() if IS_MICROPYTHON else 0


root, config_path, board = sys.argv[1], sys.argv[2], sys.argv[3]
start = heap()
program, options, link_settings, ok, text = startup.startup_checks(board, root, config_path)
after = heap()
print("program_ok", int(program["ok"]))
print("program_reason", program["reason"])
print("config_ok", int(ok))
print("config_text", text)
print("game", options.get("game"))
print("linked", int(link_settings is not None))
print("options", ",".join(sorted([k + "=" + str(v) for k, v in options.items() if k != "jackpot_config"])))
for name in ("firmware.manifest", "firmware.config_file", "firmware.poker.fcp",
             "firmware.poker.brs", "firmware.poker.uth", "firmware.poker.settle",
             "firmware.poker.paytables"):
    print("loaded_" + name.split(".")[-1], int(name in sys.modules))
config = options.get("jackpot_config")
if config is not None:
    # the configuration object must belong to the module the table goes on using
    print("config_class_current", int(type(config) is sys.modules["firmware.jackpot.config"].Config))
print("kept_bytes", after - start)
from firmware import config_file, manifest  # noqa: E402, F401  (what the checks would keep)

print("modules_bytes", heap() - after)
