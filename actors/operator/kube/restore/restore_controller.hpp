// The restore controller (Kubernetes mode, spec.initFromBackup and spec.restoreInPlace, the latter
// in restore_in_place_pass.hpp): one detached actor that, every
// `interval` while this operator leads, lists the MysqlFailoverGroups and the restore Jobs and
// applies decide_restore (restore_decide.hpp) to every valid group with spec.initFromBackup:
// the MysqlBackup it names read, the target's Deployment (the bootstrap's seed site) read, the
// restore Job created (restore_render.hpp), status.restore merge-patched phase by phase, the Job
// deleted on success and kept on failure, Events on the group (RestoreStarted,
// RestoreSucceeded, RestoreFailed, RestoreTargetUnavailable) and bloodraven_restore_* metrics.
// The group's bootstrap is held meanwhile by its coordinator (group_rules::restore_hold).
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br::restore_ctl {

/// A request to a group's coordinator (namespace, group, key, value) -> its answer; nullopt when
/// it was not reached or did not answer (asked again on a later pass).
using group_asker = std::function<std::optional<std::string>(const std::string&, const std::string&,
                                                             const std::string&, const std::string&)>;

struct controller_options {
  std::shared_ptr<kube::client> client;
  std::vector<std::string> namespaces;     ///< empty = all namespaces
  std::shared_ptr<op::lease_guard> guard;  ///< no pass while it is not valid; null = none
  std::chrono::milliseconds interval{std::chrono::seconds(5)};
  backup_ctl::render_settings render;  ///< image and site addresses, as the backup Jobs'
  std::string instance;                ///< Event reportingInstance
  /// spec.restoreInPlace's freeze, lift and reclones (restore_in_place_pass.hpp: ask_through the
  /// group source); empty: an in-place restore waits at Preflight.
  group_asker ask_group;
  /// How long Fencing may wait (restore_in_place.hpp fencing_deadline; tests shorten it).
  std::chrono::milliseconds fencing_deadline{std::chrono::minutes(5)};
};

/// One pass (blocking; exposed for tests). Returns the number of API calls that failed.
int reconcile_restores_once(const controller_options& o);

/// The controller as a detached actor ticking every `interval`.
ticking_actor spawn_restore_controller(caf::actor_system& sys, controller_options o);

}  // namespace br::restore_ctl
