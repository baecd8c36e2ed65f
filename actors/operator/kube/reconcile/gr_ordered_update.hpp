// A Group Replication group's ordered update in Kubernetes mode: the facts of decide/gr_rollout
// from one reconcile pass (the worker's workload report and the coordinator's typed status), and
// its choice as the reconciler's rollout step.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/decide/gr_rollout.hpp"
#include "actors/operator/kube/reconcile/ordered_update.hpp"
#include "config/group_spec.hpp"
#include "messages/group_status.hpp"

namespace br {

/// Pure: each declared site's drift and readiness from `report` ("sites": name, drift, ready),
/// its state and role in the agreed view, its last good poll and gtid_executed from `status`.
gr::rollout_facts gr_rollout_facts(const config::group_spec& spec, const nlohmann::json& report,
                                   const config::group_status& status);

/// Pure: while a member leaves the group (status.groupReplication.leaving[] not Stopped: the
/// scale-down, decide/gr_scale_down.hpp) a restart or switchover becomes a wait, so the two never
/// take members out at the same time.
gr::rollout_choice hold_for_scale_down(gr::rollout_choice choice, const config::group_status& status);

/// Pure: the rollout step of a Group Replication choice (restart = roll one Deployment).
rollout_step gr_rollout_step(const gr::rollout_choice& choice);

}  // namespace br
