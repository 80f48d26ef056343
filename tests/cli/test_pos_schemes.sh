#!/usr/bin/env bash
# The position schemes fire, kerple, kerple-power and xpos, and the position options (at the
# end), through the real CLI, as
# the first six are tested: each trains and learns; 10 steps + --resume 10 equal 20 straight
# bit for bit (weights, moments, state, losses); the checkpoint holds the scheme's tensors
# under their documented names (docs/positions.md) with their optimizer moments, and xpos
# none; eval runs past the training length; a sweep over them evaluates every run at 1x and
# 4x and compare tables them; viz draws the learned biases (heatmap and curves per head).
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
command -v xmllint > /dev/null || { echo "FAIL: xmllint missing (Debian libxml2-utils)"; echo "0 passed, 1 failed"; exit 1; }

tiny=(--d-model 16 --layers 2 --heads 2 --context 16 --batch 8 --steps 20 --corpus-tokens 6000
      --lr 3e-3 --warmup 2 --eval-every 10 --ckpt-every 0 --log-every 5 --threads 1)
loss_at() { grep "\"step\":$2," "$1/metrics.jsonl" | sed 's/.*"train_loss":\([0-9.e+-]*\).*/\1/'; }

for pos in fire kerple kerple-power xpos; do
  case $pos in
    fire) own="fire.fc1.weight fire.fc1.bias fire.fc2.weight fire.fc2.bias fire.c fire.L_multiplier" ;;
    kerple*) own="kerple.r1 kerple.r2" ;;
    *) own="" ;;
  esac
  r=$dir/$pos
  "$ORDO" train "${tiny[@]}" --pos $pos --out "$r" > "$r.log" 2>&1 || bad "$pos: training failed: $(tail -2 "$r.log")"
  l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
  awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "$pos: loss $l5 -> $l20 did not fall"
  # resume bit for bit
  "$ORDO" train "${tiny[@]}" --pos $pos --stop-after 10 --out "$r-half" > /dev/null 2>&1 # exits 130, as after SIGINT
  "$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "$pos: resume failed: $(tail -2 "$r-half.log")"
  "$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "$pos: 10 + resume 10 differs from 20 straight"
  cmp -s <(sed "s/,\"tokens_per_s.*//" "$r/metrics.jsonl") <(sed "s/,\"tokens_per_s.*//" "$r-half/metrics.jsonl") && ok || bad "$pos: the resumed run's losses differ"
  # the scheme's own tensors and their moments, by name; xpos has none
  hdr=$(head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0')
  for n in $own; do
    grep -qF "\"$n\":" <<<"$hdr" && grep -qF "\"optim.m.$n\":" <<<"$hdr" && grep -qF "\"optim.v.$n\":" <<<"$hdr" \
      && ok || bad "$pos: checkpoint lacks $n or its moments"
  done
  [ "$(grep -o '"\(fire\|kerple\|rel_bias\|wpe\)[^"]*":' <<<"$hdr" | wc -l)" = "$(wc -w <<<"$own")" ] \
    && ok || bad "$pos: checkpoint has position tensors other than $own"
  grep -q "\"pos\":\"$pos\"" <<<"$hdr" && ok || bad "$pos: checkpoint metadata lacks pos $pos"
  # eval at the training length and 4x past it
  "$ORDO" eval "$r" --context 16,64 --json > "$r.eval" 2> "$r.eval.err" || bad "$pos: eval failed: $(cat "$r.eval.err")"
  [ "$(grep -c '"val_loss": [0-9]' "$r.eval")" = 2 ] && ok || bad "$pos: eval should give 2 losses: $(cat "$r.eval")"
done

# the learned relative biases train: FIRE's c and L multiplier, Kerple's r1 and r2 moved
# away from their init (step 20 against a run of 1 step at a negligible learning rate)
tensor_hex() { # FILE NAME: the tensor's bytes in hex, found through the safetensors header
  local hl off
  hl=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  off=$(head -c $((8 + hl)) "$1" | tail -c "$hl" | grep -o "\"$2\":{[^}]*}" | sed 's/.*"data_offsets":\[\([0-9]*\),\([0-9]*\)\].*/\1 \2/')
  [ -n "$off" ] || return 1
  set -- "$1" $off
  od -An -tx1 -j $((8 + hl + $2)) -N $(($3 - $2)) "$1" | tr -d ' \n'
}
for n in fire.c fire.L_multiplier kerple.r1 kerple.r2; do
  pos=${n%%.*}
  [ -f "$dir/$pos-init/ckpt-1.safetensors" ] ||
    "$ORDO" train "${tiny[@]}" --pos $pos --steps 1 --lr 1e-12 --min-lr 0 --out "$dir/$pos-init" > /dev/null 2>&1 || bad "$pos: 1-step run failed"
  a=$(tensor_hex "$dir/$pos-init/ckpt-1.safetensors" $n) b=$(tensor_hex "$dir/$pos/ckpt-20.safetensors" $n)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok || bad "$n did not train (init $a, step 20 $b)"
done
[ "$(tensor_hex "$dir/fire-init/ckpt-1.safetensors" fire.c)" = cdcccc3d ] && ok || bad "fire.c does not start at 0.1f"

# a sweep over the new schemes: every run evaluated at 1x and 4x; compare lists each
sw=(--pos fire,kerple,xpos,kerple-power --seeds 1 --steps 12 --context 16 --d-model 16 --layers 1
    --heads 2 --corpus-tokens 6000 --eval-every 6 --ckpt-every 0 --threads 1 --eval-lengths 1,4)
"$ORDO" sweep "${sw[@]}" --out "$dir/sw" > "$dir/sw.out" 2>&1 || bad "sweep failed: $(tail -3 "$dir/sw.out")"
for p in fire kerple xpos kerple-power; do
  [ "$(grep -c '"val_loss": [0-9]' "$dir/sw/$p-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: $p-s1 should have 2 eval losses"
done
"$ORDO" compare "$dir/sw" > "$dir/cmp.out" 2>&1 || bad "compare failed: $(tail -3 "$dir/cmp.out")"
for p in fire kerple xpos kerple-power; do
  sed 's/  */ /g' "$dir/sw/compare.md" | grep -q "^| $p | 1 | " && ok || bad "compare.md lacks a row for $p"
  grep -q "^$p," "$dir/sw/compare.csv" && ok || bad "compare.csv lacks a row for $p"
done
xmllint --noout "$dir/sw/extrapolation.svg" "$dir/sw/report.html" && ok || bad "compare's files are not well-formed"

# viz: the learned biases per head, as a map (the t5 path) and as curves against distance
for pos in fire kerple kerple-power; do
  "$ORDO" viz "$dir/$pos" > "$dir/$pos.viz" 2>&1 || bad "$pos: viz failed: $(tail -2 "$dir/$pos.viz")"
  for f in ${pos}_bias.svg ${pos}_bias_curves.svg; do
    xmllint --noout "$dir/$pos/viz/$f" 2>/dev/null && ok || bad "$pos: viz/$f missing or not well-formed"
    grep -qF "$f" "$dir/$pos/viz/index.html" && ok || bad "$pos: index.html does not show $f"
  done
  [ "$(grep -c 'data-label="head [0-9]*"' "$dir/$pos/viz/${pos}_bias_curves.svg")" = 2 ] && ok \
    || bad "$pos: the curves should have one series per head (2)"
  grep -q "training length" "$dir/$pos/viz/${pos}_bias_curves.svg" && ok || bad "$pos: curves lack the training-length mark"
done
grep -q "c = [0-9.e-]*, L = [0-9.e+-]*" "$dir/fire/viz/fire_bias.svg" && ok || bad "fire: caption lacks c and L"
grep -q "(r1, r2) per head: ([0-9.e-]*, [0-9.e-]*) (" "$dir/kerple/viz/kerple_bias.svg" && ok || bad "kerple: caption lacks r1, r2"
"$ORDO" viz "$dir/xpos" > "$dir/xpos.viz" 2>&1 && grep -q "xpos: no position table or bias to draw" "$dir/xpos.viz" \
  && ok || bad "xpos viz: $(cat "$dir/xpos.viz")"

# partial rotary, rope and alibi on some heads, scaled absolute positions. Each
# trains; 10 + resume 10 equals 20 straight bit for bit; the checkpoint says the option in its
# metadata (and holds wpe.scale with its moments when learned); eval runs at 16x the training
# length (sinusoidal, rope, alibi); bf16 trains where the CPU has it; a sweep takes the
# options; compare shows the scale; viz draws alibi's bias with its heads.
opts26=("rope:--rope-fraction 0.5:rope_fraction\":\"0.5" "rope:--rope-heads 1:rope_heads\":\"1"
        "alibi:--alibi-heads 1:alibi_heads\":\"1" "learned:--pos-scale learned:pos_scale\":\"learned\""
        "sinusoidal:--pos-scale learned:0.5:pos_scale\":\"learned\"" "sinusoidal:--pos-scale fixed:0.5:pos_scale\":\"fixed:0.5"
        "dpb:--dpb-depth 2:dpb_depth\":\"2" "dpb:--dpb-log-distance --dpb-dim 8:dpb_log_distance\":\"1")
name26() { echo "$1-$(printf %s "$2" | tr -c 'a-z0-9' _)"; } # the run's directory name
for o in "${opts26[@]}"; do
  pos=${o%%:*} rest=${o#*:}; opt=${rest%%:pos_scale*}; opt=${opt%%:rope_*}; opt=${opt%%:alibi_*}; opt=${opt%%:dpb_*}; want=${rest#"$opt":}
  name=$(name26 $pos "$opt")
  r=$dir/$name
  read -ra oa <<<"$opt"
  "$ORDO" train "${tiny[@]}" --pos $pos "${oa[@]}" --out "$r" > "$r.log" 2>&1 || { bad "$name: training failed: $(tail -2 "$r.log")"; continue; }
  l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
  awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "$name: loss $l5 -> $l20 did not fall"
  "$ORDO" train "${tiny[@]}" --pos $pos "${oa[@]}" --stop-after 10 --out "$r-half" > /dev/null 2>&1
  "$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "$name: resume failed: $(tail -2 "$r-half.log")"
  "$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "$name: 10 + resume 10 differs from 20 straight"
  hdr=$(head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0')
  grep -qF "\"$want" <<<"$hdr" && ok || bad "$name: checkpoint metadata lacks \"$want"
  case $opt in
    *learned*) grep -qF '"wpe.scale":' <<<"$hdr" && grep -qF '"optim.m.wpe.scale":' <<<"$hdr" && ok || bad "$name: checkpoint lacks wpe.scale or its moments" ;;
    *) grep -qF '"wpe.scale":' <<<"$hdr" && bad "$name: checkpoint has a wpe.scale" || ok ;;
  esac
  if [ $pos != learned ]; then
    "$ORDO" eval "$r" --context 16,256 --json > "$r.eval" 2> "$r.eval.err" || bad "$name: eval failed: $(cat "$r.eval.err")"
    [ "$(grep -c '"val_loss": [0-9]' "$r.eval")" = 2 ] && ok || bad "$name: eval at 1x and 16x should give 2 losses"
  fi
done
# a learned scale trains away from its init (0.5: 3f000000) and compare shows what it learned
ws=$(tensor_hex "$dir/$(name26 sinusoidal "--pos-scale learned:0.5")/ckpt-20.safetensors" wpe.scale)
[ -n "$ws" ] && [ "$ws" != 0000003f ] && ok || bad "wpe.scale did not train (step 20: '$ws')"
"$ORDO" compare "$dir/$(name26 sinusoidal "--pos-scale learned:0.5")" "$dir/$(name26 sinusoidal "--pos-scale fixed:0.5")" --wide --out "$dir/c26" > "$dir/c26.out" 2>&1 || bad "compare failed: $(tail -3 "$dir/c26.out")"
grep -q "pos learned = [0-9.]*" "$dir/c26.out" && grep -q "pos fixed:0.5" "$dir/c26.out" && ok || bad "compare's embedding column lacks the scales: $(cat "$dir/c26.out")"
# a learned scale's metadata names no value: the checkpoint's is wpe.scale, whatever --init
# loaded (the option's init, 0.25 here, would be wrong: the init file holds a trained one)
src26=$dir/$(name26 learned "--pos-scale learned")
"$ORDO" train "${tiny[@]}" --pos learned --pos-scale learned --init "$src26/ckpt-20.safetensors" --steps 2 \
  --out "$dir/init26" > "$dir/init26.log" 2>&1 || bad "--init with a learned scale: $(tail -2 "$dir/init26.log")"
hdr=$(head -c 20000 "$dir/init26/ckpt-2.safetensors" | tr -d '\0')
grep -qF '"pos_scale":"learned"' <<<"$hdr" && ! grep -qF '"pos_scale":"learned:' <<<"$hdr" && ok \
  || bad "--init's checkpoint metadata: $(grep -o '"pos_scale":"[^"]*"' <<<"$hdr")"
# viz: the alibi bias of the first head only, the second without positions
"$ORDO" viz "$dir/$(name26 alibi "--alibi-heads 1")" > /dev/null 2>&1 || bad "viz failed on --alibi-heads"
grep -q "(heads 1.. without positions)" "$dir/$(name26 alibi "--alibi-heads 1")/viz/alibi_bias.svg" && ok || bad "viz's alibi caption lacks the heads without positions"
# viz: dpb's bias against distance per head, past the training length
"$ORDO" viz "$dir/$(name26 dpb "--dpb-depth 2")" > /dev/null 2>&1 || bad "viz failed on --pos dpb"
grep -q "SiLU" "$dir/$(name26 dpb "--dpb-depth 2")/viz/dpb_bias_curves.svg" && ok || bad "viz drew no dpb bias curves"
# bf16, where the CPU runs it (dpb's MLP stays float32)
if "$ORDO" train "${tiny[@]}" --pos dpb --precision bf16 --steps 4 --out "$dir/bf16-dpb" > "$dir/bf16-dpb.log" 2>&1; then ok
else grep -q "bf16" "$dir/bf16-dpb.log" && ok || bad "bf16 with --pos dpb failed: $(tail -2 "$dir/bf16-dpb.log")"; fi
# bf16, where the CPU runs it
if "$ORDO" train "${tiny[@]}" --pos rope --rope-fraction 0.5 --precision bf16 --steps 4 --out "$dir/bf16-26" > "$dir/bf16-26.log" 2>&1; then ok
else grep -q "bf16" "$dir/bf16-26.log" && ok || bad "bf16 with --rope-fraction failed: $(tail -2 "$dir/bf16-26.log")"; fi
# a sweep passes the options to every run, and evaluates each at 1x and 4x
"$ORDO" sweep --pos rope --rope-fraction 0.5 --rope-heads 1 --seeds 1 --steps 6 --context 16 --d-model 16 --layers 1 \
  --heads 2 --corpus-tokens 6000 --eval-every 3 --ckpt-every 0 --threads 1 --eval-lengths 1,4 --out "$dir/sw26" > "$dir/sw26.out" 2>&1 \
  || bad "sweep with the options failed: $(tail -3 "$dir/sw26.out")"
grep -q '"rope-fraction": 0.5' "$dir"/sw26/rope-s1/config.json && grep -q '"rope-heads": 1' "$dir"/sw26/rope-s1/config.json \
  && ok || bad "sweep did not pass --rope-fraction/--rope-heads to its run"
[ "$(grep -c '"val_loss": [0-9]' "$dir/sw26/rope-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: rope-s1 should have 2 eval losses"
# dpb through sweep (its options to every run) and compare
"$ORDO" sweep --pos dpb --dpb-log-distance --seeds 1 --steps 6 --context 16 --d-model 16 --layers 1 \
  --heads 2 --corpus-tokens 6000 --eval-every 3 --ckpt-every 0 --threads 1 --eval-lengths 1,16 --out "$dir/swdpb" > "$dir/swdpb.out" 2>&1 \
  || bad "sweep with --pos dpb failed: $(tail -3 "$dir/swdpb.out")"
grep -q '"dpb-log-distance": 1' "$dir"/swdpb/dpb-s1/config.json && ok || bad "sweep did not pass --dpb-log-distance to its dpb run"
[ "$(grep -c '"val_loss": [0-9]' "$dir/swdpb/dpb-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: dpb-s1 should have 2 eval losses (1x, 16x)"
"$ORDO" compare "$dir/swdpb/dpb-s1" "$dir/sw26/rope-s1" --out "$dir/cdpb" > "$dir/cdpb.out" 2>&1 && grep -q dpb "$dir/cdpb.out" && ok || bad "compare failed on dpb: $(tail -3 "$dir/cdpb.out")"


# randomized positions, --pos-random N (Ruoss et al. 2023): learned, sinusoidal and rope train at
# a sorted random subset of [0, N) per sequence. Each trains; 10 + resume 10 equals 20
# straight bit for bit (the positions come from the run seed and the step); the metadata says
# N and a learned table has N rows; the run differs from one at 0..T-1; eval runs at 16x the
# training length (learned: up to N = 256); a sweep takes the option and compare shows it.
for pos in learned sinusoidal rope; do
  r=$dir/rand-$pos
  "$ORDO" train "${tiny[@]}" --pos $pos --pos-random 256 --out "$r" > "$r.log" 2>&1 || { bad "rand-$pos: training failed: $(tail -2 "$r.log")"; continue; }
  l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
  awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "rand-$pos: loss $l5 -> $l20 did not fall"
  "$ORDO" train "${tiny[@]}" --pos $pos --pos-random 256 --stop-after 10 --out "$r-half" > /dev/null 2>&1
  "$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "rand-$pos: resume failed: $(tail -2 "$r-half.log")"
  "$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "rand-$pos: 10 + resume 10 differs from 20 straight"
  cmp -s <(sed "s/,\"tokens_per_s.*//" "$r/metrics.jsonl") <(sed "s/,\"tokens_per_s.*//" "$r-half/metrics.jsonl") && ok || bad "rand-$pos: the resumed run's losses differ"
  hdr=$(head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0')
  grep -qF '"pos_random":"256"' <<<"$hdr" && ok || bad "rand-$pos: checkpoint metadata lacks pos_random 256"
  if [ $pos = learned ]; then
    grep -qF '"wpe.weight":{"dtype":"F32","shape":[256,16]' <<<"$hdr" && ok || bad "rand-learned: wpe.weight is not [256, 16]"
  fi
  "$ORDO" train "${tiny[@]}" --pos $pos --steps 4 --out "$r-fixed" > /dev/null 2>&1 || bad "rand-$pos: the run at 0..T-1 failed"
  "$ORDO" train "${tiny[@]}" --pos $pos --pos-random 256 --steps 4 --out "$r-4" > /dev/null 2>&1 || bad "rand-$pos: the 4-step run failed"
  [ "$(loss_at "$r-4" 4)" != "$(loss_at "$r-fixed" 4)" ] && ok || bad "rand-$pos: the same loss as at positions 0..T-1"
  "$ORDO" eval "$r" --context 16,256 --json > "$r.eval" 2> "$r.eval.err" || bad "rand-$pos: eval failed: $(cat "$r.eval.err")"
  [ "$(grep -c '"val_loss": [0-9]' "$r.eval")" = 2 ] && ok || bad "rand-$pos: eval at 1x and 16x should give 2 losses"
done
"$ORDO" sweep --pos learned,rope --pos-random 64 --seeds 1 --steps 6 --context 16 --d-model 16 --layers 1 --heads 2 \
  --corpus-tokens 6000 --eval-every 3 --ckpt-every 0 --threads 1 --eval-lengths 1,4 --out "$dir/swr" > "$dir/swr.out" 2>&1 \
  || bad "sweep with --pos-random failed: $(tail -3 "$dir/swr.out")"
for p in learned rope; do
  grep -q '"pos-random": 64' "$dir/swr/$p-s1/config.json" && ok || bad "sweep did not pass --pos-random to $p-s1"
  [ "$(grep -c '"val_loss": [0-9]' "$dir/swr/$p-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: $p-s1 should have 2 eval losses"
done
"$ORDO" compare "$dir/swr" --wide > "$dir/cr.out" 2>&1 || bad "compare failed: $(tail -3 "$dir/cr.out")"
[ "$(grep -c "pos random 64" "$dir/cr.out")" = 2 ] && ok || bad "compare's embedding column lacks 'pos random 64'"

# --pos-random for the relative schemes: the bias from the drawn positions' differences (fire:
# its normaliser at the query's position; dpb: its MLP over 0..N-1; xpos: rotation and decay
# at each position). Each trains, resumes bit for bit, differs from the run at 0..T-1 and
# evaluates at 16x; t5 gives the same checkpoint at 1 and 3 threads, and on both attentions
# trains to the same losses (to float rounding); a sweep takes it and compare shows it.
for spec in alibi alibi:--alibi-heads:1 t5 fire kerple kerple-power xpos dpb dpb:--dpb-log-distance; do
  pos=${spec%%:*} extra=() name=rand-${spec//[:]/}
  [ "$spec" != "$pos" ] && IFS=: read -r -a extra <<<"${spec#*:}"
  r=$dir/$name
  "$ORDO" train "${tiny[@]}" --pos $pos "${extra[@]}" --pos-random 256 --out "$r" > "$r.log" 2>&1 || { bad "$name: training failed: $(tail -2 "$r.log")"; continue; }
  l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
  awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "$name: loss $l5 -> $l20 did not fall"
  "$ORDO" train "${tiny[@]}" --pos $pos "${extra[@]}" --pos-random 256 --stop-after 10 --out "$r-half" > /dev/null 2>&1
  "$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "$name: resume failed: $(tail -2 "$r-half.log")"
  "$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "$name: 10 + resume 10 differs from 20 straight"
  head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0' | grep -qF '"pos_random":"256"' && ok || bad "$name: checkpoint metadata lacks pos_random 256"
  "$ORDO" train "${tiny[@]}" --pos $pos "${extra[@]}" --steps 4 --out "$r-fixed" > /dev/null 2>&1 || bad "$name: the run at 0..T-1 failed"
  "$ORDO" train "${tiny[@]}" --pos $pos "${extra[@]}" --pos-random 256 --steps 4 --out "$r-4" > /dev/null 2>&1 || bad "$name: the 4-step run failed"
  [ "$(loss_at "$r-4" 4)" != "$(loss_at "$r-fixed" 4)" ] && ok || bad "$name: the same loss as at positions 0..T-1"
  "$ORDO" eval "$r" --context 16,256 --json > "$r.eval" 2> "$r.eval.err" || bad "$name: eval failed: $(cat "$r.eval.err")"
  [ "$(grep -c '"val_loss": [0-9]' "$r.eval")" = 2 ] && ok || bad "$name: eval at 1x and 16x should give 2 losses"
done
r=$dir/rand-t5
"$ORDO" train "${tiny[@]}" --threads 3 --pos t5 --pos-random 256 --out "$r-3t" > "$r-3t.log" 2>&1 || bad "rand-t5: 3 threads failed: $(tail -2 "$r-3t.log")"
"$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-3t/ckpt-20.safetensors" && ok || bad "rand-t5: 1 and 3 threads differ"
"$ORDO" train "${tiny[@]}" --pos t5 --pos-random 256 --attention materialized --out "$r-mat" > "$r-mat.log" 2>&1 || bad "rand-t5: materialized failed: $(tail -2 "$r-mat.log")"
awk -v a="$(loss_at "$r" 20)" -v b="$(loss_at "$r-mat" 20)" 'BEGIN { d = a - b; exit !(b != "" && d < 1e-4 && d > -1e-4) }' && ok || bad "rand-t5: fused and materialized losses differ: $(loss_at "$r" 20) vs $(loss_at "$r-mat" 20)"
"$ORDO" sweep --pos alibi,fire --pos-random 64 --seeds 1 --steps 6 --context 16 --d-model 16 --layers 1 --heads 2 \
  --corpus-tokens 6000 --eval-every 3 --ckpt-every 0 --threads 1 --eval-lengths 1,4 --out "$dir/swrr" > "$dir/swrr.out" 2>&1 \
  || bad "sweep with --pos-random over alibi, fire failed: $(tail -3 "$dir/swrr.out")"
for p in alibi fire; do
  grep -q '"pos-random": 64' "$dir/swrr/$p-s1/config.json" && ok || bad "sweep did not pass --pos-random to $p-s1"
  [ "$(grep -c '"val_loss": [0-9]' "$dir/swrr/$p-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: $p-s1 should have 2 eval losses"
done
"$ORDO" compare "$dir/swrr" --wide > "$dir/crr.out" 2>&1 || bad "compare failed: $(tail -3 "$dir/crr.out")"
[ "$(grep -c "pos random 64" "$dir/crr.out")" = 2 ] && ok || bad "compare's embedding column lacks 'pos random 64' for alibi and fire"

# fox (the forget gate): trains; 10 + resume 10 equals 20 straight bit for
# bit; the checkpoint holds each layer's gate h.{l}.attn.fgate.{weight,bias} with its moments
# and no other position tensor; the gate trains; eval at 16x the training length on both
# attentions (the same losses to float rounding); viz draws the bias against distance; bf16
# trains where the CPU has it; a sweep with fox and alibi evaluates each at 1x and 4x and
# compare tables both.
r=$dir/fox
"$ORDO" train "${tiny[@]}" --pos fox --out "$r" > "$r.log" 2>&1 || bad "fox: training failed: $(tail -2 "$r.log")"
l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "fox: loss $l5 -> $l20 did not fall"
"$ORDO" train "${tiny[@]}" --pos fox --stop-after 10 --out "$r-half" > /dev/null 2>&1
"$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "fox: resume failed: $(tail -2 "$r-half.log")"
"$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "fox: 10 + resume 10 differs from 20 straight"
cmp -s <(sed "s/,\"tokens_per_s.*//" "$r/metrics.jsonl") <(sed "s/,\"tokens_per_s.*//" "$r-half/metrics.jsonl") && ok || bad "fox: the resumed run's losses differ"
hdr=$(head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0')
for n in h.0.attn.fgate.weight h.0.attn.fgate.bias h.1.attn.fgate.weight h.1.attn.fgate.bias; do
  grep -qF "\"$n\":" <<<"$hdr" && grep -qF "\"optim.m.$n\":" <<<"$hdr" && grep -qF "\"optim.v.$n\":" <<<"$hdr" \
    && ok || bad "fox: checkpoint lacks $n or its moments"
done
[ "$(grep -o '"\(fire\|kerple\|rel_bias\|wpe\)[^"]*":' <<<"$hdr" | wc -l)" = 0 ] && ok || bad "fox: checkpoint has other position tensors"
grep -q '"pos":"fox"' <<<"$hdr" && ok || bad "fox: checkpoint metadata lacks pos fox"
"$ORDO" train "${tiny[@]}" --pos fox --steps 1 --lr 1e-12 --min-lr 0 --out "$dir/fox-init" > /dev/null 2>&1 || bad "fox: 1-step run failed"
for n in h.0.attn.fgate.weight h.1.attn.fgate.bias; do
  a=$(tensor_hex "$dir/fox-init/ckpt-1.safetensors" $n) b=$(tensor_hex "$r/ckpt-20.safetensors" $n)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok || bad "fox: $n did not train"
done
# the gate's bias starts at 0 (the paper's fgate_proj): after 1 step at lr 1e-12 every float
# is below 2^-30 in magnitude (the top byte of each little-endian float, less its sign, < 0x30)
bh=$(tensor_hex "$dir/fox-init/ckpt-1.safetensors" h.0.attn.fgate.bias)
[ ${#bh} = 16 ] && awk -v h="$bh" 'BEGIN { for (i = 7; i <= 16; i += 8) { b = (16 * (index("0123456789abcdef", substr(h, i, 1)) - 1) + index("0123456789abcdef", substr(h, i + 1, 1)) - 1) % 128; if (b >= 48) exit 1 } }' \
  && ok || bad "fox: the gate's bias does not start at 0 ($bh)"
grep -q fox_gate_bias <<<"$hdr" && bad "fox: the default run's metadata names fox_gate_bias" || ok
# --fox-gate-bias 5: every gate's bias starts at 5.0f (bytes 00 00 a0 40; 1e-12 of a step moves
# no bit of it), f = sigmoid(5) = 0.993, and the metadata says so
"$ORDO" train "${tiny[@]}" --pos fox --fox-gate-bias 5 --steps 1 --lr 1e-12 --min-lr 0 --out "$dir/fox-b5" > /dev/null 2>&1 || bad "fox: --fox-gate-bias 5 run failed"
[ "$(tensor_hex "$dir/fox-b5/ckpt-1.safetensors" h.1.attn.fgate.bias)" = 0000a0400000a040 ] && ok || bad "fox: --fox-gate-bias 5 does not start the biases at 5"
head -c 20000 "$dir/fox-b5/ckpt-1.safetensors" | tr -d '\0' | grep -q '"fox_gate_bias":"5"' && ok || bad "fox: metadata lacks fox_gate_bias 5"
for at in fused materialized; do
  "$ORDO" eval "$r" --context 16,256 --attention $at --json > "$r.$at.eval" 2> "$r.eval.err" || bad "fox: eval ($at) failed: $(cat "$r.eval.err")"
  [ "$(grep -c '"val_loss": [0-9]' "$r.$at.eval")" = 2 ] && ok || bad "fox: eval ($at) at 1x and 16x should give 2 losses"
done
paste <(grep -o '"val_loss": [0-9.e+-]*' "$r.fused.eval" | cut -d' ' -f2) <(grep -o '"val_loss": [0-9.e+-]*' "$r.materialized.eval" | cut -d' ' -f2) \
  | awk 'NF == 2 { n++; if ($1 - $2 > 1e-4 || $2 - $1 > 1e-4) d++ } END { exit !(n == 2 && !d) }' && ok || bad "fox: fused and materialized eval losses differ"
"$ORDO" viz "$r" > "$r.viz" 2>&1 || bad "fox: viz failed: $(tail -2 "$r.viz")"
xmllint --noout "$r/viz/fox_bias_curves.svg" 2>/dev/null && ok || bad "fox: viz/fox_bias_curves.svg missing or not well-formed"
grep -qF fox_bias_curves.svg "$r/viz/index.html" && ok || bad "fox: index.html does not show the curves"
[ "$(grep -c 'data-label="layer [0-9]* head [0-9]*"' "$r/viz/fox_bias_curves.svg")" = 4 ] && ok \
  || bad "fox: the curves should have one series per layer and head (4)"
grep -q "training length" "$r/viz/fox_bias_curves.svg" && ok || bad "fox: curves lack the training-length mark"
if "$ORDO" train "${tiny[@]}" --pos fox --precision bf16 --steps 4 --out "$dir/fox-bf16" > "$dir/fox-bf16.log" 2>&1; then ok
else grep -q "bf16" "$dir/fox-bf16.log" && ok || bad "fox: bf16 failed: $(tail -2 "$dir/fox-bf16.log")"; fi
"$ORDO" sweep --pos fox,alibi --seeds 1 --steps 12 --context 16 --d-model 16 --layers 1 --heads 2 --corpus-tokens 6000 \
  --eval-every 6 --ckpt-every 0 --threads 1 --eval-lengths 1,4 --out "$dir/swfox" > "$dir/swfox.out" 2>&1 \
  || bad "fox: sweep failed: $(tail -3 "$dir/swfox.out")"
for p in fox alibi; do
  [ "$(grep -c '"val_loss": [0-9]' "$dir/swfox/$p-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: $p-s1 should have 2 eval losses"
done
"$ORDO" compare "$dir/swfox" > "$dir/cmpfox.out" 2>&1 || bad "fox: compare failed: $(tail -3 "$dir/cmpfox.out")"
sed 's/  */ /g' "$dir/swfox/compare.md" | grep -q "^| fox | 1 | " && ok || bad "compare.md lacks a row for fox"
grep -q "^fox," "$dir/swfox/compare.csv" && ok || bad "compare.csv lacks a row for fox"

# cope (contextual positions): trains; 10 + resume 10 equals 20 straight bit
# for bit; the checkpoint holds each layer's h.{l}.attn.cope.pos_emb [NH, P, hs] (P = --context
# + 1 by default, or --cope-max) with its moments, cope_max in the metadata, and no other
# position tensor; the embeddings start at zero and train; eval at 16x the training length on
# both attentions (the same losses to float rounding); viz draws the positions; bf16 trains
# where the CPU has it; a sweep with cope evaluates at 1x and 4x and compare shows P.
r=$dir/cope
"$ORDO" train "${tiny[@]}" --pos cope --out "$r" > "$r.log" 2>&1 || bad "cope: training failed: $(tail -2 "$r.log")"
l5=$(loss_at "$r" 5) l20=$(loss_at "$r" 20)
awk -v a="$l5" -v b="$l20" 'BEGIN { exit !(b != "" && b < a - 0.05) }' && ok || bad "cope: loss $l5 -> $l20 did not fall"
"$ORDO" train "${tiny[@]}" --pos cope --stop-after 10 --out "$r-half" > /dev/null 2>&1
"$ORDO" train --resume "$r-half" > "$r-half.log" 2>&1 || bad "cope: resume failed: $(tail -2 "$r-half.log")"
"$EQUAL" --equal "$r/ckpt-20.safetensors" "$r-half/ckpt-20.safetensors" && ok || bad "cope: 10 + resume 10 differs from 20 straight"
cmp -s <(sed "s/,\"tokens_per_s.*//" "$r/metrics.jsonl") <(sed "s/,\"tokens_per_s.*//" "$r-half/metrics.jsonl") && ok || bad "cope: the resumed run's losses differ"
hdr=$(head -c 20000 "$r/ckpt-20.safetensors" | tr -d '\0')
for n in h.0.attn.cope.pos_emb h.1.attn.cope.pos_emb; do
  grep -qF "\"$n\":{\"dtype\":\"F32\",\"shape\":[2,17,8]" <<<"$hdr" && grep -qF "\"optim.m.$n\":" <<<"$hdr" \
    && grep -qF "\"optim.v.$n\":" <<<"$hdr" && ok || bad "cope: checkpoint lacks $n [2, 17, 8] or its moments"
done
[ "$(grep -o '"\(fire\|kerple\|rel_bias\|wpe\|dpb\.\)[^"]*":\|fgate' <<<"$hdr" | wc -l)" = 0 ] && ok || bad "cope: checkpoint has other position tensors"
grep -q '"pos":"cope"' <<<"$hdr" && grep -q '"cope_max":"17"' <<<"$hdr" && ok || bad "cope: checkpoint metadata lacks pos cope, cope_max 17"
"$ORDO" train "${tiny[@]}" --pos cope --steps 1 --lr 1e-12 --min-lr 0 --out "$dir/cope-init" > /dev/null 2>&1 || bad "cope: 1-step run failed"
a=$(tensor_hex "$dir/cope-init/ckpt-1.safetensors" h.1.attn.cope.pos_emb) b=$(tensor_hex "$r/ckpt-20.safetensors" h.1.attn.cope.pos_emb)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok || bad "cope: h.1.attn.cope.pos_emb did not train"
# the embeddings start at zero (the reference's init): after 1 step at lr 1e-12 all 2*17*8
# floats are below 1e-9 in magnitude
f=$dir/cope-init/ckpt-1.safetensors
hl=$(od -An -tu8 -N8 "$f" | tr -d ' ')
off=$(head -c $((8 + hl)) "$f" | tail -c "$hl" | grep -o '"h.1.attn.cope.pos_emb":{[^}]*}' | sed 's/.*"data_offsets":\[\([0-9]*\),.*/\1/')
od -An -v -tf4 -j $((8 + hl + off)) -N $((4 * 2 * 17 * 8)) "$f" | tr -s ' ' '\n' | grep . \
  | awk '{ n++; if ($1 > 1e-9 || $1 < -1e-9) big++ } END { exit !(n == 272 && !big) }' && ok || bad "cope: the embeddings do not start at 0"
for at in fused materialized; do
  "$ORDO" eval "$r" --context 16,256 --attention $at --json > "$r.$at.eval" 2> "$r.eval.err" || bad "cope: eval ($at) failed: $(cat "$r.eval.err")"
  [ "$(grep -c '"val_loss": [0-9]' "$r.$at.eval")" = 2 ] && ok || bad "cope: eval ($at) at 1x and 16x should give 2 losses"
done
paste <(grep -o '"val_loss": [0-9.e+-]*' "$r.fused.eval" | cut -d' ' -f2) <(grep -o '"val_loss": [0-9.e+-]*' "$r.materialized.eval" | cut -d' ' -f2) \
  | awk 'NF == 2 { n++; if ($1 - $2 > 1e-4 || $2 - $1 > 1e-4) d++ } END { exit !(n == 2 && !d) }' && ok || bad "cope: fused and materialized eval losses differ"
# --cope-max: the embeddings' length, recorded; a resume keeps it
"$ORDO" train "${tiny[@]}" --pos cope --cope-max 5 --steps 4 --out "$dir/cope5" > "$dir/cope5.log" 2>&1 || bad "cope: --cope-max 5 failed: $(tail -2 "$dir/cope5.log")"
hdr=$(head -c 20000 "$dir/cope5/ckpt-4.safetensors" | tr -d '\0')
grep -qF '"h.0.attn.cope.pos_emb":{"dtype":"F32","shape":[2,5,8]' <<<"$hdr" && grep -q '"cope_max":"5"' <<<"$hdr" \
  && ok || bad "cope: --cope-max 5 did not make [2, 5, 8] embeddings with cope_max 5"
"$ORDO" train --resume "$dir/cope5" --steps 6 > "$dir/cope5r.log" 2>&1 && [ -f "$dir/cope5/ckpt-6.safetensors" ] \
  && ok || bad "cope: resume with --cope-max 5 failed: $(tail -2 "$dir/cope5r.log")"
"$ORDO" viz "$r" > "$r.viz" 2>&1 || bad "cope: viz failed: $(tail -2 "$r.viz")"
for f in cope_positions.svg cope_position_curves.svg; do
  xmllint --noout "$r/viz/$f" 2>/dev/null && grep -qF "$f" "$r/viz/index.html" && ok || bad "cope: viz/$f missing, not well-formed or not in index.html"
done
[ "$(grep -c 'data-label="layer [0-9]* head [0-9]*"' "$r/viz/cope_position_curves.svg")" = 4 ] && ok \
  || bad "cope: the position curves should have one series per layer and head (4)"
grep -q "clamped at P - 1 = 16" "$r/viz/cope_positions.svg" && ok || bad "cope: the position map does not say P"
if "$ORDO" train "${tiny[@]}" --pos cope --precision bf16 --steps 4 --out "$dir/cope-bf16" > "$dir/cope-bf16.log" 2>&1; then ok
else grep -q "bf16" "$dir/cope-bf16.log" && ok || bad "cope: bf16 failed: $(tail -2 "$dir/cope-bf16.log")"; fi
"$ORDO" sweep --pos cope --cope-max 9 --seeds 1 --steps 12 --context 16 --d-model 16 --layers 1 --heads 2 --corpus-tokens 6000 \
  --eval-every 6 --ckpt-every 0 --threads 1 --eval-lengths 1,4 --out "$dir/swcope" > "$dir/swcope.out" 2>&1 \
  || bad "cope: sweep failed: $(tail -3 "$dir/swcope.out")"
grep -q '"cope-max": 9' "$dir/swcope/cope-s1/config.json" && ok || bad "sweep did not pass --cope-max to its cope run"
[ "$(grep -c '"val_loss": [0-9]' "$dir/swcope/cope-s1/eval.json" 2>/dev/null)" = 2 ] && ok || bad "sweep: cope-s1 should have 2 eval losses"
"$ORDO" compare "$dir/swcope" "$dir/swfox/fox-s1" --out "$dir/cmpcope" > "$dir/cmpcope.out" 2>&1 || bad "cope: compare failed: $(tail -3 "$dir/cmpcope.out")"
grep -q '^cope,.*"x1 std 0.02, cope P 9"' "$dir/cmpcope/compare.csv" && ok || bad "compare.csv lacks cope's row with P in its embedding column"

finish
