// RBAC authorisation for the API simulator (pure): request attributes, rule matching, bindings.
#include "tests/support/kube_sim/rbac.hpp"
#include "tests/support/kube_sim/store_util.hpp"

#include <algorithm>

namespace br::kube_sim {

using nlohmann::json;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end() || std::find(v.begin(), v.end(), "*") != v.end();
}

std::vector<std::string> strings(const json& a) {
  std::vector<std::string> out;
  if (!a.is_array()) return out;
  for (const auto& v : a)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::vector<policy_rule> rules_of(const json& role) {
  std::vector<policy_rule> out;
  for (const auto& r : role.value("rules", json::array())) {
    if (!r.is_object()) continue;
    out.push_back({strings(r.value("apiGroups", json::array())), strings(r.value("resources", json::array())),
                   strings(r.value("verbs", json::array())), strings(r.value("resourceNames", json::array()))});
  }
  return out;
}

bool binds(const json& binding, const std::string& sa_ns, const std::string& sa_name) {
  for (const auto& s : binding.value("subjects", json::array())) {
    if (!s.is_object()) continue;
    const auto kind = s.value("kind", "");
    if (kind == "ServiceAccount" && s.value("name", "") == sa_name && s.value("namespace", "") == sa_ns)
      return true;
    if (kind == "User" && s.value("name", "") == service_account_user(sa_ns, sa_name)) return true;
    if (kind == "Group") {
      const auto g = s.value("name", "");
      if (g == "system:serviceaccounts" || g == "system:serviceaccounts:" + sa_ns || g == "system:authenticated")
        return true;
    }
  }
  return false;
}

}  // namespace

std::string service_account_user(const std::string& ns, const std::string& name) {
  return "system:serviceaccount:" + ns + ":" + name;
}

std::optional<request_attributes> attributes_of(const std::string& method, const std::string& path,
                                                bool watch) {
  const auto seg = split_path(path);
  std::size_t at;
  request_attributes a;
  if (seg.size() >= 3 && seg[0] == "api") {
    at = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    a.api_group = seg[1];
    at = 3;
  } else {
    return std::nullopt;  // /api, /apis, /apis/<g>, /version, /openapi/..., /healthz
  }
  std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(at), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces" &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    a.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty()) return std::nullopt;
  a.resource = rest[0];
  if (rest.size() >= 2) a.name = rest[1];
  if (rest.size() >= 3) a.subresource = rest[2];
  const bool named = !a.name.empty();
  if (method == "GET" || method == "HEAD")
    a.verb = named ? "get" : watch ? "watch" : "list";
  else if (method == "POST")
    a.verb = "create";
  else if (method == "PUT")
    a.verb = "update";
  else if (method == "PATCH")
    a.verb = "patch";
  else if (method == "DELETE")
    a.verb = named ? "delete" : "deletecollection";
  else
    a.verb = method;  // matches no rule but "*"
  return a;
}

bool rule_allows(const policy_rule& r, const request_attributes& a) {
  if (!has(r.verbs, a.verb) || !has(r.api_groups, a.api_group)) return false;
  const std::string res = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  // As the API server: "*", the exact "plural[/sub]", or "*/sub" for any resource's subresource.
  const bool resource_ok =
      has(r.resources, res) ||
      (!a.subresource.empty() &&
       std::find(r.resources.begin(), r.resources.end(), "*/" + a.subresource) != r.resources.end());
  if (!resource_ok) return false;
  if (r.resource_names.empty()) return true;
  // Names restrict requests that name an object; list/watch/create carry none and are refused.
  return !a.name.empty() && std::find(r.resource_names.begin(), r.resource_names.end(), a.name) !=
                                r.resource_names.end();
}

