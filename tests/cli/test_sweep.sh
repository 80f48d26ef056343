#!/usr/bin/env bash
# `ordo sweep`: one run per scheme x seed with the same data and budget, each evaluated into
# eval.json; the result does not depend on --jobs; running it again changes nothing; a
# sweep interrupted with SIGINT continues, when run again, to the same end; the embedding
# options reach every run.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
args=(--pos learned,alibi --seeds 2 --steps 24 --context 16 --d-model 32 --layers 1 --heads 2
      --corpus-tokens 8000 --eval-every 12 --ckpt-every 4 --threads 1 --eval-lengths 1,2)

"$ORDO" sweep "${args[@]}" --jobs 2 --out "$dir/a" > "$dir/a.out" 2>&1 || bad "sweep failed: $(tail -3 "$dir/a.out")"
"$ORDO" sweep "${args[@]}" --jobs 1 --out "$dir/b" > "$dir/b.out" 2>&1 || bad "sweep --jobs 1 failed"
for run in learned-s1 learned-s2 alibi-s1 alibi-s2; do
  for f in config.json metrics.jsonl ckpt-24.safetensors eval.json train.log; do
    [ -f "$dir/a/$run/$f" ] && ok || bad "$run lacks $f"
  done
  grep -q "\"seed\": ${run##*-s}," "$dir/a/$run/config.json" && ok || bad "$run: wrong seed in config"
  grep -q "\"pos\": \"${run%-s*}\"" "$dir/a/$run/config.json" && ok || bad "$run: wrong pos in config"
  "$EQUAL" --equal "$dir/a/$run/ckpt-24.safetensors" "$dir/b/$run/ckpt-24.safetensors" && ok || bad "$run differs between --jobs 2 and --jobs 1"
done
grep -q '"runs": \[' "$dir/a/sweep.json" && grep -q '"alibi-s2"' "$dir/a/sweep.json" && ok || bad "sweep.json"
# same data for every run: the seed changes the weights and the shuffle, not the corpus
for run in learned-s2 alibi-s1; do
  grep -q '"data-seed": 1234' "$dir/a/$run/config.json" && ok || bad "$run: data seed"
done
# eval.json: 1x and 2x; the learned table cannot go to 2x, alibi can
grep -q '"note": "past the learned table (T_max 16)"' "$dir/a/learned-s1/eval.json" && ok || bad "learned at 2x should be n/a"
[ "$(grep -c '"val_loss": [0-9]' "$dir/a/alibi-s1/eval.json")" = 2 ] && ok || bad "alibi should have 2 losses"
grep -q "all 4 runs done" "$dir/a.out" && ok || bad "no summary line"

# running it again: nothing retrained (checkpoints untouched)
before=$(stat -c %Y "$dir"/a/*/ckpt-24.safetensors | md5sum)
"$ORDO" sweep "${args[@]}" --jobs 2 --out "$dir/a" > /dev/null 2>&1 || bad "second sweep failed"
[ "$(stat -c %Y "$dir"/a/*/ckpt-24.safetensors | md5sum)" = "$before" ] && ok || bad "a finished sweep was retrained"

# SIGINT in the middle, then the same command again: the same end as an uninterrupted sweep
long=(--pos learned,alibi --seeds 1 --steps 3000 --context 16 --d-model 32 --layers 1 --heads 2
      --corpus-tokens 8000 --eval-every 0 --ckpt-every 10 --threads 1 --eval-lengths 1 --jobs 2)
"$ORDO" sweep "${long[@]}" --out "$dir/ref" > /dev/null 2>&1 || bad "reference sweep failed"
"$ORDO" sweep "${long[@]}" --out "$dir/int" > "$dir/int.out" 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
  # any checkpoint: with --keep 3 a given one (ckpt-20) lives only until ckpt-50 is written
  compgen -G "$dir/int/learned-s1/ckpt-*.safetensors" > /dev/null &&
    compgen -G "$dir/int/alibi-s1/ckpt-*.safetensors" > /dev/null && break
  sleep 0.01
done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "interrupted sweep exited $rc, expected 130 as ordo train"
grep -q "run the same command again" "$dir/int.out" && ok || bad "no hint after interruption: $(cat "$dir/int.out")"
[ ! -f "$dir/int/learned-s1/ckpt-3000.safetensors" ] && ok || bad "the sweep was not interrupted"
"$ORDO" sweep "${long[@]}" --out "$dir/int" > /dev/null 2>&1 || bad "continued sweep failed"
for run in learned-s1 alibi-s1; do
  "$EQUAL" --equal "$dir/ref/$run/ckpt-3000.safetensors" "$dir/int/$run/ckpt-3000.safetensors" && ok || bad "$run: interrupted sweep ended differently"
done

# the embedding-convention options reach every run (config.json) and compare's table
"$ORDO" sweep --pos learned,sinusoidal --seeds 1 --steps 4 --context 16 --d-model 32 --layers 1 \
  --heads 2 --corpus-tokens 8000 --eval-every 0 --threads 1 --eval-lengths 1 --jobs 2 \
  --embed-style vaswani --embed-scale sqrt --embed-std 0.05 --out "$dir/emb" > "$dir/emb.out" 2>&1 \
  || bad "sweep with embedding options failed: $(tail -3 "$dir/emb.out")"
for run in learned-s1 sinusoidal-s1; do
  grep -q '"embed-style": "vaswani"' "$dir/emb/$run/config.json" && grep -q '"embed-scale": "sqrt"' "$dir/emb/$run/config.json" \
    && grep -q '"embed-std": 0.05' "$dir/emb/$run/config.json" && ok || bad "$run: embedding options not passed through"
done
# sqrt(32) = 5.657
# (the wide table has the embedding column; its padding squeezed)
"$ORDO" compare "$dir/emb" --wide > "$dir/emb.cmp" 2>&1 && sed 's/  */ /g' "$dir/emb.cmp" | grep -q '| sinusoidal | 1 | [0-9]* | x5.657 std 0.05 |' \
  && ok || bad "compare does not show the convention: $(cat "$dir/emb.cmp")"

# bad input
out=$("$ORDO" sweep --pos learned,fourier --out "$dir/x" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "fourier" <<<"$out" && ok || bad "unknown scheme: $out"
out=$("$ORDO" sweep --pos rope,rope --out "$dir/x" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "twice" <<<"$out" && ok || bad "duplicate scheme: $out"
out=$("$ORDO" sweep --seeds 0 --out "$dir/x" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q -- "--seeds is 0" <<<"$out" && ok || bad "--seeds 0: $out"

finish
