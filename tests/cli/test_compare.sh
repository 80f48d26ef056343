#!/usr/bin/env bash
# `ordo compare` through the CLI on three tiny runs (learned x2 seeds, sinusoidal x1) plus
# hand-written eval.json files: every number of compare.csv equals what this script computes
# on its own from the runs' metrics.jsonl / eval.json (mean, sample sd); the SVGs and
# report.html parse as XML and hold exactly one series per run; output is deterministic;
# the token-embedding convention is shown, and runs that differ in it are not pooled;
# a list of run dirs gives the same table as the sweep dir; bad input is refused clearly.
# Trust the comparison: runs pool only when every setting but the seed agrees
# (else separate rows naming the keys), the data by its recorded hash; a run at the unigram
# level is flagged; windows per eval length are shown and few-window cells marked; the loss
# on order-dependent tokens is a column of the terminal table and the report.
set -u
. "$(dirname "$0")/../lib.sh"
command -v xmllint > /dev/null || { echo "FAIL: xmllint missing (Debian libxml2-utils)"; echo "0 passed, 1 failed"; exit 1; }

tiny=(--d-model 16 --layers 1 --heads 2 --context 16 --steps 20 --corpus-tokens 5000
      --eval-every 10 --log-every 5 --threads 1)
sw=$dir/sweep
for r in learned:1 learned:2 sinusoidal:1; do
  p=${r%:*} s=${r#*:}
  "$ORDO" train --pos "$p" --seed "$s" "${tiny[@]}" --out "$sw/$p-s$s" > "$dir/$p-s$s.log" 2>&1 \
    || bad "training $p-s$s failed: $(tail -2 "$dir/$p-s$s.log")"
done
echo '{"runs": ["learned-s1", "learned-s2", "sinusoidal-s1"]}' > "$sw/sweep.json"
cat > "$sw/learned-s1/eval.json" <<'EOF'
{"run": "learned-s1", "step": 20, "pos": "learned", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 2.25, "val_ppl": 9.49, "targets": 100, "windows": 6, "loss_by_position": [2.5, 2.0]},
             {"context": 32, "val_loss": null, "note": "past the learned table (T_max 16)"},
             {"context": 64, "val_loss": null, "note": "past the learned table (T_max 16)"}]}
EOF
cat > "$sw/learned-s2/eval.json" <<'EOF'
{"run": "learned-s2", "step": 20, "pos": "learned", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 2.75}, {"context": 32, "val_loss": null, "note": "past the learned table (T_max 16)"}]}
EOF
cat > "$sw/sinusoidal-s1/eval.json" <<'EOF'
{"run": "sinusoidal-s1", "step": 20, "pos": "sinusoidal", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 2.5}, {"context": 32, "val_loss": 3.0}, {"context": 64, "val_loss": 3.75}, {"context": 128, "val_loss": 5.0}]}
EOF

# the table's columns are padded: sq squeezes the padding before a grep
sq() { sed 's/  */ /g' "$@"; }
"$ORDO" compare "$sw" > "$dir/out.txt" 2> "$dir/err.txt" && ok || bad "compare failed: $(cat "$dir/err.txt")"
for f in compare.md compare.csv loss_curves.svg extrapolation.svg report.html; do
  [ -s "$sw/$f" ] && ok || bad "compare did not write $f"
done
sq "$dir/out.txt" | grep -qF "| learned | 2 |" && ok || bad "stdout lacks the Markdown row of learned"
grep -qF "$(sed -n 3p "$sw/compare.md")" "$dir/out.txt" && ok || bad "stdout is not compare.md's table"

