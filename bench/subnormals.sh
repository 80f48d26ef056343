#!/usr/bin/env bash
# Subnormal floats (framework/cpu.h, docs/performance.md "Subnormal floats"): the last steps of
# a trained run resumed with ORDO_SUBNORMALS=keep (IEEE: x86 takes a microcode assist on each
# subnormal operand or result) and with ordo's default, flush (FTZ/DAZ), REPS times each,
# alternating; one thread, so the two sides share nothing. Prints the CPU and kernels, each
# side's seconds, the medians and their ratio, and whether the two sides' checkpoints hold the
# same tensor bytes (the flush changes nothing above 1.2e-38; this says whether it changed
# anything at all). Each side's time is the whole command's: the process's start and the
# task's data (MQAR generates its examples) are in both, so the ratio understates the steps'.
#   bench/subnormals.sh [RUN]
# RUN: a trained run with two checkpoints (its last two are the span resumed: 200 steps by
# default); without it, MQAR as P10 trains it (scripts/p10_recall.sh's recipe, learned, seed 1,
# 12000 steps: a few minutes of a core with subnormals flushed) is trained first into a
# temporary folder. ORDO (default build/ordo), REPS (default 3).
set -eu
shopt -s inherit_errexit # a side that fails stops the script, not a short time counted
O=${ORDO:-build/ordo}
REPS=${REPS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RUN=${1:-}
if [ -z "$RUN" ]; then
  echo "training MQAR (learned, seed 1, 12000 steps) into $work/run ..." >&2
  "$O" train --task mqar --pos learned --d-model 64 --layers 2 --heads 1 --batch 32 --lr 1e-3 \
    --warmup 100 --corpus-tokens 6400000 --eval-every 1000 --eval-batches 10 --threads 1 \
    --seed 1 --context 64 --steps 12000 --progress off --out "$work/run" > /dev/null
  RUN=$work/run
fi
ckpts=$(cd "$RUN" && ls ckpt-*.safetensors | sort -t- -k2 -n)
[ "$(wc -w <<< "$ckpts")" -ge 2 ] || { echo "$RUN: needs two checkpoints" >&2; exit 2; }
last=$(tail -n1 <<< "$ckpts") prev=$(tail -n2 <<< "$ckpts" | head -n1)
to=${last#ckpt-} to=${to%.safetensors} from=${prev#ckpt-} from=${from%.safetensors}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
"$O" --version | sed -n 2p
echo "resuming $RUN from step $from to $to ($((to - from)) steps), one thread, $REPS rounds"
side() { # mode round -> seconds; the run copied without its last checkpoint
  local d=$work/$1-$2
  rm -rf "$d"
  mkdir "$d"
  cp "$RUN"/config.json "$RUN/$prev" "$d"/
  if [ -f "$RUN/metrics.jsonl" ]; then cp "$RUN/metrics.jsonl" "$d"/; fi
  local t0 t1
  t0=$(date +%s.%N)
  ORDO_SUBNORMALS=$1 "$O" train --resume "$d" --steps "$to" --threads 1 --progress off > /dev/null \
    || { echo "resume with ORDO_SUBNORMALS=$1 failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f\n", b - a}'
}
keep=() flush=()
for r in $(seq 1 "$REPS"); do
  k=$(side keep "$r") || exit 1
  f=$(side flush "$r") || exit 1
  keep+=("$k") flush+=("$f")
  echo "round $r: keep ${keep[-1]} s, flush ${flush[-1]} s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mk=$(median "${keep[@]}") mf=$(median "${flush[@]}")
echo "median: keep $mk s, flush $mf s, flush / keep $(awk -v a="$mf" -v b="$mk" 'BEGIN {printf "%.3f", a / b}')"
# the tensors' bytes (the header's metadata holds times and differs)
python3 - "$work/keep-1/$last" "$work/flush-1/$last" << 'PY'
import json, struct, sys
def tensors(p):
    b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    h.pop("__metadata__", None)
    return {k: b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]] for k, v in h.items()}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
same = a.keys() == b.keys() and all(a[k] == b[k] for k in a)
print("tensors of the two sides: %s (%d tensors)" % ("the same bytes" if same else "DIFFER", len(a)))
PY
