"""Program verification (firmware/manifest.py) on CPython: the HMAC against CPython's hmac,
the digest against the documented format, and every kind of tampering."""

import hashlib
import hmac
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import manifest

KEY = b"table-7-provisioned-key!"
FILES = {
    "main.py": b"import firmware.app\nfirmware.app.main()\n",
    "board.mpy": b"M\x06\x00\x1fboard",
    "firmware/__init__.mpy": b"M\x06\x00\x1finit",
    "firmware/poker/hands.mpy": b"M\x06\x0a\x1fnative hands",
}


def build(key=None, files=FILES, board="pico_w", build_id="v1.0-3-gabc1234"):
    return manifest.make(board, build_id, files, key)


def reader(files):
    def read_file(path):
        if path not in files:
            raise OSError(2, "ENOENT")
        return files[path]
    return read_file


def edited(manifest_bytes, change):
    record = json.loads(manifest_bytes)
    change(record)
    return json.dumps(record).encode()


# --- HMAC-SHA256 ---------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(key=st.binary(min_size=0, max_size=200), message=st.binary(max_size=300))
def test_hmac_matches_cpython_hmac(key, message):
    assert manifest.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()


def test_hmac_rfc4231_test_case_2():
    # RFC 4231 section 4.3: key "Jefe", data "what do ya want for nothing?".
    expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert manifest.hexlify(manifest.hmac_sha256(b"Jefe", b"what do ya want for nothing?")) == expected


def test_hmac_rfc4231_test_case_6_key_longer_than_a_block():
    # RFC 4231 section 4.7: 131-byte key of 0xaa, hashed before use.
    expected = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    data = b"Test Using Larger Than Block-Size Key - Hash Key First"
    assert manifest.hexlify(manifest.hmac_sha256(b"\xaa" * 131, data)) == expected


# --- the manifest the build writes ---------------------------------------------------------

def test_digest_and_hmac_cover_the_documented_canonical_body():
    record = json.loads(build(KEY))
    # Rebuilt here from the format in the module docstring, with hashlib and hmac only.
    lines = ["table-controller manifest 1", "board pico_w", "build v1.0-3-gabc1234"]
    for path in sorted(FILES):
        lines.append(hashlib.sha256(FILES[path]).hexdigest() + " " + path)
    text = ("\n".join(lines) + "\n").encode()
    assert record["digest"] == hashlib.sha256(text).hexdigest()
    assert record["hmac"] == hmac.new(KEY, text, hashlib.sha256).hexdigest()
    assert record["files"] == {p: hashlib.sha256(d).hexdigest() for p, d in FILES.items()}
    assert (record["format"], record["board"], record["build_id"]) == (1, "pico_w", "v1.0-3-gabc1234")


def test_manifest_bytes_are_reproducible_and_unkeyed_has_no_hmac():
    assert build() == build()
    assert "hmac" not in json.loads(build())


@pytest.mark.parametrize("path", ["/main.py", "../x.py", "a//b.py", "a/./b.py", "a\\b.py", "a b.py", ""])
def test_make_refuses_unsafe_paths(path):
    with pytest.raises(ValueError, match="path"):
        manifest.make("pico_w", "b", {path: b"x"})


def test_make_refuses_empty_and_bad_fields():
    with pytest.raises(ValueError, match="at least one file"):
        manifest.make("pico_w", "b", {})
    with pytest.raises(ValueError, match="board must be a one-line"):
        manifest.make("pico\nw", "b", FILES)
    with pytest.raises(ValueError, match="key is 4 bytes; at least 16"):
        manifest.make("pico_w", "b", FILES, b"abcd")
    with pytest.raises(ValueError, match="key must be bytes, got str"):
        manifest.make("pico_w", "b", FILES, "a string key of some length")


# --- verification --------------------------------------------------------------------------

def test_intact_program_verifies_with_and_without_key():
    result = manifest.verify(build(KEY), reader(FILES), KEY, present=list(FILES) + ["manifest.json"])
    assert (result.ok, result.reason, result.authenticated) == (True, "ok", True)
    assert result.digest == json.loads(build(KEY))["digest"]
    assert result.board == "pico_w" and result.build_id == "v1.0-3-gabc1234"
    assert "authenticated" in result.message()
    unkeyed = manifest.verify(build(KEY), reader(FILES))
    assert (unkeyed.ok, unkeyed.authenticated) == (True, False)
    assert "no key" in unkeyed.message()


