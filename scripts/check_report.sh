#!/usr/bin/env bash
# Opens a report.html (ordo compare) in headless Chromium, takes a screenshot and checks that
# it is not blank: enough non-white pixels and enough distinct colours for a table and
# coloured plots to be there. Needs Debian's chromium and imagemagick (convert).
# Usage: scripts/check_report.sh REPORT.html [OUT.png]
# Prints what it measured; exits 0 if the page rendered, 1 if not, 2 on a usage/tool problem.
set -u
report=${1:?usage: scripts/check_report.sh REPORT.html [OUT.png]}
[ -f "$report" ] || { echo "check_report: $report: no such file"; exit 2; }
png=${2:-$(dirname "$report")/report.png}
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
echo "check_report: rendered"
