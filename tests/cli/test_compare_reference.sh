#!/usr/bin/env bash
# `ordo compare --reference`'s difference panel compares equal buckets: a learned run scored
# at 16 and a sinusoidal one at 16 and 40, whose losses at positions 0..15 are made equal by
# hand, differ by zero in every bucket (each side of a bucket the same positions, not
# learned's last positions against sinusoidal's wider bucket there). The "training length"
# label stays inside the plot area, out of the legend.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--tokenizer byte --d-model 16 --layers 1 --heads 2 --context 16 --corpus-tokens 6000
      --steps 4 --eval-every 2 --log-every 2 --threads 1)
"$ORDO" train --pos learned "${tiny[@]}" --out "$dir/learned" > /dev/null 2>&1 || bad "train learned"
"$ORDO" train --pos sinusoidal "${tiny[@]}" --out "$dir/sin" > /dev/null 2>&1 || bad "train sinusoidal"
"$ORDO" eval "$dir/learned" --context 16 --save --threads 1 > /dev/null 2>&1 || bad "eval learned"
"$ORDO" eval "$dir/sin" --context 16,40 --save --threads 1 > /dev/null 2>&1 || bad "eval sinusoidal"
# learned's loss by position := sinusoidal's first 16 positions at its longest length (40)
python3 - "$dir/learned/eval/base.json" "$dir/sin/eval/base.json" <<'PY' || bad "editing the records"
import json, sys
l, s = (json.load(open(p)) for p in sys.argv[1:])
src = next(r for r in s["results"] if r["context"] == 40)["loss_by_position"]
l["results"][0]["loss_by_position"] = src[:16]
json.dump(l, open(sys.argv[1], "w"), indent=1)
PY
"$ORDO" compare "$dir/learned" "$dir/sin" --reference sinusoidal --out "$dir/cmp" > "$dir/cmp.txt" 2>&1 \
  || bad "compare: $(cat "$dir/cmp.txt")"
python3 - "$dir/cmp/loss_by_position.svg" <<'PY' && ok || bad "the difference panel"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
zero = [float(l.get("y1")) for l in root.iter(ns + "line") if l.get("class") == "zero"]
assert len(zero) == 1, zero
diff = [g for g in root.iter(ns + "g") if g.get("class") == "diff pos"]
assert len(diff) == 1 and diff[0].get("data-label") == "learned", [g.attrib for g in diff]
pts = [tuple(map(float, p.split(","))) for pl in diff[0].iter(ns + "polyline") for p in pl.get("points").split()]
assert len(pts) >= 8, pts
off = [y for x, y in pts if abs(y - zero[0]) > 0.01]
assert not off, f"buckets off zero (px {zero[0]}): {pts}"
# the label right of the line runs into the legend at the right edge: then it is left of it
marks = [t for t in root.iter(ns + "text") if t.get("class") == "xmark"]
assert len(marks) == 2, [t.attrib for t in marks]
panel = marks[1]
assert panel.get("text-anchor") == "end", panel.attrib
print("ok: the difference is zero in", len(pts), "buckets")
PY
finish test_compare_reference
