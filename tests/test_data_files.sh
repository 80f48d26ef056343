#!/usr/bin/env bash
# Data files through the real CLI (issue 18, point 10):
# 1. `ordo tokenize` streams: the ids of every chunk size equal those of the whole input,
#    from a file and from a pipe, on text with long lines, runs without a safe point, invalid
#    UTF-8 and special tokens;
# 2. `tokenize --out FILE.bin` holds exactly those ids behind the documented header, and
#    training on FILE.bin gives the same metrics and bit-identical checkpoint tensors as
#    training on the text; eval, sample and an interrupted-then-resumed run work on it.
# The gpt2 cases need the vocab ($ORDO_VOCAB_DIR or .cache/gpt2); without it they are skipped.
set -u
ORDO=${ORDO_BIN:-build/ordo}
ORDO=$(cd "$(dirname "$ORDO")" && pwd)/$(basename "$ORDO")
VOCAB=${ORDO_VOCAB_DIR:-.cache/gpt2}
VOCAB=$(cd "$VOCAB" 2>/dev/null && pwd || echo "$VOCAB")
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
has_vocab() { [ -f "$VOCAB/encoder.json" ] && [ -f "$VOCAB/vocab.bpe" ]; }

# SHA-256 of a checkpoint's tensor data (everything after its JSON header), which does not
# hold the config, so that runs on different files of the same tokens can be compared.
tensors() { local n; n=$(od -An -tu8 -N8 "$1" | tr -d ' '); tail -c +$((9 + n)) "$1" | sha256sum | cut -d' ' -f1; }
# The losses of metrics.jsonl (train and val), one line per logged step.
losses() { grep -o '"step":[0-9]*,"train_loss":[^,]*,\("val_loss":[^,]*\)\?' "$1"; }
# The ids of a token file, one per line (uint16 payload after the 64-byte header).
bin_ids() { od -An -tu2 -v -j64 "$1" | tr -s ' ' '\n' | sed '/^$/d'; }
txt_ids() { tr ' ' '\n' < "$1" | sed '/^$/d'; }

# English-like text, generated (the tests need nothing beside the checkout): words, digits,
# punctuation, runs of spaces and newlines, some lines of thousands of words.
awk 'BEGIN { srand(7); split("the cat sat on a mat and dog ran far 42 x9 it'"'"'s don'"'"'t , . ; -- ( ) über café", w, " ");
  for (l = 0; l < 400; l++) { n = (l % 97 == 5) ? 4000 : 1 + int(rand() * 20); s = "";
    for (i = 0; i < n; i++) s = s (i ? (rand() < 0.05 ? "  " : " ") : "") w[1 + int(rand() * 24)];
    printf "%s%s", s, (l % 13 == 0) ? "\n\n" : "\n" } }' > "$dir/text.txt"
printf 'ab\xff\xfe cd 12\xe2\x80 <|endoftext|>\n\t\r\n   x' >> "$dir/text.txt"
head -c 50000 /dev/zero | tr '\0' 'a' >> "$dir/text.txt" # 50 KB without a safe point
printf ' tail 7\n' >> "$dir/text.txt"
bytes=$(wc -c < "$dir/text.txt")
tiny=(--context 16 --d-model 16 --heads 2 --layers 1 --batch 4 --eval-every 4 --threads 1)

