#!/usr/bin/env bash
# A CoPE run whose scores turn NaN (lr 5 with plain SGD and no clipping) stops with the
# trainer's message, as every other scheme does, on both attention paths; it segfaulted (exit
# 139) when a NaN count of gates indexed CoPE's table of position logits. The model-level
# check, every scheme with overflowing and NaN scores: tests/models/test_nonfinite_scores.c.
set -u
. "$(dirname "$0")/../lib.sh"

for a in fused materialized; do
  "$ORDO" train --pos cope --context 32 --d-model 32 --heads 4 --layers 2 --batch 4 --steps 30 \
    --lr 5 --clip 0 --warmup 1 --optimizer sgd --attention $a --threads 1 --out "$dir/$a" \
    > "$dir/$a.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] && ok || bad "$a: exit $rc, expected 1: $(tail -2 "$dir/$a.log")"
  grep -q "is -\?nan at step" "$dir/$a.log" && ok || bad "$a: no NaN message: $(tail -2 "$dir/$a.log")"
done

finish test_cope_nan_cli
