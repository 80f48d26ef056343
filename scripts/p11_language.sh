#!/usr/bin/env bash
# docs/experiments.md P11: language models that use context. tinyshakespeare bytes with a
# model that beats the 5-gram at its training length L (issue 40, item 4): d_model 128,
# 4 layers, 4 heads, 4096 bytes a step (batch 32 at L 128, 64 at L 64), STEPS steps (default
# 2000), lr 2e-3, warmup 100, cosine to 1e-4; alibi, rope, learned and none under GPT-2's
# convention (OUT_DIR/bytes-L) and sinusoidal under Vaswani's (OUT_DIR/bytes-L-vaswani:
# Press et al.'s sinusoidal baseline), SEEDS (default 2) seeds, at each L of the arguments
# (default 64 128). Each run is scored on the whole validation split at 1x..16x L with
# non-overlapping windows (the sweep's eval.json, record base) and sliding ones (stride T/4,
# record base-sliding), both with the n-gram levels on the same targets; and with the
# context-use curve (Khandelwal et al. 2018) of 20,000 targets at L, with the best n-gram's
# on the same targets (record context-use; a record made before eval added the n-gram line is
# made again).
#   scripts/p11_language.sh DATA OUT_DIR [L ...]
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, THREADS (default 1)
# threads each. A run trains in about 13 minutes of one core (Zen 4).
# The whole experiment is hours: stop it at any point (Ctrl-C, or kill the script's process
# group) and run the same command again, in this session or a later one: finished runs and
# evals are kept, a stopped run resumes from its last checkpoint (every 200 steps), bit for
# bit whatever THREADS is. Tables: scripts/experiment_tables.py loss OUT_DIR/bytes-L (and
# --variant base-sliding) and scripts/experiment_tables.py context-use OUT_DIR/bytes-L.
set -eu
shopt -s nullglob
[ $# -ge 2 ] || { echo "usage: $0 DATA OUT_DIR [L ...]" >&2; exit 2; }
O=${ORDO:-build/ordo}
DATA=$1 OUT=$2
shift 2
lengths=${*:-64 128}
T=${THREADS:-1}
for L in $lengths; do
  # shellcheck disable=SC2054 # the commas are ordo's lists
  recipe=(--data "$DATA" --tokenizer byte --context "$L" --batch $((4096 / L))
    --d-model 128 --layers 4 --heads 4 --steps "${STEPS:-2000}" --lr 2e-3 --warmup 100
    --min-lr 1e-4 --eval-every 500 --eval-batches 20 --seeds "${SEEDS:-2}"
    --eval-lengths 1,2,4,8,16 --eval-variants base,sliding
    --jobs "${JOBS:-1}" --threads "$T" --progress plain)
  "$O" sweep --pos "${POS:-alibi,rope,learned,none}" --embed-style gpt2 "${recipe[@]}" \
    --out "$OUT/bytes-$L"
  "$O" sweep --pos sinusoidal --embed-style vaswani "${recipe[@]}" --out "$OUT/bytes-$L-vaswani"
  for run in "$OUT/bytes-$L"/*-s[0-9]* "$OUT/bytes-$L-vaswani"/*-s[0-9]*; do
    grep -qs '"ngram_order"' "$run/eval/context-use.json" || # the n-gram line's own key
      "$O" eval "$run" --context "$L" --context-use 20000 --save=context-use --threads "$T" \
        --progress off >/dev/null
  done
done
