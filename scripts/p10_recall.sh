#!/usr/bin/env bash
# docs/experiments.md P10: recall and memory at length. For each task of TASKS (selective-copy,
# count, flipflop, mqar), every scheme of the list is trained at T = 64 on one example
# per window, SEEDS seeds, with one recipe (d-model 64, 2 layers, 4 heads, batch 32, lr 1e-3,
# 3000 steps, flipflop 1000, mqar 12000 with one head, or STEPS; 100,000 examples), and
# scored per answer at 1x, 2x, 4x and 8x the training length, 200 fresh examples per cell
# (OUT_DIR/<task>/<pos>-s<seed>/eval.json). sinusoidal
# runs under Vaswani's convention (--embed-style vaswani), in OUT_DIR/<task>-vaswani; t5 with
# --t5-max-distance 64 (no bucket first used past the training length), in OUT_DIR/<task>-t5
# (a sweep refuses a scheme's option for the others); fox with the FoX code's gate bias (0,
# the default), and again with --fox-gate-bias 5 (gates start at 0.993, not 0.5) in
# OUT_DIR/<task>-foxbias.
# copy, reverse and add follow Kazemnejad et al. 2023's protocol at CPU scale: one example per
# window (--pack none), trained on n = 1..20 (add: 1..8 digits, their L = 8), scored by exact
# match to n = 40 (add: 16), the same recipe, context the longest example (43; add 29); and,
# as Ruoss et al. 2023 test randomized positions, rope and learned trained at positions drawn
# from [0, 128) (--pos-random 128), scored at 0..T-1 and at drawn positions, OUT_DIR/<task>-random.
#   scripts/p10_recall.sh OUT_DIR             (TASKS="mqar" for MQAR: 6-18 minutes of a core a run)
# ORDO (default build/ordo) is the binary; JOBS (default 2) runs at once, one thread each;
# SEED (default 1) the first of the SEEDS seeds (SEEDS=1 SEED=2 adds seed 2 to a sweep that
# has seed 1: a slow task's seeds in passes, every row's seed 1 first).
# Run again, it keeps what is finished and resumes what was stopped (ordo sweep). Tables:
# scripts/experiment_tables.py recall OUT_DIR/<task> OUT_DIR/<task>-t5 OUT_DIR/<task>-vaswani.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
O=${ORDO:-build/ordo}
OUT=$1
TASKS=${TASKS:-selective-copy count flipflop copy add reverse}
SEEDS=${SEEDS:-3}
POS=${POS:-learned,rope,alibi,fire,kerple,xpos,dpb,cope,fox,none}
recipe=(--d-model 64 --layers 2 --heads 4 --batch 32 --lr 1e-3 --warmup 100
  --corpus-tokens 6400000 --eval-every 1000 --eval-batches 10 --threads 1
  --examples 200 --progress plain
  --seed "${SEED:-1}" --seeds "$SEEDS" --jobs "${JOBS:-2}")
for t in $TASKS; do
  steps=3000 shape=(--context 64 --eval-lengths 1,2,4,8)
  [ "$t" = flipflop ] && steps=1000 # all read 1.0 at step 500 in the guide's measurement
  case $t in
  copy | reverse) shape=(--context 43 --pack none --min-len 1 --max-len 20 --eval-lengths 1) ;;
  add) shape=(--context 29 --pack none --min-len 1 --max-len 8 --eval-lengths 1) ;;
  # one head and 12000 steps: the guide's measurement (rope at 4 heads stays at 0.24 for
  # 6000 steps; at one head, Zoology's basic example, it reaches 0.95 at step 12000)
  mqar) shape=(--context 64 --eval-lengths 1,2,4,8 --heads 1) steps=12000 ;;
  esac
  r=("${recipe[@]}" "${shape[@]}" --steps "${STEPS:-$steps}")
  "$O" sweep --task "$t" --pos "$POS" "${r[@]}" --out "$OUT/$t"
  "$O" sweep --task "$t" --pos t5 --t5-max-distance "${shape[1]}" "${r[@]}" --out "$OUT/$t-t5"
  "$O" sweep --task "$t" --pos sinusoidal --embed-style vaswani "${r[@]}" --out "$OUT/$t-vaswani"
  "$O" sweep --task "$t" --pos fox --fox-gate-bias 5 "${r[@]}" --out "$OUT/$t-foxbias"
  case $t in # Ruoss et al.: rope and learned at positions drawn from [0, 128) in training,
    copy | reverse | add) # scored at 0..T-1 (record base) and at drawn positions (drawn)
      "$O" sweep --task "$t" --pos rope,learned --pos-random 128 --eval-variants base,drawn \
        "${r[@]}" --out "$OUT/$t-random" ;;
  esac
done
