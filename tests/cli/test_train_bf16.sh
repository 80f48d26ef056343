#!/usr/bin/env bash
# `ordo train --precision bf16` through the real CLI: every position scheme trains in bf16 a
# few steps, near its fp32 run but not equal to it (the bf16 products ran);
# the run records its precision and oneDNN's ISA (start line, config.json) and writes
# float32 checkpoints; 10 steps + resume 10 give the same checkpoint bit for bit as 20
# straight, also with another --threads on resume; a model with long-K weight gradients writes
# the same checkpoint on 1, 2 and 3 threads; eval and sample work on a bf16 run;
# `ordo --version` says whether bf16 runs here. Where the CPU has no bf16 the training part
# is skipped and the refusal is checked instead (test_bad_inputs.sh checks it everywhere).
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume

ver=$("$ORDO" --version)
grep -q "oneDNN [0-9.]* on [a-z0-9_]*" <<<"$ver" && ok || bad "--version does not name oneDNN and its ISA: $ver"
grep -q "^--precision bf16: " <<<"$ver" && ok || bad "--version does not say whether bf16 runs: $ver"
if ! grep -q "^--precision bf16: available" <<<"$ver"; then
  out=$("$ORDO" train --precision bf16 --steps 2 --out "$dir/no" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -qF -- "--precision bf16: this CPU has no bf16 arithmetic" <<<"$out" && ok \
    || bad "no bf16 here, but --precision bf16 was not refused: rc $rc: $out"
  echo "SKIP: bf16 training (this CPU runs no bf16: $(grep '^--precision' <<<"$ver"))"
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]; exit
fi

# the train loss of a run at a step, from metrics.jsonl
loss_at() { grep "\"step\":$2," "$1/metrics.jsonl" | sed 's/.*"train_loss":\([0-9.e+-]*\).*/\1/'; }

# 1. every position scheme, 150 steps in each precision (a 1-layer model on the order corpus)
small=(--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --corpus-tokens 20000 --steps 150
       --lr 3e-3 --warmup 5 --log-every 10 --eval-every 0 --ckpt-every 0 --threads 2)
for pos in none learned sinusoidal rope alibi t5 fire kerple xpos kerple-power fox cope; do
  for p in fp32 bf16; do
    "$ORDO" train "${small[@]}" --pos $pos --precision $p --out "$dir/$pos-$p" > "$dir/$pos-$p.log" 2>&1 \
      || bad "$pos $p: training failed: $(tail -2 "$dir/$pos-$p.log")"
  done
  f10=$(loss_at "$dir/$pos-fp32" 10) f30=$(loss_at "$dir/$pos-fp32" 30) f150=$(loss_at "$dir/$pos-fp32" 150)
  b10=$(loss_at "$dir/$pos-bf16" 10) b30=$(loss_at "$dir/$pos-bf16" 30) b150=$(loss_at "$dir/$pos-bf16" 150)
  echo "$pos: train loss at steps 10/30/150, fp32 $f10 / $f30 / $f150, bf16 $b10 / $b30 / $b150"
  # bf16 learns (sinusoidal is slow under GPT-2's embedding convention: 0.08 nats here); it
  # stays within 0.02 nats of fp32 while the two runs still follow one path (step 30), and in
  # the same regime after 150 steps, when small differences have grown into different paths
  # (0.1 apart for t5 here; docs/performance.md compares bf16 and fp32 across seeds)
  awk -v a="$b10" -v b="$b150" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "$pos bf16: loss $b10 -> $b150 did not fall"
  # The 0.02 grows by a tenth of how far fp32's loss fell from step 10 to 30: where a scheme is
  # already falling fast (fox 0.36, kerple 0.28 nats in those 20 steps), a difference in the last
  # bits moves the run along the slope (fox under the sanitizers on an AVX512-BF16 AMD EPYC:
  # 2.2189 against 2.2415, 0.023 apart; 0.016 in the optimised build).
  awk -v a="$f30" -v b="$b30" -v f="$f10" 'BEGIN { d = a - b; if (d < 0) d = -d; s = f - a; if (s < 0) s = -s
      exit !(a != "" && b != "" && d < 0.02 + 0.1 * s) }' \
    && ok || bad "$pos: bf16 loss $b30 at step 30 is not within 0.02 + 0.1 x (step 10 - step 30) of fp32's $f30"
  # (not for xpos: on a -O0 build its seed-1 bf16 run stays on the order task's plateau at
  # 1.9 about 50 steps longer than fp32's, 1.87 against 1.60 at step 150, while a Release
  # build has 1.600 and 1.602 and seed 2 1.511 and 1.512 on -O0: where a path leaves the
  # plateau, not a bf16 error; xpos keeps the checks above)
  if [ $pos != xpos ]; then
  awk -v a="$f150" -v b="$b150" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d < 0.25) }' \
    && ok || bad "$pos: bf16 loss $b150 at step 150 is not within 0.25 of fp32's $f150"
  fi
  cmp -s <(cut -d, -f1-2 "$dir/$pos-fp32/metrics.jsonl") <(cut -d, -f1-2 "$dir/$pos-bf16/metrics.jsonl") \
    && bad "$pos: bf16 losses equal fp32's to the bit: did bf16 run?" || ok
