#!/usr/bin/env bash
# tests/integration/playground_test.sh -- issue 6 acceptance 1: tools/playground up, load across
# chaos kill-primary (writes continue on the new primary, no acked row lost), down leaves no process.
# Uses the test build's binaries (BR_BINARY_DIR) and sandbox instances 21 and 22 only.
# BR_PLAYGROUND_TEST_TLS=1 (integration_playground_tls, issue 26): the same with `up --tls`, every
# API call over mutual TLS, and at the end every TCP session on the new primary over TLS.
set -euo pipefail
export LC_ALL=C
SRC=${BR_SOURCE_DIR:?set by ctest}
export BR_PLAYGROUND_BUILD_DIR=${BR_PLAYGROUND_BUILD_DIR:-${BR_BINARY_DIR:?set by ctest}}
PG=$(mktemp -d /tmp/br-playground-test-XXXXXX)
export BR_PLAYGROUND_DIR=$PG
PLAY="$SRC/tools/playground"
LOAD_PID=""

fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }

cleanup() {
  local rc=$?
  [[ -n $LOAD_PID ]] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
  "$PLAY" down >/dev/null 2>&1 || true
  if ((rc != 0)); then
    for f in "$PG"/logs/*.log "$PG"/load.out; do
      [[ -f $f ]] || continue
      echo "---- last lines of $f"; tail -n 25 "$f"
    done
  fi
  rm -rf "$PG"
  exit "$rc"
}
trap cleanup EXIT

TLS=${BR_PLAYGROUND_TEST_TLS:-0}
up_args=(--sites 2 --policy Safe)
((TLS)) && up_args+=(--tls)
"$PLAY" up "${up_args[@]}" || fail "up failed"
ports_env=$PG/ports.env
pv() { grep -m1 "^$1=" "$ports_env" | cut -d= -f2-; }
site1_port=$(pv MYSQL_PORT_1)
site2_port=$(pv MYSQL_PORT_2)
scheme=http
((TLS)) && scheme=https
api() { # curl args...: the operator/sidecar APIs, over mutual TLS with the router's certificate
  if ((TLS)); then curl --cacert "$PG/tls/ca.crt" --cert "$PG/tls/router.pem" "$@"; else curl "$@"; fi
}
op="$scheme://127.0.0.1:$(pv OPERATOR_PORT)"
if ((TLS)); then  # a plain request to the operator is not answered
  if curl -fsS -m 3 "http://127.0.0.1:$(pv OPERATOR_PORT)/healthz" >/dev/null 2>&1; then
    fail "the operator answered plain HTTP with --tls"
  fi
fi
[[ $(api -fsS "$op/active-site?namespace=playground&group=demo" | jq -r .activeSite) == site1 ]] ||
  fail "site1 is not the active site after up"

# The writer, then the fault once writes flow through site1.
"$PLAY" load --seconds 45 >"$PG/load.out" 2>&1 &
LOAD_PID=$!
deadline=$(($(now_ms) + 60000))
until [[ $(grep -c "writer 127.0.0.1:$site1_port" "$PG/load.out" 2>/dev/null) -ge 3 ]]; do
  (($(now_ms) < deadline)) || fail "the writer did not write through site1 for 3 s: $(cat "$PG/load.out")"
  sleep 0.5
done
kill_ms=$(now_ms)
"$PLAY" chaos kill-primary || fail "chaos kill-primary failed"
# The kill happened somewhere inside that command (seconds on a loaded host): site1 may ack until
# then, never more than 1 s after the command returned.
killed_ms=$(now_ms)
rc=0
wait "$LOAD_PID" || rc=$?
LOAD_PID=""
cat "$PG/load.out"
summary=$(grep '^summary ' "$PG/load.out") || fail "no summary line from load"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$summary"; }
tsv=$(ls "$PG"/load/*.tsv)

# Acked rows before and after the kill, by the port that answered (counted from the writer's log).
before=$(awk -v k="$kill_ms" -v p="$site1_port" '$4 == "ok" && $3 < k && $5 == p' "$tsv" | wc -l)
after=$(awk -v k="$kill_ms" -v p="$site2_port" '$4 == "ok" && $2 > k && $5 == p' "$tsv" | wc -l)
after_on_site1=$(awk -v k="$killed_ms" -v p="$site1_port" '$4 == "ok" && $2 > k + 1000 && $5 == p' "$tsv" | wc -l)
echo "acked before the kill on site1: $before; acked after it on site2: $after; on site1 >1 s after: $after_on_site1"
((before >= 10)) || fail "too few writes before the kill ($before)"
((after >= 20)) || fail "writes did not continue on site2 after the kill ($after acked)"
((after_on_site1 == 0)) || fail "$after_on_site1 writes acked by the killed site1 more than 1 s after the kill"
[[ $(field lost) == 0 ]] || fail "acked rows lost: $(field lost)"
[[ $(field acked) == $(awk '$4 == "ok"' "$tsv" | wc -l) ]] || fail "summary acked count disagrees with the log"
[[ $(field final) == site2 ]] || fail "final primary is $(field final), expected site2"
((rc == 0)) || fail "load exited $rc"
[[ $(api -fsS "$op/active-site?namespace=playground&group=demo" | jq -r .activeSite) == site2 ]] ||
  fail "the operator does not name site2 active"

# PITR: the new primary's sidecar archives the binlog a rotation seals (scan every 10 s).
"$SRC/tools/mysql-sandbox" sql 22 "FLUSH BINARY LOGS" >/dev/null || fail "FLUSH BINARY LOGS on site2 failed"
sealed=$("$SRC/tools/mysql-sandbox" sql 22 "SHOW BINARY LOGS" | tail -n 2 | head -n 1 | cut -f1)
manifest=$PG/pitr-archive/binlogs/manifest-site2.json
deadline=$(($(now_ms) + 40000))
until [[ -f $manifest ]] && jq -e --arg f "$sealed" 'any(.files[]; .name == $f)' "$manifest" >/dev/null 2>&1; do
  (($(now_ms) < deadline)) || fail "site2's sidecar did not archive $sealed: $(api -fsS "$scheme://127.0.0.1:$(pv SIDECAR_PORT_2)/archiver/status")"
  sleep 0.5
done
cmp -s "$("$SRC/tools/mysql-sandbox" datadir 22)/$sealed" "$PG/pitr-archive/binlogs/site2/$sealed" ||
  fail "the archived $sealed differs from site2's"
[[ $(api -fsS "$scheme://127.0.0.1:$(pv SIDECAR_PORT_2)/archiver/status" | jq -r .primary) == true ]] ||
  fail "site2's archiver does not report itself primary"
# The operator's /status folds the sidecars' reports into the group's pitr entry.
deadline=$(($(now_ms) + 20000))
until api -fsS "$op/status" | jq -e '.["playground/demo"].pitr | .archivingSite == "site2" and .sites.site2.filesArchived >= 1' >/dev/null 2>&1; do
  (($(now_ms) < deadline)) || fail "the operator's /status does not show site2 archiving: $(api -fsS "$op/status" | jq -c '.["playground/demo"].pitr')"
  sleep 0.5
done
pg_status=$("$PLAY" status) || fail "playground status failed"
grep -q "^PITR archive: .*archiving site site2" <<<"$pg_status" || fail "playground status shows no PITR line: $pg_status"
echo "PITR: site2's sidecar archived $sealed; the operator's /status shows it"
if ((TLS)); then  # every TCP session on the new primary (operator, sidecars, writer) over TLS
  q="SELECT CONNECTION_TYPE, COUNT(*) FROM performance_schema.threads WHERE CONNECTION_TYPE IN ('TCP/IP', 'SSL/TLS') GROUP BY CONNECTION_TYPE"
  sessions=$("$SRC/tools/mysql-sandbox" sql 22 "$q") || fail "cannot read site2's sessions"
  ! grep -q '^TCP/IP' <<<"$sessions" || fail "TCP sessions without TLS on site2: $sessions"
  grep -q '^SSL/TLS' <<<"$sessions" || fail "no TLS session on site2: $sessions"
  [[ $("$SRC/tools/mysql-sandbox" sql 22 "SELECT @@global.require_secure_transport") == 1 ]] ||
    fail "site2 does not require secure transport"
  echo "TLS: site2's TCP sessions: $(tr '\t\n' ': ' <<<"$sessions")"
fi

# down: every recorded process gone, nothing left that runs from the playground dir, MySQL stopped.
declare -A recorded=()
for f in "$PG"/pids/*.pid; do read -r pid st <"$f"; recorded[$pid]=$st; done
((${#recorded[@]} >= 4)) || fail "expected at least 4 recorded processes, got ${#recorded[@]}"
"$PLAY" down || fail "down failed"
for pid in "${!recorded[@]}"; do
  if [[ -r /proc/$pid/stat ]]; then
    # A zombie is gone (it waits only for its reaper, which under a CI runner may be a slow subreaper).
    read -r state st < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $1, $20 }')
    [[ $state == Z || $st != "${recorded[$pid]}" ]] || fail "process $pid survived down (state $state)"
  fi
done
left=""
for f in /proc/[0-9]*/cmdline; do
  c=$(tr '\0' ' ' 2>/dev/null <"$f") || continue
  [[ $c == *"$PG"* ]] && left+="${f%/cmdline} "
done
[[ -z $left ]] || fail "processes still running from $PG: $left"
for i in 21 22; do
  "$SRC/tools/mysql-sandbox" status | awk -v i="$i" '$2 == i && $6 == "running" { exit 1 }' ||
    fail "sandbox instance $i still running after down"
done
"$PLAY" down >/dev/null || fail "a second down is not idempotent"
echo "PASS: playground up$( ((TLS)) && echo " --tls"), writes continued across kill-primary ($after acked on site2), no acked row lost, down left nothing"
