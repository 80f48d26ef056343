#!/usr/bin/env bash
# The hostile run directories, each case numbered as its section below:
#  13. a FIFO where a file is expected (the newest ckpt-N.safetensors, config.json,
#      metrics.jsonl of a run; the file given to --init or to export): no command blocks; each
#      skips the checkpoint with a warning or refuses, naming the file and what it is.
#   8. `rm RUN/.lock` while RUN trains, then `train --resume RUN`: refused (the directory's
#      own lock holds); after the trainer ends the resume works.
#  11. a hard link at RUN/.lock to another file: that file is left as it was.
#   4. export into a folder that held another export: nothing of the old one stays.
#  10. export into a run directory (a config.json that is not an export's): refused, the run
#      untouched; a folder holding files an export does not write: refused.
#  14. an export killed at any moment leaves the folder as it was or whole and new, and the
#      temporary folders of killed exports are removed by the next export.
#  15. Ctrl-C during `tokenize --out F.bin` leaves no F.bin.tmp.<pid>; a stale one of a dead
#      process is removed by the next tokenize of F.bin, a live process's is not.
#  24. a resume removes only the temporary files of dead processes from its run (a live
#      `eval --save` writes its own beside it).
#   3. a sweep into a folder that holds runs of another shape: each such run fails with the
#      keys that differ, never "done" with the other shape's result, never resumed.
#  23. a sweep whose run another process holds prints BUSY, and no "started" line for it.
#  26. a corrupt newest checkpoint does not make a sweep take the run for done.
#   2. another run's checkpoint (another seed, another d-model) copied into RUN as its newest:
#      eval, eval --save, sample, viz and export skip it with a warning, as resume does, and
#      `--step` of it is refused.
#   6. `compare A A`, or A and a copy of it: refused (a row pools seeds; one run twice is not
#      two seeds).
#  16. a token file truncated while a run trains on it: the run stops with a message naming
#      the file (not "Bus error"), and resumes once the file is back.
# Every command runs under `timeout`: a hang is a failure, not a stuck suite.
set -u
. "$(dirname "$0")/../lib.sh"
dead=$(sh -c 'echo $$') # a pid whose process has ended
C=(--task order --corpus-tokens 20000 --context 16 --d-model 32 --layers 1 --heads 2 --batch 8 --threads 1)
# expect NAME RC_WANTED TEXT CMD...: CMD ends within 30 s with RC_WANTED (0 or "nonzero") and
# prints TEXT (a fixed string) on stdout or stderr
expect() {
  local name=$1 want=$2 text=$3 rc; shift 3
  timeout 30 "$@" > "$dir/out" 2>&1; rc=$?
  if [ $rc -eq 124 ]; then bad "$name: hung (killed after 30 s)"; return; fi
  if [ "$want" = 0 ] && [ $rc -ne 0 ]; then bad "$name: exit $rc: $(head -c 400 "$dir/out")"; return; fi
  if [ "$want" != 0 ] && [ $rc -eq 0 ]; then bad "$name: exit 0, expected a refusal: $(head -c 400 "$dir/out")"; return; fi
  grep -qF -- "$text" "$dir/out" && ok || bad "$name: no '$text' in: $(head -c 400 "$dir/out")"
}

"$ORDO" train "${C[@]}" --steps 20 --ckpt-every 10 --out "$dir/base" > /dev/null 2>&1 || bad "base run failed"

