#!/usr/bin/env bash
# `ordo viz` through the CLI on tiny learned, sinusoidal, alibi, t5 and rope runs: each gets
# the files its scheme has (table + cosine, ALiBi or T5 bias per head, attention per layer)
# and nothing else; every SVG and index.html parses as XML; a map has one panel per head;
# the sinusoidal table's first row has the known values (sin 0 = 0, cos 0 = 1); output is
# deterministic; bad input is refused with a clear message.
set -u
. "$(dirname "$0")/../lib.sh"
command -v xmllint > /dev/null || { echo "FAIL: xmllint missing (Debian libxml2-utils)"; echo "0 passed, 1 failed"; exit 1; }

tiny=(--d-model 16 --layers 2 --heads 2 --context 16 --steps 10 --corpus-tokens 5000
      --eval-every 0 --threads 1)
for p in learned sinusoidal alibi t5 rope; do
  "$ORDO" train --pos "$p" "${tiny[@]}" --out "$dir/$p" > "$dir/$p.train" 2>&1 || bad "training $p failed"
  "$ORDO" viz "$dir/$p" --threads 1 > "$dir/$p.out" 2>&1 || bad "viz $p failed: $(tail -3 "$dir/$p.out")"
done
expect_files() { # <scheme> <files...>
  local p=$1; shift
  local want got
  want=$(printf '%s\n' "$@" index.html attention_layer0.svg attention_layer1.svg \
    attention_by_offset.svg offsets.json position_probe.svg probe.json | sort | tr '\n' ' ')
  got=$(ls "$dir/$p/viz" 2>/dev/null | sort | tr '\n' ' ')
  [ "$want" = "$got" ] && ok || bad "$p: viz wrote [$got], expected [$want]"
}
expect_files learned pos_table.svg pos_cosine.svg
expect_files sinusoidal pos_table.svg pos_cosine.svg
expect_files alibi alibi_bias.svg alibi_bias_curves.svg # as every stationary bias: map and curves
expect_files t5 t5_bias.svg t5_bias_curves.svg
expect_files rope rope_spectrum.svg
grep -q "rope: no position table or bias.*the frequency spectrum and the attention maps" "$dir/rope.out" && ok || bad "rope: stdout does not say what is drawn"
# attention by offset: a curve per layer and head, each head's spread in the caption and in
# offsets.json (its numbers against known answers: tests/eval/test_attn_offsets.c)
python3 - "$dir/alibi/viz/offsets.json" <<'PY' && ok || bad "alibi's offsets.json"
import json, sys
j = json.load(open(sys.argv[1]))
hs = j["heads"]
ok = j["T"] == 16 and j["D"] == 4 and len(hs) == 4 and all(len(h["mass"]) == 16 and 0 <= h["spread"] <= 1 for h in hs)
sys.exit(0 if ok else 1)
PY
# the position probe: an error per residual stream point (L + 1) and chance (T / 4 = 4)
python3 - "$dir/learned/viz/probe.json" <<'PY' && ok || bad "learned's probe.json"
import json, math, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if len(j["mae"]) == 3 and j["chance"] == 4 and all(math.isfinite(v) and v >= 0 for v in j["mae"]) else 1)
PY
[ "$(grep -c 'class="spectrum"\|data-label="layer' "$dir/alibi/viz/attention_by_offset.svg")" -ge 4 ] \
  && grep -q "spread (0: by offset alone" "$dir/alibi/viz/attention_by_offset.svg" && ok || bad "attention_by_offset.svg lacks its curves or caption"

for f in "$dir"/*/viz/*.svg "$dir"/*/viz/index.html; do
  xmllint --noout "$f" 2> "$dir/xml.txt" && ok || bad "$f is not well-formed: $(head -3 "$dir/xml.txt")"
done
heatmaps() { grep -o 'class="heatmap"' "$1" | wc -l; }
for p in learned alibi t5; do
  for f in "$dir/$p/viz/attention_layer0.svg" "$dir/$p/viz/attention_layer1.svg"; do
    [ "$(heatmaps "$f")" = 2 ] && ok || bad "$f: $(heatmaps "$f") head panels, expected 2"
  done
done
[ "$(heatmaps "$dir/alibi/viz/alibi_bias.svg")" = 2 ] && ok || bad "alibi_bias.svg: one panel per head"
[ "$(heatmaps "$dir/t5/viz/t5_bias.svg")" = 2 ] && ok || bad "t5_bias.svg: one panel per head"
[ "$(heatmaps "$dir/learned/viz/pos_table.svg")" = 1 ] && ok || bad "pos_table.svg: one map"
grep -q 'class="colorbar"' "$dir/learned/viz/pos_table.svg" && ok || bad "pos_table.svg has no colour scale"
grep -q 'class="colorbar"' "$dir/learned/viz/attention_layer0.svg" && ok || bad "attention map has no colour scale"
# sinusoidal row 0 is [sin 0, cos 0, ...] = [0, 1, 0, 1, ...]: white, then the top of the
# blue-white-red scale (vmax = max |PE| = 1), alternating
row0=$(grep -A2 'shape-rendering="crispEdges"' "$dir/sinusoidal/viz/pos_table.svg" | head -3 | grep -o 'fill="#[0-9a-f]*"' | tr '\n' ' ')
[ "$row0" = 'fill="#f7f7f7" fill="#b2182b" ' ] && ok || bad "sinusoidal table row 0 colours: $row0"
# the ALiBi caption lists the slopes of 2 heads: 2^-4 = 0.0625 and 2^-8
grep -q "slopes m_h: 0.0625 0.003906" "$dir/alibi/viz/alibi_bias.svg" && ok || bad "alibi slopes caption"
# index.html shows every SVG
for f in "$dir/t5/viz"/*.svg; do
  grep -q "src=\"$(basename "$f")\"" "$dir/t5/viz/index.html" && ok || bad "index.html lacks $(basename "$f")"
done
# deterministic (same threads): a second run writes the same bytes
cp -r "$dir/t5/viz" "$dir/t5viz1"
"$ORDO" viz "$dir/t5" --threads 1 > /dev/null 2>&1
diff -r -q "$dir/t5/viz" "$dir/t5viz1" > /dev/null && ok || bad "viz output differs between two runs"
"$ORDO" viz "$dir/learned" --out "$dir/elsewhere" > /dev/null 2>&1 && [ -f "$dir/elsewhere/pos_table.svg" ] && ok || bad "--out"

# a context past 64 cells per head panel is drawn as block means (T=160: 3x3), not 160x160 rects
"$ORDO" train --pos alibi --d-model 16 --layers 1 --heads 2 --context 160 --steps 2 --corpus-tokens 20000 \
  --eval-every 0 --threads 1 --out "$dir/long" > /dev/null 2>&1 || bad "training at T=160 failed"
"$ORDO" viz "$dir/long" > /dev/null 2>&1 || bad "viz at T=160 failed"
grep -q "cells: means of 3x3" "$dir/long/viz/attention_layer0.svg" && ok || bad "T=160 attention map not drawn as 3x3 block means"
rects=$(grep -c '<rect' "$dir/long/viz/alibi_bias.svg")
[ "$rects" -lt 2 ] || [ "$rects" -gt 6000 ] && bad "alibi_bias.svg at T=160 has $rects rects (expected <= 2 x 54x54/2 cells + frame)" || ok
xmllint --noout "$dir/long/viz/attention_layer0.svg" "$dir/long/viz/alibi_bias.svg" && ok || bad "T=160 maps not well-formed"

expect_err() { # <pattern> <args...>
  local pat=$1; shift
  out=$("$ORDO" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -qF -- "$pat" <<<"$out"; then bad "ordo $*: rc $rc, output: $out"; else ok; fi
}
mkdir -p "$dir/empty" "$dir/nockpt"
cp "$dir/learned/config.json" "$dir/nockpt/"
expect_err "not a run directory (no config.json)" viz "$dir/empty"
expect_err "nowhere: cannot open the run directory" viz "$dir/nowhere"
expect_err "no checkpoint (ckpt-<step>.safetensors)" viz "$dir/nockpt"
expect_err "expected one RUN_DIR" viz "$dir/learned" "$dir/t5"
[ ! -e "$dir/empty/viz" ] && ok || bad "a refused viz created its output dir"

# --- the RoPE spectrum: unscaled, pi, ntk, yarn and dynamic-ntk in both panels, the factor
# default 4 (the run has none) or --rope-factor, a scaled run's own factor and scaling marked
sp="$dir/rope/viz/rope_spectrum.svg"
[ "$(grep -c 'class="spectrum"' "$sp")" -eq 10 ] && ok || bad "rope_spectrum.svg: $(grep -c 'class="spectrum"' "$sp") spectrum series, expected 5 per panel"
for l in 'unscaled (the run' 'pi s=4"' 'ntk s=4"' 'yarn s=4, q,k x1.14"' 'dynamic-ntk at context 64"' 'context 16 (trained)' 'context 64 (x s)'; do
  grep -qF "data-label=\"$l" "$sp" && ok || bad "rope_spectrum.svg lacks the series $l"
done
"$ORDO" viz "$dir/rope" --rope-factor 8 --out "$dir/sp8" > /dev/null 2>&1 && grep -qF 'data-label="pi s=8"' "$dir/sp8/rope_spectrum.svg" \
  && ok || bad "viz --rope-factor 8 does not draw s=8"
"$ORDO" train --pos rope "${tiny[@]}" --rope-scaling yarn --rope-factor 2 --out "$dir/ropey" > /dev/null 2>&1 || bad "training rope with yarn failed"
"$ORDO" viz "$dir/ropey" --threads 1 > /dev/null 2>&1 || bad "viz of the yarn run failed"
grep -qF "yarn s=2, q,k x1.07 (the run" "$dir/ropey/viz/rope_spectrum.svg" && ok || bad "the yarn run's spectrum does not mark its scaling"
expect_err "--rope-factor is 0.5, expected 1..1e4" viz "$dir/rope" --rope-factor 0.5

finish
