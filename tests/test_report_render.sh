#!/usr/bin/env bash
# report.html renders in a real browser: two tiny runs are compared and
# scripts/check_report.sh screenshots the report in headless Chromium and checks that the
# plots' lines are on the screen. The same check must reject a report whose lines were
# removed. Prints SKIP when Chromium or ImageMagick is not installed.
set -u
ORDO=$(realpath "${ORDO_BIN:-build/ordo}")
src=${ORDO_SOURCE_DIR:-$(pwd)}
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/convert ]; then
  echo "SKIP: needs /usr/bin/chromium and ImageMagick (apt-get install chromium imagemagick)"
  echo "0 passed, 0 failed"
  exit 0
fi
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

for p in learned sinusoidal; do
  "$ORDO" train --pos "$p" --d-model 16 --layers 1 --heads 2 --context 16 --steps 20 \
    --corpus-tokens 5000 --eval-every 5 --log-every 5 --threads 1 --out "$dir/$p" > /dev/null 2>&1 \
    || bad "training $p failed"
done
"$ORDO" compare "$dir/learned" "$dir/sinusoidal" --out "$dir/cmp" > /dev/null 2>&1 || bad "compare failed"
if "$src/scripts/check_report.sh" "$dir/cmp/report.html" "$dir/shot.png"; then ok; else bad "report.html did not render"; fi
# the check must be able to fail: the same page without its plot lines
grep -v '^<polyline' "$dir/cmp/report.html" > "$dir/cmp/nolines.html"
if "$src/scripts/check_report.sh" "$dir/cmp/nolines.html" "$dir/shot2.png" > "$dir/neg.txt"; then
  bad "check_report.sh accepted a report without plot lines: $(tail -2 "$dir/neg.txt")"
else ok; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
