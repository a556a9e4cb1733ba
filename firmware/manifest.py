"""Program verification: every program file's SHA-256 against the manifest the build wrote.

The manifest (``manifest.json`` beside ``main.py``) is JSON::

    {"format": 1, "board": "pico_w", "build_id": "...",
     "files": {"firmware/app.mpy": "<sha256 hex>", ...},
     "digest": "<sha256 hex of the canonical body>",
     "hmac": "<HMAC-SHA256 hex of the canonical body>"}      (only when built with a key)

The canonical body is the text, UTF-8 encoded, that the digest and the HMAC cover::

    table-controller manifest 1
    board <board>
    build <build_id>
    <sha256 hex> <path>          one line per file, paths in sorted order

The digest names the program: the audit menu shows it and a test lab compares it with the
approved build.  With a key provisioned on the board, the manifest must carry a valid HMAC,
so a file and its manifest line cannot both be changed by someone without the key; nor can
the key be deleted instead: critical memory marks a table that ran keyed (firmware.app boot,
RoundController.unkeyed; docs/wiring.md, "Program verification").

`verify` is pure: file contents come through the `read_file` function it is given.
MicroPython has no `hmac` module: HMAC-SHA256 (RFC 2104) is firmware.link.hmac256's, which
the link signs with (without loading this module).

Two installs are checked by `check_device` (docs/romfs.md):

- files: the whole build on the flash filesystem, manifest.json beside main.py;
- ROMFS: the build as a ROMFS image mounted at /rom (bytecode runs from flash in place) and
  only main.py on the flash filesystem, where MicroPython runs it at boot.  The manifest is
  /rom/manifest.json; every file is checked in /rom except main.py, checked on the flash
  filesystem (a copy of it in /rom must match too).  Any other program file on the flash
  filesystem (boot.py runs before main.py, /lib is on sys.path), and a folder there named as a
  package or module of the image, is an extra file: main.py puts /rom first on sys.path, ahead
  of the flash, but no part of the program is kept outside the image.
"""

import binascii
import hashlib
import json

from firmware.compat import const, file_missing
from firmware.link import hmac256

_FORMAT = const(1)
MANIFEST_NAME = "manifest.json"
KEY_NAME = "manifest.key"                 # provisioned on the board, never part of a build
MAIN_NAME = "main.py"                     # what MicroPython runs at boot, from the flash filesystem
ROM_ROOT = "/rom"                         # where MicroPython mounts a ROMFS partition at boot
PROGRAM_SUFFIXES = (".py", ".mpy")        # files the VM can import or run
UNVERIFIED_PREFIXES = ("lib/",)           # packages `mip` installs on the board at deploy time
# MicroPython imports a file on sys.path (/lib too) in place of these built-in modules (its
# "extensible" ones: MP_REGISTER_EXTENSIBLE_MODULE): such a file under lib/ is extra, never
# unverified.  (firmware.startup.BUILTINS, bound first at boot, is the same list.)
BUILTIN_NAMES = ("array", "binascii", "bluetooth", "collections", "cryptolib", "errno", "gzip",
                 "hashlib", "heapq", "io", "json", "machine", "os", "platform", "random", "re",
                 "select", "socket", "ssl", "struct", "time", "typing", "websocket", "zlib")
MIN_KEY_BYTES = 16
_CHUNK = const(512)                               # bytes read at a time when hashing a file
HEX_DIGITS = "0123456789abcdef"
_DIGEST_HEX_LENGTH = const(64)
_IS_DIR = const(0x4000)                           # S_IFDIR in os.stat()[0] on both runtimes

OK = "ok"
BAD_MANIFEST = "bad-manifest"
WRONG_BOARD = "wrong-board"
NO_HMAC = "no-hmac"
BAD_HMAC = "bad-hmac"
MISSING_FILE = "missing-file"
CHANGED_FILE = "changed-file"
EXTRA_FILE = "extra-file"



