#!/usr/bin/env bash
# docs/experiments.md P1 and P4: train short, test long on bytes of tinyshakespeare (trained at
# 64, scored at 1x..16x). OUT_DIR/gpt2 holds P1's GPT-2-convention rows and P4's (the six
# classic schemes and the second wave's four), OUT_DIR/vaswani P1's Vaswani-convention rows.
#   scripts/p1_p4_bytes.sh DATA OUT_DIR
# One `ordo sweep` per convention; run again, it keeps what is finished. Tables:
# scripts/experiment_tables.py loss OUT_DIR/gpt2 (and OUT_DIR/vaswani).
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# SEEDS (default 5) the seeds: a run takes about 30 s of one core.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DATA OUT_DIR" >&2; exit 2; }
O=${ORDO:-build/ordo}
DATA=$1 OUT=$2
mkdir -p "$OUT"
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
p1=(--data "$DATA" --tokenizer byte --seeds "${SEEDS:-5}" --steps 1500 --lr 3e-3 --warmup 50 --context 64
    --batch 16 --d-model 64 --layers 2 --heads 4 --eval-lengths 1,2,4,8,16 --jobs "${JOBS:-1}" --threads 1)
"$O" sweep --attention fused "${p1[@]}" --embed-style gpt2 \
  --pos learned,sinusoidal,rope,alibi,t5,none,fire,kerple,kerple-power,xpos --out "$OUT/gpt2"
"$O" sweep --attention fused "${p1[@]}" --embed-style vaswani \
  --pos learned,sinusoidal,rope,alibi,t5,none --out "$OUT/vaswani"
