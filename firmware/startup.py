"""The board's boot, first half: check the program and the configuration file before the
table's code is loaded, then hand over to firmware.app.

    hw, checks = main()                      # main.py on the board (tools/build.py MAIN_PY)
                                             # then firmware.app.run(hw, checks)
    checks = startup_checks(board_name)      # (program, options, link_settings, ok, text)

The checks run while little else is in the heap, and every module that only they need (the
verifier, the file's parser, the rules of games this table does not play) is forgotten
before the table's modules load: the heap holds one set or the other, never both.  main()
forgets this module too, so once main.py has let go of it, none of the boot's code stays.
"""

from firmware.compat import const, file_missing
from firmware.heap import collect_often, forget, stopped_line

ROOT = "/"                              # the flash filesystem (tests set their own)
CONFIG_PATH = "/config.json"
_GAME_MODULE = const("firmware.poker.")   # + a game's name (config_file.GAMES): its rules
_SETTLE_MODULE = const("firmware.poker.settle")   # the rules' shared settlement arithmetic
# the presets' pay tables (BRS results reload them)
_PAYTABLES_MODULE = const("firmware.poker.paytables")
_MOUNT = const("/_board")   # where _board() mounts a board module found in ROMFS, alone
# The verifier's modules, in the order they load: its HMAC (the link's too) first
_VERIFIER = const(("firmware.link", "firmware.link.hmac256", "firmware.manifest"))


def main():
    """The board and the checks, as (hw, checks) for firmware.app.run (main.py).

    The program is checked on the filesystem at ROOT, the configuration file is CONFIG_PATH.
    A failure is said on the console (stopped_line) before it ends main.py.  This module is
    forgotten on the way out: its code leaves the heap before the table's loads."""
    collect_often(True)
    _bind_builtins()
    try:
        hw = _board()
        checks = startup_checks(hw.name, ROOT, CONFIG_PATH, hw)
    except Exception as error:
        # The table stops (the watchdog, once started, resets the board): say why on the
        # console first, with the heap, for the technician.
        print(stopped_line(error))
        raise
    forget("firmware.startup")
    return hw, checks


# The built-in modules a file or folder on sys.path replaces: firmware.manifest.BUILTIN_NAMES,
# copied (a test keeps the two equal) because they must be bound before anything imports the
# verifier, whose own imports (binascii, hashlib, json) a stray folder would replace
BUILTINS = ("array", "binascii", "bluetooth", "collections", "cryptolib", "errno", "gzip",
            "hashlib", "heapq", "io", "json", "machine", "os", "platform", "random", "re",
            "select", "socket", "ssl", "struct", "time", "typing", "websocket", "zlib")


def _bind_builtins():
    """Bind the built-in modules (BUILTINS) in sys.modules before anything imports them.
    MicroPython looks for them on sys.path first, the flash included, and imports a folder
    found there (an empty /json/ or /lib/time/) in their place, as a package with nothing
    in it: the board's module, the program check or the table stopped on it.  Bound, they
    are what every later import gets; a file named as one (/lib/time.py) is never run, and
    the program check still names it."""
    import sys

    path = sys.path[:]
    del sys.path[:]
    for name in BUILTINS:
        try:
            sys.modules[name] = __import__(name)
        except ImportError:         # not in this port
            pass
    sys.path.extend(path)


def _refuse(hw, program, root):
    """Stop the boot if the program check (program_facts) names, inside a package, a folder
    (firmware/table/controller/) or a .py file beside the .mpy module of its name:
    MicroPython would import it in place of the module, and the code that imports it stop
    on it; or a module file missing there (firmware/table/controller.mpy), which the code
    importing it would stop on just the same.  (A top-level /board/ or board.py is imported
    past; on a ROMFS install nothing on the flash is imported in place of the image's, /rom
    coming first.)  No more of the code is loaded: the dealer display alone says PROGRAM
    ERROR, the reason and the path, and the boot stops (no watchdog runs yet: the board
    waits for the technician, the picture kept)."""
    path = program["path"] or ""
    if "/" not in path[1:-1]:
        return
    if path[-1:] != "/" and program["reason"] != "missing-file":
        if path[-3:] != ".py" or not _is_file(root.rstrip("/") + "/" + path[:-3] + ".mpy"):
            return
    _show(hw, "PROGRAM ERROR", program["reason"], path)
    raise RuntimeError(program["text"])


