#!/bin/sh
# The steps of `make play`'s first-run install that depend on the machine
# (the Makefile calls each one; tests/test_install.py runs them with fakes).
#
#   install.sh check-tools      a C compiler and CMake are there, or one line naming what to install
#   install.sh llama-flags      the CMake flags for llama.cpp on this machine
#   install.sh torch PY         the CPU-only torch build (PyTorch's CPU wheel index, else PyPI's)
#   install.sh llama PY         llama-cpp-python, built with llama-flags; a clear message if the build fails
#
# Overrides: CMAKE_ARGS (your own llama.cpp flags), TORCH_INDEX (another wheel
# index for torch; empty: PyPI only). For the tests: SMALLVILLE_ARCH,
# SMALLVILLE_OS, SMALLVILLE_CPUINFO stand in for `uname -m`, `uname -s` and
# /proc/cpuinfo.
set -u

TORCH_VERSION=2.13.0
LLAMA_VERSION=0.3.36
TORCH_INDEX=${TORCH_INDEX-https://download.pytorch.org/whl/cpu}
# Today's flags on x86-64 with AVX2: the default native build crashes on some
# of these CPUs (the AMX path), so the instruction sets are named one by one.
X86_AVX2_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
# Everywhere else (arm64: Apple silicon, Raspberry Pi; x86 without AVX2): the
# portable build, which picks its kernels at run time.
PORTABLE_FLAGS="-DGGML_NATIVE=OFF"

arch() { echo "${SMALLVILLE_ARCH:-$(uname -m)}"; }
os_name() { echo "${SMALLVILLE_OS:-$(uname -s)}"; }

has_avx2() {
    case "$(os_name)" in
        Darwin) sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -qi avx2 ;;
        *) grep -qw avx2 "${SMALLVILLE_CPUINFO:-/proc/cpuinfo}" 2>/dev/null ;;
    esac
}

llama_flags() {
    if [ -n "${CMAKE_ARGS:-}" ]; then
        echo "$CMAKE_ARGS"
        return
    fi
    case "$(arch)" in
        x86_64|amd64|AMD64)
            if has_avx2; then echo "$X86_AVX2_FLAGS"; else echo "$PORTABLE_FLAGS"; fi ;;
        *) echo "$PORTABLE_FLAGS" ;;
    esac
}

check_tools() {
    missing=""
    if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1 && ! command -v clang >/dev/null 2>&1; then
        missing="a C compiler"
    fi
    if ! command -v cmake >/dev/null 2>&1; then
        missing="${missing:+$missing and }CMake"
    fi
    [ -z "$missing" ] && return 0
    case "$(os_name)" in
        Darwin) how="run: xcode-select --install  (and: brew install cmake)" ;;
        *) how="on Debian/Ubuntu: sudo apt-get install build-essential cmake; on Fedora: sudo dnf install gcc gcc-c++ cmake" ;;
    esac
    echo "make play: install $missing first (needed to build llama.cpp, the embedded model); $how" >&2
    return 1
}

install_torch() {
    py=$1
    if [ "$(os_name)" = "Linux" ] && [ -n "$TORCH_INDEX" ]; then
        # Only Linux needs this: PyPI's Linux wheel pulls CUDA (gigabytes the game never uses);
        # macOS wheels are CPU-only already. A quick look first: pip itself would wait
        # minutes (its timeout, its retries) on an index it cannot reach.
        if "$py" -c "import urllib.request as u; u.urlopen('$TORCH_INDEX/torch/', timeout=10)" >/dev/null 2>&1 \
           && "$py" -m pip install --index-url "$TORCH_INDEX" "torch==$TORCH_VERSION"; then
            return 0
        fi
        echo "install.sh: the CPU-only torch index ($TORCH_INDEX) could not be used; installing torch from PyPI" \
             "(on Linux that is the larger CUDA build; it works the same)" >&2
    fi
    "$py" -m pip install "torch==$TORCH_VERSION"
}

install_llama() {
    py=$1
    flags=$(llama_flags)
    if CMAKE_ARGS="$flags" "$py" -m pip install "llama-cpp-python==$LLAMA_VERSION"; then
        return 0
    fi
    echo "make play: building llama.cpp (llama-cpp-python $LLAMA_VERSION) failed on this machine ($(os_name) $(arch)," \
         "flags: $flags). The compiler's error is above. Try: make play CMAKE_ARGS=\"-DGGML_NATIVE=OFF\"" \
         "(the most portable build), or check that your C/C++ compiler and CMake are recent." >&2
    return 1
}

case "${1:-}" in
    check-tools) check_tools ;;
    llama-flags) llama_flags ;;
    torch) install_torch "${2:?python}" ;;
    llama) install_llama "${2:?python}" ;;
    *) echo "usage: install.sh check-tools | llama-flags | torch PY | llama PY" >&2; exit 2 ;;
esac
