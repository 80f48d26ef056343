#!/usr/bin/env bash
# report.html renders in a real browser: tiny runs are compared and
# scripts/check_report.sh screenshots the report in headless Chromium and checks that the
# plots' lines are on the screen. The same check must reject a report whose lines were
# removed. The runs give the table every column and mark of issue 19: two rows of one scheme
# (another --lr, the "differs in" column), eval.json with windows and the order-dependent
# loss (few-window marks at 4x and 8x), and a run at lr 1e-5 flagged "learned no use of context".
# ORDO_REPORT_SHOT=FILE.png keeps the screenshot (to look at). Prints SKIP when Chromium or
# ImageMagick is not installed.
set -u
. "$(dirname "$0")/../lib.sh"
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/convert ]; then
  echo "SKIP: needs /usr/bin/chromium and ImageMagick (apt-get install chromium imagemagick)"
  echo "0 passed, 0 failed"
  exit 0
fi

tiny=(--d-model 16 --layers 1 --heads 2 --context 16 --corpus-tokens 5000 --eval-every 5 --log-every 5 --threads 1)
for r in learned:20:1e-3 sinusoidal:20:1e-3 learned:60:1e-2 learned:20:1e-5; do
  # (a run at lr 1e-5 keeps its loss above the unigram level: flagged)
  IFS=: read -r p steps lr <<<"$r"
  name=$p-$steps-$lr
  "$ORDO" train --pos "$p" --steps "$steps" --lr "$lr" --min-lr 0 --warmup 5 "${tiny[@]}" --out "$dir/$name" > /dev/null 2>&1 \
    || bad "training $name failed"
  "$ORDO" eval "$dir/$name" --context 16,32,64,128 --save --threads 1 > /dev/null 2>&1 || bad "eval $name failed"
  runs+=("$dir/$name")
done
"$ORDO" compare "${runs[@]}" --out "$dir/cmp" > "$dir/cmp.txt" 2>&1 || bad "compare failed: $(cat "$dir/cmp.txt")"
for want in '<th class="l">differs in</th>' '<span class="few">' 'class="uni flag">learned no use of context' "order-dep. loss@1x (T=16"; do
  grep -qF "$want" "$dir/cmp/report.html" && ok || bad "report.html lacks $want"
done
if "$src/scripts/check_report.sh" "$dir/cmp/report.html" "$dir/shot.png"; then ok; else bad "report.html did not render"; fi
[ -n "${ORDO_REPORT_SHOT:-}" ] && cp "$dir/shot.png" "$ORDO_REPORT_SHOT"
# the check must be able to fail: the same page without its plot lines
grep -v '^<polyline' "$dir/cmp/report.html" > "$dir/cmp/nolines.html"
if "$src/scripts/check_report.sh" "$dir/cmp/nolines.html" "$dir/shot2.png" > "$dir/neg.txt"; then
  bad "check_report.sh accepted a report without plot lines: $(tail -2 "$dir/neg.txt")"
else ok; fi
finish
