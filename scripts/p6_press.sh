#!/usr/bin/env bash
# docs/experiments.md P6: Press et al.'s short-context protocol at CPU
# scale, on tinyshakespeare (bytes, or GPT-2 BPE with TOK=gpt2): every scheme trained at L
# (64, 128), 5 seeds on bytes and 3 on BPE (SEEDS), the same tokens per step (16 x 64 =
# 1024: batch 16 at 64, 8 at 128) and steps (1500 on bytes; 300 on BPE, whose LM head
# costs 0.4 s a step), scored at 1x..48x L
# both with non-overlapping windows (the sweep's eval records, base) and with a sliding
# window moved by T/4 at each evaluation length T (`ordo eval --mode sliding`, record
# base-sliding), so that every target is scored once, with at least 3T/4 - 1 tokens of
# context where the stream has them; and, to show what stride T/4 changes, Press et al.'s
# stride 1 at 1x and 2x L for the schemes in STRIDE1 (record base-sliding-stride1, ordo's
# own name for it; default alibi,sinusoidal,rope, their three rows; empty to skip).
#   scripts/p6_press.sh DATA OUT_DIR [L ...]          (default L: 64 128)
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs or evaluations at once, one
# thread each; POS the schemes; SEEDS (default 5 on bytes, whose runs take under a minute;
# 3 on BPE); STEPS overrides the budget. Run again, it
# keeps what is finished. Tables: scripts/experiment_tables.py loss OUT_DIR/bytes-L (gpt2-L
# with TOK=gpt2), non-overlapping; --variant base-sliding loss OUT_DIR/bytes-L, sliding;
# strides OUT_DIR/bytes-L, stride 1 beside T/4.
set -eu
shopt -s nullglob # a scheme of STRIDE1 that was not trained (POS) has no runs
[ $# -ge 2 ] || { echo "usage: $0 DATA OUT_DIR [L ...]" >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
DATA=$1 OUT=$2
shift 2
lengths=${*:-64 128}
TOK=${TOK:-byte}
case $TOK in # the folder's prefix (bytes: the name P6's first tables were made under)
  byte) steps=${STEPS:-1500} warmup=50 prefix=bytes seeds=${SEEDS:-5} ;;
  gpt2) steps=${STEPS:-300} warmup=30 prefix=gpt2 seeds=${SEEDS:-3} ;;
  *) echo "$0: TOK=$TOK, expected byte or gpt2" >&2; exit 2 ;;
esac
POS=${POS:-learned,sinusoidal,rope,alibi,t5,fire,kerple,kerple-power,xpos,dpb,fox,cope,none}
mults=(1 2 4 8 16 32 48)
running=0
evaluate() { # RUN RECORD ARGS...: ordo eval RUN ARGS --save=RECORD, JOBS at once
  local run=$1 record=$2
  shift 2
  [ -s "$run/eval/$record.json" ] && return 0
  if [ "$running" -ge "${JOBS:-1}" ]; then wait -n; running=$((running - 1)); fi
  "$O" eval --attention fused "$run" "$@" --save="$record" --threads 1 >/dev/null &
  running=$((running + 1))
}
for L in $lengths; do
  dir=$OUT/$prefix-$L
  "$O" sweep --attention fused --data "$DATA" --tokenizer "$TOK" --pos "$POS" --seeds "$seeds" \
    --steps "$steps" --lr 3e-3 --warmup "$warmup" --context "$L" --batch $((1024 / L)) \
    --d-model 64 --layers 2 --heads 4 --embed-style gpt2 \
    --eval-lengths "$(IFS=,; echo "${mults[*]}")" --jobs "${JOBS:-1}" --threads 1 \
    --progress plain --out "$dir"
  ctx=$(for m in "${mults[@]}"; do printf '%s,' $((m * L)); done)
  for run in "$dir"/*-s[0-9]*; do
    evaluate "$run" base-sliding --context "${ctx%,}" --mode sliding
  done
  for pos in $(tr , ' ' <<<"${STRIDE1-alibi,sinusoidal,rope}"); do
    for run in "$dir/$pos"-s[0-9]*; do
      evaluate "$run" base-sliding-stride1 --context "$L,$((2 * L))" --mode sliding \
        --sliding-stride 1
    done
  done
done
while [ "$running" -gt 0 ]; do wait -n; running=$((running - 1)); done # a failure stops here
