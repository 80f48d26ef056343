#!/usr/bin/env bash
# Progress: `ordo train` shows step/total, loss, the last val loss and
# its step, lr, tokens/s, elapsed and ETA: as plain lines (no '\r', no escapes) at each
# logged step when stdout is not a terminal, as one line rewritten with '\r' (not a line
# per step) on a terminal (a pty from script(1)), or not at all with --progress off; every
# train ends with a summary (best and last val loss with their steps, time, tokens/s, the
# final checkpoint), also when stopped; `ordo sweep` shows which run of how many, its
# step/total and the sweep's ETA.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$dir"
tiny=(--corpus-tokens 3000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4 --threads 1)
line_re='^step [0-9]+/[0-9]+ loss [0-9.]+ val ([0-9.]+@[0-9]+|-) lr [0-9.]+e[-+][0-9]+ [0-9.]+[kM]? tok/s [0-9]+:[0-9]{2} ETA [0-9]+:[0-9]{2}$'

# --- plain: stdout is a file
"$ORDO" train "${tiny[@]}" --steps 40 --eval-every 20 --log-every 10 --out p > p.out 2> p.err \
  || bad "plain run failed: $(cat p.err)"
LC_ALL=C grep -q $'[\r\x1b]' p.out && bad "plain output has a carriage return or an escape" || ok
steps=$(grep '^step ' p.out | sed 's/^step \([0-9]*\)\/.*/\1/' | tr '\n' ' ')
[ "$steps" = "10 20 30 40 " ] && ok || bad "plain lines at steps '$steps', want the logged steps 10 20 30 40"
n=$(grep '^step ' p.out | grep -cE "$line_re")
[ "$n" = 4 ] && ok || bad "plain lines not of the form step/total loss val@step lr tok/s elapsed ETA: $(grep '^step ' p.out)"
# the val loss shown is the last one measured, with its step (step 30 still shows step 20's)
v20=$(grep '"step":20,' p/metrics.jsonl | sed 's/.*"val_loss":\([0-9.]*\).*/\1/')
grep -q "^step 30/40 .* val $(printf %.4f "$v20")@20 " p.out && ok || bad "step 30 does not show step 20's val loss $v20: $(grep '^step 30' p.out)"
grep -q "^step 10/40 .* val - " p.out && ok || bad "step 10 shows a val loss before any was measured"
# lr as logged
lr10=$(grep '"step":10,' p/metrics.jsonl | sed 's/.*"lr":\([0-9.e+-]*\).*/\1/')
grep -q "^step 10/40 .* lr $(printf %.2e "$lr10") " p.out && ok || bad "step 10's lr is not the logged $lr10"
# the summary: best and last val, time, tokens/s, the checkpoint (which exists)
best=$(grep -o '"step":[0-9]*,[^}]*"val_loss":[0-9.]*' p/metrics.jsonl | sed 's/"step":\([0-9]*\),.*"val_loss":\([0-9.]*\)/\2 \1/' | sort -n | head -1)
read -r bv bs <<<"$best"
grep -qE "^ordo: done at step 40/40 after [0-9.]+ s \(40 steps here, [0-9.]+[kM]? tok/s\)$" p.out && ok || bad "no 'done' summary line: $(tail -3 p.out)"
grep -qF "ordo: val loss: best $(printf %.4f "$bv") at step $bs, last " p.out && ok || bad "summary's best val is not $bv at step $bs: $(grep 'val loss:' p.out)"
grep -qF "ordo: checkpoint: p/ckpt-40.safetensors" p.out && [ -f p/ckpt-40.safetensors ] && ok || bad "summary does not name p/ckpt-40.safetensors"
[ "$(tail -1 p.out)" = "ordo: checkpoint: p/ckpt-40.safetensors" ] && ok || bad "the summary is not the end of the output"
grep -q progress p/config.json && bad "--progress is saved in config.json (it is no setting of the run)" || ok

# --- a stop: the summary says "stopped" and names the checkpoint, beside the resume command
"$ORDO" train --resume p --steps 60 --stop-after 50 --progress off > s.out 2> s.err; rc=$?
[ $rc -eq 130 ] && ok || bad "--stop-after: status $rc"
grep -q '^step ' s.out && bad "--progress off printed step lines" || ok
grep -qE "^ordo: stopped at step 50/60 after [0-9.]+ s \(10 steps here, " s.out && ok || bad "no 'stopped' summary: $(cat s.out)"
# "after": this process's time; the resumed run's whole time follows
line=$(grep "^ordo: stopped at step 50/60" s.out)
here=$(sed -n 's/.* after \([0-9.]*\) s (.*/\1/p' <<<"$line") all=$(sed -n 's/.*; the run: \([0-9.]*\) s in all)$/\1/p' <<<"$line")
[ -n "$here" ] && [ -n "$all" ] && awk -v h="$here" -v a="$all" 'BEGIN { exit !(a >= h) }' \
  && ok || bad "a resumed run's summary should give this process's time and the run's in all: $line"
