// The group's ServiceAccount and the init ConfigMap that creates its MySQL accounts.
#include "config/render/accounts.hpp"

#include "config/render/names.hpp"
#include "config/render/workload.hpp"

namespace br::render {

std::string service_account_name(std::string_view group) {
  return "mysql-" + std::string{group};
}

std::string init_config_map_name(std::string_view group) {
  return "mysql-" + std::string{group} + "-init";
}

json users_env(const std::string& secret) {
  json env = json::array();
  auto from = [&](const char* name, const char* key) {
    env.push_back(
        {{"name", name},
         {"valueFrom",
          {{"secretKeyRef", {{"name", secret}, {"key", key}, {"optional", true}}}}}});
  };
  from("BLOODRAVEN_OPERATOR_USER", "username");
  from("BLOODRAVEN_OPERATOR_PASSWORD", "password");
  for (const char* k : {"MYSQL_REPLICATION_USER", "MYSQL_REPLICATION_PASSWORD",
                        "MYSQL_MONITOR_USER", "MYSQL_MONITOR_PASSWORD"})
    from(k, k);
  return env;
}

namespace {

/// The accounts' SQL as shell functions (br_quote, br_account, br_users_sql), shared by
/// users_script() and init_datadir_script().
constexpr const char* users_sql_functions = R"sh(br_quote() { printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g"; }
br_account() { # user password
  printf "CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s';\n" "$(br_quote "$1")" "$(br_quote "$2")"
}
br_users_sql() {
  echo "SET sql_log_bin=0;"
  echo "CREATE DATABASE IF NOT EXISTS bloodraven;"
  if [ -n "${BLOODRAVEN_OPERATOR_USER:-}" ]; then
    u=$(br_quote "$BLOODRAVEN_OPERATOR_USER")
    br_account "$BLOODRAVEN_OPERATOR_USER" "${BLOODRAVEN_OPERATOR_PASSWORD:-}"
    echo "GRANT SYSTEM_VARIABLES_ADMIN, CONNECTION_ADMIN, REPLICATION_SLAVE_ADMIN, REPLICATION CLIENT, REPLICATION SLAVE, CLONE_ADMIN, BACKUP_ADMIN, PROCESS, SELECT, EVENT, SERVICE_CONNECTION_ADMIN, RELOAD ON *.* TO '$u'@'%';"
    echo "GRANT ALL ON bloodraven.* TO '$u'@'%';"
  fi
  if [ -n "${MYSQL_REPLICATION_USER:-}" ]; then
    u=$(br_quote "$MYSQL_REPLICATION_USER")
    br_account "$MYSQL_REPLICATION_USER" "${MYSQL_REPLICATION_PASSWORD:-}"
    echo "GRANT REPLICATION SLAVE, REPLICATION CLIENT, BACKUP_ADMIN ON *.* TO '$u'@'%';"
  fi
  if [ -n "${MYSQL_MONITOR_USER:-}" ]; then
    u=$(br_quote "$MYSQL_MONITOR_USER")
    br_account "$MYSQL_MONITOR_USER" "${MYSQL_MONITOR_PASSWORD:-}"
    echo "GRANT PROCESS, REPLICATION CLIENT ON *.* TO '$u'@'%';"
    echo "GRANT SELECT ON performance_schema.* TO '$u'@'%';"
  fi
}
)sh";

}  // namespace

std::string users_script() {
  return std::string{R"sh(#!/bin/sh
# Rendered by the bloodraven operator. Creates the group's MySQL accounts at a server's first
# start (run by the mysql image's entrypoint from /docker-entrypoint-initdb.d). Idempotent, and
# with sql_log_bin=0: no server has GTIDs of its own after initialisation.
)sh"} +
         users_sql_functions + R"sh(if command -v docker_process_sql >/dev/null 2>&1; then
  br_users_sql | docker_process_sql --database=mysql
else
  br_users_sql | MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --protocol=socket -uroot ${BLOODRAVEN_INIT_SOCKET:+--socket="$BLOODRAVEN_INIT_SOCKET"}
fi || { echo "bloodraven-users.sh: creating the MySQL accounts failed" >&2; exit 1; }
)sh";
}