# 13. FIFOs
fifo_run() { rm -rf "$dir/$1"; cp -a "$dir/base" "$dir/$1"; rm "$dir/$1/$2"; mkfifo "$dir/$1/$2"; }
fifo_run ck ckpt-20.safetensors
expect "eval, FIFO checkpoint" 0 "ckpt-20.safetensors: is a FIFO, expected a regular file" "$ORDO" eval "$dir/ck" --context 16
expect "sample, FIFO checkpoint" 0 "is a FIFO" "$ORDO" sample "$dir/ck" --prompt "cat chased" --tokens 2
expect "compare, FIFO checkpoint" 0 "| learned |" "$ORDO" compare "$dir/ck" --out "$dir/cmp"
expect "export, FIFO checkpoint" 0 "exported" "$ORDO" export "$dir/ck" --hf "$dir/x1"
expect "resume, FIFO checkpoint" 0 "is a FIFO, expected a regular file" "$ORDO" train --resume "$dir/ck" --steps 30
fifo_run cf config.json
expect "compare, FIFO config.json" nonzero "config.json: is a FIFO, expected a regular file" "$ORDO" compare "$dir/cf" --out "$dir/cmp"
expect "eval, FIFO config.json" 0 "val_loss" "$ORDO" eval "$dir/cf" --context 16
# a damaged config.json would turn the foreign-checkpoint check off: resume refuses it, naming it
expect "resume, FIFO config.json" nonzero "config.json: is a FIFO, expected a regular file; without the run's config.json" "$ORDO" train --resume "$dir/cf" --steps 30
fifo_run mf metrics.jsonl
expect "resume, FIFO metrics.jsonl" nonzero "metrics.jsonl: is a FIFO, expected a regular file" "$ORDO" train --resume "$dir/mf" --steps 30
expect "compare, FIFO metrics.jsonl" nonzero "metrics.jsonl: is a FIFO, expected a regular file" "$ORDO" compare "$dir/mf" --out "$dir/cmp"
mkfifo "$dir/init.safetensors"
expect "train --init FIFO" nonzero "init.safetensors: is a FIFO, expected a regular file" "$ORDO" train "${C[@]}" --steps 2 --init "$dir/init.safetensors" --out "$dir/r4"
expect "export of a FIFO" nonzero "init.safetensors: is a FIFO, expected a regular file" "$ORDO" export "$dir/init.safetensors" --hf "$dir/x2"

# 2. a foreign checkpoint
"$ORDO" train "${C[@]}" --seed 7 --steps 40 --out "$dir/seed7" > /dev/null 2>&1 || bad "seed 7 run failed"
"$ORDO" train "${C[@]}" --d-model 48 --steps 30 --out "$dir/wide" > /dev/null 2>&1 || bad "wide run failed"
for other in seed7 wide; do
  rm -rf "$dir/fo"; cp -a "$dir/base" "$dir/fo"; rm -f "$dir/fo/.lock"
  cp "$dir/$other/ckpt-$( [ $other = wide ] && echo 30 || echo 40).safetensors" "$dir/fo/"
  expect "eval, $other's checkpoint in the run" 0 "it is not a checkpoint of this run" "$ORDO" eval "$dir/fo" --context 16 --save
  grep -q '"step": 20' "$dir/fo/eval.json" && ok || bad "eval --save with $other's checkpoint: eval.json not of step 20: $(head -c 300 "$dir/fo/eval.json")"
  expect "sample, $other's checkpoint in the run" 0 "it is not a checkpoint of this run" "$ORDO" sample "$dir/fo" --prompt "cat chased" --tokens 2
  expect "viz, $other's checkpoint in the run" 0 "it is not a checkpoint of this run" "$ORDO" viz "$dir/fo"
  rm -rf "$dir/fx"
  expect "export, $other's checkpoint in the run" 0 "it is not a checkpoint of this run" "$ORDO" export "$dir/fo" --hf "$dir/fx"
  grep -q '"step": 20' "$dir/fx/config.json" && ok || bad "export with $other's checkpoint did not export step 20"
done
expect "eval --step of a foreign checkpoint" nonzero "it is not a checkpoint of this run" "$ORDO" eval "$dir/fo" --context 16 --step 30

