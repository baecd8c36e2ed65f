// Kubernetes mode's Dragonfly traffic label: the labels of a group's cache pods
// (shipstream.io/dragonfly-role, shipstream.io/dragonfly-traffic) that the active Service
// <g>-dragonfly selects. The Dragonfly manager is their only writer (it calls these from its
// detached thread, in the order of its plan); the plans are pure (decide/dragonfly_labels.hpp).
#pragma once

#include <string>

#include "actors/operator/dragonfly/dragonfly_manager.hpp"
#include "actors/operator/kube/platform/kube_platform.hpp"

namespace br {

/// Makes `site`'s pod the only one the active Service selects: the other pods' master role is
/// removed first; the first write that fails ends it (a pod deleted meanwhile is no failure).
/// Writes only while the lease guard is valid (S8). "" on success, else why.
std::string label_dragonfly_master(kube::client& c, const kube_platform_options& o, const std::string& site);

/// Takes `site`'s pod out of the active Service (dragonfly-traffic=disabled). "" or why.
std::string strip_dragonfly_traffic(kube::client& c, const kube_platform_options& o, const std::string& site);

/// The two bound to a group's platform options (the manager's pod_traffic).
dragonfly::pod_traffic dragonfly_pod_traffic(kube_platform_options o);

}  // namespace br
