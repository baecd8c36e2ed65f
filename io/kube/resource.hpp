// Names a Kubernetes resource (group/version/plural) and builds its REST paths.
#pragma once

#include <string>

namespace br::kube {

struct resource_ref {
  std::string group;  // "" for core
  std::string version;
  std::string plural;
  bool namespaced = true;

  /// /api/v1[/namespaces/ns]/plural[/name[/sub]] or /apis/group/version/...
  std::string path(const std::string& ns = {}, const std::string& name = {},
                   const std::string& sub = {}) const {
    std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced && !ns.empty()) p += "/namespaces/" + ns;
    p += "/" + plural;
    if (!name.empty()) p += "/" + name;
    if (!sub.empty()) p += "/" + sub;
    return p;
  }
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

namespace resources {
inline const resource_ref leases{"coordination.k8s.io", "v1", "leases", true};
inline const resource_ref events{"", "v1", "events", true};
inline const resource_ref namespaces{"", "v1", "namespaces", false};
inline const resource_ref pods{"", "v1", "pods", true};
inline const resource_ref configmaps{"", "v1", "configmaps", true};
inline const resource_ref secrets{"", "v1", "secrets", true};
inline const resource_ref serviceaccounts{"", "v1", "serviceaccounts", true};
inline const resource_ref crds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
inline const resource_ref nodes{"", "v1", "nodes", false};
inline const resource_ref services{"", "v1", "services", true};
inline const resource_ref pvcs{"", "v1", "persistentvolumeclaims", true};
inline const resource_ref deployments{"apps", "v1", "deployments", true};
inline const resource_ref statefulsets{"apps", "v1", "statefulsets", true};
inline const resource_ref pdbs{"policy", "v1", "poddisruptionbudgets", true};
inline const resource_ref roles{"rbac.authorization.k8s.io", "v1", "roles", true};
inline const resource_ref rolebindings{"rbac.authorization.k8s.io", "v1", "rolebindings", true};
/// external-dns's DNSEndpoint (its CRD is installed with external-dns, not by us).
inline const resource_ref dnsendpoints{"externaldns.k8s.io", "v1alpha1", "dnsendpoints", true};
/// Ours: the failover groups.
inline const resource_ref mysqlfailovergroups{"shipstream.io", "v1alpha1", "mysqlfailovergroups",
                                             true};
}  // namespace resources

}  // namespace br::kube
