# Program verification on both runtimes: the HMAC against RFC 4231 vectors, then an intact
# program and each kind of tampering, each reported with its reason and the file it names.
import json
import sys

from firmware import manifest

failures = []


def check(label, got, expected):
    print("%s: %s" % (label, got))
    if got != expected:
        failures.append("%s: expected %s" % (label, expected))


# RFC 4231 section 4.3 (test case 2) and 4.7 (test case 6: key longer than a block).
check("rfc4231 case 2", manifest.hexlify(manifest.hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
check("rfc4231 case 6", manifest.hexlify(manifest.hmac_sha256(
    b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First")),
    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")

KEY = b"table-7-provisioned-key!"
FILES = {
    "main.py": b"import firmware.app\nfirmware.app.main()\n",
    "board.mpy": b"M\x06\x00\x1fboard",
    "firmware/poker/hands.mpy": b"M\x06\x0a\x1fnative hands",
}
GOOD = manifest.make("pico_w", "scenario-1", FILES, KEY)


def reader(files):
    def read_file(path):
        if path not in files:
            raise OSError(2)
        return files[path]
    return read_file


def outcome(result):
    return "%s %s %s" % (result.reason, result.path, result.authenticated)


def with_file(path, data):
    files = dict(FILES)
    if data is None:
        del files[path]
    else:
        files[path] = data
    return files


def edit(change):
    record = json.loads(GOOD)
    change(record)
    return json.dumps(record).encode()


present = list(FILES) + ["manifest.json", "config.json"]
check("intact", outcome(manifest.verify(GOOD, reader(FILES), KEY, present, "pico_w")), "ok None True")
check("intact, no key", outcome(manifest.verify(GOOD, reader(FILES))), "ok None False")
check("changed file", outcome(manifest.verify(GOOD, reader(with_file("board.mpy", b"x")), KEY)),
      "changed-file board.mpy True")
check("missing file", outcome(manifest.verify(GOOD, reader(with_file("main.py", None)), KEY)),
      "missing-file main.py True")
check("extra file", outcome(manifest.verify(GOOD, reader(FILES), KEY, present + ["firmware/x.py"])),
      "extra-file firmware/x.py True")


def zero_hash(record):
    record["files"]["main.py"] = "0" * 64


def swap_board(record):
    record["board"] = "esp32_s3"


check("manifest edited", outcome(manifest.verify(edit(zero_hash), reader(FILES), KEY)),
      "bad-manifest None False")
check("board edited", outcome(manifest.verify(edit(swap_board), reader(FILES), KEY)),
      "bad-manifest None False")
check("bad hmac", outcome(manifest.verify(GOOD, reader(FILES), b"some-other-key-0123")),
      "bad-hmac None False")
unkeyed = manifest.make("pico_w", "scenario-1", FILES)
check("no hmac", outcome(manifest.verify(unkeyed, reader(FILES), KEY)), "no-hmac None False")
check("wrong board", outcome(manifest.verify(GOOD, reader(FILES), KEY, None, "esp32_s3")),
      "wrong-board None False")
check("not json", outcome(manifest.verify(b"{not json", reader(FILES))), "bad-manifest None False")
try:
    manifest.verify(GOOD, reader(FILES), b"short")
    failures.append("a short key was accepted")
except ValueError as error:
    print("short key:", error)

if failures:
    print("FAILED:", failures)
    sys.exit(1)
