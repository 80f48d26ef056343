#!/usr/bin/env bash
# The accuracy grids of mqar (length x pairs) and flipflop (length x p_i) drawn as passkey's
# are (test_passkey_cli.sh): `ordo viz` writes mqar.svg / flipflop.svg from the saved eval
# record, a cell per length and column with the columns as tick labels, and says how to make
# the record when there is none; `ordo compare` of two seeds writes mqar-1.svg, the row's mean,
# and puts it in report.html.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--context 32 --d-model 32 --layers 1 --heads 2 --batch 8 --steps 3 --corpus-tokens 20000
  --threads 1 --pos rope)
for t in mq:mqar:1 mq2:mqar:2 ff:flipflop:1; do
  IFS=: read -r d task seed <<<"$t"
  "$ORDO" train --task "$task" --seed "$seed" "${tiny[@]}" --out "$dir/$d" >"$dir/$d.log" 2>&1 &&
    ok || bad "train $d: $(tail -3 "$dir/$d.log")"
done

# no record yet: no map, and a line saying how to make one
out=$("$ORDO" viz "$dir/mq" --out "$dir/viz0" --threads 1 2>&1)
grep -qF "(no mqar accuracy: 'ordo eval $dir/mq --save' scores it, then viz draws it)" <<<"$out" &&
  [ ! -e "$dir/viz0/mqar.svg" ] && ok || bad "viz without a record: $out"

for d in mq mq2 ff; do
  "$ORDO" eval "$dir/$d" --context 32,64 --examples 8 --threads 1 --save >"$dir/$d.eval" 2>&1 &&
    ok || bad "eval $d: $(tail -3 "$dir/$d.eval")"
done

# check_grid SVG TITLE COLS LABEL: a cell (rect) per length x column, the lengths 32 and 64 as
# row labels, the columns as tick labels ("%g") just before the axis label, and the title
check_grid() {
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
path, title, cols, label = sys.argv[1:]
cols = cols.split(",")
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(path).getroot()
cells = [r for r in root.iter(ns + "rect") if r.get("stroke") == "#ffffff"]
assert len(cells) == 2 * len(cols), (len(cells), cols)
texts = [t.text for t in root.iter(ns + "text")]
assert title in texts, (title, texts)
assert "32" in texts and "64" in texts, texts
i = texts.index(label)
assert texts[i - len(cols):i] == cols, (texts[i - len(cols):i], cols)
PY
}

"$ORDO" viz "$dir/mq" --out "$dir/viz" --threads 1 >"$dir/viz.log" 2>&1 &&
  check_grid "$dir/viz/mqar.svg" "mqar accuracy, eval record base (step 3)" 1,2,4,8,16,32,64 \
    "key-value pairs" && grep -q 'mqar.svg' "$dir/viz/index.html" && ok ||
  bad "viz: mqar.svg ($(tail -3 "$dir/viz.log"))"
"$ORDO" viz "$dir/ff" --out "$dir/vizf" --threads 1 >"$dir/vizf.log" 2>&1 &&
  check_grid "$dir/vizf/flipflop.svg" "flipflop accuracy, eval record base (step 3)" \
    0.8,0.98,0.1 "p_i, probability of an ignore instruction" && ok ||
  bad "viz: flipflop.svg ($(tail -3 "$dir/vizf.log"))"
[ ! -e "$dir/viz/passkey.svg" ] && [ ! -e "$dir/vizf/passkey.svg" ] && ok ||
  bad "viz: a passkey.svg for a run of another task"

# compare: one row (seeds 1 and 2), its mean map as mqar-1.svg and in report.html
"$ORDO" compare "$dir/mq" "$dir/mq2" --out "$dir/cmp" >"$dir/cmp.log" 2>&1 &&
  check_grid "$dir/cmp/mqar-1.svg" "rope: mqar per-answer accuracy (mean of 2 runs)" \
    1,2,4,8,16,32,64 "key-value pairs" && ok || bad "compare: mqar-1.svg ($(tail -3 "$dir/cmp.log"))"
[ ! -e "$dir/cmp/mqar-2.svg" ] && [ ! -e "$dir/cmp/passkey-1.svg" ] && ok ||
  bad "compare: $(ls "$dir/cmp")"
grep -qF '<h2>mqar accuracy by length and key-value pairs</h2>' "$dir/cmp/report.html" &&
  grep -qF 'rope: mqar per-answer accuracy (mean of 2 runs)' "$dir/cmp/report.html" &&
  ok || bad "report.html: no mqar heatmap"
python3 - "$dir/cmp/report.html" "$dir/cmp/mqar-1.svg" <<'PY' && ok || bad "report.html: the map differs from mqar-1.svg"
import sys
html, svg = (open(p).read() for p in sys.argv[1:])
assert svg in html
PY
# the map's cells are the mean of the two records' cells
python3 - "$dir/mq/eval.json" "$dir/mq2/eval.json" "$dir/cmp/mqar-1.svg" <<'PY' && ok || bad "compare: cells are not the mean"
import json, sys, xml.etree.ElementTree as ET
a, b = (json.load(open(p))["accuracy"]["by_length"] for p in sys.argv[1:3])
want = []
for ra, rb in zip(a, b):
    for x, y in zip(ra["by_pairs"], rb["by_pairs"]):
        v = [z for z in (x, y) if z is not None]
        want.append("%.2f" % (sum(v) / len(v)) if v else "n/a")
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text for t in ET.parse(sys.argv[3]).getroot().iter(ns + "text")]
got = [t for t in texts if t == "n/a" or (len(t) == 4 and t[1] == ".")]
assert got[:len(want)] == want, (got, want)
PY

finish test_accuracy_heatmaps
