# Sourced by bench/run.sh and bench/long_context.sh: bench_ids OUT ORDO PY TEXT VOCAB writes
# OUT/gpt2.bin and OUT/byte.bin, TEXT's ids as int32 little-endian (what bench_train --ids
# and bench/torch_peer.py read), unless they are already newer than TEXT.
bench_ids() {
  local out=$1 ordo=$2 py=$3 text=$4 vocab=$5 tok vflag
  for tok in gpt2 byte; do
    if [ ! -s "$out/$tok.bin" ] || [ "$text" -nt "$out/$tok.bin" ]; then
      vflag=()
      if [ "$tok" = gpt2 ]; then vflag=(--vocab "$vocab"); fi
      "$ordo" tokenize --tokenizer "$tok" "${vflag[@]}" "$text" |
        "$py" -c 'import sys, array; array.array("i", map(int, sys.stdin.read().split())).tofile(open(sys.argv[1], "wb"))' \
          "$out/$tok.bin"
    fi
  done
}
