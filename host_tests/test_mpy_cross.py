"""Every firmware and board module compiles with mpy-cross for both boards' architectures.

RP2040 is armv6m and ESP32-S3 is xtensawin; the hot modules (the evaluator) are also
compiled to native machine code, as the build tool ships them.
"""

import subprocess

import pytest

from host_tests.runtimes import ROOT, mpy_cross_binary
from tools.build import HOT_MODULES

MODULES = sorted(p for d in ("firmware", "boards") for p in (ROOT / d).rglob("*.py"))
ARCHES = ("armv6m", "xtensawin")
NATIVE = [ROOT / module for module in HOT_MODULES]


def compile_module(source, arch, out, native=False):
    command = [mpy_cross_binary(), "-march=" + arch]
    if native:
        command.append("-X")
        command.append("emit=native")
    command += ["-o", str(out), str(source)]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.mark.parametrize("arch", ARCHES)
def test_every_module_compiles(arch, tmp_path):
    failures = []
    for source in MODULES:
        result = compile_module(source, arch, tmp_path / (source.stem + ".mpy"))
        if result.returncode != 0:
            failures.append("%s: %s" % (source.relative_to(ROOT), result.stderr.strip()))
    assert not failures, "\n".join(failures)
    assert len(MODULES) >= 5


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("source", NATIVE, ids=lambda p: p.stem)
def test_hot_modules_compile_native(arch, source, tmp_path):
    out = tmp_path / (source.stem + ".mpy")
    result = compile_module(source, arch, out, native=True)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


def test_a_broken_module_is_reported(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    result = compile_module(broken, "armv6m", tmp_path / "broken.mpy")
    assert result.returncode != 0
