// The Kubernetes identity of one Group Replication member's pod (issue 22, the gr-observed
// doorbell): a ServiceAccount per site, a Role that may only get and patch that site's own
// pod(s) (by resourceNames), and the RoleBinding between them. The sidecar rings the doorbell
// by patching an annotation on its own Pod; it must not be able to touch any other object.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/failover_group.hpp"

namespace br::render {

using json = nlohmann::json;

/// The annotation the sidecar sets on its own Pod on each change of its member's view; its value
/// is a token of the observation (the view id and a digest), never read as authority.
inline constexpr const char* gr_observed_annotation = "bloodraven.shipstream.io/gr-observed";

/// The projected volume with the member ServiceAccount's token, mounted into the sidecar only,
/// where the in-cluster client reads it (io/kube/config.hpp in_cluster_paths).
inline constexpr const char* member_token_volume = "member-token";
inline constexpr const char* member_token_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

/// "mysql-<group>-<site>-member": the site's ServiceAccount, Role and RoleBinding.
std::string member_identity_name(std::string_view group, std::string_view site);

/// ServiceAccount, Role, RoleBinding (in that order) for `site`. The Role's one rule names
/// `pod_names` (the site's current pods); with none known it has no rule at all (a rule without
/// resourceNames would cover every pod of the namespace).
std::vector<json> render_member_rbac(const config::failover_group& g, const std::string& site,
                                     std::vector<std::string> pod_names, int reconciler_version);

}  // namespace br::render
