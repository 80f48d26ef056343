#!/usr/bin/env bash
# Cross-check ordo's safetensors files with Python: files ordo writes are byte-identical to the
# reference implementation's output and load into torch; files written as the reference writes
# them (mixed dtypes) read correctly in ordo; ordo's bad-file catalogue matches the reference's
# rules. Builds nothing: uses $ORDO_BUILD_DIR/test_safetensors. Skips without torch.
set -euo pipefail
PY=/usr/bin/python3
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
    echo "SKIP: $PY cannot import torch"
    exit 0
fi
src="${ORDO_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
bin="${ORDO_BUILD_DIR:?ORDO_BUILD_DIR must name the build directory}/test_safetensors"
[ -x "$bin" ] || { echo "missing $bin (build first)"; exit 1; }
tmp="$(mktemp -d /tmp/ordo_st_py.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

"$bin" --write-sample "$tmp/ordo.safetensors"
"$PY" "$src/tests/ref/st_check.py" check "$tmp/ordo.safetensors"

"$PY" "$src/tests/ref/st_check.py" write-sample "$tmp/ref.safetensors"
"$bin" --check-sample "$tmp/ref.safetensors"

mkdir "$tmp/bad"
"$bin" --write-bad "$tmp/bad"
"$PY" "$src/tests/ref/st_check.py" reject "$tmp/bad"
echo "test_safetensors_python: ok"
