#!/usr/bin/env bash
# Named eval records: a run keeps one eval per variant (RUN/eval/NAME.json), a
# sweep makes them (--eval-variants) and compare gives each its row. In order:
# 1. the researcher's question on a tiny byte model, without copying a directory: one sweep
#    with --eval-variants, one compare, a row per (scheme, variant); running the sweep again
#    makes no eval again;
# 2. eval --save [NAME]: the default names, an explicit name, what a record holds, eval.json
#    written for base alone;
# 3. compare refuses two runs of one row with the same seed, or with identical checkpoints
#    under two seeds; copies that hold other variants are rows of their own;
# 4. an eval older than the newest checkpoint is stale (warned) and --reeval makes it again,
#    but not in a run another process holds;
# 5. two sweep folders (and a run folder) in one compare; one run given twice is refused;
# 6. an older run with a single eval.json reads as its base eval (or as the variant it
#    records), and eval/NAME.json wins over it;
# 7. a record copied in from another run is not shown as this run's: by the scored
#    checkpoint's checksum, or (an older record, a pruned checkpoint) by the run it names;
#    a sweep makes the variant again rather than keep it.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$dir" || exit 1
tiny=(--tokenizer byte --d-model 32 --layers 1 --heads 2 --context 16 --steps 20
      --corpus-tokens 8000 --eval-every 0 --threads 1)
# the cell under the header starting with $4 of the row of scheme $2 and variant $3 in the
# first table of Markdown file $1 (exit 1 when there is no such row); $4 "" prints the row
cell() {
  python3 - "$@" <<'PY'
import sys
f, scheme, variant, col = sys.argv[1:5]
lines = [l for l in open(f, encoding="utf-8") if l.startswith("|")]
head = [c.strip() for c in lines[0].strip().strip("|").split("|")]
for l in lines[2:]:
    cells = [c.strip() for c in l.strip().strip("|").split("|")]
    if len(cells) != len(head):
        break
    row = dict(zip(head, cells))
    if row.get("scheme") == scheme and row.get("variant", "base") == variant:
        print(" | ".join(cells) if not col else next(v for k, v in row.items() if k.startswith(col)))
        sys.exit(0)
sys.exit(1)
PY
}

# --- 1. the researcher's question: learned, sinusoidal, RoPE, ALiBi at 1x-8x, and NTK / YaRN
# on RoPE at 4x without fine-tuning (and the learned table grown), in one sweep and one compare
"$ORDO" sweep "${tiny[@]}" --pos learned,sinusoidal,rope,alibi --seeds 2 --jobs 2 \
  --eval-lengths 1,2,4,8 --eval-variants base,ntk:4,yarn:4,extend:interpolate --out sw > sw.out 2>&1 \
  || bad "sweep with --eval-variants failed: $(tail -3 sw.out)"
grep -qF "sweep: eval ntk-x4 applies to --pos rope only: not made for learned, sinusoidal, alibi" sw.out \
  && grep -qF "sweep: eval extend-interpolate applies to --pos learned only: not made for sinusoidal, rope, alibi" sw.out \
  && ok || bad "no note on the variants that do not apply: $(head -5 sw.out)"
grep -qE "^sweep: \[1/8\] learned-s1 +done in .*, eval base loss@1x [0-9.]+ \(whole val split\)" sw.out \
  && ok || bad "the run line should say which loss it shows: $(grep 'done in' sw.out | head -1)"
[ "$(ls sw/rope-s1/eval)" = "$(printf 'base.json\nntk-x4.json\nyarn-x4.json')" ] && ok || bad "rope's records: $(ls sw/rope-s1/eval)"
[ "$(ls sw/learned-s2/eval)" = "$(printf 'base.json\nextend-interpolate.json')" ] && ok || bad "learned's records: $(ls sw/learned-s2/eval)"
[ "$(ls sw/alibi-s1/eval)" = base.json ] && [ -f sw/alibi-s1/eval.json ] && ok || bad "alibi's records: $(ls sw/alibi-s1/eval)"
grep -q '"eval_variants": "base,ntk:4,yarn:4,extend:interpolate"' sw/sweep.json && ok || bad "sweep.json lacks the variants"
"$ORDO" compare sw > cmp.out 2>&1 || bad "compare of the sweep failed: $(tail -3 cmp.out)"
for label in "learned base" "learned extend-interpolate" "sinusoidal base" "rope base" \
             "rope ntk-x4" "rope yarn-x4" "alibi base"; do
  [ "$(cell sw/compare.md $label seeds)" = 2 ] && ok || bad "no row '$label' of 2 seeds: $(grep '^| ' sw/compare.md)"
