#!/usr/bin/env bash
# valgrind memcheck over short real runs of the `ordo` CLI: train a tiny model a few steps,
# resume it, eval, sample, train on a text file through the gpt2 tokenizer, tokenize, and
# refuse a damaged run. Any invalid access, use of uninitialised memory or leak (definite,
# indirect or possible) fails the run (--error-exitcode).
# Usage: tests/valgrind/run.sh ORDO_BINARY   (built without -march=native: valgrind 3.19
# does not decode AVX-512; `cmake --build build --target check_valgrind` makes that build)
set -u
ORDO=${1:?usage: tests/valgrind/run.sh ORDO_BINARY}
src=$(cd "$(dirname "$0")" && pwd)
VOCAB=${ORDO_VOCAB_DIR:-$src/../../.cache/gpt2}
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind is not installed"; exit 0
fi
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# eval's n-gram levels: cached where the caller says (check_valgrind: the build tree), else
# in the temporary folder, never in the user's ~/.cache/ordo
export ORDO_CACHE_DIR=${ORDO_CACHE_DIR:-$dir/cache}
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --suppressions="$src/ordo.supp")
pass=0 fail=0
# run NAME WANT-STATUS ARGS...: ordo under memcheck; WANT-STATUS 0 or 1 (a clean refusal)
run() {
  local name=$1 want=$2; shift 2
  "${vg[@]}" --log-file="$dir/$name.vg" "$ORDO" "$@" > "$dir/$name.out" 2>&1; rc=$?
  if [ $rc -eq 99 ] || [ -s "$dir/$name.vg" ]; then
    echo "FAIL: $name: memcheck errors:"; head -40 "$dir/$name.vg"; fail=$((fail+1))
  elif [ $rc -ne "$want" ]; then
    echo "FAIL: $name: exit status $rc, expected $want:"; tail -5 "$dir/$name.out"; fail=$((fail+1))
  else
    echo "ok: $name"; pass=$((pass+1))
  fi
}
tiny=(--d-model 16 --heads 2 --layers 1 --context 16 --batch 4 --corpus-tokens 2000
      --eval-every 2 --eval-batches 1 --ckpt-every 2 --threads 1)
run train 0 train "${tiny[@]}" --steps 3 --out "$dir/run"
run resume 0 train --resume "$dir/run" --steps 5
run eval_2threads 0 eval "$dir/run" --context 8,16,32 --threads 2
run sample 0 sample "$dir/run" --prompt "cat chased" --tokens 5 --top-k 3 --threads 1
run rope_t5 0 train "${tiny[@]}" --pos t5 --steps 2 --out "$dir/t5"
# the position options: cope's row bias in the fused tile, a relative scheme at drawn
# positions, and an eval at drawn positions
run cope 0 train "${tiny[@]}" --pos cope --steps 2 --out "$dir/cope"
run pos_random 0 train "${tiny[@]}" --pos alibi --pos-random 32 --steps 2 --out "$dir/prand"
run eval_drawn 0 eval "$dir/prand" --positions drawn --context 16,32 --threads 1
if [ -f "$VOCAB/encoder.json" ]; then
  printf 'It was a dark and stormy night; the rain fell in torrents. %.0s' $(seq 1 30) > "$dir/text.txt"
  run gpt2_data 0 train "${tiny[@]}" --pos rope --data "$dir/text.txt" --tokenizer gpt2 \
      --vocab "$VOCAB" --steps 2 --batch 2 --out "$dir/g"
  run tokenize 0 tokenize --tokenizer gpt2 --vocab "$VOCAB" "$dir/text.txt"
else
  echo "SKIP: gpt2 cases (no vocab in $VOCAB)"
fi
cp -r "$dir/run" "$dir/bad"
for f in "$dir/bad"/ckpt-*.safetensors; do truncate -s 500 "$f"; done
run refused 1 train --resume "$dir/bad" --steps 9
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
