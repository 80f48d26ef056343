#!/usr/bin/env bash
# docs/experiments.md P5: extend P4's rope and learned runs (trained at 64) to 256.
#   scripts/p5_context_extension.sh P4_DIR OUT_DIR DATA SEED...
# 0 fine-tune steps: `ordo eval` at 64 and 256 with the method (--rope-scaling for rope,
# --extend-pos for learned); 200 fine-tune steps: `ordo train --init` at 256 with the method,
# then `ordo eval` of the result. Each seed runs in the background, one thread each; every
# report is OUT_DIR/<e0|ft>-<scheme>-<method>-s<seed>[.eval].log (JSON), read by
# scripts/p5_table.py. ORDO (default build/ordo) is the binary.
set -u
[ $# -ge 4 ] || { echo "usage: $0 P4_DIR OUT_DIR DATA SEED..." >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
P4=$1 OUT=$2 DATA=$3
shift 3
mkdir -p "$OUT"
model=(--data "$DATA" --tokenizer byte --d-model 64 --layers 2 --heads 4 --batch 16 --embed-style gpt2)
ft=(--steps 200 --lr 1e-3 --warmup 20 --context 256 --eval-every 0 --threads 1 --progress off)
job() { # NAME CMD...: the command's output into OUT/NAME.log; a failure is listed in failed.txt
  local name=$1
  shift
  "$@" > "$OUT/$name.log" 2>&1 || echo "FAILED: $name" >> "$OUT/failed.txt"
}
run_seed() {
  local s=$1 m r
  job e0-rope-none-s$s "$O" eval --attention fused "$P4/rope-s$s" --context 64,256 --json --threads 1
  for m in pi ntk yarn; do
    job e0-rope-$m-s$s "$O" eval --attention fused "$P4/rope-s$s" --context 64,256 --rope-scaling $m --rope-factor 4 --json --threads 1
  done
  for m in interpolate fresh; do
    job e0-learned-$m-s$s "$O" eval --attention fused "$P4/learned-s$s" --context 64,256 --extend-pos $m --json --threads 1
  done
  job ft-rope-none-s$s "$O" train --attention fused "${model[@]}" "${ft[@]}" --pos rope --seed $s --init "$P4/rope-s$s" --out "$OUT/ft-rope-none-s$s"
  for m in pi ntk yarn; do
    job ft-rope-$m-s$s "$O" train --attention fused "${model[@]}" "${ft[@]}" --pos rope --seed $s --rope-scaling $m --rope-factor 4 \
      --init "$P4/rope-s$s" --out "$OUT/ft-rope-$m-s$s"
  done
  for m in interpolate fresh; do
    job ft-learned-$m-s$s "$O" train --attention fused "${model[@]}" "${ft[@]}" --pos learned --seed $s --extend-pos $m \
      --init "$P4/learned-s$s" --out "$OUT/ft-learned-$m-s$s"
  done
  for r in "$OUT"/ft-*-s$s; do
    [ -d "$r" ] && job "$(basename "$r").eval" "$O" eval --attention fused "$r" --context 64,256 --json --threads 1
  done
}
for s in "$@"; do run_seed "$s" & done
wait
