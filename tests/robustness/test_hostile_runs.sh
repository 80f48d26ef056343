#!/usr/bin/env bash
# The runs that trust what they are given, each case numbered as its section below:
#  21. {"shuffle": 2} in --config: refused, as 0.5 is ("true/false or 0/1").
#  19. `train --resume R --init OTHER`: refused, the run untouched; its own --init again is fine.
#  17. `train --init HF/model.safetensors` of ordo's own export (transformer. names): it
#      starts (tests/eval/test_export.c checks the weights come back bit for bit).
#   5. --init from a Hugging Face-style file with more layers (h.0 and h.1, no ordo metadata)
#      into a --layers 1 run: refused, naming the first unused tensors and both layer counts;
#      nothing is made. What carries nothing (an export's table of zeros for --pos none) is fine.
#   9. a run directory without config.json (checkpoints and metrics.jsonl present): `train C
#      --out RUN` is refused naming what is there and how to resume; metrics.jsonl and the
#      checkpoints are untouched; the resume then works. A log alone is refused as well.
#  12. a failed resume (metrics.jsonl cannot be opened: here a directory, as root ignores
#      modes) leaves config.json as it was; a resume that works then writes it.
#  18. a flipped bit in a config key of the newest checkpoint's header: eval and resume both
#      skip it with a warning and use the one before (resume used to stop at "unknown key");
#      now the header checksum (case 7) catches it first, so an older ordo's checkpoint
#      without checksums is tried too, where the config rule itself decides.
#  22. a 10 MB "data" or "init" path in --config: the message shortens the path, never the
#      reason (tests/sys/test_error_message.c has the buffer's cases).
#   7. header-only changes to the newest checkpoint (the dataloader cursor, the epoch, the
#      optimizer step, the data_offsets of two same-shape tensors swapped): each is caught by
#      the header checksum and skipped, and the resume goes on from the one before. An older
#      ordo's checkpoint (no header checksum) still resumes with a note; a flipped bit in the
#      header checksum's own key is refused as damage, not taken for an older file.
#  20. `eval --context 1048577`: the message names the cap (1048576), not "like 64,128".
# Every command runs under `timeout`: a hang is a failure, not a stuck suite.
set -u
. "$(dirname "$0")/../lib.sh"
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

# hdr_edit FILE PERL: the header (after the length word) edited in place by perl -0777 -pe;
# the edit must keep its length
hdr_edit() {
  local n; n=$(od -An -t u8 -N8 "$1" | tr -d ' ')
  tail -c +9 "$1" | head -c "$n" > "$dir/hdr"
  perl -0777 -pe "$2" "$dir/hdr" > "$dir/hdr.new"
  [ "$(wc -c < "$dir/hdr.new")" = "$n" ] && ! cmp -s "$dir/hdr" "$dir/hdr.new" || { bad "hdr_edit $2: no edit of the same length"; return; }
  dd if="$dir/hdr.new" of="$1" bs=1 seek=8 conv=notrunc status=none
}

# 21. a flag of 2 in --config
echo '{"shuffle": 2}' > "$dir/shuffle2.json"
expect "shuffle 2 in --config" nonzero '"shuffle" must be true/false or 0/1' \
  "$ORDO" train --config "$dir/shuffle2.json" "${C[@]}" --steps 2 --out "$dir/r21"
[ ! -e "$dir/r21" ] && ok || bad "the refused config made a run directory"
echo '{"shuffle": 1, "drop-last": false}' > "$dir/flags.json"
expect "flags 1 and false in --config" 0 "checkpoint" \
  "$ORDO" train --config "$dir/flags.json" "${C[@]}" --steps 2 --out "$dir/r21b"

"$ORDO" train "${C[@]}" --steps 20 --ckpt-every 10 --out "$dir/base" > /dev/null 2>&1 || bad "base run failed"

# 20. an eval context past the cap
expect "eval --context 1048577" nonzero "1048577 is longer than the longest context eval takes, 1048576" \
  "$ORDO" eval "$dir/base" --context 1048577
