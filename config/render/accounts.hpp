// The group's pod identity and MySQL accounts: the ServiceAccount its pods run as (bound to
// nothing) and the init ConfigMap whose script creates the least-privilege accounts at a
// server's first start (reconciler version >= 5).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

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
nlohmann::json users_env(const std::string& secret);

/// The script: idempotent (CREATE USER IF NOT EXISTS, CREATE DATABASE IF NOT EXISTS, GRANT),
/// with sql_log_bin=0 so no server has GTIDs of its own after initialisation. An account whose
/// user variable is empty is skipped. Run by the image's entrypoint (its docker_process_sql when
/// sourced; otherwise the mysql client as root over the local socket, MYSQL_ROOT_PASSWORD).
///   operator:    SYSTEM_VARIABLES_ADMIN, CONNECTION_ADMIN, REPLICATION_SLAVE_ADMIN, REPLICATION
///                CLIENT, REPLICATION SLAVE, CLONE_ADMIN, BACKUP_ADMIN, PROCESS, SELECT, EVENT,
///                SERVICE_CONNECTION_ADMIN, RELOAD on *.*; ALL on bloodraven.*
///   replication: REPLICATION SLAVE, REPLICATION CLIENT, BACKUP_ADMIN on *.*
///   monitor:     PROCESS, REPLICATION CLIENT on *.*; SELECT on performance_schema.*
std::string users_script();

/// Version 6: the init container's script. The rendered my.cnf boots every server fenced
/// (super_read_only=ON), under which the official image's first start cannot set the root
/// password on its temporary server (ERROR 1290). So the pod initialises an empty data
/// directory before the mysql container starts: `mysqld --initialize-insecure --init-file`,
/// whose file (built from the environment, values SQL-quoted, sql_log_bin=0) sets root's
/// password (root@localhost and root@'%', as the image does) and creates the accounts of
/// users_script(). Bootstrap statements run before the fence applies, and the server ends with
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
std::string init_datadir_script();

nlohmann::json render_service_account(const config::failover_group& g, int reconciler_version);
nlohmann::json render_init_config_map(const config::failover_group& g, int reconciler_version);

}  // namespace br::render
