#!/usr/bin/env bash
# Training throughput of ordo against a tuned PyTorch peer on the same CPU, one command:
# builds (if needed), installs python3-torch from Debian (if missing), tokenizes
# tinyshakespeare (gpt2 and bytes), measures the 2048^3 peaks at the thread count (OpenBLAS's
# sgemm, ordo_gemm, oneDNN's matmul in float32 and in bf16), then for each config (tiny,
# small, byte-small) runs ordo (build/bench_train: the real model and optimizer) and the peer
# (bench/torch_peer.py) interleaved, ROUNDS times each, rotating which goes first: each in
# fp32 and, where oneDNN runs bf16 here, in bf16 (ordo --precision bf16; PyTorch under
# torch.autocast("cpu", bfloat16)). Then times every position scheme against `none` (ordo, in
# each precision) on each of POS_CONFIGS: `small`, where the LM head dominates a step, and
# `byte-attn` (bytes, C 64, L 2, T 256), where attention and the position scheme weigh most;
# POS_ROUNDS interleaved rounds, each round starting one scheme later than the last. Prints the tables and the targets (bench/report.py) and
# keeps the raw JSON lines in $OUT/results.jsonl.
#
# usage: bench/run.sh
# env:   THREADS (default: all cores)  STEPS (timed steps per run, default 15)
#        WARMUP (default 3)  ROUNDS (runs per side and config, default 2)
#        CONFIGS (default "tiny small byte-small"; "" skips them)  POS (default: all thirteen; "" skips them)
#        POS_STEPS (timed steps per position scheme and round, default 8)
#        POS_ROUNDS (rounds over the schemes, default 3)
#        POS_CONFIGS (default "small byte-attn")
#        PRECISIONS (default "fp32 bf16"; bf16 is left out where the CPU runs none)
#        OUT (default .cache/bench)
#        LONG (default "train": bench/long_context.sh's training rows at T 2048 and 16384 with
#        the PyTorch peer, after the tables; "eval train small" for all of it; "" skips it)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=${ORDO_BUILD_DIR:-$repo/build}
THREADS=${THREADS:-$(nproc)}
STEPS=${STEPS:-15}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-2}
CONFIGS=${CONFIGS-tiny small byte-small}
POS=${POS-none learned sinusoidal rope alibi t5 fire kerple kerple-power xpos dpb fox cope}
POS_STEPS=${POS_STEPS:-8}
POS_ROUNDS=${POS_ROUNDS:-3}
POS_CONFIGS=${POS_CONFIGS:-small byte-attn}
PRECISIONS=${PRECISIONS:-fp32 bf16}
OUT=${OUT:-$repo/.cache/bench}
PY=/usr/bin/python3 # Debian's python3-torch is installed for the system interpreter
mkdir -p "$OUT"

say() { echo "bench: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# --- build (incremental) and PyTorch
if [ ! -f "$build/CMakeCache.txt" ]; then
  scripts/setup.sh
fi
cmake --build "$build" -j "$(nproc)" --target ordo bench_train >/dev/null
if ! "$PY" -c 'import torch' 2>/dev/null; then
  say "installing python3-torch (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq || true
  as_root apt-get install -y -qq --no-install-recommends python3-torch
fi

# --- data: tinyshakespeare as gpt2 ids and as bytes, int32 little-endian
data/fetch.sh shakespeare
data/fetch.sh vocab
text=${ORDO_CACHE:-$repo/.cache}/data/tinyshakespeare.txt
vocab=${ORDO_CACHE:-$repo/.cache}/gpt2
. "$repo/bench/ids.sh"
bench_ids "$OUT" "$build/ordo" "$PY" "$text" "$vocab"

# name -> tokenizer V T B C L NH
cfg() {
  case $1 in
    tiny) echo "gpt2 50257 64 8 128 2 4" ;;
    small) echo "gpt2 50257 256 8 256 4 4" ;;
    byte-small) echo "byte 256 256 8 256 4 4" ;;
    byte-attn) echo "byte 256 256 8 64 2 4" ;; # the position schemes' own cost shows here
    *) say "unknown config $1"; exit 2 ;;
  esac
}

res=$OUT/results.jsonl
: >"$res"
# Both sides run under the same tuned environment: PyTorch users' CPU settings (passive
# OpenMP waiting, no mmap/trim churn in malloc); `ordo` sets passive waiting itself.
export OMP_WAIT_POLICY=PASSIVE MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=100000000000
export OMP_NUM_THREADS=$THREADS

run_side() { # SIDE PRECISION CONFIG POS SECTION [ROUND]
  local side=$1 prec=$2 name=$3 pos=$4 section=$5 round=${6:-0}
  read -r tok V T B C L NH <<<"$(cfg "$name")"
  local args=(--ids "$OUT/$tok.bin" --V "$V" --T "$T" --B "$B" --C "$C" --L "$L" --NH "$NH"
    --steps "$STEPS" --warmup "$WARMUP" --threads "$THREADS")
  local line
  if [ "$side" = ordo ]; then
    line=$("$build/bench_train" "${args[@]}" --pos "$pos" --precision "$prec")
  elif [ "$prec" = bf16 ]; then
    line=$("$PY" bench/torch_peer.py "${args[@]}" --autocast)
  else
    line=$("$PY" bench/torch_peer.py "${args[@]}")
  fi
  echo "${line%\}},\"config\":\"$name\",\"section\":\"$section\",\"round\":$round}" | tee -a "$res" | cut -c1-160 >&2
}

peak() { "$build/bench_train" --peak --threads "$THREADS" | tee -a "$res" >&2; }

say "threads $THREADS, $STEPS timed steps after $WARMUP, $ROUNDS rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
peak
if ! "$build/ordo" --version | grep -q '^--precision bf16: available'; then
  say "no bf16 here ($("$build/ordo" --version | grep '^--precision bf16')): fp32 only"
  PRECISIONS=${PRECISIONS//bf16/}
fi
sides=()
for p in $PRECISIONS; do sides+=("ordo $p" "torch $p"); done
for name in $CONFIGS; do
  for ((r = 0; r < ROUNDS; r++)); do
    # every side once per round, each round starting one side later than the last
    for ((i = 0; i < ${#sides[@]}; i++)); do
      read -r side prec <<<"${sides[(i + r) % ${#sides[@]}]}"
      run_side "$side" "$prec" "$name" learned vs
    done
  done
done
read -ra schemes <<<"$POS"
for pc in $POS_CONFIGS; do
  for ((r = 0; r < POS_ROUNDS && ${#schemes[@]} > 0; r++)); do
    for ((i = 0; i < ${#schemes[@]}; i++)); do
      pos=${schemes[(i + r) % ${#schemes[@]}]}
      for p in $PRECISIONS; do STEPS=$POS_STEPS run_side ordo "$p" "$pc" "$pos" pos "$r"; done
    done
  done
done
peak
echo "{\"impl\":\"load\",\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" >>"$res"
"$PY" bench/report.py "$res"
# the long-context rows (fused vs materialized vs the PyTorch peer at T 2048, and
# T 16384), measured by their own script in the same session
LONG=${LONG-train}
if [ -n "$LONG" ]; then
  say "long context: bench/long_context.sh PARTS=\"$LONG\""
  PARTS=$LONG THREADS=$THREADS bash bench/long_context.sh
fi
