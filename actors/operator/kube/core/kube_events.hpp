// Kubernetes Event sink for one group: group_event -> core/v1 Event on the MysqlFailoverGroup.
#pragma once

#include <caf/actor_system.hpp>

#include <memory>
#include <string>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br {

struct kube_events_options {
  std::shared_ptr<kube::client> client;
  std::string ns;
  std::string group;
  std::string group_uid;
  std::string instance;  ///< reportingInstance (the pod name)
  std::shared_ptr<op::lease_guard> guard;  ///< records nothing while not valid (S8); null = always
};

/// Detached: each event is one blocking create (or de-duplicating patch) with the client's
/// deadline; failures are logged, never retried (Events are best effort; logs and metrics
/// carry the same facts).
event_actor spawn_kube_events(caf::actor_system& sys, kube_events_options o);

}  // namespace br
