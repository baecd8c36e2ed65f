// reconciler (Kubernetes mode, one per group): applies the rendered objects, syncs pod labels, rolls workloads.
#pragma once

#include <caf/actor.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/platform/kube_platform.hpp"
#include "actors/operator/kube/reconcile/ordered_update.hpp"
#include "messages/interfaces.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

/// Condition types the reconciler owns in status.
inline constexpr const char* condition_workload_ready = "WorkloadReady";
inline constexpr const char* condition_reconcile_success = "ReconcileSuccess";
/// Event reasons of the reconciler. PlannedFailoverStarted marks the handoff.
inline constexpr const char* reason_reconcile_failed = "ReconcileFailed";
inline constexpr const char* reason_workload_rolled = "WorkloadRolled";
inline constexpr const char* reason_planned_failover_started = "PlannedFailoverStarted";
/// A Group Replication rollout stopped: a restarted member did not come back ONLINE in time.
inline constexpr const char* reason_rollout_stopped = "RolloutStopped";

struct reconciler_options {
  kube_platform_options platform;
  std::string path;  ///< registry path (set by the child spec)
  /// The group supervisor, asked for (child, "coordinator"); set by reconciler_child.
  caf::actor supervisor;
  router_actor router;
  dns_actor dns;
  taint_actor taints;
  event_actor events;
  kube_status_writer_actor status;  ///< the group's status writer: (reconcile, json)
  std::chrono::milliseconds interval{10000};        ///< between passes when nothing rolls
  std::chrono::milliseconds busy_interval{2000};    ///< between passes while an update runs
  int64_t caught_up_lag_seconds = 0;
  /// Group Replication: how long a restarted member may take to be ONLINE again before the
  /// rollout stops (decide/gr_rollout.hpp).
  std::chrono::milliseconds gr_rejoin_timeout{std::chrono::minutes(10)};
  caf::timespan coordinator_timeout{std::chrono::seconds(5)};
  /// Wall clock for Event times, roll times and condition times (empty = system clock).
  wall_source wall_clock;
  /// Spawns the worker answering (reconcile) and (roll, version, site); empty = the detached
  /// reconcile_worker on `platform` (tests put a scripted one here).
  std::function<reconcile_worker_actor(caf::local_actor*)> make_worker;
};

/// Inputs of next_rollout_step from one pass: the worker's report (sites, drift, readiness)
/// and the coordinator's status (as JSON: the Kubernetes edge) (state, replication, lag, lastSeen, recoveryState) and view.
rollout_inputs rollout_facts(const config::group_spec& spec, const nlohmann::json& report,
                             const nlohmann::json& coordinator_status, const topology_view& view);

/// Pure: the sites whose pods should carry healthy=yes as replicas: read-only, replicating,
/// within maxLagSeconds (readers: readOnlyMaxLagSeconds), not being recovered.
std::vector<std::string> healthy_replicas(const config::group_spec& spec,
                                          const nlohmann::json& coordinator_status,
                                          const std::string& active_site);

/// What an async group's pod labels (and, with a primary, DNS and taints) follow now.
struct steering_target {
  std::string primary;  ///< "" = no pod labelled primary
  std::vector<std::string> replicas;
};

/// Pure: nullopt while the view is in transition or its active site was not seen writable (the
/// executor steers then); while an in-place restore freezes the group (the coordinator's
/// condition RestoreInPlaceFrozen True) no primary at all, so the restored site serves nothing
/// until the freeze is lifted and it is writable again: the router stays the labels' one writer.
std::optional<steering_target> async_steering(const config::group_spec& spec,
                                              const nlohmann::json& coordinator_status,
                                              const topology_view& view);

/// Pure: the reconciler's part of the status from one pass ("conditions" WorkloadReady and
/// ReconcileSuccess, "updatePhase", and "reconcileInfo" after a successful pass). `previous`
/// is the last part sent: a condition keeps its lastTransitionTime while its status holds.
/// `blocked_reason` (a Blocked update's reason) is added to WorkloadReady's message.
nlohmann::json reconciler_status(const nlohmann::json& report, const std::string& update_phase,
                                 const nlohmann::json& previous, const std::string& now,
                                 const std::string& blocked_reason = "");

/// The reconciler as a child of the group supervisor ("reconciler"). It spawns its detached
/// worker (reconcile_worker) and runs a pass every interval: apply objects; from a settled view
/// whose active site the coordinator saw writable, heal pod labels, the DNSEndpoint and taints
/// through the platform actors; take the next rollout step (next_rollout_step).
child_spec reconciler_child(reconciler_options o);

/// The same actor without a supervisor (tests).
reconciler_actor spawn_reconciler(caf::actor_system& sys, reconciler_options o);

}  // namespace br
