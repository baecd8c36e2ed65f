#!/usr/bin/env bash
# Planned-failover benchmark (tools/bench planned): write-unavailability of a planned failover
# (`bloodraven switchover TARGET`, the standalone form of the planned-failover annotation) under a
# steady write load, with the operator's phases shown separately.
# Usage: tools/bench/run-planned.sh [--runs N=5] [--sites 2|3] [--deadline 120]
# Needs root; uses tools/playground (release build in build-release/ unless BR_PLAYGROUND_BUILD_DIR
# is set; sandbox instances BR_PLAYGROUND_INSTANCE_BASE+1.. (default 21..)). The group keeps the
# product defaults for plannedFailover (maxLagWait 5m, drainTimeout 30s); failoverCooldown 1s so the
# runs can follow each other (a planned failover inside the cooldown is rejected). Each run moves
# the primary to the next site (site1 -> site2 -> site1 ...); before each run the group must be
# healthy again: the old primary repointed and replicating (deadline per run).
#
# Per run, from the writer's log (one INSERT per 50 ms through HAProxy's primary frontend, a fresh
# connection each) and the operator's JSON log, T = the moment the switchover is requested:
#   unavailable  writer's first ok on the target minus its last ok on the source (what a client sees)
#   accept       "planned failover requested" - T               (CLI, signed request, HTTP)
#   fence        "old primary fenced" - accept                  (plan persisted, executor, fence)
#   sessions     "promotion gate open" - "old primary fenced"   (kill the source's sessions, persist)
#   catch-up     "...executed every transaction of the source" - gate open (pushes, fence, read, wait)
#   promote      "promotion confirmed writable" - catch-up       (stop, reset, record, promote, confirm)
#   steering     writer's first ok on the target - confirmed writable (HAProxy check + client)
#   plan         "planned failover succeeded" - accept          (includes steering and repointing)
# A run without a write on the target within the deadline shows "-" and counts as failed.
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PLAY="$ROOT/tools/playground"
export BR_PLAYGROUND_DIR=${BR_PLAYGROUND_DIR:-$ROOT/.playground}
PG=$BR_PLAYGROUND_DIR
BUILD=${BR_PLAYGROUND_BUILD_DIR:-$ROOT/build-release}

runs=5 sites=2 deadline=120
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --sites) sites=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    *) echo "run-planned: unknown option $1" >&2; exit 2 ;;
  esac
done

now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }
pv() { grep -m1 "^$1=" "$PG/ports.env" | cut -d= -f2-; }
op() { echo "http://127.0.0.1:$(pv OPERATOR_PORT)"; }
active() { curl -fsS -m 2 "$(op)/active-site?namespace=playground&group=demo" | jq -r '.activeSite // ""'; }
log() { echo "# $*" >&2; }