expect "eval --context 16,0" nonzero "0 is not a positive length" "$ORDO" eval "$dir/base" --context 16,0

# 19. --init on resume
cp -a "$dir/base" "$dir/r19"; cp "$dir/base/config.json" "$dir/r19.config"
expect "resume with --init of another run" nonzero "does not go with --resume" \
  "$ORDO" train --resume "$dir/r19" --init "$dir/base" --steps 22
cmp -s "$dir/r19/config.json" "$dir/r19.config" && [ ! -e "$dir/r19/ckpt-22.safetensors" ] && ok ||
  bad "the refused resume changed the run"
"$ORDO" train "${C[@]}" --steps 4 --init "$dir/base" --out "$dir/r19i" > /dev/null 2>&1 || bad "an --init run failed"
expect "resume of an --init run with another --init" nonzero "started from $dir/base" \
  "$ORDO" train --resume "$dir/r19i" --init "$dir/base/ckpt-10.safetensors" --steps 6
expect "resume of an --init run with its own --init" 0 "resuming" \
  "$ORDO" train --resume "$dir/r19i" --init "$dir/base" --steps 6
mkdir "$dir/r19c"; cp "$dir/base/config.json" "$dir/r19c/" # killed before its first checkpoint
expect "resume from config.json with --init" nonzero "does not go with --resume" \
  "$ORDO" train --resume "$dir/r19c" --init "$dir/base" --steps 2

# 17. --init from ordo's own export
"$ORDO" export "$dir/base" --hf "$dir/hf" > /dev/null 2>&1 || bad "export of base failed"
expect "--init of an export" 0 "checkpoint: $dir/r17/ckpt-2.safetensors" \
  "$ORDO" train "${C[@]}" --steps 2 --init "$dir/hf/model.safetensors" --out "$dir/r17"
grep -q '"init": "'"$dir"'/hf/model.safetensors"' "$dir/r17/config.json" && ok || bad "r17/config.json does not record the export as its init"
expect "--init of an export at a longer context" 0 "the learned table goes from 16 to 32 positions" \
  "$ORDO" train "${C[@]}" --context 32 --steps 2 --init "$dir/hf/model.safetensors" --out "$dir/r17b"

# 5. --init from a file with more layers than the run
"$ORDO" train "${C[@]}" --layers 2 --steps 10 --out "$dir/two" > /dev/null 2>&1 || bad "two-layer run failed"
"$ORDO" export "$dir/two" --hf "$dir/hf2" > /dev/null 2>&1 || bad "export of the two-layer run failed"
grep -aq '"format":"pt"' "$dir/hf2/model.safetensors" && ! grep -aq '"L":' "$dir/hf2/model.safetensors" && ok ||
  bad "hf2/model.safetensors is not a file without ordo metadata"
expect "--init of 2 layers into --layers 1" nonzero "transformer.h.1.attn.c_attn.bias, transformer.h.1.attn.c_attn.weight" \
  "$ORDO" train "${C[@]}" --steps 2 --init "$dir/hf2/model.safetensors" --out "$dir/r5"
grep -qF "the file holds 2 layers (h.0 .. h.1), this run has --layers 1" "$dir/out" && ok || bad "no layer counts in: $(cat "$dir/out")"
[ ! -e "$dir/r5" ] && ok || bad "the refused --init left $dir/r5"
expect "--init of 2 layers into --layers 2" 0 "checkpoint" \
  "$ORDO" train "${C[@]}" --layers 2 --steps 2 --init "$dir/hf2/model.safetensors" --out "$dir/r5b"
expect "--init of a learned export into --pos rope" nonzero "transformer.wpe.weight; a learned position table, but this run has --pos rope" \
  "$ORDO" train "${C[@]}" --pos rope --steps 2 --init "$dir/hf/model.safetensors" --out "$dir/r5c"
"$ORDO" train "${C[@]}" --pos none --steps 4 --out "$dir/nope" > /dev/null 2>&1 || bad "--pos none run failed"
"$ORDO" export "$dir/nope" --hf "$dir/hfn" > /dev/null 2>&1 || bad "export of the --pos none run failed"
expect "--init of a --pos none export (a table of zeros)" 0 "checkpoint" \
  "$ORDO" train "${C[@]}" --pos none --steps 2 --init "$dir/hfn/model.safetensors" --out "$dir/r5d"