std::string init_datadir_script() {
  return std::string{R"sh(#!/bin/bash
# Rendered by the bloodraven operator: the pod's init container. The rendered my.cnf boots the
# server fenced (super_read_only=ON), so the image's own first start cannot run; an empty data
# directory is initialised here instead, before the mysql container starts: root's password and
# the group's accounts come from an --init-file (sql_log_bin=0: no GTIDs of the server's own).
set -euo pipefail
DATADIR=)sh"} + data_dir + R"sh(
CNF=)sh" + conf_dir + R"sh(/my.cnf
MARKER="$DATADIR/)sh" + init_datadir_marker + R"sh("
LOCK="$DATADIR/.bloodraven-init.lock"
say() { printf '%s init-datadir: %s\n' "$(date -u +%FT%TZ)" "$*"; }
# Two pods on one volume (a replacement started while the old pod's node is gone but not dead):
# one initialises, the other waits for it and then finds a server. Without flock, no guard.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$LOCK"
  flock -w 900 9 || { say "$LOCK held for 900 s by another initialisation: giving up" >&2; exit 1; }
else
  say "flock not found: nothing keeps a second pod from initialising $DATADIR at the same time"
fi
# The marker is removed only after a complete initialisation: with it, whatever is there (even a
# mysql/ directory) is a failed initialisation of ours, never a server that has run.
if [ ! -e "$MARKER" ] && [ -d "$DATADIR/mysql" ]; then say "$DATADIR holds a server: nothing to do"; exit 0; fi
[ -n "${MYSQL_ROOT_PASSWORD:-}" ] || { say "MYSQL_ROOT_PASSWORD is not set: cannot initialise $DATADIR" >&2; exit 1; }
others=$(find "$DATADIR" -mindepth 1 -maxdepth 1 ! -name lost+found ! -name "$(basename "$MARKER")" ! -name "$(basename "$LOCK")" -printf '%f ')
if [ -n "$others" ]; then
  if [ ! -e "$MARKER" ]; then
    say "$DATADIR is not empty and has no server (not initialised by us; nothing removed): $others" >&2
    exit 1
  fi
  say "removing what a failed earlier initialisation left: $others"
  find "$DATADIR" -mindepth 1 -maxdepth 1 ! -name lost+found ! -name "$(basename "$MARKER")" ! -name "$(basename "$LOCK")" -exec rm -rf {} +
fi
: >"$MARKER"
)sh" + users_sql_functions + R"sh(SQL=$(mktemp /tmp/init-datadir.XXXXXX)
trap 'rm -f "$SQL"' EXIT
pw=$(br_quote "$MYSQL_ROOT_PASSWORD")
{
  echo "SET sql_log_bin=0;"
  echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$pw';"
  echo "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$pw';"
  echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
  br_users_sql
} >"$SQL"
args=(--defaults-extra-file="$CNF" --initialize-insecure --init-file="$SQL")
if [ "$(id -u)" = 0 ]; then args+=(--user=mysql); fi
say "initialising $DATADIR"
mysqld "${args[@]}"
rm -f "$MARKER"
say "initialised"
)sh";
}

json render_service_account(const config::failover_group& g, int reconciler_version) {
  return {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata", object_metadata(g, service_account_name(g.metadata.name), {},
                                       reconciler_version)},
          {"automountServiceAccountToken", false}};
}

json render_init_config_map(const config::failover_group& g, int reconciler_version) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", object_metadata(g, init_config_map_name(g.metadata.name), {},
                                       reconciler_version)},
          {"data", {{users_script_key, users_script()}, {init_datadir_key, init_datadir_script()}}}};
}

}  // namespace br::render
