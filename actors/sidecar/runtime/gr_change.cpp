// The Group Replication change detector's pure rules (see gr_change.hpp).
#include "actors/sidecar/runtime/gr_change.hpp"

#include <algorithm>

#include "messages/fnv1a.hpp"

namespace br::sidecar {

gr_observation observe_gr(const mysql_outcome& out) {
  gr_observation o;
  if (!out.ok) return o;
  const auto& s = out.probe.gr;
  o.reachable = true;
  o.member_id = s.member_id;
  o.group_name = s.group_name;
  o.self_state = s.self_state;
  o.view_id = s.view_id;
  for (const auto& r : s.rows) o.members.push_back({r.member_id, r.state, r.role});
  std::sort(o.members.begin(), o.members.end(),
            [](const gr_seen_member& a, const gr_seen_member& b) { return a.member_id < b.member_id; });
  return o;
}

bool gr_changed(const std::optional<gr_observation>& last, const gr_observation& now) {
  return !last || !(*last == now);
}

std::chrono::steady_clock::time_point next_report_at(
    std::optional<std::chrono::steady_clock::time_point> last_sent,
    std::chrono::steady_clock::time_point now, std::chrono::nanoseconds min_gap) {
  if (!last_sent) return now;
  auto due = *last_sent + min_gap;
  return due > now ? due : now;
}

nlohmann::json gr_observation_json(const gr_observation& o) {
  nlohmann::json j = {{"reachable", o.reachable}};
  if (!o.reachable) return j;
  auto members = nlohmann::json::array();
  for (const auto& m : o.members)
    members.push_back({{"memberId", m.member_id}, {"state", m.state}, {"role", m.role}});
  j["memberId"] = o.member_id;
  j["groupName"] = o.group_name;
  j["selfState"] = o.self_state;
  j["viewId"] = o.view_id;
  j["members"] = std::move(members);
  return j;
}

std::string gr_observation_token(const gr_observation& o) {
  // FNV-1a over the canonical JSON: stable across processes and builds (std::hash is not).
  const std::string hex = fnv1a64_hex(gr_observation_json(o).dump());
  // Annotation values have no length limit of their own, but keep it short and readable.
  std::string view = o.reachable ? (o.view_id.empty() ? "noview" : o.view_id) : "unreachable";
  if (view.size() > 64) view.resize(64);
  return view + "/" + hex;
}

}  // namespace br::sidecar