done
[ "$(sed -n '/^| scheme/,/^$/p' sw/compare.md | grep -c '^| [a-z]')" = 8 ] && ok || bad "expected 7 rows: $(grep '^| ' sw/compare.md)"
# the terminal table fits 120 columns (characters: UTF-8 bytes that do not continue one, as
# ±, ‡ and § take one column each)
[ "$(grep '^|' cmp.out | LC_ALL=C sed 's/[\x80-\xbf]//g' | LC_ALL=C awk '{ print length($0) }' | sort -n | tail -1)" -le 120 ] && ok || bad "the table is wider than 120: $(grep '^|' cmp.out | head -2)"
# the rows' 4x column: numbers for rope's variants and the grown table, n/a for the bare table
"$ORDO" compare sw --wide --out sww > /dev/null 2>&1 || bad "compare --wide of the sweep failed"
for label in "rope ntk-x4" "rope yarn-x4" "learned extend-interpolate" "alibi base"; do
  cell sww/compare.md $label "loss@4x" | grep -qE '^[0-9.]+ ± [0-9.]+' \
    && ok || bad "$label: no loss@4x: $(cell sww/compare.md $label '')"
done
cell sww/compare.md learned base "loss@4x" | grep -qF "n/a¹" && grep -qF "past the learned table (T_max 16)" sww/compare.md \
  && ok || bad "learned base at 4x should be n/a: $(cell sww/compare.md learned base '')"
# the variant was applied: the records say which scaling scored them
python3 - sw/rope-s1/eval/yarn-x4.json sw/learned-s1/eval/extend-interpolate.json <<'PY' && ok || bad "records of the variants"
import json, sys
y, e = (json.load(open(f)) for f in sys.argv[1:])
assert y["name"] == "yarn-x4" and y["step"] == 20, y["name"]
assert y["variant"] == {"scaling": "yarn", "factor": 4.0, "original_context": 16, "extension": None}, y["variant"]
assert y["rope_scaling"]["scaling"] == "yarn" and y["rope_scaling"]["source"] == "eval"
assert y["request"]["lengths"] == [16, 32, 64, 128] and y["request"]["mode"] == "nonoverlap"
assert e["variant"]["extension"] == "interpolate" and e["extend_pos"]["method"] == "interpolate"
assert e["results"][2]["val_loss"] is not None and e["results"][2]["extend_pos"]["grown_to"] == 64
PY
# the same sweep again: every record is up to date, none is made again
sums=$(md5sum sw/*/eval/*.json)
"$ORDO" sweep "${tiny[@]}" --pos learned,sinusoidal,rope,alibi --seeds 2 --jobs 2 \
  --eval-lengths 1,2,4,8 --eval-variants base,ntk:4,yarn:4,extend:interpolate --out sw > sw2.out 2>&1 \
  || bad "the sweep again failed: $(tail -3 sw2.out)"
[ "$(md5sum sw/*/eval/*.json)" = "$sums" ] && ok || bad "the sweep again made evals again"
# a variant added later is made, the others kept
"$ORDO" sweep "${tiny[@]}" --pos learned,sinusoidal,rope,alibi --seeds 2 --jobs 2 \
  --eval-lengths 1,2,4,8 --eval-variants base,ntk:4,yarn:4,extend:interpolate,pi:4 --out sw > sw3.out 2>&1 \
  || bad "the sweep with pi:4 failed: $(tail -3 sw3.out)"
[ -f sw/rope-s2/eval/pi-x4.json ] && [ ! -e sw/alibi-s2/eval/pi-x4.json ] && [ "$(md5sum sw/*/eval/[bnye]*.json)" = "$sums" ] \
  && ok || bad "pi:4 added later: $(ls sw/rope-s2/eval)"

# --- 2. eval --save [NAME]
"$ORDO" train "${tiny[@]}" --pos rope --out r1 > /dev/null 2>&1 || bad "train r1"
"$ORDO" eval r1 --context 16,64 --save > e1.out 2>&1 && grep -q "^saved as r1/eval/base.json" e1.out \
  && [ -f r1/eval.json ] && ok || bad "eval --save: $(tail -2 e1.out)"
cmp -s r1/eval.json r1/eval/base.json && [ "$(readlink r1/eval.json)" = eval/base.json ] \
  && ok || bad "eval.json should be the link to eval/base.json: $(ls -l r1/eval.json)"
