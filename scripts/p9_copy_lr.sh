#!/usr/bin/env bash
# docs/experiments.md P9: P3's copy and reverse with a learning-rate sweep,
# so that "did not learn" (in-distribution, n <= 16) and "did not generalise" (n 17..32) are
# told apart. One `ordo sweep` per task and rate into OUT_DIR/<task>-lr<rate>; run again, it
# keeps what is finished. Table: scripts/experiment_tables.py lr OUT_DIR/copy-lr* (and reverse).
#   scripts/p9_copy_lr.sh OUT_DIR [TASK ...]      (tasks: copy reverse; default both)
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# RATES (default "1e-3 3e-3 1e-2") the peak learning rates; POS the schemes; SEEDS (default 5)
# the seeds; EMBED (default gpt2) the embedding convention: P3's Vaswani tables are
# EMBED=vaswani RATES=3e-3, into OUT_DIR/<task>-lr3e-3-vaswani.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT_DIR [copy|reverse ...]" >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
OUT=$1
shift
tasks=${*:-copy reverse}
RATES=${RATES:-1e-3 3e-3 1e-2}
POS=${POS:-learned,sinusoidal,rope,alibi,t5,none}
EMBED=${EMBED:-gpt2}
suffix=
[ "$EMBED" = gpt2 ] || suffix=-$EMBED
mkdir -p "$OUT"
for task in $tasks; do
  for lr in $RATES; do
    "$O" sweep --attention fused --task "$task" --min-len 1 --max-len 16 --pos "$POS" --seeds "${SEEDS:-5}" --steps 1500 \
      --lr "$lr" --warmup 50 --context 64 --batch 32 --d-model 64 --layers 2 --heads 4 \
      --eval-lengths 1 --examples 200 --embed-style "$EMBED" --jobs "${JOBS:-1}" --threads 1 \
      --out "$OUT/$task-lr$lr$suffix"
  done
done
