"""Fetch the real umqtt.simple (the board's MQTT client) for the host tests.

`python -m tools.fetch_umqtt [--dest DIR]`

The board gets umqtt.simple from `mpremote mip install` (tools/deploy.py).  The host tests
run the same client on the MicroPython unix VM, so this downloads the published sdist from
PyPI (it has no setup.py, so pip cannot fetch it), checks its SHA-256 and extracts
umqtt/simple.py, with an empty umqtt/__init__.py, into a git-ignored folder (default
.deps/, put it on MICROPYPATH).  It is not our code and is never committed.  Running it
again does nothing when the file is already there with the expected contents.
"""

import argparse
import hashlib
import io
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / ".deps"
URL = ("https://files.pythonhosted.org/packages/bd/cf/697e3418b2f44222b3e848078b1e33ee76aedca9b6c2430ca1b1aec1ce1d/"
       "micropython-umqtt.simple-1.3.4.tar.gz")
ARCHIVE_SHA256 = "b6a2520239e3992c63a7de9370ee9b3d9d27819a90359c521f1c0f7ccab8d12f"  # PyPI's published digest
MEMBER = "micropython-umqtt.simple-1.3.4/umqtt/simple.py"
# Digest of MEMBER inside the archive above (computed from the verified archive): lets a second
# run see that the extracted file is intact without downloading again.
SIMPLE_SHA256 = "8555d2f654deb8eb0d724f79b0811a78cc94029d070f3d96bbd74288653d63a5"
TIMEOUT_S = 60


class FetchError(Exception):
    """The download, the digest check or the extraction failed; the message says which."""


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def installed(dest=DEST, simple_sha256=SIMPLE_SHA256):
    """True when dest/umqtt/simple.py has the expected contents and the package marker exists."""
    package = Path(dest) / "umqtt"
    simple = package / "simple.py"
    if not simple.is_file() or not (package / "__init__.py").is_file():
        return False
    return _sha256(simple.read_bytes()) == simple_sha256


def _write(path, data):
    # write beside, then rename: an interrupted run never leaves half a file under the real name
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def fetch(dest=DEST, url=URL, archive_sha256=ARCHIVE_SHA256, member=MEMBER, simple_sha256=SIMPLE_SHA256,
          opener=urllib.request.urlopen):
    """Make dest/umqtt/simple.py the checked umqtt.simple; returns (path, fetched) where fetched
    is False when it was already there.  FetchError (nothing written) on any failure."""
    dest = Path(dest)
    simple = dest / "umqtt" / "simple.py"
    if installed(dest, simple_sha256):
        return simple, False
    try:
        with opener(url, timeout=TIMEOUT_S) as response:
            archive = response.read()
    except OSError as error:
        raise FetchError("download of %s failed: %s" % (url, error)) from error
    got = _sha256(archive)
    if got != archive_sha256:
        raise FetchError("%s has SHA-256 %s, expected %s: not the published file"
                         % (url, got, archive_sha256))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            handle = tar.extractfile(member)
            if handle is None:
                raise KeyError(member)
            code = handle.read()
    except (tarfile.TarError, KeyError) as error:
        raise FetchError("%s: cannot extract %s from the archive (%s)" % (url, member, error)) from error
    if _sha256(code) != simple_sha256:
        raise FetchError("%s in %s has SHA-256 %s, expected %s" % (member, url, _sha256(code), simple_sha256))
    try:
        simple.parent.mkdir(parents=True, exist_ok=True)
        _write(simple.parent / "__init__.py", b"")
        _write(simple, code)
    except OSError as error:
        raise FetchError("cannot write %s: %s" % (simple, error.strerror or error)) from error
    return simple, True


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.fetch_umqtt", description=__doc__.splitlines()[0])
    p.add_argument("--dest", default=str(DEST), help="folder to extract umqtt/ into (default .deps)")
    args = p.parse_args(argv)
    try:
        path, fetched = fetch(args.dest)
    except FetchError as error:
        print("fetch_umqtt: %s" % error, file=sys.stderr)
        return 1
    print("umqtt.simple %s: %s" % ("fetched" if fetched else "already present", path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
