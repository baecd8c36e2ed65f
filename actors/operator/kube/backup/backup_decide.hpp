// Pure decisions of the backup controller (Kubernetes mode): which site a backup reads from,
// which backups retention lets go, what a backup Job's result says, what one MysqlBackup needs
// next (its phase machine, cleanup before deletion) and which CronJobs a group's schedules need.
// Values in, values out: no I/O (backup_controller.cpp applies the actions).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/failover_group.hpp"
#include "messages/topology.hpp"

namespace br::backup_ctl {

using json = nlohmann::json;

inline constexpr std::string_view finalizer = "shipstream.io/mysqlbackup";
/// Label on every object the backup controller owns; value: backup-schedule | backup |
/// backup-cleanup.
inline constexpr std::string_view label_component = "app.kubernetes.io/component";
inline constexpr std::string_view label_backup = "shipstream.io/mysqlbackup";  // backup name
inline constexpr std::string_view label_schedule = "shipstream.io/backup-schedule";
inline constexpr std::string_view annotation_source = "shipstream.io/backup-source-site";
inline constexpr std::string_view annotation_active = "shipstream.io/backup-active-site";
inline constexpr std::string_view annotation_spec_hash = "shipstream.io/spec-hash";

/// "mysql-<g>-backup-<schedule>" (validation keeps it within 52 characters).
std::string cronjob_name(std::string_view group, std::string_view schedule);
/// "mysqlbackup-<name>" (reference) and "mysqlbackup-rm-<name>" (artifact cleanup).
std::string backup_job_name(std::string_view backup);
std::string cleanup_job_name(std::string_view backup);
/// "<prefix>-<yyyymmddhhmmss>" with the prefix cut to 32 characters (no trailing '-'), so the
/// cleanup Job name stays within 63: trigger-backup's object names.
std::string generated_backup_name(std::string_view prefix, std::int64_t unix_seconds);

// ---- source choice ---------------------------------------------------------------------------

/// A site as the group's status shows it (what the operator's pollers last saw).
struct site_view {
  std::string name;
  site_role role = site_role::primary_candidate;
  std::string state;  // writable | read-only | unreachable | unknown
  bool replicating = false;
  std::optional<std::int64_t> lag;  // secondsBehindSource
};

/// The sites of `spec` with what `status` (the MysqlFailoverGroup's .status) says of them.
std::vector<site_view> sites_of(const config::group_spec& spec, const json& status);

struct source_choice {
  std::string site;    // empty: no usable source now
  std::string reason;  // why this site (or why none)
};

/// A caught-up replica first: a non-active, non-read-only-role site that is read-only,
/// replicating and at most `max_lag` seconds behind (least lag, then declared order); else the
/// active site when it is writable; else none. `override_site` (sourceSiteOverride) wins when it
/// names a reachable primary-candidate or dr-only site.
source_choice choose_source(const std::vector<site_view>& sites, const std::string& active,
                            std::int64_t max_lag, const std::string& override_site = {});

/// Group Replication mode (issue 23): the member decide/gr_backup_source.hpp picks from
/// status.groupReplication's agreed view (viewKnown, hasQuorum, members' state, role and
/// reachability) and the sites' gtidExecuted: an ONLINE SECONDARY holding the most transactions;
/// the PRIMARY only without one, or when `override_site` names it.
source_choice choose_gr_source(const config::group_spec& spec, const json& status,
                               const std::string& override_site = {});

// ---- retention -------------------------------------------------------------------------------

struct retained_backup {
  std::string name;
  std::string phase;       // Succeeded | Failed | Pending | Running | ""
  std::int64_t time_ms = 0;  // completionTime, else creationTimestamp
};

/// The names retention deletes among one profile's (non-deleting) backups, oldest first.
/// Succeeded: kept when among the newest `count` (count > 0), younger than `maxAgeDays`
/// (maxAgeDays > 0) or among the newest `minKeep`; with neither count nor maxAgeDays set every
/// Succeeded backup is kept. Failed: the newest `maxFailedKeep` are kept. Pending and Running are
/// never deleted.
std::vector<std::string> beyond_retention(std::vector<retained_backup> backups,
                                          const config::retention_policy_spec& policy,
                                          std::int64_t now_ms);

// ---- the backup Job's result -----------------------------------------------------------------

/// The JSON the backup Job wrote to its termination log (contract 4). Null when not JSON.
json parse_result(const std::string& termination_message);

// ---- one MysqlBackup -------------------------------------------------------------------------

/// A Job as the controller saw it.
struct job_view {
  bool exists = false;
  bool succeeded = false;
  bool failed = false;
  std::string message;  // the Failed condition's message
  /// The container's termination message (its newest pod), "" when none yet.
  std::string result;
  std::string source_site;  // annotations of the backup Job
  std::string active_site;
};

/// The group a backup names, as far as the controller knows it.
struct group_view {
  bool found = false;
  bool valid = false;  // parsed and validated; an invalid group changes nothing
  config::failover_group group;
  json status = json::object();
};

/// The view of a MysqlFailoverGroup object: parsed and validated (Kubernetes mode); a group being
/// deleted is not valid. Shared by the backup and verification controllers.
group_view view_of_group(const json& object);

enum class action_kind {
  add_finalizer,
  remove_finalizer,
  status,         // merge `body` into .status
  create_job,     // body: the Job (backup or cleanup)
  delete_job,     // name: the Job
  event,          // on the MysqlBackup
  delete_backup,  // retention
};

struct action {
  action_kind kind;
  std::string name;  // the Job for create/delete_job, else the MysqlBackup
  json body;
  std::string event_type;  // Normal | Warning
  std::string reason;
  std::string message;
};

/// Renders the Jobs the step may create (backup_render.hpp supplies them; a function here so the
/// step stays free of rendering details and its tests can see what was asked for).
struct job_renderers {
  std::function<json(const json& backup, const config::failover_group& g,
                     const config::backup_profile_spec& p, const std::string& source_site,
                     const std::string& active_site)>
      backup;
  std::function<json(const json& backup, const config::failover_group& g,
                     const config::backup_profile_spec& p)>
      cleanup;
};

struct backup_input {
  json backup;  // the MysqlBackup object
  group_view group;
  job_view backup_job;
  job_view cleanup_job;
  std::string now;  // RFC3339
};

/// What one MysqlBackup needs now: Pending -> Running (the Job created from the chosen source)
/// -> Succeeded | Failed (from the Job and its result); deleting: the backup Job stopped, then
/// the artifacts removed by a cleanup Job before the finalizer goes.
std::vector<action> decide_backup(const backup_input& in, const job_renderers& render);

// ---- CronJobs --------------------------------------------------------------------------------

struct cron_plan {
  std::vector<json> create;
  std::vector<json> update;  // with metadata.resourceVersion of the existing object
  std::vector<std::string> remove;
};

/// The objects to create (absent), update (their spec-hash annotation differs; the update
/// carries the existing resourceVersion) and remove (existing, not desired, not being deleted).
cron_plan plan_owned(std::vector<json> desired, const std::vector<json>& existing);

/// One CronJob per schedule; the existing ones (labelled component=backup-schedule for the
/// group) updated when their spec hash differs, removed when their schedule (or spec.backup) is
/// gone. Rendered through `render(schedule)`.
cron_plan plan_cronjobs(const config::failover_group& g, const std::vector<json>& existing,
                        const std::function<json(const config::backup_schedule_spec&)>& render);

}  // namespace br::backup_ctl
