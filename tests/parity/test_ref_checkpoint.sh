#!/usr/bin/env bash
# A learned-scheme checkpoint written by ordo loads in the PyTorch reference (same names and
# shapes) and gives the same logits, also with scaled token embeddings (the scale is in the
# file's metadata). Runs when /usr/bin/python3 has torch; SKIP otherwise
# (the round trip inside ordo is tests/models/test_gpt_io.c and always runs).
set -eu
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "SKIP: no torch for /usr/bin/python3"; exit 0
fi
"$BUILD/test_gpt_io" --write-sample "$dir"
for name in learned learned_scaled; do
  "$PY" "$src/tests/ref/gpt_ref.py" --check-checkpoint "$dir/ordo_$name.safetensors" \
    --compare "$dir/ordo_${name}_out.safetensors" --rtol 1e-5 --atol 1e-5 | tee "$dir/$name.log"
  grep -q "compare:.*: match" "$dir/$name.log"
done
grep -q "embed_scale=2.5" "$dir/learned_scaled.log" # the reference read the scale from the file
echo "3 passed, 0 failed"
