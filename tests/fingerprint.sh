#!/usr/bin/env bash
# Fingerprints of what every position scheme computes, for refactors that must change no bit:
# each configuration below trains a few steps with a fixed seed (fused and materialized
# attention, drawn positions, dropout, each scheme's options), then evaluates at longer
# lengths; one line per configuration gives the SHA-256 of the checkpoint's tensor bytes
# (the safetensors header names paths, so it is skipped) and of the eval report's losses.
# Run it before and after a move and diff the two outputs:
#   tests/fingerprint.sh build/ordo > before.txt   ...   tests/fingerprint.sh build/ordo > after.txt
# Not part of the suite: about two minutes on two cores.
set -euo pipefail
ordo=${1:-build/ordo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=(--steps 4 --batch 2 --d-model 32 --heads 4 --layers 2 --warmup 1 --eval-every 0
      --eval-batches 1 --log-every 1 --corpus-tokens 4000 --threads 2 --seed 7 --progress off)
tensor_hash() { # the bytes after the safetensors header
    python3 - "$1" <<'PY'
import hashlib, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
print(hashlib.sha256(b[8 + n:]).hexdigest()[:16])
PY
}
run() { # name, then train options
    local name=$1; shift
    local dir="$work/$name"
    "$ordo" train "${base[@]}" --out "$dir" "$@" > /dev/null
    local ck
    ck=$(ls "$dir"/ckpt-*.safetensors | tail -1)
    local ev
    ev=$("$ordo" eval "$dir" --context ${EVAL_LENGTHS:-24,40,96} --max-windows 2 ${EVAL_EXTRA:-} --batch 2 --threads 2 --json \
         2> /dev/null | python3 -c 'import json,sys
r=json.load(sys.stdin)
def walk(o):
    if isinstance(o, dict):
        for k in sorted(o):
            if k in ("seconds","time","wall_s","threads","elapsed_s","run","checkpoint","path"): continue
            yield from walk(o[k])
    elif isinstance(o, list):
        for v in o: yield from walk(v)
    elif isinstance(o, float): yield repr(o)
import hashlib
print(hashlib.sha256(" ".join(walk(r)).encode()).hexdigest()[:16])')
    printf '%-28s ckpt %s eval %s\n' "$name" "$(tensor_hash "$ck")" "$ev"
}
for pos in none learned sinusoidal rope alibi t5 fire kerple xpos kerple-power fox dpb cope sandwich; do
    run "$pos-mat" --pos "$pos" --context 32 --attention materialized
    run "$pos-fused" --pos "$pos" --context 32 --attention fused --dropout 0.1
done
export EVAL_EXTRA="--positions drawn" EVAL_LENGTHS=16,40
run learned-random --pos learned --context 16 --pos-random 48 --attention fused
run sinusoidal-random --pos sinusoidal --context 16 --pos-random 48 --attention materialized
run rope-random --pos rope --context 16 --pos-random 48 --attention fused
run alibi-random --pos alibi --context 16 --pos-random 48 --attention materialized
run t5-random --pos t5 --context 16 --pos-random 48 --attention fused
run fire-random --pos fire --context 16 --pos-random 48 --attention fused
run kerple-random --pos kerple --context 16 --pos-random 48 --attention materialized
run dpb-random --pos dpb --context 16 --pos-random 48 --attention fused
run xpos-random --pos xpos --context 16 --pos-random 48 --attention materialized
run sandwich-random --pos sandwich --context 16 --pos-random 48 --attention fused
unset EVAL_EXTRA EVAL_LENGTHS
run rope-part --pos rope --context 32 --rope-fraction 0.5 --rope-heads 2
run rope-yarn --pos rope --context 32 --rope-scaling yarn --rope-factor 2 --rope-orig-context 16
run alibi-heads --pos alibi --context 32 --alibi-heads 3
run learned-scale --pos learned --context 32 --pos-scale learned
run sinusoidal-scale --pos sinusoidal --context 32 --pos-scale fixed:0.5 --embed-style vaswani
run dpb-log --pos dpb --context 32 --dpb-dim 8 --dpb-depth 3 --dpb-log-distance
run cope-max --pos cope --context 32 --cope-max 9
run untied --pos alibi --context 32 --untied-head --dropout 0.2
