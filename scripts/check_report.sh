#!/usr/bin/env bash
# Opens a report.html (ordo compare) in headless Chromium, takes a screenshot and checks that
# it is not blank: enough non-white pixels and distinct colours overall, and every scheme's
# line colour (the stroke of the thick mean lines in the report) on at least 400 pixels per
# row drawn in it (rows of one scheme share a colour, told apart by dash), which the table
# swatches and legends alone cannot reach: the plots were drawn. Needs Debian's chromium
# and imagemagick (convert). CLASS (default "mean train") picks the series whose colours are
# checked, so that one plot can be checked alone: loss_by_position.svg with "mean pos".
# Usage: scripts/check_report.sh REPORT.html|PLOT.svg [OUT.png [CLASS]]
# Prints what it measured; exits 0 if the page rendered, 1 if not, 2 on a usage/tool problem.
set -u
report=${1:?usage: scripts/check_report.sh REPORT.html [OUT.png]}
[ -f "$report" ] || { echo "check_report: $report: no such file"; exit 2; }
png=${2:-$(dirname "$report")/report.png}
cls=${3:-mean train}
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || { echo "check_report: chromium is not installed (apt-get install chromium)"; exit 2; }
# ImageMagick's own binary (not a stand-in that only converts PNG to PPM)
[ -x /usr/bin/convert ] || { echo "check_report: ImageMagick is not installed (apt-get install imagemagick)"; exit 2; }

abs=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
  --screenshot="$png" --window-size=1200,1600 "file://$abs" > "$profile/chrome.log" 2>&1
if [ ! -s "$png" ]; then
  echo "check_report: chromium wrote no screenshot; its log:"; tail -5 "$profile/chrome.log"
  exit 1
fi
# colours used by at least 20 pixels (anti-aliasing makes many one-off colours), and the
# share of pixels that are not (near) white
colours=$(/usr/bin/convert "$png" -format %c histogram:info:- | awk '$1+0 >= 20' | wc -l)
nonwhite=$(/usr/bin/convert "$png" -colorspace gray -threshold 97% -format '%[fx:100*(1-mean)]' info:)
size=$(/usr/bin/identify -format '%wx%h' "$png")
echo "check_report: $png ($size): $colours colours with >= 20 pixels, ${nonwhite}% non-white pixels"
awk -v c="$colours" -v n="$nonwhite" 'BEGIN { exit !(c >= 8 && n >= 2) }' || {
  echo "check_report: the page looks blank"; exit 1; }
hist=$(/usr/bin/convert "$png" -format %c histogram:info:-)
schemes=$(grep -o "<g class=\"$cls\" data-label=\"[^\"]*\" stroke=\"#[0-9a-f]*\"" "$report" | sort -u)
[ -n "$schemes" ] || { echo "check_report: $report has no \"$cls\" series"; exit 1; }
status=0
while read -r line; do
  name=$(sed 's/.*data-label="\([^"]*\)".*/\1/' <<<"$line")
  hex=$(sed 's/.*stroke="#\([0-9a-f]*\)".*/\1/' <<<"$line")
  px=$(grep -i "#$hex " <<<"$hist" | awk '{ s += $1 } END { print s + 0 }')
  rows=$(grep -c "stroke=\"#$hex\"" <<<"$schemes")
  echo "check_report: $name (#$hex, $rows row(s) of that colour): $px pixels"
  [ "$px" -ge $((400 * rows)) ] || { echo "check_report: the $name lines are missing from the rendering"; status=1; }
done <<<"$schemes"
[ $status -eq 0 ] || exit 1
echo "check_report: rendered"
