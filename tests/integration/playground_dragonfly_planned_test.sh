#!/usr/bin/env bash
# tests/integration/playground_dragonfly_planned_test.sh -- issue 24 acceptance 2 in standalone mode
# (offset wait against real Valkey 9; the REPLTAKEOVER path is integration_dragonfly_takeover, against
# a simulation): tools/playground up --dragonfly with spec.dragonfly.plannedFailover {maxSyncWait 5s,
# onSyncTimeout fail}, real MySQL 9.7 sites, the operator, HAProxy.
#   1. a write load on the cache (a SET per connection through HAProxy's cache frontend, acked keys
#      counted) and on MySQL while `bloodraven switchover site2` runs: the cache replica on site2
#      reached the master's offset before MySQL's source was fenced, MySQL moved, then the cache
#      master moved to site2 (REPLICAOF NO ONE with site1's writes paused: Valkey has no
#      REPLTAKEOVER); every acked cache write is on site2, every acked MySQL row on the new primary;
#   2. site1's cache server (the next target) stopped with SIGSTOP, `bloodraven switchover site1`:
#      the sync cannot complete within maxSyncWait -> Failed/DragonflySyncTimeout, MySQL untouched
#      (site2 still the writable primary, same epoch, no fence), a write through the primary
#      frontend succeeds.
# Uses the test build's binaries (BR_BINARY_DIR) and sandbox instances 252 and 253 only.
BR_PLAYGROUND_INSTANCE_BASE=251
source "$(dirname -- "${BASH_SOURCE[0]}")/playground_dragonfly_lib.sh"

"$PLAY" up --sites 2 --dragonfly --cooldown 1s --dragonfly-planned "maxSyncWait: 5s, onSyncTimeout: fail" ||
  fail "up failed"
df_after_up
BIN="$BR_PLAYGROUND_BUILD_DIR/actors/bloodraven"
status() { curl -fsS -m 2 "$op/status" | jq -c '.["playground/demo"]'; }
planned() { status | jq -c .plannedFailover; }
switchover() { "$BIN" switchover --operator "$op" --keys-dir "$PG/secrets/keys" --namespace playground --group demo "$1"; }
phase_is() { [[ $(planned | jq -r '.phase // ""') == "$1" ]]; }

wait_until "site1 master, site2 its replica" 30 state_is master slave
wait_until "the cache frontend reaches site1" 20 front_is 1
wait_until "site2 in sync with site1" 20 synced 2 1

# 1. A planned failover under a write load on the cache and on MySQL.
cache_load() { # writes load:<i> through the frontend until $PG/stop-cache-load exists; acked i's to $PG/cache-acked
  local i=0
  : >"$PG/cache-acked"
  while [[ ! -e $PG/stop-cache-load ]]; do
    i=$((i + 1))
    [[ $(front SET "load:$i" "$i" 2>/dev/null) == OK ]] && echo "$i" >>"$PG/cache-acked"
    sleep 0.01
  done
}
cache_load &
cache_pid=$!
"$PLAY" load --seconds 12 --interval-ms 50 >"$PG/mysql-load.out" 2>&1 &
mysql_pid=$!
sleep 2
epoch0=$(status | jq -r .epoch)
out=$(switchover site2) || fail "switchover refused: $out"
[[ $out == *accepted* ]] || fail "switchover not accepted: $out"
saw_sync=0
deadline=$(($(now_ms) + 60000))
until phase_is Succeeded; do
  phase_is WaitingForDragonflySync && saw_sync=1
  phase_is Failed && fail "the planned failover failed: $(planned)"
  (($(now_ms) < deadline)) || fail "the planned failover did not succeed within 60 s: $(planned)"
  sleep 0.1
