#!/usr/bin/env bash
# Runs every CTest test that carries LABEL, including those DISABLED in the default run (the long
# layers: backup, s3, gr, accounts, planned, kubelet), one after another, each with the
# environment ctest would give it. Needs a built tree (tools/build.sh) and root for the sandbox.
# Usage: tools/test-layer.sh LABEL [BUILD_DIR]     e.g. tools/test-layer.sh s3
set -euo pipefail
label=${1:?usage: tools/test-layer.sh LABEL [BUILD_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m -- "${2:-$root/build}")
[[ -f $build/CTestTestfile.cmake ]] || { echo "test-layer: $build is not a built tree" >&2; exit 2; }
command -v jq >/dev/null || { echo "test-layer: needs jq" >&2; exit 2; }
tests=$(cd "$build" && ctest --show-only=json-v1 -L "$label" | jq -c '.tests[] | {name, command,
  env: ([.properties[]? | select(.name == "ENVIRONMENT") | .value[]] // []),
  timeout: ([.properties[]? | select(.name == "TIMEOUT") | .value][0] // 900)}')
[[ -n $tests ]] || { echo "test-layer: no test carries label $label" >&2; exit 2; }
failed=()
while IFS= read -r t; do
  name=$(jq -r .name <<<"$t")
  mapfile -t cmd < <(jq -r '.command[]' <<<"$t")
  mapfile -t env < <(jq -r '.env[]' <<<"$t")
  secs=$(jq -r '.timeout | floor' <<<"$t")
  echo "test-layer: $name (timeout ${secs} s)"
  start=$(date +%s)
  if (cd "$build/tests" && env "${env[@]}" timeout "$secs" "${cmd[@]}"); then
    echo "test-layer: $name passed in $(( $(date +%s) - start )) s"
  else
    echo "test-layer: $name FAILED after $(( $(date +%s) - start )) s"
    failed+=("$name")
  fi
done <<<"$tests"
if (( ${#failed[@]} )); then echo "test-layer: failed: ${failed[*]}"; exit 1; fi
echo "test-layer: every $label test passed"
