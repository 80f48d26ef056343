#!/usr/bin/env bash
# `ordo export --hf` through the real binary: the committed checkpoints of
# tests/ref/make_export_fixture.sh export to the committed folders byte for byte (their
# logits, as GPT-2 loaded from that folder computes them, are compared with ordo's in
# tests/eval/test_export.c); a run directory exports its newest usable checkpoint; a gpt2 run gets
# vocab.json and merges.txt (a warning when the vocab cannot be read); the schemes GPT-2
# cannot compute are refused with the reason, writing nothing; no temporary file is left.
# When /usr/bin/python3 has torch, the fresh export is also loaded by tests/ref/hf_gpt2.py.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
export ORDO_VOCAB_DIR=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
fx=$src/tests/ref/fixtures
checks=0

# run NAME CMD...: stdout into $dir/NAME.out, stderr into $dir/NAME.err, exit 0 required
run() {
  local name=$1 rc
  shift
  checks=$((checks + 1))
  "$@" >"$dir/$name.out" 2>"$dir/$name.err"; rc=$?
  [ $rc = 0 ] || bad "$* exited $rc: $(cat "$dir/$name.err")"
}

# refused NEEDLE CMD...: exit 1, "ordo: export:" and NEEDLE on stderr, $dir/nothing not created
refused() {
  local needle=$1 rc
  shift
  checks=$((checks + 1))
  "$@" >/dev/null 2>"$dir/err"; rc=$?
  [ $rc = 1 ] || { bad "$*: exit $rc, want 1: $(cat "$dir/err")"; return; }
  grep -q "^ordo: export: " "$dir/err" || bad "$*: stderr lacks 'ordo: export:': $(cat "$dir/err")"
  grep -qF -- "$needle" "$dir/err" || bad "$*: stderr lacks '$needle': $(cat "$dir/err")"
  [ -e "$dir/nothing" ] && { bad "$*: wrote its --hf folder"; rm -rf "$dir/nothing"; }
}

same() { # A B: identical files
  checks=$((checks + 1))
  cmp -s "$1" "$2" || bad "$1 differs from $2"
}

# the committed fixtures export to the committed folders, byte for byte
for pos in learned none; do
  run "fx_$pos" "$ORDO" export "$fx/export_$pos.ckpt.safetensors" --hf "$dir/$pos"
  same "$dir/$pos/model.safetensors" "$fx/export_$pos/model.safetensors"
  same "$dir/$pos/config.json" "$fx/export_$pos/config.json"
  checks=$((checks + 1))
  grep -q "^exported .*export_$pos.ckpt.safetensors (step 30, pos $pos) to $dir/$pos: config.json, model.safetensors$" \
    "$dir/fx_$pos.out" || bad "export summary: $(cat "$dir/fx_$pos.out")"
done
checks=$((checks + 1))
grep -qx "wpe: 8 positions of zeros (no position signal)" "$dir/fx_none.out" || bad "none summary: $(cat "$dir/fx_none.out")"
# again over the same folder: files are replaced, and no temporary file is left
run again "$ORDO" export "$fx/export_none.ckpt.safetensors" --hf "$dir/none8" --n-positions 64
run again2 "$ORDO" export "$fx/export_none.ckpt.safetensors" --hf "$dir/none8"
same "$dir/none8/model.safetensors" "$fx/export_none/model.safetensors"
checks=$((checks + 1))
[ -z "$(ls "$dir/none8" | grep -v '^config.json$\|^model.safetensors$')" ] || bad "other files in the folder: $(ls "$dir/none8")"

if /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  run py /usr/bin/python3 "$src/tests/ref/hf_gpt2.py" "$dir/learned" --idx "73 32 72 65; 119 97 121 115"
else
  echo "SKIP: /usr/bin/python3 has no torch: the fresh export was not loaded in Python"
fi

# a run directory: its newest usable checkpoint (a damaged newest one is skipped, with a warning)
tiny=(--context 8 --d-model 16 --heads 2 --layers 1 --batch 2 --steps 4 --ckpt-every 2 --keep 5
      --eval-every 0 --threads 1)
run train "$ORDO" train --task order --corpus-tokens 2000 "${tiny[@]}" --out "$dir/run"
run dir "$ORDO" export "$dir/run" --hf "$dir/fromdir"
checks=$((checks + 1))
grep -q "^exported $dir/run/ckpt-4.safetensors (step 4, pos learned)" "$dir/dir.out" || bad "run dir: $(cat "$dir/dir.out")"
truncate -s 3000 "$dir/run/ckpt-4.safetensors"
run dir2 "$ORDO" export "$dir/run" --hf "$dir/fromdir2"
checks=$((checks + 2))
grep -q "^exported $dir/run/ckpt-2.safetensors (step 2" "$dir/dir2.out" || bad "damaged newest: $(cat "$dir/dir2.out")"
grep -q "^ordo: warning: skipping $dir/run/ckpt-4.safetensors: " "$dir/dir2.err" || bad "no warning: $(cat "$dir/dir2.err")"
checks=$((checks + 1))
grep -q '"task": "order"' "$dir/fromdir/config.json" || bad "config.json lacks the task: $(cat "$dir/fromdir/config.json")"

# --hf a symbolic link to a folder: the folder it points to gets the export, the link stays
mkdir -p "$dir/linked"
ln -s "$dir/linked" "$dir/link"
run link "$ORDO" export "$dir/run" --hf "$dir/link"
checks=$((checks + 2))
[ -L "$dir/link" ] || bad "--hf LINK: the link was replaced"
[ -s "$dir/linked/config.json" ] && [ -s "$dir/link/model.safetensors" ] || bad "--hf LINK: no export where it points: $(ls "$dir/linked")"
run link2 "$ORDO" export "$dir/run" --hf "$dir/link" # again: an earlier export is replaced
checks=$((checks + 1))
[ -L "$dir/link" ] || bad "--hf LINK twice: the link was replaced"

