"""Code that loads only for a use (firmware.jackpot.configcheck, firmware.jackpot.restore)
may fail to load: a full heap, or a damaged .mpy file, whose load raises ValueError on
MicroPython.  Neither may pass for a bad record or a bad setting, nor leave the table
playing on money it did not commit.  The failures are made with a meta-path finder that
refuses the one module, as the VM would."""

import sys

import pytest

from firmware.drivers import buttons as btn
from firmware.heap import NotLoaded, Stop
from firmware.jackpot import config as cfg
from firmware.store import eventlog as ev
from firmware.table import controller as tc
from host_tests.test_service import FailingSlot, ready_table


class _Refuse:
    """Importing `name` fails with `error`."""

    def __init__(self, name, error):
        self.name = name
        self.error = error

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            raise self.error
        return None


@pytest.fixture
def refuse(monkeypatch):
    def install(name, error):
        # CPython keeps such a module once loaded (heap.let_go): unload it for the test
        package, leaf = name.rsplit(".", 1)
        monkeypatch.delitem(sys.modules, name, raising=False)
        monkeypatch.delattr(sys.modules[package], leaf, raising=False)
        monkeypatch.setattr(sys, "meta_path", [_Refuse(name, error)] + sys.meta_path)
    return install


@pytest.fixture
def table(tmp_path):
    return ready_table(tmp_path)


def test_a_load_failure_is_not_loaded_never_a_bad_setting_or_record(refuse):
    refuse("firmware.jackpot.configcheck", ValueError("incompatible .mpy file"))
    with pytest.raises(NotLoaded, match="cannot load firmware.jackpot.configcheck: "
                                        "ValueError: incompatible .mpy file"):
        cfg.build({"wager": 200})
    assert "firmware.jackpot.configcheck" not in sys.modules


def test_a_failed_commit_whose_state_cannot_be_read_back_stops_the_table(table, refuse):
    table.key(True)
    good = table.memory.copies
    table.memory.copies = [FailingSlot(s) for s in good]     # the commit fails...
    refuse("firmware.jackpot.restore", MemoryError("memory allocation failed"))  # ...and then
    with pytest.raises(Stop, match="could not be read back"):
        table.ask('config_set {"wager": 500}')
    # the console could not catch it: the table stops, and its restart reads what was committed
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Refuse)]
    table.memory.copies = good
    c = table.boot()
    assert c.jackpot.config.wager == 100
    assert [e for e in table.memory.log.events() if e[3] == ev.CONFIG_CHANGE] == []


def test_a_damaged_restore_module_at_boot_is_no_ram_error(table, refuse):
    table.chip(1)
    table.press(btn.LOCK)
    table.deal([(1, "2c 7d"), (8, "3h 4h 9s Jd Kc"), (0, "5d 5c")])
    table.press(btn.SETTLE)
    table.press(btn.SETTLE)
    pool = table.c.view.meter[0]
    assert pool == 1000000 + 70 and table.c.phase == tc.OPEN
    refuse("firmware.jackpot.restore", ValueError("incompatible .mpy file"))
    # RAM ERROR would ask the supervisor for a RAM clear, which resets a good pool: the table
    # stops instead (main.py says why), as when any of its code cannot load
    with pytest.raises(NotLoaded, match="firmware.jackpot.restore"):
        table.boot()
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Refuse)]
    c = table.boot()
    assert c.phase != tc.RAM_ERROR and c.view.meter[0] == pool


def test_the_panel_configuration_without_heap_for_its_checks_is_refused(table, refuse):
    table.key(True)
    table.press(btn.SETTLE, long=True)
    assert table.c.phase == tc.CONFIG
    refuse("firmware.jackpot.configcheck", MemoryError("memory allocation failed"))
    table.press(btn.OK)
    assert table.c.phase == tc.CONFIG and table.c.jackpot.config.wager == 100
    assert "Config refused" in table.screen()


def test_the_console_configuration_without_heap_for_its_checks_is_refused(table, refuse):
    table.key(True)
    refuse("firmware.jackpot.configcheck", MemoryError("memory allocation failed"))
    reply = table.ask('config_set {"wager": 500}')
    assert reply["ok"] is False and reply["code"] == "refused"
    assert "cannot load firmware.jackpot.configcheck" in reply["error"]
    assert table.c.jackpot.config.wager == 100


def test_the_books_check_without_its_module_is_not_loaded_never_books_that_do_not_balance(refuse):
    # Jackpot.audit, which the boot's reading of a record runs, loads its check for the call:
    # a damaged module must not read as a bad record (RAM ERROR, then a RAM clear of good pools)
    from firmware.jackpot import pools

    jp = pools.Jackpot()
    refuse("firmware.jackpot.meternames", ValueError("incompatible .mpy file"))
    with pytest.raises(NotLoaded, match="cannot load firmware.jackpot.meternames: "
                                        "ValueError: incompatible .mpy file"):
        jp.audit()