class Result:
    """Outcome of a verification.

    ok: True when every check passed.  reason: one of the reason constants.  path: the first
    file that failed (None for manifest-level failures).  detail: a sentence for the log.
    digest: the program digest (None when the manifest could not be read).  authenticated:
    True when an HMAC was checked with a key.  unverified: program files found under
    UNVERIFIED_PREFIXES, which the manifest does not cover.
    """

    def __init__(self, reason, detail, path=None, digest=None, authenticated=False, board=None,
                 build_id=None, unverified=()):
        self.ok = reason == OK
        self.reason = reason
        self.detail = detail
        self.path = path
        self.digest = digest
        self.authenticated = authenticated
        self.board = board
        self.build_id = build_id
        self.unverified = tuple(unverified)

    def message(self):
        """One line for the dealer display and the event log."""
        if self.ok:
            return "program %s %s" % (self.digest[:16], "authenticated" if self.authenticated
                                      else "verified (no key)")
        return "program check failed: %s: %s" % (self.reason, self.detail)


def hexlify(data):
    """Lower-case hex text of bytes `data`."""
    return binascii.hexlify(data).decode()


def sha256_hex(data):
    """SHA-256 of bytes `data` as lower-case hex."""
    return hexlify(hashlib.sha256(data).digest())


hmac_sha256 = hmac256.digest           # (key, message) -> the 32-byte HMAC-SHA256


def check_key(key):
    """Return key if it is usable bytes, else raise ValueError naming what is wrong."""
    if not isinstance(key, (bytes, bytearray)):
        raise ValueError("manifest key must be bytes, got %s" % type(key).__name__)
    if len(key) < MIN_KEY_BYTES:
        raise ValueError("manifest key is %d bytes; at least %d are needed" % (len(key), MIN_KEY_BYTES))
    return bytes(key)


def same_text(a, b):
    """Compare two strings in time that does not depend on where they differ."""
    if len(a) != len(b):
        return False
    difference = 0
    for i in range(len(a)):
        difference |= ord(a[i]) ^ ord(b[i])
    return difference == 0


def body_lines(board, build_id, files):
    """The canonical body line by line (bytes, each ending in a newline), for hashing as a
    stream without building the whole text."""
    yield ("table-controller manifest %d\n" % _FORMAT).encode()
    yield ("board %s\n" % board).encode()
    yield ("build %s\n" % build_id).encode()
    for path in sorted(files):
        yield ("%s %s\n" % (files[path], path)).encode()


def body(board, build_id, files):
    """Canonical bytes the digest and HMAC cover, for `files` (path -> sha256 hex)."""
    return b"".join(body_lines(board, build_id, files))


def _check_text(name, value):
    if not isinstance(value, str) or not value or "\n" in value or "\r" in value:
        raise ValueError("%s must be a one-line non-empty string, got %r" % (name, value))
    return value


def _check_hex(name, value):
    if (not isinstance(value, str) or len(value) != _DIGEST_HEX_LENGTH
            or any(c not in HEX_DIGITS for c in value)):
        raise ValueError("%s must be %d lower-case hex digits, got %r" % (name, _DIGEST_HEX_LENGTH, value))
    return value


def check_path(path):
    """Return path if it is a safe relative program path, else raise ValueError naming it."""
    _check_text("file path", path)
    if path.startswith("/") or "\\" in path or min(path) <= " ":
        raise ValueError("file path %r must be relative, with / separators and no spaces or "
                         "control characters" % path)
    for part in path.split("/"):
        if part in ("", ".", ".."):
            raise ValueError("file path %r has an empty, '.' or '..' part" % path)
    return path


def make(board, build_id, files, key=None):
    """Manifest bytes for `files` (path -> contents bytes), authenticated when key is given."""
    _check_text("board", board)
    _check_text("build_id", build_id)
    if not files:
        raise ValueError("a manifest needs at least one file")
    hashes = {}
    for path in files:
        hashes[check_path(path)] = sha256_hex(files[path])
    text = body(board, build_id, hashes)
    record = {"format": _FORMAT, "board": board, "build_id": build_id, "files": hashes,
              "digest": sha256_hex(text)}
    if key is not None:
        record["hmac"] = hexlify(hmac_sha256(check_key(key), text))
    # Sorted keys and fixed separators: the same inputs always give the same bytes.
    return _dumps(record).encode()


