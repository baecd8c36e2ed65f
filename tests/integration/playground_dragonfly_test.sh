#!/usr/bin/env bash
# tests/integration/playground_dragonfly_test.sh -- issue 24 acceptance 1, 3, 4 in standalone mode:
# tools/playground up --dragonfly (real MySQL 9.7 sites, real Valkey 9 cache servers standing in for
# Dragonfly, the operator's Dragonfly manager, HAProxy's cache frontend):
#   1. the cache master follows MySQL's active site (site1), the other server replicates it, HAProxy's
#      cache frontend reaches the master only;
#   2. kill -9 of site1's mysqld and cache server: MySQL is promoted on site2 first, then the cache
#      master moves there (REPLICAOF NO ONE: Valkey has no REPLTAKEOVER), sessions written before are
#      there, the frontend follows; site1's cache server restarted (empty) rejoins as a replica;
#   3. Dragonfly-only failure: site2's cache server killed while MySQL is healthy: site1's replica is
#      promoted, MySQL's active site unchanged, a DragonflyMasterLost Event; site2's server back empty
#      -> replica, then the master moves back to MySQL's active site;
#   4. a stale master that took writes (a replica detached by hand and written to) is never rejoined
#      and loses its traffic (its check user off), with a DragonflyStaleMaster Event.
# Uses the test build's binaries (BR_BINARY_DIR) and sandbox instances 26 and 27 only.
BR_PLAYGROUND_INSTANCE_BASE=25
source "$(dirname -- "${BASH_SOURCE[0]}")/playground_dragonfly_lib.sh"

"$PLAY" up --sites 2 --dragonfly || fail "up failed"
df_after_up

# 1. Steady state.
wait_until "site1 master, site2 its replica" 30 state_is master slave
wait_until "the cache frontend reaches site1" 20 front_is 1
for i in 1 2 3 4 5; do [[ $(front SET "session:$i" "v$i") == OK ]] || fail "SET through the frontend failed"; done
# Sessions written after a replica's last sync are lost with its master (async replication): wait
# for the sync before the fault, as the acceptance is about what was replicated.
wait_until "site2 in sync with site1" 20 synced 2 1
expect_metric '^bloodraven_dragonfly_site_role\{group="demo",namespace="playground",role="master",site="site1"\} 1$'
expect_metric '^bloodraven_dragonfly_site_up\{group="demo",namespace="playground",site="site2"\} 1$'
echo "step 1: site1's cache server is the master, site2 replicates it, the frontend reaches site1"

# 2. The whole of site1 dies: MySQL first, then the cache follows.
t0=$(now_ms)
"$PLAY" chaos kill-primary >/dev/null || fail "kill-primary failed"
"$PLAY" chaos kill-cache site1 >/dev/null || fail "kill-cache site1 failed"
wait_until "MySQL promoted on site2" 60 bash -c "[[ \$(curl -fsS -m 2 '$op/active-site?namespace=playground&group=demo' | jq -r .activeSite) == site2 ]]"
t_mysql=$(now_ms)
wait_until "the cache frontend reaches site2" 30 front_is 2
t_cache=$(now_ms)
[[ $(role 2) == master ]] || fail "site2's cache server is not a master"
[[ $(front GET session:3) == v3 ]] || fail "a session written before the failover is gone"
echo "step 2: MySQL active on site2 after $((t_mysql - t0)) ms, the cache frontend on site2 after $((t_cache - t0)) ms (sessions kept: replicated before)"
# Whichever comes first: three polls without an answer, or MySQL's move away from site1.
events | grep -q "^DragonflyMasterLost the cache master site1 is unreachable .*promoted the replica site2" ||
  fail "no DragonflyMasterLost Event for site1: $(events | grep -i dragonfly)"
"$PLAY" chaos start-cache site1 >/dev/null || fail "start-cache site1 failed"
wait_until "site1's restarted (empty) cache server rejoins as site2's replica" 30 state_is slave master
wait_until "site1 in sync with site2" 20 synced 1 2
[[ $(port_of 1 GET session:3) == v3 ]] || fail "site1's replica did not get the data back"
echo "step 2: site1's cache server came back empty and replicates site2"

# 3. Dragonfly-only failure: site2's cache server dies, MySQL stays.
"$PLAY" chaos kill-cache site2 >/dev/null || fail "kill-cache site2 failed"
wait_until "site1's replica promoted" 30 bash -c "[[ \$(timeout 3 chroot '$ROOT' /usr/bin/valkey-cli -h 127.0.0.1 -p $(pv CACHE_PORT_1) --user default --pass dragonflypw --no-auth-warning ROLE | head -1) == master ]]"
wait_until "the cache frontend reaches site1" 20 front_is 1
[[ $(active) == site2 ]] || fail "MySQL's active site moved: $(active)"
[[ $(front GET session:4) == v4 ]] || fail "a session is gone after the cache-only failover"
events | grep -q "^DragonflyMasterLost .*site2 is unreachable for [0-9]* polls; promoted the replica site1" ||
  fail "no DragonflyMasterLost Event for the cache-only failure: $(events | grep -i dragonfly)"
echo "step 3: site2's cache server lost, site1 promoted, MySQL untouched (active site2)"
"$PLAY" chaos start-cache site2 >/dev/null || fail "start-cache site2 failed"
# Back empty -> attached to site1, then the master moves back to MySQL's active site (site2).
wait_until "the cache master back on MySQL's active site (site2), site1 following it" 40 state_is slave master
wait_until "the cache frontend reaches site2" 20 front_is 2
[[ $(front GET session:5) == v5 ]] || fail "a session is gone after the master moved back"
echo "step 3: site2's server came back empty, caught up, and the master moved back to site2"

# 4. A stale master: site1 detached by hand and written to.
port_of 1 REPLICAOF NO ONE >/dev/null
port_of 1 SET stale-write yes >/dev/null
wait_until "a DragonflyStaleMaster Event for site1" 20 bash -c "curl -fsS -m 2 '$op/events' | jq -r '.[].reason' | grep -q DragonflyStaleMaster"
sleep 6   # three polls: never rejoined
[[ $(role 1) == master ]] || fail "the stale master site1 was rejoined (ROLE $(role 1))"
[[ $(port_of 1 GET stale-write) == yes ]] || fail "the stale master's write is gone"
port_of 1 ACL GETUSER bloodraven-traffic | grep -qx off || fail "site1's router check user is not off"
front_is 2 || fail "the frontend does not reach site2 only"
expect_metric '^bloodraven_dragonfly_site_role\{group="demo",namespace="playground",role="stale-master",site="site1"\} 1$'
expect_metric '^bloodraven_dragonfly_promotions_total\{group="demo",kind="promote",namespace="playground",result="success",target_site="site2"\} [1-9]'
echo "step 4: the stale master site1 keeps its write, is not rejoined, and gets no traffic"
echo "PASS: the cache followed MySQL ($((t_cache - t0)) ms after the kill), the cache-only failure, the empty restarts rejoined, the stale master left alone"
