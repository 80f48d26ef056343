#!/usr/bin/env bash
# A length past a scheme's numeric range (xPos: its decay overflows a float past 72520 tokens)
# is noted by eval with the reason, not scored as a NaN that reads as a diverged model.
set -u
. "$(dirname "$0")/../lib.sh"
"$ORDO" train --pos xpos --steps 2 --batch 2 --corpus-tokens 4000 --threads 1 --progress off \
  --out "$dir/x" > /dev/null 2>&1 || bad "train xpos failed"
"$ORDO" eval "$dir/x" --context 16,80000 --max-windows 1 --threads 1 > "$dir/out" 2>&1 || bad "eval failed: $(cat "$dir/out")"
grep -q "80000 .*past xpos's range (72520 tokens): its decay zeta^(n/512) of q and k overflows a float" "$dir/out" && ok || bad "no range note: $(cat "$dir/out")"
"$ORDO" eval "$dir/x" --context 80000 --json > "$dir/json" 2>&1
grep -q '"note": "past xpos' "$dir/json" && ok || bad "no range note in the JSON report: $(head -c 600 "$dir/json")"
grep -q "not finite" "$dir/json" && bad "the JSON report says the loss is not finite" || ok
finish test_scheme_range
