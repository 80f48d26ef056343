#!/usr/bin/env bash
# Encode throughput of ordo's gpt2 tokenizer beside tiktoken (npm, under node), measured in
# the same run on the same file, both pinned to one core (taskset -c 0 when available).
# Prints each side's median MB/s over REPS repetitions, the ratio, and whether the ids are
# identical. Needs a build (build/bench_tokenize, or $ORDO_BUILD_DIR), the vocab
# (data/fetch.sh vocab) and tests/parity/node_modules (npm install there).
#
# usage: bench/tokenize.sh [FILE] [REPS]   (FILE defaults to tinyshakespeare.txt, fetched)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ORDO_BUILD_DIR:-$repo/build}
vocab=${ORDO_VOCAB_DIR:-$repo/.cache/gpt2}
file=${1:-}
reps=${2:-7}
if [ -z "$file" ]; then
  "$repo/data/fetch.sh" shakespeare
  file=${ORDO_CACHE:-$repo/.cache}/data/tinyshakespeare.txt
fi
[ -x "$build/bench_tokenize" ] || { echo "bench: no $build/bench_tokenize (build first)" >&2; exit 1; }
[ -d "$repo/tests/parity/node_modules/tiktoken" ] || {
  echo "bench: tiktoken missing: (cd tests/parity && npm install)" >&2; exit 1; }
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "file: $file ($(wc -c <"$file") bytes); one core: ${pin[*]:-no taskset}"
OMP_NUM_THREADS=1 "${pin[@]}" "$build/bench_tokenize" --vocab "$vocab" --reps "$reps" \
  --ids "$tmp/ordo.ids" "$file" | tee "$tmp/ordo.log"
"${pin[@]}" node "$repo/tests/parity/bench_tiktoken.js" "$file" "$reps" "$tmp/tiktoken.ids" |
  tee "$tmp/tiktoken.log"
o=$(grep -o 'median [0-9.]*' "$tmp/ordo.log" | cut -d' ' -f2)
t=$(grep -o 'median [0-9.]*' "$tmp/tiktoken.log" | cut -d' ' -f2)
same=no
cmp -s "$tmp/ordo.ids" "$tmp/tiktoken.ids" && same=yes
echo "----"
printf 'ordo gpt2:     %8.2f MB/s (median of %s)\n' "$o" "$reps"
printf 'tiktoken gpt2: %8.2f MB/s (median of %s)\n' "$t" "$reps"
awk -v o="$o" -v t="$t" 'BEGIN { printf "ratio:         %8.2fx\n", o / t }'
echo "ids identical: $same ($(wc -w <"$tmp/ordo.ids") ordo, $(wc -w <"$tmp/tiktoken.ids") tiktoken)"
[ "$same" = yes ]