# an older run's eval.json (a file) becomes the link: the pair can never disagree
cp -rL r1 r1copy && rm -f r1copy/.lock && [ ! -L r1copy/eval.json ] || bad "cp -L"
"$ORDO" eval r1copy --context 16 --save > /dev/null 2>&1 && [ "$(readlink r1copy/eval.json)" = eval/base.json ] \
  && ok || bad "an older eval.json was not replaced by the link: $(ls -l r1copy/eval.json)"
# a full disk (no inode left for the link, root only): the record is saved, eval says so and
# exits 0, and no eval.json is left that disagrees with it
if [ "$(id -u)" -eq 0 ] && mkdir fulldisk && mount -t tmpfs -o size=4m tmpfs fulldisk 2>/dev/null; then
  cp -rL r1 fulldisk/r && rm -f fulldisk/r/.lock fulldisk/r/eval/*.json
  echo '{"results": []}' > fulldisk/r/eval.json   # an older record, left from before
  used=$(df --output=iused fulldisk | tail -1)
  mount -o remount,nr_inodes=$((used + 1)) fulldisk
  out=$("$ORDO" eval fulldisk/r --context 16 --save 2>&1); rc=$?
  if [ $rc -eq 0 ] && [ -f fulldisk/r/eval/base.json ] && [ ! -e fulldisk/r/eval.json ] \
     && grep -qF "No space left on device; the record is eval/base.json" <<<"$out"; then ok
  else bad "eval --save on a full disk: status $rc, $(ls fulldisk/r fulldisk/r/eval): $out"; fi
  umount fulldisk
else
  echo "SKIP: eval --save on a full disk (needs root to mount a small tmpfs)"; skip=$((skip + 1))
fi
base=$(md5sum < r1/eval.json)
"$ORDO" eval r1 --context 16,64 --rope-scaling ntk --rope-factor 4 --save > /dev/null 2>&1 && [ -f r1/eval/ntk-x4.json ] \
  && ok || bad "eval --rope-scaling ntk --save: $(ls r1/eval)"
"$ORDO" eval r1 --context 16,64 --rope-scaling yarn --save > /dev/null 2>&1 && [ -f r1/eval/yarn-x4.json ] \
  && ok || bad "yarn's automatic factor 64/16 should name it yarn-x4: $(ls r1/eval)"
"$ORDO" eval r1 --context 16 --mode sliding --save > /dev/null 2>&1 && [ -f r1/eval/base-sliding.json ] \
  && ok || bad "sliding windows: $(ls r1/eval)"
sliding=$(md5sum < r1/eval/base-sliding.json)
"$ORDO" eval r1 --context 16 --mode sliding --sliding-stride 1 --save > /dev/null 2>&1 \
  && [ -f r1/eval/base-sliding-stride1.json ] && [ "$(md5sum < r1/eval/base-sliding.json)" = "$sliding" ] \
  && ok || bad "another stride is a record of its own, base-sliding kept: $(ls r1/eval)"
"$ORDO" eval r1 --context 16,32 --rope-scaling pi --rope-factor 2 --save mine > /dev/null 2>&1 \
  && "$ORDO" eval --save=other r1 --context 16 > /dev/null 2>&1 && [ -f r1/eval/mine.json ] && [ -f r1/eval/other.json ] \
  && ok || bad "explicit names: $(ls r1/eval)"
"$ORDO" eval --save r1 --context 16,64 > /dev/null 2>&1 && [ -f r1/eval/base.json ] && [ ! -e r1/eval/r1.json ] \
  && ok || bad "'eval --save RUN' should save base: $(ls r1/eval)"
[ "$(md5sum < r1/eval.json)" = "$base" ] && ok || bad "eval.json changed by another variant's --save"
python3 - r1/eval/mine.json r1/config.json <<'PY' && ok || bad "what a record holds"
import json, sys
m, c = (json.load(open(f)) for f in sys.argv[1:])
assert m["name"] == "mine" and m["step"] == 20 and m["checkpoint"].endswith("ckpt-20.safetensors")
assert m["variant"] == {"scaling": "pi", "factor": 2.0, "original_context": 16, "extension": None}
assert m["data"] == {"source": "task:order"}, m["data"]
assert m["mode"] == "nonoverlap" and [r["context"] for r in m["results"]] == [16, 32]
assert m["request"]["rope_scaling"] == "pi" and m["request"]["lengths"] == [16, 32]
PY

# --- 3. one row: no seed twice, no checkpoint twice
"$ORDO" train "${tiny[@]}" --pos rope --seed 2 --out r2 > /dev/null 2>&1 || bad "train r2"
"$ORDO" eval r2 --context 16,64 --save > /dev/null 2>&1 || bad "eval r2"
cp -r r1 r1copy
out=$("$ORDO" compare r1 r1copy r2 --out c3 2>&1) && bad "a copy in one row was accepted" \
  || { grep -qF "r1 and r1copy are the same experiment with the same seed 1 (a copy?), in the row of eval base" <<<"$out" && ok || bad "copy: $out"; }
cp -r r2 r2seed
sed -i 's/"seed": 2,/"seed": 7,/' r2seed/config.json
out=$("$ORDO" compare r1 r2 r2seed --out c3 2>&1) && bad "one checkpoint under two seeds was accepted" \
  || { grep -qF "r2 (seed 2) and r2seed (seed 7) hold identical newest checkpoints" <<<"$out" && ok || bad "identical checkpoints: $out"; }
# the old way round a single eval.json: copies that each hold another variant
mkdir old
for v in base ntk; do
  cp -rL r2 "old/r2-$v" && rm -r "old/r2-$v/eval"
done
"$ORDO" eval old/r2-ntk --context 16,64 --rope-scaling ntk --rope-factor 4 --json > old/ntk.json 2>/dev/null
cp old/ntk.json old/r2-ntk/eval.json
"$ORDO" compare r1 old/r2-base old/r2-ntk --out c4 > c4.out 2>&1 || bad "copies of other variants refused: $(tail -2 c4.out)"
# (seed 2 is in both rows once: r2-base in base's, r2-ntk in ntk-x4's beside r1's own record)
[ "$(cell c4/compare.md rope base seeds)" = 2 ] && [ "$(cell c4/compare.md rope ntk-x4 seeds)" = 2 ] \
  && ok || bad "copies of other variants should be rows of their own: $(grep '^| ' c4/compare.md)"

# --- 4. stale evals and --reeval
"$ORDO" train --resume r2 --steps 30 > /dev/null 2>&1 || bad "resume r2"
"$ORDO" eval r2 --context 16,64 --rope-scaling ntk --rope-factor 4 --step 20 --save > /dev/null 2>&1 || bad "eval r2 ntk"
"$ORDO" compare r2 --out c5 > c5.out 2>&1 || bad "compare of a stale run: $(tail -2 c5.out)"
grep -qF "r2: eval base is stale: of step 20, older than the newest checkpoint (step 30)" c5.out \
  && grep -qF "r2: eval ntk-x4 is stale" c5.out && grep -qF "2 stale evals: \`ordo compare --reeval\`" c5.out \
  && ok || bad "no stale warning: $(head -3 c5.out)"
# another process holds the run: --reeval leaves it
( exec 9< r2 && flock -n 9 && touch held && exec sleep 30 ) &
holder=$!
for _ in $(seq 1 1500); do [ -e held ] && break; sleep 0.02; done # up to 30 s under load
"$ORDO" compare r2 --reeval --out c6 > c6.out 2>&1 || bad "compare --reeval beside a held run failed: $(tail -2 c6.out)"
grep -qF -- "--reeval:" c6.out && grep -qF "its evals are left as they are" c6.out && grep -q '"step": 20' r2/eval/base.json \
  && ok || bad "--reeval should leave a held run: $(head -3 c6.out)"
kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null
"$ORDO" compare r2 --reeval --out c6 > c6.out 2>&1 || bad "compare --reeval failed: $(tail -2 c6.out)"
grep -qF "reeval: r2: eval ntk-x4 made again" c6.out && ! grep -q "stale" c6.out && ok || bad "--reeval: $(head -4 c6.out)"
python3 - r2/eval/ntk-x4.json r2/eval.json <<'PY' && ok || bad "--reeval's records"
import json, sys
n, b = (json.load(open(f)) for f in sys.argv[1:])
assert n["step"] == 30 and b["step"] == 30, (n["step"], b["step"])
assert n["variant"]["scaling"] == "ntk" and n["variant"]["factor"] == 4.0 and n["request"]["lengths"] == [16, 64]
PY

# --- 5. several folders in one compare
"$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out swb > /dev/null 2>&1 || bad "sweep swb"
"$ORDO" sweep "${tiny[@]}" --pos alibi --seeds 1 --out swc > /dev/null 2>&1 || bad "sweep swc"
"$ORDO" compare swb swc r1 --out c7 > c7.out 2>&1 || bad "compare of two sweeps and a run: $(tail -2 c7.out)"
grep -qF "# ordo compare: sweeps swb, swc and 1 run directory" c7/compare.md && [ "$(cell c7/compare.md learned base seeds)" = 1 ] \
  && [ "$(cell c7/compare.md alibi base seeds)" = 1 ] && [ "$(cell c7/compare.md rope ntk-x4 seeds)" = 1 ] \
  && ok || bad "two sweeps and a run: $(grep '^#\|^| ' c7/compare.md)"
out=$("$ORDO" compare swb swb/learned-s1 --out c8 2>&1) && bad "a sweep and its own run were accepted" \
  || { grep -qF "swb/learned-s1 and swb/learned-s1 are one run directory given twice" <<<"$out" && ok || bad "given twice: $out"; }

# --- 6. older runs: one eval.json, no eval/
cp -rL r1 legacy && rm -r legacy/eval
python3 - legacy/eval.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("name", "variant", "data", "request"): j.pop(k, None)  # as an older ordo wrote it
json.dump(j, open(sys.argv[1], "w"))
PY
"$ORDO" compare legacy --out c9 > c9.out 2>&1 || bad "compare of an older run: $(tail -2 c9.out)"
[ "$(cell c9/compare.md rope base seeds)" = 1 ] && cell c9/compare.md rope base "loss@1x" | grep -qE '^[0-9.]+$' && ok || bad "an older eval.json should be the base eval: $(grep '^| ' c9/compare.md)"
"$ORDO" train --resume legacy --steps 30 > /dev/null 2>&1 || bad "resume legacy"
"$ORDO" compare legacy --reeval --out c9 > c9.out 2>&1 && grep -q '"step": 30' legacy/eval/base.json \
  && grep -q '"step": 30' legacy/eval.json && ok || bad "--reeval of an older eval.json: $(head -3 c9.out)"
# eval/NAME.json wins over eval.json of that name
sed -i 's/"val_loss": [0-9.e+-]*/"val_loss": 99.5/' legacy/eval.json
"$ORDO" compare legacy --out c9 > /dev/null 2>&1 && ! grep -q "99.5000" c9/compare.md && ok || bad "eval.json won over eval/base.json"

