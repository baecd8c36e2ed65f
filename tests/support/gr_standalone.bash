# A Group Replication group run by the operator in standalone mode, for tests and benchmarks
# (sourced; issue 22): three fresh sandbox servers with the plugin loaded (OFFLINE members), the
# operator, one sidecar per member (REPLICATION_MODE=groupReplication) and HAProxy rendered by
# br_haproxy_cfg. Needs BR_SOURCE_DIR and BR_BINARY_DIR (bloodraven, bloodraven-sidecar,
# tools/bench/br_haproxy_cfg). After gr_stack_up: $OP (operator URL), $PP/$RP/$LP (HAProxy
# primary/replicas/readers ports), PORT[site] (MySQL), IDS (sandbox instances), $W (work dir: logs,
# group.yaml, state). The caller's EXIT trap should run gr_cleanup. Knobs: GR_POLL_INTERVAL (500ms);
# GR_PIN_NAME=0 leaves groupReplication.groupName out of the spec and the sidecars (the operator
# generates the name); a function gr_before_operator, when defined, runs after the servers are
# ready and before the operator starts (e.g. a restore into a member);
# GR_DOORBELL=1 gives the sidecars the operator's address and keys, so each change of a member's
# view rings the operator's doorbell (a signed gr-observed report; docs/group-replication.md).
# GR_TLS=1 (issue 26): every server gets a sandbox certificate and require_secure_transport, the
# spec gets `tls: {caFile: $GR_TLS_CA}` (default: the sandbox CA), the sidecars verify with it.
ROOT=${BR_SOURCE_DIR:?BR_SOURCE_DIR}
BIN=${BR_BINARY_DIR:?BR_BINARY_DIR}
SB=$ROOT/tools/mysql-sandbox
CHROOT=${BR_SANDBOX_DIR:-$ROOT/.sandbox}/root
IDS=(${BR_GR_OPERATOR_INSTANCES:-184 185 186})
SITES=(a b c)
G=5f3e1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b
W=$(mktemp -d /tmp/br-gr-operator.XXXXXX)
PIDS=()
OP=http://127.0.0.1:0
T0=$(date +%s)

say() { echo "[${GR_TAG:-gr-operator} $(($(date +%s) - T0))s] $*"; }
gr_cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for i in "${IDS[@]}"; do "$SB" gr-stop "$i" >/dev/null 2>&1; done
  for i in "${IDS[@]}"; do "$SB" stop "$i" >/dev/null 2>&1; done
  for i in "${IDS[@]}"; do "$SB" gr-off "$i" >/dev/null 2>&1; done
  if [[ ${GR_TLS:-0} == 1 ]]; then for i in "${IDS[@]}"; do "$SB" tls-off "$i" >/dev/null 2>&1; done; fi
  [[ ${KEEP:-0} == 1 ]] || rm -rf "$W"
}
fail() {
  echo "FAIL: $*" >&2
  echo "--- operator log (last 60 lines)" >&2
  tail -n 60 "$W/operator.log" >&2 || true
  echo "--- status" >&2
  curl -fsS -m 2 "$OP/status" >&2 || true
  echo "--- client errors (last 5)" >&2
  tail -n 5 "$W/client.err" >&2 || true
  echo "--- haproxy (last 10)" >&2
  tail -n 10 "$W/haproxy.log" >&2 || true
  exit 1
}
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# q PORT SQL: as root through 127.0.0.1:PORT with the chroot's client (1 s connect deadline).
q() { timeout 10 chroot "$CHROOT" mysql -h127.0.0.1 -P"$1" -uroot -prootpw --connect-timeout=1 -N -B -e "$2" 2>>"$W/client.err"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
group() { curl -fsS -m 2 "$OP/status" | json "[v for k, v in d.items() if k.endswith('grtest')][0]$1"; }
# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds
wait_for() {
  local limit=$1 what=$2; shift 2
  local end=$(($(date +%s) + limit))
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) < end)) || fail "timed out after ${limit}s waiting for: $what"
    sleep 0.5
  done
}
members_online() { # N: status shows N members ONLINE and the view known
  [[ $(group "['groupReplication']['viewKnown']") == True ]] &&
    (($(group "['groupReplication']['members']" | grep -o "'ONLINE'" | wc -l) == $1))
}
active_is() { [[ $(group "['activeSite']") == "$1" ]]; }
active_not() { local a; a=$(group "['activeSite']"); [[ -n $a && $a != "$1" ]]; }
event_seen() { curl -fsS -m 2 "$OP/events" | grep -q "\"$1\""; }

declare -A PORT SIDE

