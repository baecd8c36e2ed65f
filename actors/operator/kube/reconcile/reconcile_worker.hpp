// The reconciler's blocking half: one pass over a group's objects against the API (errors as values).
#pragma once

#include <caf/behavior.hpp>
#include <caf/event_based_actor.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/platform/kube_platform.hpp"
#include "config/failover_group.hpp"
#include "messages/interfaces.hpp"

namespace br {

/// One blocking pass: reads the group, adds the graceful-shutdown finalizer, renders its objects
/// with the reconciler version the group keeps (choose_reconciler_version), creates what is
/// absent, updates what differs (plan_object_write; never a Deployment that exists), deletes
/// my.cnf ConfigMaps no Deployment mounts any more, and reports each site's workload:
///   {"state": "ok"|"gone"|"terminating"|"invalid"|"error", "errors": [..], "version": n,
///    "generation": n, "created": [..], "updated": [..], "deleted": [..],
///    "sites": [{"name", "exists", "ready", "drift": [reasons]}]}
/// Every call carries o.call_timeout; nothing is written while the lease guard is invalid.
nlohmann::json reconcile_pass(kube::client& c, const kube_platform_options& o);

/// Blocking, part of reconcile_pass: creates or updates the group's Dragonfly objects
/// (render/dragonfly.hpp) and deletes those of its own (by label) no longer rendered: all of
/// them when spec.dragonfly is disabled or removed. Appends to the report like reconcile_pass.
/// False when not leading (stop the pass).
bool apply_dragonfly(kube::client& c, const kube_platform_options& o,
                     const config::failover_group& g, int version, nlohmann::json& report);

/// Blocking: replaces `site`'s Deployment with its rendered form (the rollout of that site),
/// from a fresh read, retried on 409. "" on success, else what failed.
std::string roll_site(kube::client& c, const kube_platform_options& o, int version,
                      const std::string& site);

/// The reconciler's detached worker: (reconcile) -> report JSON text;
/// (roll, version, site) -> "" or the error.
reconcile_worker_actor::behavior_type reconcile_worker(reconcile_worker_actor::pointer self,
                                                      kube_platform_options o);

}  // namespace br