# --- the numbers, computed here from the run dirs
num() { sed -n "s/.*\"$2\":\([-0-9.e+]*\).*/\1/p" <<<"$1"; }
# per run: final train loss, best val loss, its val_ppl, mean tokens/s, derived time (s)
run_stats() { # <run dir>
  local batch context
  batch=$(sed -n 's/.*"batch": *\([0-9]*\).*/\1/p' "$1/config.json")
  context=$(sed -n 's/.*"context": *\([0-9]*\).*/\1/p' "$1/config.json")
  awk -v B="$batch" -v T="$context" '
    { step = tl = vl = vp = tp = ""
      if (match($0, /"step":[-0-9.e+]+/)) step = substr($0, RSTART + 7, RLENGTH - 7) + 0
      if (match($0, /"train_loss":[-0-9.e+]+/)) tl = substr($0, RSTART + 13, RLENGTH - 13) + 0
      if (match($0, /"val_loss":[-0-9.e+]+/)) vl = substr($0, RSTART + 11, RLENGTH - 11) + 0
      if (match($0, /"val_ppl":[-0-9.e+]+/)) vp = substr($0, RSTART + 10, RLENGTH - 10) + 0
      if (match($0, /"tokens_per_s":[-0-9.e+]+/)) tp = substr($0, RSTART + 15, RLENGTH - 15) + 0
      final = tl
      if (vl != "" && (best == "" || vl < best)) { best = vl; ppl = vp }
      if (tp != "") { tsum += tp; tn++; wall += (step - prev) * B * T / tp }
      # the wall time: the last elapsed_s when training logs it, else derived from tokens/s
      if (match($0, /"elapsed_s":[-0-9.e+]+/)) elapsed = substr($0, RSTART + 12, RLENGTH - 12) + 0
      prev = step }
    END { printf "%.10g %.10g %.10g %.10g %.10g\n", final, best, ppl, tsum / tn, (elapsed != "" ? elapsed : wall) }' "$1/metrics.jsonl"
}
# mean and sample sd of the arguments
mean_sd() { printf '%s\n' "$@" | awk '{ v[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) q += (v[i] - m)^2; printf "%.10g %.10g\n", m, (NR > 1 ? sqrt(q / (NR - 1)) : -1) }'; }
# a cell of compare.csv: <file> <scheme> <column name>
csv() { awk -F, -v s="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $1 == s { print $(col[c]) }' "$1"; }
close() { # <what> <got> <want>
  awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-6 + 1e-6 * m) }' \
    && ok || bad "$1: compare.csv has '$2', expected $3"
}
read -r l1_tl l1_vl l1_pp l1_tp l1_w <<<"$(run_stats "$sw/learned-s1")"
read -r l2_tl l2_vl l2_pp l2_tp l2_w <<<"$(run_stats "$sw/learned-s2")"
read -r s1_tl s1_vl s1_pp s1_tp s1_w <<<"$(run_stats "$sw/sinusoidal-s1")"
check_stat() { # <scheme> <csv key> <values...>
  local scheme=$1 key=$2; shift 2
  read -r m sd <<<"$(mean_sd "$@")"
  close "$scheme $key mean" "$(csv "$sw/compare.csv" "$scheme" "${key}_mean")" "$m"
  if [ $# -gt 1 ]; then close "$scheme $key sd" "$(csv "$sw/compare.csv" "$scheme" "${key}_sd")" "$sd"
  else [ -z "$(csv "$sw/compare.csv" "$scheme" "${key}_sd")" ] && ok || bad "$scheme $key: one seed must have no sd"; fi
  [ "$(csv "$sw/compare.csv" "$scheme" "${key}_n")" = "$#" ] && ok || bad "$scheme $key: n is not $#"
}
check_stat learned final_train_loss "$l1_tl" "$l2_tl"
check_stat learned best_val_loss "$l1_vl" "$l2_vl"
check_stat learned best_val_ppl "$l1_pp" "$l2_pp"
check_stat learned tokens_per_s "$l1_tp" "$l2_tp"
check_stat learned wall_s "$l1_w" "$l2_w"
check_stat sinusoidal final_train_loss "$s1_tl"
check_stat sinusoidal best_val_loss "$s1_vl"
check_stat sinusoidal tokens_per_s "$s1_tp"
check_stat learned loss_1x 2.25 2.75
check_stat sinusoidal loss_1x 2.5
check_stat sinusoidal loss_2x 3.0
check_stat sinusoidal loss_8x 5.0
[ "$(csv "$sw/compare.csv" learned loss_2x_note)" = "past the learned table (T_max 16)" ] && ok || bad "learned 2x: no reason for n/a"
[ "$(csv "$sw/compare.csv" learned loss_8x_n)" = 0 ] && [ -z "$(csv "$sw/compare.csv" learned loss_8x_note)" ] && ok || bad "learned 8x: absent length must be '-' (no value, no note)"
grep -q "n/a¹ past the learned table (T_max 16)" "$sw/compare.md" && ok || bad "compare.md lacks the n/a reason"
# parameters: the count ordo train printed when it started
for r in learned-s1 sinusoidal-s1; do
  want=$(sed -n 's/.*position, \([0-9]*\) parameters.*/\1/p' "$dir/$r.log")
  [ "$(csv "$sw/compare.csv" "${r%-s1}" params)" = "$want" ] && ok || bad "$r params: csv $(csv "$sw/compare.csv" "${r%-s1}" params), train said $want"
done

# --- well-formed files, one series per run
for f in loss_curves.svg extrapolation.svg report.html; do
  xmllint --noout "$sw/$f" 2> "$dir/xml.txt" && ok || bad "$f is not well-formed: $(head -3 "$dir/xml.txt")"
done
xmllint --html --noout "$sw/report.html" 2> "$dir/xml.txt" && ok || bad "report.html fails the HTML parser: $(head -3 "$dir/xml.txt")"
count() { grep -o "class=\"$2\"" "$1" | wc -l; }
[ "$(count "$sw/loss_curves.svg" "run train")" = 3 ] && ok || bad "loss_curves.svg: $(count "$sw/loss_curves.svg" "run train") train series, expected 3 runs"
[ "$(count "$sw/loss_curves.svg" "run val")" = 3 ] && ok || bad "loss_curves.svg: val series per run"
[ "$(count "$sw/loss_curves.svg" "mean train")" = 2 ] && ok || bad "loss_curves.svg: one mean per scheme"
[ "$(count "$sw/extrapolation.svg" "run eval")" = 3 ] && ok || bad "extrapolation.svg: $(count "$sw/extrapolation.svg" "run eval") run series, expected 3"
[ "$(count "$sw/extrapolation.svg" "mean eval")" = 2 ] && ok || bad "extrapolation.svg: one series per scheme"
[ "$(count "$sw/report.html" "run train")" = 3 ] && [ "$(count "$sw/report.html" "run eval")" = 3 ] && ok || bad "report.html does not inline the plots"
for r in learned-s1 learned-s2 sinusoidal-s1; do
  grep -q "data-label=\"$r\"" "$sw/loss_curves.svg" && ok || bad "no series labelled $r"
done
# only learned-s1's eval.json has loss_by_position: one run series, one scheme mean
xmllint --noout "$sw/loss_by_position.svg" 2> /dev/null && ok || bad "loss_by_position.svg missing or not well-formed"
[ "$(count "$sw/loss_by_position.svg" "run pos")" = 1 ] && [ "$(count "$sw/loss_by_position.svg" "mean pos")" = 1 ] && ok || bad "loss_by_position.svg: one series per run that has loss_by_position"
[ -e "$sw/accuracy.svg" ] && bad "accuracy.svg without any accuracy in eval.json" || ok
grep -Eq '(src|href)="(https?:)?//' "$sw/report.html" && bad "report.html references external resources" || ok
grep -q "<script" "$sw/report.html" && bad "report.html has a script" || ok

# --- deterministic; a list of run dirs (in another order) gives the same table
cp "$sw/loss_curves.svg" "$dir/curves1.svg"
"$ORDO" compare "$sw" > /dev/null 2>&1
cmp -s "$sw/loss_curves.svg" "$dir/curves1.svg" && ok || bad "loss_curves.svg differs between two identical compares"
"$ORDO" compare "$sw/sinusoidal-s1" "$sw/learned-s2" "$sw/learned-s1/" --out "$dir/list" > /dev/null 2>&1 \
  && ok || bad "compare of a list of run dirs failed"
cmp -s "$sw/compare.csv" "$dir/list/compare.csv" && ok || bad "run list and sweep dir give different compare.csv"
# a sweep dir without sweep.json (stopped early): its run subdirectories
mkdir -p "$dir/nosweep" && cp -r "$sw/learned-s1" "$sw/learned-s2" "$sw/sinusoidal-s1" "$dir/nosweep/"
"$ORDO" compare "$dir/nosweep" > /dev/null 2>&1 && cmp -s "$sw/compare.csv" "$dir/nosweep/compare.csv" \
  && ok || bad "a dir of run dirs without sweep.json does not give the sweep's table"
# default output dir for run lists: ./compare
(cd "$dir" && "$ORDO" compare "$sw/learned-s1" > /dev/null 2>&1) && [ -f "$dir/compare/report.html" ] && ok || bad "default --out ./compare"
grep -q "± -" "$dir/compare/compare.md" && ok || bad "a single seed should show '± -'"

# the embedding convention: a column of the table; runs that mix conventions are one row per
# scheme and convention (never averaged together as seeds), with a warning
"$ORDO" compare "$sw" --columns seeds,params,embedding --out "$dir/emb" > /dev/null 2>&1
sq "$dir/emb/compare.md" | grep -qF "| learned | 2 | $(csv "$sw/compare.csv" learned params) | x1 std 0.02 |" && ok || bad "compare.md lacks the embedding column: $(sed -n 3,5p "$dir/emb/compare.md")"
[ "$(csv "$sw/compare.csv" sinusoidal embedding)" = "x1 std 0.02" ] && ok || bad "compare.csv lacks the embedding column"
grep -q "<td>x1 std 0.02</td>" "$sw/report.html" && ok || bad "report.html lacks the embedding column"
"$ORDO" train --pos learned --seed 1 --embed-style vaswani "${tiny[@]}" --out "$dir/vas" > /dev/null 2>&1 || bad "vaswani run failed"
"$ORDO" compare "$sw/learned-s1" "$sw/learned-s2" "$dir/vas" --out "$dir/mixed" > "$dir/mixed.txt" 2> "$dir/mixed.err" \
  && ok || bad "compare of mixed conventions failed: $(cat "$dir/mixed.err")"
sq "$dir/mixed.txt" | grep -qF "| learned | 2 | embed-style=gpt2 |" && sq "$dir/mixed.txt" | grep -qF "| learned | 1 | embed-style=vaswani |" \
  && ok || bad "mixed conventions should give one row each: $(cat "$dir/mixed.txt")"
grep -q "differ in --embed-style" "$dir/mixed.err" && ok || bad "no warning for mixed conventions: $(cat "$dir/mixed.err")"
xmllint --noout "$dir/mixed/loss_curves.svg" "$dir/mixed/report.html" 2> /dev/null && ok || bad "mixed conventions break the SVG/HTML"

# markup characters in a run's name are escaped (the SVG and HTML still parse)
odd="$dir/a&b<c>\"q'"
cp -r "$sw/learned-s1" "$odd"
"$ORDO" compare "$odd" "$sw/sinusoidal-s1" --out "$dir/odd" > /dev/null 2>&1 && ok || bad "compare of an oddly named run failed"
xmllint --noout "$dir/odd/loss_curves.svg" "$dir/odd/report.html" 2> /dev/null && ok || bad "markup in a run name breaks the SVG/HTML"
grep -qF 'data-label="a&amp;b&lt;c&gt;&quot;q&#39;"' "$dir/odd/loss_curves.svg" && ok || bad "run name not escaped in data-label"

# --- trust the comparison
expect_err() { # <pattern> <args...>
  local pat=$1; shift
  out=$("$ORDO" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -qF -- "$pat" <<<"$out"; then bad "ordo $*: rc $rc, output: $out"; else ok; fi
}
# runs that differ only in seed, threads, logging/eval/checkpoint cadence and --out pool
"$ORDO" train --pos learned --seed 3 "${tiny[@]}" --threads 2 --eval-every 5 --log-every 10 --keep 2 \
  --out "$dir/l3" > /dev/null 2>&1 || bad "learned seed 3 failed"
"$ORDO" compare "$sw/learned-s1" "$sw/learned-s2" "$dir/l3" --out "$dir/pool" > "$dir/pool.txt" 2> "$dir/pool.err" \
  && ok || bad "compare of seeds failed: $(cat "$dir/pool.err")"
sq "$dir/pool.txt" | grep -qF "| learned | 3 |" && ok || bad "seeds that differ only in threads/cadence should pool: $(sed -n 3,6p "$dir/pool.txt")"
grep -q "differs in\|differ in" "$dir/pool.txt" "$dir/pool.err" && bad "a 'differs in' column or warning for seeds only" || ok
# a run with another --lr is a row of its own, and lr is named (column, note, warning, report)
"$ORDO" train --pos learned --seed 1 "${tiny[@]}" --lr 3e-3 --out "$dir/lr" > /dev/null 2>&1 || bad "lr run failed"
"$ORDO" compare "$sw/learned-s1" "$sw/learned-s2" "$dir/lr" --out "$dir/lrcmp" > "$dir/lr.txt" 2> "$dir/lr.err" \
  && ok || bad "compare with another lr failed: $(cat "$dir/lr.err")"
sq "$dir/lr.txt" | grep -qF "| learned | 2 | lr=0.001 |" && sq "$dir/lr.txt" | grep -qF "| learned | 1 | lr=0.003 |" \
  && ok || bad "runs differing in lr should be separate rows: $(sed -n 3,6p "$dir/lr.txt")"
sq "$dir/lr.txt" | grep -qF "| differs in |" && sq "$dir/lr.txt" | grep -qF "| lr=0.003 |" && ok || bad "no 'differs in' column naming lr"
grep -qF "The runs differ in --lr:" "$dir/lrcmp/compare.md" && ok || bad "the note does not name --lr"
grep -q "differ in --lr" "$dir/lr.err" && ok || bad "no warning naming --lr: $(cat "$dir/lr.err")"
grep -qF "<th class=\"l\">differs in</th>" "$dir/lrcmp/report.html" && grep -qF ">lr=0.003</td>" "$dir/lrcmp/report.html" \
  && ok || bad "report.html lacks the differs-in column"
[ "$(csv "$dir/lrcmp/compare.csv" "learned [lr=0.003]" differs)" = "lr=0.003" ] && ok || bad "compare.csv lacks differs"
xmllint --noout "$dir/lrcmp/report.html" "$dir/lrcmp/loss_curves.svg" 2> /dev/null && ok || bad "split rows break the SVG/HTML"
[ "$(count "$dir/lrcmp/loss_curves.svg" "mean train")" = 2 ] && ok || bad "loss_curves.svg: one mean per row"

# the data: one file under two paths pools (its recorded size and hash), a changed file is refused
awk 'BEGIN { srand(7); for (i = 0; i < 400; i++) printf "the %s %s the %s .\n", (rand() < .5 ? "cat" : "dog"), (rand() < .5 ? "saw" : "bit"), (rand() < .5 ? "fox" : "owl") }' > "$dir/t.txt"
mkdir -p "$dir/elsewhere" && cp "$dir/t.txt" "$dir/elsewhere/t.txt"
dtiny=(--d-model 16 --layers 1 --heads 2 --context 16 --steps 4 --eval-every 2 --log-every 2 --threads 1 --tokenizer byte)
"$ORDO" train --pos learned --seed 1 "${dtiny[@]}" --data "$dir/t.txt" --out "$dir/d1" > "$dir/d1.log" 2>&1 || bad "data run 1 failed: $(tail -2 "$dir/d1.log")"
"$ORDO" train --pos learned --seed 2 "${dtiny[@]}" --data "$dir/elsewhere/t.txt" --out "$dir/d2" > /dev/null 2>&1 || bad "data run 2 failed"
"$ORDO" compare "$dir/d1" "$dir/d2" --out "$dir/dcmp" > "$dir/d.txt" 2>&1 && sq "$dir/d.txt" | grep -qF "| learned | 2 |" \
  && ok || bad "one file under two paths should pool: $(cat "$dir/d.txt")"
echo "the owl ran ." >> "$dir/elsewhere/t.txt"
"$ORDO" train --pos learned --seed 3 "${dtiny[@]}" --data "$dir/elsewhere/t.txt" --out "$dir/d3" > /dev/null 2>&1 || bad "data run 3 failed"
expect_err "on $dir/elsewhere/t.txt ($(stat -c %s "$dir/elsewhere/t.txt") bytes, xxh3" compare "$dir/d1" "$dir/d3"

# the unigram level that train records: the entropy (nats) of the val split's tokens, here
# bytes, computed on its own: the val split is the last <val> tokens, the first not a target
entropy() { od -An -tu1 -v | awk '{ for (i = 1; i <= NF; i++) { c[$i]++; n++ } } END { for (k in c) h -= c[k] / n * log(c[k] / n); printf "%.10g\n", h }'; }
nval=$(sed -n 's|.* / \([0-9]*\) val tokens.*|\1|p' "$dir/d1.log")
want=$(tail -c $((nval - 1)) "$dir/t.txt" | entropy)
got=$(sed -n '/"val_unigram"/,/}/s/.*"entropy": *\([-0-9.e+]*\).*/\1/p' "$dir/d1/config.json")
close "val_unigram entropy in config.json" "$got" "$want"
close "unigram_level in compare.csv" "$(csv "$dir/dcmp/compare.csv" learned unigram_level)" "$want"
# a run of an older ordo (no record): the level from its data, else "unknown"
cp -r "$dir/d1" "$dir/old"
sed -i '/"val_unigram": {/,/},/d' "$dir/old/config.json"
grep -q val_unigram "$dir/old/config.json" && bad "the test did not remove val_unigram"
"$ORDO" compare "$dir/old" --out "$dir/oldcmp" > /dev/null 2>&1 && close "unigram level from the data" "$(csv "$dir/oldcmp/compare.csv" learned unigram_level)" "$want"
cp "$dir/t.txt" "$dir/t.keep" && rm "$dir/t.txt"
"$ORDO" compare "$dir/old" --out "$dir/oldcmp" > "$dir/old.txt" 2>&1 && sq "$dir/old.txt" | grep -q "| unknown |" \
  && grep -q "its unigram level is unknown" "$dir/old.txt" && ok || bad "no data, no record: expected 'unknown': $(cat "$dir/old.txt")"
mv "$dir/t.keep" "$dir/t.txt"

# flagged "learned no use of context": a 1-step run (loss above the level); a run that has
# learned the order corpus's structure is below it; the margin is 1% of the level
"$ORDO" train --pos learned --seed 1 "${tiny[@]}" --steps 1 --out "$dir/one" > /dev/null 2>&1 || bad "1-step run failed"
"$ORDO" train --pos learned --seed 1 "${tiny[@]}" --steps 60 --lr 1e-2 --warmup 5 --out "$dir/good" > /dev/null 2>&1 || bad "60-step run failed"
for r in one good; do
  "$ORDO" compare "$dir/$r" --wide --out "$dir/u-$r" > "$dir/u-$r.txt" 2>&1 || bad "compare $r failed: $(cat "$dir/u-$r.txt")"
done
sq "$dir/u-one.txt" | grep -qF "| learned no use of context |" && ok || bad "the 1-step run is not flagged: $(sed -n 5p "$dir/u-one.txt")"
grep -qF 'class="uni flag">learned no use of context</td>' "$dir/u-one/report.html" && ok || bad "report.html does not flag the 1-step run"
level=$(csv "$dir/u-good/compare.csv" learned unigram_level) best=$(csv "$dir/u-good/compare.csv" learned best_val_loss_mean)
gap=$(awk -v h="$level" -v l="$best" 'BEGIN { printf "%.4f", h - l }')
sq "$dir/u-good.txt" | grep -qF "| $gap below |" && awk -v g="$gap" 'BEGIN { exit !(g > 0.05) }' \
  && ok || bad "the trained run should be ${gap} below the level: $(sed -n 5p "$dir/u-good.txt")"
[ "$(csv "$dir/u-good/compare.csv" learned no_context_runs)" = 0 ] && [ "$(csv "$dir/u-one/compare.csv" learned no_context_runs)" = 1 ] \
  && ok || bad "compare.csv no_context_runs"
set_level() { sed -i "/\"val_unigram\"/,/}/s/\"entropy\": *[-0-9.e+]*/\"entropy\": $2/" "$1/config.json"; }
cp -r "$dir/good" "$dir/edge"
set_level "$dir/edge" "$(awk -v l="$best" 'BEGIN { printf "%.9f", l / 0.995 }')" # loss at 99.5% of H: flagged
"$ORDO" compare "$dir/edge" --wide --out "$dir/u-edge" > "$dir/u-edge.txt" 2>&1
sq "$dir/u-edge.txt" | grep -qF "| learned no use of context |" && ok || bad "a loss within 1% of the level is not flagged"
set_level "$dir/edge" "$(awk -v l="$best" 'BEGIN { printf "%.9f", l / 0.985 }')" # at 98.5%: not flagged
"$ORDO" compare "$dir/edge" --wide --out "$dir/u-edge" > "$dir/u-edge.txt" 2>&1
sq "$dir/u-edge.txt" | grep -qF " below |" && ok || bad "a loss 1.5% below the level is flagged"
"$ORDO" compare "$dir/one" "$sw/learned-s1" --out "$dir/u-mix" > "$dir/u-mix.txt" 2>&1
sq "$dir/u-mix.txt" | grep -qF "| learned | 1 | steps=1 |" && ok || bad "1 step and 20 steps should be two rows"

# windows per eval length (header), cells on fewer than 10 marked with a footnote; the loss
# on order-dependent tokens is a column in the terminal table and the report
mkdir -p "$dir/win" && cp -r "$sw/learned-s1" "$sw/sinusoidal-s1" "$dir/win/"
cat > "$dir/win/sinusoidal-s1/eval.json" <<'EOF'
{"run": "sinusoidal-s1", "step": 20, "pos": "sinusoidal", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 2.5, "windows": 31, "order_loss": 0.75, "order_targets": 88},
             {"context": 32, "val_loss": 3.0, "windows": 15}, {"context": 64, "val_loss": 3.75, "windows": 7},
             {"context": 128, "val_loss": 5.0, "windows": 3}]}
