"""tools/fetch_umqtt.py with a stand-in download: digest checks, extraction, idempotence."""

import hashlib
import io
import tarfile

import pytest

from tools import fetch_umqtt

MEMBER = "pkg-1.0/umqtt/simple.py"
CODE = b"# stand-in for umqtt.simple\nclass MQTTClient:\n    pass\n"


def archive(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Downloads:
    """urlopen as fetch() uses it: counts the calls, serves bytes or raises."""

    def __init__(self, data=None, error=None):
        self.data = data
        self.error = error
        self.calls = 0

    def __call__(self, url, timeout):
        self.calls += 1
        if self.error:
            raise self.error
        return io.BytesIO(self.data)


def run(dest, data, code_sha=None, archive_sha=None, error=None):
    down = Downloads(data, error)
    result = fetch_umqtt.fetch(dest, "https://example.invalid/pkg.tar.gz", archive_sha or sha(data or b""),
                               MEMBER, code_sha or sha(CODE), down)
    return result, down


def test_extracts_the_checked_file_then_does_nothing_the_second_time(tmp_path):
    data = archive({MEMBER: CODE, "pkg-1.0/PKG-INFO": b"x"})
    (path, fetched), down = run(tmp_path, data)
    assert fetched and path == tmp_path / "umqtt" / "simple.py" and path.read_bytes() == CODE
    assert (tmp_path / "umqtt" / "__init__.py").read_bytes() == b""
    assert sorted(p.name for p in (tmp_path / "umqtt").iterdir()) == ["__init__.py", "simple.py"]
    (path, fetched), down = run(tmp_path, data)
    assert not fetched and down.calls == 0
    path.write_bytes(CODE + b"# changed\n")  # a damaged copy is fetched again
    (path, fetched), down = run(tmp_path, data)
    assert fetched and down.calls == 1 and path.read_bytes() == CODE


@pytest.mark.parametrize("case, words", [
    ("archive digest", "not the published file"),
    ("member missing", "cannot extract pkg-1.0/umqtt/simple.py from the archive"),
    ("member digest", "pkg-1.0/umqtt/simple.py in https://example.invalid/pkg.tar.gz has SHA-256"),
    ("download", "download of https://example.invalid/pkg.tar.gz failed: no route"),
    ("not gzip", "cannot extract pkg-1.0/umqtt/simple.py from the archive"),
])
def test_every_failure_is_named_and_writes_nothing(tmp_path, case, words):
    good = archive({MEMBER: CODE})
    with pytest.raises(fetch_umqtt.FetchError, match=words):
        if case == "archive digest":
            run(tmp_path, good, archive_sha="0" * 64)
        elif case == "member missing":
            run(tmp_path, archive({"pkg-1.0/other.py": CODE}))
        elif case == "member digest":
            run(tmp_path, good, code_sha="0" * 64)
        elif case == "download":
            run(tmp_path, None, error=OSError("no route"))
        else:
            run(tmp_path, b"plain bytes, not an archive")
    assert list(tmp_path.iterdir()) == []


def test_the_pinned_digests_belong_to_the_published_1_3_4_sdist():
    # ARCHIVE_SHA256 is the digest PyPI publishes for micropython-umqtt.simple-1.3.4.tar.gz
    assert fetch_umqtt.ARCHIVE_SHA256 == "b6a2520239e3992c63a7de9370ee9b3d9d27819a90359c521f1c0f7ccab8d12f"
    assert fetch_umqtt.URL.endswith("/micropython-umqtt.simple-1.3.4.tar.gz")
    assert fetch_umqtt.MEMBER == "micropython-umqtt.simple-1.3.4/umqtt/simple.py"


def test_a_destination_that_cannot_be_written_is_a_fetch_error_naming_it(tmp_path, capsys, monkeypatch):
    # --dest naming a file had ended in a NotADirectoryError traceback after the download
    dest = tmp_path / "notes.txt"
    dest.write_text("mine")
    data = archive({MEMBER: CODE})
    with pytest.raises(fetch_umqtt.FetchError) as raised:
        run(dest, data)
    assert str(raised.value) == "cannot write %s: Not a directory" % (dest / "umqtt" / "simple.py")
    assert dest.read_text() == "mine"
    fetch = fetch_umqtt.fetch
    monkeypatch.setattr(fetch_umqtt, "fetch", lambda dest: fetch(
        dest, "https://example.invalid/pkg.tar.gz", sha(data), MEMBER, sha(CODE), Downloads(data)))
    assert fetch_umqtt.main(["--dest", str(dest)]) == 1
    assert capsys.readouterr().err == "fetch_umqtt: cannot write %s: Not a directory\n" % (
        dest / "umqtt" / "simple.py")