done
sleep 2
touch "$PG/stop-cache-load"
wait "$cache_pid"
wait "$mysql_pid" || fail "the MySQL load lost rows or failed: $(tail -n 3 "$PG/mysql-load.out")"
p=$(planned)
echo "plannedFailover: $p"
[[ $(active) == site2 ]] || fail "MySQL's active site is $(active), not site2"
[[ $(jq -r .dragonfly.sessionsPreserved <<<"$p") == true ]] || fail "sessionsPreserved is not true: $p"
[[ $(jq -r .dragonfly.promotionMethod <<<"$p") == "REPLICAOF NO ONE" ]] || fail "promotionMethod: $p"
src_off=$(jq -r '.dragonfly.sourceOffsetAtDrain // -1' <<<"$p")
((src_off > 0)) || fail "no source offset captured before the fence: $p"
jq -e '.dragonfly.syncWaitSeconds >= 0' <<<"$p" >/dev/null || fail "no syncWaitSeconds: $p"
# The record's order: the sync ended before the fence (drainStartTime) and the cache moved after
# MySQL's promotion (completionTime).
jq -e '(.dragonfly.syncWaitStartTime <= .drainStartTime) and (.drainStartTime <= .promoteStartTime)' <<<"$p" >/dev/null ||
  fail "phases out of order: $p"
wait_until "site2 the cache master, site1 its replica" 30 state_is slave master
wait_until "the cache frontend reaches site2" 20 front_is 2
acked=$(wc -l <"$PG/cache-acked")
((acked > 50)) || fail "the cache load acked only $acked writes"
port_of 2 --scan --pattern 'load:*' | sed 's/^load://' | sort >"$PG/cache-present"
lost=$(comm -23 <(sort "$PG/cache-acked") "$PG/cache-present" | wc -l)
((lost == 0)) || fail "$lost of $acked acked cache writes are not on the new cache master site2: $(comm -23 <(sort "$PG/cache-acked") "$PG/cache-present" | head -5 | paste -sd' ')"
events | grep -q "^DragonflyPromotionCompleted" || fail "no DragonflyPromotionCompleted Event: $(events | grep -i dragonfly)"
echo "step 1: switchover to site2 with the cache synced first (sync seen: $saw_sync, source offset $src_off); cache writes acked $acked, lost 0; $(grep '^summary' "$PG/mysql-load.out")"

# 2. The next target's cache server stopped: onSyncTimeout=fail rolls back before MySQL is touched.
wait_until "site1 in sync with site2" 20 synced 1 2
epoch1=$(status | jq -r .epoch)
cache1_pid=$(cut -d" " -f1 "$PG/pids/cache-site1.pid")
kill -STOP "$cache1_pid"
t0=$(now_ms)
out=$(switchover site1) || fail "switchover refused: $out"
[[ $out == *accepted* ]] || fail "switchover not accepted: $out"
wait_until "the planned failover to site1 failed" 30 phase_is Failed
t1=$(now_ms)
kill -CONT "$cache1_pid"
p=$(planned)
echo "plannedFailover: $p"
[[ $(jq -r .reason <<<"$p") == DragonflySyncTimeout ]] || fail "reason is not DragonflySyncTimeout: $p"
[[ $(jq -r .target <<<"$p") == site1 ]] || fail "not the request to site1: $p"
[[ $(jq -r '.drainStartTime // ""' <<<"$p") == "" ]] || fail "the source was fenced (drainStartTime set): $p"
st=$(status)
[[ $(jq -r .activeSite <<<"$st") == site2 ]] || fail "MySQL's active site moved: $st"
[[ $(jq -r .epoch <<<"$st") == "$epoch1" ]] || fail "the epoch moved ($epoch1 -> $(jq -r .epoch <<<"$st")): MySQL was touched"
[[ $(jq -r '.sites[] | select(.name == "site2") | .state' <<<"$st") == writable ]] || fail "site2 is not writable: $st"
"$PLAY" load --seconds 2 >"$PG/mysql-load2.out" 2>&1 || fail "writes through the primary frontend failed: $(tail -n 3 "$PG/mysql-load2.out")"
grep -q "final=site2" "$PG/mysql-load2.out" || fail "the writes did not land on site2: $(tail -n 1 "$PG/mysql-load2.out")"
events | grep -q "^DragonflySyncTimeout" || fail "no DragonflySyncTimeout Event: $(events | grep -i dragonfly)"
echo "step 2: site1's cache stopped -> Failed/DragonflySyncTimeout after $((t1 - t0)) ms, MySQL untouched (site2 writable, epoch $epoch1), $(grep '^summary' "$PG/mysql-load2.out")"
echo "PASS: the cache caught up before the fence and moved after MySQL (lost 0 of $acked acked cache writes); onSyncTimeout=fail left MySQL untouched (epoch $epoch0 -> $epoch1 for the first switchover only)"
