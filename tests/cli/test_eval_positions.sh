#!/usr/bin/env bash
# eval --positions drawn: a --pos-random run scored at positions drawn as training
# draws them (Ruoss et al.'s test protocol) as well as at 0..T-1. The draw is a function of
# the run and the window alone: the same twice, at any --batch (to float rounding: a row's
# products round differently inside another batch's under OpenBLAS's Haswell and Zen
# kernels, so not to the bit there), and on the copy task's
# accuracy too; its record is eval/drawn.json, and a sweep makes it as the variant `drawn`.
# Refused for a run without --pos-random, past N, and as a bad value.
set -u
. "$(dirname "$0")/../lib.sh"

tiny=(--d-model 16 --layers 1 --heads 2 --context 16 --batch 4 --steps 30 --corpus-tokens 6000
  --eval-every 0 --threads 1)
"$ORDO" train "${tiny[@]}" --pos rope --pos-random 64 --lr 1e-2 --steps 80 --out "$dir/r" >"$dir/t.log" 2>&1 &&
  ok || bad "train: $(tail -3 "$dir/t.log")"
# lr 1e-2 for 80 steps: enough that the positions move the loss (after 30 steps at 1e-3 the
# model was near its unigram, and drawn and 0..T-1 differed by 3e-7 of it)
loss() { # RUN ARGS...: the val_loss of the first length
  "$ORDO" eval "$1" "${@:2}" --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["val_loss"])'
}
a=$(loss "$dir/r" --positions drawn)
b=$(loss "$dir/r" --positions drawn --batch 1)
c=$(loss "$dir/r")
# |x - y| / |y| within lim (within: 1, else 0)
within() { awk -v x="$1" -v y="$2" -v lim="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(x != "" && y != "" && d <= lim * (y < 0 ? -y : y)) }'; }
within "$a" "$b" 1e-6 && ok || bad "drawn at --batch 8 ($a) and 1 ($b) differ"
[ -n "$c" ] && ! within "$a" "$c" 1e-4 && ok || bad "drawn ($a) is within 1e-4 of contiguous ($c)"
# at N itself every position is drawn: 0..N-1, the contiguous score
[ "$(loss "$dir/r" --context 64 --positions drawn)" = "$(loss "$dir/r" --context 64)" ] &&
  ok || bad "drawn at the length N differs from 0..N-1"

"$ORDO" eval "$dir/r" --positions drawn --save --threads 1 >/dev/null 2>&1 &&
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["variant"]["positions"] == "drawn" and r["request"]["positions"] == "drawn", r["variant"]' \
    "$dir/r/eval/drawn.json" && ok || bad "no eval/drawn.json record"

err=$("$ORDO" eval "$dir/r" --context 128 --positions drawn 2>&1)
[ $? -ne 0 ] && grep -q "length 128 is past the run's --pos-random 64" <<<"$err" &&
  ok || bad "past N: $err"
"$ORDO" train "${tiny[@]}" --steps 2 --pos rope --out "$dir/plain" >/dev/null 2>&1
err=$("$ORDO" eval "$dir/plain" --positions drawn 2>&1)
[ $? -ne 0 ] && grep -q "this run trained at 0..T-1 (no --pos-random)" <<<"$err" &&
  ok || bad "no --pos-random: $err"
err=$("$ORDO" eval "$dir/r" --positions shuffled 2>&1)
[ $? -ne 0 ] && grep -q "positions is 'shuffled', expected contiguous or drawn" <<<"$err" &&
  ok || bad "bad value: $err"

# copy: the accuracy at drawn positions, the same twice
"$ORDO" train --task copy --max-len 4 --d-model 16 --layers 1 --heads 2 --context 16 --batch 4 \
  --steps 20 --eval-every 0 --threads 1 --pos learned --pos-random 32 --out "$dir/c" >/dev/null 2>&1
acc() {
  "$ORDO" eval "$dir/c" --examples 50 --json "$@" 2>/dev/null |
    python3 -c 'import json,sys; print([b["exact_match"] for b in json.load(sys.stdin)["accuracy"]["by_length"]])'
}
x=$(acc --positions drawn)
[ -n "$x" ] && [ "$x" = "$(acc --positions drawn)" ] && ok || bad "copy drawn: $x"

# a sweep's variant `drawn`, refused without --pos-random
"$ORDO" sweep "${tiny[@]}" --steps 5 --pos rope,alibi --pos-random 64 --seeds 1 --eval-lengths 1 \
  --eval-variants base,drawn --progress off --out "$dir/sw" >"$dir/sw.log" 2>&1 &&
  [ -s "$dir/sw/rope-s1/eval/drawn.json" ] && [ -s "$dir/sw/alibi-s1/eval/drawn.json" ] &&
  ok || bad "sweep drawn: $(tail -3 "$dir/sw.log")"
err=$("$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants drawn --out "$dir/sw2" 2>&1)
[ $? -ne 0 ] && grep -q "this sweep trains at 0..T-1 (no --pos-random)" <<<"$err" &&
  ok || bad "sweep drawn without --pos-random: $err"

finish test_eval_positions
