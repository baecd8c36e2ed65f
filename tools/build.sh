#!/usr/bin/env bash
# Configures and builds Bloodraven. Usage: tools/build.sh [build-dir] [extra cmake args...]
# Default: build/ with ASan+UBSan (the configuration CI tests). BR_BUILD_TYPE overrides Debug.
# Build speed, each only when installed (tools/install-deps.sh installs both), for a new build dir:
#   ccache (cmake/ccache.cmake) with one cache for every clone on this machine, so a fresh clone
#   recompiles only what changed: BR_CCACHE_DIR (default /var/cache/bloodraven/ccache, capped at
#   BR_CCACHE_SIZE, default 5G; BR_CCACHE_DIR= turns it off);
#   mold, else lld, as the linker (cmake/linker.cmake).
# Precompiled headers are opt-in: add -DBR_PCH=ON (cmake/pch.cmake). Extra cmake args win.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true

# The speed settings are chosen when a build directory is first configured; an existing one keeps
# its own (switching the launcher or linker would recompile or relink everything in it).
speed=()
ccache_dir=
if [ ! -f "$dir/CMakeCache.txt" ]; then
  for ld in mold lld; do
    if command -v "ld.$ld" >/dev/null 2>&1; then speed+=(-DBR_LINKER=$ld); break; fi
  done
  ccache_dir=${BR_CCACHE_DIR-/var/cache/bloodraven/ccache}
  if [ -n "$ccache_dir" ] && command -v ccache >/dev/null 2>&1 && mkdir -p "$ccache_dir" 2>/dev/null \
     && [ -w "$ccache_dir" ]; then
    speed+=(-DBR_CCACHE_DIR="$ccache_dir")
  else
    ccache_dir=
  fi
else
  ccache_dir=$(sed -n 's/^BR_CCACHE_DIR:PATH=//p' "$dir/CMakeCache.txt")
  command -v ccache >/dev/null 2>&1 || ccache_dir=
fi
stats() {  # ccache's hit and miss counters, for the build log
  CCACHE_DIR=$ccache_dir ccache --print-stats 2>/dev/null |
    awk '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {printf "%s=%s ", $1, $2}'
}
if [ -n "$ccache_dir" ]; then
  CCACHE_DIR=$ccache_dir ccache --max-size "${BR_CCACHE_SIZE:-5G}" >/dev/null
  before=$(stats)
fi

cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${BR_BUILD_TYPE:-Debug}" -DBR_SANITIZE=ON \
  "${speed[@]}" "$@" >/dev/null
start=$(date +%s)
ninja -C "$dir" -j"${BR_JOBS:-2}"
echo "build: done in $(( $(date +%s) - start )) s ($dir)"
if [ -n "$ccache_dir" ]; then
  echo "build: ccache $ccache_dir before: ${before:-?} after: $(stats)"
fi
