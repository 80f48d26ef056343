#!/usr/bin/env bash
# `ordo tokenize` through the real binary: encode/decode/count for byte and gpt2, and the
# error cases (missing or corrupt vocab, unknown id, empty file, bad input): each must exit
# with status 1 and an "ordo: tokenize: ..." message naming the problem, never a signal.
# gpt2 cases need the vocab in $ORDO_VOCAB_DIR: missing, the test fails unless
# ORDO_ALLOW_MISSING_VOCAB=1 (then only the byte and vocab-free cases run).
set -uo pipefail
src=${ORDO_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${ORDO_BIN:-$src/build/ordo}
vocab=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect_out WANT CMD... : stdout equals WANT, exit 0
expect_out() {
  local want=$1 got rc
  shift
  checks=$((checks + 1))
  got=$("$@" 2>"$tmp/err"); rc=$?
  [ $rc = 0 ] || { fail "$* exited $rc: $(cat "$tmp/err")"; return; }
  [ "$got" = "$want" ] || fail "$*: got '$got', want '$want'"
}

# expect_err NEEDLE CMD... (stdin from $tmp/in): exit 1 and stderr has "ordo: tokenize:" and NEEDLE
expect_err() {
  local needle=$1 rc
  shift
  checks=$((checks + 1))
  "$@" <"$tmp/in" >/dev/null 2>"$tmp/err"; rc=$?
  if [ $rc -ge 128 ]; then fail "$*: killed by signal $((rc - 128)): $(cat "$tmp/err")"; return; fi
  [ $rc = 1 ] || { fail "$*: exit $rc, want 1"; return; }
  grep -q "^ordo: tokenize: " "$tmp/err" || fail "$*: stderr lacks 'ordo: tokenize:': $(cat "$tmp/err")"
  grep -qF -- "$needle" "$tmp/err" || fail "$*: stderr lacks '$needle': $(cat "$tmp/err")"
}

: >"$tmp/in"
expect_out "104 105 0 255" bash -c "printf 'hi\\000\\377' | '$bin' tokenize --tokenizer byte"
expect_out "hi!" bash -c "echo '104 105 33' | '$bin' tokenize --tokenizer byte --decode"
expect_out "3" bash -c "printf 'abc' | '$bin' tokenize --tokenizer byte --count"
"$bin" tokenize --help >"$tmp/help" 2>&1 || fail "--help exited non-zero"
grep -q ORDO_VOCAB_DIR "$tmp/help" || fail "--help does not mention ORDO_VOCAB_DIR"
checks=$((checks + 1))

: >"$tmp/empty"
expect_err "empty input" "$bin" tokenize --tokenizer byte "$tmp/empty"
expect_err "empty input" "$bin" tokenize --tokenizer byte -
echo "104 256" >"$tmp/in"
expect_err "256" "$bin" tokenize --tokenizer byte --decode
echo "104 abc" >"$tmp/in"
expect_err "'abc' is not an integer" "$bin" tokenize --tokenizer byte --decode
echo "   " >"$tmp/in"
expect_err "no token ids" "$bin" tokenize --tokenizer byte --decode
: >"$tmp/in"
expect_err "No such file" "$bin" tokenize --tokenizer byte "$tmp/nope.txt"
expect_err "unknown tokenizer 'bpe'" "$bin" tokenize --tokenizer bpe "$tmp/empty"
expect_err "unknown option '--bogus'" "$bin" tokenize --bogus
expect_err "at most one input" "$bin" tokenize a b
echo hi >"$tmp/hi.txt"
expect_err "/nonexistent/encoder.json" "$bin" tokenize --vocab /nonexistent "$tmp/hi.txt"
expect_err "gpt2 only" "$bin" tokenize --tokenizer byte --vocab "$vocab" "$tmp/hi.txt"

if [ -f "$vocab/encoder.json" ] && [ -f "$vocab/vocab.bpe" ]; then
  g=("$bin" tokenize --tokenizer gpt2 --vocab "$vocab")
  printf 'Hello, world!' >"$tmp/t1"
  expect_out "15496 11 995 0" "${g[@]}" "$tmp/t1"
  expect_out "4" "${g[@]}" --count "$tmp/t1"
  printf 'Hello world <|endoftext|>' >"$tmp/t2"
  expect_out "15496 995 1279 91 437 1659 5239 91 29" "${g[@]}" "$tmp/t2"
  expect_out "15496 995 220 50256" "${g[@]}" --allow-special "$tmp/t2"
  expect_out "Hello world <|endoftext|>" bash -c "echo '15496 995 220 50256' | $(printf '%q ' "${g[@]}") --decode"
  # ORDO_VOCAB_DIR is the default vocab dir
  expect_out "15496 11 995 0" env ORDO_VOCAB_DIR="$vocab" "$bin" tokenize "$tmp/t1"
  # invalid UTF-8 and every byte value: no error, and decode gives the same bytes back
  head -c 3000 /dev/urandom >"$tmp/bin.dat"
  printf 'caf\xc3\xa9 \xff\xfe x\xf0\x9f\x98' >>"$tmp/bin.dat"
  checks=$((checks + 1))
  if "${g[@]}" "$tmp/bin.dat" >"$tmp/bin.ids" 2>"$tmp/err" &&
    "${g[@]}" --decode "$tmp/bin.ids" >"$tmp/bin.back" 2>>"$tmp/err"; then
    cmp -s "$tmp/bin.dat" "$tmp/bin.back" || fail "random bytes: decode(encode(x)) != x"
  else
    fail "random bytes: $(cat "$tmp/err")"
  fi
  : >"$tmp/in"
  echo "15496 50257" >"$tmp/ids"
  expect_err "token id 50257" "${g[@]}" --decode "$tmp/ids"
  expect_err "0..50256" "${g[@]}" --decode "$tmp/ids"
  expect_err "empty input" "${g[@]}" "$tmp/empty"
  # corrupt vocab dirs
  mkdir -p "$tmp/v1" "$tmp/v2" "$tmp/v3"
  cp "$vocab/encoder.json" "$tmp/v1/"
  expect_err "vocab.bpe: No such file" "${g[@]}" --vocab "$tmp/v1" "$tmp/t1"
  head -c 300000 "$vocab/encoder.json" >"$tmp/v2/encoder.json"
  cp "$vocab/vocab.bpe" "$tmp/v2/"
  expect_err "not valid JSON" "${g[@]}" --vocab "$tmp/v2" "$tmp/t1"
  cp "$vocab/encoder.json" "$tmp/v3/"
  head -n 20000 "$vocab/vocab.bpe" >"$tmp/v3/vocab.bpe"
  expect_err "merges, expected 50000" "${g[@]}" --vocab "$tmp/v3" "$tmp/t1"
elif [ "${ORDO_ALLOW_MISSING_VOCAB:-0}" = 1 ]; then
  echo "SKIP: gpt2 cases, no vocab in $vocab (ORDO_ALLOW_MISSING_VOCAB=1)"
else
  fail "no gpt2 vocab in $vocab; run data/fetch.sh vocab (or set ORDO_VOCAB_DIR)"
fi

echo "test_tokenize_cli: $checks checks, $fails failed"
[ $fails = 0 ]