def test_changed_file_is_named():
    files = dict(FILES)
    files["firmware/poker/hands.mpy"] = b"M\x06\x0a\x1fnative hands!"
    result = manifest.verify(build(KEY), reader(files), KEY)
    assert (result.ok, result.reason, result.path) == (False, "changed-file", "firmware/poker/hands.mpy")
    assert "firmware/poker/hands.mpy does not match" in result.message()


def test_first_mismatch_in_sorted_order_is_named():
    files = {p: d + b"!" for p, d in FILES.items()}
    result = manifest.verify(build(), reader(files))
    assert result.path == "board.mpy"


def test_missing_file_is_named():
    files = dict(FILES)
    del files["firmware/__init__.mpy"]
    result = manifest.verify(build(KEY), reader(files), KEY)
    assert (result.reason, result.path) == ("missing-file", "firmware/__init__.mpy")


def test_extra_program_file_is_named_and_other_files_are_not():
    present = list(FILES) + ["manifest.json", "manifest.key", "config.json", "store/journal.bin",
                             "firmware/evil.py"]
    result = manifest.verify(build(KEY), reader(FILES), KEY, present=present)
    assert (result.reason, result.path) == ("extra-file", "firmware/evil.py")
    present.remove("firmware/evil.py")
    assert manifest.verify(build(KEY), reader(FILES), KEY, present=present).ok


def test_lib_packages_are_reported_as_unverified():
    present = list(FILES) + ["lib/umqtt/simple.mpy"]
    result = manifest.verify(build(), reader(FILES), present=present)
    assert result.ok and result.unverified == ("lib/umqtt/simple.mpy",)


@pytest.mark.parametrize("stray", ["lib/hashlib.py", "lib/time.mpy", "lib/json/__init__.py",
                                   "lib/os/path.py", "lib/machine.py", "lib/cryptolib.py"])
def test_lib_file_standing_in_for_a_builtin_module_is_extra(stray):
    # MicroPython imports lib/hashlib.py in place of its built-in hashlib (an "extensible"
    # module): the verifier and the table would run it, so it is no mip package.
    present = list(FILES) + ["lib/umqtt/simple.mpy", stray]
    result = manifest.verify(build(), reader(FILES), present=present)
    assert (result.reason, result.path) == ("extra-file", stray)
    assert stray in result.message()


def test_edited_hash_without_new_digest_is_caught():
    def change(record):
        record["files"]["main.py"] = "0" * 64
    result = manifest.verify(edited(build(), change), reader(FILES))
    assert (result.reason, result.path) == ("bad-manifest", None)
    assert "digest field does not match" in result.detail


def _forge(manifest_bytes, files):
    """What someone without the key can do: rewrite hashes and digest consistently."""
    record = json.loads(manifest_bytes)
    record["files"] = {p: hashlib.sha256(d).hexdigest() for p, d in files.items()}
    lines = ["table-controller manifest 1", "board " + record["board"], "build " + record["build_id"]]
    lines += [record["files"][p] + " " + p for p in sorted(record["files"])]
    record["digest"] = hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()
    return json.dumps(record).encode(), record["digest"]


def test_consistently_forged_manifest_fails_the_hmac():
    files = dict(FILES, **{"firmware/poker/hands.mpy": b"patched"})
    forged, digest = _forge(build(KEY), files)
    result = manifest.verify(forged, reader(files), KEY)
    assert (result.reason, result.path) == ("bad-hmac", None)
    # Without a key only the digest shows it: it is not the approved build's digest.
    unkeyed = manifest.verify(forged, reader(files))
    assert unkeyed.ok and unkeyed.digest == digest != json.loads(build(KEY))["digest"]


def test_wrong_key_and_missing_hmac():
    assert manifest.verify(build(KEY), reader(FILES), b"another-key-of-16+bytes").reason == "bad-hmac"
    result = manifest.verify(build(), reader(FILES), KEY)
    assert (result.reason, result.authenticated) == ("no-hmac", False)


def test_wrong_board():
    result = manifest.verify(build(board="esp32_s3"), reader(FILES), board="pico_w")
    assert result.reason == "wrong-board"
    assert "for board esp32_s3, this board is pico_w" in result.detail


@pytest.mark.parametrize("change,words", [
    (lambda r: r.pop("digest"), "lacks field 'digest'"),
    (lambda r: r.update(extra=1), "unknown field 'extra'"),
    (lambda r: r.update(format=2), "format 2 is not 1"),
    (lambda r: r.update(format=True), "format True is not 1"),
    (lambda r: r.update(board=7), "board must be a one-line"),
    (lambda r: r.update(files=[]), "'files' must be a non-empty object"),
    (lambda r: r.update(files={"../main.py": "0" * 64}), "'..' part"),
    (lambda r: r["files"].update({"main.py": "ABC"}), "hash of main.py must be 64 lower-case hex"),
    (lambda r: r.update(hmac="zz"), "hmac must be 64"),
])
def test_malformed_manifests_are_named(change, words):
    result = manifest.verify(edited(build(KEY), change), reader(FILES), KEY)
    assert (result.ok, result.reason, result.digest) == (False, "bad-manifest", None)
    assert words in result.detail


