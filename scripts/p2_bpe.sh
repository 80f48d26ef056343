#!/usr/bin/env bash
# docs/experiments.md P2: learned vs sinusoidal vs none on GPT-2 BPE tinyshakespeare, trained at
# 64, scored at 1x, 2x, 4x, under both embedding conventions. OUT_DIR/gpt2 and OUT_DIR/vaswani.
#   scripts/p2_bpe.sh DATA OUT_DIR
# One `ordo sweep` per convention; run again, it keeps what is finished. Tables:
# scripts/experiment_tables.py loss OUT_DIR/gpt2 (and OUT_DIR/vaswani). Needs the GPT-2 vocab
# files (data/fetch.sh vocab).
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# SEEDS (default 3) the seeds: a run takes 3.5-7 minutes of one core (the LM head, V = 50257).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DATA OUT_DIR" >&2; exit 2; }
O=${ORDO:-build/ordo}
DATA=$1 OUT=$2
mkdir -p "$OUT"
p2=(--data "$DATA" --tokenizer gpt2 --pos learned,sinusoidal,none --seeds "${SEEDS:-3}" --steps 600
    --lr 3e-3 --warmup 30 --context 64 --batch 16 --d-model 64 --layers 2 --heads 4 --eval-every 200
    --eval-batches 20 --eval-lengths 1,2,4 --jobs "${JOBS:-1}" --threads 1)
"$O" sweep "${p2[@]}" --embed-style gpt2 --out "$OUT/gpt2"
"$O" sweep "${p2[@]}" --embed-style vaswani --out "$OUT/vaswani"
