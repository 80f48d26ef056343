#!/usr/bin/env bash
# docs/experiments.md P8: passkey retrieval (Mohtashami and Jaggi 2023) at
# CPU scale. Every scheme is trained at 128 on `--task passkey` (bytes, the built-in filler;
# 4M tokens, so that 2000 steps of 32 see each of 28000 examples about twice, not 45 times as
# with the default 200000), 3 seeds, and scored by retrieval accuracy at
# 1x..32x and 5 depths (OUT_DIR/base/<pos>-s<seed>/eval/base.json). rope is also scored with
# PI, NTK-aware and YaRN at factor 4 with 0 fine-tune steps (eval/pi-x4.json, ...), and after
# 200 fine-tune steps at 512 with each scaling (none, pi, ntk, yarn: OUT_DIR/ft/rope-<m>-s<seed>,
# its eval/base.json), as PI and YaRN fine-tune at the target length.
#   scripts/p8_passkey.sh OUT_DIR
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# POS the schemes; SEEDS (default 3). Run again, it keeps what is finished. Tables:
# scripts/experiment_tables.py passkey OUT_DIR/base (and --variant pi-x4 ..., and OUT_DIR/ft).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
OUT=$1
POS=${POS:-learned,sinusoidal,rope,alibi,t5,fire,kerple,kerple-power,xpos,dpb,fox,cope,none}
SEEDS=${SEEDS:-3}
task=(--task passkey --tokenizer byte --corpus-tokens 4000000 --val-frac 0.025 --d-model 64
  --layers 2 --heads 4 --embed-style gpt2 --threads 1 --progress plain)
lengths=1,2,4,8,16,32
"$O" sweep --attention fused "${task[@]}" --pos "$POS" --seeds "$SEEDS" --steps 2000 --lr 3e-3 --warmup 50 \
  --context 128 --batch 32 --eval-every 500 --eval-lengths $lengths --examples 20 \
  --eval-variants base,pi:4,ntk:4,yarn:4 --jobs "${JOBS:-1}" --out "$OUT/base"
case ",$POS," in *,rope,*) ;; *) exit 0 ;; esac
# 200 fine-tune steps at 4 x 128 with each scaling (factor 4), a sweep-like tree of runs whose
# eval/base.json is scored at the same lengths (multiples of 128) as the base runs.
ctx=$(for m in ${lengths//,/ }; do printf '%s,' $((m * 128)); done)
ctx=${ctx%,}
ft_one() { # METHOD SEED
  local m=$1 s=$2 run=$OUT/ft/rope-$1-s$2 scale=()
  [ "$m" = none ] || scale=(--rope-scaling "$m" --rope-factor 4)
  if [ ! -s "$run/eval/base.json" ]; then
    [ -s "$run/ckpt-200.safetensors" ] ||
      "$O" train --attention fused "${task[@]}" --pos rope --seed "$s" --init "$OUT/base/rope-s$s" "${scale[@]}" \
        --context 512 --batch 32 --steps 200 --lr 1e-3 --warmup 20 --eval-every 0 \
        --out "$run" > "$OUT/ft/rope-$m-s$s.log" 2>&1
    "$O" eval --attention fused "$run" --context "$ctx" --examples 20 --threads 1 --save=base > /dev/null
  fi
}
mkdir -p "$OUT/ft"
pids=()
for s in $(seq 1 "$SEEDS"); do
  for m in none pi ntk yarn; do
    ft_one $m $s &
    pids+=($!)
    if [ ${#pids[@]} -ge "${JOBS:-1}" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
done
wait
