// Built-in kinds the operator touches, and kinds registered by applying a CRD.
#include <algorithm>

#include "tests/support/kube_sim/store.hpp"

namespace br::kube_sim {

namespace {

resource_type make(std::string group, std::string version, std::string kind, std::string plural,
                   bool namespaced, bool status, std::vector<std::string> short_names = {}) {
  resource_type t;
  t.group = std::move(group);
  t.versions = {std::move(version)};
  t.kind = std::move(kind);
  t.plural = std::move(plural);
  t.singular = t.kind;
  std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  t.namespaced = namespaced;
  t.status_subresource = status;
  t.short_names = std::move(short_names);
  return t;
}

}  // namespace

void store::add_builtin_types() {
  types_ = {
      make("", "v1", "Namespace", "namespaces", false, true, {"ns"}),
      make("", "v1", "Pod", "pods", true, true, {"po"}),
      make("", "v1", "Service", "services", true, true, {"svc"}),
      make("", "v1", "ConfigMap", "configmaps", true, false, {"cm"}),
      make("", "v1", "Secret", "secrets", true, false),
      make("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, true, {"pvc"}),
      make("", "v1", "Node", "nodes", false, true, {"no"}),
      make("", "v1", "Event", "events", true, false, {"ev"}),
      make("", "v1", "ServiceAccount", "serviceaccounts", true, false, {"sa"}),
      make("", "v1", "Endpoints", "endpoints", true, false, {"ep"}),
      make("apps", "v1", "Deployment", "deployments", true, true, {"deploy"}),
      make("apps", "v1", "StatefulSet", "statefulsets", true, true, {"sts"}),
      make("batch", "v1", "Job", "jobs", true, true),
      make("batch", "v1", "CronJob", "cronjobs", true, true, {"cj"}),
      make("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, true, {"pdb"}),
      make("coordination.k8s.io", "v1", "Lease", "leases", true, false),
      make("rbac.authorization.k8s.io", "v1", "Role", "roles", true, false),
      make("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, false),
      make("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
           false, true, {"crd", "crds"}),
      make("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
           "validatingwebhookconfigurations", false, false),
  };
}

void store::register_crd(const json& crd) {
  const json spec = crd.value("spec", json::object());
  const json names = spec.value("names", json::object());
  resource_type t;
  t.group = spec.value("group", std::string{});
  t.kind = names.value("kind", std::string{});
  t.plural = names.value("plural", std::string{});
  t.singular = names.value("singular", std::string{});
  if (t.singular.empty()) {
    t.singular = t.kind;
    std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  for (const auto& s : names.value("shortNames", json::array())) t.short_names.push_back(s);
  for (const auto& c : names.value("categories", json::array())) t.categories.push_back(c);
  t.namespaced = spec.value("scope", std::string{"Namespaced"}) == "Namespaced";
  t.crd_name = crd["metadata"].value("name", std::string{});
  for (const auto& v : spec.value("versions", json::array())) {
    if (!v.value("served", true)) continue;
    const std::string name = v.value("name", std::string{});
    t.versions.push_back(name);
    if (v.contains("subresources") && v["subresources"].contains("status")) t.status_subresource = true;
    if (v.contains("schema") && v["schema"].contains("openAPIV3Schema"))
      t.schemas[name] = std::make_shared<const json>(v["schema"]["openAPIV3Schema"]);
  }
  if (t.group.empty() || t.plural.empty() || t.kind.empty() || t.versions.empty()) return;
  std::erase_if(types_, [&](const resource_type& x) {
    return x.crd_name == t.crd_name || (x.group == t.group && x.plural == t.plural);
  });
  types_.push_back(std::move(t));
}

void store::unregister_crd(const std::string& crd_name) {
  auto it = std::find_if(types_.begin(), types_.end(),
                         [&](const resource_type& x) { return x.crd_name == crd_name; });
  if (it == types_.end()) return;
  const resource_type gone = *it;
  types_.erase(it);
  // Its objects go with it (the real server deletes them before removing the CRD).
  std::vector<std::string> keys;
  for (const auto& [k, o] : objects_[gone.key()]) keys.push_back(k);
  for (const auto& k : keys) erase(gone, k);
  objects_.erase(gone.key());
}

}  // namespace br::kube_sim