def _dumps(record):
    """JSON text with sorted keys on both runtimes (MicroPython's json has no sort_keys)."""
    if isinstance(record, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + _dumps(record[k]) for k in sorted(record)) + "}"
    return json.dumps(record)


def parse(manifest_bytes):
    """Decode and validate manifest bytes into (board, build_id, files, digest, hmac or None).

    Raises ValueError naming the first field that is wrong.
    """
    if not isinstance(manifest_bytes, (bytes, bytearray)):
        raise ValueError("manifest must be bytes, got %s" % type(manifest_bytes).__name__)
    try:
        record = json.loads(manifest_bytes if isinstance(manifest_bytes, bytes) else bytes(manifest_bytes))
    except (ValueError, UnicodeError):
        raise ValueError("manifest is not valid UTF-8 JSON") from None
    except (RuntimeError, MemoryError):     # RecursionError on CPython
        raise ValueError("manifest is too large or nested too deeply to parse") from None
    if not isinstance(record, dict):
        raise ValueError("manifest must be a JSON object")
    known = ("format", "board", "build_id", "files", "digest", "hmac")
    for name in record:
        if name not in known:
            raise ValueError("manifest has unknown field %r" % (name,))
    for name in known[:5]:
        if name not in record:
            raise ValueError("manifest lacks field %r" % name)
    if record["format"] != _FORMAT or isinstance(record["format"], bool):
        raise ValueError("manifest format %r is not %d" % (record["format"], _FORMAT))
    board = _check_text("board", record["board"])
    build_id = _check_text("build_id", record["build_id"])
    files = record["files"]
    if not isinstance(files, dict) or not files:
        raise ValueError("manifest field 'files' must be a non-empty object")
    for path in files:
        check_path(path)
        _check_hex("hash of %s" % path, files[path])
    digest = _check_hex("digest", record["digest"])
    mac = record.get("hmac")
    if mac is not None:
        _check_hex("hmac", mac)
    return board, build_id, files, digest, mac


def is_program(path):
    """True for files the VM could import or run."""
    for suffix in PROGRAM_SUFFIXES:
        if path.endswith(suffix):
            return True
    return False


def _listed(name):
    """What check_device's walk keeps: program files and folders (that might shadow one)."""
    return name[-1:] == "/" or is_program(name)


def _unverified(path):
    """True for a file under UNVERIFIED_PREFIXES that does not stand in for a built-in module."""
    for prefix in UNVERIFIED_PREFIXES:
        if path.startswith(prefix):
            top = path[len(prefix):].split("/")[0]
            for suffix in PROGRAM_SUFFIXES:
                if top.endswith(suffix):
                    top = top[:-len(suffix)]
            return top not in BUILTIN_NAMES
    return False


