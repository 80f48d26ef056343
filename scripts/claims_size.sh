#!/usr/bin/env bash
# The measurement behind docs/claims.md C7 ("learnable embeddings may provide better
# performance on large datasets"): learned against sinusoidal on bytes of one corpus at two
# training sizes, the same validation text, the same budget, both embedding conventions,
# 5 seeds (SEEDS). DATA's last 10% is the validation text (as P1's --val-frac 0.1); the large
# training set is the first 90%, the small one its first tenth. P1's budget (1500 steps of
# 16 x 64 bytes, 1.5M bytes) is 1.5 epochs of the large set and 15 of the small one.
#   scripts/claims_size.sh DATA OUT_DIR
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each.
# Prints the table of docs/claims.md C7 (mean ± sample sd over the seeds, from each run's
# eval.json); scripts/claims_size.out is its output as committed.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DATA OUT_DIR" >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
DATA=$1 OUT=$2
mkdir -p "$OUT/data"
n=$(stat -c %s "$DATA")
ntrain=$((n - n / 10))
head -c "$ntrain" "$DATA" > "$OUT/data/large.txt"
head -c $((ntrain / 10)) "$DATA" > "$OUT/data/small.txt"
tail -c +$((ntrain + 1)) "$DATA" > "$OUT/data/val.txt"
for size in large small; do
  for conv in gpt2 vaswani; do
    "$O" sweep --attention fused --data "$OUT/data/$size.txt" --val-data "$OUT/data/val.txt" --tokenizer byte \
      --pos learned,sinusoidal --seeds "${SEEDS:-5}" --steps 1500 --lr 3e-3 --warmup 50 --context 64 \
      --batch 16 --d-model 64 --layers 2 --heads 4 --embed-style $conv --eval-lengths 1 \
      --jobs "${JOBS:-1}" --threads 1 --progress plain --out "$OUT/$size-$conv" \
      > "$OUT/$size-$conv.log" 2>&1 || { tail -n 20 "$OUT/$size-$conv.log"; exit 1; }
  done
done
python3 - "$OUT" "${SEEDS:-5}" <<'PY'
import json, os, statistics, sys
def loss(d, pos):
    return [json.load(open("%s/%s/%s-s%d/eval.json" % (sys.argv[1], d, pos, s)))["results"][0]["val_loss"]
            for s in range(1, int(sys.argv[2]) + 1)]
def cell(v):
    return "%.3f ± %.3f" % (statistics.mean(v), statistics.stdev(v))
def ngram(d):  # the n-gram levels on the same targets, fitted on this size's training text
    v = json.load(open("%s/%s/learned-s1/eval.json" % (sys.argv[1], d)))["results"][0].get("ngram_loss")
    return "%.3f / %.3f / %.3f (%d-gram)" % (v[1], v[3], min(v), v.index(min(v)) + 1) if v else "n/a"
print("| convention | training bytes | learned | sinusoidal | learned - sinusoidal | *n-gram* on the same split: 2-gram / 4-gram / best |")
print("|---|---|---|---|---|---|")
for conv in ("gpt2", "vaswani"):
    for size in ("small", "large"):
        a, b = loss(size + "-" + conv, "learned"), loss(size + "-" + conv, "sinusoidal")
        diff = [x - y for x, y in zip(a, b)]
        n = os.path.getsize("%s/data/%s.txt" % (sys.argv[1], size))
        print("| %s | %d | %s | %s | %s | %s |" % (conv, n, cell(a), cell(b), "%+.3f" % statistics.mean(diff),
                                                   ngram(size + "-" + conv)))
PY
