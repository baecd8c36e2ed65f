// The operator's side of the Group Replication doorbell (see gr_doorbell.hpp).
#include "actors/operator/api/gr_doorbell.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/common/child_lookup.hpp"
#include "messages/atoms.hpp"
#include "messages/interfaces.hpp"

namespace br {

namespace {

/// "" when `j[f]` is absent or a string; else the error naming `path.f`.
std::string optional_string(const nlohmann::json& j, const char* f, const std::string& path) {
  if (j.contains(f) && !j[f].is_string()) return path + "." + f + " must be a string";
  return {};
}

}  // namespace

std::string check_gr_observed_report(const nlohmann::json& j) {
  if (!j.is_object()) return "body must be a JSON object";
  for (const char* f : {"site", "namespace", "group"})
    if (!j.contains(f) || !j[f].is_string() || j[f].get<std::string>().empty())
      return std::string(f) + " must be a non-empty string";
  if (!j.contains("sentAtMs") || !j["sentAtMs"].is_number_unsigned() ||
      j["sentAtMs"].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return "sentAtMs must be a non-negative integer below 2^63";
  if (!j.contains("gr") || !j["gr"].is_object()) return "gr must be an object";
  const auto& g = j["gr"];
  if (!g.contains("reachable") || !g["reachable"].is_boolean())
    return "gr.reachable must be a boolean";
  for (const char* f : {"memberId", "groupName", "selfState", "viewId"})
    if (auto e = optional_string(g, f, "gr"); !e.empty()) return e;
  if (g.contains("members")) {
    const auto& m = g["members"];
    if (!m.is_array()) return "gr.members must be an array";
    if (m.size() > 9) return "gr.members: a group has at most 9 members";
    for (size_t i = 0; i < m.size(); ++i) {
      auto path = "gr.members[" + std::to_string(i) + "]";
      if (!m[i].is_object()) return path + " must be an object";
      for (const char* f : {"memberId", "state", "role"})
        if (auto e = optional_string(m[i], f, path); !e.empty()) return e;
    }
  }
  return {};
}

void wake_group_pollers(caf::actor_system& sys, const group_table::entry& e,
                        std::chrono::milliseconds timeout) {
  if (!e.supervisor) return;
  auto supervisor = e.supervisor;
  auto sites = e.sites;
  sys.spawn([=](caf::event_based_actor* self) {
    for (const auto& site : sites)
      ask_child<site_poller_actor>(
          self, supervisor, "poller:" + site, timeout,
          [=](site_poller_actor p) { self->send(p, wake_atom::value); },
          [](caf::error&) {});  // not running (restarting): its own tick polls soon
  });
}

}  // namespace br
