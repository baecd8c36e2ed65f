// Kubernetes router: the live role/healthy (and, Group Replication, reader) labels of a group's
// pods (the Services select by them).
#pragma once

#include <caf/actor_system.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/platform/kube_platform.hpp"
#include "messages/interfaces.hpp"

namespace br {

struct pod_role_labels {
  std::string role;     ///< "primary" | "replica"
  std::string healthy;  ///< "yes" | "no"
  std::string reader;   ///< Group Replication: "yes" | "no"; async: "" (label not managed)
  bool operator==(const pod_role_labels&) const = default;
};

/// Pure: the primary site's pods get role=primary healthy=yes; the listed replicas role=replica
/// healthy=yes; every other site (unreachable, lagging, old primary) role=replica healthy=no, so
/// neither Service sends traffic there. `group_replication`: `primary` is the group's ONLINE
/// PRIMARY and `healthy_replicas` its ONLINE SECONDARIES; both also get reader=yes (the
/// -readers Service: every ONLINE member), every other member reader=no (no Service at all).
pod_role_labels desired_pod_labels(const std::string& site, const std::string& primary,
                                   const std::vector<std::string>& healthy_replicas,
                                   bool group_replication = false);

/// Pure: the merge patch that gives `pod` those labels, or null when it already carries them.
nlohmann::json pod_label_patch(const nlohmann::json& pod, const pod_role_labels& want);

/// Pure: the label selector of a group's MySQL pods.
std::string group_pod_selector(const std::string& group);

/// Blocking: lists the group's pods and patches those whose labels differ. "" when every pod
/// carries its labels, else what failed (the other pods are still patched).
std::string sync_pod_labels(kube::client& c, const kube_platform_options& o,
                            const std::string& primary, const std::vector<std::string>& replicas);

/// Detached: (route, group, primary, replicas) -> true when every pod carries its labels.
/// Pods are patched in place: a role change never rolls a pod.
router_actor spawn_kube_router(caf::actor_system& sys, kube_platform_options o);

}  // namespace br