done

# 2. what the run records: the start line, config.json, float32 checkpoints
log=$dir/rope-bf16.log
grep -q "^ordo: training .*, precision bf16, attention [^,]*, GEMM .*, oneDNN [0-9.]* on [a-z0-9_]* -> $dir/rope-bf16\$" "$log" \
  && ok || bad "start line lacks the precision and oneDNN: $(grep '^ordo: training' "$log")"
grep -q '"precision": "bf16"' "$dir/rope-bf16/config.json" && ok || bad "config.json lacks precision bf16"
grep -q '"precision": "fp32"' "$dir/rope-fp32/config.json" && ok || bad "config.json lacks precision fp32"
for kv in '"onednn_version": "' '"onednn_isa": "' '"bf16": true'; do
  sed -n '/"backend": {/,/}/p' "$dir/rope-bf16/config.json" | grep -qF "$kv" && ok || bad "config.json's backend lacks $kv"
done
hdr=$(head -c 8192 "$dir/rope-bf16/ckpt-150.safetensors" | tr -d '\0')
grep -q '"dtype":"F32"' <<<"$hdr" && ! grep -q 'BF16' <<<"$hdr" && ok || bad "a bf16 run's checkpoint is not all F32"

# 3. resume bit for bit: 10 + 10 against 20 straight, in bf16, for learned and rope; the
# second half also on another thread count (no product depends on it: dnnl.c)
res=(--layers 2 --d-model 32 --heads 4 --context 32 --batch 8 --corpus-tokens 20000 --steps 20
     --eval-every 10 --ckpt-every 0 --precision bf16)
for pos in learned rope; do
  "$ORDO" train "${res[@]}" --pos $pos --threads 2 --out "$dir/r-$pos" > /dev/null 2>&1 || bad "$pos: straight run failed"
  "$ORDO" train "${res[@]}" --pos $pos --threads 2 --stop-after 10 --out "$dir/s-$pos" > /dev/null 2>&1
  "$ORDO" train --resume "$dir/s-$pos" --threads 2 > "$dir/s-$pos.log" 2>&1 || bad "$pos: resume failed: $(tail -2 "$dir/s-$pos.log")"
  "$EQUAL" --equal "$dir/r-$pos/ckpt-20.safetensors" "$dir/s-$pos/ckpt-20.safetensors" && ok \
    || bad "$pos bf16: 10 + resume 10 differs from 20 straight"
  cmp -s <(cut -d, -f1-4 "$dir/r-$pos/metrics.jsonl") <(cut -d, -f1-4 "$dir/s-$pos/metrics.jsonl") \
    && ok || bad "$pos bf16: the resumed run's losses differ"
  "$ORDO" train "${res[@]}" --pos $pos --threads 1 --stop-after 10 --out "$dir/t-$pos" > /dev/null 2>&1
  "$ORDO" train --resume "$dir/t-$pos" --threads 2 > /dev/null 2>&1 || bad "$pos: resume on 2 threads failed"
  "$EQUAL" --equal "$dir/r-$pos/ckpt-20.safetensors" "$dir/t-$pos/ckpt-20.safetensors" && ok \
    || bad "$pos bf16: 10 on 1 thread + resume 10 on 2 differs from 20 straight on 2"
done
# weight gradients with a long K (B*T = 2048) and a small C, 64x192 and 64x64: oneDNN left to
# thread them splits the sum over k on AMX, and these 3 steps differed on 2 and on 3 threads
# from 1 (Sapphire Rapids) before dnnl.c planned every product for one thread
long=(--layers 1 --d-model 64 --heads 2 --context 128 --batch 16 --corpus-tokens 40000 --steps 3
      --ckpt-every 3 --eval-every 0 --precision bf16)
for t in 1 2 3; do
  "$ORDO" train "${long[@]}" --threads $t --out "$dir/k$t" > "$dir/k$t.log" 2>&1 || bad "long-K run on $t threads failed: $(tail -2 "$dir/k$t.log")"
done
for t in 2 3; do
  "$EQUAL" --equal "$dir/k1/ckpt-3.safetensors" "$dir/k$t/ckpt-3.safetensors" && ok \
    || bad "bf16 with long-K weight gradients: --threads $t differs from --threads 1"
done

# 4. eval and sample read a bf16 run (its checkpoints are float32)
"$ORDO" eval "$dir/r-rope" --context 32,64 > "$dir/eval.txt" 2>&1 && ok || bad "eval of a bf16 run: $(cat "$dir/eval.txt")"
"$ORDO" sample "$dir/r-rope" --prompt "cat chased" --tokens 5 > "$dir/sample.txt" 2>&1 && ok || bad "sample of a bf16 run: $(cat "$dir/sample.txt")"

finish