# 6. one run twice in compare
expect "compare A A" nonzero "one run directory given twice" "$ORDO" compare "$dir/seed7" "$dir/seed7" --out "$dir/cmp"
rm -rf "$dir/seed7copy"; cp -a "$dir/seed7" "$dir/seed7copy"
expect "compare A and its copy" nonzero "the same experiment with the same seed 7" "$ORDO" compare "$dir/seed7" "$dir/seed7copy" --out "$dir/cmp"
"$ORDO" train "${C[@]}" --seed 3 --steps 40 --out "$dir/seed3" > /dev/null 2>&1 || bad "seed 3 run failed"
# (the table's columns are padded: seeds is right-aligned under its 5-letter header)
expect "compare two seeds" 0 "| learned |     2 |" "$ORDO" compare "$dir/seed7" "$dir/seed3" --out "$dir/cmp"

# 16. a token file truncated under a training run
head -c 3000000 /dev/urandom | base64 > "$dir/noise.txt"
"$ORDO" tokenize --tokenizer byte --out "$dir/noise.bin" "$dir/noise.txt" > /dev/null 2>&1 || bad "tokenize noise"
cp "$dir/noise.bin" "$dir/noise.bin.orig"
"$ORDO" train --data "$dir/noise.bin" --context 16 --d-model 32 --layers 1 --heads 2 --batch 8 --threads 1 \
  --steps 1000000 --ckpt-every 50 --eval-every 0 --out "$dir/tr" > "$dir/tr.log" 2>&1 &
trp=$!
for _ in $(seq 300); do [ -f "$dir/tr/ckpt-50.safetensors" ] && break; sleep 0.1; done
truncate -s 100000 "$dir/noise.bin"
for _ in $(seq 300); do kill -0 $trp 2>/dev/null || break; sleep 0.1; done
kill -0 $trp 2>/dev/null && { kill -9 $trp; bad "training went on over a truncated token file"; }
wait $trp; rc=$?
[ $rc -eq 1 ] && ok || bad "training over a truncated token file ended with status $rc (expected 1): $(tail -c 300 "$dir/tr.log")"
grep -qF "noise.bin changed while ordo read it" "$dir/tr.log" && ok || bad "no message naming the truncated file: $(tail -c 300 "$dir/tr.log")"
cp "$dir/noise.bin.orig" "$dir/noise.bin"
last=$(ls "$dir/tr" | sed -n 's/^ckpt-\([0-9]*\)\.safetensors$/\1/p' | sort -n | tail -1)
expect "resume once the token file is back" 0 "resuming" "$ORDO" train --resume "$dir/tr" --steps $((last + 10))

# 8. a deleted lock file: the live trainer still excludes a second one
"$ORDO" train "${C[@]}" --steps 100000 --ckpt-every 1000 --out "$dir/live" > "$dir/live.log" 2>&1 &
live=$!
for _ in $(seq 300); do [ -s "$dir/live/metrics.jsonl" ] && break; sleep 0.1; done
rm -f "$dir/live/.lock"
expect "resume beside a live trainer whose .lock was removed" nonzero "is in use" "$ORDO" train --resume "$dir/live" --steps 5
expect "a second new run into it" nonzero "is in use" "$ORDO" train "${C[@]}" --steps 5 --out "$dir/live"
kill -INT $live; wait $live 2>/dev/null
last=$(ls "$dir/live" | sed -n 's/^ckpt-\([0-9]*\)\.safetensors$/\1/p' | sort -n | tail -1)
expect "resume after the trainer stopped" 0 "resuming" "$ORDO" train --resume "$dir/live" --steps $((last + 5))
# 11. a hard link at .lock
rm -rf "$dir/hl"; cp -a "$dir/base" "$dir/hl"; rm -f "$dir/hl/.lock"
printf 'precious\n' > "$dir/victim"; ln "$dir/victim" "$dir/hl/.lock"
expect "resume with .lock a hard link" 0 "resuming" "$ORDO" train --resume "$dir/hl" --steps 30
[ "$(cat "$dir/victim")" = precious ] && ok || bad "the file hard-linked at .lock was overwritten: $(head -c 200 "$dir/victim")"

