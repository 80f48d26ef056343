#!/usr/bin/env bash
# docs/experiments.md P6 (issue 27, item 1): Press et al.'s short-context protocol at CPU
# scale, on bytes of tinyshakespeare: every scheme trained at L (64, 128), 3 seeds, the same
# tokens per step (16 x 64 = 1024: batch 16 at 64, 8 at 128) and steps, scored at 1x..48x L
# both with non-overlapping windows (the sweep's eval records, base) and with a sliding
# window moved by T/4 at each evaluation length T (`ordo eval --mode sliding`, record
# base-sliding), so that every target is scored once, with at least 3T/4 - 1 tokens of
# context where the stream has them.
#   scripts/p6_press.sh DATA OUT_DIR [L ...]          (default L: 64 128)
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# POS the schemes. Run again, it keeps what is finished. Tables: scripts/experiment_tables.py
# loss OUT_DIR/bytes-L (non-overlapping) and --variant base-sliding loss OUT_DIR/bytes-L.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DATA OUT_DIR [L ...]" >&2; exit 2; }
O=${ORDO:-build/ordo}
DATA=$1 OUT=$2
shift 2
lengths=${*:-64 128}
POS=${POS:-learned,sinusoidal,rope,alibi,t5,fire,kerple,kerple-power,xpos,dpb,fox,cope,none}
mults=(1 2 4 8 16 32 48)
for L in $lengths; do
  dir=$OUT/bytes-$L
  "$O" sweep --data "$DATA" --tokenizer byte --pos "$POS" --seeds 3 --steps 1500 --lr 3e-3 \
    --warmup 50 --context "$L" --batch $((1024 / L)) --d-model 64 --layers 2 --heads 4 \
    --embed-style gpt2 --eval-lengths "$(IFS=,; echo "${mults[*]}")" --jobs "${JOBS:-1}" \
    --threads 1 --progress plain --out "$dir"
  ctx=$(for m in "${mults[@]}"; do printf '%s,' $((m * L)); done)
  for run in "$dir"/*-s[0-9]*; do
    [ -s "$run/eval/base-sliding.json" ] && continue
    "$O" eval "$run" --context "${ctx%,}" --mode sliding --save --threads 1 >/dev/null
  done
done
