#!/usr/bin/env bash
# The test command (README "Run the tests"; CI runs exactly this through .ci/run):
# installs dependencies, builds with ASan+UBSan, starts two MySQL 9.7 sandbox servers, runs every
# CTest suite (unit, actors, integration incl. real MySQL 9.7), stops the servers it started.
# Usage: tools/test.sh [ctest args...]   e.g. tools/test.sh -L unit
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
t0=$(date +%s)

tools/install-deps.sh
tools/build.sh "$root/build"

# Real MySQL 9.7 for the integration tests (first run debootstraps a sid chroot into .sandbox/).
tools/mysql-sandbox up 2
cleanup() { "$root/tools/mysql-sandbox" stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

cd "$root/build"
ctest --output-on-failure -j2 --timeout 900 "$@"
echo "test.sh: all tests passed in $(( $(date +%s) - t0 )) s"
