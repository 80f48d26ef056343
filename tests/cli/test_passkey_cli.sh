#!/usr/bin/env bash
# --task passkey end to end: a tiny byte model trained a few steps on the built-in passkey
# corpus (no download); `ordo eval` prints the length x depth table, and its --json and
# eval.json hold accuracy[length][depth] with the marginals (docs/guide.md, "Scoring a run");
# the same seed gives the same data; `ordo data` shows the template with only the key scored.
set -u
. "$(dirname "$0")/../lib.sh"

run="$dir/pk"
"$ORDO" train --task passkey --tokenizer byte --context 128 --d-model 32 --layers 1 --heads 2 \
  --batch 8 --steps 5 --corpus-tokens 20000 --threads 1 --pos rope --out "$run" \
  >"$dir/train.log" 2>&1 && ok || bad "train: $(tail -3 "$dir/train.log")"

out=$("$ORDO" data --task passkey --tokenizer byte --context 128 --batch 2 --batches 1 \
  --corpus-tokens 2000 2>&1)
grep -q 'The pass key is [0-9]\{5\}\. Remember it\. [0-9]\{5\} is the pass key\.' <<<"$out" &&
  ok || bad "data: no needle in $(head -20 <<<"$out")"
grep -q 'target _*" [0-9]\{5\}"_*$' <<<"$out" && ok || bad "data: the target is not the key alone"
again=$("$ORDO" data --task passkey --tokenizer byte --context 128 --batch 2 --batches 1 \
  --corpus-tokens 2000 2>&1)
[ "$out" = "$again" ] && ok || bad "data: not deterministic"

tab=$("$ORDO" eval "$run" --context 128,256 --examples 8 --depths 0,0.5,1 --threads 1 --save 2>&1)
grep -q 'passkey retrieval (exact match of the 5-digit key, 8 examples per cell' <<<"$tab" &&
  ok || bad "eval: no passkey table: $tab"
grep -qE '^ +length +d=0\.00 +d=0\.50 +d=1\.00 +all$' <<<"$tab" && ok || bad "eval: header: $tab"
grep -qE '^ +256( +[01]\.[0-9]{3}){4}$' <<<"$tab" && ok || bad "eval: row 256: $tab"

check_json() { # FILE: accuracy with 2 lengths x 3 depths, each in [0, 1], marginals
  python3 - "$1" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["accuracy"]
assert a["task"] == "passkey" and a["digits"] == 5 and a["examples"] == 8, a
assert a["depths"] == [0, 0.5, 1], a["depths"]
rows = a["by_length"]
assert [r["length"] for r in rows] == [128, 256], rows
for r in rows:
    assert len(r["by_depth"]) == 3 and all(0 <= x <= 1 for x in r["by_depth"]), r
    assert abs(r["exact_match"] - sum(r["by_depth"]) / 3) < 1e-9, r
assert [d["depth"] for d in a["by_depth"]] == [0, 0.5, 1], a["by_depth"]
for j, d in enumerate(a["by_depth"]):
    assert abs(d["exact_match"] - (rows[0]["by_depth"][j] + rows[1]["by_depth"][j]) / 2) < 1e-9
PY
}
check_json "$run/eval.json" && ok || bad "eval.json"
"$ORDO" eval "$run" --context 128,256 --examples 8 --depths 0,0.5,1 --threads 1 --json \
  >"$dir/eval.json" 2>/dev/null && check_json "$dir/eval.json" && ok || bad "eval --json"
cmp -s <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["accuracy"], sort_keys=True))' "$dir/eval.json") \
  <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["accuracy"], sort_keys=True))' "$run/eval.json") &&
  ok || bad "eval: --json and the saved record differ"

# viz draws the saved grid; compare's report has a heatmap per row (cells: 2 lengths x 3 depths)
"$ORDO" viz "$run" --threads 1 >/dev/null 2>&1 && [ -s "$run/viz/passkey.svg" ] &&
  [ "$(grep -o '<rect[^>]*stroke="#ffffff"' "$run/viz/passkey.svg" | wc -l)" -eq 6 ] &&
  ok || bad "viz: no passkey.svg with 6 cells"
"$ORDO" compare "$run" --out "$dir/cmp" >"$dir/cmp.txt" 2>&1 && [ -s "$dir/cmp/passkey-1.svg" ] &&
  grep -q 'Passkey retrieval by length and depth' "$dir/cmp/report.html" &&
  ok || bad "compare: no passkey heatmap"
# the table's length columns are the exact match at each length, and say so (the loss there
# would tell nothing about retrieval): the record's mean over depths, in compare.csv too
grep -m1 '^| scheme' "$dir/cmp.txt" | grep -qF '| exact@1x T=128 | exact@2x T=256 |' &&
  ! grep -m1 '^| scheme' "$dir/cmp.txt" | grep -q 'loss@' && ok ||
  bad "compare: passkey columns should be exact match: $(grep -m1 '^| scheme' "$dir/cmp.txt")"
python3 - "$run/eval.json" "$dir/cmp/compare.csv" "$dir/cmp.txt" <<'PY' && ok || bad "compare: exact match cells"
import csv, json, sys
acc = {r["length"]: r["exact_match"] for r in json.load(open(sys.argv[1]))["accuracy"]["by_length"]}
row = next(csv.DictReader(open(sys.argv[2])))
for m, n in ((1, 128), (2, 256)):
    assert abs(float(row[f"exact_match_{m}x_mean"]) - acc[n]) < 1e-9, (row, acc)
    assert "loss_%dx_mean" % m not in row, row
cells = [c.strip() for c in next(l for l in open(sys.argv[3]) if l.startswith("| rope")).split("|")]
assert f"{acc[128]:.4f}" in cells and f"{acc[256]:.4f}" in cells, (cells, acc)
PY
grep -qF 'exact match@1x (T=128)' "$dir/cmp/report.html" && ok || bad "report.html: no exact match header"

# sweep passes --depths to each run's eval (and refuses it for another task)
"$ORDO" sweep --task passkey --tokenizer byte --context 128 --d-model 32 --layers 1 --heads 2 \
  --batch 8 --steps 3 --corpus-tokens 20000 --threads 1 --pos rope --seeds 1 --eval-lengths 1 \
  --examples 4 --depths 0.25,0.75 --progress off --out "$dir/sw" >"$dir/sweep.log" 2>&1 &&
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["accuracy"]; assert a["depths"] == [0.25, 0.75], a' \
    "$dir/sw/rope-s1/eval.json" && ok || bad "sweep --depths: $(tail -3 "$dir/sweep.log")"
err=$("$ORDO" sweep --task copy --pos rope --seeds 1 --steps 1 --depths 0.5 --out "$dir/sw2" 2>&1)
[ $? -ne 0 ] && grep -q "depths '0.5' applies to --task passkey" <<<"$err" &&
  ok || bad "sweep --depths with copy: $err"

finish test_passkey_cli