grep -q "in all" p.out && bad "a fresh run's summary has an 'in all': $(grep '^ordo: done' p.out)" || ok
# the best val loss of the run so far, also of the steps before this resume
grep -qF "ordo: val loss: best $(printf %.4f "$bv") at step $bs, last " s.out && ok || bad "after resume the best val is not the run's: $(grep 'val loss:' s.out)"
grep -qF "ordo: checkpoint: p/ckpt-50.safetensors" s.out && [ -f p/ckpt-50.safetensors ] && ok || bad "stop summary lacks p/ckpt-50.safetensors"
grep -qF "continue with 'ordo train --resume p'" s.err && ok || bad "no resume command on stderr: $(cat s.err)"
# Ctrl-C: the same summary
"$ORDO" train "${tiny[@]}" --steps 100000 --eval-every 0 --progress plain --out c > c.out 2> c.err &
pid=$!
for _ in $(seq 1 600); do grep -q '"step":' c/metrics.jsonl 2>/dev/null && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "SIGINT: status $rc"
grep -qE "^ordo: stopped at step [0-9]+/100000 after " c.out && ok || bad "SIGINT: no 'stopped' summary: $(tail -3 c.out)"
grep -qF "ordo: val loss: none measured" c.out && ok || bad "SIGINT before any eval: val line: $(grep 'val loss' c.out)"
ck=$(sed -n 's/^ordo: checkpoint: //p' c.out)
[ -n "$ck" ] && [ -f "$ck" ] && ok || bad "SIGINT: the summary's checkpoint '$ck' is not a file"

# --- live: a terminal (script(1) gives the command a pty)
if command -v script > /dev/null && script -q -c true /dev/null > /dev/null 2>&1; then
  script -q -c "'$ORDO' train ${tiny[*]} --steps 400 --eval-every 100 --out l" /dev/null > l.out 2>&1 \
    || bad "live run failed: $(tail -3 l.out)"
  cr=$(tr -cd '\r' < l.out | wc -c)
  ls=$(tr '\r' '\n' < l.out | grep -c '^step ')
  [ "$ls" -ge 4 ] && ok || bad "live: $ls progress lines, want at least the 4 evaluations"
  [ "$ls" -lt 100 ] && ok || bad "live: $ls redraws for 400 steps (a line per few steps floods)"
  # drawn in place: no newline between two redraws, a newline before the summary
  [ "$(tr -d '\r' < l.out | grep -c '^step ')" -le 1 ] && ok || bad "live: progress lines end in newlines"
  tr '\r' '\n' < l.out | grep -qE "^step 400/400 loss [0-9.]+ val [0-9.]+@400 " && ok || bad "live: no last line with the step-400 val loss"
  tr -d '\r' < l.out | grep -q '^ordo: done at step 400/400' && ok || bad "live: the summary does not start its own line"
  [ "$cr" -gt 4 ] && ok || bad "live: $cr carriage returns"
  # --progress plain on a terminal: no '\r' but the newlines the pty itself adds
  script -q -c "'$ORDO' train ${tiny[*]} --steps 20 --log-every 10 --progress plain --out lp" /dev/null > lp.out 2>&1
  [ "$(tr -d '\r' < lp.out | grep -c '^step ')" = 2 ] && ok || bad "--progress plain on a terminal: $(cat -A lp.out | head -5)"
  sed 's/\r$//' lp.out | LC_ALL=C grep -q $'[\r\x1b]' && bad "--progress plain on a terminal has a '\\r' or an escape" || ok
  # a sweep on a terminal: one live line "i/N done | run step/total | elapsed ETA"
  script -q -c "'$ORDO' sweep ${tiny[*]} --pos learned,none --seeds 1 --steps 2000 --eval-every 500 --eval-lengths 1 --out sl" /dev/null > sl.out 2>&1 \
    || bad "live sweep failed: $(tail -3 sl.out)"
  tr '\r' '\n' < sl.out | grep -qE '^sweep: [01]/2 done \| (learned|none)-s1 [0-9]+/2000 \| [0-9]+:[0-9]{2} ETA ' && ok \
    || bad "live sweep: no line 'i/N done | run step/total | ETA': $(tr '\r' '\n' < sl.out | head -8)"
