"""The 32-bit heap measurement (tools/heap32.py) still runs and can fail.

Not a budget test: it checks that the tick-by-tick program (tools/mp/table_ticks.py) boots
the firmware from a ROMFS image, plays rounds with a supervisor's void and audit menu on both
the x64 unix VM and the 32-bit webassembly VM, that a heap too small is seen (the webassembly
VM grows its heap instead of failing, and the run says in which phase it grew), and that the
32-bit VM holds less than the x64 one.  The figures are recorded in docs/performance.md."""

import json
import shutil

import pytest

from tools import heap32
from tools.build import romfs_image
from tools.table_bench import build_tree

ROUNDS = 2    # the supervisor's void and audit menu come in round ROUNDS // 2 = 1

pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="the webassembly VM needs node and npm")


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    work = tmp_path_factory.mktemp("heap32")
    build_tree(str(work / "tree"), arch=None)
    (work / "tree.romfs").write_bytes(romfs_image(str(work / "tree")))
    heap32.ensure_package()
    return str(work), str(work / "tree.romfs")


def test_the_program_check_passes_on_the_unix_vm(image):
    # tools.heap32 gives its findings to both VMs' runs (the webassembly port's file system
    # reports a missing file with another error number than a board's, see tools/heap32.py)
    work, rom = image
    said = heap32.unix(["program", heap32.prepared_state(work, "{}")], rom)
    facts = json.loads(said.split(None, 1)[1])
    assert facts["ok"] is True and facts["reason"] == "ok"


def test_both_vms_play_the_rounds_and_the_32_bit_one_holds_less(image):
    work, rom = image
    program = heap32.unix(["program", heap32.prepared_state(work, "{}")], rom).split(None, 1)[1]
    x64 = heap32.figures(heap32.unix([ROUNDS, heap32.prepared_state(work, program), 0], rom))
    b32 = heap32.wasm_rounds(work, rom, program, ROUNDS, 512)
    for f in (x64, b32):
        assert heap32.plays(f, ROUNDS), f
        assert f["config_check"] == "ok"
        # what the firmware holds live at its most includes its modules and the table
        assert int(f["live_max"]) > int(f["heap_firmware_modules"]) + int(f["heap_table_objects"])
    for key, _label in heap32.ROWS:
        assert 0 < int(b32[key]) < int(x64[key])


def test_a_heap_too_small_is_seen_as_grown(image):
    work, rom = image
    program = heap32.unix(["program", heap32.prepared_state(work, "{}")], rom).split(None, 1)[1]
    # the firmware's modules alone take more than a 48 KB VM has free
    f = heap32.wasm_rounds(work, rom, program, ROUNDS, 48)
    assert not heap32.plays(f, ROUNDS)
    assert f["heap_grew"] != "never" and "+" in f["heap_grew"]
