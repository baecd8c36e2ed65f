# tools/mysql-sandbox-gr.bash -- Group Replication subcommands of tools/mysql-sandbox (sourced by it; uses
# its helpers: sql_sock, find_mysqld, ping_instance, lock, idir, ...). Notes and measured timings:
# docs/group-replication.md.
#
#   gr-config I [I...] [--group-name UUID]
#            make these instances one group from their next start: mysqld-extra.args gets the plugin
#            (group_replication.so), the group name (generated when not given), the XCom address
#            127.0.0.1:(10000+I) (host address when in a namespace), the seeds (every listed member),
#            start_on_boot OFF, bootstrap_group OFF (never ON in any configuration), skip_replica_start,
#            recovery over TLS. Prints the group name. Restart the instances to apply (`reset I` keeps
#            the options: the wiped server starts as an OFFLINE member of the group).
#   gr-off I          remove instance I's Group Replication options (from its next start)
#   gr-bootstrap I    SET bootstrap_group=ON; START GROUP_REPLICATION; bootstrap_group=OFF (always, also when
#                     START fails); refused when I already reports a group; waits until I is ONLINE
#   gr-join I [--clone]  plain START GROUP_REPLICATION (recovery user repl); --clone sets
#                     group_replication_clone_threshold=1 first, so distributed recovery clones from a donor.
#                     A clone restarts mysqld (restart loop, exit 16) with the plugin stopped: START is issued
#                     again once the server answers. Waits (120 s) until I is ONLINE; prints the time.
#   gr-members I      the member table as I sees it: MEMBER_ID HOST PORT STATE ROLE VERSION VIEW_ID
#   gr-state I        I's own MEMBER_STATE (OFFLINE when the plugin is stopped; "-" when unreachable)
#   gr-stop I         STOP GROUP_REPLICATION (a graceful leave; before `stop`, else shutdown takes 6-14 s)
#   router-install    install sid's mysql-router into the chroot once (idempotent); prints its version
#   router-setup PORT I [I...]  a MySQL Router for the group of these instances, without MySQL Shell: a
#                     minimal InnoDB Cluster metadata schema (only what Router 9.7's metadata cache reads)
#                     written on the group's primary, and /tmp/router-PORT in the chroot (config, keyring,
#                     dynamic state); read-write port PORT (role PRIMARY), read-only PORT+1 (SECONDARY)
#   router-start PORT / router-stop PORT   run / stop that Router (detached; pid file; deadlines)

GR_PORT_BASE=10000      # XCom port = base + instance number (10001..19999, below the MySQL ports' range)
GR_JOIN_DEADLINE=${BR_SANDBOX_GR_JOIN_TIMEOUT:-120}

gr_args_file() { echo "$(idir "$1")/mysqld-extra.args"; }
gr_port() { echo $((GR_PORT_BASE + $1)); }

gr_self_state() { # instance -> MEMBER_STATE of itself, OFFLINE when the plugin has no row for it, "-" unreachable
  local out
  out=$(sql_sock "$1" "SELECT IFNULL((SELECT MEMBER_STATE FROM performance_schema.replication_group_members
                         WHERE MEMBER_ID=@@server_uuid), 'OFFLINE')" 10 2>/dev/null) || { echo -; return 0; }
  echo "${out:--}"
}

