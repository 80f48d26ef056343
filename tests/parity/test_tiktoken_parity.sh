#!/usr/bin/env bash
# Parity with tiktoken: tests/parity/parity.js generates a fixed corpus (several thousand
# strings: prose, whitespace, numbers, contractions, scripts, emoji, specials, and every
# code point in context), encodes it with the real tiktoken (npm, under node), and this
# script encodes it with `ordo tokenize --jsonl` and compares every id.
# Needs node, tests/parity/node_modules (scripts/test.sh runs npm install there) and the
# gpt2 vocab in $ORDO_VOCAB_DIR (data/fetch.sh vocab). Without them it is skipped with the
# reason, or fails under ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh sets it).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
vocab=${ORDO_VOCAB_DIR:-$src/.cache/gpt2}
par=$src/tests/parity

# what it needs that the demo does not fetch: skipped with the reason unless
# ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh sets it once it has fetched them)
missing() {
  if [ "${ORDO_REQUIRE_DOWNLOADS:-0}" = 1 ]; then echo "FAIL: $1" >&2; exit 1; fi
  echo "SKIP: $1"; exit 0
}
[ -f "$vocab/encoder.json" ] && [ -f "$vocab/vocab.bpe" ] ||
  missing "no gpt2 vocab in $vocab; run data/fetch.sh vocab (or set ORDO_VOCAB_DIR)"
command -v node >/dev/null || missing "node is not installed (scripts/setup.sh nodejs npm)"
[ -d "$par/node_modules/tiktoken" ] ||
  missing "tiktoken is not installed; run (cd tests/parity && npm install)"
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
