#!/usr/bin/env bash
# Data files through the real CLI:
# 1. a run records its data file's size and XXH3 in config.json and in every checkpoint; a
#    resume on the same content is accepted (also with a new mtime), on changed content it is
#    refused with both sizes and hashes unless --data-changed ok; eval warns; a run without
#    the record resumes with a note;
# 2. `ordo tokenize` streams: the ids of every chunk size equal those of the whole input,
#    from a file and from a pipe, on text with long lines, runs without a safe point, invalid
#    UTF-8 and special tokens;
# 3. `tokenize --out FILE.bin` holds exactly those ids behind the documented header, and
#    training on FILE.bin gives the same metrics and bit-identical checkpoint tensors as
#    training on the text; eval, sample and an interrupted-then-resumed run work on it, and a
#    token file that changed is refused on resume like a text file.
# The gpt2 cases need the vocab ($ORDO_VOCAB_DIR or .cache/gpt2); without it they are skipped.
set -u
. "$(dirname "$0")/../lib.sh"
VOCAB=${ORDO_VOCAB_DIR:-.cache/gpt2}
VOCAB=$(cd "$VOCAB" 2>/dev/null && pwd || echo "$VOCAB")
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

# --- 1. data identity on resume
cp "$dir/text.txt" "$dir/d.txt"
"$ORDO" train "${tiny[@]}" --data "$dir/d.txt" --tokenizer byte --steps 4 --ckpt-every 2 --keep 5 \
  --out "$dir/r" > "$dir/r.log" 2>&1 || bad "identity: first run: $(tail -2 "$dir/r.log")"
grep -A5 '"data_file"' "$dir/r/config.json" | grep -q "\"size\": $bytes," && ok || bad "config.json lacks data_file.size $bytes"
grep -A5 '"data_file"' "$dir/r/config.json" | grep -Eq '"xxh3": "[0-9a-f]{16}"' && ok || bad "config.json lacks data_file.xxh3"
head -c 8192 "$dir/r/ckpt-4.safetensors" | grep -aq "data_file\\\\\":{[^}]*\\\\\"size\\\\\":$bytes," && ok || bad "the checkpoint's config lacks data_file"
# the same content with a new mtime: accepted
touch -d '2001-01-01' "$dir/d.txt"
"$ORDO" train --resume "$dir/r" --steps 6 > "$dir/r2.log" 2>&1 && ok || bad "resume, same content, new mtime: $(tail -2 "$dir/r2.log")"
# appended to: refused, naming both sizes; nothing in the run changes
echo "one more line" >> "$dir/d.txt"
new=$(wc -c < "$dir/d.txt")
sums=$(cd "$dir/r" && sha256sum config.json metrics.jsonl ckpt-*)
out=$("$ORDO" train --resume "$dir/r" --steps 8 2>&1); rc=$?
[ $rc -eq 1 ] && ok || bad "resume on an appended data file: exit $rc, want 1"
grep -qF "data file $dir/d.txt changed since the run started: size $bytes -> $new bytes, hash " <<<"$out" && ok || bad "refusal does not name both sizes: $out"
grep -qF "pass --data-changed ok to train on the new content anyway" <<<"$out" && ok || bad "refusal does not say how to go on: $out"
[ "$sums" = "$(cd "$dir/r" && sha256sum config.json metrics.jsonl ckpt-*)" ] && ok || bad "a refused resume changed the run"
# eval and sample warn: their val loss is on other text
out=$("$ORDO" eval "$dir/r" 2>&1) && ok || bad "eval of a run whose data changed failed: $out"
grep -qF "ordo: warning: data file $dir/d.txt changed since the run trained on it: size $bytes -> $new bytes" <<<"$out" && ok || bad "eval does not warn: $out"
out=$("$ORDO" sample "$dir/r" --prompt "the" --tokens 3 2>&1 >/dev/null) && ok || bad "sample of a run whose data changed failed: $out"
# sample reads the tokenizer only, never the data: nothing to warn about
grep -qF "ordo: warning: data file" <<<"$out" && bad "sample read the data file: $out" || ok
# --data-changed ok: accepted with a note, and the new file is what the run records now
out=$("$ORDO" train --resume "$dir/r" --steps 8 --data-changed ok 2>&1); rc=$?
[ $rc -eq 0 ] && ok || bad "--data-changed ok: exit $rc: $out"
grep -qF "ordo: note: data file $dir/d.txt changed" <<<"$out" && ok || bad "--data-changed ok: no note: $out"
grep -A3 '"data_file"' "$dir/r/config.json" | grep -q "\"size\": $new," && ok || bad "config.json does not record the new size $new"
"$ORDO" train --resume "$dir/r" --steps 10 > "$dir/r3.log" 2>&1 && ok || bad "resume on the recorded new content: $(tail -2 "$dir/r3.log")"
# a run's config.json as --config: its record is that run's; the new run records its own file
"$ORDO" train --config "$dir/r/config.json" --data "$dir/text.txt" --steps 2 --out "$dir/fromcfg" > "$dir/c.log" 2>&1 || bad "config.json as --config: $(tail -2 "$dir/c.log")"
grep -A3 '"data_file"' "$dir/fromcfg/config.json" | grep -q "\"size\": $bytes," && ok || bad "a --config file's data record was kept"
# a run from an older ordo (no record): resumes with a note, and records from then on
if command -v python3 > /dev/null 2>&1; then
  cp -r "$dir/r" "$dir/old"
  python3 - "$dir/old" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "config.json"))); del c["data_file"]
