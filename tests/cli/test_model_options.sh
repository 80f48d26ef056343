#!/usr/bin/env bash
# The model options through the real CLI:
#  - --grad-accum K: the same result as one batch of K x --batch rows. Not bitwise: each
#    parameter's gradient is then a sum of K per-micro-batch sums rather than one sum over the
#    batch, so float rounding differs (and the micro-batches' matmuls have other shapes). With
#    SGD (an update proportional to the gradient) the weights after the steps agree within 1e-5
#    of each tensor's largest value (measured: 5e-7); with AdamW, whose first steps move each
#    weight by about lr * sign(gradient) and so turn rounding noise in gradients that are
#    mathematically zero (the key bias) into lr-sized differences, the losses are compared
#    (within 1e-6 relative; measured 1e-8). A run stopped and resumed mid-way is bitwise equal
#    to one straight through.
#  - --dropout: training with it differs from without, is bitwise reproducible, resumes bit
#    for bit, and does not depend on --threads; eval and sample never drop.
#  - --untied-head: lm_head.weight in the checkpoint with untied_head in its metadata, eval and
#    sample work, the PyTorch reference loads it, resume continues bit for bit, bf16 runs it.
#  - every key in config.json, and `ordo sweep` passes them to its runs.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
PY=/usr/bin/python3
# the numbers of a metrics line's key at a step
metric() { grep "\"step\":$2," "$1/metrics.jsonl" | sed "s/.*\"$3\":\([0-9.e+-]*\).*/\1/"; }
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t * (b < 0 ? -b : b)) }'; }
have_py=0
"$PY" -c 'import numpy' > /dev/null 2>&1 && have_py=1
[ -x "$EQUAL" ] || { echo "missing $EQUAL (build first)"; exit 1; }

small=(--task order --corpus-tokens 3000 --context 16 --d-model 32 --heads 2 --layers 2
       --eval-every 5 --eval-batches 2 --warmup 2 --threads 1)

# 1. the keys: documented, in config.json with their defaults
help=$("$ORDO" train --help)
for o in "--dropout X" "--dropout-embd X" "--dropout-attn X" "--dropout-resid X" "--[no-]untied-head" "--grad-accum N"; do
  grep -qF -- "$o" <<<"$help" && ok || bad "train --help does not document $o"
done
"$ORDO" train "${small[@]}" --steps 2 --batch 8 --out "$dir/plain" > /dev/null 2>&1 || bad "plain run failed"
for kv in '"dropout": 0' '"dropout-embd": -1' '"dropout-attn": -1' '"dropout-resid": -1' '"untied-head": 0' '"grad-accum": 1'; do
  grep -qF "$kv" "$dir/plain/config.json" && ok || bad "config.json lacks $kv"
done

# 2. --grad-accum: SGD weights and AdamW losses against one larger batch; 20 steps of 10 rows
# with --no-drop-last pass the end of the first epoch, whose last batch is short (about 168
# windows: 16 batches of 10 and one of 8, which 5 x 2 splits 5 + 3)
sgd=(--optimizer sgd --lr 0.5 --momentum 0.9)
"$ORDO" train "${small[@]}" "${sgd[@]}" --steps 4 --batch 8 --out "$dir/b8" > /dev/null 2>&1 || bad "batch 8 run failed"
"$ORDO" train "${small[@]}" "${sgd[@]}" --steps 4 --batch 4 --grad-accum 2 --out "$dir/b4x2" > /dev/null 2>&1 || bad "batch 4 x 2 run failed"
"$ORDO" train "${small[@]}" "${sgd[@]}" --steps 20 --batch 10 --no-drop-last --out "$dir/b10" > /dev/null 2>&1 || bad "batch 10 run failed"
"$ORDO" train "${small[@]}" "${sgd[@]}" --steps 20 --batch 5 --grad-accum 2 --no-drop-last --out "$dir/b5x2" > /dev/null 2>&1 || bad "batch 5 x 2 run failed"
for pair in "b8 b4x2 4" "b10 b5x2 20"; do
  set -- $pair
  for key in train_loss val_loss; do
    close "$(metric "$dir/$2" "$3" "$key")" "$(metric "$dir/$1" "$3" "$key")" 1e-6 && ok \
      || bad "$2: $key at step $3 $(metric "$dir/$2" "$3" "$key") vs $1's $(metric "$dir/$1" "$3" "$key")"
  done
  if [ $have_py -eq 1 ]; then
    "$PY" "$src/tests/ref/st_diff.py" "$dir/$1/ckpt-$3.safetensors" "$dir/$2/ckpt-$3.safetensors" --tol 1e-5 > "$dir/diff" \
      && ok || bad "$2: weights differ from $1's: $(cat "$dir/diff")"
    echo "grad-accum $2 against $1, SGD: $(cat "$dir/diff")"
  fi
done
# the losses at every logged step, not only the last
paste -d' ' <(grep -o '"train_loss":[0-9.e+-]*' "$dir/b10/metrics.jsonl" | cut -d: -f2) \
            <(grep -o '"train_loss":[0-9.e+-]*' "$dir/b5x2/metrics.jsonl" | cut -d: -f2) > "$dir/losses"
