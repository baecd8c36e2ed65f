#!/usr/bin/env bash
# Group Replication failover, side by side (issue 22 acceptance 2): the time from kill -9 of the
# group's primary mysqld to the first successful write through (a) MySQL Router 9.7 (the sandbox
# chroot's mysql-router, metadata written by tools/mysql-sandbox router-setup) and (b) this
# project's routing (HAProxy steered by the sidecars' /gr/primary), measured in the same run on the
# same 3-member group run by the operator (tests/support/gr_standalone.bash). Each path has its own
# writer: one INSERT every 50 ms by the chroot's mysql client with a 1 s connect deadline, one
# client process per attempt for both. Both see the same election; the difference is routing.
# Usage (root): tools/bench/run-gr-failover.sh [--runs N] [--expel-timeout S] [--check-ms MS]
#   --expel-timeout: group_replication_member_expel_timeout on every member (MySQL default 5 s).
#   --check-ms: HAProxy's check interval on the sidecars (default 200; Router's ttl here is 0.5 s).
# Binaries from BR_BINARY_DIR (default build/). Prints one line per run and the medians.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export BR_SOURCE_DIR=$ROOT BR_BINARY_DIR=${BR_BINARY_DIR:-$ROOT/build}
RUNS=3 EXPEL=""
while (($#)); do
  case $1 in
    --runs) RUNS=${2:?}; shift 2 ;;
    --expel-timeout) EXPEL=${2:?}; shift 2 ;;
    --check-ms) export GR_CHECK_MS=${2:?}; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--expel-timeout S] [--check-ms MS]" >&2; exit 2 ;;
  esac
done
GR_TAG=gr-bench
source "$ROOT/tests/support/gr_standalone.bash"
RTP=""
bench_cleanup() {
  set +e
  jobs -p | xargs -r kill 2>/dev/null
  [[ -n $RTP ]] && "$SB" router-stop "$RTP" >/dev/null 2>&1
  gr_cleanup
}
trap bench_cleanup EXIT
gr_stack_up
wait_for 300 "three members ONLINE" members_online 3
expel() { [[ -z $EXPEL ]] || for s in "${SITES[@]}"; do q "${PORT[$s]}" "SET GLOBAL group_replication_member_expel_timeout=$EXPEL" || true; done; }
expel
"$SB" router-install >/dev/null
RTP=$((20000 + RANDOM % 9000))
"$SB" router-setup "$RTP" "${IDS[@]}" >"$W/router-setup.log" 2>&1 || fail "router-setup (see $W/router-setup.log)"
"$SB" router-start "$RTP" >/dev/null || fail "router-start"
wait_for 60 "a write through MySQL Router" q "$RTP" "CREATE TABLE IF NOT EXISTS appdb.bench (id BIGINT AUTO_INCREMENT PRIMARY KEY, via VARCHAR(8))"
wait_for 30 "a write through HAProxy" q "$PP" "SELECT 1 FROM appdb.bench LIMIT 1"

writer() { # PORT NAME: one INSERT every 50 ms; a line "<epoch> ok|fail" per attempt
  while :; do
    local t; t=$(date +%s.%N)
    if q "$1" "INSERT INTO appdb.bench (via) VALUES ('$2')"; then echo "$t ok"; else echo "$t fail"; fi
    sleep 0.05
  done
}
first_ok_after() { awk -v k="$2" '$1 > k && $2 == "ok" { printf "%.2f", $1 - k; exit }' "$1"; }

declare -a R_ROUTER R_OURS
for run in $(seq 1 "$RUNS"); do
  primary=$(group "['activeSite']")
  for k in 0 1 2; do [[ ${SITES[$k]} == "$primary" ]] && idx=$k; done
  writer "$RTP" router >"$W/w-router-$run.log" & wr=$!
  writer "$PP" ours >"$W/w-ours-$run.log" & wo=$!
  sleep 3
  "$SB" kill9 "${IDS[$idx]}" >/dev/null
  tk=$(date +%s.%N)  # after the kill returned: an attempt started before it may still succeed
  end=$(($(date +%s) + 120))
  until [[ -n $(first_ok_after "$W/w-router-$run.log" "$tk") && -n $(first_ok_after "$W/w-ours-$run.log" "$tk") ]]; do
    (($(date +%s) < end)) || { kill "$wr" "$wo"; fail "run $run: no write through both paths within 120 s"; }
    sleep 0.2
  done
  kill "$wr" "$wo"; wait "$wr" "$wo" 2>/dev/null || true
  r=$(first_ok_after "$W/w-router-$run.log" "$tk"); o=$(first_ok_after "$W/w-ours-$run.log" "$tk")
  R_ROUTER+=("$r"); R_OURS+=("$o")
  say "run $run: killed $primary; first write through MySQL Router ${r} s, through HAProxy+sidecars ${o} s"
  "$SB" start "${IDS[$idx]}" >/dev/null
  wait_for 300 "the killed member to rejoin" members_online 3
  expel
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "GR failover, kill -9 of the primary -> first write (s), $RUNS runs, expel timeout ${EXPEL:-default 5}, HAProxy checks every ${GR_CHECK_MS:-200} ms:"
echo "  MySQL Router 9.7:      median $(median "${R_ROUTER[@]}")  (${R_ROUTER[*]})"
echo "  HAProxy + sidecars:    median $(median "${R_OURS[@]}")  (${R_OURS[*]})"