EOF
cat > "$dir/win/learned-s1/eval.json" <<'EOF'
{"run": "learned-s1", "step": 20, "pos": "learned", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 2.25, "windows": 31, "order_loss": 0.25, "order_targets": 88},
             {"context": 32, "val_loss": null, "note": "past the learned table (T_max 16)"}]}
EOF
"$ORDO" compare "$dir/win/learned-s1" "$dir/win/sinusoidal-s1" --wide --out "$dir/wcmp" > "$dir/w.txt" 2>&1 || bad "compare with windows failed: $(cat "$dir/w.txt")"
for h in "loss@1x (T=16, 31 windows)" "loss@2x (T=32, 15 windows)" "loss@8x (T=128, 3 windows)" "order-dep. loss@1x (T=16, 31 windows)"; do
  sq "$dir/w.txt" | grep -qF "| $h |" && grep -qF "<th>$h</th>" "$dir/wcmp/report.html" && ok || bad "no header '$h' in the terminal table and the report"
done
sq "$dir/w.txt" | grep -qF "| 2.5000 ± - | 3.0000 ± - | 3.7500 ± - ‡ | 5.0000 ± - ‡ | 0.7500 ± - |" \
  && ok || bad "sinusoidal: 4x and 8x (7 and 3 windows) should be marked, 1x/2x not: $(grep '^| sinusoidal' "$dir/w.txt")"