else
  echo "SKIP: live progress (no script(1) that runs here)"; skip=$((skip+9))
fi

# --- sweep, not a terminal: which run of how many, and each run's own lines in its train.log
"$ORDO" sweep "${tiny[@]}" --pos learned,none --seeds 1 --steps 1500 --eval-every 500 --eval-lengths 1 --out sw > sw.out 2>&1 \
  || bad "sweep failed: $(tail -3 sw.out)"
LC_ALL=C grep -q $'[\r\x1b]' sw.out && bad "plain sweep output has a '\\r' or an escape" || ok
grep -q '^sweep: \[1/2\] learned-s1 *started$' sw.out && grep -q '^sweep: \[2/2\] none-s1 *started$' sw.out && ok || bad "sweep: no '[i/N] run started' lines: $(cat sw.out)"
grep -qE '^sweep: \[2/2\] none-s1 +done in ' sw.out && ok || bad "sweep: no '[2/2] none-s1 done' line"
grep -qE '^sweep: \[[12]/2\] (learned|none)-s1 step [0-9]+/1500, sweep ETA [0-9?]' sw.out && ok || bad "sweep: no step line (a quarter of a run)"
grep -qE "$line_re" sw/learned-s1/train.log && grep -q '^ordo: checkpoint: sw/learned-s1/ckpt-1500.safetensors$' sw/learned-s1/train.log \
  && ok || bad "the run's train.log lacks its plain lines or summary: $(tail -3 sw/learned-s1/train.log)"
# again: the runs are kept; nothing is said to start
"$ORDO" sweep "${tiny[@]}" --pos learned,none --seeds 1 --steps 1500 --eval-every 500 --eval-lengths 1 --out sw > sw2.out 2>&1 \
  || bad "second sweep failed"
grep -q started sw2.out && bad "a kept run is said to start: $(cat sw2.out)" || ok
"$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --steps 1500 --eval-lengths 1 --progress off --out so > so.out 2>&1 || bad "sweep --progress off failed"
grep -qE 'started|step [0-9]' so.out && bad "sweep --progress off shows progress: $(cat so.out)" || ok

# --- eval: a long single window shows progress inside its one forward (a line per layer done,
# --progress plain, not a terminal); without --progress, not a terminal: nothing on stderr
"$ORDO" train --pos alibi --corpus-tokens 20000 --context 16 --d-model 16 --heads 2 --layers 2 \
  --batch 4 --threads 1 --steps 10 --eval-every 0 --out ev > /dev/null 2>&1 || bad "train for eval failed"
"$ORDO" eval ev --context 1024 --max-windows 1 --no-ngram --progress plain > ev.out 2> ev.err \
  || bad "eval --progress plain failed: $(cat ev.err)"
grep -qE '^eval context 1024: window 0/1, layer 1/2 50% [0-9]+:[0-9]{2} ETA ' ev.err && ok \
  || bad "no progress line inside the window's forward: $(cat ev.err)"
grep -qE '^eval context 1024: window 1/1 100% ' ev.err && ok || bad "no last eval progress line: $(cat ev.err)"
LC_ALL=C grep -q $'[\r\x1b]' ev.err && bad "plain eval progress has a '\\r' or an escape" || ok
"$ORDO" eval ev --context 1024 --max-windows 1 --no-ngram > ev2.out 2> ev2.err || bad "eval failed"
[ ! -s ev2.err ] && ok || bad "eval without --progress wrote to a non-terminal's stderr: $(cat ev2.err)"
# passkey's grid, counted in examples; a sweep's runs write their eval lines into train.log
"$ORDO" sweep --task passkey --tokenizer byte --context 128 --d-model 16 --heads 2 --layers 1 \
  --batch 4 --threads 1 --steps 8 --eval-every 0 --pos alibi --seeds 1 --eval-lengths 1,2,4,8 \
  --examples 30 --out pk > pk.out 2>&1 || bad "passkey sweep failed: $(tail -3 pk.out)"
grep -qE '^eval passkey: example 600/600 100% ' pk/alibi-s1/train.log && grep -qE '^eval context 256: window ' pk/alibi-s1/train.log \
  && ok || bad "the run's train.log lacks its eval progress: $(tail -5 pk/alibi-s1/train.log)"
grep -qF 'sweep: [1/1] alibi-s1 trained; evaluating (progress in pk/alibi-s1/train.log)' pk.out && ok \
  || bad "the sweep does not say a trained run is evaluating: $(cat pk.out)"

finish