@pytest.mark.parametrize("data,words", [
    (b"\xff\xfe", "not valid UTF-8 JSON"), (b"{", "not valid UTF-8 JSON"),
    (b"[1, 2]", "must be a JSON object"), ("text", "must be bytes, got str"),
])
def test_unreadable_manifests(data, words):
    result = manifest.verify(data, reader(FILES))
    assert result.reason == "bad-manifest" and words in result.detail


def test_verify_refuses_a_bad_key_argument():
    with pytest.raises(ValueError, match="at least 16"):
        manifest.verify(build(), reader(FILES), b"short")


# --- on a filesystem -----------------------------------------------------------------------

def _install(root, files, manifest_bytes, key=None):
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (root / "manifest.json").write_bytes(manifest_bytes)
    if key is not None:
        (root / "manifest.key").write_bytes(key)


def test_check_device_walks_the_filesystem(tmp_path):
    _install(tmp_path, FILES, build(KEY), KEY)
    (tmp_path / "config.json").write_text("{}")
    result = manifest.check_device(str(tmp_path), board="pico_w")
    assert result.ok and result.authenticated
    (tmp_path / "firmware" / "poker" / "extra.py").write_text("print(1)\n")
    result = manifest.check_device(str(tmp_path))
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/extra.py")


def test_check_device_with_a_key_rejects_an_unkeyed_build(tmp_path):
    _install(tmp_path, FILES, build(), KEY)
    assert manifest.check_device(str(tmp_path)).reason == "no-hmac"
    (tmp_path / "manifest.key").write_bytes(b"short")
    assert manifest.check_device(str(tmp_path)).reason == "bad-hmac"


def test_check_device_without_a_manifest(tmp_path):
    result = manifest.check_device(str(tmp_path))
    assert (result.reason, result.detail) == ("bad-manifest", "manifest.json is missing")


def test_check_device_on_a_damaged_filesystem_names_what_it_could_not_read(tmp_path, monkeypatch):
    # a flash that fails to read (EIO) is not a missing file, and never stops the boot with
    # a traceback: the table comes up with PROGRAM ERROR and the reason
    _install(tmp_path, FILES, build(KEY), KEY)
    (tmp_path / "manifest.key").unlink()
    (tmp_path / "manifest.key").mkdir()               # there, but no key can be read from it
    result = manifest.check_device(str(tmp_path))
    assert result.reason == "bad-hmac" and "manifest.key cannot be read" in result.detail
    (tmp_path / "manifest.key").rmdir()
    (tmp_path / "manifest.key").write_bytes(KEY)
    real_listdir = os.listdir

    def failing_listdir(path):
        if path.endswith("poker"):
            raise OSError(5, "EIO")
        return real_listdir(path)
    monkeypatch.setattr(os, "listdir", failing_listdir)
    result = manifest.check_device(str(tmp_path))
    assert not result.ok and result.reason == "missing-file"
    assert "cannot be listed" in result.detail and "5" in result.detail
    monkeypatch.setattr(os, "listdir", real_listdir)
    (tmp_path / "manifest.json").unlink()
    (tmp_path / "manifest.json").mkdir()
    result = manifest.check_device(str(tmp_path))
    assert result.reason == "bad-manifest" and "manifest.json cannot be read" in result.detail


def test_walk_lists_files_relative_and_sorted():
    tree = {".": [("b", True), ("a.py", False)], "b": [("c", True), ("z.mpy", False)],
            "b/c": [("d.py", False)]}
    assert manifest.walk(lambda path: tree[path]) == ["a.py", "b/c/d.py", "b/z.mpy"]


