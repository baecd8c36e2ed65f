#!/usr/bin/env bash
# tools/bench/run-semisync-latency.sh -- what semi-synchronous replication costs per commit (issue 25).
#
# Usage: tools/bench/run-semisync-latency.sh [--commits N] [--delay-ms D] [--first-instance I]
# Root. Sandbox instances I, I+1, I+2 (default 260-262): a primary and two GTID replicas on
# loopback. The client (build/tools/bench/bench_commit_latency: one autocommit INSERT per commit,
# one connection) talks to the primary directly. Rows: loopback, then D ms (default 1) each way
# between the primary and each replica (2 x D round trip) through build/tools/bench/
# bench_delay_proxy, a user-space relay that holds every chunk D ms (this kernel has no sch_netem,
# so `tc netem` is not available); per row asynchronous, semi-sync K=1 and K=2 (AFTER_SYNC,
# rpl_semi_sync_source_timeout 1 h so it never falls back to asynchronous).
# Prints one line per row: "delay D mode M commits N p50 .. p90 .. p99 .. max .. mean .. (ms)".
# Env: BR_BINARY_DIR (build dir, default <root>/build). Everything it started is stopped on exit.
set -euo pipefail
export LC_ALL=C
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=${BR_BINARY_DIR:-$ROOT/build}
BENCH=$BUILD/tools/bench/bench_commit_latency
PROXY=$BUILD/tools/bench/bench_delay_proxy
SB=$ROOT/tools/mysql-sandbox
N=500
DELAY=1
FIRST=260
while (( $# )); do
  case $1 in
    --commits) N=$2; shift 2 ;;
    --delay-ms) DELAY=$2; shift 2 ;;
    --first-instance) FIRST=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-semisync-latency: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $EUID -eq 0 ]] || { echo "run-semisync-latency: must run as root" >&2; exit 2; }
for b in "$BENCH" "$PROXY"; do
  [[ -x $b ]] || { echo "run-semisync-latency: build the targets bench_commit_latency and bench_delay_proxy first ($b)" >&2; exit 2; }
done
P=$FIRST R1=$((FIRST + 1)) R2=$((FIRST + 2))
PROXY_PIDS=()

cleanup() {
  set +e
  (( ${#PROXY_PIDS[@]} )) && kill "${PROXY_PIDS[@]}" 2>/dev/null
  for i in "$P" "$R1" "$R2"; do "$SB" stop "$i" >/dev/null 2>&1; done
}
trap cleanup EXIT

"$SB" up-ids "$P" "$R1" "$R2" >/dev/null
"$SB" replicate "$R1" FROM "$P" >/dev/null
"$SB" replicate "$R2" FROM "$P" >/dev/null

sql() { "$SB" sql "$@"; }
plugin() { # instance name soname (replicas are fenced: lift it for the one statement, no binlog)
  [[ -n $(sql "$1" "SELECT 1 FROM information_schema.plugins WHERE plugin_name='$2'") ]] ||
    sql "$1" "SET SESSION sql_log_bin=0; SET @sro=@@GLOBAL.super_read_only; SET GLOBAL super_read_only=OFF; INSTALL PLUGIN $2 SONAME '$3'; SET GLOBAL super_read_only=@sro"
}
plugin "$P" rpl_semi_sync_source semisync_source.so
for r in "$R1" "$R2"; do plugin "$r" rpl_semi_sync_replica semisync_replica.so; done

set_mode() { # async | semisync K
  local on=OFF
  if [[ $1 == semisync ]]; then
    on=ON
    sql "$P" "SET GLOBAL rpl_semi_sync_source_wait_point='AFTER_SYNC'"
    sql "$P" "SET GLOBAL rpl_semi_sync_source_timeout=3600000"
    sql "$P" "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count=$2"
  fi
  sql "$P" "SET GLOBAL rpl_semi_sync_source_enabled=$on"
  for r in "$R1" "$R2"; do
    sql "$r" "SET GLOBAL rpl_semi_sync_replica_enabled=$on"
    sql "$r" "STOP REPLICA IO_THREAD"
    sql "$r" "START REPLICA IO_THREAD"
  done
  if [[ $on == ON ]]; then
    local t clients
    for ((t = 0; t < 100; t++)); do
      clients=$(sql "$P" "SELECT variable_value FROM performance_schema.global_status WHERE variable_name='Rpl_semi_sync_source_clients'")
      (( clients >= 2 )) && break
      sleep 0.1
    done
    (( clients >= 2 )) || { echo "run-semisync-latency: only $clients semi-sync replicas connected" >&2; exit 1; }
  fi
}

port=$("$SB" port "$P")
free_port() { local p; while :; do p=$((20000 + RANDOM % 20000)); ss -ltn "sport = :$p" | grep -q LISTEN || { echo "$p"; return; }; done; }

source_port() { # replica port: point its channel at PORT (the primary or its proxy)
  sql "$1" "STOP REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_PORT=$2; START REPLICA"
}

delay_to() { # ms (0 = direct)
  (( ${#PROXY_PIDS[@]} )) && kill "${PROXY_PIDS[@]}" 2>/dev/null
  PROXY_PIDS=()
  local r pp
  for r in "$R1" "$R2"; do
    if (( $1 == 0 )); then source_port "$r" "$port"; continue; fi
    pp=$(free_port)
    "$PROXY" --listen "$pp" --to "$port" --delay-ms "$1" &
    PROXY_PIDS+=($!)
    sleep 0.2
    source_port "$r" "$pp"
  done
}

for delay in 0 "$DELAY"; do
  delay_to "$delay"
  for mode in "async" "semisync 1" "semisync 2"; do
    # shellcheck disable=SC2086
    set_mode $mode
    line=$(ASAN_OPTIONS=detect_leaks=0 "$BENCH" --port "$port" -n "$N")
    label=${mode/semisync /semi-sync K=}
    echo "delay ${delay}ms mode $label $line"
  done
done
