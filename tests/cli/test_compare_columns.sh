#!/usr/bin/env bash
# `ordo compare`'s table through the CLI: a resumed run that changed --steps
# is a row of its own whose "differs in" cell and label say "resumed 10->20", never the lr
# plan's JSON (which compare.md's notes and compare.csv keep in full); the default table fits
# 120 columns; n/a reasons are one footnote; --columns picks columns in its order, --wide
# gives the long form, and bad column lists are refused naming the valid names.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--tokenizer byte --d-model 32 --layers 1 --heads 2 --context 32 --corpus-tokens 8000
      --eval-every 10 --log-every 5 --threads 1)
"$ORDO" train --pos learned --seed 1 "${tiny[@]}" --steps 20 --out "$dir/a" > /dev/null 2>&1 || bad "run a failed"
"$ORDO" train --pos learned --seed 2 "${tiny[@]}" --steps 10 --out "$dir/b" > /dev/null 2>&1 || bad "run b failed"
"$ORDO" train --resume "$dir/b" --steps 20 --threads 1 > /dev/null 2>&1 || bad "resuming b to 20 steps failed"
"$ORDO" train --pos sinusoidal --seed 1 "${tiny[@]}" --steps 20 --out "$dir/s" > /dev/null 2>&1 || bad "run s failed"
for r in a b s; do
  "$ORDO" eval "$dir/$r" --context 32,64,128,256 --save --threads 1 > /dev/null 2>&1 || bad "eval $r failed"
done
grep -q '"history"' "$dir/b/config.json" && ok || bad "the resumed run records no lr plan history"

"$ORDO" compare "$dir/a" "$dir/b" "$dir/s" --out "$dir/cmp" > "$dir/out.txt" 2> "$dir/err.txt" \
  || bad "compare failed: $(cat "$dir/err.txt")"
sq() { sed 's/  */ /g' "$@"; }
table=$(grep '^|' "$dir/out.txt")
sq <<<"$table" | grep -qF "| learned | 1 | resumed 10->20 |" && ok || bad "no 'resumed 10->20' row: $table"
sq <<<"$table" | grep -qF "| learned | 1 | - |" && ok || bad "the run at the usual settings should say '-': $table"
grep -qE '[{}]|at_step|steps_before' <<<"$table" && bad "JSON in the table: $table" || ok
grep -q "at_step" "$dir/cmp/compare.md" && ok || bad "compare.md's notes lack the full resume history"
grep -qF "The settings each row differs in, in full:" "$dir/cmp/compare.md" && ok || bad "compare.md lacks the full differs list"
awk -F, 'NR > 1 && $1 == "learned [resumed 10->20]" { f = 1 } END { exit !f }' "$dir/cmp/compare.csv" \
  && ok || bad "compare.csv: no row labelled 'learned [resumed 10->20]': $(cut -d, -f1 "$dir/cmp/compare.csv")"
grep -q 'at_step' "$dir/cmp/compare.csv" && ok || bad "compare.csv's differs should keep the full value"
grep -q 'data-label="learned \[resumed 10-&gt;20\] (T=32)"' "$dir/cmp/loss_by_position.svg" && ok || bad "the plot legend lacks the short label"
# 120 columns (characters: UTF-8 bytes that do not continue one)
w=$(LC_ALL=C sed 's/[\x80-\xbf]//g' <<<"$table" | LC_ALL=C awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }')
[ "$w" -le 120 ] && ok || bad "the table is $w columns wide"
# the learned table's end: n/a¹ in the cells, the reason once
[ "$(grep -c 'past the learned table' "$dir/out.txt")" = 1 ] && grep -qF "n/a¹ past the learned table (T_max 32)" "$dir/out.txt" \
  && ok || bad "the n/a reason should be one footnote: $(cat "$dir/out.txt")"
# the train loss says which it is
grep -qF "train loss (last batch)" "$dir/cmp/report.html" && ok || bad "report.html: the train loss is not labelled as the last batch's"