CHECK_SCRIPT = """\
import sys
from firmware import manifest
r = manifest.check_device(sys.argv[1], board="pico_w", rom=None)
print(r.reason, r.path, r.detail)
"""


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
@pytest.mark.parametrize("case,expected", [
    ("many data files", "ok None"),
    ("deep manifest", "bad-manifest None manifest is too large or nested too deeply"),
    ("huge manifest", "bad-manifest None manifest"),
    ("huge key", "bad-hmac None"),
])
def test_check_device_refuses_oversized_input_without_crashing(runtime, case, expected, tmp_path):
    # A board's heap: thousands of logs beside the program, a manifest or a key file of
    # megabytes or nested thousands deep must give a failed check (or a passed one), never a
    # MemoryError or RecursionError that stops the boot.
    from host_tests import runtimes
    root = tmp_path / "fs"
    root.mkdir()
    for path, data in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    (root / "manifest.json").write_bytes(build(KEY))
    (root / "manifest.key").write_bytes(KEY)
    if case == "many data files":
        for i in range(3000):
            folder = root / "logs" / ("day-%02d" % (i // 100))
            folder.mkdir(parents=True, exist_ok=True)
            (folder / ("entry-%04d.log" % i)).write_bytes(b"")
    elif case == "deep manifest":
        (root / "manifest.json").write_bytes(b"[" * 20000 + b"]" * 20000)
    elif case == "huge manifest":
        (root / "manifest.json").write_bytes(b'{"a": "' + b"x" * 600000 + b'"}')
    else:
        (root / "manifest.key").write_bytes(b"k" * 600000)
    script = tmp_path / "check.py"
    script.write_text(CHECK_SCRIPT)
    if runtime == "micropython":
        done = runtimes.run_micropython(script, [str(root)], heapsize="160k", timeout=120)
    else:
        done = runtimes.run_cpython(script, [str(root)], timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(expected), done.stdout


def test_a_folder_named_as_a_listed_module_is_extra(tmp_path):
    # MicroPython imports an (empty) folder firmware/app/ in place of firmware/app.mpy: the
    # table would stop at boot on a program the check had passed.
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(build())
    (tmp_path / "firmware" / "other").mkdir()            # a folder named as no module: fine
    (tmp_path / "lib" / "umqtt").mkdir(parents=True)
    assert manifest.check_device(str(tmp_path)).ok
    (tmp_path / "firmware" / "poker" / "hands").mkdir()
    result = manifest.check_device(str(tmp_path))
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/hands/")
    assert "folder MicroPython would import in place of the module" in result.detail
    (tmp_path / "firmware" / "poker" / "hands").rmdir()
    (tmp_path / "board").mkdir()
    assert manifest.check_device(str(tmp_path)).path == "board/"


def test_a_missing_file_is_named_before_a_changed_one(tmp_path):
    # A copy cut short: the file being copied is truncated (changed) and those after it are
    # missing.  The changed one was named, so the boot went on and stopped on the missing
    # module's import with a blank display; a missing file stops the boot with PROGRAM
    # ERROR shown (firmware.startup._refuse), so it is named first.
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(build())
    (tmp_path / "board.mpy").write_bytes(FILES["board.mpy"][:3])
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("changed-file", "board.mpy")
    (tmp_path / "firmware" / "poker" / "hands.mpy").unlink()
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("missing-file", "firmware/poker/hands.mpy")


@pytest.mark.parametrize("fault", ["hmac", "board", "digest"])
def test_a_missing_module_is_named_before_a_manifest_level_failure(tmp_path, fault):
    # A wrong build's manifest (another board, another key) or an edited one, and a module
    # missing: the manifest's failure was named, so the boot went on and stopped on the
    # missing module's import with a blank display.
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    made = build(KEY if fault == "hmac" else None, board="esp32_s3" if fault == "board" else "pico_w")
    if fault == "digest":
        made = edited(made, lambda r: r.update(build_id="v9"))
    (tmp_path / "manifest.json").write_bytes(made)
    if fault == "hmac":
        (tmp_path / "manifest.key").write_bytes(KEY[::-1])
    before = manifest.check_device(str(tmp_path), "pico_w", rom=None)
    assert before.reason in ("bad-hmac", "wrong-board", "bad-manifest") and before.path is None
    (tmp_path / "firmware" / "poker" / "hands.mpy").unlink()
    result = manifest.check_device(str(tmp_path), "pico_w", rom=None)
    assert (result.reason, result.path) == ("missing-file", "firmware/poker/hands.mpy")
    assert not result.authenticated


@pytest.mark.parametrize("fault", ["changed", "missing", "manifest", "key", "hmac"])
def test_a_folder_in_place_of_a_module_is_named_before_any_other_failure(tmp_path, fault):
    # A changed file (or no manifest, a bad key or HMAC) was named instead: the boot went
    # on past the check and the table's code stopped on the folder with a blank display.
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(build(KEY if fault == "hmac" else None))
    if fault == "changed":
        (tmp_path / "board.mpy").write_bytes(b"M\x06\x00\x1fchanged")
    elif fault == "missing":
        (tmp_path / "board.mpy").unlink()
    elif fault == "manifest":
        (tmp_path / "manifest.json").unlink()
    else:
        (tmp_path / "manifest.key").write_bytes(b"short" if fault == "key" else KEY[::-1])
    assert not (manifest.check_device(str(tmp_path), rom=None).path or "").startswith("firmware")
    (tmp_path / "firmware" / "poker" / "hands").mkdir()
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/hands/")
    assert "folder MicroPython would import in place of the module" in result.detail
    (tmp_path / "firmware" / "poker" / "hands").rmdir()
    (tmp_path / "firmware" / "poker" / "hands.py").write_bytes(b"X = 1\n")
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/hands.py")


@pytest.mark.parametrize("stray", ["firmware/poker.mpy", "firmware/poker.py"])
def test_a_module_file_left_beside_a_package_names_the_file_not_the_package(tmp_path, stray):
    # An older build's firmware/poker.mpy left beside the package firmware/poker/ (a copy
    # that does not clean up): MicroPython imports the folder, the package, as it should.
    # The check named the package's folder as "a folder MicroPython would import in place
    # of the module", and the boot stopped on it with PROGRAM ERROR, sending the technician
    # to delete the program's own package.  The file is the extra one.
    files = dict(FILES)
    files["firmware/poker/__init__.mpy"] = b"M\x06\x00\x1fpoker"
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(build(files=files))
    assert manifest.check_device(str(tmp_path), rom=None).ok
    (tmp_path / stray).write_bytes(b"X = 1\n")
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("extra-file", stray)
    assert "a program file the manifest does not list" in result.detail
    # the other way round, a package's folder left in place of a listed module, is still
    # named by the manifest: MicroPython would import it
    (tmp_path / stray).unlink()
    (tmp_path / "firmware" / "poker" / "hands").mkdir()
    (tmp_path / "firmware" / "poker" / "hands" / "__init__.py").write_bytes(b"X = 1\n")
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("extra-file", "firmware/poker/hands/")


def test_a_folder_named_init_is_no_module_and_passes(tmp_path):
    # firmware/__init__/ beside firmware/__init__.mpy: MicroPython never imports it (a
    # package's __init__ is looked for as a file), yet it was named as standing in for a
    # module, and the boot stopped on it.  Empty, it is no program file: the check passes;
    # a program file in it is extra as anywhere.
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(build())
    (tmp_path / "firmware" / "__init__").mkdir()
    (tmp_path / "firmware" / "poker" / "__init__").mkdir(parents=True)
    assert manifest.check_device(str(tmp_path), rom=None).ok
    (tmp_path / "firmware" / "__init__" / "x.py").write_bytes(b"X = 1\n")
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("extra-file", "firmware/__init__/x.py")


@pytest.mark.parametrize("path", ["main.py\x00x", "firmware/\x01.mpy", "a\tb.py"])
def test_a_manifest_listing_a_path_with_control_characters_is_refused(path, tmp_path):
    # Forged without a key (the digest recomputed): a NUL made CPython's open() raise
    # ValueError out of the check, and control characters would reach the display.
    with pytest.raises(ValueError, match="path"):
        manifest.make("pico_w", "b", {path: b"x"})
    hashes = {path: hashlib.sha256(b"x").hexdigest()}
    forged = json.dumps({"format": 1, "board": "pico_w", "build_id": "b", "files": hashes,
                         "digest": manifest.sha256_hex(manifest.body("pico_w", "b", hashes))})
    (tmp_path / "manifest.json").write_text(forged)
    result = manifest.check_device(str(tmp_path), rom=None)
    assert (result.reason, result.path) == ("bad-manifest", None)
    assert "control characters" in result.detail


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_a_file_name_that_is_not_utf8_fails_the_check_without_crashing(runtime, tmp_path):
    # MicroPython's os.listdir raised UnicodeError out of the check, which stopped the boot.
    from host_tests import runtimes
    root = tmp_path / "fs"
    (root / "firmware").mkdir(parents=True)
    (root / "main.py").write_bytes(FILES["main.py"])
    (root / "manifest.json").write_bytes(build(files={"main.py": FILES["main.py"]}))
    with open(os.fsencode(root / "firmware") + b"/x\xfe.py", "wb"):
        pass
    if runtime == "cpython":                # a surrogate-escaped name, reported as extra
        assert manifest.check_device(str(root), rom=None).reason == "extra-file"
        return
    script = tmp_path / "check.py"
    script.write_text(CHECK_SCRIPT)
    done = runtimes.run_micropython(script, [str(root)], timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("missing-file None the files on the board cannot be listed")
    assert "%s is not UTF-8" % (root / "firmware") in done.stdout
