#!/usr/bin/env bash
# Writes the fixtures of tests/eval/test_export.c and tests/cli/test_export_cli.sh (about 150 KB):
#   fixtures/export_<pos>.ckpt.safetensors    the last checkpoint of a tiny ordo run (byte
#                                             tokenizer, on fixtures/the-verdict-head.txt)
#   fixtures/export_<pos>/                    `ordo export` of it: config.json, model.safetensors
#   fixtures/export_<pos>_logits.safetensors  "idx" [2, 8] and the "logits" that GPT-2, loaded
#                                             from that folder as transformers loads it, computes
#                                             (tests/ref/hf_gpt2.py, float64 rounded to float32)
# for pos = learned and none. The tests export the checkpoint again and require the same
# bytes, and require ordo's logits of the checkpoint to match these: so an export that
# transformers would read differently from ordo's own forward fails. Regenerate on purpose
# only (a changed export format changes the committed folder):
#   tests/ref/make_export_fixture.sh [ORDO_BIN]     (needs /usr/bin/python3 with torch)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
ordo=$(cd "$(dirname "${1:-$src/build/ordo}")" && pwd)/$(basename "${1:-$src/build/ordo}")
fx=$src/tests/ref/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
idx="73 32 72 65 68 32 97 108; 119 97 121 115 32 116 104 111"
for pos in learned none; do
  "$ordo" train --data tests/ref/fixtures/the-verdict-head.txt --tokenizer byte --pos $pos \
    --context 8 --d-model 16 --heads 2 --layers 2 --batch 4 --steps 30 --lr 0.01 --warmup 0 \
    --eval-every 0 --threads 1 --seed 5 --out "$tmp/$pos" >/dev/null
  cp "$tmp/$pos/ckpt-30.safetensors" "$fx/export_$pos.ckpt.safetensors"
  rm -rf "$fx/export_$pos"
  "$ordo" export "$fx/export_$pos.ckpt.safetensors" --hf "$fx/export_$pos"
  /usr/bin/python3 tests/ref/hf_gpt2.py "$fx/export_$pos" --idx "$idx" \
    --out "$fx/export_${pos}_logits.safetensors"
done
