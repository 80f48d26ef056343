#!/usr/bin/env bash
# `ordo sample` writes the decoded bytes as they are: a byte-tokenizer model that generates
# NUL bytes (id 0) prints every one of them and everything after them. With --tokens N on
# bytes, the output is the prompt, exactly N bytes and a newline. (printf "%s" once cut the
# output at the first NUL: 3000 tokens printed 420 bytes.) stderr, not the text, names the
# checkpoint used and says when the model sees less than the text: a prompt longer than the
# context is cropped, and a long generation slides the window.
set -u
. "$(dirname "$0")/../lib.sh"

for i in $(seq 1 60); do echo "the quick brown fox jumps over the lazy dog $i"; done > "$dir/text.txt"
"$ORDO" train --data "$dir/text.txt" --tokenizer byte --steps 2 --context 16 --d-model 16 --heads 2 \
  --layers 1 --batch 4 --eval-every 0 --threads 1 --out "$dir/run" > "$dir/train.out" 2>&1 \
  || { echo "FAIL: training the byte model: $(tail -3 "$dir/train.out")"; exit 1; }

# a hot temperature on a barely trained model: about uniform over the 256 bytes, so 3000
# tokens hold about a dozen NULs (seeded: the same ones every time)
"$ORDO" sample "$dir/run" --prompt "the " --tokens 3000 --temperature 3 --seed 1 > "$dir/out" 2> "$dir/err" \
  && ok || bad "sample failed: $(cat "$dir/err")"
size=$(wc -c < "$dir/out")
[ "$size" -eq $((4 + 3000 + 1)) ] && ok || bad "sample printed $size bytes, expected 4 + 3000 + 1"
nuls=$(tr -cd '\000' < "$dir/out" | wc -c)
[ "$nuls" -gt 0 ] && ok || bad "no NUL among the sampled bytes (the test needs one: change --seed)"
[ "$(head -c 4 "$dir/out")" = "the " ] && ok || bad "the output does not start with the prompt"
[ "$(tail -c 1 "$dir/out" | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "the output does not end with a newline"
grep -qxF "ordo: checkpoint: $dir/run/ckpt-2.safetensors (step 2)" "$dir/err" && ok || bad "stderr does not name the checkpoint: $(cat "$dir/err")"
grep -qF "past 16 tokens (the model's context) the window slides" "$dir/err" && ok || bad "stderr does not say the window slides: $(cat "$dir/err")"
"$ORDO" sample "$dir/run" --prompt "the quick brown fox jumps" --tokens 2 --threads 1 > "$dir/crop" 2> "$dir/crop.err" \
  && grep -qF "the prompt is 25 tokens, the model's context 16: it sees the last 16" "$dir/crop.err" \
  && ok || bad "a prompt longer than the context: $(cat "$dir/crop.err")"
[ "$(wc -c < "$dir/crop")" -eq $((25 + 2 + 1)) ] && ok || bad "stdout holds more than the text: $(cat "$dir/crop")"
"$ORDO" sample "$dir/run" --prompt "the" --tokens 2 --threads 1 2> "$dir/short.err" > /dev/null
grep -q "slides\|cropped\|sees the last" "$dir/short.err" && bad "a short text said it was cut: $(cat "$dir/short.err")" || ok
# the same bytes again with the same seed, NULs included
"$ORDO" sample "$dir/run" --prompt "the " --tokens 3000 --temperature 3 --seed 1 2> /dev/null | cmp -s - "$dir/out" \
  && ok || bad "sample is not reproducible byte for byte"

finish
