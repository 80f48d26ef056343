#!/usr/bin/env bash
# `ordo compare` against the n-gram levels that eval records carry (ngram_loss): the column
# "vs best n-gram" is the lowest level at the training length minus the row's loss there,
# recomputed here from each run's eval/base.json; a row that does not beat the 3-gram (a
# 2-step model cannot) carries § with its footnote; a record without levels (--no-ngram)
# shows "-", and a comparison where no record has them has no such column; compare.csv keeps
# the numbers; the report draws the levels as dashed lines on the loss-by-length and
# loss-by-position plots.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--tokenizer byte --d-model 32 --layers 1 --heads 2 --context 32 --corpus-tokens 8000
      --eval-every 10 --log-every 5 --threads 1)
"$ORDO" train --pos rope --seed 1 "${tiny[@]}" --steps 20 --out "$dir/r" > /dev/null 2>&1 || bad "run r failed"
"$ORDO" train --pos alibi --seed 1 "${tiny[@]}" --steps 2 --out "$dir/t" > /dev/null 2>&1 || bad "run t failed"
"$ORDO" train --pos learned --seed 1 "${tiny[@]}" --steps 20 --out "$dir/n" > /dev/null 2>&1 || bad "run n failed"
for r in r t; do
  "$ORDO" eval "$dir/$r" --context 32,64 --save --threads 1 > /dev/null 2>&1 || bad "eval $r failed"
done
"$ORDO" eval "$dir/n" --context 32 --save --no-ngram --threads 1 > /dev/null 2>&1 || bad "eval n failed"

# what the column should say, from the records: best level - loss at 32, and the mark when
# the loss is not below the 3-gram's
expect() { # <run> -> "+0.1234" or "-0.5678§"
  python3 - "$1/eval/base.json" <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
row = next(r for r in rec["results"] if r["context"] == 32)
levels = [v for v in row["ngram_loss"] if v is not None]
print("%+.4f%s" % (min(levels) - row["val_loss"], "§" if row["val_loss"] >= row["ngram_loss"][2] else ""))
EOF
}
er=$(expect "$dir/r") et=$(expect "$dir/t")
[[ $et == *§ ]] && ok || bad "the 2-step model should not beat the 3-gram: $et"
grep -q '"ngram_loss"' "$dir/n/eval/base.json" && bad "--no-ngram wrote ngram_loss" || ok

"$ORDO" compare "$dir/r" "$dir/t" "$dir/n" --columns ngram --out "$dir/cmp" > "$dir/out.txt" 2> "$dir/err.txt" \
  || bad "compare failed: $(cat "$dir/err.txt")"
sq() { sed 's/  */ /g' "$@"; }
table=$(grep '^|' "$dir/out.txt" | sq)
grep -qF "| scheme | vs n-gram |" <<<"$table" && ok || bad "no n-gram column: $table"
grep -qF "| rope | $er |" <<<"$table" && ok || bad "rope should read $er: $table"
grep -qF "| alibi | $et |" <<<"$table" && ok || bad "alibi should read $et: $table"
grep -qF "| learned | - |" <<<"$table" && ok || bad "a record without levels should read '-': $table"
grep -qF "§ does not beat the 3-gram at the training length" "$dir/out.txt" && ok \
  || bad "no footnote for §: $(cat "$dir/out.txt")"
# the default table has it too, within its width
"$ORDO" compare "$dir/r" "$dir/t" "$dir/n" --out "$dir/cmp" > "$dir/def.txt" 2>&1 || bad "compare (default) failed"
grep -m1 '^| scheme' "$dir/def.txt" | grep -qF "| vs n-gram |" && ok || bad "the default table lacks the column: $(cat "$dir/def.txt")"

# compare.csv: the mean gap, the runs with levels and those not below the 3-gram
python3 - "$dir/cmp/compare.csv" "$dir/r/eval/base.json" <<'EOF' && ok || bad "compare.csv's n-gram columns"
import csv, json, sys
rows = {r["scheme"]: r for r in csv.DictReader(open(sys.argv[1]))}
rec = json.load(open(sys.argv[2]))
row = next(r for r in rec["results"] if r["context"] == 32)
levels = [v for v in row["ngram_loss"] if v is not None]
r = rows["rope"]
assert abs(float(r["below_best_ngram_mean"]) - (min(levels) - row["val_loss"])) < 1e-6, r
assert int(r["ngram_best_order"]) == row["ngram_loss"].index(min(levels)) + 1, r
assert r["ngram_runs"] == "1", r
assert rows["alibi"]["not_below_3gram_runs"] == "1", rows["alibi"]
assert rows["learned"]["ngram_runs"] == "0" and rows["learned"]["below_best_ngram_mean"] == "", rows["learned"]
EOF

# the report: the column, and the levels as dashed lines on both plots
grep -qF "vs best n-gram" "$dir/cmp/report.html" && ok || bad "report.html lacks the column"
for l in "2-gram" "3-gram" "best n-gram"; do
  grep -q "<g class=\"ngram\" data-label=\"$l\"[^>]*stroke-dasharray" "$dir/cmp/extrapolation.svg" && ok \
    || bad "extrapolation.svg has no dashed $l line"
  grep -q "<g class=\"ngram\" data-label=\"$l at T\"[^>]*stroke-dasharray" "$dir/cmp/loss_by_position.svg" && ok \
    || bad "loss_by_position.svg has no dashed $l line"
done
[ "$(grep -c 'class="ngram"' "$dir/cmp/report.html")" = 6 ] && ok || bad "report.html should inline the 6 n-gram lines"
if command -v xmllint > /dev/null 2>&1; then
  xmllint --noout "$dir/cmp/report.html" "$dir/cmp/extrapolation.svg" "$dir/cmp/loss_by_position.svg" \
    && ok || bad "the report does not parse"
fi

# no record with levels: neither the column nor the lines
"$ORDO" compare "$dir/n" --out "$dir/cmp2" > "$dir/out2.txt" 2>&1 || bad "compare n failed"
grep -q "n-gram" "$dir/out2.txt" && bad "an n-gram column without levels: $(cat "$dir/out2.txt")" || ok
grep -q 'class="ngram"' "$dir/cmp2/report.html" && bad "n-gram lines without levels" || ok
finish
