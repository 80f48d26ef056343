#!/usr/bin/env bash
# The rows of one `ordo compare` report can be told apart, and each training is drawn once:
# five schemes (fire and fox among them, once one brown) each with a base and a sliding-window
# eval, two of them also with a sliding eval at another stride, are 12 rows whose lines in
# every plot and whose swatches in report.html have pairwise distinct (colour, dash); the loss
# curves have one mean line per training, not per eval variant. Sliding evals: `ordo eval`
# marks the eighths of the loss by position that the first window alone scores, and the
# report leaves those positions out and says so.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--tokenizer byte --d-model 16 --layers 1 --heads 2 --context 16 --corpus-tokens 6000
      --steps 6 --eval-every 3 --log-every 3 --threads 1)
runs=()
for p in learned rope alibi fire fox; do
  "$ORDO" train --pos "$p" "${tiny[@]}" --out "$dir/$p" > "$dir/train-$p.log" 2>&1 || bad "train $p: $(tail -2 "$dir/train-$p.log")"
  "$ORDO" eval "$dir/$p" --context 16,32 --save --threads 1 > /dev/null 2>&1 || bad "eval $p"
  "$ORDO" eval "$dir/$p" --context 16,32 --mode sliding --save --threads 1 > "$dir/sl-$p.txt" 2>&1 || bad "sliding eval $p: $(tail -2 "$dir/sl-$p.txt")"
  runs+=("$dir/$p")
done
for p in rope alibi; do
  "$ORDO" eval "$dir/$p" --context 16,32 --mode sliding --stride 8 --save --threads 1 > /dev/null 2>&1 || bad "sliding stride 8 eval $p"
done

# the CLI: sliding's first eighths (before T - stride = 12 of 16) rest on the first window alone
grep -A3 '^loss by position' "$dir/sl-rope.txt" | grep -qE '^ +16( +[0-9.]+\*){6}( +[0-9.]+){2}$' \
  && grep -qF '* rests on the first window alone' "$dir/sl-rope.txt" && ok \
  || bad "eval --mode sliding should mark the first six eighths: $(cat "$dir/sl-rope.txt")"
"$ORDO" eval "$dir/rope" --context 16 --threads 1 > "$dir/plain.txt" 2>&1
grep -q '\*' "$dir/plain.txt" && bad "nonoverlapping windows marked: $(cat "$dir/plain.txt")" || ok

"$ORDO" compare "${runs[@]}" --reference "rope · base" --out "$dir/cmp" > "$dir/cmp.txt" 2>&1 || bad "compare: $(cat "$dir/cmp.txt")"
python3 - "$dir/cmp" <<'PY' && ok || bad "rows share a line style (see above)"
import re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
fail = []
def styles(root, classes):
    out = {}
    for g in root.iter(ns + "g"):
        c = g.get("class", "")
        if c in classes and g.get("data-label"):
            out[g.get("data-label")] = (g.get("stroke"), g.get("stroke-dasharray") or "solid")
    return out
def distinct(what, st, at_least):
    pairs = list(st.values())
    if len(st) < at_least:
        fail.append(f"{what}: {len(st)} series, expected at least {at_least}: {st}")
    if len(set(pairs)) != len(pairs):
        fail.append(f"{what}: shared (colour, dash): {st}")
ext = styles(ET.parse(f"{d}/extrapolation.svg").getroot(), {"mean eval"})
distinct("extrapolation.svg", ext, 12)
pos = ET.parse(f"{d}/loss_by_position.svg").getroot()
distinct("loss_by_position.svg", styles(pos, {"mean pos"}), 12)
distinct("the difference panel", styles(pos, {"diff pos"}), 10)
curves = styles(ET.parse(f"{d}/loss_curves.svg").getroot(), {"mean train"})
distinct("loss_curves.svg", curves, 5)
if len(curves) != 5:
    fail.append(f"loss_curves.svg: {len(curves)} mean train lines for 5 trainings: {sorted(curves)}")
# the report's swatches: one per row, the row's style
html = ET.parse(f"{d}/report.html").getroot()
sw = []
for svg in html.iter(ns + "svg"):
    if svg.get("class") == "sw":
        line = svg.find(ns + "line")
        sw.append((line.get("stroke"), line.get("stroke-dasharray") or "solid"))
if len(sw) != 12 or len(set(sw)) != 12 or set(sw) != set(ext.values()):
    fail.append(f"report.html swatches: {sw} against the plots' {sorted(ext.values())}")
# fire and fox: different colours (the same scheme's rows share one)
col = {k.split(" ")[0]: v[0] for k, v in ext.items()}
if col["fire"] == col["fox"]:
    fail.append(f"fire and fox share a colour: {col}")
# the sliding rows' first positions are left out, and the plot says so
if "first window alone scores, are left out" not in open(f"{d}/loss_by_position.svg").read():
    fail.append("loss_by_position.svg does not say that sliding's first positions are left out")
first = {}  # the leftmost point (px) of each row's line
for g in pos.iter(ns + "g"):
    if g.get("class") == "mean pos":
        xs = [float(p.split(",")[0]) for pl in g.iter(ns + "polyline") for p in pl.get("points").split()]
        first[g.get("data-label")] = min(xs)
base = min(v for k, v in first.items() if "sliding" not in k)
late = [k for k, v in first.items() if "sliding" in k and v <= base + 1]
if late or len(first) != 12:
    fail.append(f"sliding rows should start past the first window's positions: {first}")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
PY
finish test_compare_palette
