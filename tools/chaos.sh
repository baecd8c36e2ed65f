#!/usr/bin/env bash
# tools/chaos.sh -- run the full chaos scenario set (tests/chaos) and print one line per scenario.
#
# Usage: tools/chaos.sh [--policy Safe|Fast] [--build-dir DIR] [--no-build] [--mutant-gate-open]
#                       [--mutant-no-catch-up] [--mutant-gr-force-minority] [--tls] [--label L] [SCENARIO...]
#   SCENARIO names a test case of tests/chaos/*scenarios_test.cpp (default: all of them); --label L
#   runs the cases labelled L instead (e.g. planned: planned_scenarios_test.cpp; gr: the Group
#   Replication scenarios of gr_scenarios_test.cpp, which the default set does not include;
#   semisync: semisync_scenarios_test.cpp, semi-synchronous replication with
#   waitForReplicaCount BR_CHAOS_SEMISYNC_K, 1 or 2, default 1).
#   --tls: TLS everywhere (issue 26; BR_CHAOS_TLS=1): the servers require verified TLS, replication
#   verifies its source, the operator and sidecar APIs serve mutual TLS; each scenario also fails
#   on a TCP session without TLS or an unverified channel at its end (async scenarios only).
#   `--tls --label smoke` is CI's chaos_smoke_tls.
#   --mutant-gr-force-minority: in gr_majority_partition the isolated old primary is forced into a
#   quorum of its own (a simulated broken operator): proves the GR two-primaries check.
#   --mutant-gate-open: run against a deliberately broken operator whose promotion gate always
#   opens (target bloodraven-mutant-gate-open): proves the checker catches a missing gate.
#   --mutant-no-catch-up: run against an operator whose switchover drains only what the candidate
#   received (target bloodraven-mutant-no-catch-up): proves the switchover scenario catches the loss.
#   Env: BR_CHAOS_KEYS_DIR (operator and site keys; default: generated per run), BR_CHAOS_DIR
#   (where each scenario keeps its logs; default /tmp/br-chaos-<pid>).
# Needs root (network namespaces, iptables, the MySQL sandbox). Uses sandbox instances 31-33 only
# (BR_CHAOS_FIRST_INSTANCE=N: N..N+2 instead, e.g. beside another engineer's run).
# On exit (also on failure or Ctrl-C) it stops the runner, removes every namespace/veth/bridge a
# run left behind and stops its three instances. The CI smoke subset is `ctest -R chaos_smoke`
# (chaos_smoke and chaos_smoke_tls).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${BR_BUILD_DIR:-$ROOT/build}
POLICY=""
BUILD_IT=1
MUTANT=""
LABEL=""
NAMES=()
while (( $# )); do
  case $1 in
    --policy) POLICY=$2; shift 2 ;;
    --build-dir) BUILD=$(realpath -m -- "$2"); shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --label) LABEL=$2; shift 2 ;;
    --tls) export BR_CHAOS_TLS=1; shift ;;
    --mutant-gate-open) MUTANT=gate-open; shift ;;
    --mutant-no-catch-up) MUTANT=no-catch-up; shift ;;
    --mutant-gr-force-minority) export BR_CHAOS_GR_MUTANT=force-minority; shift ;;
    -h | --help) sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "chaos.sh: unknown option $1" >&2; exit 2 ;;
    *) NAMES+=("$1"); shift ;;
  esac
done
[[ $EUID -eq 0 ]] || { echo "chaos.sh: must run as root" >&2; exit 2; }
if (( BUILD_IT )); then
  [[ -f $BUILD/build.ninja ]] || { echo "chaos.sh: $BUILD is not a configured Ninja build dir" >&2; exit 2; }
  ninja -C "$BUILD" -j2 chaos_full bloodraven bloodraven-sidecar
fi
if [[ -n $MUTANT ]]; then
  (( BUILD_IT )) && ninja -C "$BUILD" -j2 "bloodraven-mutant-$MUTANT"
  export BR_CHAOS_OPERATOR_BIN=$BUILD/tests/bloodraven-mutant-$MUTANT
  [[ -x $BR_CHAOS_OPERATOR_BIN ]] || { echo "chaos.sh: $BR_CHAOS_OPERATOR_BIN not built" >&2; exit 2; }
  echo "chaos.sh: MUTANT operator ($MUTANT): $BR_CHAOS_OPERATOR_BIN"
fi
BIN=$BUILD/tests/chaos_full
[[ -x $BIN ]] || { echo "chaos.sh: $BIN not built" >&2; exit 2; }

RESULTS=$(mktemp /tmp/br-chaos-results.XXXXXX)
RUNNER=""
# shellcheck disable=SC2317  # trap handler
cleanup() {
  local rc=$?
  if [[ -n $RUNNER ]] && kill -0 "$RUNNER" 2>/dev/null; then
    kill -TERM "$RUNNER" 2>/dev/null || true; sleep 2; kill -KILL "$RUNNER" 2>/dev/null || true
  fi
  bash "$ROOT/tests/chaos/chaos_net.sh" sweep || true
  local first=${BR_CHAOS_FIRST_INSTANCE:-31}
  for i in "$first" $((first + 1)) $((first + 2)); do
    "$ROOT/tools/mysql-sandbox" stop "$i" >/dev/null 2>&1 || true
    "$ROOT/tools/mysql-sandbox" netns "$i" none >/dev/null 2>&1 || true
    "$ROOT/tools/mysql-sandbox" gr-off "$i" >/dev/null 2>&1 || true  # a GR run's options
    "$ROOT/tools/mysql-sandbox" semisync-off "$i" >/dev/null 2>&1 || true  # a semi-sync run's
    "$ROOT/tools/mysql-sandbox" tls-off "$i" >/dev/null 2>&1 || true  # a TLS run's
  done
  echo "---- chaos summary ----"
  grep -E '^chaos: |^  (fail|note):' "$RESULTS" || echo "(no scenario finished)"
  rm -f "$RESULTS"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FILTER=chaos
if (( ${#NAMES[@]} )); then
  # gr_* cases live in suite chaos_gr (gr_scenarios_test.cpp), semisync_* in chaos_semisync
  # (semisync_scenarios_test.cpp), the others in chaos.
  ASYNC=() GR=() SS=()
  for n in "${NAMES[@]}"; do
    case $n in gr_*) GR+=("$n") ;; semisync_*) SS+=("$n") ;; *) ASYNC+=("$n") ;; esac
  done
  FILTER=""
  (( ${#ASYNC[@]} )) && FILTER="chaos/$(IFS=,; echo "${ASYNC[*]}")"
  (( ${#GR[@]} )) && FILTER="${FILTER:+$FILTER:}chaos_gr/$(IFS=,; echo "${GR[*]}")"
  (( ${#SS[@]} )) && FILTER="${FILTER:+$FILTER:}chaos_semisync/$(IFS=,; echo "${SS[*]}")"
fi
if [[ -n $LABEL ]]; then FILTER="@$LABEL"; fi
export BR_SOURCE_DIR=$ROOT BR_BINARY_DIR=$BUILD BR_CHAOS_RESULTS=$RESULTS
export UBSAN_OPTIONS="suppressions=$ROOT/tests/support/ubsan.supp:print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0"
[[ -n $POLICY ]] && export BR_CHAOS_POLICY=$POLICY
"$BIN" --run_test="$FILTER" --log_level=test_suite --report_level=short &
RUNNER=$!
rc=0; wait "$RUNNER" || rc=$?
RUNNER=""
exit "$rc"