grep -qF "‡ rests on fewer than 10 windows" "$dir/w.txt" && grep -qF "‡ rests on fewer than 10 windows" "$dir/wcmp/report.html" \
  && ok || bad "no footnote for the ‡ mark"
grep -qF '3.7500<span class="few">‡</span>' "$dir/wcmp/report.html" && ok || bad "report.html does not mark the 4x cell"
[ "$(csv "$dir/wcmp/compare.csv" sinusoidal loss_8x_windows)" = 3 ] && ok || bad "compare.csv loss_8x_windows"
sq "$dir/w.txt" | grep -qF "| 0.2500 ± - |" && grep -qF "<td>0.2500</td>" "$dir/wcmp/report.html" \
  && ok || bad "the order-dependent loss is not in the terminal table and the report"
grep -qF "order-dep. loss@1x: eval.json's loss on the order-dependent tokens" "$dir/wcmp/report.html" && ok || bad "report.html does not explain the order-dependent loss"
close "order_loss_1x in compare.csv" "$(csv "$dir/wcmp/compare.csv" sinusoidal order_loss_1x_mean)" 0.75
grep -q "order-dep" "$sw/compare.md" && bad "an order-dependent column without any order_loss" || ok
xmllint --noout "$dir/wcmp/report.html" 2> /dev/null && ok || bad "report.html with marks is not well-formed"

