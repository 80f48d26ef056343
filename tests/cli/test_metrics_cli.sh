#!/usr/bin/env bash
# metrics.jsonl and eval.json through the real CLI:
# 1. a run forced to diverge (--lr 9.9, constant, no clipping) writes null for every value
#    that is not finite, so that each line is valid JSON; `ordo compare` reads it, says so
#    under the table, shows inf where a cell is not finite and a gap in the curve;
# 2. the bare inf/nan that older versions wrote still load; eval.json with nulls compares;
# 3. --resume repairs a metrics.jsonl whose last line was cut short (or that holds a line that
#    is not JSON), with a warning, and the resumed run's log is complete: every step once, in
#    order, the same losses as a run never interrupted.
set -u
. "$(dirname "$0")/../lib.sh"
command -v xmllint > /dev/null || { echo "FAIL: xmllint missing (Debian libxml2-utils)"; echo "0 passed, 1 failed"; exit 1; }

# json_lines FILE: 0 when every line of FILE is a JSON object ending in a newline
json_lines() {
  [ -s "$1" ] && [ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
  if command -v python3 > /dev/null; then
    python3 -c 'import json,sys
for l in open(sys.argv[1]): assert isinstance(json.loads(l), dict)' "$1" 2> /dev/null
  else
    node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").trimEnd().split("\n"))
               if (typeof JSON.parse(l) !== "object") process.exit(1)' "$1" 2> /dev/null
  fi
}
# steps FILE: the "step" of each line, space-separated
steps() { sed 's/^{"step":\([0-9]*\),.*/\1/' "$1" | tr '\n' ' '; }
# lines without the timing fields, which cannot repeat
untimed() { sed 's/,"tokens_per_s":[^}]*//' "$1"; }
# polylines of the series of run $2 in group class $3 of SVG $1
polylines() {
  xmllint --xpath "count(//*[local-name()='g'][@class='$3'][@data-label='$2']/*[local-name()='polyline'])" "$1" 2> /dev/null
}

tiny=(--task order --corpus-tokens 3000 --context 16 --heads 2 --layers 1 --batch 4 --threads 1)

# --- 1. a diverging run
"$ORDO" train "${tiny[@]}" --d-model 64 --steps 30 --eval-every 1 --log-every 1 --ckpt-every 1 \
  --keep 2 --lr 9.9 --schedule constant --warmup 0 --clip 0 --out "$dir/div" > "$dir/div.log" 2>&1; rc=$?
# it finishes, or its NaN guard stops it (status 1) without checkpointing the bad step
if [ $rc -ne 0 ] && ! grep -q "stopped without writing a checkpoint" "$dir/div.log"; then
  bad "diverging run: status $rc: $(tail -2 "$dir/div.log")"
fi
json_lines "$dir/div/metrics.jsonl" && ok || bad "diverging run: metrics.jsonl is not valid JSON lines: $(grep -m1 -E 'inf|nan' "$dir/div/metrics.jsonl")"
grep -q ':null' "$dir/div/metrics.jsonl" && ok || bad "diverging run: no value was logged as null (did it diverge?)"
grep -qiE ':-?(inf|nan)' "$dir/div/metrics.jsonl" && bad "diverging run: a bare inf/nan in metrics.jsonl" || ok
first=$(grep -m1 ':null' "$dir/div/metrics.jsonl" | sed 's/^{"step":\([0-9]*\),.*/\1/')
"$ORDO" compare "$dir/div" --out "$dir/c1" > "$dir/c1.txt" 2>&1 && ok || bad "compare on a diverged run: $(tail -2 "$dir/c1.txt")"
grep -qF "div: values that were not finite (null in metrics.jsonl) first at step $first: the run diverged" "$dir/c1/compare.md" \
  && ok || bad "compare.md does not say where the run diverged: $(tail -3 "$dir/c1/compare.md")"
grep -qF "first at step $first: the run diverged" "$dir/c1/report.html" && ok || bad "report.html does not say where the run diverged"
for f in report.html loss_curves.svg; do
  xmllint --noout "$dir/c1/$f" 2> /dev/null && ok || bad "$f is not well-formed after a diverged run"
done

# every val loss null: the table says inf; one null in the middle: a gap in the val curve
cp -r "$dir/div" "$dir/allnull"
sed -i 's/"val_loss":[^,]*,/"val_loss":null,/' "$dir/allnull/metrics.jsonl"
cp -r "$dir/div" "$dir/gap"
n=$(wc -l < "$dir/gap/metrics.jsonl")
sed -i "s/\"val_loss\":[^,]*,\"val_ppl\":[^,]*,/\"val_loss\":1.5,\"val_ppl\":4.48,/; $((n / 2))s/\"val_loss\":[^,]*,/\"val_loss\":null,/" "$dir/gap/metrics.jsonl"
# the wide table (every column), its padding squeezed
sq() { sed 's/  */ /g' "$@"; }
"$ORDO" compare "$dir/allnull" --wide --out "$dir/c2" > "$dir/c2.txt" 2>&1 && ok || bad "compare, every val loss null: $(tail -2 "$dir/c2.txt")"
sq "$dir/c2/compare.md" | grep -q '^| learned | 1 | [0-9]* | [^|]* | [^|]* | inf | inf |' && ok || bad "compare.md: best val loss and ppl of a run whose every val loss is null should be inf: $(grep '^| learned' "$dir/c2/compare.md")"
"$ORDO" compare "$dir/gap" --wide --out "$dir/c3" > "$dir/c3.txt" 2>&1 && ok || bad "compare, a null in the middle: $(tail -2 "$dir/c3.txt")"
[ "$(polylines "$dir/c3/loss_curves.svg" gap 'run val')" = 2 ] && ok || bad "a null val loss in the middle should split the val curve in two, got $(polylines "$dir/c3/loss_curves.svg" gap 'run val') polylines"
sq "$dir/c3/compare.md" | grep -q '^| learned | 1 | [0-9]* | [^|]* | [^|]* | 1.5000 ± - | 4.480 ± - |' && ok || bad "compare.md: the best val loss skips the null: $(grep '^| learned' "$dir/c3/compare.md")"

# --- 2. the bare inf / nan of older versions, and eval.json with nulls
cp -r "$dir/div" "$dir/legacy"
sed -i 's/"val_ppl":null/"val_ppl":inf/; s/"val_loss":null/"val_loss":-nan/' "$dir/legacy/metrics.jsonl"
grep -q ':inf' "$dir/legacy/metrics.jsonl" || bad "legacy fixture has no inf"
"$ORDO" compare "$dir/legacy" --out "$dir/c4" > "$dir/c4.txt" 2>&1 && ok || bad "compare on a log with bare inf (older ordo): $(tail -2 "$dir/c4.txt")"
cmp -s "$dir/c1/compare.csv" "$dir/c4/compare.csv" && ok || bad "bare inf/nan should read as null does"

"$ORDO" eval "$dir/div" --save > "$dir/eval.txt" 2>&1 && ok || bad "eval on a diverged run: $(tail -2 "$dir/eval.txt")"
if command -v python3 > /dev/null; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/div/eval.json" && ok || bad "eval.json is not valid JSON"
fi
grep -qiE '[^a-z_"](inf|nan)[^a-z]' "$dir/div/eval.json" && bad "eval.json holds a bare inf/nan" || ok
# a perplexity that overflows is shown as inf in the table, not as 0
if grep -q '"val_ppl": null' "$dir/div/eval.json"; then
  grep -qE '^ +16 +[0-9.]+ +inf ' "$dir/eval.txt" && ok || bad "eval table: an overflowing perplexity should print inf: $(sed -n 3p "$dir/eval.txt")"
fi
# an eval.json whose losses are null (written by hand as ordo writes a non-finite loss)
sed -i 's/"val_loss": [-0-9.e+]*/"val_loss": null/; s/"order_loss": [-0-9.e+]*/"order_loss": null/' "$dir/div/eval.json"
awk 'f == 1 { sub(/[-0-9.e+]+/, "null"); f = 2 } /"loss_by_position": \[/ && !f { f = 1 } { print }' \
  "$dir/div/eval.json" > "$dir/eval.tmp" && mv "$dir/eval.tmp" "$dir/div/eval.json"
grep -q '"val_loss": null' "$dir/div/eval.json" || bad "eval.json fixture has no null"
cp "$dir/div/eval.json" "$dir/div/eval/base.json" # the record compare reads (eval.json: its copy)
"$ORDO" compare "$dir/div" --wide --out "$dir/c5" > "$dir/c5.txt" 2>&1 && ok || bad "compare with an eval.json of nulls: $(tail -2 "$dir/c5.txt")"
sq "$dir/c5/compare.md" | grep -q '^| learned .* | n/a¹ |$' && grep -q '^n/a¹ null in eval.json' "$dir/c5/compare.md" && ok || bad "compare.md: loss@1x of an eval.json null: $(grep '^| learned' "$dir/c5/compare.md")"
for f in report.html extrapolation.svg loss_by_position.svg; do
  xmllint --noout "$dir/c5/$f" 2> /dev/null && ok || bad "$f not well-formed with eval.json nulls"
done

# --- 3. a torn or damaged log is repaired on --resume, and the resumed log is complete
run=("${tiny[@]}" --d-model 16 --steps 8 --eval-every 4 --log-every 1 --ckpt-every 3)
"$ORDO" train "${run[@]}" --out "$dir/ref" > /dev/null 2>&1 || bad "reference run failed"
"$ORDO" train "${run[@]}" --stop-after 3 --out "$dir/torn" > /dev/null 2>&1
[ "$(steps "$dir/torn/metrics.jsonl")" = "1 2 3 " ] || bad "stopped run: steps $(steps "$dir/torn/metrics.jsonl")"
# a process killed while it wrote line 4 (or a full disk under an older version)
sed -n 4p "$dir/ref/metrics.jsonl" | head -c 25 >> "$dir/torn/metrics.jsonl"
cp -r "$dir/torn" "$dir/damaged"
head -c 25 "$dir/ref/metrics.jsonl" > "$dir/half"; echo >> "$dir/half"
sed -i "2r $dir/half" "$dir/damaged/metrics.jsonl" # a line that is not JSON, after line 2
"$ORDO" train --resume "$dir/torn" > /dev/null 2> "$dir/torn.err"; rc=$?
[ $rc -eq 0 ] && ok || bad "resume of a torn log: status $rc: $(tail -2 "$dir/torn.err")"
grep -qF "ordo: warning: $dir/torn/metrics.jsonl: repaired: removed 1 damaged line(s); line 4 was cut short" "$dir/torn.err" \
  && ok || bad "resume of a torn log: no warning naming the line: $(cat "$dir/torn.err")"
"$ORDO" train --resume "$dir/damaged" > /dev/null 2> "$dir/damaged.err"; rc=$?
[ $rc -eq 0 ] && ok || bad "resume of a damaged log: status $rc: $(tail -2 "$dir/damaged.err")"
grep -qF "removed 2 damaged line(s); line 3 was not a JSON object" "$dir/damaged.err" \
  && ok || bad "resume of a damaged log: no warning naming the line: $(cat "$dir/damaged.err")"
for r in torn damaged; do
  json_lines "$dir/$r/metrics.jsonl" && ok || bad "$r: the resumed log is not valid JSON lines"
  [ "$(steps "$dir/$r/metrics.jsonl")" = "1 2 3 4 5 6 7 8 " ] && ok || bad "$r: resumed log has steps $(steps "$dir/$r/metrics.jsonl")"
  cmp -s <(untimed "$dir/ref/metrics.jsonl") <(untimed "$dir/$r/metrics.jsonl") && ok || bad "$r: resumed log differs from the uninterrupted run's"
  ls "$dir/$r" | grep -q '\.tmp\.' && bad "$r: a temporary file was left" || ok
done

finish
