#!/usr/bin/env bash
# The n-gram rows of docs/experiments.md's language-model tables: interpolated Witten-Bell
# n-gram models (`ordo baseline`, orders 1-6), fitted on the training split of tinyshakespeare with the runs' tokenizer and split (the
# last 10% held out, as every P1-P7 run) and scored on exactly the targets that `ordo eval`
# scored for that table: the same length, the same mode (non-overlapping windows, or the
# sliding window with stride T/4 or 1) and the same tail rule. The levels train no model.
#   scripts/ngram_levels.sh DATA [OUT_DIR]     (OUT_DIR: the 1-step runs of the unigram level)
# (claims.md C7's two training sets: scripts/claims_size.sh prints their levels from its runs.)
# ORDO (default build/ordo) is the binary; the levels are cached as `ordo baseline` caches
# them ($ORDO_CACHE_DIR/ngram, ...). Prints one table per configuration, a row per order
# (2, 3, 4) and the best order, a column per evaluation length, in nats per token (byte);
# then the validation split's unigram entropy (compare's "vs unigram" level) from a 1-step
# `ordo train` of each tokenizer. scripts/ngram_levels.out is its output as committed.
# Seconds of one core.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DATA [OUT_DIR]" >&2; exit 2; }
O=${ORDO:-build/ordo}
DATA=$1 OUT=${2:-runs/ngram-levels}
fmt() { # TITLE: the JSON of `ordo baseline --json` on stdin, one table out
  python3 -c '
import json, sys
title, mode, stride = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(sys.stdin)
lv = [l for l in r["levels"] if l["mode"] == mode and (stride == 0 or l["stride"] == stride)]
print("%s (%s, train %d tokens, val %d; %s%s)" % (title, r["method"], r["train_tokens"],
      r["eval_tokens"], mode, "" if mode == "nonoverlap" else ", stride " +
      " / ".join(str(l["stride"]) for l in lv)))
print("| n-gram | " + " | ".join(str(l["context"]) for l in lv) + " |")
print("|---|" + "---|" * len(lv))
for k in (2, 3, 4):
    print("| %d-gram | " % k + " | ".join("%.4f" % l["loss"][k - 1] for l in lv) + " |")
best = [min(range(len(l["loss"])), key=lambda i: l["loss"][i]) for l in lv]
print("| best (order) | " + " | ".join("%.4f (%d)" % (l["loss"][b], b + 1)
      for l, b in zip(lv, best)) + " |")
print("| targets | " + " | ".join(str(l["targets"]) for l in lv) + " |")
print()
' "$@"
}
base() { "$O" baseline "$@" --json; }
both() { # TITLE ARGS...: one `ordo baseline`, its non-overlapping and sliding tables
  local title=$1 json=${TMPDIR:-/tmp}/ng.$$.json
  shift
  base "$@" > "$json"
  fmt "$title" nonoverlap 0 < "$json"
  fmt "$title" sliding 0 < "$json"
  rm -f "$json"
}
b64=64,128,256,512,1024,2048,3072
b128=128,256,512,1024,2048,4096,6144

echo "# bytes (byte tokenizer), trained at 64: P1, P4, P5 (64, 256), P6 bytes-64, P7"
both "bytes, T 64" "$DATA" --tokenizer byte --context 64 --lengths $b64

echo "# bytes, trained at 128: P6 bytes-128"
both "bytes, T 128" "$DATA" --tokenizer byte --context 128 --lengths $b128
base "$DATA" --tokenizer byte --context 128 --lengths 128,256 --sliding-stride 1 |
  fmt "bytes, T 128, stride 1" sliding 1

echo "# GPT-2 BPE, trained at 64: P2 (64, 128, 256), P6 gpt2-64"
both "GPT-2 BPE, T 64" "$DATA" --tokenizer gpt2 --context 64 --lengths $b64
base "$DATA" --tokenizer gpt2 --context 64 --lengths 64,128 --sliding-stride 1 |
  fmt "GPT-2 BPE, T 64, stride 1" sliding 1

echo "# GPT-2 BPE, trained at 128: P6 gpt2-128"
both "GPT-2 BPE, T 128" "$DATA" --tokenizer gpt2 --context 128 --lengths $b128
base "$DATA" --tokenizer gpt2 --context 128 --lengths 128,256 --sliding-stride 1 |
  fmt "GPT-2 BPE, T 128, stride 1" sliding 1
mkdir -p "$OUT"

echo
echo "# the validation split's unigram entropy (compare's 'vs unigram' level), as 'ordo train'"
echo "# records it in config.json (val_unigram), from a 1-step run"
for tok in byte gpt2; do
  "$O" train --data "$DATA" --tokenizer "$tok" --steps 1 --context 64 --threads 1 \
    --out "$OUT/unigram-$tok" > "$OUT/unigram-$tok.log" 2>&1
  python3 -c '
import json, sys
u = json.load(open(sys.argv[1] + "/config.json"))["val_unigram"]
print("%s: %.4f nats per token over %d targets" % (sys.argv[2], u["entropy"], u["targets"]))
' "$OUT/unigram-$tok" "$tok"
done
