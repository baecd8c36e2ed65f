#!/usr/bin/env bash
# Startup benchmark on an optimised build without sanitizers (build-release/).
# Usage: tools/bench/run-startup.sh [runs=20]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cmake -S "$root" -B "$root/build-release" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBR_SANITIZE=OFF -DBR_TESTS=OFF >/dev/null
ninja -C "$root/build-release" -j2 bloodraven bloodraven-sidecar bench_startup >/dev/null
"$root/build-release/tools/bench/bench_startup" "$root/build-release/actors" "${1:-20}"
