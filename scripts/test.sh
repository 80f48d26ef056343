#!/usr/bin/env bash
# The test command: installs what is missing, builds, fetches the reference files the
# tests compare against (GPT-2 vocab, tiktoken under node), then runs the whole CTest
# suite, the fast suite again under AddressSanitizer + UndefinedBehaviorSanitizer, valgrind's
# memcheck over short runs, and (when clang is installed) 20 s of each fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."

# node and npm run the real tiktoken for the tokenizer parity test; take Debian's only
# when the machine has none (an upstream nodejs package would conflict with Debian's npm)
extra=()
command -v node >/dev/null 2>&1 || extra+=(nodejs)
command -v npm >/dev/null 2>&1 || extra+=(npm)
# xmllint parses the SVG/HTML that compare and viz write; valgrind's memcheck runs short
# training runs (check_valgrind)
extra+=(libxml2-utils valgrind)
scripts/setup.sh "${extra[@]}"
# headless Chromium and ImageMagick check that report.html renders; that test prints SKIP
# without them, so a failed install is not fatal
if ! dpkg-query -W -f='${Status}' chromium imagemagick 2>/dev/null | grep -c "install ok installed" | grep -q 2; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium imagemagick \
    || echo "test: chromium/imagemagick not installed; the report rendering check will SKIP"
fi
# PyTorch (Debian's python3-torch) lets the tests that load ordo's files in the PyTorch
# reference run; they print SKIP without it, so a failed install is not fatal
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-torch \
    || echo "test: python3-torch not installed; the PyTorch cross-checks will SKIP"
fi
# clang and its libFuzzer runtime run the short fuzz runs (check_fuzz); optional as well
if ! command -v clang >/dev/null 2>&1 || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev \
    || echo "test: clang/libFuzzer not installed; the short fuzz runs will be skipped"
fi
data/fetch.sh vocab
# the-verdict is only a bonus check (its test prints SKIP without it)
data/fetch.sh verdict || echo "test: the-verdict.txt not available; its check will be skipped"
if [ -f tests/parity/package.json ]; then
  (cd tests/parity && npm install --no-audit --no-fund --silent)
fi
# fetched: from here a test that finds them missing fails rather than skips (ctest -L fast
# after the demo alone skips them, with the reason)
export ORDO_REQUIRE_DOWNLOADS=1
# eval's n-gram levels are cached in the build tree, not in the user's ~/.cache/ordo (ctest
# sets the same folder for its tests; this covers valgrind's runs and anything else below)
export ORDO_CACHE_DIR=${ORDO_CACHE_DIR:-$PWD/build/test-cache}

# what the results below ran on: the CPU and the kernels (OpenBLAS's core, ordo's own, oneDNN's)
echo "test: CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
build/ordo --version | sed -n '2,3s/^/test: /p'
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j "$jobs"
cmake --build build --target check_sanitize
cmake --build build --target check_valgrind
# the fuzz targets need clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev);
# without them the short fuzz runs are skipped (docs/fuzzing.md)
if command -v clang >/dev/null 2>&1 &&
   [ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then
  ORDO_FUZZ_SECONDS=${ORDO_FUZZ_SECONDS:-20} cmake --build build --target check_fuzz
else
  echo "test: clang with libFuzzer not installed; skipping the short fuzz runs"
fi
