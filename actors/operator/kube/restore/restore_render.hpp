// The restore Job (spec.initFromBackup): the project's own binary running `bloodraven restore`
// against the target site's Service, with the backup's store as BLOODRAVEN_BACKUP_* and, for a
// point in time, spec.backup.pitr's profile as BLOODRAVEN_PITR_* (S3 credentials as files from
// the profiles' Secrets, the operator account's username/password as files from the operator
// Secret: the pieces of the backup Job, backup_render.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/restore/restore_decide.hpp"

namespace br::restore_ctl {

/// Where the binlog archive is mounted in the restore Job (the backup store is at /backups).
inline constexpr const char* pitr_mount = "/pitr-archive";
inline constexpr const char* pitr_creds_dir = "/run/bloodraven/pitr-aws-creds";

/// mysqlrestore-<group>: owned by the group, labels app.kubernetes.io/component=restore and
/// shipstream.io/restore=<group>, backoffLimit 0 (a load that failed half way leaves a server the
/// next attempt would refuse), activeDeadlineSeconds from spec.backup (default 7200).
json render_restore_job(const config::failover_group& g, const restore_source& src,
                        const std::string& target, const backup_ctl::render_settings& r);

/// spec.restoreInPlace's Job (created by restore_in_place_pass.cpp): replace_job_name(<group>, confirm),
/// the same Job with `--replace` against the active site (component restore-in-place),
/// spec.restoreInPlace.pointInTime as the bound.
json render_replace_job(const config::failover_group& g, const restore_source& src,
                        const std::string& target, const backup_ctl::render_settings& r);

}  // namespace br::restore_ctl
