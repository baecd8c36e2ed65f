// Pure decisions of the verification controller (Kubernetes mode, MysqlBackupVerification): which
// backup a verification restores (backupRef, else the newest Succeeded backup of its group and
// profile), its phase machine (Pending -> Provisioning -> Restoring -> Cleaning -> Succeeded |
// Failed; the Job that runs `bloodraven backup verify`, its result from the termination
// message, the Job deleted unless it failed and keepOnFailure holds it), which verifications
// retention deletes, and the CronJobs of the profiles' verification schedules. Values in, values
// out: verify_controller.cpp applies the actions.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "config/verification_spec.hpp"

namespace br::verify_ctl {

using json = nlohmann::json;
using backup_ctl::group_view;
using backup_ctl::job_view;

/// Label on the verification Job and its pods: the MysqlBackupVerification's name.
inline constexpr std::string_view label_verification = "shipstream.io/mysqlbackupverification";
/// Label on the verification CronJobs: the profile.
inline constexpr std::string_view label_verify_profile = "shipstream.io/verify-profile";

/// "mysqlverify-<name>" (validation keeps names at most 51 characters).
std::string verify_job_name(std::string_view verification);
/// "mysql-<group>-verify-<profile>" (reference §3.15).
std::string verify_cronjob_name(std::string_view group, std::string_view profile);

/// The profile's verification settings (spec.backup.profiles[].verification), nullopt when
/// absent or unreadable (validation refuses the group then).
std::optional<config::verification_spec> profile_verification(const config::backup_profile_spec& p);

/// A MysqlBackup as the choice needs it.
struct backup_entry {
  std::string name, uid, group, profile, phase, completion_time, location, storage_type;
};
backup_entry backup_entry_of(const json& mysqlbackup);

struct backup_choice {
  std::optional<backup_entry> backup;
  std::string wait;    ///< not yet (the named backup is still Pending/Running)
  std::string failed;  ///< never (not found, other group/profile, Failed, none Succeeded)
};
/// backupRef when set (must be this group's and profile's, Succeeded), else the newest Succeeded
/// backup of the group and profile (completionTime, then name).
backup_choice choose_backup(const std::vector<backup_entry>& backups, const std::string& group,
                            const std::string& profile, const std::string& backup_ref);

enum class action_kind { status, create_job, delete_job, event };

struct action {
  action_kind kind;
  std::string name;  ///< the Job for create/delete_job, else the verification
  json body;         ///< status: merged into .status; create_job: the Job
  std::string event_type;
  std::string reason;
  std::string message;
};

/// Renders the verification Job (verify_render.hpp).
using job_renderer = std::function<json(const json& verification, const config::failover_group& g,
                                        const config::backup_profile_spec& p,
                                        const config::verification_run_spec& run, const backup_entry& backup)>;

struct verify_input {
  json verification;  ///< the MysqlBackupVerification
  group_view group;
  std::vector<backup_entry> backups;  ///< the namespace's MysqlBackups
  job_view job;                       ///< mysqlverify-<name>; result = its termination message
  bool job_deleting = false;          ///< the Job has a deletionTimestamp
  bool pod_running = false;           ///< a pod of the Job has a running container
  std::string pod_name;               ///< that pod
  std::string now;                    ///< RFC3339
};

std::vector<action> decide_verification(const verify_input& in, const job_renderer& render);

/// The names retention deletes among one profile's verifications (Succeeded beyond the newest
/// keepSuccessful, Failed beyond the newest keepFailures; others never), oldest first.
std::vector<std::string> verifications_beyond_retention(const std::vector<backup_ctl::retained_backup>& items,
                                                        const config::verification_retention_spec& policy,
                                                        std::int64_t now_ms);

/// One CronJob per profile with verification enabled (and a schedule); existing ones updated
/// when their spec hash differs, removed when no longer wanted. `render(profile, verification)`.
backup_ctl::cron_plan plan_verify_cronjobs(
    const config::failover_group& g, const std::vector<json>& existing,
    const std::function<json(const config::backup_profile_spec&, const config::verification_spec&)>& render);

}  // namespace br::verify_ctl
