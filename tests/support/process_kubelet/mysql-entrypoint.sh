#!/bin/bash
# Process kubelet (tests): the mysql container's entrypoint. A re-implementation, for this test
# harness, of the first-start behaviour the official mysql image documents ("Initializing a fresh
# instance"): runs inside the sandbox chroot (tools/mysql-sandbox), in the pod's mount and network
# namespaces, with the pod's volumes bind-mounted at their rendered paths.
#   - argv: the container's args (default "mysqld"); the datadir and socket come from
#     `mysqld --verbose --help`, i.e. from the rendered my.cnf (--defaults-file below) and args;
#   - empty datadir (no <datadir>/mysql): needs MYSQL_ROOT_PASSWORD (or MYSQL_ALLOW_EMPTY_PASSWORD /
#     MYSQL_RANDOM_ROOT_PASSWORD); `mysqld --initialize-insecure`; a temporary server without
#     networking; time zones (skipped when the chroot has no zoneinfo or MYSQL_INITDB_SKIP_TZINFO);
#     root@localhost gets MYSQL_ROOT_PASSWORD, root@MYSQL_ROOT_HOST (default %) is created, all
#     with sql_log_bin=0; MYSQL_DATABASE / MYSQL_USER / MYSQL_PASSWORD; then every file in
#     /docker-entrypoint-initdb.d in name order: *.sh executed when executable, else sourced;
#     *.sql / *.sql.gz run with the mysql client; the temporary server is shut down;
#   - then `exec mysqld`: the container's process is mysqld, so any exit of mysqld (CLONE, a crash,
#     kill -9) ends the container and the kubelet restarts it.
# Mapping (the chroot is Debian's MySQL 9.7, not the image): the image reads /etc/mysql/conf.d/*.cnf
# through /etc/my.cnf; here every *.cnf under /etc/mysql/conf.d is passed with --defaults-extra-file
# (one file: the rendered my.cnf). BRK_MYSQLD_EXTRA_ARGS (set by the kubelet) is appended to every
# mysqld invocation: the memory settings of tools/mysql-sandbox, standing in for resource limits.
# Sourced init scripts may use docker_process_sql, mysql_note, mysql_warn, mysql_error, $SOCKET and
# $DATADIR as they would in the official image.
set -eo pipefail
shopt -s nullglob

mysql_log() { local t=$1; shift; printf '%s [%s] [Entrypoint]: %s\n' "$(date -u +%FT%T%:z)" "$t" "$*"; }
mysql_note() { mysql_log Note "$@"; }
mysql_warn() { mysql_log Warn "$@" >&2; }
mysql_error() { mysql_log ERROR "$@" >&2; exit 1; }

