#!/usr/bin/env bash
# Cross-check ordo's safetensors files with Python: files ordo writes are byte-identical to the
# reference implementation's output and load into torch; files written as the reference writes
# them (mixed dtypes) read correctly in ordo; ordo's bad-file catalogue matches the reference's
# rules. Builds nothing: uses $BUILD/test_safetensors (tests/lib.sh). Skips without torch.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
    echo "SKIP: $PY cannot import torch"
    exit 0
fi
bin=$BUILD/test_safetensors
[ -x "$bin" ] || { echo "missing $bin (build first)"; exit 1; }

"$bin" --write-sample "$dir/ordo.safetensors"
"$PY" "$src/tests/ref/st_check.py" check "$dir/ordo.safetensors"

"$PY" "$src/tests/ref/st_check.py" write-sample "$dir/ref.safetensors"
"$bin" --check-sample "$dir/ref.safetensors"

mkdir "$dir/bad"
"$bin" --write-bad "$dir/bad"
"$PY" "$src/tests/ref/st_check.py" reject "$dir/bad"
echo "test_safetensors_python: ok"
