#!/usr/bin/env bash
# Resume says what it does, through the real CLI:
# - `--resume --steps N` with a larger N: the old and new schedule are printed, and the lr
#   follows --resume-schedule: continue (default: the old curve, then min-lr; continuous),
#   replan-decay (from the current lr down to min-lr over the new steps; continuous), replan
#   (a new run's curve: the jump of old ordo); the choice and its history are in config.json;
# - the same --steps resumes bit for bit (no schedule change, nothing printed);
# - --keep never deletes the checkpoint at the end of an earlier invocation's --steps (a
#   milestone, recorded in the checkpoint itself), also across a stop and a resume.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume

args=(--task order --corpus-tokens 4000 --context 16 --d-model 16 --layers 1 --heads 2 --batch 4
      --warmup 2 --lr 1e-3 --min-lr 1e-4 --eval-every 0 --log-every 1 --threads 1)
# lr LINE_STEP RUN: the lr logged on metrics line "step": LINE_STEP (the lr of step index
# LINE_STEP - 1, 0-based, as ordo_lr_at counts)
lr() { python3 -c '
import json, sys
for l in open(sys.argv[2] + "/metrics.jsonl"):
    o = json.loads(l)
    if o["step"] == int(sys.argv[1]): print(repr(o["lr"]))' "$1" "$2"; }
# cosine I WARMUP LAST FROM_LR: the cosine of ordo's schedule at index I
cosine() { python3 -c '
import math, sys
i, w, last, lr0 = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
f = min(max((i - w) / (last - w), 0), 1) if last > w else 0
print(repr(1e-4 + 0.5 * (lr0 - 1e-4) * (1 + math.cos(math.pi * f))))' "$@"; }
close() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12) else 1)' "$1" "$2"; }

# --- the reference: 20 steps in one go, and the same stopped at 10 and resumed (same --steps)
"$ORDO" train "${args[@]}" --steps 20 --ckpt-every 5 --out "$dir/ref" > /dev/null 2>&1 || bad "reference run"
"$ORDO" train "${args[@]}" --steps 20 --ckpt-every 5 --stop-after 10 --out "$dir/half" > /dev/null 2>&1
[ -f "$dir/half/ckpt-10.safetensors" ] && ok || bad "--stop-after 10 left no ckpt-10"
for mode in continue replan-decay replan; do cp -r "$dir/half" "$dir/$mode"; done
out=$("$ORDO" train --resume "$dir/half" 2>&1) && ok || bad "resume with the same --steps: $out"
"$EQUAL" --equal "$dir/ref/ckpt-20.safetensors" "$dir/half/ckpt-20.safetensors" && ok || bad "same --steps: not bit-identical to the uninterrupted run"
grep -q "schedule" <<<"$out" && bad "same --steps printed a schedule change: $out" || ok
[ "$(lr 11 "$dir/ref")" = "$(lr 11 "$dir/half")" ] && ok || bad "same --steps: lr at step 11 differs"

# --- --steps 20 -> 40 at step 10, under each mode
old10=$(lr 11 "$dir/ref") # the old schedule's lr at index 10
for mode in continue replan-decay replan; do
  flag=(--resume-schedule "$mode"); [ $mode = continue ] && flag=() # the default
  out=$("$ORDO" train --resume "$dir/$mode" --steps 40 "${flag[@]}" 2>&1) && ok || bad "$mode: resume: $out"
  grep -qF -- "--steps 20 -> 40 on resume at step 10, --resume-schedule $mode" <<<"$out" && ok || bad "$mode: no header line: $out"
  grep -qF "old schedule (20 steps): cosine, warmup 2: lr 0.001 at step 2 -> min-lr 0.0001 at step 19" <<<"$out" && ok || bad "$mode: old schedule not printed: $out"
  grep -qF "new schedule (40 steps): cosine, warmup 2: lr" <<<"$out" && ok || bad "$mode: new schedule not printed: $out"
  grep -qE "lr at step 10 under each --resume-schedule: continue [0-9.e-]+, replan-decay [0-9.e-]+, replan [0-9.e-]+" <<<"$out" && ok || bad "$mode: the modes' lr not printed: $out"
  python3 - "$dir/$mode/config.json" "$mode" <<'EOF' && ok || bad "$mode: config.json does not record the choice"
import json, sys
c = json.load(open(sys.argv[1]))
h = c["lr_plan"]["history"]
assert c["resume-schedule"] == sys.argv[2], c["resume-schedule"]
assert len(h) == 1 and h[0]["mode"] == sys.argv[2] and h[0]["at_step"] == 10, h
assert h[0]["steps_before"] == 20 and h[0]["steps_after"] == 40, h
EOF
done
# continue: the old curve, bit for bit up to its end, then min-lr
for k in 11 15 20; do
  [ "$(lr $k "$dir/continue")" = "$(lr $k "$dir/ref")" ] && ok || bad "continue: lr at step $k is $(lr $k "$dir/continue"), the old curve's $(lr $k "$dir/ref")"
