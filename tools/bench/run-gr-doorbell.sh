#!/usr/bin/env bash
# Group Replication change detection (issue 22): how long after the group's own decision the
# operator's status follows it, with the sidecars' doorbell (signed gr-observed reports) and
# without it (the timed poll only), in the same way and on the same host. Each run is one
# tests/integration/gr_doorbell_test.sh (3 fresh sandbox servers, expel timeout 0): a kill -9 of
# the primary (lag from the election seen on a survivor to the status), then a set_as_primary by
# hand (lag from the new primary seen on it to the status). The test's own 100 ms sampling bounds
# the resolution.
# Usage (root): tools/bench/run-gr-doorbell.sh [--runs N] [--backstop DURATION]
#   --backstop: the operator's pollInterval during the measurement (default 2s, the spec default).
# Binaries from BR_BINARY_DIR (default build/); servers BR_GR_OPERATOR_INSTANCES (204 205 206).
# Prints one line per run and mode, then the medians.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export BR_SOURCE_DIR=$ROOT BR_BINARY_DIR=${BR_BINARY_DIR:-$ROOT/build}
RUNS=3 BACKSTOP=2s
while (($#)); do
  case $1 in
    --runs) RUNS=${2:?}; shift 2 ;;
    --backstop) BACKSTOP=${2:?}; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--backstop DURATION]" >&2; exit 2 ;;
  esac
done
OUT=$(mktemp -d /tmp/br-gr-doorbell-bench.XXXXXX)
for ((r = 1; r <= RUNS; r++)); do
  for mode in on off; do
    log=$OUT/run$r-$mode.log
    BR_GR_DOORBELL=$([[ $mode == on ]] && echo 1 || echo 0) BR_GR_BACKSTOP=$BACKSTOP \
      bash "$ROOT/tests/integration/gr_doorbell_test.sh" >"$log" 2>&1 ||
      { echo "run $r doorbell $mode failed (see $log)" >&2; continue; }
    grep '^RESULT' "$log" | sed "s/^RESULT /run $r doorbell $mode /"
  done
done | tee "$OUT/results.txt"
python3 - "$OUT/results.txt" "$BACKSTOP" <<'PY'
import re, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("run ")]
for mode in ("on", "off"):
    for what in ("kill", "set_as_primary(b)", "set_as_primary(c)"):
        lags = [float(r[6].split("=")[1]) for r in rows if r[3] == mode and r[4] == what]
        if lags:
            print(f"doorbell {mode:3} {what:18} pollInterval {sys.argv[2]}: status lag median "
                  f"{statistics.median(lags):.2f} s (min {min(lags):.2f}, max {max(lags):.2f}, n={len(lags)})")
PY
echo "logs: $OUT"
