#!/usr/bin/env bash
# `ordo data` through the real binary: the first batch of "LLMs from scratch" ch02 (GPTDatasetV1
# over the-verdict, batch 8, max_length 4, stride 4, shuffle False) from the head of the book
# committed in tests/ref/fixtures (the windows of the first batch lie in it), and from the
# whole book when it is beside the checkout; the counts; shuffling by seed; epochs wrapping;
# masked targets of a built-in task; a token file; a run directory's config; and --help.
# gpt2 cases need the vocab in $ORDO_VOCAB_DIR: missing, they are skipped with a message
# (only the byte and corpus cases run), or fail under ORDO_REQUIRE_DOWNLOADS=1, which scripts/test.sh
# sets once it has fetched the vocab.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
export ORDO_VOCAB_DIR=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
head_txt=$src/tests/ref/fixtures/the-verdict-head.txt
checks=0

# run NAME CMD...: stdout into $dir/NAME, exit 0 required
run() {
  local name=$1 rc
  shift
  checks=$((checks + 1))
  "$@" >"$dir/$name" 2>"$dir/$name.err"; rc=$?
  [ $rc = 0 ] || bad "$* exited $rc: $(cat "$dir/$name.err")"
}

# has NAME TEXT: the output NAME holds the line TEXT exactly
has() {
  checks=$((checks + 1))
  grep -qxF -- "$2" "$dir/$1" || bad "$1: no line '$2' in: $(head -20 "$dir/$1")"
}

book=(--tokenizer gpt2 --context 4 --stride 4 --batch 8 --no-shuffle)
# the book's first batch, as the chapter prints it (inputs and targets), one row a line
book_batch=' [[40, 367, 2885, 1464],
  [1807, 3619, 402, 271],
  [10899, 2138, 257, 7026],
  [15632, 438, 2016, 257],
  [922, 5891, 1576, 438],
  [568, 340, 373, 645],
  [1049, 5975, 284, 502],
  [284, 3285, 326, 11]]
targets:
 [[367, 2885, 1464, 1807],
  [3619, 402, 271, 10899],
  [2138, 257, 7026, 15632],
  [438, 2016, 257, 922],
  [5891, 1576, 438, 568],
  [340, 373, 645, 1049],
  [5975, 284, 502, 284],
  [3285, 326, 11, 287]]'

# check_book NAME: the batch in the output NAME is the book's, with the text of its rows
check_book() {
  checks=$((checks + 1))
  local got
  got=$(sed -n '/^inputs:$/,/^text/p' "$dir/$1" | sed '1d;$d')
  [ "$got" = "$book_batch" ] || bad "$1: the first batch is not the book's:
$got"
  has "$1" '    input  "I HAD always"'
  has "$1" '    target " HAD always thought"'
  has "$1" '  window 7 (token 28)'
  has "$1" '    target " hear that, in"'
}

if [ -f "$ORDO_VOCAB_DIR/encoder.json" ]; then
  run head "$ORDO" data --data "$head_txt" "${book[@]}"
  check_book head
  has head "data: $head_txt, gpt2 tokenizer (50257 ids): 323 tokens"
  has head "split: --val-frac 0.1: train tokens [0, 290) (290), val tokens [290, 323) (33)"
  has head "windows: --context 4, --stride 4: train 72, val 8"
  has head "batches: --batch 8, --no-shuffle, --drop-last, --seed 1: 9 per epoch"
  has head "batch 1 (epoch 1, batch 1 of 9): 8 rows x 4 tokens"

  # the same ids from a token file, whose header names the tokenizer
  run tok "$ORDO" tokenize --out "$dir/head.bin" "$head_txt"
  run tokfile "$ORDO" data --data "$dir/head.bin" --context 4 --stride 4 --batch 8 --no-shuffle
  check_book tokfile
  has tokfile "data: $dir/head.bin, gpt2 tokenizer (50257 ids): 323 tokens"

  # the whole book, when it is beside the checkout or in the cache (data/fetch.sh verdict)
  verdict=
  for f in "$src/../shared/data/the-verdict.txt" "$src/.cache/data/the-verdict.txt"; do
    [ -f "$f" ] && verdict=$f && break
  done
  if [ -n "$verdict" ]; then
    run book "$ORDO" data --data "$verdict" "${book[@]}"
    check_book book
    has book "data: $verdict, gpt2 tokenizer (50257 ids): 5145 tokens"
    has book "windows: --context 4, --stride 4: train 1157, val 128"
  else
    echo "SKIP: the-verdict.txt not found (../shared/data or .cache/data); the book's head was checked"
  fi
  # docs/data.md ("See the data") shows this command's output: it must be the real one
  if [ -f "$src/.cache/data/the-verdict.txt" ]; then
    (cd "$src" && "$ORDO" data --data .cache/data/the-verdict.txt "${book[@]}") >"$dir/readme_run" 2>&1
    awk '/^    build\/ordo data --data .cache\/data\/the-verdict.txt/ {on = 1; getline; getline; next}
         on && /^$/ {blank++; next}
         on && /^    / {for (; blank > 0; blank--) print ""; print substr($0, 5); next}
         on {exit}' "$src/docs/data.md" >"$dir/readme_shown"
    checks=$((checks + 1))
    cmp -s "$dir/readme_run" "$dir/readme_shown" ||
      bad "docs/data.md's 'ordo data' example is not the real output: $(diff "$dir/readme_shown" "$dir/readme_run")"
  else
    echo "SKIP: the docs/data.md example (needs .cache/data/the-verdict.txt: data/fetch.sh verdict)"
  fi