done
for k in 21 30 40; do close "$(lr $k "$dir/continue")" 1e-4 && ok || bad "continue: lr at step $k is $(lr $k "$dir/continue"), want min-lr"; done
# replan-decay: continuous at the resume step, then down to min-lr at the new end
close "$(lr 11 "$dir/replan-decay")" "$old10" && ok || bad "replan-decay: lr at step 11 is $(lr 11 "$dir/replan-decay"), want the old $old10"
close "$(lr 26 "$dir/replan-decay")" "$(cosine 25 10 39 "$old10")" && ok || bad "replan-decay: lr at step 26 is $(lr 26 "$dir/replan-decay"), want $(cosine 25 10 39 "$old10")"
close "$(lr 40 "$dir/replan-decay")" 1e-4 && ok || bad "replan-decay: lr at step 40 is not min-lr"
# replan: a new run's curve of 40 steps (the lr jumps up: the behaviour of old ordo, on request)
close "$(lr 11 "$dir/replan")" "$(cosine 10 2 39 1e-3)" && ok || bad "replan: lr at step 11 is $(lr 11 "$dir/replan"), want $(cosine 10 2 39 1e-3)"
python3 -c "import sys; sys.exit(0 if float('$(lr 11 "$dir/replan")') > 1.5 * float('$old10') else 1)" && ok || bad "replan: no jump"
# a second resume keeps the first one's history
"$ORDO" train --resume "$dir/continue" --steps 50 --resume-schedule replan-decay > /dev/null 2>&1 || bad "second resume"
python3 -c "
import json; h = json.load(open('$dir/continue/config.json'))['lr_plan']['history']
assert [e['mode'] for e in h] == ['continue', 'replan-decay'], h" && ok || bad "the history lost an entry"

# a resumed run's config.json as --config of a new run: the new run has its own curve, not the
# old one's changed plan (nor its history)
"$ORDO" train --config "$dir/continue/config.json" --steps 6 --out "$dir/fromcfg" > /dev/null 2>&1 || bad "--config of a resumed run's config.json"
python3 -c "
import json; p = json.load(open('$dir/fromcfg/config.json'))['lr_plan']
assert p == {'from_step': 2, 'from_lr': 0.001, 'to_step': 5}, p" && ok || bad "a new run from a --config took the old run's lr plan"

# --- --keep never deletes a milestone (the end of an invocation's --steps)
k=(--task order --corpus-tokens 4000 --context 16 --d-model 16 --layers 1 --heads 2 --batch 4 --eval-every 0 --threads 1 --ckpt-every 2)
"$ORDO" train "${k[@]}" --steps 10 --keep 1 --out "$dir/keep" > /dev/null 2>&1 || bad "keep: first run"
"$ORDO" train --resume "$dir/keep" --steps 20 --keep 1 > /dev/null 2>&1 || bad "keep: resume to 20"
[ -f "$dir/keep/ckpt-10.safetensors" ] && ok || bad "--keep 1 deleted the step-10 milestone: $(ls "$dir/keep")"
[ -f "$dir/keep/ckpt-20.safetensors" ] && ok || bad "no ckpt-20"
[ ! -f "$dir/keep/ckpt-18.safetensors" ] && ok || bad "--keep 1 kept a checkpoint that is no milestone"
# stopped on the way (as kill or Ctrl-C leaves it: the milestones are in the files), then resumed
"$ORDO" train --resume "$dir/keep" --steps 30 --keep 1 --stop-after 24 > /dev/null 2>&1
"$ORDO" train --resume "$dir/keep" --steps 30 --keep 1 > /dev/null 2>&1 || bad "keep: resume to 30"
[ "$(cd "$dir/keep" && ls ckpt-*.safetensors | sort -V | tr '\n' ' ')" = "ckpt-10.safetensors ckpt-20.safetensors ckpt-30.safetensors " ] && ok || bad "keep: want the milestones 10 20 30, have $(ls "$dir/keep")"
# the steps listing names them
out=$("$ORDO" eval "$dir/keep" --step 7 2>&1) && bad "eval --step 7 of a run without it succeeded" || ok
grep -qF "no checkpoint of step 7 (ckpt-7.safetensors); the run has checkpoints at steps 30 (milestone), 20 (milestone), 10 (milestone)" <<<"$out" && ok || bad "--step 7: $out"

# --- a smoke run whose warmup reached its --steps, extended: continue has no
# decay to continue, so the decay is planned over the new --steps (not the peak for ever)
"$ORDO" train "${args[@]}" --warmup 10 --steps 10 --out "$dir/smoke" > /dev/null 2>&1 || bad "smoke run"
out=$("$ORDO" train --resume "$dir/smoke" --steps 40 2>&1) && ok || bad "smoke run extended: $out"
grep -qF "the old schedule had no decay" <<<"$out" && ok || bad "no note that the old schedule had no decay: $out"
close "$(lr 40 "$dir/smoke")" 1e-4 && ok || bad "smoke run extended: lr at the last step $(lr 40 "$dir/smoke"), expected min-lr 1e-4"
close "$(lr 25 "$dir/smoke")" "$(cosine 24 10 39 1e-3)" && ok || bad "smoke run extended: lr at step 25 $(lr 25 "$dir/smoke"), expected the cosine over 10..39 $(cosine 24 10 39 1e-3)"

finish test_resume_schedule
