// The group's ServiceAccount and the init ConfigMap that creates its MySQL accounts.
#include "config/render/accounts.hpp"

#include <cctype>
#include <cstdio>

#include "config/render/gr_member.hpp"
#include "config/render/names.hpp"
#include "config/render/workload.hpp"

namespace br::render {

std::string service_account_name(std::string_view group) {
  return "mysql-" + std::string{group};
}

std::string init_config_map_name(std::string_view group) {
  return "mysql-" + std::string{group} + "-init";
}

json users_env(const std::string& secret, bool backup_account) {
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
  if (backup_account)
    for (const char* k : {"MYSQL_BACKUP_USER", "MYSQL_BACKUP_PASSWORD"}) from(k, k);
  return env;
}

const std::vector<account_key>& account_keys() {
  static const std::vector<account_key> v{{"username", true, "password"},
                                          {"password", false, ""},
                                          {"MYSQL_REPLICATION_USER", true, "MYSQL_REPLICATION_PASSWORD"},
                                          {"MYSQL_REPLICATION_PASSWORD", false, ""},
                                          {"MYSQL_MONITOR_USER", true, "MYSQL_MONITOR_PASSWORD"},
                                          {"MYSQL_MONITOR_PASSWORD", false, ""},
                                          {"MYSQL_BACKUP_USER", true, "MYSQL_BACKUP_PASSWORD"},
                                          {"MYSQL_BACKUP_PASSWORD", false, ""},
                                          {"MYSQL_ROOT_PASSWORD", false, ""}};
  return v;
}

namespace {

bool user_name_char(unsigned char c, bool first) {
  if (std::isalnum(c) || c == '_') return true;
  return !first && (c == '.' || c == '$' || c == '-');
}

}  // namespace

std::string account_values_problem(const std::string& secret,
                                   const std::map<std::string, std::string>& data) {
  for (const auto& k : account_keys()) {
    auto it = data.find(k.key);
    if (it == data.end()) continue;
    const std::string& v = it->second;
    const std::string where = "Secret \"" + secret + "\" key \"" + k.key + "\"";
    for (size_t i = 0; i < v.size(); ++i) {
      auto c = static_cast<unsigned char>(v[i]);
      if (c < 0x20 || c == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", c);
        return where + " holds a control character (" + hex + " at byte " + std::to_string(i) +
               "): refused, it cannot go into the MySQL init file";
      }
    }
    if (!k.user || v.empty()) continue;
    bool ok = v.size() <= 32;
    for (size_t i = 0; ok && i < v.size(); ++i)
      ok = user_name_char(static_cast<unsigned char>(v[i]), i == 0) && static_cast<unsigned char>(v[i]) < 0x80;
    if (!ok)
      return where + " is not a MySQL user name of the form [A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}: refused";
    auto pw = data.find(k.password_key);
    if (pw == data.end() || pw->second.empty())
      return where + " names an account but key \"" + k.password_key +
             "\" is missing or empty: an account without a password is refused";
  }
  return "";
}

// Shared by users_script() and init_datadir_script(). Every privilege is one a statement of
// the operator, the sidecar (same account) or replication needs; see accounts.hpp.
std::string users_sql_functions(bool group_replication) {
  // Group Replication: the operator's GR statements and the recovery account's clone grant.
  const std::string gr_operator =
      group_replication ? std::string{R"sh(    echo "GRANT )sh"} + gr_operator_global_privileges +
                              R"sh( ON *.* TO '$u'@'%';"
)sh"
                        : std::string{};
  const std::string recovery_privileges =
      std::string{replication_global_privileges} +
      (group_replication ? std::string{", "} + gr_recovery_global_privileges : std::string{});
  return std::string{R"sh(br_quote() { printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g"; }
br_fail() { echo "bloodraven init: $*" >&2; exit 1; }
br_check() { # variable, credentials Secret key, user|password
  eval "v=\${$1:-}"
  case "$v" in *[[:cntrl:]]*) br_fail "$1 (credentials Secret key $2) holds a control character (newline, tab, ...): refused";; esac
  if [ "$3" = user ] && [ -n "$v" ]; then
    case "$v" in [!A-Za-z0-9_]*|*[!A-Za-z0-9_.\$-]*) br_fail "$1 (credentials Secret key $2) is not a user name ([A-Za-z0-9_][A-Za-z0-9_.\$-]*): refused";; esac
    [ "${#v}" -le 32 ] || br_fail "$1 (credentials Secret key $2) is longer than 32 characters: refused"
  fi
  if [ "$3" = user ] && [ -n "$v" ] && [ -n "$4" ]; then
    eval "p=\${$4:-}"
    [ -n "$p" ] || br_fail "$1 is set but $4 is empty: an account without a password is refused"
  fi
}
br_check_env() {
  br_check BLOODRAVEN_OPERATOR_USER username user BLOODRAVEN_OPERATOR_PASSWORD
  br_check BLOODRAVEN_OPERATOR_PASSWORD password password
  br_check MYSQL_REPLICATION_USER MYSQL_REPLICATION_USER user MYSQL_REPLICATION_PASSWORD
  br_check MYSQL_REPLICATION_PASSWORD MYSQL_REPLICATION_PASSWORD password
  br_check MYSQL_MONITOR_USER MYSQL_MONITOR_USER user MYSQL_MONITOR_PASSWORD
  br_check MYSQL_MONITOR_PASSWORD MYSQL_MONITOR_PASSWORD password
  br_check MYSQL_BACKUP_USER MYSQL_BACKUP_USER user MYSQL_BACKUP_PASSWORD
  br_check MYSQL_BACKUP_PASSWORD MYSQL_BACKUP_PASSWORD password
  br_check MYSQL_ROOT_PASSWORD MYSQL_ROOT_PASSWORD password
}
br_account() { # user password
  printf "CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s';\n" "$(br_quote "$1")" "$(br_quote "$2")"
}
br_users_sql() {
  echo "SET sql_log_bin=0;"
  echo "CREATE DATABASE IF NOT EXISTS bloodraven;"
  if [ -n "${BLOODRAVEN_OPERATOR_USER:-}" ]; then
    u=$(br_quote "$BLOODRAVEN_OPERATOR_USER")
    br_account "$BLOODRAVEN_OPERATOR_USER" "${BLOODRAVEN_OPERATOR_PASSWORD:-}"
    echo "GRANT )sh" + std::string{operator_global_privileges} + R"sh( ON *.* TO '$u'@'%';"
)sh" + gr_operator + R"sh(    # The whole schema, not its tables one by one: clone_status exists only once the clone plugin
    # is loaded, which it is not while --initialize runs this file (a table grant on it fails
    # with 1146 and the datadir is never initialised).
    echo "GRANT SELECT ON performance_schema.* TO '$u'@'%';"
    echo "GRANT SELECT (User, Host, Super_priv) ON mysql.user TO '$u'@'%';"
    echo "GRANT SELECT (USER, HOST, PRIV) ON mysql.global_grants TO '$u'@'%';"
    echo "GRANT )sh" + std::string{operator_schema_privileges} + R"sh( ON bloodraven.* TO '$u'@'%';"
    if [ -z "${MYSQL_REPLICATION_USER:-}" ]; then
      # No replication account: replicas and CLONE recipients use the operator's.
      echo "GRANT )sh" + recovery_privileges + R"sh( ON *.* TO '$u'@'%';"
    fi
  fi
  if [ -n "${MYSQL_REPLICATION_USER:-}" ]; then
    u=$(br_quote "$MYSQL_REPLICATION_USER")
    br_account "$MYSQL_REPLICATION_USER" "${MYSQL_REPLICATION_PASSWORD:-}"
    echo "GRANT )sh" + recovery_privileges + R"sh( ON *.* TO '$u'@'%';"
  fi
  if [ -n "${MYSQL_MONITOR_USER:-}" ]; then
    u=$(br_quote "$MYSQL_MONITOR_USER")
    br_account "$MYSQL_MONITOR_USER" "${MYSQL_MONITOR_PASSWORD:-}"
    echo "GRANT PROCESS, REPLICATION CLIENT ON *.* TO '$u'@'%';"
    echo "GRANT SELECT ON performance_schema.* TO '$u'@'%';"
  fi
  if [ -n "${MYSQL_BACKUP_USER:-}" ]; then
    u=$(br_quote "$MYSQL_BACKUP_USER")
    br_account "$MYSQL_BACKUP_USER" "${MYSQL_BACKUP_PASSWORD:-}"
    echo "GRANT )sh" + std::string{backup_global_privileges} + R"sh( ON *.* TO '$u'@'%';"
  fi
}
br_init_sql() { # root and the accounts
  pw=$(br_quote "$MYSQL_ROOT_PASSWORD")
  echo "SET sql_log_bin=0;"
  echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$pw';"
  echo "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$pw';"
  echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
  br_users_sql
}
)sh"};
}

