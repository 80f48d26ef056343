#!/usr/bin/env bash
# `ordo train` through the real CLI: a 2-layer model on the built-in corpus learns (loss far
# below ln V) within the time budget; the run dir holds what docs/checkpoints.md describes; SIGINT
# finishes the step, checkpoints and exits 130; eval and sample work on the run; bad
# options are refused with a message naming them; the embedding-convention options
# round-trip through config.json, the checkpoint and --resume.
set -u
. "$(dirname "$0")/../lib.sh"

# 1. learning: the order corpus has 16 words, ln 16 = 2.77 (its entropy floor is about 0.98)
start=$(date +%s)
"$ORDO" train --layers 2 --d-model 64 --heads 4 --context 64 --batch 16 --steps 200 \
  --eval-every 100 --threads 2 --out "$dir/learn" > "$dir/learn.log" 2>&1 || bad "training run failed: $(tail -3 "$dir/learn.log")"
secs=$(( $(date +%s) - start ))
# about 15 s on 2 idle cores; the bound is generous because test machines are shared
[ "$secs" -le 180 ] && ok || bad "200 steps took ${secs}s (bound 180s)"
first=$(head -1 "$dir/learn/metrics.jsonl" | sed 's/.*"train_loss":\([0-9.e+-]*\).*/\1/')
val=$(grep '"step":200,' "$dir/learn/metrics.jsonl" | sed 's/.*"val_loss":\([0-9.e+-]*\).*/\1/')
echo "learning: first logged train loss $first, final val loss $val, ${secs}s"
awk -v v="$val" 'BEGIN { exit !(v != "" && v < 0.6 * log(16)) }' && ok || bad "val loss $val not below 0.6*ln(16)"
awk -v v="$val" -v f="$first" 'BEGIN { exit !(v < f - 1.0) }' && ok || bad "loss did not fall by 1 nat ($first -> $val)"

# 2. the run directory: config.json with every option, metrics lines with the agreed keys
for key in pos context d-model layers heads batch lr warmup clip schedule min-lr weight-decay seed; do
  grep -q "\"$key\":" "$dir/learn/config.json" && ok || bad "config.json lacks $key"
done
grep -q '"step":10,"train_loss":[0-9.e+-]*,"lr":[0-9.e+-]*,"tokens_per_s":' "$dir/learn/metrics.jsonl" && ok || bad "metrics line format"
grep -q '"step":100,.*"val_loss":.*"val_ppl":' "$dir/learn/metrics.jsonl" && ok || bad "no val_loss at step 100"
[ -f "$dir/learn/ckpt-200.safetensors" ] && ok || bad "no final checkpoint"
# what ran the products: in the start line, and in config.json as "backend" (not an option:
# the run's config.json still reads back, here as a --config file)
grep -q "^ordo: training .*, GEMM [a-z0-9 -]*, OpenBLAS core [^ ]* .*-> $dir/learn\$" "$dir/learn.log" && ok || bad "start line lacks the GEMM and BLAS core: $(grep '^ordo: training' "$dir/learn.log")"
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then env_want="\"$OPENBLAS_CORETYPE\""; else env_want=null; fi
for kv in '"ordo_gemm": "' '"openblas_core": "' "\"openblas_coretype_env\": $env_want" '"openblas_threading": "'; do
  sed -n '/"backend": {/,/}/p' "$dir/learn/config.json" | grep -qF "$kv" && ok || bad "config.json's backend lacks $kv"
done
ORDO_GEMM=blas "$ORDO" train --config "$dir/learn/config.json" --steps 2 --eval-every 0 --out "$dir/cfg" > "$dir/cfg.log" 2>&1 && ok || bad "a run's config.json as --config: $(tail -3 "$dir/cfg.log")"
grep -q '"ordo_gemm": "openblas"' "$dir/cfg/config.json" && ok || bad "ORDO_GEMM=blas not recorded in config.json"

# 3. SIGINT: finish the step, checkpoint, exit 130; the run then resumes to the end
"$ORDO" train --steps 100000 --ckpt-every 0 --eval-every 0 --threads 1 --out "$dir/int" > /dev/null 2> "$dir/int.err" &
pid=$!
for _ in $(seq 1 100); do grep -q '"step":20,' "$dir/int/metrics.jsonl" 2>/dev/null && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "SIGINT exit status $rc, expected 130"
ls "$dir/int"/ckpt-*.safetensors > /dev/null 2>&1 && ok || bad "no checkpoint after SIGINT"
grep -q "resume" "$dir/int.err" && ok || bad "SIGINT message does not say how to resume"
"$ORDO" train --resume "$dir/int" --steps 30 > /dev/null 2>&1; rc=$?
# the run was interrupted past step 30 (or at it): --steps 30 leaves nothing to do but is fine
[ $rc -eq 0 ] && ok || bad "resume after SIGINT exited $rc"

# 4. eval and sample on the trained run
"$ORDO" eval "$dir/learn" --context 32,64,128 > "$dir/eval.txt" 2>&1 && ok || bad "eval failed: $(cat "$dir/eval.txt")"
grep -q "past the learned table" "$dir/eval.txt" && ok || bad "eval at 128 > T_max=64 should say it cannot"
"$ORDO" sample "$dir/learn" --prompt "cat chased" --tokens 12 --seed 3 > "$dir/s1" 2>&1 && ok || bad "sample failed: $(cat "$dir/s1")"
"$ORDO" sample "$dir/learn" --prompt "cat chased" --tokens 12 --seed 3 > "$dir/s2" 2>&1
cmp -s "$dir/s1" "$dir/s2" && ok || bad "sample is not reproducible with the same --seed"
grep -q "cat chased" "$dir/s1" && ok || bad "sample output lacks the prompt"