def verify(manifest_bytes, read_file, key=None, present=None, board=None, hash_file=None,
           locate=None):
    """Check the program against its manifest; return a Result naming the first failure.

    read_file(path) returns a file's bytes or raises OSError; hash_file(path), when given, is
    used instead and returns the file's SHA-256 hex (to hash in chunks).  key: the provisioned HMAC key
    (bytes) or None.  present: every file path found on the device, to catch program files
    the manifest does not list (None skips that check).  board: the running board's name,
    which must match the manifest's.  locate(path), when given, turns a manifest path into
    the path the Result names (where the file is on the device); by default the manifest
    path itself.  Checks run in this order: manifest form, a listed module inside a package
    not in `present`, digest, board, HMAC, a listed file missing, one changed (each in
    sorted order: a missing module stops the boot, so it is named first), then unlisted
    program files.
    """
    if key is not None:
        key = check_key(key)
    try:
        name, build_id, files, digest, mac = parse(manifest_bytes)
    except ValueError as error:
        return Result(BAD_MANIFEST, str(error))
    digester = hashlib.sha256()
    inner = outer_pad = None
    if key is not None and mac is not None:
        inner_pad, outer_pad = hmac256.pads(key)
        inner = hashlib.sha256(inner_pad)
    for line in body_lines(name, build_id, files):
        digester.update(line)
        if inner is not None:
            inner.update(line)
    actual = hexlify(digester.digest())

    def result(reason, detail, path=None, authenticated=False, unverified=()):
        return Result(reason, detail, path, actual, authenticated, name, build_id, unverified)

    if locate is None:
        def locate(path):
            return path

    if present is not None:
        # a module missing inside a package stops the boot (firmware.startup._refuse): named
        # before the manifest's own failures, which let the boot go on to its import
        for path in sorted(files):
            if "/" in path and is_program(path) and path not in present:
                where = locate(path)
                return result(MISSING_FILE, "%s is listed but cannot be read" % where, where)
    if not same_text(actual, digest):
        return result(BAD_MANIFEST, "the digest field does not match the file list (manifest edited)")
    if board is not None and board != name:
        return result(WRONG_BOARD, "manifest is for board %s, this board is %s" % (name, board))
    authenticated = False
    if key is not None:
        if mac is None:
            return result(NO_HMAC, "a key is provisioned but the manifest carries no HMAC")
        if not same_text(hexlify(hmac256.finish(inner, outer_pad)), mac):
            return result(BAD_HMAC, "the manifest's HMAC does not match (manifest edited or wrong key)")
        authenticated = True
    changed = None      # the first changed file: named after any missing one (below)
    for path in sorted(files):
        try:
            got = hash_file(path) if hash_file is not None else sha256_hex(read_file(path))
        except OSError:
            where = locate(path)
            return result(MISSING_FILE, "%s is listed but cannot be read" % where, where, authenticated)
        if changed is None and not same_text(got, files[path]):
            changed = path
    if changed is not None:
        where = locate(changed)
        return result(CHANGED_FILE, "%s does not match its SHA-256" % where, where, authenticated)
    unverified = []
    if present is not None:
        # one pass, no sorted copy of the device's file list (the boot heap is small): the
        # first unlisted program file in sorted order is the one reported, except that one
        # standing in for a listed module inside a package comes first: the boot must stop
        # on it (firmware.startup._refuse), which it does only when it is the one named
        extra = None
        stops = False
        for path in present:
            if path[-1:] == "/":
                # a folder (walk's "name/") named as a listed module: MicroPython imports it,
                # empty, in place of the module's file (never a package's __init__/)
                if (path[:-1] + ".py" not in files and path[:-1] + ".mpy" not in files
                        or _init_folder(path)):
                    continue
                hit = True
            elif path in files or path == MANIFEST_NAME or not is_program(path):
                continue
            elif _unverified(path):
                unverified.append(locate(path))
                continue
            else:       # a source beside the .mpy of its name: imported in its place
                hit = path[-3:] == ".py" and path[:-3] + ".mpy" in files
            hit = hit and "/" in path[:-1]
            if extra is None or hit > stops or (hit == stops and path < extra):
                extra, stops = path, hit
        if extra is not None:
            where = locate(extra)
            what = IN_PLACE if extra[-1:] == "/" else "a program file the manifest does not list"
            return result(EXTRA_FILE, "%s is %s" % (where, what), where, authenticated)
        unverified.sort()
    return result(OK, "all %d files match" % len(files), None, authenticated, unverified)


IN_PLACE = "a folder MicroPython would import in place of the module it is named as"


def _init_folder(path):
    """True for a folder "__init__/": a package's __init__ is looked for as a file only."""
    return path == "__init__/" or path.endswith("/__init__/")