# --- bad input: a message naming the problem, non-zero exit, no crash
mkdir -p "$dir/empty" "$dir/nockpt"
cp "$sw/learned-s1/config.json" "$sw/learned-s1/metrics.jsonl" "$dir/nockpt/"
expect_err "not a run directory (no config.json" compare "$dir/empty"
expect_err "nowhere: cannot open the run directory" compare "$dir/nowhere"
expect_err "no checkpoint (ckpt-<step>.safetensors)" compare "$sw/learned-s1" "$dir/nockpt"
expect_err "expected RUN_DIR" compare
"$ORDO" train --task copy --pos learned "${tiny[@]}" --max-len 4 --out "$dir/copy" > /dev/null 2>&1 || bad "copy run failed"
expect_err "trained on task:order but $dir/copy on task:copy" compare "$sw/learned-s1" "$dir/copy"
# copy/reverse accuracy from eval.json: accuracy.svg with one series per run
"$ORDO" train --task copy --pos sinusoidal "${tiny[@]}" --max-len 4 --out "$dir/copy2" > /dev/null 2>&1 || bad "copy run 2 failed"
for r in copy copy2; do
  cat > "$dir/$r/eval.json" <<'EOF'
{"run": "x", "step": 20, "pos": "learned", "train_context": 16, "mode": "nonoverlap", "stride": 16,
 "results": [{"context": 16, "val_loss": 1.5}],
 "accuracy": {"task": "copy", "train_max_len": 4, "by_length": [{"n": 1, "exact_match": 1.0, "examples": 64}, {"n": 4, "exact_match": 0.5, "examples": 64}, {"n": 8, "exact_match": 0.0, "examples": 64}]}}
