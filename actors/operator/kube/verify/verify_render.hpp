// Renderers of the verification controller's objects: the Job that runs `bloodraven backup
// verify` (a scratch emptyDir at /verify for the throwaway mysqld, storage.size its sizeLimit;
// the profile's store as BLOODRAVEN_BACKUP_*, spec.backup.pitr's archive as BLOODRAVEN_PITR_*
// when the run replays; built from the backup Job's pieces, backup_render.hpp), and the CronJob
// per enabled profile (`bloodraven trigger-verification`, as the trigger ServiceAccount).
#pragma once

#include <nlohmann/json.hpp>

#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/verify/verify_decide.hpp"

namespace br::verify_ctl {

inline constexpr const char* scratch_mount = "/verify";
inline constexpr const char* pitr_mount = "/pitr-archive";
inline constexpr const char* pitr_creds_dir = "/run/bloodraven/pitr-aws-creds";

/// The `bloodraven backup verify` arguments of a run (pure).
json verify_args(const config::verification_run_spec& run, const std::string& backup);

json render_verify_job(const json& verification, const config::failover_group& g,
                       const config::backup_profile_spec& p, const config::verification_run_spec& run,
                       const backup_entry& backup, const backup_ctl::render_settings& r);

json render_verify_cronjob(const config::failover_group& g, const config::backup_profile_spec& p,
                           const config::verification_spec& v, const backup_ctl::render_settings& r);

}  // namespace br::verify_ctl
