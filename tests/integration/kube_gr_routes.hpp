// Group Replication in Kubernetes (tests): which sites' pods the group's Services select, read from
// the live pods' labels and the Services' selectors (equality selectors, as the operator renders).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/kube/client.hpp"

namespace br::test {

/// Members ONLINE in a status.groupReplication object.
inline int online_members(const nlohmann::json& gr) {
  int n = 0;
  for (const auto& m : gr.value("members", nlohmann::json::array()))
    n += m.value("state", "") == "ONLINE";
  return n;
}

struct gr_routes {
  kube::client& c;
  std::string ns, group;
  std::vector<std::string> sites;

  /// The sites whose (only) pod the Service `mysql-<group>-<suffix>` selects.
  std::set<std::string> selected_by(const std::string& suffix) const {
    std::set<std::string> out;
    auto svc = c.get(kube::resources::services, ns, "mysql-" + group + "-" + suffix);
    if (!svc) return out;
    const auto sel = (*svc)["spec"].value("selector", nlohmann::json::object());
    for (const auto& s : sites) {
      kube::list_options lo;
      lo.label_selector = "shipstream.io/failover-group=" + group + ",shipstream.io/site=" + s;
      auto pods = c.list(kube::resources::pods, ns, lo);
      if (!pods || (*pods)["items"].size() != 1) continue;
      const auto labels = (*pods)["items"][0]["metadata"].value("labels", nlohmann::json::object());
      bool all = true;
      for (const auto& [k, v] : sel.items()) all = all && labels.contains(k) && labels[k] == v;
      if (all) out.insert(s);
    }
    return out;
  }

  /// -primary selects `primary` only, -replicas exactly `secondaries`, -readers both.
  bool are(const std::string& primary, const std::set<std::string>& secondaries) const {
    std::set<std::string> readers = secondaries;
    readers.insert(primary);
    return selected_by("primary") == std::set<std::string>{primary} &&
           selected_by("replicas") == secondaries && selected_by("readers") == readers;
  }

  std::string describe() const {
    std::string out;
    for (const char* svc : {"primary", "replicas", "readers"}) {
      out += std::string{out.empty() ? "" : " "} + svc + " [";
      for (const auto& s : selected_by(svc)) out += " " + s;
      out += " ]";
    }
    return out;
  }
};

}  // namespace br::test