[ "$(wc -l < "$dir/losses")" -ge 2 ] && ok || bad "no logged losses to compare"
while read -r a b; do close "$b" "$a" 1e-6 || { bad "b5x2 train loss $b vs b10's $a"; break; }; done < "$dir/losses"
# AdamW (the default): the losses
"$ORDO" train "${small[@]}" --steps 10 --batch 8 --out "$dir/a8" > /dev/null 2>&1 || bad "AdamW batch 8 run failed"
"$ORDO" train "${small[@]}" --steps 10 --batch 2 --grad-accum 4 --out "$dir/a2x4" > /dev/null 2>&1 || bad "AdamW batch 2 x 4 run failed"
for s in 5 10; do
  for key in train_loss val_loss; do
    close "$(metric "$dir/a2x4" $s $key)" "$(metric "$dir/a8" $s $key)" 1e-6 && ok \
      || bad "AdamW 2x4: $key at step $s $(metric "$dir/a2x4" $s $key) vs batch 8's $(metric "$dir/a8" $s $key)"
  done
done
echo "grad-accum AdamW step 10: train loss $(metric "$dir/a2x4" 10 train_loss) vs $(metric "$dir/a8" 10 train_loss), val $(metric "$dir/a2x4" 10 val_loss) vs $(metric "$dir/a8" 10 val_loss)"
# tokens/s counts the whole step's tokens; the lr schedule counts optimizer steps
close "$(metric "$dir/a2x4" 5 lr)" "$(metric "$dir/a8" 5 lr)" 0 && ok || bad "lr at step 5 differs with --grad-accum"
# resume mid-run: bitwise the run straight through
"$ORDO" train "${small[@]}" --steps 10 --batch 2 --grad-accum 4 --stop-after 5 --out "$dir/a2x4r" > /dev/null 2>&1
"$ORDO" train --resume "$dir/a2x4r" > "$dir/r.log" 2>&1 || bad "resume of the grad-accum run failed: $(tail -2 "$dir/r.log")"
"$EQUAL" --equal "$dir/a2x4/ckpt-10.safetensors" "$dir/a2x4r/ckpt-10.safetensors" && ok || bad "grad-accum: 5 + resume 5 differs from 10 straight"

# 3. dropout: changes training, reproducible, resumes bit for bit, the same on 1 and 2 threads
drop=(--dropout 0.1 --dropout-attn 0.2)
"$ORDO" train "${small[@]}" "${drop[@]}" --steps 10 --batch 8 --out "$dir/d" > /dev/null 2>&1 || bad "dropout run failed"
grep -q '"dropout": 0.1' "$dir/d/config.json" && grep -q '"dropout-attn": 0.2' "$dir/d/config.json" && ok || bad "config.json lacks the dropout rates"
[ "$(metric "$dir/d" 10 train_loss)" != "$(metric "$dir/a8" 10 train_loss)" ] && ok || bad "dropout did not change the training loss"
"$ORDO" train "${small[@]}" "${drop[@]}" --steps 10 --batch 8 --threads 2 --out "$dir/d2" > /dev/null 2>&1 || bad "dropout run on 2 threads failed"
"$EQUAL" --equal "$dir/d/ckpt-10.safetensors" "$dir/d2/ckpt-10.safetensors" && ok || bad "dropout: --threads 2 differs from --threads 1"
"$ORDO" train "${small[@]}" "${drop[@]}" --steps 10 --batch 8 --stop-after 4 --out "$dir/dr" > /dev/null 2>&1
"$ORDO" train --resume "$dir/dr" > "$dir/dr.log" 2>&1 || bad "resume of the dropout run failed: $(tail -2 "$dir/dr.log")"
"$EQUAL" --equal "$dir/d/ckpt-10.safetensors" "$dir/dr/ckpt-10.safetensors" && ok || bad "dropout: 4 + resume 6 differs from 10 straight"
# with accumulation, the masks are those of the whole batch: the same run as batch 8, to rounding
"$ORDO" train "${small[@]}" "${drop[@]}" --steps 10 --batch 4 --grad-accum 2 --out "$dir/d4x2" > /dev/null 2>&1 || bad "dropout grad-accum run failed"
close "$(metric "$dir/d4x2" 10 train_loss)" "$(metric "$dir/d" 10 train_loss)" 1e-6 && ok \
  || bad "dropout with grad-accum: loss $(metric "$dir/d4x2" 10 train_loss) vs batch 8's $(metric "$dir/d" 10 train_loss)"
# eval and sample never drop: the same numbers twice, and eval equals the run's own last val loss
"$ORDO" eval "$dir/d" > "$dir/e1" 2>&1 && "$ORDO" eval "$dir/d" > "$dir/e2" 2>&1 && cmp -s "$dir/e1" "$dir/e2" && ok || bad "eval of a dropout run is not reproducible: $(cat "$dir/e1")"
"$ORDO" sample "$dir/d" --prompt "cat" --tokens 8 --seed 2 > "$dir/s1" 2>&1 && "$ORDO" sample "$dir/d" --prompt "cat" --tokens 8 --seed 2 > "$dir/s2" 2>&1 \
  && cmp -s "$dir/s1" "$dir/s2" && ok || bad "sample of a dropout run is not reproducible"

