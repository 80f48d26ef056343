#!/usr/bin/env bash
# Where the materialized attention stops being the faster one: a training step (bench_train:
# forward, backward, AdamW) at each T, fused against materialized, interleaved, with B * T
# fixed so every row trains the same number of tokens. Prints the CPU, the kernels that ran,
# each median and the ratio, and the longest T at which materialized won: what --attention
# auto's rule (models/gpt_config.c, AUTO_MAX_T_*) is set from, per instruction set.
#
# usage: bench/attention_crossover.sh
# env:   TS (default "16 32 64 128 256 512")  TOKENS (B * T, default 2048)
#        C (64)  L (1)  NH (4)  POS (default "none alibi")  THREADS (default: all cores)
#        STEPS (timed steps per run, 8)  ROUNDS (runs per side, 3)  OUT (.cache/bench)
#        ORDO_MAX_ISA (avx2, portable: run a smaller CPU's kernels, cpu.h) with
#        OPENBLAS_CORETYPE (Zen, Haswell) to see an AVX2 CPU's figures on an AVX-512 one
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=${ORDO_BUILD_DIR:-$repo/build}
TS=${TS:-16 32 64 128 256 512}
TOKENS=${TOKENS:-2048}
C=${C:-64} L=${L:-1} NH=${NH:-4}
POS=${POS:-none alibi}
THREADS=${THREADS:-$(nproc)}
STEPS=${STEPS:-8} ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$repo/.cache/bench}
mkdir -p "$OUT"
data/fetch.sh shakespeare > /dev/null
. bench/ids.sh
bench_ids "$OUT" "$build/ordo" /usr/bin/python3 "${ORDO_CACHE:-$repo/.cache}/data/tinyshakespeare.txt" \
  "${ORDO_CACHE:-$repo/.cache}/gpt2"
"$build/ordo" --version | sed -n 2p
grep -m1 "model name" /proc/cpuinfo | sed 's/.*: /CPU: /'
echo "bytes, C $C, L $L, NH $NH, B*T $TOKENS, $THREADS threads, medians of $ROUNDS runs x $STEPS steps"
# the median of its arguments
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-6s %-4s %-6s %12s %12s %8s\n' pos T B fused_ms mat_ms mat/fused
for pos in $POS; do
  best=0
  for T in $TS; do
    B=$(( TOKENS / T )); [ "$B" -ge 1 ] || B=1
    f=() m=()
    for r in $(seq "$ROUNDS"); do
      for a in fused materialized; do
        ms=$("$build/bench_train" --ids "$OUT/byte.bin" --V 256 --T "$T" --B "$B" --C "$C" --L "$L" \
               --NH "$NH" --pos "$pos" --attention "$a" --steps "$STEPS" --warmup 2 \
               --threads "$THREADS" | sed 's/.*"ms":\([0-9.]*\).*/\1/')
        if [ $a = fused ]; then f+=("$ms"); else m+=("$ms"); fi
      done
    done
    mf=$(med "${f[@]}") mm=$(med "${m[@]}")
    ratio=$(awk -v a="$mm" -v b="$mf" 'BEGIN { printf "%.2f", a / b }')
    printf '%-6s %-4s %-6s %12s %12s %8s\n' "$pos" "$T" "$B" "$mf" "$mm" "$ratio"
    awk -v r="$ratio" 'BEGIN { exit !(r < 1) }' && best=$T
  done
  echo "$pos: materialized faster up to T $best (0: never)"
done