# --- 7. a record copied in from another run (same options, another seed)
"$ORDO" train "${tiny[@]}" --pos learned --seed 1 --out fa > /dev/null 2>&1 || bad "train fa"
"$ORDO" train "${tiny[@]}" --pos learned --seed 7 --out fb > /dev/null 2>&1 || bad "train fb"
"$ORDO" eval fa --save > /dev/null 2>&1 && "$ORDO" eval fb --save > /dev/null 2>&1 || bad "eval --save fa fb"
b_loss=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["val_loss"])' fb/eval/base.json)
cp fb/eval/base.json fa/eval/base.json
"$ORDO" compare fa --out c10 > c10.out 2>&1 || bad "compare with a foreign record: $(tail -2 c10.out)"
grep -qF "fa/eval/base.json is left out: it is not this run's eval record (it scored a checkpoint of step 20 with data checksum" c10.out \
  && ! grep -qF "$b_loss" c10/compare.md && ok || bad "a copied record was shown as the run's: $(cat c10.out; grep '^| ' c10/compare.md)"
# an older record (no checksum) names its run: fb exists and is another run
python3 - fa/eval/base.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j.pop("checkpoint_xxh3")
json.dump(j, open(sys.argv[1], "w"))
PY
cp fa/eval/base.json fa/eval/old.json
"$ORDO" compare fa --out c10 > c10.out 2>&1 && grep -qF "fa/eval/old.json is left out: it is not this run's eval record (it is a record of the run fb)" c10.out \
  && ! grep -qF "$b_loss" c10/compare.md && ok || bad "an older copied record: $(cat c10.out)"
# the run's own older record (no checksum, naming fa) is kept
"$ORDO" eval fa --save mine > /dev/null 2>&1 || bad "eval --save mine"
python3 - fa/eval/mine.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j.pop("checkpoint_xxh3")
json.dump(j, open(sys.argv[1], "w"))
PY
"$ORDO" compare fa --out c10 > c10.out 2>&1 && ! grep -qF "mine.json is left out" c10.out && ok || bad "the run's own older record: $(cat c10.out)"
rm fa/eval/old.json fa/eval/mine.json
# a sweep does not keep a foreign record as current: it makes the run's own
mkdir swf && cp -r fa swf/learned-s1 && cp fb/eval/base.json swf/learned-s1/eval/base.json
"$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out swf > swf.out 2>&1 || bad "sweep over a foreign record: $(tail -3 swf.out)"
grep -q '"checkpoint": "swf/learned-s1/' swf/learned-s1/eval/base.json && ok || bad "the sweep kept the foreign record: $(grep checkpoint swf/learned-s1/eval/base.json)"

cd / && finish test_eval_records