# a gpt2 run: the tokenizer files, and GPT-2's <|endoftext|> as bos and eos
if [ -f "$ORDO_VOCAB_DIR/encoder.json" ]; then
  run gtrain "$ORDO" train --data "$fx/the-verdict-head.txt" --tokenizer gpt2 --context 8 --d-model 8 \
    --heads 1 --layers 1 --batch 2 --steps 1 --eval-every 0 --threads 1 --out "$dir/g"
  run gexp "$ORDO" export "$dir/g" --hf "$dir/ghf"
  same "$dir/ghf/vocab.json" "$ORDO_VOCAB_DIR/encoder.json"
  same "$dir/ghf/merges.txt" "$ORDO_VOCAB_DIR/vocab.bpe"
  checks=$((checks + 2))
  grep -q '"eos_token_id": 50256' "$dir/ghf/config.json" || bad "gpt2: eos: $(cat "$dir/ghf/config.json")"
  grep -q "model.safetensors, vocab.json, merges.txt$" "$dir/gexp.out" || bad "gpt2 summary: $(cat "$dir/gexp.out")"
  # without the vocab: the model is exported, with a warning
  ORDO_VOCAB_DIR=$dir/novocab run gnov "$ORDO" export "$dir/g" --hf "$dir/ghf2"
  checks=$((checks + 2))
  grep -q "^ordo: warning: the tokenizer files (vocab.json, merges.txt) were not written: .*novocab" "$dir/gnov.err" ||
    bad "no vocab warning: $(cat "$dir/gnov.err")"
  [ -f "$dir/ghf2/model.safetensors" ] && [ ! -e "$dir/ghf2/vocab.json" ] || bad "without vocab: $(ls "$dir/ghf2")"
elif [ "${ORDO_REQUIRE_DOWNLOADS:-0}" != 1 ]; then
  echo "SKIP: gpt2 export (no gpt2 vocab in $ORDO_VOCAB_DIR: data/fetch.sh vocab fetches it)"
else
  bad "no gpt2 vocab in $ORDO_VOCAB_DIR, and ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh fetches it: data/fetch.sh vocab)"
fi

# what GPT-2 cannot compute is refused, naming the scheme and why, and nothing is written
for pos in sinusoidal rope alibi t5; do
  run "t_$pos" "$ORDO" train --task order --corpus-tokens 2000 "${tiny[@]}" --steps 1 --pos $pos --out "$dir/$pos"
done
refused "--pos sinusoidal cannot be exported as Hugging Face GPT-2: its position table is fixed" \
  "$ORDO" export "$dir/sinusoidal" --hf "$dir/nothing"
refused "--pos rope cannot be exported as Hugging Face GPT-2: it rotates queries and keys" \
  "$ORDO" export "$dir/rope" --hf "$dir/nothing"
refused "--pos alibi cannot be exported as Hugging Face GPT-2: it adds a distance bias" \
  "$ORDO" export "$dir/alibi/ckpt-1.safetensors" --hf "$dir/nothing"
refused "--pos t5 cannot be exported as Hugging Face GPT-2: it adds a learned relative bias (rel_bias.weight)" \
  "$ORDO" export "$dir/t5" --hf "$dir/nothing"
run vas "$ORDO" train --task order --corpus-tokens 2000 "${tiny[@]}" --steps 1 --embed-style vaswani --out "$dir/vas"
refused "the run multiplies the token embeddings by 4 before positions are added" \
  "$ORDO" export "$dir/vas" --hf "$dir/nothing"
refused "--n-positions 16: the learned table of" \
  "$ORDO" export "$fx/export_learned.ckpt.safetensors" --hf "$dir/nothing" --n-positions 16
refused "--hf DIR is required" "$ORDO" export "$dir/run"

checks=$((checks + 1))
[ -z "$(find "$dir" -name '*.tmp.*')" ] || bad "temporary files left: $(find "$dir" -name '*.tmp.*')"
run help "$ORDO" export --help
checks=$((checks + 2))
grep -q "^  --hf S" "$dir/help.out" || bad "export --help lacks --hf: $(cat "$dir/help.out")"
"$ORDO" --help | grep -q "^  export " || bad "ordo --help does not list export"

# an untied head is GPT2LMHeadModel's own lm_head.weight (not transformer.*), and config.json
# unties it; the run's dropout rates become GPT-2's *_pdrop
run utrain "$ORDO" train --task order --corpus-tokens 3000 --context 8 --d-model 16 --heads 2 --layers 1 \
  --batch 4 --steps 2 --eval-every 0 --untied-head --dropout 0.1 --dropout-attn 0.2 --out "$dir/urun"
run uexp "$ORDO" export "$dir/urun" --hf "$dir/uhf"
checks=$((checks + 1))
hdr=$(head -c 4096 "$dir/uhf/model.safetensors" | tr -d '\0')
grep -q '"lm_head.weight"' <<<"$hdr" && ! grep -q 'transformer.lm_head' <<<"$hdr" \
  || bad "untied export: lm_head.weight missing or under transformer."
checks=$((checks + 1))
grep -q '"tie_word_embeddings": false' "$dir/uhf/config.json" && grep -q '"attn_pdrop": 0.2' "$dir/uhf/config.json" \
  && grep -q '"resid_pdrop": 0.1' "$dir/uhf/config.json" || bad "untied export config: $(cat "$dir/uhf/config.json")"

echo "$checks checks, $fail failed"
[ $fail -eq 0 ]