# 4, 10, 14: export folders
expect "export" 0 "exported" "$ORDO" export "$dir/base" --hf "$dir/X"
touch "$dir/X/vocab.json" "$dir/X/merges.txt" # as a gpt2 run's export leaves them
expect "export over an export" 0 "exported" "$ORDO" export "$dir/wide" --hf "$dir/X"
[ ! -e "$dir/X/vocab.json" ] && [ ! -e "$dir/X/merges.txt" ] && ok || bad "the old export's vocab files stayed: $(ls "$dir/X")"
grep -q '"n_embd": 48' "$dir/X/config.json" && ok || bad "X/config.json is not the new export's"
cp "$dir/base/config.json" "$dir/base.config"
expect "export into the run itself" nonzero "is not an ordo export's" "$ORDO" export "$dir/base" --hf "$dir/base"
cmp -s "$dir/base/config.json" "$dir/base.config" && ok || bad "export into the run changed its config.json"
mkdir -p "$dir/Y"; echo notes > "$dir/Y/README.md"
expect "export into a folder with other files" nonzero "holds 'README.md'" "$ORDO" export "$dir/base" --hf "$dir/Y"
# wte's width in model.safetensors' header and n_embd in config.json agree
whole() { local w c; w=$(head -c 4096 "$1/model.safetensors" | grep -ao '"transformer.wte.weight":{[^}]*' | sed 's/.*"shape":\[[0-9]*,\([0-9]*\)\].*/\1/');
  c=$(sed -n 's/.*"n_embd": \([0-9]*\).*/\1/p' "$1/config.json"); [ -n "$w" ] && [ "$w" = "$c" ]; }
whole "$dir/X" && ok || bad "X is not whole before the kills"
torn=0
for i in 1 2 3 4 5 6 7 8; do
  src=base; [ $((i % 2)) -eq 0 ] && src=wide
  "$ORDO" export "$dir/$src" --hf "$dir/X" > /dev/null 2>&1 &
  p=$!; sleep "0.0$((i * 3))"; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
  whole "$dir/X" || torn=$((torn + 1))
done
[ $torn -eq 0 ] && ok || bad "$torn of 8 killed exports left X torn (config.json and weights of different exports)"
mkdir -p "$dir/X.export.$dead"; touch "$dir/X.export.$dead/model.safetensors" # a dead pid's
expect "export after killed ones" 0 "exported" "$ORDO" export "$dir/base" --hf "$dir/X"
left=$(ls -d "$dir"/X.export.* 2>/dev/null | wc -l)
[ "$left" -eq 0 ] && ok || bad "$left temporary export folders left behind: $(ls -d "$dir"/X.export.*)"