if [ "${1:-}" != mysqld ]; then exec "$@"; fi
shift
read -r -a extra <<<"${BRK_MYSQLD_EXTRA_ARGS:-}"
cnf=(/etc/mysql/conf.d/*.cnf)
MYSQLD=(/usr/sbin/mysqld)
if [ "${#cnf[@]}" -gt 1 ]; then mysql_error "more than one .cnf in /etc/mysql/conf.d: ${cnf[*]}"; fi
if [ "${#cnf[@]}" -eq 1 ]; then MYSQLD+=("--defaults-extra-file=${cnf[0]}"); fi
MYSQLD+=("$@" "${extra[@]}")
if [ "$(id -u)" = 0 ]; then MYSQLD+=(--user=mysql); fi

mysql_get_config() { # name: its value from mysqld --verbose --help
  # awk reads to the end: an early exit would SIGPIPE mysqld and fail the pipeline (pipefail).
  "${MYSQLD[@]}" --verbose --help 2>/dev/null |
    awk -v conf="$1" '!done && $1 == conf && /^[^ \t]/ { sub(/^[^ \t]+[ \t]+/, ""); print; done = 1 }'
}

if ! out=$("${MYSQLD[@]}" --verbose --help 2>&1 >/dev/null); then
  mysql_error "mysqld failed while attempting to check config: $out"
fi
DATADIR=$(mysql_get_config datadir)
SOCKET=$(mysql_get_config socket)
DATADIR=${DATADIR%/}
export DATADIR SOCKET
[ -n "$DATADIR" ] || mysql_error "cannot read datadir from mysqld --verbose --help"

CLIENT_CNF=$(mktemp /tmp/brk-client.XXXXXX)
trap 'rm -f "$CLIENT_CNF"' EXIT
docker_process_sql() { # [--dont-use-mysql-root-password] [mysql args...] < SQL
  local pw=1
  if [ "${1:-}" = --dont-use-mysql-root-password ]; then pw=; shift; fi
  if [ -n "$pw" ] && [ -n "${MYSQL_ROOT_PASSWORD:-}" ]; then
    printf '[client]\npassword="%s"\n' "$MYSQL_ROOT_PASSWORD" >"$CLIENT_CNF"
  else
    printf '[client]\n' >"$CLIENT_CNF"
  fi
  mysql --defaults-extra-file="$CLIENT_CNF" --protocol=socket -uroot -hlocalhost --socket="$SOCKET" \
    --comments "$@"
}

sql_escape() { sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/\\\\'/g" <<<"$1"; }

if [ ! -d "$DATADIR/mysql" ]; then
  if [ -z "${MYSQL_ROOT_PASSWORD:-}" ] && [ -z "${MYSQL_ALLOW_EMPTY_PASSWORD:-}" ] &&
    [ -z "${MYSQL_RANDOM_ROOT_PASSWORD:-}" ]; then
    mysql_error "Database is uninitialized and password option is not specified (MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD or MYSQL_RANDOM_ROOT_PASSWORD)"
  fi
  if [ -n "$(ls -A "$DATADIR" 2>/dev/null)" ]; then
    mysql_warn "datadir $DATADIR is not empty but has no mysql schema: $(ls -A "$DATADIR" | head -5 | tr '\n' ' ')"
  fi
  mysql_note "Initializing database files"
  "${MYSQLD[@]}" --initialize-insecure --default-time-zone=SYSTEM
  mysql_note "Database files initialized"

  mysql_note "Starting temporary server"
  "${MYSQLD[@]}" --daemonize --skip-networking --default-time-zone=SYSTEM --socket="$SOCKET" ||
    mysql_error "Unable to start server."
  for i in $(seq 30 -1 0); do
    if docker_process_sql --dont-use-mysql-root-password --database=mysql <<<'SELECT 1' >/dev/null 2>&1; then break; fi
    [ "$i" -gt 0 ] || mysql_error "Unable to start server (no answer on $SOCKET)."
    sleep 1
  done
  mysql_note "Temporary server started."

  if [ -z "${MYSQL_INITDB_SKIP_TZINFO:-}" ]; then
    if [ -d /usr/share/zoneinfo ] && command -v mysql_tzinfo_to_sql >/dev/null; then
      mysql_tzinfo_to_sql /usr/share/zoneinfo |
        sed 's/Local time zone must be set--see zic manual page/FCTY/' |
        docker_process_sql --dont-use-mysql-root-password --database=mysql
    else
      mysql_note "no zoneinfo in this root: time zone tables not loaded"
    fi
  fi
  if [ -n "${MYSQL_RANDOM_ROOT_PASSWORD:-}" ]; then
    MYSQL_ROOT_PASSWORD=$(head -c 24 /dev/urandom | base64)
    export MYSQL_ROOT_PASSWORD
    mysql_note "GENERATED ROOT PASSWORD: $MYSQL_ROOT_PASSWORD"
  fi
  root_host=${MYSQL_ROOT_HOST:-%}
  root_create=
  if [ "$root_host" != localhost ]; then
    root_create="CREATE USER 'root'@'$(sql_escape "$root_host")' IDENTIFIED BY '$(sql_escape "${MYSQL_ROOT_PASSWORD:-}")';
GRANT ALL ON *.* TO 'root'@'$(sql_escape "$root_host")' WITH GRANT OPTION;"
  fi
  docker_process_sql --dont-use-mysql-root-password --database=mysql <<EOSQL
SET autocommit = 1;
SET @@SESSION.SQL_LOG_BIN=0;
ALTER USER 'root'@'localhost' IDENTIFIED BY '$(sql_escape "${MYSQL_ROOT_PASSWORD:-}")';
GRANT ALL ON *.* TO 'root'@'localhost' WITH GRANT OPTION;
FLUSH PRIVILEGES;
$root_create
DROP DATABASE IF EXISTS test;
EOSQL
  if [ -n "${MYSQL_DATABASE:-}" ]; then
    mysql_note "Creating database ${MYSQL_DATABASE}"
    docker_process_sql --database=mysql <<<"CREATE DATABASE IF NOT EXISTS \`$MYSQL_DATABASE\`;"
  fi
  if [ -n "${MYSQL_USER:-}" ] && [ -n "${MYSQL_PASSWORD:-}" ]; then
    mysql_note "Creating user ${MYSQL_USER}"
    docker_process_sql --database=mysql <<<"CREATE USER '$(sql_escape "$MYSQL_USER")'@'%' IDENTIFIED BY '$(sql_escape "$MYSQL_PASSWORD")';"
    if [ -n "${MYSQL_DATABASE:-}" ]; then
      docker_process_sql --database=mysql <<<"GRANT ALL ON \`${MYSQL_DATABASE//_/\\_}\`.* TO '$(sql_escape "$MYSQL_USER")'@'%';"
    fi
  fi

  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sh)
        if [ -x "$f" ]; then mysql_note "$0: running $f"; "$f"
        else mysql_note "$0: sourcing $f"; . "$f"; fi ;;
      *.sql) mysql_note "$0: running $f"; docker_process_sql <"$f" ;;
      *.sql.gz) mysql_note "$0: running $f"; gunzip -c "$f" | docker_process_sql ;;
      *) mysql_warn "$0: ignoring $f" ;;
    esac
  done

  mysql_note "Stopping temporary server"
  printf '[client]\npassword="%s"\n' "${MYSQL_ROOT_PASSWORD:-}" >"$CLIENT_CNF"
  mysqladmin --defaults-extra-file="$CLIENT_CNF" shutdown -uroot --socket="$SOCKET" ||
    mysql_error "Unable to shut down the temporary server."
  for i in $(seq 60 -1 0); do
    [ -e "$SOCKET" ] || [ -e "$SOCKET.lock" ] || break
    [ "$i" -gt 0 ] || mysql_error "the temporary server did not stop within 60 s"
    sleep 1
  done
  mysql_note "Temporary server stopped"
  mysql_note "MySQL init process done. Ready for start up."
fi

rm -f "$CLIENT_CNF"
trap - EXIT
exec "${MYSQLD[@]}"