LOAD_PID=""
cleanup() {
  [[ -n $LOAD_PID ]] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
  "$PLAY" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

mkdir -p "$PG/bench"
results=$PG/bench/planned-$(date -u +%Y%m%dT%H%M%S).tsv
echo -e "run\tfrom\tto\tunavailable_ms\taccept_ms\tfence_ms\tsessions_ms\tcatchup_ms\tpromote_ms\tsteering_ms\tplan_ms" >"$results"

# Healthy: one writable site (the active one), no planned failover running, and every other
# site's sidecar answers /replica 200 (read-only and replicating; /status does not show replication).
healthy() {
  local st a k
  st=$(curl -fsS -m 2 "$(op)/status") || return 1
  jq -e --argjson n "$sites" '.["playground/demo"] as $g
    | ($g.sites | length) == $n
    and ([$g.sites[] | select(.state == "writable")] | length) == 1
    and (($g.plannedFailover.phase // "Succeeded") | IN("Succeeded", "Failed"))' <<<"$st" >/dev/null || return 1
  a=$(jq -r '.["playground/demo"].activeSite' <<<"$st")
  for ((k = 1; k <= sites; k++)); do
    [[ site$k == "$a" ]] && continue
    curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$(pv "SIDECAR_PORT_$k")/replica" || return 1
  done
}

wait_healthy() { # seconds
  local until=$(($(now_ms) + $1 * 1000))
  until healthy; do (($(now_ms) < until)) || return 1; sleep 0.3; done
}

# Epoch ms of the first operator log line with this msg at or after T (empty when none).
op_time() { # msg T
  jq -rR --arg m "$1" 'fromjson? | select(.msg == $m) | .time' "$PG/logs/operator.log" 2>/dev/null |
    while read -r ts; do
      ms=$(date -d "$ts" +%s%3N)
      ((ms >= $2)) && { echo "$ms"; break; }
    done || true
}

diff_ms() { [[ -n $1 && -n $2 ]] && echo $(($1 - $2)) || echo "-"; }

one_run() { # run -> one results line
  local run=$1 from to tsv t until first_ok last_ok from_port to_port acc fenced gate caught conf done_
  from=$(active)
  [[ $from =~ ^site[0-9]$ ]] || { log "no active site before run $run"; return 1; }
  to=site$(( ${from#site} % sites + 1 ))
  from_port=$(pv "MYSQL_PORT_${from#site}")
  to_port=$(pv "MYSQL_PORT_${to#site}")
  "$PLAY" load --seconds $((deadline + 20)) >"$PG/bench/load.out" 2>&1 &
  LOAD_PID=$!
  # Two seconds of acked writes first. The writer's rows file is named after the load's PID.
  until=$(($(now_ms) + 20000))
  while :; do
    tsv=$(ls "$PG"/load/*-"$LOAD_PID".tsv 2>/dev/null | head -n 1)
    [[ -n $tsv ]] && (($(awk '$4 == "ok"' "$tsv" | wc -l) >= 40)) && break
    (($(now_ms) < until)) || { log "writer never got going"; cat "$PG/bench/load.out" >&2; return 1; }
    sleep 0.2
  done
  t=$(now_ms)
  "$BUILD/actors/bloodraven" switchover --operator "$(op)" --keys-dir "$PG/secrets/keys" \
    --namespace playground --group demo "$to" >"$PG/bench/switchover.out" 2>&1 ||
    { log "run $run: switchover to $to refused: $(cat "$PG/bench/switchover.out")"; }
  until=$((t + deadline * 1000))
  first_ok=""
  while (($(now_ms) < until)); do
    first_ok=$(awk -v t="$t" -v p="$to_port" '$4 == "ok" && $2 > t && $5 == p { print $3; exit }' "$tsv")
    [[ -n $first_ok ]] && break
    sleep 0.2
  done
  sleep 1
  kill "$LOAD_PID" 2>/dev/null; wait "$LOAD_PID" 2>/dev/null || true
  LOAD_PID=""
  last_ok=""
  [[ -n $first_ok ]] &&
    last_ok=$(awk -v f="$first_ok" -v p="$from_port" '$4 == "ok" && $5 == p && $3 <= f { v = $3 } END { print v }' "$tsv")
  acc=$(op_time "planned failover requested" "$t")
  fenced=$(op_time "old primary fenced" "$t")
  gate=$(op_time "promotion gate open" "$t")
  caught=$(op_time "switchover: the candidate executed every transaction of the source" "$t")
  conf=$(op_time "promotion confirmed writable" "$t")
  wait_healthy "$deadline" || log "run $run: group not healthy ${deadline}s after the switchover to $to"
  done_=$(op_time "planned failover succeeded" "$t")
  [[ -n $done_ ]] || log "run $run: no 'planned failover succeeded' in the operator log"
  echo -e "$run\t$from\t$to\t$(diff_ms "$first_ok" "$last_ok")\t$(diff_ms "$acc" "$t")\t$(diff_ms "$fenced" "$acc")\t$(diff_ms "$gate" "$fenced")\t$(diff_ms "$caught" "$gate")\t$(diff_ms "$conf" "$caught")\t$(diff_ms "$first_ok" "$conf")\t$(diff_ms "$done_" "$acc")"
}

log "planned-failover bench: $runs runs, $sites sites, binaries from $BUILD; medians over runs with a value"
log "load before: $(uptime)"
"$PLAY" down >/dev/null 2>&1 || true
"$PLAY" up --sites "$sites" --cooldown 1s >"$PG/bench/up.log" 2>&1 || { cat "$PG/bench/up.log" >&2; exit 1; }
wait_healthy 120 || { log "the playground never became healthy"; exit 1; }
for ((r = 1; r <= runs; r++)); do
  sleep 2   # failoverCooldown 1s, and a poll or two of the repointed site
  wait_healthy 60 || { log "not healthy before run $r"; exit 1; }
  line=$(one_run "$r") || { log "run $r failed"; continue; }
  echo "$line" >>"$results"
  log "$(tr '\t' ' ' <<<"$line")"
done
log "load after: $(uptime)"

echo "| runs | write-unavailable, median (min-max) | accept | fence | sessions | catch-up | promote | steering | plan |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -F'\t' 'NR > 1 { n++; for (c = 4; c <= 11; c++) if ($c != "-") v[c, ++cnt[c]] = $c }
  function med(c,   i, j, m, a, t) {
    m = cnt[c]; if (m == 0) return "-"
    for (i = 1; i <= m; i++) a[i] = v[c, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return ((m % 2) ? a[(m + 1) / 2] : int((a[m / 2] + a[m / 2 + 1]) / 2)) " ms"
  }
  function rng(c,   i, lo, hi) {
    if (cnt[c] == 0) return ""
    lo = hi = v[c, 1]
    for (i = 2; i <= cnt[c]; i++) { if (v[c, i] + 0 < lo + 0) lo = v[c, i]; if (v[c, i] + 0 > hi + 0) hi = v[c, i] }
    return " (" lo "-" hi ")"
  }
  END { printf "| %d (%d with a value) | %s%s | %s | %s | %s | %s | %s | %s | %s |\n", n, cnt[4], med(4), rng(4),
               med(5), med(6), med(7), med(8), med(9), med(10), med(11) }' "$results"
echo "# raw results: $results"
