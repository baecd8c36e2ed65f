// Pure decisions of the restore controller (Kubernetes mode, spec.initFromBackup): where the
// backup is (resolve_source), which site it goes to (the bootstrap's seed), whether that site is
// ready (target_ready), and what the group's restore needs next (decide_restore: its phase
// machine Pending -> Running -> Succeeded | Failed, the Job created or deleted, Events, metric
// values). Values in, values out: restore_controller.cpp applies the actions.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "config/failover_group.hpp"

namespace br::restore_ctl {

using json = nlohmann::json;
using backup_ctl::job_view;

/// Label on the restore Job and its pods: the group's name.
inline constexpr std::string_view label_restore = "shipstream.io/restore";

/// "mysqlrestore-<group>" (a group name is a DNS label of at most 63 characters; the Job name is
/// cut to 63 without a trailing '-').
std::string restore_job_name(std::string_view group);
/// spec.restoreInPlace's Job: "mysqlrestore-inplace-<group>-<10 hex digits of the confirm token's
/// FNV-1a>" (the group cut to fit 63): one Job per token, so a Failed restore's Job is kept for
/// inspection while a newer confirm runs its own.
std::string replace_job_name(std::string_view group, std::string_view token);

/// Where the backup is, once resolved.
struct restore_source {
  std::string failed;  ///< the restore cannot go on: why (naming the field)
  std::string wait;    ///< not yet (a MysqlBackup still running, not found): why
  config::backup_storage_spec storage;  ///< the store holding <backup_name>/backup.json
  std::string backup_name;
  std::optional<std::int64_t> size_bytes;  ///< the stored size when known (MysqlBackup status)
  std::string describe;                    ///< "MysqlBackup nightly-1", "s3://bucket/prefix/x"
};

/// spec.initFromBackup.source with the MysqlBackup it names (`backup`: the object, null when
/// not found): mysqlBackupRef must name a MysqlBackup of this group (spec.failoverGroupRef),
/// Succeeded, whose profile is in spec.backup.profiles (its storage); an S3 prefix / PVC
/// subPath is split into the store and the backup's name. A stopDatetime before the MysqlBackup's
/// startTime is refused here (the Job checks the exact consistent point).
restore_source resolve_source(const config::failover_group& g, const json& backup);
/// The same for any source and point in time (spec.restoreInPlace's), paths under `spec_path`.
restore_source resolve_source(const config::failover_group& g, const config::restore_source_spec& source,
                              const std::optional<config::point_in_time_spec>& pit,
                              const std::string& spec_path, const json& backup);

/// Is the target's Deployment (mysql-<g>-<site>) rolled out and ready? (reference §3.14:
/// generation <= 1: readyReplicas >= 1; otherwise also observedGeneration >= generation and
/// updatedReplicas >= 1). `why` says what is missing.
bool target_ready(const json* deployment, std::string& why);

enum class action_kind { status, create_job, delete_job, event };

struct action {
  action_kind kind = action_kind::status;
  json body;                 ///< status: status.restore; create_job: the Job
  std::string name;          ///< delete_job: the Job
  std::string event_type;    ///< Normal | Warning
  std::string reason;
  std::string message;
  /// status Succeeded: the metrics' values (duration < 0 when unknown).
  double duration_seconds = -1;
  std::optional<std::int64_t> source_size_bytes;
  double completed_unix = 0;
};

struct restore_input {
  /// Valid; spec.initFromBackup set, or removed while status.restore is Running (that restore is
  /// seen to its end, nothing new is started).
  config::failover_group group;
  json status = json::object();  ///< the group's .status
  json backup;                   ///< the MysqlBackup mysqlBackupRef names; null if none/not found
  job_view job;                  ///< mysqlrestore-<group> (result: its termination message)
  json deployment;               ///< the target's Deployment; null when not found
  std::string now;               ///< RFC 3339
};

/// Renders the restore Job for a resolved source and target (restore_render.hpp).
using job_renderer =
    std::function<json(const config::failover_group&, const restore_source&, const std::string& target)>;

/// What the group's restore needs now. One-shot: nothing once status.restore.phase is
/// Succeeded. Failed is terminal too (the Job is kept for its logs); re-armed only by a person:
/// delete the Job and clear status.restore (docs/backup.md). A group that has (or had) a
/// primary is never restored into (Failed, nothing created).
std::vector<action> decide_restore(const restore_input& in, const job_renderer& render);

}  // namespace br::restore_ctl