std::string users_script(bool group_replication) {
  return std::string{R"sh(#!/bin/sh
# Rendered by the bloodraven operator. Creates the group's MySQL accounts at a server's first
# start (run by the mysql image's entrypoint from /docker-entrypoint-initdb.d). Idempotent, and
# with sql_log_bin=0: no server has GTIDs of its own after initialisation.
)sh"} +
         users_sql_functions(group_replication) + R"sh(br_check_env
if command -v docker_process_sql >/dev/null 2>&1; then
  br_users_sql | docker_process_sql --database=mysql
else
  br_users_sql | MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --protocol=socket -uroot ${BLOODRAVEN_INIT_SOCKET:+--socket="$BLOODRAVEN_INIT_SOCKET"}
fi || { echo "bloodraven-users.sh: creating the MySQL accounts failed" >&2; exit 1; }
)sh";
}

std::string init_datadir_script(bool group_replication) {
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
)sh" + users_sql_functions(group_replication) + R"sh(# Two pods on one volume (a replacement started while the old pod's node is gone but not dead):
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
# A value that cannot go into the init file (control characters, a user name outside
# [A-Za-z0-9_.$-], a user without a password) stops here, before anything is touched.
br_check_env
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
SQL=$(mktemp /tmp/init-datadir.XXXXXX)
INITCNF=$(mktemp /tmp/init-datadir-cnf.XXXXXX)
trap 'rm -f "$SQL" "$INITCNF"' EXIT
br_init_sql >"$SQL"
# --initialize loads no plugins, so a plugin's options are unknown variables to it: the semi-sync
# ones (spec.replication.semiSync, without loose-: a normal start must fail without the plugin)
# are left out of its copy of the file.
while IFS= read -r line || [ -n "$line" ]; do
  case $line in rpl-semi-sync-*) ;; *) printf '%s\n' "$line" ;; esac
done <"$CNF" >"$INITCNF"
args=(--defaults-extra-file="$INITCNF" --initialize-insecure --init-file="$SQL")
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
  const bool gr = is_group_replication(g.spec);
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", object_metadata(g, init_config_map_name(g.metadata.name), {},
                                       reconciler_version)},
          {"data",
           {{users_script_key, users_script(gr)}, {init_datadir_key, init_datadir_script(gr)}}}};
}

}  // namespace br::render
