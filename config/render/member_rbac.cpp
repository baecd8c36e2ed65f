// A Group Replication member pod's own identity: ServiceAccount, Role (its own pod only), binding.
#include "config/render/member_rbac.hpp"

#include <algorithm>

#include "config/render/names.hpp"

namespace br::render {

std::string member_identity_name(std::string_view group, std::string_view site) {
  return site_name(group, site) + "-member";
}

std::vector<json> render_member_rbac(const config::failover_group& g, const std::string& site,
                                     std::vector<std::string> pod_names, int reconciler_version) {
  const auto name = member_identity_name(g.metadata.name, site);
  std::sort(pod_names.begin(), pod_names.end());
  pod_names.erase(std::unique(pod_names.begin(), pod_names.end()), pod_names.end());
  pod_names.erase(std::remove(pod_names.begin(), pod_names.end(), std::string{}), pod_names.end());
  auto rules = json::array();
  if (!pod_names.empty())
    rules.push_back({{"apiGroups", json::array({""})},
                     {"resources", json::array({"pods"})},
                     {"verbs", json::array({"get", "patch"})},
                     {"resourceNames", pod_names}});
  auto meta = [&] { return object_metadata(g, name, site, reconciler_version); };
  json sa = {{"apiVersion", "v1"},
             {"kind", "ServiceAccount"},
             {"metadata", meta()},
             // The token is projected into the sidecar container only (never into mysqld's).
             {"automountServiceAccountToken", false}};
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "Role"},
               {"metadata", meta()},
               {"rules", rules}};
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "RoleBinding"},
                  {"metadata", meta()},
                  {"roleRef",
                   {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"},
                                             {"name", name},
                                             {"namespace", g.metadata.namespace_name}}})}};
  return {sa, role, binding};
}

}  // namespace br::render
