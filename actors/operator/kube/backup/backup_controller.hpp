// The backup controller (Kubernetes mode): one detached actor that, every `interval` while this
// operator leads, lists the MysqlFailoverGroups, MysqlBackups and the CronJobs/Jobs it owns and
// applies the pure decisions of backup_decide.hpp: a CronJob per spec.backup.schedules[] (none
// when spec.backup is absent; an invalid group changes nothing), each MysqlBackup's phase machine
// (Job creation from the chosen source, status from the Job's result), retention (objects beyond
// the profile's policy deleted; their artifacts first removed by a cleanup Job, the finalizer
// shipstream.io/mysqlbackup holds the object until then), Events and bloodraven_backup_* metrics.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br::backup_ctl {

namespace resources {
inline const kube::resource_ref jobs{"batch", "v1", "jobs", true};
inline const kube::resource_ref cronjobs{"batch", "v1", "cronjobs", true};
inline const kube::resource_ref mysqlbackups{"shipstream.io", "v1alpha1", "mysqlbackups", true};
}  // namespace resources

struct controller_options {
  std::shared_ptr<kube::client> client;
  std::vector<std::string> namespaces;          ///< empty = all namespaces
  std::shared_ptr<op::lease_guard> guard;       ///< no pass while it is not valid; null = none
  std::chrono::milliseconds interval{std::chrono::seconds(5)};
  render_settings render;
  std::string instance;  ///< Event reportingInstance
};

/// One pass (blocking; exposed for tests): what the controller does every interval. Returns
/// the number of API calls that failed (logged).
int reconcile_backups_once(const controller_options& o);

/// The controller as a detached actor ticking every `interval`.
ticking_actor spawn_backup_controller(caf::actor_system& sys, controller_options o);

/// The controller as a supervised child ("backup_controller").
child_spec backup_controller_child(controller_options o);

}  // namespace br::backup_ctl
