#!/usr/bin/env bash
# `ordo export --hf` through the real binary: the committed checkpoints of
# tests/ref/make_export_fixture.sh export to the committed folders byte for byte (their
# logits, as GPT-2 loaded from that folder computes them, are compared with ordo's in
# tests/test_export.c); a run directory exports its newest usable checkpoint; a gpt2 run gets
# vocab.json and merges.txt (a warning when the vocab cannot be read); the schemes GPT-2
# cannot compute are refused with the reason, writing nothing; no temporary file is left.
# When /usr/bin/python3 has torch, the fresh export is also loaded by tests/ref/hf_gpt2.py.
set -uo pipefail
src=${ORDO_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${ORDO_BIN:-$src/build/ordo}
export ORDO_VOCAB_DIR=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
fx=$src/tests/ref/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# run NAME CMD...: stdout into $tmp/NAME.out, stderr into $tmp/NAME.err, exit 0 required
run() {
  local name=$1 rc
  shift
  checks=$((checks + 1))
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
  [ $rc = 0 ] || fail "$* exited $rc: $(cat "$tmp/$name.err")"
}

# refused NEEDLE CMD...: exit 1, "ordo: export:" and NEEDLE on stderr, $tmp/nothing not created
refused() {
  local needle=$1 rc
  shift
  checks=$((checks + 1))
  "$@" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] || { fail "$*: exit $rc, want 1: $(cat "$tmp/err")"; return; }
  grep -q "^ordo: export: " "$tmp/err" || fail "$*: stderr lacks 'ordo: export:': $(cat "$tmp/err")"
  grep -qF -- "$needle" "$tmp/err" || fail "$*: stderr lacks '$needle': $(cat "$tmp/err")"
  [ -e "$tmp/nothing" ] && { fail "$*: wrote its --hf folder"; rm -rf "$tmp/nothing"; }
}

same() { # A B: identical files
  checks=$((checks + 1))
  cmp -s "$1" "$2" || fail "$1 differs from $2"
}

# the committed fixtures export to the committed folders, byte for byte
for pos in learned none; do
  run "fx_$pos" "$bin" export "$fx/export_$pos.ckpt.safetensors" --hf "$tmp/$pos"
  same "$tmp/$pos/model.safetensors" "$fx/export_$pos/model.safetensors"
  same "$tmp/$pos/config.json" "$fx/export_$pos/config.json"
  checks=$((checks + 1))
  grep -q "^exported .*export_$pos.ckpt.safetensors (step 30, pos $pos) to $tmp/$pos: config.json, model.safetensors$" \
    "$tmp/fx_$pos.out" || fail "export summary: $(cat "$tmp/fx_$pos.out")"
done
checks=$((checks + 1))
grep -qx "wpe: 8 positions of zeros (no position signal)" "$tmp/fx_none.out" || fail "none summary: $(cat "$tmp/fx_none.out")"
# again over the same folder: files are replaced, and no temporary file is left
run again "$bin" export "$fx/export_none.ckpt.safetensors" --hf "$tmp/none8" --n-positions 64
run again2 "$bin" export "$fx/export_none.ckpt.safetensors" --hf "$tmp/none8"
same "$tmp/none8/model.safetensors" "$fx/export_none/model.safetensors"
checks=$((checks + 1))
[ -z "$(ls "$tmp/none8" | grep -v '^config.json$\|^model.safetensors$')" ] || fail "other files in the folder: $(ls "$tmp/none8")"

if /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  run py /usr/bin/python3 "$src/tests/ref/hf_gpt2.py" "$tmp/learned" --idx "73 32 72 65; 119 97 121 115"
else
  echo "SKIP: /usr/bin/python3 has no torch: the fresh export was not loaded in Python"
fi

# a run directory: its newest usable checkpoint (a damaged newest one is skipped, with a warning)
tiny=(--context 8 --d-model 16 --heads 2 --layers 1 --batch 2 --steps 4 --ckpt-every 2 --keep 5
      --eval-every 0 --threads 1)
run train "$bin" train --task order --corpus-tokens 2000 "${tiny[@]}" --out "$tmp/run"
run dir "$bin" export "$tmp/run" --hf "$tmp/fromdir"
checks=$((checks + 1))
grep -q "^exported $tmp/run/ckpt-4.safetensors (step 4, pos learned)" "$tmp/dir.out" || fail "run dir: $(cat "$tmp/dir.out")"
truncate -s 3000 "$tmp/run/ckpt-4.safetensors"
run dir2 "$bin" export "$tmp/run" --hf "$tmp/fromdir2"
checks=$((checks + 2))
grep -q "^exported $tmp/run/ckpt-2.safetensors (step 2" "$tmp/dir2.out" || fail "damaged newest: $(cat "$tmp/dir2.out")"
grep -q "^ordo: warning: skipping $tmp/run/ckpt-4.safetensors: " "$tmp/dir2.err" || fail "no warning: $(cat "$tmp/dir2.err")"
checks=$((checks + 1))
grep -q '"task": "order"' "$tmp/fromdir/config.json" || fail "config.json lacks the task: $(cat "$tmp/fromdir/config.json")"

