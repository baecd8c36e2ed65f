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
    *) die "unknown subcommand '$cmd'" ;;
  esac
}
