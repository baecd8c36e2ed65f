#!/usr/bin/env bash
# RTO benchmark (tools/bench rto): write-unavailability of the playground group under kill -9, SIGSTOP
# and a partition of the primary, per promotion policy, with the operator's phases shown separately.
# Usage: tools/bench/run-rto.sh [--runs N=3] [--policies "Fast Safe"] [--faults "kill9 sigstop partition"]
#                               [--poll-interval 1s] [--failure-threshold 3] [--deadline 90]
#                               [--dragonfly off|reachable|stopped] [--semisync K] [--sites 2|3] [--tls]
# --tls: the playground with TLS everywhere (`tools/playground up --tls`: MySQL requires verified TLS,
# the writer connects over it, the APIs and HAProxy's checks over mutual TLS); policy column "Safe+tls".
# --semisync K: spec.replication.semiSync with waitForReplicaCount K (gate rule 4: a hung or
# partitioned primary is failed over once the standby's receiver is stopped); policy column "Safe+ssK".
# With 2 sites and K=1 the new primary waits for the old one to come back before it acknowledges
# anything: use --sites 3 (instances 21-23).
# --dragonfly: the playground runs with a cache server per site and the Dragonfly manager
# (reachable), or with every cache server SIGSTOPped after up (stopped: each of the manager's reads
# hangs until its deadline), to show MySQL's failover does not wait for the cache; the policy
# column then reads e.g. "Fast+df-stopped".
# Needs root; uses tools/playground (sandbox instances 21, 22; build-release/ unless
# BR_PLAYGROUND_BUILD_DIR is set). One playground per policy; between runs the old primary is
# brought back (restart-site / thaw / heal) and must rejoin; if it does not within the deadline,
# the playground is rebuilt (counted in the "rebuilt" column).
#
# Per run, from the writer's log (one INSERT per 50 ms through HAProxy's primary frontend, fresh
# connection each) and the operator's JSON log, all relative to the fault time T:
#   unavailable  writer's first ok after T minus its last ok before T (what a client sees)
#   detection    operator log "initiating failover" - T      (debounce: failureThreshold x poll)
#   gate         "promotion gate open" - "initiating failover" (Safe: fence/lease evidence; Fast: 0)
#   promotion    "promotion confirmed writable" - "promotion gate open"
#   steering     writer's first ok after T - "promotion confirmed writable" (HAProxy check + client)
# A run without a promotion within the deadline shows "-" and counts as failed.
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PLAY="$ROOT/tools/playground"
export BR_PLAYGROUND_DIR=${BR_PLAYGROUND_DIR:-$ROOT/.playground}
PG=$BR_PLAYGROUND_DIR

runs=3 policies="Fast Safe" faults="kill9 sigstop partition" poll=1s threshold=3 deadline=90 dragonfly=off
semisync=0 sites=2 tls=0
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --faults) faults=$2; shift 2 ;;
    --poll-interval) poll=$2; shift 2 ;;
    --failure-threshold) threshold=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --dragonfly) dragonfly=$2; shift 2 ;;
    --semisync) semisync=$2; shift 2 ;;
    --sites) sites=$2; shift 2 ;;
    --tls) tls=1; shift ;;
    *) echo "run-rto: unknown option $1" >&2; exit 2 ;;
  esac
done

now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }
pv() { grep -m1 "^$1=" "$PG/ports.env" | cut -d= -f2-; }
tls_up() { [[ $(pv TLS) == 1 ]]; }
op() { if tls_up; then echo "https://127.0.0.1:$(pv OPERATOR_PORT)"; else echo "http://127.0.0.1:$(pv OPERATOR_PORT)"; fi; }
ocurl() { # curl against the operator; with TLS the router's (read-only) certificate, as tools/playground
  if tls_up; then curl --cacert "$PG/tls/ca.crt" --cert "$PG/tls/router.pem" "$@"; else curl "$@"; fi
}
active() { ocurl -fsS -m 2 "$(op)/active-site?namespace=playground&group=demo" | jq -r '.activeSite // ""'; }
log() { echo "# $*" >&2; }

