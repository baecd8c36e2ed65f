// The Kubernetes doorbell of a Group Replication member (issue 22): the sidecar sets the
// annotation bloodraven.shipstream.io/gr-observed on its own Pod to a token of each new
// observation, so the operator's watch of the group's pods sees the change at once. The Pod is
// the only object its identity may patch (config/render/member_rbac.hpp). A wake-up only: the
// value is never read as authority.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "io/kube/client.hpp"
#include "messages/atoms.hpp"

namespace br::sidecar {

/// The merge patch that sets the annotation to `token`.
nlohmann::json pod_doorbell_patch(const std::string& token);

/// Patches the annotation on `ns`/`pod` (blocking, bounded by `timeout`).
kube::result<nlohmann::json> ring_pod_doorbell(kube::client& c, const std::string& ns,
                                               const std::string& pod, const std::string& token,
                                               std::chrono::milliseconds timeout);

/// Pure: how long after the `failures`-th failed patch in a row (>= 1) the same token is tried
/// again: 500 ms doubling, at most 30 s. A new pod's Role names it only from the operator's
/// next reconcile pass, so the first patches of a new pod are Forbidden; a newer token replaces
/// the one being retried.
std::chrono::milliseconds pod_doorbell_retry_delay(int failures);

/// (annotate, token) -> "" or what failed: one patch at a time on a detached thread.
using pod_doorbell_actor =
    caf::typed_actor<caf::replies_to<annotate_atom, std::string>::with<std::string>>;

struct pod_doorbell_options {
  std::shared_ptr<kube::client> client;
  std::string pod_namespace, pod_name;
  std::chrono::milliseconds timeout{5000};
};

pod_doorbell_actor spawn_pod_doorbell(caf::actor_system& sys, pod_doorbell_options o);

}  // namespace br::sidecar
