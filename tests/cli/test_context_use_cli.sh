#!/usr/bin/env bash
# ordo eval --context-use N: the curve's ks (1, 2, 4, ... the training context), its target
# count and a loss per k in the text, the JSON and a saved record, whose request makes it again,
# with the n-gram line on the same targets (not with --no-ngram); its numbers against brute
# force: tests/eval/test_context_use.c.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$dir" || exit 1
"$ORDO" train --tokenizer byte --d-model 32 --layers 1 --heads 2 --context 16 --steps 20 \
  --corpus-tokens 8000 --eval-every 0 --threads 1 --out r > /dev/null 2>&1 || bad "train"
"$ORDO" eval r --context-use 50 > t.out 2>&1 && grep -qF "context use: the same 50 targets" t.out \
  && grep -qE '^ +k +1 +2 +4 +8 +16$' t.out && grep -qE '^ +n-gram( +[0-9.]+){5}$' t.out \
  && grep -qE '^ +order( +[1-6]){5}$' t.out && ok || bad "text: $(cat t.out)"
"$ORDO" eval r --context-use 50 --save > /dev/null 2>&1 || bad "eval --save"
python3 - r/eval/base.json <<'PY' && ok || bad "the record's context_use: $(head -c 600 r/eval/base.json)"
import json, math, sys
j = json.load(open(sys.argv[1]))
cu = j["context_use"]
ok = cu["k"] == [1, 2, 4, 8, 16] and cu["targets"] == 50 and len(cu["loss"]) == 5 \
    and all(math.isfinite(v) and v > 0 for v in cu["loss"]) and j["request"]["context_use"] == 50 \
    and len(cu["ngram_loss"]) == 5 and all(math.isfinite(v) and v > 0 for v in cu["ngram_loss"]) \
    and all(1 <= o <= min(k + 1, 6) for o, k in zip(cu["ngram_order"], cu["k"]))
sys.exit(0 if ok else 1)
PY
"$ORDO" eval r --context-use 50 --no-ngram --json > nn.json 2>/dev/null && grep -q '"context_use"' nn.json \
  && ! grep -q ngram_order nn.json && ok || bad "--no-ngram: $(head -c 600 nn.json)"
"$ORDO" eval r --json > plain.json 2>/dev/null && ! grep -q context_use plain.json && ok || bad "context_use without --context-use"
out=$("$ORDO" eval r --context-use -1 2>&1) && bad "--context-use -1 accepted" || ok
finish test_context_use_cli
