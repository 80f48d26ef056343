#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the learned vs sinusoidal
# comparison on the built-in corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/ordo --help