elif [ "${ORDO_REQUIRE_DOWNLOADS:-0}" != 1 ]; then
  echo "SKIP: gpt2 cases (no gpt2 vocab in $ORDO_VOCAB_DIR: data/fetch.sh vocab fetches it)"
else
  bad "no gpt2 vocab in $ORDO_VOCAB_DIR, and ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh fetches it: data/fetch.sh vocab)"
fi

# byte tokenizer: ids are the bytes, targets the next bytes, a newline shows escaped
printf 'ab\ncd"ef\\gh%.0s' $(seq 1 20) >"$dir/bytes.txt"
run bytes "$ORDO" data --data "$dir/bytes.txt" --tokenizer byte --context 5 --batch 2 --no-shuffle --batches 2
has bytes "data: $dir/bytes.txt, byte tokenizer (256 ids): 220 tokens"
has bytes "windows: --context 5, --stride 5: train 39, val 4"
has bytes " [[97, 98, 10, 99, 100],"
has bytes "  [34, 101, 102, 92, 103]]"
has bytes " [[98, 10, 99, 100, 34],"
has bytes '    input  "ab\ncd"'
has bytes '    target "b\ncd\""'
has bytes '    input  "\"ef\\g"'
has bytes "batch 2 (epoch 1, batch 2 of 19): 2 rows x 5 tokens"
has bytes "  window 3 (token 15)"

# epochs wrap as in train: with drop_last the 3rd batch of a 2-batch epoch starts epoch 2
printf 'abcdefghijklmnopqrstuvwxyz' >"$dir/az.txt"
run wrap "$ORDO" data --data "$dir/az.txt" --tokenizer byte --context 2 --batch 5 --no-shuffle --batches 3
has wrap "batches: --batch 5, --no-shuffle, --drop-last, --seed 1: 2 per epoch"
has wrap "batch 3 (epoch 2, batch 1 of 2): 5 rows x 2 tokens"
# without drop_last the partial batch is shown as train gets it
run wrap2 "$ORDO" data --data "$dir/az.txt" --tokenizer byte --context 2 --batch 5 --no-shuffle --no-drop-last --batches 3
has wrap2 "batch 3 (epoch 1, batch 3 of 3): 1 rows x 2 tokens"
has wrap2 " [[117, 118]]"

# shuffling: the order is a function of the seed, the same on every call
opts=(data --data "$dir/bytes.txt" --tokenizer byte --context 5 --batch 4 --batches 2)
run s1 "$ORDO" "${opts[@]}" --seed 7
run s1b "$ORDO" "${opts[@]}" --seed 7
run s2 "$ORDO" "${opts[@]}" --seed 8
checks=$((checks + 2))
cmp -s "$dir/s1" "$dir/s1b" || bad "two calls with --seed 7 differ"
cmp -s "$dir/s1" "$dir/s2" && bad "--seed 7 and --seed 8 give the same batches"
has s1 "batches: --batch 4, --shuffle, --drop-last, --seed 7: 9 per epoch"

# a built-in task: windows start on examples, masked targets show as -1 and _
run copy "$ORDO" data --task copy --context 40 --batch 2 --max-len 4 --min-len 2
has copy "windows: --context 40, --stride 11: train 16360, val 1816"
checks=$((checks + 1))
grep -q '^ \[\[-1, -1, -1' "$dir/copy" || bad "copy: no masked targets (-1): $(cat "$dir/copy")"
grep -q '^    target _____"' "$dir/copy" || bad "copy: masked targets not shown as _: $(cat "$dir/copy")"
run counts "$ORDO" data --task copy --context 40 --batch 2 --max-len 4 --min-len 2 --batches 0
checks=$((checks + 1))
grep -q '^batch [0-9]' "$dir/counts" && bad "--batches 0 printed a batch"

# a run directory: its config.json gives the options, flags go on top
run train "$ORDO" train --data "$dir/bytes.txt" --tokenizer byte --context 5 --batch 2 --d-model 8 \
  --heads 1 --layers 1 --steps 1 --eval-every 0 --threads 1 --seed 3 --out "$dir/run"
run fromrun "$ORDO" data "$dir/run" --batches 2
run fromflags "$ORDO" data --data "$dir/bytes.txt" --tokenizer byte --context 5 --batch 2 --seed 3 --batches 2
checks=$((checks + 1))
cmp -s "$dir/fromrun" "$dir/fromflags" || bad "data RUN_DIR differs from the run's flags: $(diff "$dir/fromrun" "$dir/fromflags")"
run fromrun2 "$ORDO" data "$dir/run" --batch 4 --no-shuffle
has fromrun2 "batches: --batch 4, --no-shuffle, --drop-last, --seed 3: 9 per epoch"

run help "$ORDO" data --help
has help "  --batches N            batches to show (0 = only the counts) (default: 1)"
checks=$((checks + 1))
grep -q "^  --context" "$dir/help" || bad "data --help lacks train's --context"
"$ORDO" --help | grep -q "^  data " || bad "ordo --help does not list data"

echo "$checks checks, $fail failed"
[ $fail -eq 0 ]
