#!/usr/bin/env bash
# compare's report on context and positions: each row's context-use curve (from the records'
# context_use) in context_use.svg and report.html with the n-gram line of the same targets (once,
# grey, from the records that have one, when they agree: none when two are on other data), and
# a table of each run's position probe and attention by offset from RUN/viz, the step viz
# measured marked when it is older than the run's newest checkpoint; neither when no run has them.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$dir" || exit 1
tiny=(--tokenizer byte --d-model 32 --layers 1 --heads 2 --context 16 --corpus-tokens 8000
      --eval-every 0 --threads 1)
for p in alibi learned; do
  "$ORDO" train "${tiny[@]}" --pos $p --steps 20 --out $p > /dev/null 2>&1 || bad "train $p"
done
"$ORDO" compare alibi learned --out c0 > /dev/null 2>&1 || bad "compare without curves"
[ ! -e c0/context_use.svg ] && ! grep -q "Position probe and attention by offset" c0/report.html && ok \
  || bad "a report without context use or viz has their sections"
for p in alibi learned; do
  "$ORDO" eval $p --context-use 40 --save > /dev/null 2>&1 || bad "eval --context-use $p"
done
"$ORDO" viz alibi > /dev/null 2>&1 || bad "viz alibi"
"$ORDO" compare alibi learned --out c1 > c1.out 2>&1 || bad "compare: $(tail -2 c1.out)"
[ "$(grep -c 'class="context-use"' c1/context_use.svg)" = 2 ] && grep -q "<h2>Context use</h2>" c1/report.html \
  && ok || bad "context_use.svg: $(grep -c 'class="context-use"' c1/context_use.svg 2>&1) curves"
[ "$(grep -c 'class="context-use-ngram"' c1/context_use.svg)" = 1 ] && ok \
  || bad "one n-gram line: $(grep -c 'class="context-use-ngram"' c1/context_use.svg 2>&1)"
cp -r learned learned-nn
"$ORDO" eval learned-nn --context-use 40 --no-ngram --save > /dev/null 2>&1 || bad "eval --no-ngram"
! grep -q '"ngram_order"' learned-nn/eval/base.json && ok || bad "--no-ngram's record has an n-gram line"
"$ORDO" compare alibi learned-nn --out c3 > /dev/null 2>&1 || bad "compare c3"
[ "$(grep -c 'class="context-use-ngram"' c3/context_use.svg)" = 1 ] && ok \
  || bad "alibi's n-gram line, learned-nn's record without one"
"$ORDO" train "${tiny[@]}" --corpus-tokens 9000 --steps 20 --out other > /dev/null 2>&1 || bad "train other"
"$ORDO" eval other --context-use 40 --save > /dev/null 2>&1 || bad "eval other"
"$ORDO" compare alibi other --out c4 > /dev/null 2>&1 || bad "compare c4"
[ "$(grep -c 'class="context-use"' c4/context_use.svg)" = 2 ] \
  && ! grep -q 'class="context-use-ngram"' c4/context_use.svg && ok \
  || bad "two splits' n-gram lines differ: none should be drawn"
python3 - c1/report.html <<'PY' && ok || bad "the probe table should have alibi's row alone"
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
i = h.find("<h2>Position probe and attention by offset</h2>")
table = h[i:h.find("</table>", i)] if i >= 0 else ""
rows = re.findall(r"<tr><td>([^<]*)</td>", table)
sys.exit(0 if rows == ["alibi"] else 1)
PY
xmllint --noout c1/report.html c1/context_use.svg 2> xml.err && ok || bad "not well-formed: $(head -3 xml.err)"
# viz of an older checkpoint is marked
"$ORDO" train --resume alibi --steps 30 > /dev/null 2>&1 || bad "resume alibi"
"$ORDO" compare alibi learned --out c2 > /dev/null 2>&1 || bad "compare after resume"
grep -q '20 (older)' c2/report.html && ok || bad "viz at step 20 against checkpoint 30 is not marked"
finish test_compare_context