# 15. tokenize --out interrupted
mkfifo "$dir/slow.txt"
( printf 'some text\n'; sleep 20 ) > "$dir/slow.txt" &
writer=$!
"$ORDO" tokenize --tokenizer byte --out "$dir/F.bin" "$dir/slow.txt" > /dev/null 2>&1 &
tk=$!
for _ in $(seq 100); do ls "$dir"/F.bin.tmp.* > /dev/null 2>&1 && break; sleep 0.1; done
ls "$dir"/F.bin.tmp.* > /dev/null 2>&1 && ok || bad "tokenize --out made no temporary file to test with"
kill -INT $tk; wait $tk 2>/dev/null; kill $writer 2>/dev/null; wait $writer 2>/dev/null
n=$(ls "$dir"/F.bin.tmp.* 2>/dev/null | wc -l)
[ "$n" -eq 0 ] && ok || bad "Ctrl-C left $n temporary token files"
printf 'abc' > "$dir/in.txt"; touch "$dir/F.bin.tmp.$dead" "$dir/F.bin.tmp.$$"
expect "tokenize --out after a killed one" 0 "wrote 3 tokens" "$ORDO" tokenize --tokenizer byte --out "$dir/F.bin" "$dir/in.txt"
[ ! -e "$dir/F.bin.tmp.$dead" ] && ok || bad "a dead process's temporary token file stayed"
[ -e "$dir/F.bin.tmp.$$" ] && ok || bad "a live process's temporary token file was removed"
# 24. resume's cleanup
rm -rf "$dir/tm"; cp -a "$dir/base" "$dir/tm"; rm -f "$dir/tm/.lock"
touch "$dir/tm/eval.json.tmp.$$" "$dir/tm/ckpt-30.safetensors.tmp.$dead"
expect "resume beside a live writer's temporary file" 0 "resuming" "$ORDO" train --resume "$dir/tm" --steps 30
[ -e "$dir/tm/eval.json.tmp.$$" ] && ok || bad "resume removed a live process's temporary file"
[ ! -e "$dir/tm/ckpt-30.safetensors.tmp.$dead" ] && ok || bad "resume kept a dead process's temporary file"
# the eval records' folder too: a killed eval --save leaves eval/NAME.json.tmp.<pid> there
# (neither resume nor eval --save removed them)
mkdir -p "$dir/tm/eval"; touch "$dir/tm/eval/base.json.tmp.$dead" "$dir/tm/eval/long.json.tmp.$$"
expect "resume with an eval record's temporary file" 0 "resuming" "$ORDO" train --resume "$dir/tm" --steps 31
[ ! -e "$dir/tm/eval/base.json.tmp.$dead" ] && ok || bad "resume kept a dead eval --save's temporary file"
[ -e "$dir/tm/eval/long.json.tmp.$$" ] && ok || bad "resume removed a live process's eval temporary file"
touch "$dir/tm/eval/other.json.tmp.$dead"
expect "eval --save after a killed one" 0 "" "$ORDO" eval "$dir/tm" --context 16 --save=other
[ ! -e "$dir/tm/eval/other.json.tmp.$dead" ] && [ -e "$dir/tm/eval/other.json" ] && ok || bad "eval --save kept a dead one's temporary file: $(ls "$dir/tm/eval")"
[ -e "$dir/tm/eval/long.json.tmp.$$" ] && ok || bad "eval --save removed a live process's temporary file"

# 3, 23, 26: sweeps
SW=(--pos learned --seeds 1 --task order --corpus-tokens 20000 --context 16 --layers 1 --heads 2 --batch 8 --threads 1 --eval-lengths 1)
expect "sweep" 0 "all 1 runs done" "$ORDO" sweep "${SW[@]}" --d-model 32 --steps 20 --out "$dir/S"
expect "sweep of another shape into it" nonzero "holds a run of another configuration: d-model 32 (this sweep: 64)" "$ORDO" sweep "${SW[@]}" --d-model 64 --steps 20 --out "$dir/S"
grep -q '"d-model": 32' "$dir/S/learned-s1/config.json" && ok || bad "the d-model 64 sweep changed the d-model 32 run"
printf 'garbage' > "$dir/S/learned-s1/ckpt-30.safetensors"
expect "sweep past a corrupt newest checkpoint" 0 "started (resumed from step 20)" "$ORDO" sweep "${SW[@]}" --d-model 32 --steps 30 --out "$dir/S"
"$ORDO" train --resume "$dir/S/learned-s1" --steps 100000 --ckpt-every 1000 > "$dir/hold.log" 2>&1 &
holder=$!
for _ in $(seq 300); do grep -q '"step":3[1-9]' "$dir/S/learned-s1/metrics.jsonl" 2>/dev/null && break; sleep 0.1; done
expect "sweep beside a holder" nonzero "BUSY" "$ORDO" sweep "${SW[@]}" --d-model 32 --steps 40 --out "$dir/S"
grep -q "learned-s1 *started" "$dir/out" && bad "the sweep said the busy run started: $(grep started "$dir/out")" || ok
kill -INT $holder; wait $holder 2>/dev/null

finish test_hostile_dirs