def in_place(present):
    """The first path in `present` (walk's, sorted, folders as "path/") that MicroPython
    would import, inside a package, in place of the module file beside it: a folder beside
    the .py or .mpy of its name, or a .py beside the .mpy (the code importing it would stop
    on it); None if there is none.  By the files there, manifest or not, so that it is
    named before any other failure: the boot stops on it (firmware.startup._refuse) with
    PROGRAM ERROR shown, never in the table's code with a blank display.  (At the top
    level: main.py runs as a file, and the board module is imported past a stray; under
    lib/: what mip installs, which the program does not need to start.  A folder holding a
    package's __init__ is a package: whether it or the module file beside it is the stray,
    only the manifest says, so verify names it, never the program's own package.)"""
    for path in present:
        if "/" not in path[:-1] or path.startswith("lib/"):
            continue
        if path[-1:] == "/":
            if not _init_folder(path) and (path[:-1] + ".py" in present
                                            or path[:-1] + ".mpy" in present) \
                    and path + "__init__.py" not in present and path + "__init__.mpy" not in present:
                return path
        elif path[-3:] == ".py" and path[:-3] + ".mpy" in present:
            return path
    return None


def walk(listdir, root="", skip=(), keep=None):
    """Every file path under root, relative to it, sorted; listdir(path) yields (name, is_dir).

    Folders whose relative path is in `skip` are not entered (a mount point below root).
    keep(name), when given, chooses the files listed (the others cost no memory), and the
    folders, as "path/", for which keep("name/") is true.
    """
    found = []
    pending = [""]
    while pending:
        relative = pending.pop()
        for name, is_dir in listdir(_join(root, relative)):
            path = relative + "/" + name if relative else name
            if is_dir:
                if path not in skip:
                    pending.append(path)
                if keep is not None and keep(name + "/"):
                    found.append(path + "/")
            elif keep is None or keep(name):
                found.append(path)
    found.sort()
    return found


def _join(root, path):
    if not root:
        return path or "."
    if not path:
        return root
    return root.rstrip("/") + "/" + path


def _below(root, path):
    """path relative to root when path is a folder under root (a mount point), else None."""
    prefix = root.rstrip("/") + "/"
    if path.startswith(prefix) and len(path) > len(prefix):
        return path[len(prefix):].rstrip("/")
    return None


def check_device(root="/", board=None, rom=ROM_ROOT):
    """Verify the program installed on this device (the boot-time check); return a Result.

    root: the flash filesystem.  rom: where a ROMFS image is mounted (None: never look).
    When rom/manifest.json exists the install is a ROMFS one (module docstring): the program
    is checked in rom, main.py in root, and program files in root other than main.py and
    lib/ are extra.  Otherwise the program is checked in root from root/manifest.json.
    Results of a ROMFS check name files by their path on the device.  The key is
    root/manifest.key in both cases.  On the flash filesystem's install, a folder or file
    MicroPython would import in place of a module (in_place) is named before anything else.
    """
    import os

    buf = bytearray(_CHUNK)
    view = memoryview(buf)

    def read_at(base, path):
        with open(_join(base, path), "rb") as f:
            return f.read()

    def hash_at(base, path):
        hasher = hashlib.sha256()
        with open(_join(base, path), "rb") as f:
            while True:
                count = f.readinto(buf)
                if not count:
                    break
                hasher.update(view[:count])
        return hexlify(hasher.digest())

    def listdir(path):
        try:
            names = os.listdir(path)
        except UnicodeError:            # MicroPython, on a name that is not UTF-8
            raise OSError("a file name in %s is not UTF-8 text" % path) from None
        for name in names:
            mode = os.stat(path.rstrip("/") + "/" + name)[0]
            yield name, bool(mode & _IS_DIR)

    rom_manifest = None
    if rom is not None:
        try:
            rom_manifest = read_at(rom, MANIFEST_NAME)
        except OSError:
            pass
        except MemoryError:
            return Result(BAD_MANIFEST, "%s is too large to read" % _join(rom, MANIFEST_NAME))
    present = None
    if rom_manifest is None:
        try:
            present = walk(listdir, root, (), _listed)
        except OSError as error:
            return _unlisted(error)
        except MemoryError:
            return _unlisted(None)
        stray = in_place(present)
        if stray is not None:
            return Result(EXTRA_FILE, "%s is %s" % (stray, IN_PLACE if stray[-1:] == "/" else
                                                     "a program file the manifest does not list"),
                          stray)
        try:
            manifest_bytes = read_at(root, MANIFEST_NAME)
        except OSError as error:
            if file_missing(error):
                return Result(BAD_MANIFEST, "%s is missing" % MANIFEST_NAME)
            return Result(BAD_MANIFEST, "%s cannot be read (%s)" % (MANIFEST_NAME, _os_error(error)))
        except MemoryError:
            return Result(BAD_MANIFEST, "%s is too large to read" % MANIFEST_NAME)
    try:
        key = read_at(root, KEY_NAME)
    except OSError as error:
        if not file_missing(error):
            # provisioned but unreadable (a damaged flash): never a check without the key
            return Result(BAD_HMAC, "provisioned key %s cannot be read (%s)"
                          % (KEY_NAME, _os_error(error)))
        key = None
    except MemoryError:
        return Result(BAD_HMAC, "provisioned key %s is too large to read" % KEY_NAME)
    if key is not None:
        try:
            check_key(key)
        except ValueError as error:
            return Result(BAD_HMAC, "provisioned key unusable: %s" % error)
    if rom_manifest is None:
        return verify(manifest_bytes, lambda path: read_at(root, path), key, present, board,
                      lambda path: hash_at(root, path))
    try:
        return _check_rom(rom_manifest, key, board, root, rom, read_at, hash_at, listdir)
    except OSError as error:
        return _unlisted(error)
    except MemoryError:
        return _unlisted(None)


