// Legacy (unaggregated) discovery: kubectl falls back to it when the reply is plain JSON.
#include "tests/support/kube_sim/discovery.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace br::kube_sim {

json core_versions() {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}}}};
}

namespace {

json group_entry(const std::string& name, const std::vector<std::string>& versions) {
  json vs = json::array();
  for (const auto& v : versions) vs.push_back({{"groupVersion", name + "/" + v}, {"version", v}});
  return {{"name", name}, {"versions", vs}, {"preferredVersion", vs.front()}};
}

std::map<std::string, std::vector<std::string>> groups_of(const std::vector<resource_type>& types) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& t : types) {
    if (t.group.empty()) continue;
    auto& vs = out[t.group];
    for (const auto& v : t.versions)
      if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
  }
  return out;
}

}  // namespace

json group_list(const std::vector<resource_type>& types) {
  json groups = json::array();
  for (const auto& [name, versions] : groups_of(types)) groups.push_back(group_entry(name, versions));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> group(const std::vector<resource_type>& types, const std::string& name) {
  auto all = groups_of(types);
  auto it = all.find(name);
  if (it == all.end()) return std::nullopt;
  json g = group_entry(name, it->second);
  g["kind"] = "APIGroup";
  g["apiVersion"] = "v1";
  return g;
}

std::optional<json> resource_list(const std::vector<resource_type>& types, const std::string& group,
                                  const std::string& version) {
  json resources = json::array();
  const json verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  for (const auto& t : types) {
    if (t.group != group || std::find(t.versions.begin(), t.versions.end(), version) == t.versions.end())
      continue;
    json r = {{"name", t.plural},      {"singularName", t.singular}, {"namespaced", t.namespaced},
              {"kind", t.kind},        {"verbs", verbs},             {"storageVersionHash", ""}};
    if (!t.short_names.empty()) r["shortNames"] = t.short_names;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(r);
    if (t.status_subresource) {
      resources.push_back({{"name", t.plural + "/status"},
                           {"singularName", ""},
                           {"namespaced", t.namespaced},
                           {"kind", t.kind},
                           {"verbs", {"get", "patch", "update"}}});
    }
  }
  if (resources.empty()) return std::nullopt;
  return json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", group.empty() ? version : group + "/" + version},
              {"resources", resources}};
}

std::string openapi_v2_protobuf() {
  // openapi_v2.Document { swagger = 1: "2.0"; info = 2: { title = 1: "kube-sim" } }
  auto field = [](int number, const std::string& payload) {
    std::string out;
    out.push_back(static_cast<char>((number << 3) | 2));  // length-delimited
    out.push_back(static_cast<char>(payload.size()));     // all payloads here are < 128 bytes
    return out + payload;
  };
  return field(1, "2.0") + field(2, field(1, "kube-sim"));
}

json openapi_v3_root() {
  return {{"paths", json::object()}};
}

json version_info() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-kube-sim"},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2025-01-01T00:00:00Z"},
          {"goVersion", "go1.23"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

}  // namespace br::kube_sim
