#!/usr/bin/env bash
# docs/experiments.md P7: the wave-3 schemes and options on P1's protocol (bytes of
# tinyshakespeare, trained at 64, scored at 1x..16x, GPT-2 convention) and on P3's copy task.
#   scripts/p7_wave3.sh DATA OUT_DIR [PART ...]
# Parts (default: all): ref (P1's rows, rerun here as the yardstick), wave3 (dpb, fox, cope),
# random (--pos-random 1024), scale (--pos-scale learned, both conventions), copy (P3's copy:
# rope, learned and the wave-3 schemes, and rope and learned with --pos-random 256). The --pos-random runs are scored both at 0..T-1 (eval
# record base) and at drawn positions (record drawn: eval --positions drawn). Each part is
# one `ordo sweep` into OUT_DIR/<part>; run again, it keeps what is finished. Tables: scripts/experiment_tables.py loss|accuracy DIR.
# ORDO (default build/ordo) is the binary; JOBS (default 1) runs at once, one thread each;
# SEEDS (default 3) the language runs' seeds, COPY_SEEDS (default 5) the copy runs'.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DATA OUT_DIR [ref|wave3|random|scale|copy ...]" >&2; exit 2; }
O=${ORDO:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
DATA=$1 OUT=$2
shift 2
parts=${*:-ref wave3 random scale copy}
J=${JOBS:-1}
mkdir -p "$OUT"
p1=(--data "$DATA" --tokenizer byte --seeds "${SEEDS:-3}" --steps 1500 --lr 3e-3 --warmup 50 --context 64
    --batch 16 --d-model 64 --layers 2 --heads 4 --eval-lengths 1,2,4,8,16 --jobs "$J" --threads 1)
p3=(--task copy --min-len 1 --max-len 16 --seeds "${COPY_SEEDS:-5}" --steps 1500 --lr 3e-3 --warmup 50 --context 64
    --batch 32 --d-model 64 --layers 2 --heads 4 --eval-lengths 1 --examples 200 --jobs "$J" --threads 1)
for part in $parts; do
  case $part in
    ref) "$O" sweep --attention fused "${p1[@]}" --pos learned,sinusoidal,rope,alibi,none --embed-style gpt2 --out "$OUT/ref" ;;
    wave3) "$O" sweep --attention fused "${p1[@]}" --pos dpb,fox,cope --embed-style gpt2 --out "$OUT/wave3" ;;
    # A learned table of 1024 rows covers the longest evaluation (16 x 64).
    random) "$O" sweep --attention fused "${p1[@]}" --pos rope,learned,alibi,kerple --pos-random 1024 --embed-style gpt2 \
      --eval-variants base,drawn --out "$OUT/random" ;;
    scale)
      "$O" sweep --attention fused "${p1[@]}" --pos learned,sinusoidal --pos-scale learned --embed-style gpt2 --out "$OUT/scale-gpt2"
      "$O" sweep --attention fused "${p1[@]}" --pos learned,sinusoidal --pos-scale learned --embed-style vaswani --out "$OUT/scale-vaswani" ;;
    copy)
      "$O" sweep --attention fused "${p3[@]}" --pos rope,learned,dpb,fox,cope --embed-style gpt2 --out "$OUT/copy"
      # 256 positions: the learned table then holds n = 32's 66 positions too.
      "$O" sweep --attention fused "${p3[@]}" --pos rope,learned --pos-random 256 --embed-style gpt2 \
        --eval-variants base,drawn --out "$OUT/copy-random" ;;
    *) echo "$0: unknown part '$part' (expected ref, wave3, random, scale or copy)" >&2; exit 2 ;;
  esac
done
