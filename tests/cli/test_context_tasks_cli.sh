#!/usr/bin/env bash
# --task selective-copy, --task count, --task add and --pack none end to end: a tiny model
# trains a few steps on each; `ordo eval` prints the length x tokens (selective-copy) and
# length x variables (count) tables and add's exact match by n, and its --json and the saved
# eval.json hold the same accuracy (docs/guide.md, "Scoring a run"); `ordo data` is
# deterministic and scores only the answers, and --pack none puts one example at the start of
# each window; bad sizes are refused naming the option.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--d-model 32 --layers 1 --heads 2 --batch 8 --steps 5 --corpus-tokens 20000 --threads 1
  --pos rope)
"$ORDO" train --task selective-copy --context 48 --sc-tokens 8 "${tiny[@]}" --out "$dir/sc" \
  >"$dir/sc.log" 2>&1 && ok || bad "train selective-copy: $(tail -3 "$dir/sc.log")"
"$ORDO" train --task count --context 48 "${tiny[@]}" --out "$dir/ct" >"$dir/ct.log" 2>&1 &&
  ok || bad "train count: $(tail -3 "$dir/ct.log")"
"$ORDO" train --task add --max-len 3 --context 24 --pack none "${tiny[@]}" --out "$dir/ad" \
  >"$dir/ad.log" 2>&1 && ok || bad "train add: $(tail -3 "$dir/ad.log")"

# data: the same seed, the same batch; selective-copy's targets are the data after the marker
out=$("$ORDO" data --task selective-copy --context 40 --batch 2 --batches 1 --corpus-tokens 2000 2>&1)
again=$("$ORDO" data --task selective-copy --context 40 --batch 2 --batches 1 --corpus-tokens 2000 2>&1)
[ "$out" = "$again" ] && ok || bad "data: not deterministic"
python3 - <<PY && ok || bad "data: selective-copy targets: $(head -20 <<<"$out")"
import re
text = """$out"""
ins = re.findall(r"\[([-0-9, ]+)\]", text[text.index("inputs:"):text.index("targets:")])[:2]
tgt = re.findall(r"\[([-0-9, ]+)\]", text[text.index("targets:"):])[:2]
for i, t in zip(ins, tgt):
    x = [int(v) for v in i.split(",")]
    y = [int(v) for v in t.split(",")]
    m = x.index(15)                        # the marker
    data = [v for v in x[:m] if v != 0]    # the region's data, in order
    assert len(data) == 16 and y[m:m + 16] == data, (x, y)
    assert all(v == -1 for k, v in enumerate(y) if not m <= k < m + 16), y
PY
# count: one target per example, the printed variable's value (ids 5..15)
out=$("$ORDO" data --task count --context 40 --batch 2 --batches 1 --corpus-tokens 2000 2>&1)
python3 - <<PY && ok || bad "data: count targets: $(head -20 <<<"$out")"
import re
text = """$out"""
tgt = re.findall(r"\[([-0-9, ]+)\]", text[text.index("targets:"):])[:2]
for t in tgt:
    y = [int(v) for v in t.split(",")]
    got = [(k, v) for k, v in enumerate(y) if v >= 0]
    assert len(got) == 1 and got[0][0] == 38 and 5 <= got[0][1] <= 15, y
PY
grep -q 'print [a-c] [0-9]*"' <<<"$out" && ok || bad "data: count text: $out"
# --pack none: every window starts with <bos>, holds one example and ends in <pad>
out=$("$ORDO" data --task add --max-len 3 --context 24 --pack none --batch 4 --batches 1 \
  --corpus-tokens 2000 2>&1)
python3 - <<PY && ok || bad "data: --pack none: $(head -20 <<<"$out")"
import re
text = """$out"""
assert "--stride 24" in text, text
rows = re.findall(r"\[([-0-9, ]+)\]", text[text.index("inputs:"):text.index("targets:")])[:4]
for r in rows:
    x = [int(v) for v in r.split(",")]
    assert x[0] == 1 and x.count(1) == 1 and x.count(3) == 1 and x[-1] == 0, x
PY
grep -qE 'input  "<bos> [0-9 ]+\+ [0-9 ]+= [0-9 ]+<eos> <pad>' <<<"$out" &&
  ok || bad "data: add text: $out"

tab=$("$ORDO" eval "$dir/sc" --context 24,48,96 --examples 8 --threads 1 --save 2>&1)
grep -q 'selective-copy (accuracy per copied token, 8 examples per cell, 16 ids, trained at T=48 with 8 tokens)' \
  <<<"$tab" && ok || bad "eval selective-copy: no table: $tab"
grep -qE '^ +length +tokens=1 +tokens=2 +tokens=4 +tokens=8 +tokens=16 +tokens=32 +tokens=64 +all$' \
  <<<"$tab" && ok || bad "eval selective-copy: header: $tab"
