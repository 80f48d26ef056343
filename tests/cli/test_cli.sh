#!/usr/bin/env bash
# The ordo CLI's top level: help, version, and clear errors with non-zero exits.
set -u
. "$(dirname "$0")/../lib.sh"
expect() { # expect <want-rc: 0|nonzero> <stderr/stdout substring> <args...>
  local want=$1 pat=$2; shift 2
  local out rc
  out=$("$ORDO" "$@" 2>&1); rc=$?
  if { [ "$want" = 0 ] && [ $rc -ne 0 ]; } || { [ "$want" != 0 ] && { [ $rc -eq 0 ] || [ $rc -ge 128 ]; }; }; then
    echo "FAIL: ordo $* exited $rc"; fail=$((fail+1)); return
  fi
  if ! grep -qF -- "$pat" <<<"$out"; then
    echo "FAIL: ordo $*: output lacks '$pat':"; echo "$out" | head -5; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
expect 0 "usage: ordo <command>" --help
expect 0 "ordo 0." --version
expect 0 ", OpenBLAS core " --version # the GEMM that train would use (framework/blas.c)
# the subnormal policy (framework/cpu.h): flushed unless ORDO_SUBNORMALS=keep
ORDO_SUBNORMALS= expect 0 ", subnormals flush" --version
ORDO_SUBNORMALS=keep expect 0 ", subnormals keep" --version
ORDO_SUBNORMALS=often expect 0 "ORDO_SUBNORMALS=often: expected keep or flush" --version
expect nonzero "usage: ordo" 
expect nonzero "unknown command 'frobnicate'" frobnicate
expect nonzero "unknown option '--no-such-flag'" tokenize --no-such-flag
finish