EOF
done
"$ORDO" compare "$dir/copy" "$dir/copy2" --out "$dir/acc" > /dev/null 2>&1 && ok || bad "compare of copy runs failed"
xmllint --noout "$dir/acc/accuracy.svg" 2> /dev/null && ok || bad "accuracy.svg missing or not well-formed"
[ "$(count "$dir/acc/accuracy.svg" "run acc")" = 2 ] && [ "$(count "$dir/acc/accuracy.svg" "mean acc")" = 2 ] && ok || bad "accuracy.svg: one series per run and per scheme"
grep -q "Exact match by length" "$dir/acc/report.html" && ok || bad "report.html lacks the accuracy plot"
echo '{"runs": "learned-s1"}' > "$dir/badsweep.json" && mkdir -p "$dir/bs" && mv "$dir/badsweep.json" "$dir/bs/sweep.json"
expect_err "expected a non-empty \"runs\" array" compare "$dir/bs"
mkdir -p "$dir/badeval" && cp -r "$sw/learned-s1/." "$dir/badeval/" && echo '{"results": 3}' > "$dir/badeval/eval.json"
expect_err "eval.json: expected a \"results\" array" compare "$dir/badeval"
[ ! -e "$dir/compare/x" ] && ok
# runs with no eval record: the table has their training's val loss, and a hint says how to
# fill the length columns; with one, no hint
mkdir -p "$dir/noeval" && cp -r "$sw/learned-s1/." "$dir/noeval/" && rm -rf "$dir/noeval/eval.json" "$dir/noeval/eval"
"$ORDO" compare "$dir/noeval" --out "$dir/noeval-cmp" > "$dir/noeval.txt" 2>&1
grep -q "no run has an eval record yet: 'ordo eval RUN --save'" "$dir/noeval.txt" && ok || bad "no hint without eval records: $(tail -3 "$dir/noeval.txt")"
grep -q "no run has an eval record" "$dir/out.txt" && bad "the hint shows although the runs have eval records" || ok

finish
