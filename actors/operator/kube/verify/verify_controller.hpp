// The verification controller (Kubernetes mode): one detached actor that, every `interval` while
// this operator leads, lists the MysqlFailoverGroups, MysqlBackups, MysqlBackupVerifications and
// the CronJobs/Jobs it owns and applies the pure decisions of verify_decide.hpp: a CronJob
// mysql-<g>-verify-<profile> per profile whose verification is enabled, each verification's phase
// machine (its Job runs `bloodraven backup verify`; the result from the Job's termination
// message), retention per profile (keepSuccessful / keepFailures), Events on the verification and
// the bloodraven_backup_verification_* metrics. Options are the backup controller's.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/backup/backup_controller.hpp"
#include "messages/interfaces.hpp"

namespace br::verify_ctl {

namespace resources {
inline const kube::resource_ref mysqlbackupverifications{"shipstream.io", "v1alpha1", "mysqlbackupverifications", true};
}  // namespace resources

/// One pass (blocking; exposed for tests). Returns the number of API calls that failed.
int reconcile_verifications_once(const backup_ctl::controller_options& o);

/// The controller as a detached actor ticking every `interval`.
ticking_actor spawn_verify_controller(caf::actor_system& sys, backup_ctl::controller_options o);

}  // namespace br::verify_ctl
