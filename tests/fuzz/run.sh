#!/usr/bin/env bash
# Runs the libFuzzer targets of a -DORDO_FUZZ=ON build for a while each, starting from the
# committed seeds (tests/fuzz/<target>/, never modified: new inputs go to a scratch corpus).
# Usage: tests/fuzz/run.sh BUILD_DIR [target...]   (no target: every fuzz_* in BUILD_DIR)
#   ORDO_FUZZ_SECONDS  time per target (default 20)
#   ORDO_FUZZ_RUNS     stop a target after this many executions instead (default: no limit)
#   ORDO_FUZZ_KEEP     directory to keep the grown corpora and any crashing inputs in
# Exits non-zero when a target finds a crash, a leak, a timeout (10 s per input) or an
# allocation over 2 GiB; the crashing input is left in the scratch dir (printed).
set -u
build=${1:?usage: tests/fuzz/run.sh BUILD_DIR [target...]}; shift
src=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
# by default every target the build made (CMake's ORDO_FUZZ_TARGETS is the one list)
if ((${#targets[@]} == 0)); then
  for exe in "$build"/fuzz_*; do [ -f "$exe" ] && [ -x "$exe" ] && targets+=("${exe##*/fuzz_}"); done
  ((${#targets[@]})) || { echo "FAIL: no fuzz_* executable in $build"; exit 1; }
fi
secs=${ORDO_FUZZ_SECONDS:-20}
scratch=${ORDO_FUZZ_KEEP:-$(mktemp -d)}
mkdir -p "$scratch"
pass=0 fail=0
for t in "${targets[@]}"; do
  exe="$build/fuzz_$t"
  if [ ! -x "$exe" ]; then echo "FAIL: $exe not built"; fail=$((fail+1)); continue; fi
  mkdir -p "$scratch/$t/corpus" "$scratch/$t/artifacts"
  args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$scratch/$t/artifacts/")
  [ -n "${ORDO_FUZZ_RUNS:-}" ] && args+=(-runs="$ORDO_FUZZ_RUNS")
  [ -f "$src/dict/$t.dict" ] && args+=(-dict="$src/dict/$t.dict")
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$exe" "${args[@]}" "$scratch/$t/corpus" "$src/$t" >"$scratch/$t/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t/log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$scratch/$t/log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "FAIL: fuzz_$t exited $rc after ${execs:-?} executions; log and input in $scratch/$t:"
    grep -E "ERROR|SUMMARY|fuzz property|Test unit written" "$scratch/$t/log" | head -8
    fail=$((fail+1))
  else
    echo "ok: fuzz_$t ${execs:-?} executions in ${took:-$secs}s, no finding"
    pass=$((pass+1))
  fi
done
[ -z "${ORDO_FUZZ_KEEP:-}" ] && [ $fail -eq 0 ] && rm -rf "$scratch"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