# 9. a run's files without config.json
cp -a "$dir/base" "$dir/r9"; rm "$dir/r9/config.json"; cp "$dir/r9/metrics.jsonl" "$dir/r9.metrics"
expect "a new run over checkpoints without config.json" nonzero "checkpoints at steps 20 (milestone), 10 and metrics.jsonl" \
  "$ORDO" train "${C[@]}" --steps 5 --out "$dir/r9"
grep -qF "ordo train --resume $dir/r9" "$dir/out" && ok || bad "no resume hint in: $(cat "$dir/out")"
cmp -s "$dir/r9/metrics.jsonl" "$dir/r9.metrics" && [ ! -e "$dir/r9/ckpt-5.safetensors" ] && [ ! -e "$dir/r9/config.json" ] && ok ||
  bad "the refused run changed $dir/r9: $(ls "$dir/r9")"
expect "resume of it" 0 "resuming $dir/r9 from step 20" "$ORDO" train --resume "$dir/r9" --steps 22
mkdir "$dir/r9m"; cp "$dir/r9.metrics" "$dir/r9m/metrics.jsonl"
expect "a new run over a metrics.jsonl alone" nonzero "metrics.jsonl (" "$ORDO" train "${C[@]}" --steps 5 --out "$dir/r9m"
cmp -s "$dir/r9m/metrics.jsonl" "$dir/r9.metrics" && ok || bad "the refused run cut r9m/metrics.jsonl"

# 12. a failed resume leaves config.json alone
cp -a "$dir/base" "$dir/r12"; rm "$dir/r12/metrics.jsonl"; mkdir "$dir/r12/metrics.jsonl"
cp "$dir/r12/config.json" "$dir/r12.config"
expect "resume with a metrics.jsonl that does not open" nonzero "metrics.jsonl: is a directory" \
  "$ORDO" train --resume "$dir/r12" --steps 40
cmp -s "$dir/r12/config.json" "$dir/r12.config" && ok || bad "the failed resume changed config.json: $(diff "$dir/r12.config" "$dir/r12/config.json" | head -5)"
rmdir "$dir/r12/metrics.jsonl"
expect "the resume once metrics.jsonl is a file again" 0 "resuming" "$ORDO" train --resume "$dir/r12" --steps 22
grep -q '"steps": 22' "$dir/r12/config.json" && ok || bad "the resume that ran did not write config.json"

# 18. a flipped bit in a config key: one rule for eval and resume
cp -a "$dir/base" "$dir/r18"
f18=$dir/r18/ckpt-20.safetensors
at=$(grep -abo 'd-model' "$f18" | head -1 | cut -d: -f1)
printf 'm' | dd of="$f18" bs=1 seek=$((at + 6)) conv=notrunc 2> /dev/null # "d-model" -> "d-modem"
grep -aq 'd-modem' "$f18" && ok || bad "the bit flip did not land"
expect "eval past a flipped config key" 0 "warning: skipping $f18" "$ORDO" eval "$dir/r18" --context 16
grep -qF "step 10" "$dir/out" && ok || bad "eval did not use step 10: $(head -3 "$dir/out")"
expect "resume past a flipped config key" 0 "warning: skipping $f18" "$ORDO" train --resume "$dir/r18" --steps 20
grep -qF "resuming $dir/r18 from step 10" "$dir/out" && ok || bad "resume did not go on from step 10: $(head -3 "$dir/out")"
# the same flip in an older ordo's checkpoint (no checksums to catch it): the config rule
cp -a "$dir/base" "$dir/r18o"
f18=$dir/r18o/ckpt-20.safetensors
hdr_edit "$f18" 's/,"ordo_header_xxh3":"[0-9a-f]{16}"/" " x 38/e; s/,"ordo_data_xxh3":"[0-9a-f]{16}"/" " x 36/e; s/d-model/d-modem/'
expect "eval past a flipped config key, older checkpoint" 0 "warning: skipping $f18: unknown key \"d-modem\"" "$ORDO" eval "$dir/r18o" --context 16
expect "resume past a flipped config key, older checkpoint" 0 "warning: skipping $f18: unknown key \"d-modem\"" \
  "$ORDO" train --resume "$dir/r18o" --steps 20
