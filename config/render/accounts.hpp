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

/// "mysql-<g>": the pods' ServiceAccount. No Role or RoleBinding names it, and its token is
/// not mounted (automountServiceAccountToken false on the account and on the pods).
std::string service_account_name(std::string_view group);
/// "mysql-<g>-init": the ConfigMap holding bloodraven-users.sh.
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

nlohmann::json render_service_account(const config::failover_group& g, int reconciler_version);
nlohmann::json render_init_config_map(const config::failover_group& g, int reconciler_version);

}  // namespace br::render