# --columns: the scheme first, then the list in its order; --wide: the long form
"$ORDO" compare "$dir/a" "$dir/b" "$dir/s" --columns 8x,seeds,train --out "$dir/c2" > "$dir/c2.txt" 2>&1 || bad "--columns failed: $(cat "$dir/c2.txt")"
head=$(grep -m1 '^| scheme' "$dir/c2.txt" | sq)
[ "$head" = "| scheme | loss@8x T=256 | seeds | train loss (last batch) |" ] && ok || bad "--columns 8x,seeds,train gave: $head"
"$ORDO" compare "$dir/a" "$dir/b" "$dir/s" --wide --out "$dir/c3" > "$dir/c3.txt" 2>&1 || bad "--wide failed"
grep -m1 '^| scheme' "$dir/c3.txt" | sq | grep -qF "| params | embedding | differs in | variant | train loss (last batch) | best val loss | val ppl | vs unigram level | vs best n-gram | tokens/s |" \
  && ok || bad "--wide lacks columns: $(grep -m1 '^| scheme' "$dir/c3.txt")"
grep -qF "loss@8x (T=256, " "$dir/c3.txt" && ok || bad "--wide headers should give the windows"
expect_err() { # <pattern> <args...>
  local pat=$1; shift
  out=$("$ORDO" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -qF -- "$pat" <<<"$out"; then bad "ordo $*: rc $rc, output: $out"; else ok; fi
}
expect_err "unknown column 'x9'; the columns are scheme,seeds,params,embedding,differs,variant,train,val,ppl,unigram,ngram,tps,time,Nx (the loss at N times the training length: 1x, 8x, 32x, ...),order" \
  compare "$dir/a" --columns seeds,x9 --out "$dir/c4"
expect_err "unknown column ''" compare "$dir/a" --columns seeds, --out "$dir/c4"
expect_err "give it or --columns, not both" compare "$dir/a" --wide --columns seeds --out "$dir/c4"
expect_err "--reference rope names no single row; the rows are 'learned', 'learned [resumed 10->20]', 'sinusoidal'" \
  compare "$dir/a" "$dir/b" "$dir/s" --reference rope --out "$dir/c4"
[ -e "$dir/c4" ] && bad "a refused compare wrote $dir/c4" || ok

# the length columns are the multiples the records hold: a 32x result (the 8x one's numbers,
# moved to 1024 by hand, as an eval at 32x would write it) is a column of the table and of
# compare.csv, --columns takes it, and a multiple no record holds is a column only when asked
for r in a s; do
  python3 - "$dir/$r/eval/base.json" <<'PY' || bad "editing $r's record failed"
import json, sys
p = sys.argv[1]
j = json.load(open(p))
r8 = next(r for r in j["results"] if r["context"] == 256)
r32 = dict(r8, context=1024)
r32.pop("loss_by_position", None)
j["results"].append(r32)
json.dump(j, open(p, "w"), indent=1)
PY
done
"$ORDO" compare "$dir/a" "$dir/s" --out "$dir/c32" > "$dir/c32.txt" 2>&1 || bad "compare with 32x failed: $(cat "$dir/c32.txt")"
grep -m1 '^| scheme' "$dir/c32.txt" | grep -qF "| loss@32x T=1024 |" && ok || bad "no 32x column: $(grep -m1 '^| scheme' "$dir/c32.txt")"
w=$(grep '^|' "$dir/c32.txt" | LC_ALL=C sed 's/[\x80-\xbf]//g' | LC_ALL=C awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }')
[ "$w" -le 120 ] && ok || bad "the table with 32x is $w columns wide"
head -1 "$dir/c32/compare.csv" | grep -q ',loss_32x_mean,loss_32x_sd,loss_32x_n,loss_32x_note,loss_32x_windows,' \
  && ok || bad "compare.csv lacks loss_32x: $(head -1 "$dir/c32/compare.csv")"
head -1 "$dir/c32/compare.csv" | grep -q 'loss_3x\|loss_16x' && bad "compare.csv has a length no record holds" || ok
"$ORDO" compare "$dir/a" "$dir/s" --columns 32x,3x --out "$dir/c33" > "$dir/c33.txt" 2>&1 || bad "--columns 32x,3x failed: $(cat "$dir/c33.txt")"
head=$(grep -m1 '^| scheme' "$dir/c33.txt" | sq)
[ "$head" = "| scheme | loss@32x T=1024 | loss@3x T=96 |" ] && ok || bad "--columns 32x,3x gave: $head"
grep -m1 '^| sinusoidal' "$dir/c33.txt" | sq | grep -qE '^\| sinusoidal \| [0-9.]+[^ |]* \| - \|$' \
  && ok || bad "3x should be '-': $(grep -m1 '^| sinusoidal' "$dir/c33.txt")"
finish
