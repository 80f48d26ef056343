#!/usr/bin/env bash
# OPENBLAS_CORETYPE naming kernels this CPU cannot run (SkylakeX on an AVX2-only CPU) is refused
# at start, naming the value and what it needs: OpenBLAS died at its first product with an
# illegal instruction and no message, and --version reported the core as in use. Runs only
# on a CPU without AVX-512 (the only kind that can show it); the rule itself, for every CPU
# kind: tests/framework/test_cpu.c. A core the CPU runs is accepted everywhere.
set -u
. "$(dirname "$0")/../lib.sh"

OPENBLAS_CORETYPE= "$ORDO" --version > "$dir/v" 2>&1 && ok || bad "--version failed: $(cat "$dir/v")"
if grep -qw avx512f /proc/cpuinfo; then
  echo "SKIP: this CPU runs AVX-512, so every core type runs here"; skip=$((skip + 1))
elif grep -qw avx2 /proc/cpuinfo; then
  for cmd in --version "train --task order --steps 1 --out $dir/r"; do
    OPENBLAS_CORETYPE=SkylakeX "$ORDO" $cmd > "$dir/out" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "OPENBLAS_CORETYPE=SkylakeX forces OpenBLAS kernels that need AVX-512" "$dir/out" \
      && ok || bad "$cmd: exit $rc: $(tail -2 "$dir/out")"
  done
  [ ! -e "$dir/r" ] && ok || bad "the refused train made its run directory"
  OPENBLAS_CORETYPE=Haswell "$ORDO" --version > "$dir/v2" 2>&1 && ok || bad "Haswell refused on an AVX2 CPU: $(cat "$dir/v2")"
else
  echo "SKIP: no AVX2 here"; skip=$((skip + 1))
fi

finish test_coretype_cpu
