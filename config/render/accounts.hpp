// The group's pod identity and MySQL accounts: the ServiceAccount its pods run as (bound to
// nothing) and the init ConfigMap whose script creates the least-privilege accounts at a
// server's first start (reconciler version >= 5).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/failover_group.hpp"

namespace br::render {

/// Where the official mysql image runs first-start scripts, and our script's key there.
inline constexpr const char* initdb_dir = "/docker-entrypoint-initdb.d";
inline constexpr const char* users_script_key = "bloodraven-users.sh";
/// Version 6: the init container's script (same ConfigMap), mounted at init_script_dir.
inline constexpr const char* init_datadir_key = "init-datadir.sh";
inline constexpr const char* init_script_dir = "/bloodraven-init";
inline constexpr const char* init_datadir_marker = ".bloodraven-initializing";

/// "mysql-<g>": the pods' ServiceAccount. No Role or RoleBinding names it, and its token is
/// not mounted (automountServiceAccountToken false on the account and on the pods).
std::string service_account_name(std::string_view group);
/// "mysql-<g>-init": the ConfigMap holding bloodraven-users.sh and init-datadir.sh.
std::string init_config_map_name(std::string_view group);

/// The environment variables the script reads (all from the credentials Secret, each optional
/// so a Secret without replication or monitor keys still starts the pod):
///   BLOODRAVEN_OPERATOR_USER/PASSWORD   <- username, password
///   MYSQL_REPLICATION_USER/PASSWORD     <- same keys
///   MYSQL_MONITOR_USER/PASSWORD         <- same keys
///   MYSQL_BACKUP_USER/PASSWORD          <- same keys (only with `backup_account`: reconciler
///                                          version 7, so older pods' templates stay as they were)
nlohmann::json users_env(const std::string& secret, bool backup_account);

/// Privileges, each needed by a statement the code issues:
///   operator (also the sidecar's account: it reads `username`/`password`):
///     SYSTEM_VARIABLES_ADMIN   SET GLOBAL super_read_only/read_only (fence, promote, unfence,
///                              the dead man's switch body), clone_valid_donor_list, session
///                              sql_log_bin=0
///     CONNECTION_ADMIN         KILL CONNECTION of other accounts' sessions; writes (heartbeat,
///                              switch DDL) while read_only=ON; CLONE under read_only
///     PROCESS                  information_schema.INNODB_TABLES (the auto-clone check for tables
///                              without GTIDs, mysql_op::read_user_tables: error 1227 without
///                              it); not needed for session lists on MySQL 9.7
///                              (performance_schema.threads shows every account's sessions to
///                              SELECT on the table); required by the bootstrap account check
///     REPLICATION_SLAVE_ADMIN  STOP/START REPLICA, CHANGE REPLICATION SOURCE
///     RELOAD                   RESET REPLICA ALL (the promoted site's channel; MySQL requires
///                              RELOAD for RESET REPLICA)
///     CLONE_ADMIN              CLONE INSTANCE FROM (the recipient side)
///     REPLICATION CLIENT       none of our statements; required by the bootstrap account check
///                              (decide/bootstrap.cpp operator_account_privileges)
///     SELECT on performance_schema.* (probe, session and lock holder lists, clone status: the
///     whole schema, as clone_status does not exist while --initialize runs the init file); SELECT (User, Host, Super_priv) on mysql.user and (USER, HOST,
///     PRIV) on mysql.global_grants (the switch's definer check: no password hashes readable);
///     operator_schema_privileges on bloodraven.* (heartbeat table, switch event).
///   replication: REPLICATION SLAVE (a replica's receiver), BACKUP_ADMIN (CLONE donor). Without a
///     replication account (no MYSQL_REPLICATION_USER) the operator account gets both, as replicas
///     and CLONE then use it.
///   monitor:     PROCESS, REPLICATION CLIENT on *.*; SELECT on performance_schema.* (the
///     reference's monitor account; nothing of ours uses it).
///   backup:      backup_global_privileges on *.*: what the backup Job's mysqldump
///     (--single-transaction --source-data=2 --routines --events --triggers) and its schema list
///     (information_schema.SCHEMATA, which shows only schemas the account has a privilege on)
///     need. Not the operator account: it has no privilege on user schemas, so it sees none
///     (a backup Job dumping with it Succeeded holding only `bloodraven`, found by
///     integration_kube_kubelet_backup) and mysqldump of one fails with 1044 (integration_accounts).
///   root: root@localhost and root@'%' (as the image does; not yet narrowed).
inline constexpr const char* operator_global_privileges =
    "SYSTEM_VARIABLES_ADMIN, CONNECTION_ADMIN, PROCESS, REPLICATION_SLAVE_ADMIN, RELOAD, "
    "CLONE_ADMIN, REPLICATION CLIENT";
inline constexpr const char* operator_schema_privileges = "SELECT, INSERT, UPDATE, CREATE, EVENT";
inline constexpr const char* replication_global_privileges = "REPLICATION SLAVE, BACKUP_ADMIN";
/// Group Replication mode only (least privilege: an async group's accounts do not get them):
/// the operator account's START/STOP GROUP_REPLICATION and group_replication_set_as_primary,
/// and the recovery account's (the replication account, else the operator's) CLONE_ADMIN: a
/// joiner's distributed recovery through the clone plugin runs as it on the recipient; and its
/// GROUP_REPLICATION_STREAM: the MySQL communication stack's connections between the members
/// authenticate as it (without it a member cannot even reach its own group communication).
inline constexpr const char* gr_operator_global_privileges = "GROUP_REPLICATION_ADMIN";
inline constexpr const char* gr_recovery_global_privileges = "CLONE_ADMIN, GROUP_REPLICATION_STREAM";
inline constexpr const char* backup_global_privileges =
    "SELECT, SHOW VIEW, EVENT, TRIGGER, LOCK TABLES, RELOAD, PROCESS, REPLICATION CLIENT, BACKUP_ADMIN";

/// A credentials Secret key the init SQL reads: `user` keys name an account (`password_key`
/// its password), the others are passwords.
struct account_key {
  const char* key;
  bool user;
  const char* password_key;
};
/// username, password, MYSQL_REPLICATION_USER/PASSWORD, MYSQL_MONITOR_USER/PASSWORD,
/// MYSQL_BACKUP_USER/PASSWORD, MYSQL_ROOT_PASSWORD.
const std::vector<account_key>& account_keys();

/// Pure: "" or why the credentials Secret `secret`'s decoded `data` cannot go into the init SQL,
/// naming the Secret and the key: any value holding a control character (NUL, newline, tab,
/// DEL, ...), a user name outside [A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}, a user key set while its
/// password key is missing or empty. The value itself is never quoted in the message.
std::string account_values_problem(const std::string& secret,
                                   const std::map<std::string, std::string>& data);

/// The shell functions br_quote, br_check_env (the same refusals as account_values_problem,
/// exit 1 naming the variable and key), br_users_sql (the accounts' SQL) and br_init_sql (root
/// at localhost, then br_users_sql), as both scripts define them. `group_replication`: the
/// Group Replication grants too (gr_*_global_privileges).
std::string users_sql_functions(bool group_replication = false);

/// The script: idempotent (CREATE USER IF NOT EXISTS, CREATE DATABASE IF NOT EXISTS, GRANT),
/// with sql_log_bin=0 so no server has GTIDs of its own after initialisation. An account whose
/// user variable is empty is skipped; br_check_env runs first. Run by the image's entrypoint (its
/// docker_process_sql when sourced; otherwise the mysql client as root over the local socket,
/// MYSQL_ROOT_PASSWORD).
std::string users_script(bool group_replication = false);

/// Version 6: the init container's script. The rendered my.cnf boots every server fenced
/// (super_read_only=ON), under which the official image's first start cannot set the root
/// password on its temporary server (ERROR 1290). So the pod initialises an empty data
/// directory before the mysql container starts: `mysqld --initialize-insecure --init-file`,
/// whose file (br_init_sql: built from the environment after br_check_env, values SQL-quoted,
/// sql_log_bin=0) sets root's password (root@localhost and root@'%', as the image does) and
/// creates the accounts of users_script(). Bootstrap statements run before the fence applies, and the server ends with
/// an empty gtid_executed. The mysql container then finds an initialised data directory and the
/// image's entrypoint only starts mysqld.
///   - `<datadir>/mysql` exists and no marker: already initialised, nothing is done (exit 0);
///   - empty (`lost+found` and the marker aside): initialised; the marker file
///     init_datadir_marker is written first and removed after success;
///   - other files and the marker (even `mysql/`: an initialisation interrupted after it
///     created the schema directory but before the init file ran): a failed earlier
///     initialisation of ours: those files are removed and it starts over;
///   - other files without the marker: not ours: nothing is removed, exit 1 with the list
///     (the pod stays in Init:Error / Init:CrashLoopBackOff, visible to the user).
/// Needs MYSQL_ROOT_PASSWORD (exit 1 naming it otherwise).
std::string init_datadir_script(bool group_replication = false);

nlohmann::json render_service_account(const config::failover_group& g, int reconciler_version);
nlohmann::json render_init_config_map(const config::failover_group& g, int reconciler_version);

}  // namespace br::render
