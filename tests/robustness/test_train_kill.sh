#!/usr/bin/env bash
# kill -9 at random moments during a short run, then --resume, over and over: the run must
# always resume and end bit-identical (weights, moments, state) to an uninterrupted run.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
args=(--task order --corpus-tokens 20000 --context 16 --d-model 32 --layers 1 --heads 2
      --batch 8 --steps 120 --ckpt-every 3 --keep 2 --eval-every 10 --eval-batches 2 --threads 2)
t0=$(date +%s%N)
"$ORDO" train "${args[@]}" --out "$dir/ref" > /dev/null || { echo "FAIL: reference run"; exit 1; }
# The kill delays are fractions of the reference run's own wall time, so that a fast machine
# (the whole run in under 100 ms) and a loaded one (seconds) are both killed mid-run.
ref_us=$((($(date +%s%N) - t0) / 1000))

pass=0 fail=0 total_kills=0
for trial in 1 2 3 4; do
  # a trial whose run outpaced every kill (the machine got faster after the reference run)
  # is run again with delays half as long, so that every trial kills
  scale=100 kills=0
  while [ $kills -eq 0 ] && [ $scale -ge 6 ]; do
    run="$dir/killed$trial"
    rm -rf "$run"
    "$ORDO" train "${args[@]}" --out "$run" > /dev/null 2>&1 &
    pid=$!
    RANDOM=$trial
    for attempt in $(seq 1 30); do
      # 2..60% of the reference run: before, between and during checkpoints
      us=$((ref_us * (RANDOM % 59 + 2) / 100 * scale / 100 + 1000))
      sleep "$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))"
      if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; wait "$pid" 2>/dev/null; kills=$((kills+1)); fi
      if [ -f "$run/ckpt-120.safetensors" ]; then break; fi
      if [ -f "$run/config.json" ]; then
        "$ORDO" train --resume "$run" > /dev/null 2>"$run.err" &
      else # killed before it wrote anything (slow start: ASan, a busy machine): run it again
        "$ORDO" train "${args[@]}" --out "$run" > /dev/null 2>"$run.err" &
      fi
      pid=$!
    done
    wait "$pid" 2>/dev/null
    scale=$((scale / 2))
  done
  total_kills=$((total_kills + kills))
  if [ ! -f "$run/ckpt-120.safetensors" ]; then
    if [ -f "$run/config.json" ]; then "$ORDO" train --resume "$run" > /dev/null 2>>"$run.err"
    else "$ORDO" train "${args[@]}" --out "$run" > /dev/null 2>>"$run.err"; fi
  fi
  if "$EQUAL" --equal "$dir/ref/ckpt-120.safetensors" "$run/ckpt-120.safetensors"; then
    echo "trial $trial: $kills kills, resumed to an identical end"; pass=$((pass+1))
  else
    echo "FAIL: trial $trial ($kills kills) differs"; cat "$run.err"; fail=$((fail+1))
  fi
done
# every trial's first attempt kills before 60% of a whole run: fewer kills means the test
# tested nothing
if [ $total_kills -lt 4 ]; then echo "FAIL: only $total_kills kills in all trials"; fail=$((fail+1)); fi
finish
