#!/usr/bin/env bash
# A checkpoint does not depend on --threads, whichever kernels OpenBLAS runs.
# The same training at --threads 1 and 2 under OPENBLAS_CORETYPE unset, Haswell, SkylakeX
# and Zen (some of the project's machines force Haswell): bitwise equal tensors. Two models:
# the CLI tests' tiny one (every product small: one OpenBLAS thread each) and one whose
# products are cut into blocks (d-model 128, 1024 rows). A core type this CPU cannot run is
# skipped with a note.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
[ -x "$EQUAL" ] || { echo "missing $EQUAL (build first)"; exit 1; }
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { grep -qw "$1" <<<"$flags"; }

tiny=(--task order --corpus-tokens 3000 --context 16 --d-model 32 --heads 2 --layers 2 --steps 6 --batch 8 --dropout 0.1)
wide=(--task order --corpus-tokens 20000 --context 64 --d-model 128 --heads 4 --layers 1 --steps 3 --batch 16)
for core in "" Haswell SkylakeX Zen; do
  case $core in
    SkylakeX) has avx512f || { echo "note: no AVX-512 here, OPENBLAS_CORETYPE=$core skipped"; continue; } ;;
    Haswell|Zen) has avx2 || { echo "note: no AVX2 here, OPENBLAS_CORETYPE=$core skipped"; continue; } ;;
  esac
  for model in tiny wide; do
    declare -n args=$model
    for t in 1 2; do
      out="$dir/${core:-unset}-$model-$t"
      if [ -n "$core" ]; then
        OPENBLAS_CORETYPE=$core "$ORDO" train "${args[@]}" --threads $t --out "$out" > "$out.log" 2>&1
      else
        env -u OPENBLAS_CORETYPE "$ORDO" train "${args[@]}" --threads $t --out "$out" > "$out.log" 2>&1
      fi || bad "${core:-unset} $model --threads $t did not train: $(cat "$out.log")"
    done
    steps=$(sed -n 's/.*--steps \([0-9]*\).*/\1/p' <<<"${args[*]}")
    a="$dir/${core:-unset}-$model-1/ckpt-$steps.safetensors" b="$dir/${core:-unset}-$model-2/ckpt-$steps.safetensors"
    if "$EQUAL" --equal "$a" "$b"; then
      ok
    else
      bad "OPENBLAS_CORETYPE=${core:-unset} $model: --threads 2 differs from --threads 1"
    fi
  done
done
finish test_threads_coretype
