// `bloodraven trigger-backup`: creates one MysqlBackup (what each backup CronJob runs; also by hand).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/process_flags.hpp"

#include "io/kube/client.hpp"

namespace br::backup_ctl {

struct trigger_request {
  std::string ns, group, profile;
  std::string triggered_by = "manual";  // "schedule/<name>" from a CronJob
  std::string name;                     // empty: <group>-<profile>-<UTC yyyymmddhhmmss>
  std::string source_site;              // sourceSiteOverride; empty: the controller chooses
};

/// Pure: the MysqlBackup object (with the finalizer shipstream.io/mysqlbackup) for `r` at `now`.
nlohmann::json trigger_object(const trigger_request& r, std::int64_t unix_seconds);

/// Creates it; "" on success (`created` = its name), else the error.
std::string trigger_backup(kube::client& c, const trigger_request& r, std::string& created);

/// A trigger subcommand: flags --namespace --group --profile --triggered-by --name --kubeconfig
/// --timeout plus `extra`; creates `object(values, now)` as `resource`.
struct trigger_command {
  std::string command;  ///< "trigger-backup"
  std::string summary;
  std::string kind;  ///< "MysqlBackup"
  kube::resource_ref resource;
  std::vector<config::flag_def> extra;
  std::function<nlohmann::json(std::map<std::string, std::string>& values, std::int64_t unix_seconds)> object;
};
/// argv[1] is the command. Exit code 0 when the object was created, 1 when the API refused, 2 on
/// bad usage.
int run_trigger(int argc, char** argv, const trigger_command& cmd);

/// argv[1] == "trigger-backup". Exit code 0 when the MysqlBackup was created.
int run_trigger_backup(int argc, char** argv);

}  // namespace br::backup_ctl