# 4. the untied head
"$ORDO" train "${small[@]}" --untied-head --steps 6 --batch 8 --out "$dir/u" > "$dir/u.log" 2>&1 || bad "untied run failed: $(tail -2 "$dir/u.log")"
grep -q '"untied-head": 1' "$dir/u/config.json" && ok || bad "config.json lacks untied-head 1"
head -c 8192 "$dir/u/ckpt-6.safetensors" | grep -aq '"lm_head.weight":{"dtype":"F32","shape":\[' && ok || bad "checkpoint lacks lm_head.weight"
head -c 8192 "$dir/u/ckpt-6.safetensors" | grep -aq '"optim.m.lm_head.weight"' && ok || bad "checkpoint lacks lm_head's moments"
head -c 8192 "$dir/u/ckpt-6.safetensors" | grep -aq '"untied_head":"1"' && ok || bad "checkpoint metadata lacks untied_head"
head -c 8192 "$dir/plain/ckpt-2.safetensors" | grep -aq 'lm_head\|untied_head' && bad "a tied checkpoint names lm_head" || ok
"$ORDO" eval "$dir/u" > "$dir/u.eval" 2>&1 && ok || bad "eval of the untied run failed: $(cat "$dir/u.eval")"
"$ORDO" sample "$dir/u" --prompt "cat" --tokens 8 > "$dir/u.sample" 2>&1 && ok || bad "sample of the untied run failed: $(cat "$dir/u.sample")"
"$ORDO" train "${small[@]}" --untied-head --steps 6 --batch 8 --stop-after 3 --out "$dir/ur" > /dev/null 2>&1
"$ORDO" train --resume "$dir/ur" > "$dir/ur.log" 2>&1 || bad "resume of the untied run failed: $(tail -2 "$dir/ur.log")"
"$EQUAL" --equal "$dir/u/ckpt-6.safetensors" "$dir/ur/ckpt-6.safetensors" && ok || bad "untied: 3 + resume 3 differs from 6 straight"
"$ORDO" train "${small[@]}" --untied-head --init "$dir/u/ckpt-6.safetensors" --steps 1 --batch 8 --out "$dir/uinit" > "$dir/uinit.log" 2>&1 \
  && ok || bad "--init from an untied checkpoint failed: $(tail -2 "$dir/uinit.log")"
echo '{"untied-head": true, "grad-accum": 2, "dropout": 0.25}' > "$dir/opts.json"
"$ORDO" train "${small[@]}" --config "$dir/opts.json" --steps 1 --batch 4 --out "$dir/cfg" > /dev/null 2>&1 || bad "options from a config file failed"
grep -q '"untied-head": 1' "$dir/cfg/config.json" && grep -q '"grad-accum": 2' "$dir/cfg/config.json" \
  && grep -q '"dropout": 0.25' "$dir/cfg/config.json" && ok || bad "config file's model options not taken"
if [ $have_py -eq 1 ] && "$PY" -c 'import torch' > /dev/null 2>&1; then
  "$PY" "$src/tests/ref/gpt_ref.py" --check-checkpoint "$dir/u/ckpt-6.safetensors" --idx "1 2 3 4; 5 6 7 8" > "$dir/ref.out" 2>&1 \
    && ok || bad "the PyTorch reference does not load the untied checkpoint: $(tail -3 "$dir/ref.out")"
else
  echo "SKIP: PyTorch reference load (no torch)"; skip=$((skip+1))
fi
if "$ORDO" --version | grep -q "^--precision bf16: available"; then
  "$ORDO" train "${small[@]}" --untied-head --precision bf16 --steps 6 --batch 8 --out "$dir/ubf" > "$dir/ubf.log" 2>&1 \
    && ok || bad "untied head in bf16 failed: $(tail -2 "$dir/ubf.log")"
  close "$(metric "$dir/ubf" 6 val_loss)" "$(metric "$dir/u" 6 val_loss)" 1e-2 && ok \
    || bad "untied bf16 val loss $(metric "$dir/ubf" 6 val_loss) far from fp32's $(metric "$dir/u" 6 val_loss)"
else
  echo "SKIP: untied head in bf16 (this CPU runs no bf16)"; skip=$((skip+2))
fi

# 5. sweep passes the options to its runs
"$ORDO" sweep --pos learned,rope --seeds 1 "${small[@]}" --steps 2 --batch 4 --untied-head --grad-accum 2 --dropout 0.1 \
  --eval-lengths 1 --out "$dir/sw" > "$dir/sw.log" 2>&1 || bad "sweep failed: $(tail -3 "$dir/sw.log")"
for r in "$dir"/sw/*-s1; do
  grep -q '"untied-head": 1' "$r/config.json" && grep -q '"grad-accum": 2' "$r/config.json" \
    && grep -q '"dropout": 0.1' "$r/config.json" && ok || bad "sweep run $r lacks the model options"
done

finish