LOAD_PID=""
cleanup() {
  [[ -n $LOAD_PID ]] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
  "$PLAY" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

mkdir -p "$PG/bench"
results=$PG/bench/rto-$(date -u +%Y%m%dT%H%M%S).tsv
echo -e "policy\tfault\trun\tunavailable_ms\tdetection_ms\tgate_ms\tpromotion_ms\tsteering_ms\trebuilt" >"$results"

[[ $dragonfly == off || $dragonfly == reachable || $dragonfly == stopped ]] ||
  { echo "run-rto: --dragonfly must be off, reachable or stopped" >&2; exit 2; }
up() { # policy
  local df=()
  [[ $dragonfly == off ]] || df=(--dragonfly)
  [[ $semisync == 0 ]] || df+=(--semisync "$semisync")
  ((tls == 0)) || df+=(--tls)
  "$PLAY" down >/dev/null 2>&1 || true
  "$PLAY" up --sites "$sites" --policy "$1" --poll-interval "$poll" --failure-threshold "$threshold" \
    --cooldown 5s "${df[@]}" >"$PG/bench/up.log" 2>&1 || { cat "$PG/bench/up.log" >&2; exit 1; }
  if [[ $dragonfly == stopped ]]; then  # hung cache servers: every manager read waits its deadline
    local f
    for f in "$PG"/pids/cache-site*.pid; do kill -STOP "$(cut -d' ' -f1 "$f")"; done
  fi
}
tag() {
  local t=$1
  [[ $semisync == 0 ]] || t+="+ss$semisync"
  ((tls == 0)) || t+="+tls"
  [[ $dragonfly == off ]] && echo "$t" || echo "$t+df-$dragonfly"
}

healthy() { # every site answers in /status: one writable (the active one), the rest read-only
  local st
  st=$(ocurl -fsS -m 2 "$(op)/status") || return 1
  local want="read-only,writable"
  ((sites == 3)) && want="read-only,read-only,writable"
  [[ $(jq -r '[.["playground/demo"].sites[] | .state] | sort | join(",")' <<<"$st") == "$want" ]] || return 1
  curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$(pv HAPROXY_STATS_PORT)/" || return 1
}

wait_healthy() { # seconds
  local until=$(($(now_ms) + $1 * 1000))
  until healthy; do (($(now_ms) < until)) || return 1; sleep 0.5; done
}

# Epoch ms of the first operator log line with this msg at or after T (empty when none).
op_time() { # msg T
  local t
  t=$(jq -rR --arg m "$1" 'fromjson? | select(.msg == $m) | .time' "$PG/logs/operator.log" 2>/dev/null |
    while read -r ts; do
      ms=$(date -d "$ts" +%s%3N)
      ((ms >= $2)) && { echo "$ms"; break; }
    done) || true
  echo "$t"
}

diff_ms() { [[ -n $1 && -n $2 ]] && echo $(($1 - $2)) || echo "-"; }

one_run() { # policy fault run -> one results line
  local policy=$1 fault=$2 run=$3 old tsv t last_ok first_ok init gate prom conf rebuilt=0
  old=$(active)
  [[ $old =~ ^site[0-9]$ ]] || { log "no active site before the run"; return 1; }
  local old_port; old_port=$(pv "MYSQL_PORT_${old#site}")
  "$PLAY" load --seconds $((deadline + 20)) >"$PG/bench/load.out" 2>&1 &
  LOAD_PID=$!
  # Two seconds of acked writes first. The writer's rows file is named after the load's PID.
  local until=$(($(now_ms) + 20000))
  while :; do
    tsv=$(ls "$PG"/load/*-"$LOAD_PID".tsv 2>/dev/null | head -n 1)
    [[ -n $tsv ]] && (($(awk '$4 == "ok"' "$tsv" | wc -l) >= 40)) && break
    (($(now_ms) < until)) || { log "writer never got going"; cat "$PG/bench/load.out" >&2; return 1; }
    sleep 0.2
  done
  t=$(now_ms)
  case $fault in
    kill9) "$PLAY" chaos kill-primary >/dev/null ;;
    sigstop) "$PLAY" chaos freeze-primary >/dev/null ;;
    partition) "$PLAY" chaos partition-site "$old" >/dev/null ;;
  esac
  # Until a write is acked by another server, or the deadline.
  until=$((t + deadline * 1000))
  first_ok=""
  while (($(now_ms) < until)); do
    first_ok=$(awk -v t="$t" -v p="$old_port" '$4 == "ok" && $2 > t && $5 != p { print $3; exit }' "$tsv")
    [[ -n $first_ok ]] && break
    sleep 0.2
  done
  sleep 1
  kill "$LOAD_PID" 2>/dev/null; wait "$LOAD_PID" 2>/dev/null || true
  LOAD_PID=""
  last_ok=$(awk -v t="$t" '$4 == "ok" && $3 <= t { v = $3 } END { print v }' "$tsv")
  init=$(op_time "initiating failover" "$t")
  gate=$(op_time "promotion gate open" "$t")
  [[ -n $gate ]] || gate=$(op_time "promotion gate open: no old primary in the plan" "$t")
  conf=$(op_time "promotion confirmed writable" "$t")
  [[ -n $conf ]] || conf=$(op_time "candidate promoted" "$t")
  if [[ -z $gate ]]; then
    local gt; gt=$(op_time "promotion gate timed out" "$t")
    [[ -n $gt ]] && log "$policy $fault run $run: promotion gate timed out $((gt - ${init:-$t})) ms after the failover started"
    [[ -z $init ]] && log "$policy $fault run $run: no failover started within ${deadline}s"
  fi
  # Bring the old primary back and let it rejoin.
  case $fault in
    kill9) "$PLAY" chaos restart-site "$old" >/dev/null 2>&1 || true ;;
    sigstop) "$PLAY" chaos thaw >/dev/null 2>&1 || true ;;
    partition) "$PLAY" chaos heal >/dev/null 2>&1 || true ;;
  esac
  if ! wait_healthy 90; then
    log "$policy $fault run $run: group not healthy 90 s after restoring $old; rebuilding the playground"
    cp "$PG/logs/operator.log" "$PG/bench/operator-$policy-$fault-$run.log" 2>/dev/null || true
    up "$policy"; rebuilt=1
  fi
  sleep 6   # failoverCooldown 5s
  echo -e "$(tag "$policy")\t$fault\t$run\t$(diff_ms "$first_ok" "$last_ok")\t$(diff_ms "$init" "$t")\t$(diff_ms "$gate" "$init")\t$(diff_ms "$conf" "$gate")\t$(diff_ms "$first_ok" "$conf")\t$rebuilt"
}

log "rto bench: policies '$policies', faults '$faults'$( ((tls)) && echo ", TLS everywhere"), $runs runs each, pollInterval $poll, failureThreshold $threshold, deadline ${deadline}s; medians over runs with a value"
log "load before: $(uptime)"
for policy in $policies; do
  up "$policy"
  for fault in $faults; do
    for ((r = 1; r <= runs; r++)); do
      line=$(one_run "$policy" "$fault" "$r") || { log "$policy $fault run $r failed; rebuilding"; up "$policy"; continue; }
      echo "$line" >>"$results"
      log "$(tr '\t' ' ' <<<"$line")"
    done
  done
done
log "load after: $(uptime)"

# Medians (and min-max of the unavailability); "-" values are ignored, n counts runs with a value.
echo "| policy | fault | runs | write-unavailable, median (min-max) | detection | gate | promotion | steering | rebuilt |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -F'\t' 'NR > 1 { k = $1 "\t" $2; keys[k] = 1; n[k]++; rb[k] += $9
                      for (c = 4; c <= 8; c++) if ($c != "-") { v[k, c, ++cnt[k, c]] = $c } }
  function med(k, c,   i, j, m, a, t) {
    m = cnt[k, c]; if (m == 0) return "-"
    for (i = 1; i <= m; i++) a[i] = v[k, c, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (m % 2) ? a[(m + 1) / 2] : int((a[m / 2] + a[m / 2 + 1]) / 2)
  }
  function rng(k, c,   i, lo, hi) {
    if (cnt[k, c] == 0) return ""
    lo = hi = v[k, c, 1]
    for (i = 2; i <= cnt[k, c]; i++) { if (v[k, c, i] + 0 < lo + 0) lo = v[k, c, i]; if (v[k, c, i] + 0 > hi + 0) hi = v[k, c, i] }
    return " (" lo "-" hi ")"
  }
  function ms(x) { return x == "-" ? "-" : x " ms" }
  END { for (k in keys) { split(k, p, "\t")
          printf "| %s | %s | %d (%d recovered) | %s%s | %s | %s | %s | %s | %d |\n", p[1], p[2], n[k], cnt[k, 4],
                 ms(med(k, 4)), rng(k, 4), ms(med(k, 5)), ms(med(k, 6)), ms(med(k, 7)), ms(med(k, 8)), rb[k] } }' "$results" | sort
echo "# raw results: $results"
