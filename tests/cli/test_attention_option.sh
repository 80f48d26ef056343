#!/usr/bin/env bash
# --attention fused|materialized|auto through the real CLI: auto is the default and
# config.json records the choice, the start line the path it resolved to (a run under auto
# writes the bits of that path); the two train the same model to float rounding; a run
# resumes bit for bit under its own setting, and may switch on resume (continuing to
# rounding); a config.json without the key (runs older than the option) reads as fused; eval takes
# it and eval.json records it; compare pools runs that differ only in it; a bad value is
# refused naming the choices; fire runs fused past the materialized path's length limit in
# memory linear in T.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume

tiny=(--d-model 16 --layers 2 --heads 2 --context 32 --batch 4 --steps 20 --corpus-tokens 6000
      --lr 3e-3 --warmup 2 --eval-every 10 --ckpt-every 0 --log-every 5 --threads 1 --pos alibi)
loss_at() { grep "\"step\":$2," "$1/metrics.jsonl" | sed 's/.*"train_loss":\([0-9.e+-]*\).*/\1/'; }
# the first "$2" of file $1 (an eval record also has "attention" in its "request")
key() { grep -o "\"$2\": *\"[a-z]*\"" "$1" | head -1 | sed 's/.*"\([a-z]*\)"$/\1/'; }

"$ORDO" train "${tiny[@]}" --attention fused --out "$dir/f" > "$dir/f.log" 2>&1 || bad "fused training failed: $(tail -2 "$dir/f.log")"
"$ORDO" train "${tiny[@]}" --attention materialized --out "$dir/m" > "$dir/m.log" 2>&1 \
  || bad "materialized training failed: $(tail -2 "$dir/m.log")"
"$ORDO" train "${tiny[@]}" --out "$dir/a" > "$dir/a.log" 2>&1 || bad "auto training failed: $(tail -2 "$dir/a.log")"
[ "$(key "$dir/f/config.json" attention)" = fused ] && ok || bad "config.json: attention is not fused"
[ "$(key "$dir/m/config.json" attention)" = materialized ] && ok || bad "config.json: attention is not materialized"
[ "$(key "$dir/a/config.json" attention)" = auto ] && ok || bad "config.json: attention is not auto by default"
grep -q "attention fused, " "$dir/f.log" && grep -q "attention materialized, " "$dir/m.log" \
  && ok || bad "the start lines do not name the attention: $(grep '^ordo: training' "$dir/f.log" "$dir/m.log")"
# auto: the start line names the path at the training length, and the run is that path's run
ran=$(sed -n 's/^ordo: training .*, attention auto: \([a-z]*\) at T 32, .*/\1/p' "$dir/a.log")
case $ran in
  fused) ref=$dir/f ;;
  materialized) ref=$dir/m ;;
  *) ref=; bad "the auto run's start line does not say which path ran: $(grep '^ordo: training' "$dir/a.log")" ;;
esac
[ -n "$ref" ] && { "$EQUAL" --equal "$ref/ckpt-20.safetensors" "$dir/a/ckpt-20.safetensors" \
  && ok || bad "the auto run differs from the $ran run it says it is"; }
# not bit for bit: each path rounds its own way (were they equal, the option did nothing)
"$EQUAL" --equal "$dir/f/ckpt-20.safetensors" "$dir/m/ckpt-20.safetensors" 2> /dev/null \
  && bad "fused and materialized runs are bit-identical" || ok
lf=$(loss_at "$dir/f" 20) lm=$(loss_at "$dir/m" 20)
awk -v a="$lf" -v b="$lm" 'BEGIN { d = a - b; exit !(a != "" && d < 1e-4 && d > -1e-4) }' \
  && ok || bad "fused and materialized losses at step 20 differ: $lf vs $lm"

# resume under one setting is bit for bit; a switch on resume is allowed and recorded
for a in fused materialized; do
  "$ORDO" train "${tiny[@]}" --attention $a --stop-after 10 --out "$dir/h-$a" > /dev/null 2>&1 # exits 130
  "$ORDO" train --resume "$dir/h-$a" > "$dir/h-$a.log" 2>&1 || bad "$a: resume failed: $(tail -2 "$dir/h-$a.log")"
  ref=$dir/f; [ $a = materialized ] && ref=$dir/m
  "$EQUAL" --equal "$ref/ckpt-20.safetensors" "$dir/h-$a/ckpt-20.safetensors" && ok || bad "$a: 10 + resume 10 differs from 20 straight"
done
"$ORDO" train "${tiny[@]}" --attention materialized --stop-after 10 --out "$dir/sw" > /dev/null 2>&1
"$ORDO" train --resume "$dir/sw" --attention fused > "$dir/sw.log" 2>&1 && ok || bad "a switch on resume was refused: $(tail -2 "$dir/sw.log")"
head -c 20000 "$dir/sw/ckpt-20.safetensors" | tr -d '\0' | grep -q '\\"attention\\":\\"fused\\"' \
  && ok || bad "the resumed checkpoint does not record attention fused"