gr_stack_up() {
  # --- servers: fresh, the plugin loaded, OFFLINE; the operator account may run GR commands -------
  say "servers ${IDS[*]}"
  "$SB" up-ids "${IDS[@]}" >"$W/sandbox.log" 2>&1 || fail "mysql-sandbox up-ids (see $W/sandbox.log)"
  "$SB" gr-config "${IDS[@]}" --group-name "$G" >>"$W/sandbox.log" 2>&1 || fail "gr-config"
  if [[ ${GR_TLS:-0} == 1 ]]; then
    for i in "${IDS[@]}"; do
      { "$SB" tls-cert "$i" && "$SB" tls-config "$i"; } >>"$W/sandbox.log" 2>&1 || fail "TLS for $i"
    done
    GR_TLS_CA=${GR_TLS_CA:-$("$SB" tls-ca)}
  fi
  for i in "${IDS[@]}"; do "$SB" reset "$i" >>"$W/sandbox.log" 2>&1 || fail "reset $i"; done
  for k in 0 1 2; do
    i=${IDS[$k]}
    # Sandbox servers boot fenced (super_read_only); the grant is local (no GTID) and fenced again.
    "$SB" sql "$i" "SET GLOBAL super_read_only=OFF; SET sql_log_bin=0;
      GRANT GROUP_REPLICATION_ADMIN ON *.* TO 'bloodraven'@'%'; SET GLOBAL super_read_only=ON" >/dev/null ||
      fail "grant on $i"
    [[ $("$SB" gr-state "$i") == OFFLINE ]] || fail "instance $i is not an OFFLINE member"
    PORT[${SITES[$k]}]=$("$SB" port "$i")
    SIDE[${SITES[$k]}]=$(freeport)
  done
  OPP=$(freeport); PP=$(freeport); RP=$(freeport); LP=$(freeport)
  OP=http://127.0.0.1:$OPP

  # --- the group file, operator, sidecars, HAProxy ------------------------------------------------
  {
    echo "apiVersion: shipstream.io/v1alpha1"
    echo "kind: MysqlFailoverGroup"
    echo "metadata: {name: grtest}"
    echo "spec:"
    echo "  pollInterval: ${GR_POLL_INTERVAL:-500ms}"
    echo "  replication:"
    echo "    user: repl"
    echo "    password: replpw"
    echo "    tls: true"
    echo "    mode: groupReplication"
    [[ ${GR_PIN_NAME:-1} == 1 ]] && echo "    groupReplication: {groupName: $G}"
    [[ ${GR_TLS:-0} == 1 ]] && echo "  tls: {caFile: \"$GR_TLS_CA\"}"
    echo "  sites:"
    for s in "${SITES[@]}"; do
      echo "    - name: $s"
      echo "      address: {host: 127.0.0.1, port: ${PORT[$s]}}"
      echo "      sidecarAddress: \"127.0.0.1:${SIDE[$s]}\""
      # The MySQL communication stack: the member's group address is its MySQL listener.
      echo "      groupReplication: {localAddress: \"127.0.0.1:${PORT[$s]}\"}"
    done
  } >"$W/group.yaml"
  echo -n bloodravenpw >"$W/operator-password"
  mkdir -p "$W/creds" && echo -n bloodraven >"$W/creds/username" && echo -n bloodravenpw >"$W/creds/password"

  if declare -F gr_before_operator >/dev/null; then gr_before_operator; fi
  gr_start_operator
  local doorbell=() pinned=() tls=()
  [[ ${GR_TLS:-0} == 1 ]] && tls=(--mysql-tls-ca "$GR_TLS_CA")
  [[ ${GR_PIN_NAME:-1} == 1 ]] && pinned=(--gr-group-name "$G")
  # The operator's keys (created at its start under the state dir) sign nothing of the sidecars';
  # each sidecar signs its reports with its own site key from there.
  [[ ${GR_DOORBELL:-0} == 1 ]] && doorbell=(--namespace default --group grtest
    --operator-address "127.0.0.1:$OPP" --keys-dir "$W/state/keys")
  for s in "${SITES[@]}"; do
    "$BIN/actors/bloodraven-sidecar" --listen "127.0.0.1:${SIDE[$s]}" --site "$s" \
      --mysql-host 127.0.0.1 --mysql-port "${PORT[$s]}" --mysql-creds-dir "$W/creds" \
      --replication-mode groupReplication --gr-members 3 "${pinned[@]}" "${doorbell[@]}" "${tls[@]}" \
    >"$W/sidecar-$s.log" 2>&1 &
    PIDS+=($!)
  done
  "$BIN/tools/bench/br_haproxy_cfg" "$W/group.yaml" "$PP" "$RP" 0 "${GR_CHECK_MS:-200}" "$LP" >"$W/haproxy.cfg" ||
    fail "rendering haproxy.cfg"
  haproxy -c -q -f "$W/haproxy.cfg" || fail "haproxy rejects the rendered config"
  haproxy -db -f "$W/haproxy.cfg" >"$W/haproxy.log" 2>&1 &
  PIDS+=($!)
}

# gr_start_operator: starts the operator on $OPP with $W/group.yaml and $W/state (appending to its
# log), sets OPERATOR_PID and waits for /healthz.
gr_start_operator() {
  "$BIN/actors/bloodraven" --standalone "$W/group.yaml" --listen "127.0.0.1:$OPP" --metrics-listen "" \
    --state-dir "$W/state" --mysql-user bloodraven --mysql-password-file "$W/operator-password" \
    >>"$W/operator.log" 2>&1 &
  OPERATOR_PID=$!
  PIDS+=($!)
  wait_for 30 "operator /healthz" curl -fsS -m 1 "$OP/healthz"
}
