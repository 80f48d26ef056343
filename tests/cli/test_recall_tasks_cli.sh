#!/usr/bin/env bash
# --task mqar and --task flipflop end to end: a tiny model trains a few steps on each
# built-in corpus; `ordo eval` prints the length x pairs (mqar) and length x p_i (flipflop)
# table, and its --json and the saved eval.json hold the same accuracy (docs/guide.md,
# "Scoring a run"); `ordo data` is deterministic and scores only the answers; bad sizes are
# refused naming the option; compare plots the accuracy by length.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--d-model 32 --layers 1 --heads 2 --batch 8 --steps 5 --corpus-tokens 20000 --threads 1
  --pos rope)
"$ORDO" train --task mqar --context 32 "${tiny[@]}" --out "$dir/mq" >"$dir/mq.log" 2>&1 &&
  ok || bad "train mqar: $(tail -3 "$dir/mq.log")"
"$ORDO" train --task flipflop --context 32 "${tiny[@]}" --out "$dir/ff" >"$dir/ff.log" 2>&1 &&
  ok || bad "train flipflop: $(tail -3 "$dir/ff.log")"

# data: the same seed, the same batch; the mqar targets are values (ids 128..255) after keys
out=$("$ORDO" data --task mqar --context 32 --batch 2 --batches 1 --corpus-tokens 2000 2>&1)
again=$("$ORDO" data --task mqar --context 32 --batch 2 --batches 1 --corpus-tokens 2000 2>&1)
[ "$out" = "$again" ] && ok || bad "data: not deterministic"
python3 - <<PY && ok || bad "data: mqar targets: $(head -20 <<<"$out")"
import re
text = """$out"""
t = text[text.index("targets:"):]
rows = re.findall(r"\[([-0-9, ]+)\]", t)[:2]
for r in rows:
    v = [int(x) for x in r.split(",")]
    got = [x for x in v if x >= 0]
    assert len(got) == 4 and all(128 <= x < 256 for x in got), v
PY

tab=$("$ORDO" eval "$dir/mq" --context 32,64 --examples 8 --threads 1 --save 2>&1)
grep -q 'mqar recall (accuracy per query, 8 examples per cell, 256 ids, trained at T=32 with 4 pairs)' \
  <<<"$tab" && ok || bad "eval mqar: no table: $tab"
grep -qE '^ +length +pairs=1 +pairs=2 +pairs=4 +pairs=8 +pairs=16 +pairs=32 +pairs=64 +all$' \
  <<<"$tab" && ok || bad "eval mqar: header: $tab"
grep -qE '^ +32( +[01]\.[0-9]{3}){4}( +n/a){3} +[01]\.[0-9]{3}$' <<<"$tab" &&
  ok || bad "eval mqar: row 32 (pairs past 8 do not fit): $tab"
tab=$("$ORDO" eval "$dir/ff" --context 32,64,33 --examples 8 --threads 1 --save 2>&1)
grep -qE '^ +length +p_i=0\.80 +p_i=0\.98 +p_i=0\.10 +all$' <<<"$tab" &&
  ok || bad "eval flipflop: header: $tab"
grep -qE '^ +64( +[01]\.[0-9]{3}){4}$' <<<"$tab" && ok || bad "eval flipflop: row 64: $tab"
grep -qE '^ +33( +n/a){4}  \(flipflop needs an even length >= 4\)$' <<<"$tab" &&
  ok || bad "eval flipflop: row 33: $tab"

acc=(python3 "$src/tests/cli/accuracy_json.py")
mq=(mqar examples=8 vocab=256 train_pairs=4 'pairs=[1, 2, 4, 8, 16, 32, 64]')
ff=(flipflop examples=8 train_p_ignore=0.8 'p_ignore=[0.8, 0.98, 0.1]')
for d in mq ff; do
  declare -n want=$d
  "${acc[@]}" check "$dir/$d/eval.json" "${want[@]}" && ok || bad "${want[0]}: eval.json"
  args=(--context 32,64 --examples 8 --threads 1)
  [ "$d" = ff ] && args=(--context 32,64,33 --examples 8 --threads 1)
  "$ORDO" eval "$dir/$d" "${args[@]}" --json >"$dir/$d.json" 2>/dev/null &&
    "${acc[@]}" check "$dir/$d.json" "${want[@]}" && ok || bad "${want[0]}: eval --json"
  "${acc[@]}" same "$dir/$d.json" "$dir/$d/eval.json" &&
    ok || bad "${want[0]}: eval --json and the saved record differ"
done

# compare plots each run's accuracy by length (the row's mean over its cells)
"$ORDO" compare "$dir/mq" --out "$dir/cmp" >/dev/null 2>&1 &&
  grep -q 'mqar: accuracy per answer by length (mean over pairs)' "$dir/cmp/accuracy.svg" &&
  ok || bad "compare: no mqar accuracy plot"

err=$("$ORDO" train --task mqar --context 32 --mqar-pairs 9 --out "$dir/bad" 2>&1)
grep -q 'cannot hold 9 pairs' <<<"$err" && ok || bad "mqar: 9 pairs at 32: $err"
err=$("$ORDO" train --task flipflop --context 33 --out "$dir/bad" 2>&1)
grep -q 'flipflop: an example of 33 tokens, expected an even length' <<<"$err" &&
  ok || bad "flipflop: odd context: $err"
err=$("$ORDO" train --task flipflop --ff-ignore 1 --out "$dir/bad" 2>&1)
grep -q -- '--ff-ignore 1, expected a probability' <<<"$err" && ok || bad "flipflop: p_i 1: $err"

finish test_recall_tasks_cli
