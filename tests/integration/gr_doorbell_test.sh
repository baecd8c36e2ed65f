#!/usr/bin/env bash
# integration_gr_doorbell (issue 22, change detection): with a poll interval far longer than the
# test (300 s), the operator's status still follows the group within moments of the group's own
# decision, because the sidecars ring its doorbell (signed gr-observed reports; the operator polls
# every member now and decides from that cross-validated round). Real MySQL 9.7, 3 members,
# standalone GR mode, the real sidecars and operator:
#   1. the operator bootstraps the group (500 ms polls), then restarts with pollInterval 300s and
#      reads the group once at its start;
#   2. kill -9 of the primary: the group elects; the status follows (FailoverObserved) although no
#      timed poll runs for 300 s; the lag from the group's election (read by the test on a
#      survivor every 100 ms) to the status is printed;
#   3. a role-only change (group_replication_set_as_primary by hand: the view id does not change)
#      is followed the same way.
# Without the doorbell (BR_GR_DOORBELL=0: the sidecars get no operator address) step 2 fails: the
# status stays on the dead primary until the 300 s poll. Label gr; DISABLED in plain ctest (about
# 1 min, three servers: BR_GR_OPERATOR_INSTANCES, default 204 205 206). Run:
#   BR_SOURCE_DIR=$PWD BR_BINARY_DIR=$PWD/build bash tests/integration/gr_doorbell_test.sh
set -euo pipefail
export BR_GR_OPERATOR_INSTANCES=${BR_GR_OPERATOR_INSTANCES:-204 205 206}
export GR_TAG=gr-doorbell GR_DOORBELL=${BR_GR_DOORBELL:-1}
source "${BR_SOURCE_DIR:?BR_SOURCE_DIR}/tests/support/gr_standalone.bash"
trap gr_cleanup EXIT
LIMIT=${BR_GR_DOORBELL_LIMIT:-60}  # seconds the status may take after the group decided
# The poll interval after the restart: 300s (default) leaves the doorbell as the only way the status
# can follow; tools/bench/run-gr-doorbell.sh sets the spec default (2s) to compare with and without.
BACKSTOP=${BR_GR_BACKSTOP:-300s}
gr_stack_up

# --- 1. a bootstrapped group, then an operator that polls every 300 s ------------------------------
say "waiting for the operator to bootstrap the group (500 ms polls)"
wait_for 300 "three members ONLINE" members_online 3
active_is a || fail "activeSite is $(group "['activeSite']"), expected a"
for k in 0 1 2; do  # the group elects about 5 s after the kill instead of 21 s
  # (refused while the member's START still runs, even when the others list it ONLINE)
  wait_for 60 "expel timeout 0 on ${SITES[$k]}" \
    q "${PORT[${SITES[$k]}]}" "SET GLOBAL group_replication_member_expel_timeout=0"
done
kill "$OPERATOR_PID"
wait "$OPERATOR_PID" 2>/dev/null || true
sed -i "s/^  pollInterval: .*/  pollInterval: $BACKSTOP/" "$W/group.yaml"
gr_start_operator
wait_for 30 "the restarted operator to read the group" members_online 3
active_is a || fail "the restarted operator's activeSite is $(group "['activeSite']"), expected a"
T_POLL=$(date +%s)  # its first (and, for 300 s, only timed) round
say "operator restarted with pollInterval $BACKSTOP: status shows a PRIMARY, 3 ONLINE"

# uuid SITE: the member id of SITE's server
uuid() { q "${PORT[$1]}" "SELECT @@server_uuid"; }
# primary_on SITE: the ONLINE PRIMARY's member id as SITE's server reports it ("" when none)
primary_on() {
  q "${PORT[$1]}" "SELECT MEMBER_ID FROM performance_schema.replication_group_members
    WHERE MEMBER_STATE='ONLINE' AND MEMBER_ROLE='PRIMARY'" || true
}
declare -A UUID
for s in "${SITES[@]}"; do UUID[$s]=$(uuid "$s"); done
site_of() { local s; for s in "${SITES[@]}"; do [[ ${UUID[$s]} != "$1" ]] || echo "$s"; done; }

# follow WHAT FROM WATCH_SITE: waits until WATCH_SITE's server shows an ONLINE PRIMARY other than
# FROM (t_group), then until the operator's activeSite is that member's site (t_op); prints both.
follow() {
  local what=$1 from=$2 watch=$3 t0 tg="" to="" p="" want="" now
  t0=$(date +%s.%N)
  while :; do
    now=$(date +%s.%N)
    if [[ -z $tg ]]; then
      p=$(primary_on "$watch")
      if [[ -n $p && $p != "${UUID[$from]}" ]]; then
        tg=$now
        want=$(site_of "$p")
      fi
    fi
    if [[ -n $tg ]] && active_is "$want"; then
      to=$(date +%s.%N)
      break
    fi
    if [[ -n $tg ]] && python3 -c "import sys; sys.exit(0 if $now - $tg > $LIMIT else 1)"; then
      fail "$what: the group elected $want, but the status still says $(group "['activeSite']") ${LIMIT}s later (pollInterval $BACKSTOP; no doorbell?)"
    fi
    (($(date +%s) - ${t0%.*} < 120)) || fail "$what: the group elected no new primary within 120 s"
    sleep 0.1
  done
  [[ $BACKSTOP != 300s ]] || (($(date +%s) - T_POLL < 300)) ||
    fail "$what: the 300 s poll may have run (the test was too slow to tell)"
  say "$what: the group's primary is $want $(python3 -c "print(round($tg - $t0, 2))") s after the start; the status followed $(python3 -c "print(round($to - $tg, 2))") s after that"
  echo "RESULT ${what%% *} group_s=$(python3 -c "print(round($tg - $t0, 3))") status_lag_s=$(python3 -c "print(round($to - $tg, 3))")"
}

# --- 2. kill -9 of the primary ---------------------------------------------------------------------
say "kill -9 of a's mysqld (instance ${IDS[0]})"
"$SB" kill9 "${IDS[0]}" >/dev/null
follow "kill -9 of a" a b
wait_for 10 "FailoverObserved" event_seen FailoverObserved
[[ $GR_DOORBELL != 1 ]] ||
  grep -q '"msg":"group replication doorbell: polling the group now"' "$W/operator.log" ||
  fail "the operator logged no doorbell"
NEW=$(group "['activeSite']")

# --- 3. a role-only change: set_as_primary keeps the view id --------------------------------------
OTHER=b; [[ $NEW == b ]] && OTHER=c
view_before=$(q "${PORT[$NEW]}" "SELECT VIEW_ID FROM performance_schema.replication_group_member_stats WHERE MEMBER_ID=@@server_uuid")
say "set_as_primary($OTHER) by hand on $NEW"
q "${PORT[$NEW]}" "SELECT group_replication_set_as_primary('${UUID[$OTHER]}')" >/dev/null ||
  fail "set_as_primary($OTHER)"
follow "set_as_primary($OTHER)" "$NEW" "$OTHER"
view_after=$(q "${PORT[$OTHER]}" "SELECT VIEW_ID FROM performance_schema.replication_group_member_stats WHERE MEMBER_ID=@@server_uuid")
[[ $view_before == "$view_after" ]] || say "note: the view id changed ($view_before -> $view_after)"
say "PASS: the status followed both changes (pollInterval $BACKSTOP)"
