// RBAC authorisation for the API simulator: the rules a subject is bound to, the attributes of a
// request, and the API server's decision (pure), with the Forbidden Status it answers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace br::kube_sim {

/// One PolicyRule of a Role or ClusterRole (resource rules only; "*" matches anything).
struct policy_rule {
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;  ///< "plural" or "plural/subresource"
  std::vector<std::string> verbs;
  std::vector<std::string> resource_names;  ///< empty = every name
};

/// What a subject may do: rules bound cluster-wide (ClusterRoleBinding) and rules bound in one
/// namespace (RoleBinding to a Role or a ClusterRole).
struct rbac_policy {
  std::vector<policy_rule> cluster;
  std::map<std::string, std::vector<policy_rule>> namespaced;  ///< namespace -> rules
};

/// RBAC enforcement (opt-in): requests whose identity header is one of `identities` are
/// authorised as `user` against `policy` and refused with 403 Forbidden as a real API server
/// does. Every other identity (the tests' own clients, kubelets) stays unrestricted.
struct rbac_enforcement {
  std::vector<std::string> identities;
  std::string user;  ///< e.g. system:serviceaccount:bloodraven-system:bloodraven
  rbac_policy policy;
};

/// A resource request as the API server's authoriser sees it.
struct request_attributes {
  std::string verb;  ///< get list watch create update patch delete deletecollection
  std::string api_group;
  std::string resource;     ///< plural
  std::string subresource;  ///< "" or e.g. "status"
  std::string ns;           ///< "" = cluster-scoped or across all namespaces
  std::string name;         ///< "" for list, watch, create, deletecollection
};

/// Pure: the request's attributes from its method, path and whether ?watch=true was given;
/// nullopt for non-resource paths (discovery, /version, /healthz, /openapi), which every
/// authenticated user may read (system:discovery).
std::optional<request_attributes> attributes_of(const std::string& method, const std::string& path,
                                                bool watch);

/// Pure: whether one rule covers the request.
bool rule_allows(const policy_rule& r, const request_attributes& a);

/// Pure: whether `p` allows the request. Cluster rules apply everywhere; a namespace's rules
/// only to requests in that namespace (never to cluster-scoped or all-namespace requests).
bool allows(const rbac_policy& p, const request_attributes& a);

/// The 403 Status a real API server answers, e.g. `secrets "x" is forbidden: User
/// "system:serviceaccount:ns:sa" cannot delete resource "secrets" in API group "" in the
/// namespace "default"`.
nlohmann::json forbidden_status(const request_attributes& a, const std::string& user);

/// Pure: the policy bound to ServiceAccount `sa_ns`/`sa_name` by the given RBAC objects (Role,
/// ClusterRole, RoleBinding, ClusterRoleBinding as JSON; other kinds are ignored).
rbac_policy policy_for_service_account(const std::vector<nlohmann::json>& objects,
                                       const std::string& sa_ns, const std::string& sa_name);

/// Pure: the rules of a Role or ClusterRole object.
std::vector<policy_rule> rules_of_role(const nlohmann::json& role);

/// Pure: the API server's escalation check for a Role (or the Role a RoleBinding binds) in `ns`
/// created by a holder of `holder`: every verb on every resource (and resource name) the rules
/// grant must be allowed to the holder there. Returns what is not held ("verb group/resource
/// [name]"), empty when nothing. "*" in a granted rule is checked literally.
std::vector<std::string> escalations(const rbac_policy& holder, const std::string& ns,
                                     const std::vector<policy_rule>& granted);

/// The user name of a ServiceAccount: "system:serviceaccount:<ns>:<name>".
std::string service_account_user(const std::string& ns, const std::string& name);

}  // namespace br::kube_sim
