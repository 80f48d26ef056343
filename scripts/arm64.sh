#!/usr/bin/env bash
# Cross-builds ordo for arm64 (aarch64) into build-arm64/ and runs a chosen set of its C tests
# under qemu-user: the check that the project still builds and computes the same numbers on
# ARM, without ARM hardware. Safe to run again: installs only what is missing, reconfigures
# and rebuilds incrementally.
#
# Usage: scripts/arm64.sh [TEST...]
#   TEST: test executables (tests/*/test_*.c) to run; default: the gradient checks and the
#   PyTorch-parity tests that need no Python (DEFAULT_TESTS below). The last line is
#   "N passed, N failed[, N skipped]"; the exit status is non-zero when one failed.
# Environment: ARM64_TEST_TIMEOUT (seconds per test, default 1200: qemu runs these 5-30x
#   slower than the host), ARM64_JOBS (parallel compiles, default nproc), QEMU_LD_PREFIX.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build="build-arm64" # under .gitignore's /build*/, apart from the native build/

DEFAULT_TESTS=(
  test_ops_gradcheck # finite-difference gradient of every op
  test_ops_parity    # ops against the PyTorch fixtures (tests/ref/fixtures)
  test_gpt_parity    # every position scheme's logits, loss and grads against PyTorch
  test_schemes       # every scheme: fused vs materialized, gradcheck, threads, whole model
  test_flash         # the fused attention kernels (the portable ones on arm64)
  test_ops_values    # ops' values against direct double-precision computations
  test_lm_head       # the chunked LM head + cross-entropy against the path it replaces
  test_bias_tiles    # the positional-bias tiles against the materialized biases
)
tests=("$@")
((${#tests[@]})) || tests=("${DEFAULT_TESTS[@]}")

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# --- install: the cross compiler, qemu, and the arm64 builds of the libraries that
# scripts/setup.sh installs for the host, side by side through multiarch. No MPI: ORDO_MPI
# is off here. oneDNN's runtime only (libdnnl2): see below for its headers.
need=(crossbuild-essential-arm64 qemu-user cmake pkg-config
      libopenblas-dev:arm64 libopenblas-openmp-dev:arm64 libpcre2-dev:arm64
      libjansson-dev:arm64 libxxhash-dev:arm64 nettle-dev:arm64 libdnnl2:arm64)
updated=0
apt_update() { # once per run, as scripts/setup.sh does
  ((updated)) && return
  local t0=$SECONDS
  $sudo apt-get update -qq || echo "arm64: apt-get update failed; trying anyway" >&2
  echo "arm64: apt-get update in $((SECONDS - t0)) s"
  updated=1
}
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "arm64: dpkg --add-architecture arm64"
  $sudo dpkg --add-architecture arm64
  apt_update # the arm64 package lists exist only after this
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "arm64: installing ${missing[*]}"
  apt_update
  t0=$SECONDS
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "arm64: installed in $((SECONDS - t0)) s"
fi

# oneDNN's headers: libdnnl-dev:arm64 cannot be installed beside the host's libdnnl-dev
# (which scripts/setup.sh installs): both are Multi-Arch: same, yet their dnnl_config.h
# differ (DNNL_GPU_RUNTIME: OCL on amd64, NONE on arm64), so dpkg refuses the second
# ("trying to overwrite shared '/usr/include/oneapi/dnnl/dnnl_config.h'"). Its files are
# unpacked into the build dir instead, and CMake is pointed at them and at libdnnl2's .so.2.
dnnl_ver=$(dpkg-query -W -f='${Version}' libdnnl2:arm64)
dnnl_dir=$build/deps/libdnnl-dev-$dnnl_ver
if [ ! -f "$dnnl_dir/usr/include/oneapi/dnnl/dnnl.h" ]; then
  echo "arm64: unpacking libdnnl-dev:arm64 $dnnl_ver into $dnnl_dir"
  apt_update
  tmp=$(mktemp -d)
  # as root, apt's download sandbox user (_apt) cannot write to a mktemp dir
  (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "libdnnl-dev:arm64=$dnnl_ver")
  mkdir -p "$dnnl_dir"
  dpkg-deb -x "$tmp"/libdnnl-dev_*_arm64.deb "$dnnl_dir"
  rm -rf "$tmp"
fi
dnnl_lib=/usr/lib/aarch64-linux-gnu/libdnnl.so.2

# qemu's prefix for the ELF interpreter and libraries: "/" when the multiarch libc6:arm64 is
# installed (every arm64 -dev package above pulls it in), so that ld.so and libc.so.6 come
# from the same glibc; else the cross libc of libc6-arm64-cross. The toolchain file reads it
# too (CMAKE_CROSSCOMPILING_EMULATOR, for ctest).
if [ -z "${QEMU_LD_PREFIX:-}" ]; then
  if [ -e /lib/ld-linux-aarch64.so.1 ]; then QEMU_LD_PREFIX=/; else QEMU_LD_PREFIX=/usr/aarch64-linux-gnu; fi
fi
export QEMU_LD_PREFIX

# --- configure and build. ORDO_NATIVE=OFF: -march=native would name the x86 build machine.
# ORDO_MPI=OFF: no arm64 MPI installed. A PKG_CONFIG_PATH from the caller could hand
# pkg-config x86-64 .pc files; the toolchain file sets PKG_CONFIG_LIBDIR to the arm64 ones.
jobs=${ARM64_JOBS:-$(nproc 2>/dev/null || echo 2)}
t0=$SECONDS
env -u PKG_CONFIG_PATH cmake --no-warn-unused-cli -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/arm64-toolchain.cmake \
  -DORDO_NATIVE=OFF -DORDO_MPI=OFF -DCMAKE_BUILD_TYPE=Release \
  -DDNNL_INCLUDE_DIR="$src/$dnnl_dir/usr/include" -DDNNL_LIBRARY="$dnnl_lib" >/dev/null
cmake --build "$build" -j "$jobs" || { echo "arm64: the build failed" >&2; exit 1; }
echo "arm64: configured and built in $((SECONDS - t0)) s"

# --- the tests, each as CTest runs it (tests/CMakeLists: from the source root, with
# ORDO_SOURCE_DIR for the fixtures of tests/fixture.h, OMP_NUM_THREADS=2), under qemu. Not
# through ctest itself: its TIMEOUT 300 is the host's budget, and the gradient checks take
# about that long emulated. OMP_WAIT_POLICY=passive: OpenMP workers that spin while they
# wait cost a whole emulated core each (the gradient checks: 128 s passive, ~230 s spinning).
export ORDO_SOURCE_DIR=$src ORDO_VOCAB_DIR=$src/.cache/gpt2 ORDO_BIN=$src/$build/ordo
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
timeout_s=${ARM64_TEST_TIMEOUT:-1200}
passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
  exe=$build/$t
  if [ ! -x "$exe" ]; then
    echo "FAIL $t: no executable $exe"
    failed=$((failed + 1))
    continue
  fi
  log=$build/arm64-$t.log
  start=$SECONDS
  rc=0
  timeout "$timeout_s" qemu-aarch64 -L "$QEMU_LD_PREFIX" "$exe" >"$log" 2>&1 || rc=$?
  took=$((SECONDS - start))
  last=$(tail -n 1 "$log")
  if [ "$rc" -eq 0 ]; then
    echo "PASS $t (${took} s): $last"
    passed=$((passed + 1))
  elif [ "$rc" -eq 77 ]; then # the tests' SKIP_RETURN_CODE
    echo "SKIP $t (${took} s): $last"
    skipped=$((skipped + 1))
  else
    echo "FAIL $t (exit $rc after ${took} s; $( ((rc == 124)) && echo "timeout ${timeout_s} s; ")log $log):"
    tail -n 20 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