# --- 1. streaming tokenize: every chunk size gives the ids of the whole input
kinds=(byte)
has_vocab && kinds+=(gpt2) || { echo "SKIP: gpt2 streaming and token files (no vocab in $VOCAB)"; skip=$((skip+1)); }
for k in "${kinds[@]}"; do
  tok=(--tokenizer "$k"); [ "$k" = gpt2 ] && tok+=(--vocab "$VOCAB")
  "$ORDO" tokenize "${tok[@]}" --chunk-bytes 0 "$dir/text.txt" > "$dir/whole.$k" || bad "$k: whole-input tokenize failed"
  for c in 1 3 64 4096 1048576; do
    "$ORDO" tokenize "${tok[@]}" --chunk-bytes $c "$dir/text.txt" > "$dir/chunk" 2>&1
    cmp -s "$dir/whole.$k" "$dir/chunk" && ok || bad "$k: --chunk-bytes $c differs from the whole input"
  done
  "$ORDO" tokenize "${tok[@]}" --allow-special --chunk-bytes 0 "$dir/text.txt" > "$dir/whole.sp"
  "$ORDO" tokenize "${tok[@]}" --allow-special --chunk-bytes 5 "$dir/text.txt" > "$dir/chunk"
  cmp -s "$dir/whole.sp" "$dir/chunk" && ok || bad "$k: --allow-special in chunks differs"
  cat "$dir/text.txt" | "$ORDO" tokenize "${tok[@]}" --chunk-bytes 100 > "$dir/chunk"
  cmp -s "$dir/whole.$k" "$dir/chunk" && ok || bad "$k: a pipe in chunks differs from the whole input"
  [ "$(cat "$dir/text.txt" | "$ORDO" tokenize "${tok[@]}" --count)" = "$(txt_ids "$dir/whole.$k" | wc -l)" ] && ok || bad "$k: --count from a pipe"

  # --- 2. token files: the same ids behind the header
  "$ORDO" tokenize "${tok[@]}" --chunk-bytes 4096 --out "$dir/t.$k.bin" "$dir/text.txt" > "$dir/out.log" || bad "$k: tokenize --out: $(cat "$dir/out.log")"
  n=$(txt_ids "$dir/whole.$k" | wc -l)
  grep -qF "wrote $n tokens ($k," "$dir/out.log" && ok || bad "$k: tokenize --out says: $(cat "$dir/out.log")"
  [ "$(head -c 8 "$dir/t.$k.bin")" = ORDOTOK1 ] && ok || bad "$k: no magic"
  [ "$(od -An -tu4 -j8 -N16 "$dir/t.$k.bin" | tr -s ' ')" = " 1 2 $( [ $k = gpt2 ] && echo 50257 || echo 256) 64" ] && ok || bad "$k: version, width, vocab, header size: $(od -An -tu4 -j8 -N16 "$dir/t.$k.bin")"
  [ "$(od -An -tu8 -j24 -N8 "$dir/t.$k.bin" | tr -d ' ')" = "$n" ] && ok || bad "$k: count in the header"
  [ "$(head -c 56 "$dir/t.$k.bin" | tail -c 16 | tr -d '\0')" = "$k" ] && ok || bad "$k: tokenizer name in the header"
  [ "$(wc -c < "$dir/t.$k.bin")" -eq $((64 + 2 * n)) ] && ok || bad "$k: file size is not 64 + 2 * count"
  cmp -s <(bin_ids "$dir/t.$k.bin") <(txt_ids "$dir/whole.$k") && ok || bad "$k: the ids in the token file differ from tokenize's"

  # training on the token file: the same losses and bit-identical tensors as on the text
  run=(train "${tiny[@]}" --steps 8 --ckpt-every 4 --keep 5)
  "$ORDO" "${run[@]}" --data "$dir/text.txt" "${tok[@]}" --out "$dir/txt.$k" > "$dir/a.log" 2>&1 || bad "$k: training on text: $(tail -2 "$dir/a.log")"
  "$ORDO" "${run[@]}" --data "$dir/t.$k.bin" --out "$dir/bin.$k" > "$dir/b.log" 2>&1 || bad "$k: training on the token file: $(tail -2 "$dir/b.log")"
  grep -q "\"tokenizer\": \"$k\"" "$dir/bin.$k/config.json" && ok || bad "$k: the token file's tokenizer is not the run's"
  [ -n "$(losses "$dir/txt.$k/metrics.jsonl")" ] && cmp -s <(losses "$dir/txt.$k/metrics.jsonl") <(losses "$dir/bin.$k/metrics.jsonl") && ok || bad "$k: losses differ between text and token file"
  for s in 4 8; do
    [ "$(tensors "$dir/txt.$k/ckpt-$s.safetensors")" = "$(tensors "$dir/bin.$k/ckpt-$s.safetensors")" ] && ok || bad "$k: checkpoint $s tensors differ between text and token file"
  done
  out=$("$ORDO" eval "$dir/bin.$k" 2>&1) && ok || bad "$k: eval of a token-file run: $out"
  want=$("$ORDO" eval "$dir/txt.$k" 2>&1 | grep -E '^ +16 ')
  [ -n "$want" ] && [ "$(grep -E '^ +16 ' <<<"$out")" = "$want" ] && ok || bad "$k: eval differs between text and token file"
  "$ORDO" sample "$dir/bin.$k" --prompt "the cat" --tokens 5 --seed 2 > "$dir/s.bin" 2>&1 && ok || bad "$k: sample of a token-file run: $(cat "$dir/s.bin")"
  "$ORDO" sample "$dir/txt.$k" --prompt "the cat" --tokens 5 --seed 2 > "$dir/s.txt" 2>&1
  cmp -s "$dir/s.bin" "$dir/s.txt" && ok || bad "$k: sample differs between text and token file"
done

# an interrupted token-file run resumes to the same weights as one that ran through
b="$dir/t.byte.bin"
"$ORDO" train "${tiny[@]}" --steps 8 --ckpt-every 4 --data "$b" --stop-after 4 --out "$dir/stop" > /dev/null 2>&1
[ $? -eq 130 ] && ok || bad "--stop-after 4 on a token file did not stop with 130"
"$ORDO" train --resume "$dir/stop" > "$dir/stop.log" 2>&1 || bad "resume of a token-file run: $(tail -2 "$dir/stop.log")"
[ "$(tensors "$dir/stop/ckpt-8.safetensors")" = "$(tensors "$dir/bin.byte/ckpt-8.safetensors")" ] && ok || bad "resumed token-file run differs from the uninterrupted one"

echo "test_data_files: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