grep -qF "resuming $dir/r18o from step 10" "$dir/out" && ok || bad "older checkpoint: resume did not go on from step 10"

# 22. a 10 MB path in --config
long=$dir/$(head -c 10485760 /dev/zero | tr '\0' a)
printf '{"data": "%s"}' "$long" > "$dir/long_data.json"
printf '{"init": "%s"}' "$long" > "$dir/long_init.json"
expect "10 MB data path" nonzero "bytes left out)...aaaa" \
  "$ORDO" train --config "$dir/long_data.json" "${C[@]}" --steps 2 --out "$dir/r22"
grep -qF "aaaa: cannot open: File name too long" "$dir/out" && ok || bad "the reason is lost: $(tail -c 200 "$dir/out")"
[ "$(wc -c < "$dir/out")" -lt 2200 ] && ok || bad "the message is $(wc -c < "$dir/out") bytes"
expect "10 MB init path" nonzero "is over 4095 bytes" \
  "$ORDO" train --config "$dir/long_init.json" "${C[@]}" --steps 2 --out "$dir/r22"
grep -qF -- "--init $dir/aaaa" "$dir/out" && ok || bad "the message does not start with the path: $(head -c 200 "$dir/out")"
unset long

# 7. header-only edits
header_case() { # NAME PERL
  rm -rf "$dir/r7"; cp -a "$dir/base" "$dir/r7"
  hdr_edit "$dir/r7/ckpt-20.safetensors" "$2"
  expect "$1: resume skips it" 0 "skipping $dir/r7/ckpt-20.safetensors: header checksum mismatch" \
    "$ORDO" train --resume "$dir/r7" --steps 20
  grep -qF "resuming $dir/r7 from step 10" "$dir/out" && ok || bad "$1: not resumed from step 10: $(head -3 "$dir/out")"
}
header_case "cursor" 's/(cursor\\":\d*)(\d)/$1.($2 ^ 1)/e' # its last digit changed
header_case "epoch" 's/(epoch\\":)0/${1}1/'
header_case "optim_t" 's/"optim_t":"20"/"optim_t":"21"/'
header_case "swapped data_offsets" 's/("h\.0\.ln_1\.bias":\{[^}]*"data_offsets":)(\[\d+,\d+\])(.*?"h\.0\.ln_1\.weight":\{[^}]*"data_offsets":)(\[\d+,\d+\])/$1$4$3$2/'
# an older ordo's checkpoint: a data checksum, no header checksum
rm -rf "$dir/r7o"; cp -a "$dir/base" "$dir/r7o"
hdr_edit "$dir/r7o/ckpt-20.safetensors" 's/,"ordo_header_xxh3":"[0-9a-f]{16}"/" " x 38/e'
expect "no header checksum: resume notes it" 0 "ckpt-20.safetensors has no header checksum (written by an older ordo?)" \
  "$ORDO" train --resume "$dir/r7o" --steps 22
grep -qF "resuming $dir/r7o from step 20" "$dir/out" && ok || bad "no header checksum: not resumed from step 20"
# the header checksum's key itself hit: damage, not an older file
rm -rf "$dir/r7k"; cp -a "$dir/base" "$dir/r7k"
hdr_edit "$dir/r7k/ckpt-20.safetensors" 's/"ordo_header_xxh3"/"ordo_header_xxh2"/'
expect "a flipped bit in the header checksum's key" 0 'metadata key "ordo_header_xxh2" is none that ordo writes' \
  "$ORDO" train --resume "$dir/r7k" --steps 20
grep -qF "resuming $dir/r7k from step 10" "$dir/out" && ok || bad "flipped key: not resumed from step 10"

finish test_hostile_runs
