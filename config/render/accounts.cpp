// The group's ServiceAccount and the init ConfigMap that creates its MySQL accounts.
#include "config/render/accounts.hpp"

#include "config/render/names.hpp"

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

std::string users_script() {
  return R"sh(#!/bin/sh
# Rendered by the bloodraven operator. Creates the group's MySQL accounts at a server's first
# start (run by the mysql image's entrypoint from /docker-entrypoint-initdb.d). Idempotent, and
# with sql_log_bin=0: no server has GTIDs of its own after initialisation.
br_quote() { printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g"; }
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
if command -v docker_process_sql >/dev/null 2>&1; then
  br_users_sql | docker_process_sql --database=mysql
else
  br_users_sql | MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --protocol=socket -uroot ${BLOODRAVEN_INIT_SOCKET:+--socket="$BLOODRAVEN_INIT_SOCKET"}
fi || { echo "bloodraven-users.sh: creating the MySQL accounts failed" >&2; exit 1; }
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
          {"data", {{users_script_key, users_script()}}}};
}

}  // namespace br::render
