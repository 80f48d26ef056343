#!/usr/bin/env bash
# report.html renders in a real browser: tiny runs are compared and
# scripts/check_report.sh screenshots the report in headless Chromium and checks that the
# plots' lines are on the screen. The same check must reject a report whose lines were
# removed. The runs give the table every column and mark: two rows of one scheme
# (another --lr, the "differs in" column), eval.json with windows and the order-dependent
# loss (few-window marks at 4x and 8x), and a run at lr 1e-5 flagged "learned no use of context".
# The loss-by-position plot is bucketed (log-spaced, four buckets per doubling of the
# position), so a line has at most 4*log2(T)+1 points, not T; --reference adds a panel of
# each row minus the reference row; the plot renders on its own in Chromium (and the check
# rejects it without its lines); the terminal table fits 120 columns.
# ORDO_REPORT_SHOT=FILE.png keeps the screenshot (to look at; the plot's as FILE.pos.png).
# Prints SKIP when Chromium or ImageMagick is not installed.
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
"$ORDO" compare "${runs[@]}" --reference sinusoidal --out "$dir/cmp" > "$dir/cmp.txt" 2>&1 || bad "compare failed: $(cat "$dir/cmp.txt")"
for want in '<th class="l">differs in</th>' '<span class="few">' 'class="uni flag">learned no use of context' "order-dep. loss@1x (T=16"; do
  grep -qF "$want" "$dir/cmp/report.html" && ok || bad "report.html lacks $want"
done
if "$src/scripts/check_report.sh" "$dir/cmp/report.html" "$dir/shot.png"; then ok; else bad "report.html did not render"; fi
[ -n "${ORDO_REPORT_SHOT:-}" ] && cp "$dir/shot.png" "$ORDO_REPORT_SHOT"

# the loss by position: 128 positions at the longest length (8x), bucketed to at most
# 4*log2(128)+1 = 29 points per line (and more than a handful: still a curve)
svg=$dir/cmp/loss_by_position.svg
counts=$(sed -n 's/.*<polyline points="\([^"]*\)".*/\1/p' "$svg" | awk '{ print NF }' | sort -n | uniq | tr '\n' ' ')
most=$(awk '{ print $NF }' <<<"$counts" | tr ' ' '\n' | grep . | tail -1)
[ -n "$most" ] && [ "$most" -le 29 ] && [ "$most" -ge 8 ] && ok || bad "loss_by_position.svg: points per line $counts, expected 8..29"
count() { grep -o "class=\"$2\"" "$1" | wc -l; }
[ "$(count "$svg" "mean pos")" = 4 ] && [ "$(count "$svg" "diff pos")" = 3 ] && grep -q 'class="zero"' "$svg" \
  && ok || bad "loss_by_position.svg: expected 4 rows, 3 differences from sinusoidal and a zero line"
grep -qF "difference from sinusoidal" "$dir/cmp/report.html" && ok || bad "report.html lacks the difference panel"
if "$src/scripts/check_report.sh" "$svg" "$dir/pos.png" "mean pos" > "$dir/pos.txt"; then ok; else bad "loss_by_position.svg did not render: $(tail -3 "$dir/pos.txt")"; fi
[ -n "${ORDO_REPORT_SHOT:-}" ] && cp "$dir/pos.png" "${ORDO_REPORT_SHOT%.png}.pos.png"
grep -v '^<polyline' "$svg" > "$dir/cmp/nolines.svg"
if "$src/scripts/check_report.sh" "$dir/cmp/nolines.svg" "$dir/pos2.png" "mean pos" > "$dir/neg.txt"; then
  bad "check_report.sh accepted a loss-by-position plot without lines: $(tail -2 "$dir/neg.txt")"
else ok; fi
"$ORDO" compare "${runs[@]}" --reference nosuch --out "$dir/cmp2" > "$dir/ref.txt" 2>&1 \
  && bad "--reference nosuch was accepted" || { grep -q "names no single row" "$dir/ref.txt" && ok || bad "--reference nosuch: $(cat "$dir/ref.txt")"; }
# the terminal table (the lines of cmp.txt that start with '|') fits 120 columns: characters,
# counted as UTF-8 bytes that do not continue one (±, ‡ and ¹ are one column each)
wide=$(grep '^|' "$dir/cmp.txt" | LC_ALL=C sed 's/[\x80-\xbf]//g' | LC_ALL=C awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }')
[ "$wide" -gt 0 ] && [ "$wide" -le 120 ] && ok || bad "the terminal table is $wide columns wide: $(cat "$dir/cmp.txt")"
# the check must be able to fail: the same page without its plot lines and points
grep -v '^<polyline\|^<circle' "$dir/cmp/report.html" > "$dir/cmp/nolines.html"
if "$src/scripts/check_report.sh" "$dir/cmp/nolines.html" "$dir/shot2.png" > "$dir/neg.txt"; then
  bad "check_report.sh accepted a report without plot lines: $(tail -2 "$dir/neg.txt")"
else ok; fi
finish