# 5. bad options: a message naming the problem, a non-zero exit that is not a signal
expect_err() { # <pattern> <args...>
  local pat=$1; shift
  out=$("$ORDO" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -qF -- "$pat" <<<"$out"; then bad "ordo $*: rc $rc, output: $out"; else ok; fi
}
expect_err "--heads 3 does not divide --d-model 64" train --heads 3 --out "$dir/x"
expect_err "--pos: unknown position scheme 'fourier' (expected none, learned, sinusoidal, rope, alibi, t5, fire, kerple, xpos, kerple-power, fox, dpb" train --pos fourier --out "$dir/x"
expect_err "even head size" train --pos rope --d-model 24 --heads 8 --out "$dir/x"
expect_err "--pos xpos needs an even head size" train --pos xpos --d-model 24 --heads 8 --out "$dir/x"
expect_err "--lr" train --lr -1 --out "$dir/x"
expect_err "already holds a run" train --steps 5 --out "$dir/learn"
expect_err "--pos is \"rope\" but the checkpoint was trained with \"learned\"" train --resume "$dir/learn" --pos rope
expect_err "nowhere: cannot open the run directory" train --resume "$dir/nowhere"
echo '{"backend": "own"}' > "$dir/backend.json" # only the recorded object is skipped
expect_err 'unknown key "backend"' train --config "$dir/backend.json" --out "$dir/x"
[ ! -e "$dir/x" ] && ok || bad "a refused command created its --out"

# 6. the token-embedding convention: documented; kept in config.json and the checkpoint;
# continued bit for bit by --resume; a change on resume refused; bad values refused
EQUAL=$BUILD/test_train_resume
help=$("$ORDO" train --help)
for o in "--embed-style S" "--embed-scale S" "--embed-std X"; do
  grep -qF -- "$o" <<<"$help" && ok || bad "train --help does not document $o"
done
grep -q "vaswani" <<<"$help" && grep -q "sqrt" <<<"$help" && ok || bad "train --help does not name vaswani and sqrt"
emb=(--pos sinusoidal --embed-style vaswani --embed-scale 2.5 --d-model 32 --heads 2 --layers 1
     --context 16 --corpus-tokens 5000 --steps 20 --eval-every 0 --ckpt-every 0 --threads 1)
"$ORDO" train "${emb[@]}" --out "$dir/emb" > "$dir/emb.log" 2>&1 || bad "scaled run failed: $(tail -3 "$dir/emb.log")"
grep -q '"embed-style": "vaswani"' "$dir/emb/config.json" && grep -q '"embed-scale": "2.5"' "$dir/emb/config.json" \
  && grep -q '"embed-std": 0' "$dir/emb/config.json" && ok || bad "config.json lacks the embedding keys: $(grep embed "$dir/emb/config.json")"
grep -q '"embed-style": "gpt2"' "$dir/learn/config.json" && grep -q '"embed-scale": null' "$dir/learn/config.json" \
  && ok || bad "a default run's config.json should hold embed-style gpt2 and embed-scale null"
# the resolved scale in the checkpoint's flat metadata, for a GPT-2 loader (gpt_ref.py reads it)
head -c 4096 "$dir/emb/ckpt-20.safetensors" | grep -aq '"embed_scale":"2.5"' && ok || bad "checkpoint metadata lacks embed_scale 2.5"
head -c 4096 "$dir/learn/ckpt-200.safetensors" | grep -aq '"embed_scale"' && bad "a GPT-2-convention checkpoint should not carry embed_scale" || ok
"$ORDO" train "${emb[@]}" --stop-after 10 --out "$dir/emb2" > /dev/null 2>&1
"$ORDO" train --resume "$dir/emb2" > "$dir/emb2.log" 2>&1 || bad "resume of the scaled run failed: $(tail -2 "$dir/emb2.log")"
"$EQUAL" --equal "$dir/emb/ckpt-20.safetensors" "$dir/emb2/ckpt-20.safetensors" && ok || bad "scaled run: 10 + resume 10 differs from 20 straight"
cmp -s <(grep -v '"out"' "$dir/emb/config.json") <(grep -v '"out"' "$dir/emb2/config.json") && ok || bad "config.json changed on resume"
"$ORDO" eval "$dir/emb" --context 16 > "$dir/emb.eval" 2>&1 && ok || bad "eval of the scaled run failed: $(cat "$dir/emb.eval")"
expect_err '--embed-scale is "3" but the checkpoint was trained with "2.5"' train --resume "$dir/emb" --embed-scale 3
expect_err '--embed-style is "gpt2" but the checkpoint was trained with "vaswani"' train --resume "$dir/emb" --embed-style gpt2
expect_err '--embed-std is 0.5 but the checkpoint was trained with 0' train --resume "$dir/emb" --embed-std 0.5
expect_err '--embed-scale is "sqrt" but the checkpoint was trained with null' train --resume "$dir/learn" --embed-scale sqrt
expect_err "--embed-scale is 'abc', expected a number in (0, 1e4] or sqrt" train --embed-scale abc --out "$dir/x"
expect_err "--embed-scale is '0', expected" train --embed-scale 0 --out "$dir/x"
expect_err "--embed-scale is '8x', expected" train --embed-scale 8x --out "$dir/x"
expect_err "--embed-style: unknown embedding style 'bert' (expected gpt2 or vaswani)" train --embed-style bert --out "$dir/x"
expect_err "--embed-std is -1, expected in (0, 100]" train --embed-std -1 --out "$dir/x"
[ ! -e "$dir/x" ] && ok || bad "a refused embedding option created its --out"

finish