ls=$(loss_at "$dir/sw" 20)
awk -v a="$ls" -v b="$lm" 'BEGIN { d = a - b; exit !(a != "" && d < 1e-4 && d > -1e-4) }' \
  && ok || bad "the switched run's loss at step 20 is far from the materialized one's: $ls vs $lm"

# a run killed before its first checkpoint, whose config.json (as an older ordo's) has no
# "attention": it restarts from config.json, read as fused (the checkpoint of a stopped
# materialized run removed, and the key)
"$ORDO" train "${tiny[@]}" --attention materialized --stop-after 10 --out "$dir/old" > /dev/null 2>&1
rm -f "$dir/old"/ckpt-*.safetensors
sed -i 's/"attention": *"materialized",\?//' "$dir/old/config.json"
grep -q attention "$dir/old/config.json" && bad "could not remove attention from config.json"
"$ORDO" train --resume "$dir/old" > "$dir/old.log" 2>&1 || bad "an old config.json does not resume: $(tail -2 "$dir/old.log")"
"$EQUAL" --equal "$dir/f/ckpt-20.safetensors" "$dir/old/ckpt-20.safetensors" \
  && ok || bad "a config.json without attention did not train as fused"

# eval: auto by default (each length's result names the path that ran), --attention
# materialized, recorded in eval.json, the same losses
"$ORDO" eval "$dir/f" --context 32,128 --attention fused --json > "$dir/e1" 2> "$dir/e1.err" || bad "eval failed: $(cat "$dir/e1.err")"
"$ORDO" eval "$dir/f" --context 32,128 --json > "$dir/e0" 2> "$dir/e0.err" || bad "eval (auto) failed: $(cat "$dir/e0.err")"
[ "$(key "$dir/e0" attention)" = auto ] && ok || bad "eval's report does not say attention auto by default"
[ "$(grep -c '"attention_ran": "\(fused\|materialized\)"' "$dir/e0")" = 2 ] \
  && ok || bad "eval's results do not name the path that ran at each length: $(grep -o '"attention_ran": "[a-z]*"' "$dir/e0")"
"$ORDO" eval "$dir/f" --context 32,128 --attention materialized --save --json > "$dir/e2" 2> "$dir/e2.err" \
  || bad "eval --attention materialized failed: $(cat "$dir/e2.err")"
[ "$(key "$dir/e1" attention)" = fused ] && ok || bad "eval's report does not say attention fused"
[ "$(key "$dir/f/eval.json" attention)" = materialized ] && ok || bad "eval.json does not record attention materialized"
paste <(grep -o '"val_loss": [0-9.e+-]*' "$dir/e1" | sed 's/.*: //') <(grep -o '"val_loss": [0-9.e+-]*' "$dir/e2" | sed 's/.*: //') \
  | awk 'NF == 2 { n++; d = $1 - $2; if (d > 1e-5 || d < -1e-5) bad = 1 } END { exit !(n == 2 && !bad) }' \
  && ok || bad "eval losses differ between fused and materialized: $(grep -o '"val_loss": [0-9.e+-]*' "$dir/e1" "$dir/e2" | tr '\n' ' ')"
"$ORDO" eval "$dir/f" --attention flash > /dev/null 2> "$dir/bad.err" && bad "eval --attention flash was accepted"
grep -q "fused" "$dir/bad.err" && grep -q "materialized" "$dir/bad.err" && ok || bad "the refusal does not name the choices: $(cat "$dir/bad.err")"
"$ORDO" train "${tiny[@]}" --attention flash --out "$dir/x" > /dev/null 2> "$dir/bad2.err" && bad "train --attention flash was accepted"
grep -q -- "--attention" "$dir/bad2.err" && ok || bad "train's refusal does not name --attention: $(cat "$dir/bad2.err")"

# compare: a fused and a materialized run of the same setting are one row of two runs
"$ORDO" train "${tiny[@]}" --attention materialized --seed 2 --out "$dir/cmp/m2" > /dev/null 2>&1 || bad "seed 2 training failed"
cp -r "$dir/f" "$dir/cmp/f1"
"$ORDO" compare "$dir/cmp" --out "$dir/cmpout" > "$dir/cmp.log" 2>&1 || bad "compare failed: $(tail -3 "$dir/cmp.log")"
[ "$(grep -c '^alibi' "$dir/cmpout/compare.csv")" = 1 ] && ok || bad "compare split fused and materialized runs: $(cat "$dir/cmpout/compare.csv")"
grep -qi "differ" "$dir/cmp.log" && bad "compare warns that the runs differ: $(cat "$dir/cmp.log")" || ok

finish test_attention_option