def _unlisted(error):
    """A folder that cannot be listed (error; None: too many files for the memory): its
    files can be neither checked nor ruled out."""
    if error is None:
        return Result(MISSING_FILE, "the files on the board cannot be listed: too many program "
                      "files for the memory")
    return Result(MISSING_FILE, "the files on the board cannot be listed (%s)" % _os_error(error))


def _os_error(error):
    return "%s %s" % (type(error).__name__, error.args[0] if error.args else "")


def _check_rom(manifest_bytes, key, board, root, rom, read_at, hash_at, listdir):
    """The ROMFS half of check_device, given its file helpers."""
    rom_main = []           # the /rom copy of main.py, when it differs from the one that runs

    def place(path):
        return _join(root, path) if path == MAIN_NAME else _join(rom, path)

    def hash_file(path):
        if path != MAIN_NAME:
            return hash_at(rom, path)
        got = hash_at(root, path)
        try:
            copy = hash_at(rom, path)
        except OSError:
            copy = got
        if copy != got:
            rom_main.append(_join(rom, path))
        return got

    in_rom = walk(listdir, rom, (), is_program)
    result = verify(manifest_bytes, lambda path: read_at("", place(path)), key, in_rom, board,
                    hash_file, place)
    if not result.ok:
        return result
    mounted = _below(root, rom)
    on_flash = walk(listdir, root, (mounted,) if mounted else (), _listed)

    def failed(reason, detail, path):
        return Result(reason, detail, path, result.digest, result.authenticated, result.board,
                      result.build_id, result.unverified)

    if rom_main:
        return failed(CHANGED_FILE, "%s differs from %s, the main.py that runs"
                      % (rom_main[0], _join(root, MAIN_NAME)), rom_main[0])
    unverified = list(result.unverified)
    extra = folder = None
    for path in on_flash:
        if path[-1:] == "/":
            # named as a package or module of the image (an empty /firmware/): main.py puts
            # the image first on sys.path, but no part of the program is kept outside it
            stem = path[:-1] + "."
            if folder is None and not _unverified(path) and [
                    f for f in in_rom if f.startswith(path) or f.startswith(stem)]:
                folder = path
        elif path == MAIN_NAME or not is_program(path):
            continue
        elif _unverified(path):
            unverified.append(_join(root, path))
        elif extra is None:     # named before a folder: what it holds, not the folder around it
            extra = path
    if extra or folder:
        where = _join(root, extra or folder)
        return failed(EXTRA_FILE, "%s is a %s outside the ROMFS image" % (
            where, "program file" if extra else "folder named as part of the program"), where)
    result.unverified = tuple(unverified)
    return result