grep -qE '^ +24( +[01]\.[0-9]{3}){4}( +n/a){3} +[01]\.[0-9]{3}$' <<<"$tab" &&
  ok || bad "eval selective-copy: row 24 (8 tokens need 17, 16 need 33): $tab"
tab=$("$ORDO" eval "$dir/ct" --context 48,96 --examples 8 --threads 1 --save 2>&1)
grep -qE '^ +length +vars=1 +vars=3 +all$' <<<"$tab" && ok || bad "eval count: header: $tab"
grep -qE '^ +96( +[01]\.[0-9]{3}){3}$' <<<"$tab" && ok || bad "eval count: row 96: $tab"
tab=$("$ORDO" eval "$dir/ad" --examples 8 --threads 1 --save 2>&1)
grep -q 'exact match by length n (add, trained on n = 1..3)' <<<"$tab" &&
  grep -qE '^  n=6 +[01]\.[0-9]{3}$' <<<"$tab" && ok || bad "eval add: $tab"

acc=(python3 "$src/tests/cli/accuracy_json.py")
sc=(selective-copy examples=8 vocab=16 train_tokens=8 'tokens=[1, 2, 4, 8, 16, 32, 64]')
ct=(count examples=8 train_vars=3 'vars=[1, 3]')
ad=(add examples=8 'n=[1, 2, 3, 4, 5, 6]')
for t in sc:24,48,96 ct:48,96 ad:; do
  IFS=: read -r d lens <<<"$t"
  declare -n want=$d
  "${acc[@]}" check "$dir/$d/eval.json" "${want[@]}" && ok || bad "${want[0]}: eval.json"
  args=(--examples 8 --threads 1)
  [ -n "$lens" ] && args+=(--context "$lens")
  "$ORDO" eval "$dir/$d" "${args[@]}" --json >"$dir/$d.json" 2>/dev/null &&
    "${acc[@]}" check "$dir/$d.json" "${want[@]}" && ok || bad "${want[0]}: eval --json"
  "${acc[@]}" same "$dir/$d.json" "$dir/$d/eval.json" &&
    ok || bad "${want[0]}: eval --json and the saved record differ"
done
grep -q '"pack": "none"' "$dir/ad/config.json" && ok || bad "add: config.json has no pack"

# --pack none with --pos-random (Ruoss et al.): each window, one example, at drawn positions;
# eval scores the examples at 0..T-1 and at drawn positions
"$ORDO" train --task copy --max-len 4 --context 11 --pack none --pos-random 64 "${tiny[@]}" \
  --out "$dir/rp" >"$dir/rp.log" 2>&1 && ok || bad "train --pos-random: $(tail -3 "$dir/rp.log")"
for p in "" "--positions drawn"; do
  # shellcheck disable=SC2086
  tab=$("$ORDO" eval "$dir/rp" --examples 8 --threads 1 $p 2>&1)
  grep -qE '^  n=8 +[01]\.[0-9]{3}$' <<<"$tab" && ok || bad "eval --pos-random $p: $tab"
done

# viz draws the saved grids as heatmaps: a cell (rect) per length x column
cells() { # SVG: the grid's cells
  python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(sum(1 for x in r.iter("{http://www.w3.org/2000/svg}rect") if x.get("stroke") == "#ffffff"))' "$1"
}
for t in sc:selective-copy:21 ct:count:4; do
  IFS=: read -r d task n <<<"$t"
  "$ORDO" viz "$dir/$d" --out "$dir/viz-$d" --threads 1 >/dev/null 2>&1 &&
    [ "$(cells "$dir/viz-$d/$task.svg")" = "$n" ] && ok || bad "viz: $task.svg, not $n cells"
done

err=$("$ORDO" train --task selective-copy --context 32 --out "$dir/bad" 2>&1)
grep -q 'cannot hold 16 data tokens' <<<"$err" && ok || bad "selective-copy: 16 at 32: $err"
err=$("$ORDO" train --task selective-copy --sc-vocab 3 --out "$dir/bad" 2>&1)
grep -q -- '--sc-vocab is 3, expected 4' <<<"$err" && ok || bad "selective-copy: vocab 3: $err"
err=$("$ORDO" train --task count --count-vars 27 --out "$dir/bad" 2>&1)
grep -q -- '--count-vars is 27, expected 1..26' <<<"$err" && ok || bad "count: 27 vars: $err"
err=$("$ORDO" train --task copy --pack none --context 20 --out "$dir/bad" 2>&1)
grep -q -- '--pack none pads each example to the context, 20 tokens, but the longest (--max-len 16) has 35; use --context 35' \
  <<<"$err" && ok || bad "pack none: short context: $err"
err=$("$ORDO" train --pack none --out "$dir/bad" 2>&1)
grep -q -- '--pack none puts one example in each window: it applies to the tasks made of examples, not to --task order' \
  <<<"$err" && ok || bad "pack none: order: $err"
[ ! -e "$dir/bad" ] && ok || bad "a refused run left a directory"

finish test_context_tasks_cli
