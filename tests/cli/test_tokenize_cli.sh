#!/usr/bin/env bash
# `ordo tokenize` through the real binary: encode/decode/count for byte and gpt2, and the
# error cases (missing or corrupt vocab, unknown id, empty file, bad input): each must exit
# with status 1 and an "ordo: tokenize: ..." message naming the problem, never a signal.
# gpt2 cases need the vocab in $ORDO_VOCAB_DIR: missing, they are skipped with a message
# (only the byte and vocab-free cases run), or fail under ORDO_REQUIRE_DOWNLOADS=1, which scripts/test.sh
# sets once it has fetched the vocab.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vocab=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
checks=0

# expect_out WANT CMD... : stdout equals WANT, exit 0
expect_out() {
  local want=$1 got rc
  shift
  checks=$((checks + 1))
  got=$("$@" 2>"$dir/err"); rc=$?
  [ $rc = 0 ] || { bad "$* exited $rc: $(cat "$dir/err")"; return; }
  [ "$got" = "$want" ] || bad "$*: got '$got', want '$want'"
}

# expect_err NEEDLE CMD... (stdin from $dir/in): exit 1 and stderr has "ordo: tokenize:" and NEEDLE
expect_err() {
  local needle=$1 rc
  shift
  checks=$((checks + 1))
  "$@" <"$dir/in" >/dev/null 2>"$dir/err"; rc=$?
  if [ $rc -ge 128 ]; then bad "$*: killed by signal $((rc - 128)): $(cat "$dir/err")"; return; fi
  [ $rc = 1 ] || { bad "$*: exit $rc, want 1"; return; }
  grep -q "^ordo: tokenize: " "$dir/err" || bad "$*: stderr lacks 'ordo: tokenize:': $(cat "$dir/err")"
  grep -qF -- "$needle" "$dir/err" || bad "$*: stderr lacks '$needle': $(cat "$dir/err")"
}

: >"$dir/in"
expect_out "104 105 0 255" bash -c "printf 'hi\\000\\377' | '$ORDO' tokenize --tokenizer byte"
expect_out "hi!" bash -c "echo '104 105 33' | '$ORDO' tokenize --tokenizer byte --decode"
expect_out "3" bash -c "printf 'abc' | '$ORDO' tokenize --tokenizer byte --count"
"$ORDO" tokenize --help >"$dir/help" 2>&1 || bad "--help exited non-zero"
grep -q ORDO_VOCAB_DIR "$dir/help" || bad "--help does not mention ORDO_VOCAB_DIR"
checks=$((checks + 1))

: >"$dir/empty"
expect_err "empty input" "$ORDO" tokenize --tokenizer byte "$dir/empty"
expect_err "empty input" "$ORDO" tokenize --tokenizer byte -
echo "104 256" >"$dir/in"
expect_err "256" "$ORDO" tokenize --tokenizer byte --decode
echo "104 abc" >"$dir/in"
expect_err "'abc' is not an integer" "$ORDO" tokenize --tokenizer byte --decode
echo "   " >"$dir/in"
expect_err "no token ids" "$ORDO" tokenize --tokenizer byte --decode
: >"$dir/in"
expect_err "No such file" "$ORDO" tokenize --tokenizer byte "$dir/nope.txt"
expect_err "unknown tokenizer 'bpe'" "$ORDO" tokenize --tokenizer bpe "$dir/empty"
expect_err "unknown option '--bogus'" "$ORDO" tokenize --bogus
expect_err "at most one input" "$ORDO" tokenize a b
echo hi >"$dir/hi.txt"
expect_err "/nonexistent/encoder.json" "$ORDO" tokenize --vocab /nonexistent "$dir/hi.txt"
expect_err "gpt2 only" "$ORDO" tokenize --tokenizer byte --vocab "$vocab" "$dir/hi.txt"

if [ -f "$vocab/encoder.json" ] && [ -f "$vocab/vocab.bpe" ]; then
  g=("$ORDO" tokenize --tokenizer gpt2 --vocab "$vocab")
  printf 'Hello, world!' >"$dir/t1"
  expect_out "15496 11 995 0" "${g[@]}" "$dir/t1"
  expect_out "4" "${g[@]}" --count "$dir/t1"
  printf 'Hello world <|endoftext|>' >"$dir/t2"
  expect_out "15496 995 1279 91 437 1659 5239 91 29" "${g[@]}" "$dir/t2"
  expect_out "15496 995 220 50256" "${g[@]}" --allow-special "$dir/t2"
  expect_out "Hello world <|endoftext|>" bash -c "echo '15496 995 220 50256' | $(printf '%q ' "${g[@]}") --decode"
  # ORDO_VOCAB_DIR is the default vocab dir
  expect_out "15496 11 995 0" env ORDO_VOCAB_DIR="$vocab" "$ORDO" tokenize "$dir/t1"
  # invalid UTF-8 and every byte value: no error, and decode gives the same bytes back
  head -c 3000 /dev/urandom >"$dir/bin.dat"
  printf 'caf\xc3\xa9 \xff\xfe x\xf0\x9f\x98' >>"$dir/bin.dat"
  checks=$((checks + 1))
  if "${g[@]}" "$dir/bin.dat" >"$dir/bin.ids" 2>"$dir/err" &&
    "${g[@]}" --decode "$dir/bin.ids" >"$dir/bin.back" 2>>"$dir/err"; then
    cmp -s "$dir/bin.dat" "$dir/bin.back" || bad "random bytes: decode(encode(x)) != x"
  else
    bad "random bytes: $(cat "$dir/err")"
  fi
  : >"$dir/in"
  echo "15496 50257" >"$dir/ids"
  expect_err "token id 50257" "${g[@]}" --decode "$dir/ids"
  expect_err "0..50256" "${g[@]}" --decode "$dir/ids"
  expect_err "empty input" "${g[@]}" "$dir/empty"
  # corrupt vocab dirs
  mkdir -p "$dir/v1" "$dir/v2" "$dir/v3"
  cp "$vocab/encoder.json" "$dir/v1/"
  expect_err "vocab.bpe: No such file" "${g[@]}" --vocab "$dir/v1" "$dir/t1"
  head -c 300000 "$vocab/encoder.json" >"$dir/v2/encoder.json"
  cp "$vocab/vocab.bpe" "$dir/v2/"
  expect_err "not valid JSON" "${g[@]}" --vocab "$dir/v2" "$dir/t1"
  cp "$vocab/encoder.json" "$dir/v3/"
  head -n 20000 "$vocab/vocab.bpe" >"$dir/v3/vocab.bpe"
  expect_err "merges, expected 50000" "${g[@]}" --vocab "$dir/v3" "$dir/t1"
elif [ "${ORDO_REQUIRE_DOWNLOADS:-0}" != 1 ]; then
  echo "SKIP: gpt2 cases (no gpt2 vocab in $vocab: data/fetch.sh vocab fetches it)"
else
  bad "no gpt2 vocab in $vocab, and ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh fetches it: data/fetch.sh vocab)"
fi

echo "test_tokenize_cli: $checks checks, $fail failed"
[ $fail -eq 0 ]
