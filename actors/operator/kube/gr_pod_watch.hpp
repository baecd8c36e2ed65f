// gr-pod-watch (Kubernetes mode, Group Replication groups only; a child of the group
// supervisor): watches the group's pods (label shipstream.io/group=<group> in its namespace) and
// turns a change of a pod's gr-observed annotation (decide/gr_pod_doorbell.hpp) into a wake of
// every site poller of the group, exactly as a signed gr-observed report does
// (api/gr_doorbell.hpp wake_group_pollers). A wake carries no authority and each poller's wake
// gate rate-limits it, so a pod annotation anyone with pod patch rights sets can at most make
// the group poll sooner.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/platform/kube_platform.hpp"
#include "io/kube/reflector.hpp"

namespace br {

struct gr_pod_watch_options {
  kube_platform_options platform;  ///< client, ns, group, context (the sites to wake)
  kube::reflector_options reflector;  ///< its label selector is set to the group's
  std::chrono::milliseconds wake_timeout{2000};  ///< asking the supervisor for a poller
};

/// The watch as a child spec named "gr-pod-watch".
child_spec gr_pod_watch_child(gr_pod_watch_options o);

}  // namespace br