def show_stop(hw, error):
    """The dealer display says TABLE STOPPED, the error's type and its text: main.py's, when
    the table's code cannot load or the table stops, which the console alone said (a module
    no check could name, a full heap), the display left blank."""
    _show(hw, "TABLE STOPPED", type(error).__name__, str(error))


def _show(hw, title, what, text):
    """The dealer display alone: `title`, `what`, then `text` on the six rows below."""
    try:
        from firmware.drivers.oled import SSD1306

        oled = SSD1306(hw.i2c, hw.oled_addr)
        oled.begin()
        lines = [title, what]
        for row in range(8):
            oled.write_line(row, lines[row] if row < 2 else text[row * 16 - 32:row * 16 - 16])
        oled.show()
    except Exception:   # no display (or its driver stopped): the console says it
        pass


def _board():
    """The board, made by its module (the build installs it as board.mpy).  A folder named
    board beside it (or a board.py, or such a folder or file in boards/) is what MicroPython
    imports in its place, empty (no make, no base.Board): the module is then imported from a
    filesystem mounted for the purpose that holds the board's own files alone, and the
    program check names what was in the way (_refuse), not a stopped boot with nothing said."""
    import os
    import sys

    try:
        import board

        return board.make()
    except Exception:   # a failure of the board's own code fails again below
        pass
    import vfs

    for name in list(sys.modules):
        if name.startswith("board"):        # board, boards, boards.base
            del sys.modules[name]
    sys.path.insert(0, _MOUNT)
    vfs.mount(_BoardFile(os.stat, sys.path), _MOUNT)
    try:
        import board
    finally:
        vfs.umount(_MOUNT)
        sys.path.pop(0)
    return board.make()


class _BoardFile:
    """A filesystem (MicroPython's VFS protocol, what import asks of it) holding only the
    board's files, /board.py, /board.mpy and /boards/, found on the rest of sys.path; never
    a folder, nor a .py, beside the module of its name (MicroPython would import it in the
    module's place).  (No import in its methods: MicroPython would look here first.)"""

    def __init__(self, stat, path):
        self._stat = stat
        self._path = path

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def stat(self, path):
        return self._stat(self._find(path))

    def open(self, path, mode):
        return open(self._find(path), mode)

    def _find(self, path):
        stat = self._stat
        if path.startswith("/board"):       # board.py, board.mpy, boards/: its own files
            for entry in self._path[1:]:
                real = entry + path
                try:
                    folder = stat(real)[0] & 0x4000
                except OSError:
                    continue
                if folder:
                    stray = _is_file(real + ".py", stat) or _is_file(real + ".mpy", stat)
                else:
                    stray = real[-3:] == ".py" and _is_file(real[:-3] + ".mpy", stat)
                if not stray:
                    return real
        raise OSError(2)


def _is_file(path, stat=None):
    """True if path names a file (not a folder, not nothing); stat: os.stat, given where no
    import may run (_BoardFile)."""
    if stat is None:
        from os import stat
    try:
        return not stat(path)[0] & 0x4000
    except OSError:
        return False


def load_config(path, board_name):
    """(TableConfig or None, ok, text): the table's configuration file, checked.

    No file means the built-in defaults (ok).  A file that fails validation, or that is there
    but cannot be read (a damaged flash), is not used: the defaults run the table, but jackpot
    wagering stays closed until the file is fixed, and the text says what was wrong (key and
    value, or the read error), for the display and the audit."""
    from firmware import config_file

    try:
        table = config_file.load(path, board_name)
    except OSError as error:
        if file_missing(error):
            return None, True, "no %s: defaults" % path
        return None, False, "config file %s unreadable (%s %s)" % (
            path, type(error).__name__, error.args[0] if error.args else "")
    except ValueError as error:
        return None, False, str(error)
    return table, True, "%s %s" % (path, table.game)