# a gpt2 run: the tokenizer files, and GPT-2's <|endoftext|> as bos and eos
if [ -f "$ORDO_VOCAB_DIR/encoder.json" ]; then
  run gtrain "$bin" train --data "$fx/the-verdict-head.txt" --tokenizer gpt2 --context 8 --d-model 8 \
    --heads 1 --layers 1 --batch 2 --steps 1 --eval-every 0 --threads 1 --out "$tmp/g"
  run gexp "$bin" export "$tmp/g" --hf "$tmp/ghf"
  same "$tmp/ghf/vocab.json" "$ORDO_VOCAB_DIR/encoder.json"
  same "$tmp/ghf/merges.txt" "$ORDO_VOCAB_DIR/vocab.bpe"
  checks=$((checks + 2))
  grep -q '"eos_token_id": 50256' "$tmp/ghf/config.json" || fail "gpt2: eos: $(cat "$tmp/ghf/config.json")"
  grep -q "model.safetensors, vocab.json, merges.txt$" "$tmp/gexp.out" || fail "gpt2 summary: $(cat "$tmp/gexp.out")"
  # without the vocab: the model is exported, with a warning
  ORDO_VOCAB_DIR=$tmp/novocab run gnov "$bin" export "$tmp/g" --hf "$tmp/ghf2"
  checks=$((checks + 2))
  grep -q "^ordo: warning: the tokenizer files (vocab.json, merges.txt) were not written: .*novocab" "$tmp/gnov.err" ||
    fail "no vocab warning: $(cat "$tmp/gnov.err")"
  [ -f "$tmp/ghf2/model.safetensors" ] && [ ! -e "$tmp/ghf2/vocab.json" ] || fail "without vocab: $(ls "$tmp/ghf2")"
elif [ "${ORDO_ALLOW_MISSING_VOCAB:-0}" = 1 ]; then
  echo "SKIP: gpt2 export (no vocab in $ORDO_VOCAB_DIR)"
else
  fail "no gpt2 vocab in $ORDO_VOCAB_DIR (data/fetch.sh vocab, or ORDO_ALLOW_MISSING_VOCAB=1)"
fi

# what GPT-2 cannot compute is refused, naming the scheme and why, and nothing is written
for pos in sinusoidal rope alibi t5; do
  run "t_$pos" "$bin" train --task order --corpus-tokens 2000 "${tiny[@]}" --steps 1 --pos $pos --out "$tmp/$pos"
done
refused "--pos sinusoidal cannot be exported as Hugging Face GPT-2: its position table is fixed" \
  "$bin" export "$tmp/sinusoidal" --hf "$tmp/nothing"
refused "--pos rope cannot be exported as Hugging Face GPT-2: it rotates queries and keys" \
  "$bin" export "$tmp/rope" --hf "$tmp/nothing"
refused "--pos alibi cannot be exported as Hugging Face GPT-2: it adds a distance bias" \
  "$bin" export "$tmp/alibi/ckpt-1.safetensors" --hf "$tmp/nothing"
refused "--pos t5 cannot be exported as Hugging Face GPT-2: it adds a learned relative bias (rel_bias.weight)" \
  "$bin" export "$tmp/t5" --hf "$tmp/nothing"
run vas "$bin" train --task order --corpus-tokens 2000 "${tiny[@]}" --steps 1 --embed-style vaswani --out "$tmp/vas"
refused "the run multiplies the token embeddings by 4 before positions are added" \
  "$bin" export "$tmp/vas" --hf "$tmp/nothing"
refused "--n-positions 16: the learned table of" \
  "$bin" export "$fx/export_learned.ckpt.safetensors" --hf "$tmp/nothing" --n-positions 16
refused "--hf DIR is required" "$bin" export "$tmp/run"

checks=$((checks + 1))
[ -z "$(find "$tmp" -name '*.tmp.*')" ] || fail "temporary files left: $(find "$tmp" -name '*.tmp.*')"
run help "$bin" export --help
checks=$((checks + 2))
grep -q "^  --hf S" "$tmp/help.out" || fail "export --help lacks --hf: $(cat "$tmp/help.out")"
"$bin" --help | grep -q "^  export " || fail "ordo --help does not list export"

# an untied head is GPT2LMHeadModel's own lm_head.weight (not transformer.*), and config.json
# unties it; the run's dropout rates become GPT-2's *_pdrop (issue 19 point 6)
run utrain "$bin" train --task order --corpus-tokens 3000 --context 8 --d-model 16 --heads 2 --layers 1 \
  --batch 4 --steps 2 --eval-every 0 --untied-head --dropout 0.1 --dropout-attn 0.2 --out "$tmp/urun"
run uexp "$bin" export "$tmp/urun" --hf "$tmp/uhf"
checks=$((checks + 1))
hdr=$(head -c 4096 "$tmp/uhf/model.safetensors" | tr -d '\0')
grep -q '"lm_head.weight"' <<<"$hdr" && ! grep -q 'transformer.lm_head' <<<"$hdr" \
  || fail "untied export: lm_head.weight missing or under transformer."
checks=$((checks + 1))
grep -q '"tie_word_embeddings": false' "$tmp/uhf/config.json" && grep -q '"attn_pdrop": 0.2' "$tmp/uhf/config.json" \
  && grep -q '"resid_pdrop": 0.1' "$tmp/uhf/config.json" || fail "untied export config: $(cat "$tmp/uhf/config.json")"

echo "$checks checks, $fails failed"
[ $fails = 0 ]
