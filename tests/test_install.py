"""scripts/install.sh, the machine-dependent steps of `make play`'s install,
run with fakes: a fake python whose pip records its arguments (and fails when
told to), fake CPU descriptions, and a PATH without a compiler or CMake."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "install.sh"
AVX2_FLAGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"

SH = shutil.which("sh") or "/bin/sh"
pytestmark = pytest.mark.skipif(not Path(SH).exists(), reason="needs a POSIX shell")


def run(*args: str, env: dict | None = None, path: str | None = None) -> subprocess.CompletedProcess:
    full = {"PATH": path if path is not None else os.environ["PATH"], **(env or {})}
    return subprocess.run([SH, str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=60)


def fake_python(tmp_path: Path, fail_when: str = "") -> tuple[Path, Path]:
    """A 'python' that appends its arguments (and CMAKE_ARGS) to a log, and exits 1
    when they contain ``fail_when`` (``-c ...urlopen...``: the index probe)."""
    log = tmp_path / "pip.log"
    py = tmp_path / "python"
    py.write_text(f'#!/bin/sh\necho "$* | CMAKE_ARGS=$CMAKE_ARGS" >> "{log}"\n'
                  + (f'case "$*" in *"{fail_when}"*) echo "pip: boom" >&2; exit 1;; esac\n' if fail_when else "")
                  + "exit 0\n")
    py.chmod(0o755)
    return py, log


@pytest.mark.parametrize("arch, cpu, expect", [
    ("x86_64", "flags : fpu sse avx avx2 fma bmi2", AVX2_FLAGS),
    ("x86_64", "flags : fpu sse sse2 avx", "-DGGML_NATIVE=OFF"),  # an older x86 without AVX2
    ("aarch64", "Features : fp asimd", "-DGGML_NATIVE=OFF"),  # Raspberry Pi, Linux arm64
    ("arm64", "", "-DGGML_NATIVE=OFF"),  # Apple silicon
])
def test_llama_flags_follow_the_machine(tmp_path, arch, cpu, expect):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(cpu + "\n")
    out = run("llama-flags", env={"SMALLVILLE_ARCH": arch, "SMALLVILLE_OS": "Linux",
                                  "SMALLVILLE_CPUINFO": str(cpuinfo)})
    assert out.returncode == 0 and out.stdout.strip() == expect
    own = run("llama-flags", env={"SMALLVILLE_ARCH": arch, "CMAKE_ARGS": "-DGGML_METAL=OFF"})
    assert own.stdout.strip() == "-DGGML_METAL=OFF"  # the user's own flags win


def test_this_machine_gets_flags(tmp_path):
    out = run("llama-flags")
    assert out.returncode == 0 and "-DGGML_NATIVE=OFF" in out.stdout


def test_torch_comes_from_the_cpu_index_on_linux(tmp_path):
    py, log = fake_python(tmp_path)
    out = run("torch", str(py), env={"SMALLVILLE_OS": "Linux"})
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    assert calls[0].startswith("-c import urllib.request") and "download.pytorch.org/whl/cpu/torch/" in calls[0]
    assert calls[1:] == ["-m pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 | CMAKE_ARGS="]


@pytest.mark.parametrize("fails", ["urlopen", "--index-url"])  # unreachable, or reachable but pip fails there
def test_torch_falls_back_to_pypi_when_the_cpu_index_cannot_be_used(tmp_path, fails):
    py, log = fake_python(tmp_path, fail_when=fails)
    out = run("torch", str(py), env={"SMALLVILLE_OS": "Linux"})
    assert out.returncode == 0
    pips = [c for c in log.read_text().splitlines() if c.startswith("-m pip")]
    assert pips[-1].startswith("-m pip install torch==2.13.0")
    assert len(pips) == (1 if fails == "urlopen" else 2)  # an unreachable index is not handed to pip
    assert "could not be used" in out.stderr and "PyPI" in out.stderr


def test_torch_on_macos_and_with_no_index_is_the_plain_name(tmp_path):
    py, log = fake_python(tmp_path)
    assert run("torch", str(py), env={"SMALLVILLE_OS": "Darwin"}).returncode == 0
    assert run("torch", str(py), env={"SMALLVILLE_OS": "Linux", "TORCH_INDEX": ""}).returncode == 0
    assert [c.split(" |")[0] for c in log.read_text().splitlines()] == ["-m pip install torch==2.13.0"] * 2  # no probe


def test_llama_is_built_with_the_machine_flags(tmp_path):
    py, log = fake_python(tmp_path)
    out = run("llama", str(py), env={"SMALLVILLE_ARCH": "aarch64", "SMALLVILLE_OS": "Linux"})
    assert out.returncode == 0
    assert log.read_text().strip() == "-m pip install llama-cpp-python==0.3.36 | CMAKE_ARGS=-DGGML_NATIVE=OFF"


def test_a_failed_llama_build_says_what_to_do(tmp_path):
    py, _ = fake_python(tmp_path, fail_when="llama-cpp-python")
    out = run("llama", str(py), env={"SMALLVILLE_ARCH": "aarch64", "SMALLVILLE_OS": "Linux"})
    assert out.returncode == 1
    assert "building llama.cpp" in out.stderr and "failed" in out.stderr and "CMAKE_ARGS" in out.stderr
    assert "Linux aarch64" in out.stderr


def _bin_with(tmp_path: Path, *tools: str) -> str:
    """A PATH folder with only the shell utilities the script needs, plus ``tools`` (as fakes)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in ("sh", "uname", "grep", "cat", "sysctl"):
        real = shutil.which(name)
        if real and not (folder / name).exists():
            (folder / name).symlink_to(real)
    for name in tools:
        (folder / name).unlink(missing_ok=True)
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    return str(folder)


@pytest.mark.parametrize("tools, missing", [
    ((), "a C compiler and CMake"),
    (("cmake",), "install a C compiler first"),
    (("cc",), "install CMake first"),
])
def test_missing_build_tools_are_named_in_one_line(tmp_path, tools, missing):
    out = run("check-tools", env={"SMALLVILLE_OS": "Linux"}, path=_bin_with(tmp_path, *tools))
    assert out.returncode == 1
    assert len(out.stderr.strip().splitlines()) == 1 and missing in out.stderr and "apt-get install" in out.stderr
    mac = run("check-tools", env={"SMALLVILLE_OS": "Darwin"}, path=_bin_with(tmp_path, *tools))
    assert "xcode-select --install" in mac.stderr


def test_build_tools_present(tmp_path):
    assert run("check-tools", path=_bin_with(tmp_path, "clang", "cmake")).returncode == 0


def test_make_play_stops_with_the_line_not_a_traceback(tmp_path):
    """The Makefile checks the tools before it makes the venv or calls pip."""
    if shutil.which("make") is None:
        pytest.skip("needs make")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, clone / name)
    shutil.copytree(REPO / "scripts", clone / "scripts")
    path = _bin_with(tmp_path, "python3")  # no cc, gcc, clang or cmake
    out = subprocess.run([str(shutil.which("make")), "-s", "play"], cwd=clone, env={"PATH": path}, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0
    assert "install a C compiler and CMake first" in out.stderr
    assert "Traceback" not in out.stderr and not (clone / ".venv").exists()
