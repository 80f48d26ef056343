#!/usr/bin/env bash
# The test command: installs what is missing, builds, fetches the reference files the
# tests compare against (GPT-2 vocab, tiktoken under node), then runs the whole CTest
# suite and the fast suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh nodejs npm
if [ -x data/fetch.sh ]; then data/fetch.sh vocab; fi
if [ -f tests/parity/package.json ]; then
  (cd tests/parity && npm install --no-audit --no-fund --silent)
fi

jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j "$jobs"
cmake --build build --target check_sanitize
