#!/usr/bin/env bash
# Parity with tiktoken: tests/parity/parity.js generates a fixed corpus (several thousand
# strings: prose, whitespace, numbers, contractions, scripts, emoji, specials, and every
# code point in context), encodes it with the real tiktoken (npm, under node), and this
# script encodes it with `ordo tokenize --jsonl` and compares every id.
# Needs node, tests/parity/node_modules (scripts/test.sh runs npm install there) and the
# gpt2 vocab in $ORDO_VOCAB_DIR (data/fetch.sh vocab). A missing vocab fails the test unless
# ORDO_ALLOW_MISSING_VOCAB=1, which turns it into a skip.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
vocab=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
par=$src/tests/parity

if [ ! -f "$vocab/encoder.json" ] || [ ! -f "$vocab/vocab.bpe" ]; then
  if [ "${ORDO_ALLOW_MISSING_VOCAB:-0}" = 1 ]; then
    echo "SKIP: no gpt2 vocab in $vocab (ORDO_ALLOW_MISSING_VOCAB=1)"; exit 0
  fi
  echo "FAIL: no gpt2 vocab in $vocab; run data/fetch.sh vocab (or set ORDO_VOCAB_DIR)" >&2
  exit 1
fi
if ! command -v node >/dev/null; then
  echo "FAIL: node is not installed (scripts/setup.sh nodejs npm)" >&2; exit 1
fi
if [ ! -d "$par/node_modules/tiktoken" ]; then
  echo "FAIL: tiktoken is not installed; run (cd tests/parity && npm install)" >&2; exit 1
fi
[ -x "$ORDO" ] || { echo "FAIL: no ordo binary at $ORDO" >&2; exit 1; }

node "$par/parity.js" gen "$dir"
fail=0
for set in plain special codepoints; do
  flags=()
  [ "$set" = special ] && flags=(--allow-special)
  "$ORDO" tokenize --vocab "$vocab" --jsonl "${flags[@]}" "$dir/$set.jsonl" >"$dir/$set.got" || {
    echo "FAIL: ordo tokenize --jsonl $set exited with $?" >&2; fail=1; continue; }
  node "$par/parity.js" compare "$set" "$dir/$set.got" || fail=1
done
[ "$fail" = 0 ] && echo "PASS: ordo gpt2 == tiktoken gpt2 on every string"
exit "$fail"
