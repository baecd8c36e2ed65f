#!/usr/bin/env bash
# Configures and builds Bloodraven. Usage: tools/build.sh [build-dir] [extra cmake args...]
# Default: build/ with ASan+UBSan (the configuration CI tests). BR_BUILD_TYPE overrides Debug.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${BR_BUILD_TYPE:-Debug}" -DBR_SANITIZE=ON "$@" >/dev/null
start=$(date +%s)
ninja -C "$dir" -j"${BR_JOBS:-2}"
echo "build: done in $(( $(date +%s) - start )) s ($dir)"