json.dump(c, open(os.path.join(d, "config.json"), "w"))
for name in os.listdir(d):
    if not name.startswith("ckpt-"): continue
    p = os.path.join(d, name); b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
    cfg = json.loads(h["__metadata__"]["config"]); del cfg["data_file"]
    h["__metadata__"]["config"] = json.dumps(cfg)
    h["__metadata__"].pop("ordo_header_xxh3", None) # an older ordo wrote no header checksum
    nh = json.dumps(h).encode(); nh += b" " * (-len(nh) % 8)
    open(p, "wb").write(struct.pack("<Q", len(nh)) + nh + b[8 + n:])
EOF
  out=$("$ORDO" train --resume "$dir/old" --steps 12 2>&1); rc=$?
  [ $rc -eq 0 ] && ok || bad "resume of a run without a data record: exit $rc: $out"
  grep -qF "ordo: note: the run has no record of its data file's size and hash" <<<"$out" && ok || bad "no note for a run without a record: $out"
  grep -q '"data_file"' "$dir/old/config.json" && ok || bad "the resumed old run does not record its data file"
else
  echo "SKIP: a run without a data record (no python3)"; skip=$((skip+3))
fi

# --- 2. streaming tokenize: every chunk size gives the ids of the whole input
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

  # --- 3. token files: the same ids behind the header
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
  # (the text: stderr names each run's own checkpoint)
  "$ORDO" sample "$dir/bin.$k" --prompt "the cat" --tokens 5 --seed 2 > "$dir/s.bin" 2> "$dir/s.err" && ok || bad "$k: sample of a token-file run: $(cat "$dir/s.err")"
  "$ORDO" sample "$dir/txt.$k" --prompt "the cat" --tokens 5 --seed 2 > "$dir/s.txt" 2> /dev/null
  cmp -s "$dir/s.bin" "$dir/s.txt" && ok || bad "$k: sample differs between text and token file"
done

# an interrupted token-file run resumes to the same weights as one that ran through
b="$dir/t.byte.bin"
"$ORDO" train "${tiny[@]}" --steps 8 --ckpt-every 4 --data "$b" --stop-after 4 --out "$dir/stop" > /dev/null 2>&1
[ $? -eq 130 ] && ok || bad "--stop-after 4 on a token file did not stop with 130"
"$ORDO" train --resume "$dir/stop" > "$dir/stop.log" 2>&1 || bad "resume of a token-file run: $(tail -2 "$dir/stop.log")"
[ "$(tensors "$dir/stop/ckpt-8.safetensors")" = "$(tensors "$dir/bin.byte/ckpt-8.safetensors")" ] && ok || bad "resumed token-file run differs from the uninterrupted one"
# a token file whose content changed is refused like a text file (the header's hash)
head -c 5000 "$dir/text.txt" | "$ORDO" tokenize --tokenizer byte --out "$b" > /dev/null
out=$("$ORDO" train --resume "$dir/stop" --steps 12 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "data file $b changed since the run started: size $((64 + 2 * bytes)) -> $((64 + 2 * 5000)) bytes" <<<"$out" && ok || bad "changed token file: exit $rc: $out"

# a run moved from its text to the token file made from it (and back) is
# the same data: a note, no --data-changed ok, and the same tensors as a run that never moved
small=(--tokenizer byte --context 16 --d-model 16 --layers 1 --heads 2 --batch 4 --threads 1 --eval-every 0)
"$ORDO" tokenize --tokenizer byte --out "$dir/same.bin" "$dir/text.txt" > /dev/null || bad "tokenize text.txt"
"$ORDO" train --data "$dir/text.txt" "${small[@]}" --steps 12 --out "$dir/straight" > /dev/null 2>&1 || bad "straight run"
"$ORDO" train --data "$dir/text.txt" "${small[@]}" --steps 6 --out "$dir/moved" > /dev/null 2>&1 || bad "moved run, first half"
out=$("$ORDO" train --resume "$dir/moved" --data "$dir/same.bin" --steps 12 2>&1) && ok || bad "text -> its .bin refused: $out"
grep -qF "holds the same token ids as the data the run recorded" <<<"$out" && ok || bad "text -> its .bin: no note: $out"
"$BUILD/test_train_resume" --equal "$dir/straight/ckpt-12.safetensors" "$dir/moved/ckpt-12.safetensors" && ok || bad "text -> its .bin: not the tensors of the run that stayed on the text"
out=$("$ORDO" train --resume "$dir/moved" --data "$dir/text.txt" --steps 14 2>&1) && ok || bad ".bin -> its text refused: $out"
grep -qF "holds the same token ids" <<<"$out" && ok || bad ".bin -> its text: no note: $out"

finish test_data_files