def program_facts(result):
    """The boot-time program check (a firmware.manifest Result) as a plain dict, which keeps
    nothing of the verifier's module alive: ok, text (its message()), reason, detail, path,
    digest, authenticated, board, build_id, unverified."""
    return {"ok": result.ok, "text": result.message(), "reason": result.reason,
            "detail": result.detail, "path": result.path, "digest": result.digest,
            "authenticated": result.authenticated, "board": result.board,
            "build_id": result.build_id, "unverified": result.unverified}


def check_program(board_name, root="/"):
    """program_facts() of the program verification (firmware.manifest.check_device) of the
    install on the filesystem at root (or in ROMFS); the verifier and its HMAC are forgotten
    afterwards, when this loaded them.  A check that raises is a failed one (bad-manifest,
    naming the error, and the module when it is one of the verifier's that cannot load)."""
    import sys

    loaded = [name in sys.modules for name in _VERIFIER]
    module = None
    try:
        for module in _VERIFIER:
            __import__(module)
        check = sys.modules[module].check_device    # (none in a folder in its place)
        module = None
        facts = program_facts(check(root, board=board_name))
    except Exception as error:      # what the check did not foresee must not stop the boot
        # (built without the verifier's module: a folder /firmware/manifest/ on the flash is
        # what MicroPython imports in its place, with no Result in it; a manifest.mpy the VM
        # refuses, or a manifest.py beside it that does not compile, never loads)
        detail = "the check stopped: %s %s" % (type(error).__name__,
                                                error.args[0] if error.args else "")
        if module is not None:
            detail += " (%s)" % module.replace(".", "/")
        facts = {"ok": False, "text": "program check failed: bad-manifest: " + detail,
                 "reason": "bad-manifest", "detail": detail, "path": None, "digest": None,
                 "authenticated": False, "board": None, "build_id": None, "unverified": ()}
    check = None
    for i in range(len(_VERIFIER)):
        if not loaded[i]:
            forget(_VERIFIER[i])
    return facts


def check_config(board_name, config_path=CONFIG_PATH):
    """(options, link_settings, ok, text) from the configuration file: the App keyword
    arguments it sets, its LinkConfig (None: a standalone table) and its status
    (load_config).  The file's parser and the games' rules are forgotten afterwards, when
    this loaded them; what the options hold (the jackpot configuration) comes from modules
    that stay, which the table uses too."""
    import sys

    before = set(sys.modules)
    table, ok, text = load_config(config_path, board_name)
    # no file, or one refused: the game critical memory records (RoundController.boot)
    options, link_settings = {"game": None}, None
    if table is not None:
        options = table.controller_args()
        link_settings = table.link
    from firmware import config_file

    # The games' rules validate the file's options; the table itself never settles the
    # players' wagers with them (it evaluates hands and pays the jackpot), so they all go.
    parser_only = ["firmware.config_file", "firmware.jsoncheck", _SETTLE_MODULE,
                   _PAYTABLES_MODULE]
    for name in config_file.GAMES:
        parser_only.append(_GAME_MODULE + name)
    table = config_file = None
    for name in parser_only:
        if name not in before:
            forget(name)
    return options, link_settings, ok, text


def startup_checks(board_name, root="/", config_path=CONFIG_PATH, hw=None):
    """Both checks: (program, options, link_settings, ok, text), as check_program and
    check_config give them.  Their garbage is collected before this returns, so that the
    table's code, which loads next, finds the heap in one piece.  With the board `hw`, a
    folder the program check names in place of a module stops the boot before the
    configuration's check imports any more of the program (_refuse)."""
    import gc

    program = check_program(board_name, root)
    if hw is not None:
        _refuse(hw, program, root)
    checks = (program,) + check_config(board_name, config_path)
    gc.collect()
    return checks
