// Kubernetes node taints: shipstream.io/db-readonly-<g>=true:NoExecute on a site's nodes (taintNodeSelector).
#pragma once

#include <caf/actor_system.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/platform/kube_platform.hpp"
#include "config/group_spec.hpp"
#include "messages/interfaces.hpp"

namespace br {

/// Pure: "k1=v1,k2=v2" (keys sorted) from a taintNodeSelector.
std::string label_selector(const config::string_map& selector);

/// Pure: whether a node's spec.taints carries the group's readonly taint.
bool has_readonly_taint(const nlohmann::json& node_taints, const std::string& group);

/// Pure: whether the group's readonly taint may be added to a node with these metadata.labels:
/// only when they carry shipstream.io/site.<group>=<site> (config::site_node_label), whatever
/// the selector said (defence in depth behind the validator's rule).
bool may_taint_node(const nlohmann::json& node_labels, const std::string& group,
                    const std::string& site);

/// Blocking: adds (`present`) or removes the group's readonly taint on every node the selector
/// picks; each node is a read-modify-write retried on 409, nodes already right are not written
/// (idempotent). A node outside `site` (may_taint_node) is never tainted and is reported; removal
/// is not restricted (it only drops this group's own taint). "" on success, else what failed (the
/// other nodes are still handled). `written`, when given, counts the nodes actually updated.
std::string set_nodes_taint(kube::client& c, const kube_platform_options& o,
                            const std::string& site, const config::string_map& selector,
                            bool present, size_t* written = nullptr);

/// Detached: (taint, group, site, on) -> true when the site's nodes carry (on) or lack (off) the
/// taint. Sites without a taintNodeSelector, and readers, have nothing to do (true).
taint_actor spawn_kube_taints(caf::actor_system& sys, kube_platform_options o);

}  // namespace br