bool allows(const rbac_policy& p, const request_attributes& a) {
  for (const auto& r : p.cluster)
    if (rule_allows(r, a)) return true;
  if (a.ns.empty()) return false;
  auto it = p.namespaced.find(a.ns);
  if (it == p.namespaced.end()) return false;
  for (const auto& r : it->second)
    if (rule_allows(r, a)) return true;
  return false;
}

json forbidden_status(const request_attributes& a, const std::string& user) {
  const std::string qualified = a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
  const std::string res = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  std::string msg = qualified + (a.name.empty() ? "" : " \"" + a.name + "\"") + " is forbidden: User \"" +
                    user + "\" cannot " + a.verb + " resource \"" + res + "\" in API group \"" +
                    a.api_group + "\"" +
                    (a.ns.empty() ? std::string{" at the cluster scope"} : " in the namespace \"" + a.ns + "\"");
  json details = {{"kind", a.resource}};
  if (!a.name.empty()) details["name"] = a.name;
  if (!a.api_group.empty()) details["group"] = a.api_group;
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", json::object()},
          {"status", "Failure"},
          {"message", msg},
          {"reason", "Forbidden"},
          {"details", details},
          {"code", 403}};
}

std::vector<policy_rule> rules_of_role(const json& role) { return rules_of(role); }

std::vector<std::string> escalations(const rbac_policy& holder, const std::string& ns,
                                     const std::vector<policy_rule>& granted) {
  std::vector<std::string> out;
  for (const auto& r : granted) {
    auto names = r.resource_names.empty() ? std::vector<std::string>{""} : r.resource_names;
    for (const auto& g : r.api_groups)
      for (const auto& res : r.resources)
        for (const auto& v : r.verbs)
          for (const auto& n : names) {
            request_attributes a;
            a.verb = v;
            a.api_group = g;
            auto slash = res.find('/');
            a.resource = res.substr(0, slash);
            if (slash != std::string::npos) a.subresource = res.substr(slash + 1);
            a.ns = ns;
            a.name = n;
            if (!allows(holder, a)) out.push_back(v + " " + g + "/" + res + (n.empty() ? "" : " " + n));
          }
  }
  return out;
}

rbac_policy policy_for_service_account(const std::vector<json>& objects, const std::string& sa_ns,
                                       const std::string& sa_name) {
  std::map<std::string, const json*> cluster_roles;          // name -> ClusterRole
  std::map<std::string, const json*> roles;                  // "ns/name" -> Role
  for (const auto& o : objects) {
    if (!o.is_object()) continue;
    const auto kind = o.value("kind", "");
    const auto md = o.value("metadata", json::object());
    if (kind == "ClusterRole") cluster_roles[md.value("name", "")] = &o;
    if (kind == "Role") roles[md.value("namespace", "") + "/" + md.value("name", "")] = &o;
  }
  rbac_policy p;
  for (const auto& o : objects) {
    if (!o.is_object()) continue;
    const auto kind = o.value("kind", "");
    if ((kind != "ClusterRoleBinding" && kind != "RoleBinding") || !binds(o, sa_ns, sa_name)) continue;
    const auto ref = o.value("roleRef", json::object());
    const auto ref_kind = ref.value("kind", "");
    const auto ref_name = ref.value("name", "");
    const auto binding_ns = o.value("metadata", json::object()).value("namespace", "");
    const json* role = nullptr;
    if (ref_kind == "ClusterRole") {
      auto it = cluster_roles.find(ref_name);
      if (it != cluster_roles.end()) role = it->second;
    } else if (ref_kind == "Role" && kind == "RoleBinding") {
      auto it = roles.find(binding_ns + "/" + ref_name);
      if (it != roles.end()) role = it->second;
    }
    if (!role) continue;  // a binding to a missing role grants nothing
    auto rules = rules_of(*role);
    auto& into = kind == "ClusterRoleBinding" ? p.cluster : p.namespaced[binding_ns];
    into.insert(into.end(), rules.begin(), rules.end());
  }
  return p;
}

}  // namespace br::kube_sim
