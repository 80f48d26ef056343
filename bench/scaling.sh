#!/usr/bin/env bash
# How ordo's step time grows with T, V, C, L and batch: one dimension at a time around a
# base config (V 50257, T 128, B 8, C 128, L 2, NH 4), through build/bench_train (the real
# model and optimizer). Prints wall ms/step and CPU ms/step (all threads) per point; with
# THREADS=1 on a busy machine the CPU column is the steadier one. Token ids are bytes (valid
# for any V >= 256; the cost does not depend on their values). Needs bench/run.sh's data
# (.cache/bench/byte.bin) or IDS=FILE.
# usage: bench/scaling.sh   env: THREADS (default 1), STEPS (default 5), WARMUP (default 2)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ORDO_BUILD_DIR:-$repo/build}
ids=${IDS:-$repo/.cache/bench/byte.bin}
THREADS=${THREADS:-1}
STEPS=${STEPS:-5}
WARMUP=${WARMUP:-2}
[ -s "$ids" ] || { echo "scaling: no $ids (run bench/run.sh first, or set IDS)" >&2; exit 1; }
export OMP_WAIT_POLICY=PASSIVE

point() { # DIM VALUE V T B C L
  local line
  line=$("$build/bench_train" --ids "$ids" --V "$3" --T "$4" --B "$5" --C "$6" --L "$7" --NH 4 \
    --threads "$THREADS" --steps "$STEPS" --warmup "$WARMUP")
  local ms cpu gf
  ms=$(grep -o '"ms":[0-9.]*' <<<"$line" | cut -d: -f2)
  cpu=$(grep -o '"cpu_ms":[0-9.]*' <<<"$line" | cut -d: -f2)
  gf=$(grep -o '"gflop":[0-9.]*' <<<"$line" | cut -d: -f2)
  printf '| %s | %s | %s | %.1f | %.1f |\n' "$1" "$2" "$gf" "$ms" "$cpu"
}

echo "threads $THREADS, $STEPS timed steps after $WARMUP, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| dim | value | model GFLOP | wall ms/step | CPU ms/step |"
echo "|---|---|---|---|---|"
for T in 64 128 256; do point T "$T" 50257 "$T" 8 128 2; done
for V in 256 8192 50257; do point V "$V" "$V" 128 8 128 2; done
for C in 64 128 256; do point C "$C" 50257 128 8 "$C" 2; done
for L in 1 2 4; do point L "$L" 50257 128 8 128 "$L"; done
for B in 4 8 16; do point B "$B" 50257 128 "$B" 128 2; done
