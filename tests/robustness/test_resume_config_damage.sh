#!/usr/bin/env bash
# A resume never mixes two runs when config.json is damaged. Run B's checkpoint (same options,
# another --seed) copied into run A is skipped as foreign while A's config.json is intact; with
# config.json garbage or a FIFO the resume is refused, naming the file (it went on from B's
# weights and rewrote config.json with B's seed); with config.json missing, A's checkpoints and
# B's disagree, and the resume is refused naming both steps. A run whose checkpoints all agree
# still resumes without config.json (test_hostile_runs.sh case 9).
set -u
. "$(dirname "$0")/../lib.sh"

opts=(--task order --corpus-tokens 4000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4
      --eval-every 0 --ckpt-every 10 --keep 5 --threads 1)
"$ORDO" train "${opts[@]}" --steps 20 --seed 1 --out "$dir/A" > /dev/null 2>&1 || bad "run A"
"$ORDO" train "${opts[@]}" --steps 30 --seed 7 --out "$dir/B" > /dev/null 2>&1 || bad "run B"
setup() { # a copy of A with B's step-30 checkpoint in it
  rm -rf "$dir/a"; cp -a "$dir/A" "$dir/a"; cp "$dir/B/ckpt-30.safetensors" "$dir/a/"
}
resume() { "$ORDO" train --resume "$dir/a" --steps 35 > "$dir/out" 2>&1; }

setup
resume && grep -q "not a checkpoint of this run" "$dir/out" && grep -q "from step 20" "$dir/out" \
  && ok || bad "intact config.json: B's checkpoint not skipped: $(tail -3 "$dir/out")"

setup; echo 'not json {' > "$dir/a/config.json"
resume; rc=$?
[ $rc -ne 0 ] && grep -q "$dir/a/config.json" "$dir/out" && grep -q "cannot be told from another run's" "$dir/out" \
  && ok || bad "garbage config.json: exit $rc: $(tail -3 "$dir/out")"
[ ! -e "$dir/a/ckpt-35.safetensors" ] && ok || bad "garbage config.json: the run went on"

setup; rm "$dir/a/config.json"; mkfifo "$dir/a/config.json"
timeout 60 "$ORDO" train --resume "$dir/a" --steps 35 > "$dir/out" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "config.json" "$dir/out" \
  && ok || bad "FIFO config.json: exit $rc: $(tail -3 "$dir/out")"

setup; rm "$dir/a/config.json"
resume; rc=$?
[ $rc -ne 0 ] && grep -q "checkpoints of steps 30 and 20 are of different runs" "$dir/out" && grep -q "seed" "$dir/out" \
  && ok || bad "missing config.json: exit $rc: $(tail -3 "$dir/out")"
[ ! -e "$dir/a/ckpt-35.safetensors" ] && [ ! -e "$dir/a/config.json" ] && ok || bad "missing config.json: the run went on"

# without config.json, A's own checkpoints agree: it resumes
rm -rf "$dir/a"; cp -a "$dir/A" "$dir/a"; rm "$dir/a/config.json"
resume && grep -q "from step 20" "$dir/out" && ok || bad "A without config.json did not resume: $(tail -3 "$dir/out")"

finish test_resume_config_damage
