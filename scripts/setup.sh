#!/usr/bin/env bash
# Installs what ordo needs to build (Debian packages, via apt-get as root or with sudo)
# and builds it with CMake into build/. Safe to run again: installs only what is missing.
# Usage: scripts/setup.sh [extra Debian packages...]
set -euo pipefail
cd "$(dirname "$0")/.."

# libopenmpi-dev, openmpi-bin: data-parallel training (mpirun -np N ordo train) and its tests;
# the build works without them (ORDO_MPI is off when CMake finds no MPI)
need=(build-essential cmake pkg-config libopenblas-dev libopenblas-openmp-dev libpcre2-dev
      libjansson-dev libxxhash-dev nettle-dev libdnnl-dev libopenmpi-dev openmpi-bin "$@")
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || echo "setup: apt-get update failed; trying the install anyway" >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