gr_config() {
  local name="" i
  local -a members=()
  while (( $# )); do
    case $1 in
      --group-name) [[ $# -ge 2 ]] || die "--group-name needs a UUID"; name=$2; shift 2 ;;
      *) need_instance_arg "$1"; members+=("$1"); shift ;;
    esac
  done
  (( ${#members[@]} )) || die "usage: $PROG gr-config I [I...] [--group-name UUID]"
  [[ -n $name ]] || name=$(cat /proc/sys/kernel/random/uuid)
  [[ $name =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]] || die "bad group name '$name' (a lower-case UUID)"
  local seeds="" p
  for i in "${members[@]}"; do
    p=$(gr_port "$i")
    if ! find_mysqld "$i" >/dev/null 2>&1 && port_in_use "$p"; then
      die "instance $i: XCom port $p is in use by another process"
    fi
    seeds+="${seeds:+,}$(instance_host "$i"):$p"
  done
  for i in "${members[@]}"; do
    mkdir -p "$(idir "$i")"
    local f; f=$(gr_args_file "$i")
    cat >"$f.tmp" <<EOF
--plugin-load-add=group_replication.so
--skip-replica-start=ON
--group-replication-group-name=$name
--group-replication-start-on-boot=OFF
--group-replication-bootstrap-group=OFF
--group-replication-single-primary-mode=ON
--group-replication-local-address=$(instance_host "$i"):$(gr_port "$i")
--group-replication-group-seeds=$seeds
--group-replication-recovery-use-ssl=ON
--group-replication-recovery-get-public-key=ON
--group-replication-consistency=BEFORE_ON_PRIMARY_FAILOVER
--group-replication-exit-state-action=READ_ONLY
--group-replication-autorejoin-tries=3
EOF
    mv -- "$f.tmp" "$f"
    echo "$name" >"$(idir "$i")/gr.group"
    log "instance $i: Group Replication configured (group $name, XCom $(instance_host "$i"):$(gr_port "$i")); applies from its next start"
  done
  echo "$name"
}

gr_wait_online() { # instance t0 -> waits until ONLINE; after a restart (clone) with the plugin stopped, START again
  local i=$1 t0=$2 st restarted=0 last=""
  while :; do
    st=$(gr_self_state "$i")
    [[ $st == ONLINE ]] && return 0
    if [[ $st != "$last" ]]; then log "instance $i: member state $st after $(secs_since "$t0") s"; last=$st; fi
    if [[ $st == - ]]; then restarted=1; fi
    if [[ $st == OFFLINE && $restarted == 1 ]]; then
      log "instance $i: back after a restart (clone) with the plugin stopped: START GROUP_REPLICATION again"
      sql_sock "$i" "START GROUP_REPLICATION USER='repl', PASSWORD='replpw'" 60 ||
        die "instance $i: START GROUP_REPLICATION after the restart failed"
      restarted=0
    fi
    if [[ $st == ERROR ]]; then
      sql_sock "$i" "SELECT * FROM performance_schema.replication_group_members" 5 >&2 || true
      die "instance $i: member state ERROR (see $(datadir_host "$i")/error.log)"
    fi
    (( $(now_us) - t0 > GR_JOIN_DEADLINE * 1000000 )) && die "instance $i: not ONLINE within ${GR_JOIN_DEADLINE}s (state $st)"
    sleep 0.1
  done
}

gr_bootstrap() {
  local i=$1 st t0 rc=0
  [[ -s $(gr_args_file "$i") ]] || die "instance $i has no Group Replication configuration (gr-config)"
  find_mysqld "$i" >/dev/null || die "instance $i is not running"
  st=$(gr_self_state "$i")
  [[ $st == OFFLINE ]] || die "instance $i reports member state '$st': refusing to bootstrap a second group"
  t0=$(now_us)
  sql_sock "$i" "SET GLOBAL group_replication_bootstrap_group=ON;
                 START GROUP_REPLICATION USER='repl', PASSWORD='replpw'" 60 || rc=$?
  # whatever START did: never leave bootstrap_group ON
  sql_sock "$i" "SET GLOBAL group_replication_bootstrap_group=OFF" 30 || die "instance $i: could not reset bootstrap_group"
  (( rc == 0 )) || die "instance $i: bootstrap START GROUP_REPLICATION failed"
  gr_wait_online "$i" "$t0"
  echo "instance $i bootstrapped the group, ONLINE after $(secs_since "$t0") s"
}

gr_join() {
  local i=$1 clone=${2:-} st t0
  [[ -s $(gr_args_file "$i") ]] || die "instance $i has no Group Replication configuration (gr-config)"
  find_mysqld "$i" >/dev/null || die "instance $i is not running"
  st=$(gr_self_state "$i")
  [[ $st == OFFLINE ]] || die "instance $i reports member state '$st' (only an OFFLINE member joins)"
  t0=$(now_us)
  if [[ $clone == --clone ]]; then
    sql_sock "$i" "SET GLOBAL group_replication_clone_threshold=1" 10 || die "instance $i: cannot set the clone threshold"
  fi
  sql_sock "$i" "START GROUP_REPLICATION USER='repl', PASSWORD='replpw'" 120 ||
    log "instance $i: START GROUP_REPLICATION returned an error (a clone restarts the server mid-statement); waiting"
  gr_wait_online "$i" "$t0"
  echo "instance $i joined the group, ONLINE after $(secs_since "$t0") s"
}

gr_members() {
  sql_sock "$1" "SELECT m.MEMBER_ID, m.MEMBER_HOST, m.MEMBER_PORT, m.MEMBER_STATE, m.MEMBER_ROLE, m.MEMBER_VERSION,
                        IFNULL(s.VIEW_ID, '-')
                 FROM performance_schema.replication_group_members m
                 LEFT JOIN performance_schema.replication_group_member_stats s USING (MEMBER_ID)
                 ORDER BY m.MEMBER_PORT" 10
}

ensure_router() {
  ensure_chroot
  if [[ ! -x $ROOT/usr/bin/mysqlrouter ]]; then
    local t; t=$(now_us)
    log "installing mysql-router into the chroot (once); log: $DIR/setup.log"
    run_logged 300 chroot "$ROOT" apt-get update
    run_logged 900 chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
      --no-install-recommends -o Dpkg::Use-Pty=0 mysql-router
    run_logged 120 chroot "$ROOT" apt-get clean
    [[ -x $ROOT/usr/bin/mysqlrouter ]] || die "mysqlrouter missing after the install (see $DIR/setup.log)"
    log "  mysql-router installed ($(secs_since "$t") s)"
  fi
  timeout -k 2 30 chroot "$ROOT" /usr/bin/mysqlrouter --version
}

router_dir() { echo "/tmp/router-$1"; }   # inside the chroot

router_setup() { # PORT I... : metadata on the primary, config/keyring/state in the chroot
  local port=$1 i primary="" cluster_id=11111111-1111-1111-1111-111111111111; shift
  [[ $port =~ ^[1-9][0-9]{3,4}$ ]] || die "bad port '$port'"
  ensure_router >/dev/null
  local group; group=$(read_file "$(idir "$1")/gr.group")
  [[ -n $group ]] || die "instance $1 has no Group Replication configuration"
  for i in "$@"; do
    need_instance_arg "$i"
    [[ $(sql_sock "$i" "SELECT MEMBER_ROLE FROM performance_schema.replication_group_members
                         WHERE MEMBER_ID=@@server_uuid AND MEMBER_STATE='ONLINE'" 10 2>/dev/null) == PRIMARY ]] && primary=$i
  done
  [[ -n $primary ]] || die "none of instances $* is the group's ONLINE PRIMARY"
  local rows="" n=0 addr uuid servers=""
  for i in "$@"; do
    n=$((n + 1))
    addr="$(instance_host "$i"):$(instance_port "$i")"
    uuid=$(sql_sock "$i" "SELECT @@server_uuid" 10) || die "instance $i: cannot read server_uuid"
    rows+="${rows:+,}($n, '$cluster_id', '$addr', '$uuid', '$addr', JSON_OBJECT('mysqlClassic', '$addr'), '{}', '')"
    servers+="${servers:+, }\"mysql://$addr\""
  done
  # Router 9.7 reads (found query by query from its log): schema_version, v2_this_instance, v2_cs_members,
  # v2_router_options, v2_instances join v2_gr_clusters, v2_routers. Written on the primary, so the group
  # replicates it. Routing guidelines need a newer schema version: Router logs that it skips them.
  sql_sock "$primary" "DROP DATABASE IF EXISTS mysql_innodb_cluster_metadata;
    CREATE DATABASE mysql_innodb_cluster_metadata; USE mysql_innodb_cluster_metadata;
    CREATE VIEW schema_version (major, minor, patch) AS SELECT 2, 2, 0;
    CREATE TABLE clusters (cluster_id CHAR(36) PRIMARY KEY, cluster_name VARCHAR(64), group_name CHAR(36),
      primary_mode VARCHAR(4), attributes JSON, options JSON, router_options JSON, description TEXT);
    INSERT INTO clusters VALUES ('$cluster_id', 'sandbox', '$group', 'pm', '{}', '{}', '{}', '');
    CREATE TABLE instances (instance_id INT PRIMARY KEY, cluster_id CHAR(36), address VARCHAR(265),
      mysql_server_uuid CHAR(36), instance_name VARCHAR(265), addresses JSON, attributes JSON, description TEXT);
    INSERT INTO instances VALUES $rows;
    CREATE VIEW v2_this_instance AS SELECT c.cluster_id, c.cluster_name, 'gr' AS cluster_type, i.instance_id
      FROM instances i JOIN clusters c USING (cluster_id)
      WHERE i.mysql_server_uuid = (SELECT CONVERT(variable_value USING ascii) FROM performance_schema.global_variables
                                   WHERE variable_name = 'server_uuid');
    CREATE TABLE v2_cs_members (cluster_id CHAR(36) PRIMARY KEY, clusterset_id CHAR(36), member_role VARCHAR(16),
      view_id INT, invalidated INT);
    CREATE TABLE v2_router_options (router_id INT PRIMARY KEY, router_options JSON);
    INSERT INTO v2_router_options VALUES (1, '{}');
    CREATE VIEW v2_instances AS SELECT instance_id, cluster_id, instance_name AS label, mysql_server_uuid, address,
      JSON_UNQUOTE(addresses->'\$.mysqlClassic') AS endpoint, NULL AS xendpoint, attributes FROM instances;
    CREATE VIEW v2_gr_clusters AS SELECT cluster_id, cluster_name, group_name, primary_mode, attributes, options,
      router_options, description, NULL AS clusterset_id FROM clusters;
    CREATE TABLE v2_routers (router_id INT PRIMARY KEY, router_name VARCHAR(265), address VARCHAR(265), attributes JSON,
      options JSON, version VARCHAR(12), last_check_in TIMESTAMP NULL, product_name VARCHAR(128), cluster_id CHAR(36),
      clusterset_id CHAR(36));
    INSERT INTO v2_routers VALUES (1, 'sandbox', '127.0.0.1', '{}', '{}', '9.7.4', NULL, 'MySQL Router', '$cluster_id', NULL)" 60 ||
    die "instance $primary: writing the metadata schema failed"
  local d; d=$(router_dir "$port")
  rm -rf -- "$ROOT$d"; mkdir -p -- "$ROOT$d"
  timeout -k 2 30 chroot "$ROOT" mysqlrouter_keyring init --master-key-file="$d/mkey" "$d/keyring" >/dev/null ||
    die "mysqlrouter_keyring init failed"
  echo rootpw | timeout -k 2 30 chroot "$ROOT" mysqlrouter_keyring set --master-key-file="$d/mkey" "$d/keyring" root password \
    >/dev/null 2>&1 || die "mysqlrouter_keyring set failed"
  printf '{"version": "1.0.0", "metadata-cache": {"group-replication-id": "%s", "cluster-metadata-servers": [%s]}}\n' \
    "$group" "$servers" >"$ROOT$d/state.json"
  printf '%s\n' "[DEFAULT]" "logging_folder=$d" "runtime_folder=$d" "data_folder=$d" "keyring_path=$d/keyring" \
    "master_key_path=$d/mkey" "dynamic_state=$d/state.json" "" \
    "[logger]" "level=INFO" "" \
    "[metadata_cache:bootstrap]" "cluster_type=gr" "router_id=1" "user=root" "metadata_cluster=sandbox" "ttl=0.5" "" \
    "[routing:rw]" "bind_address=127.0.0.1" "bind_port=$port" "destinations=metadata-cache://sandbox/?role=PRIMARY" \
    "routing_strategy=first-available" "protocol=classic" "" \
    "[routing:ro]" "bind_address=127.0.0.1" "bind_port=$((port + 1))" \
    "destinations=metadata-cache://sandbox/?role=SECONDARY" "routing_strategy=round-robin-with-fallback" \
    "protocol=classic" >"$ROOT$d/router.conf"
  echo "router for instances $* (primary $primary): rw 127.0.0.1:$port, ro 127.0.0.1:$((port + 1)), files $ROOT$d"
}

# shellcheck disable=SC2317  # called indirectly (pid_gone_wait)
router_pid_ok() { # pid port: our mysqlrouter for this port
  cmdline_has "$1" /usr/bin/mysqlrouter && cmdline_has "$1" "$(router_dir "$2")/router.conf"
}

router_start() {
  local port=$1 d pid t0
  d=$(router_dir "$port")
  [[ -s $ROOT$d/router.conf ]] || die "no router for port $port (router-setup first)"
  pid=$(read_file "$ROOT$d/pid")
  if [[ -n $pid ]] && router_pid_ok "$pid" "$port"; then echo "router $port already running (pid $pid)"; return 0; fi
  port_in_use "$port" && die "port $port is in use"
  setsid chroot "$ROOT" /usr/bin/mysqlrouter -c "$d/router.conf" --user=root </dev/null >>"$ROOT$d/stdout.log" 2>&1 &
  echo "$!" >"$ROOT$d/pid"   # chroot execs mysqlrouter: this is the router's pid
  t0=$(now_us)
  until port_in_use "$port"; do
    if (( $(now_us) - t0 > 20000000 )); then
      tail -n 20 "$ROOT$d/mysqlrouter.log" >&2 2>/dev/null || true
      die "router $port not listening after 20 s"
    fi
    sleep 0.1
  done
  echo "router $port running (pid $(read_file "$ROOT$d/pid"), listening after $(secs_since "$t0") s)"
}

router_stop() {
  local port=$1 d pid
  d=$(router_dir "$port")
  pid=$(read_file "$ROOT$d/pid")
  if [[ -z $pid ]] || ! router_pid_ok "$pid" "$port"; then echo "router $port not running"; return 0; fi
  kill -TERM "$pid"
  pid_gone_wait "$pid" 10 router_pid_ok "$port" || kill -KILL "$pid" 2>/dev/null || true
  rm -f -- "$ROOT$d/pid"
  echo "router $port stopped"
}

gr_main() {
  local cmd=$1; shift
  case $cmd in
    gr-config) require_root; lock; gr_config "$@" ;;
    gr-off)
      [[ $# -eq 1 ]] || die "usage: $PROG gr-off I"
      need_instance_arg "$1"; require_root; lock
      rm -f -- "$(gr_args_file "$1")" "$(idir "$1")/gr.group"
      log "instance $1: no Group Replication from its next start" ;;
    gr-bootstrap)
      [[ $# -eq 1 ]] || die "usage: $PROG gr-bootstrap I"
      need_instance_arg "$1"; require_root; gr_bootstrap "$1" ;;
    gr-join)
      [[ $# -eq 1 || ( $# -eq 2 && $2 == --clone ) ]] || die "usage: $PROG gr-join I [--clone]"
      need_instance_arg "$1"; require_root; gr_join "$@" ;;
    gr-members)
      [[ $# -eq 1 ]] || die "usage: $PROG gr-members I"
      need_instance_arg "$1"; gr_members "$1" ;;
    gr-state)
      [[ $# -eq 1 ]] || die "usage: $PROG gr-state I"
      need_instance_arg "$1"; gr_self_state "$1" ;;
    gr-stop)
      [[ $# -eq 1 ]] || die "usage: $PROG gr-stop I"
      need_instance_arg "$1"; sql_sock "$1" "STOP GROUP_REPLICATION" 60 ;;
    router-install)
      [[ $# -eq 0 ]] || die "usage: $PROG router-install"
      require_root; lock; ensure_router ;;
    router-setup)
      (( $# >= 2 )) || die "usage: $PROG router-setup PORT I [I...]"
      require_root; router_setup "$@" ;;
    router-start)
      [[ $# -eq 1 ]] || die "usage: $PROG router-start PORT"
      require_root; router_start "$1" ;;
    router-stop)
      [[ $# -eq 1 ]] || die "usage: $PROG router-stop PORT"
      require_root; router_stop "$1" ;;
    *) die "unknown subcommand '$cmd'" ;;
  esac
}
