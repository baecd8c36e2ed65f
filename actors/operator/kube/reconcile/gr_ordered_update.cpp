// A Group Replication group's ordered update in Kubernetes mode: facts in, rollout step out.
#include "actors/operator/kube/reconcile/gr_ordered_update.hpp"

#include <algorithm>
#include <chrono>

namespace br {

using nlohmann::json;

gr::rollout_facts gr_rollout_facts(const config::group_spec& spec, const json& report,
                                   const config::group_status& status) {
  gr::rollout_facts f;
  const auto* g = status.group_replication ? &*status.group_replication : nullptr;
  if (g) {
    f.view_known = g->view_known;
    f.has_quorum = g->has_quorum;
    f.blocked = g->phase == "Blocked" || g->phase == "Recovering";
    f.switchover_target = g->switchover_target;
    if (g->view_known) f.view_id = g->view_id;
    f.group_size = static_cast<std::size_t>(std::max<std::int64_t>(g->observed_view_max, 0));
  }
  f.group_size = std::max(f.group_size, spec.sites.size());
  for (const auto& s : spec.sites) {
    gr::rollout_member m;
    m.site = s.name;
    if (report.contains("sites") && report["sites"].is_array())
      for (const auto& w : report["sites"])
        if (w.is_object() && w.value("name", "") == s.name) {
          m.drifted = !w.value("drift", json::array()).empty();
          m.workload_ready = w.value("ready", false);
        }
    if (g)
      for (const auto& v : g->members)
        if (v.name == s.name && g->view_known) {
          m.state = gr::parse_member_state(v.state);
          m.role = gr::parse_member_role(v.role);
        }
    for (const auto& st : status.sites)
      if (st.name == s.name) {
        if (st.last_seen) m.last_seen_ms = st.last_seen->time_since_epoch().count();
        if (!st.gtid_executed.empty() || st.last_seen)
          m.gtid_executed = gtid_set::parse(st.gtid_executed);
      }
    f.members.push_back(std::move(m));
  }
  return f;
}

gr::rollout_choice hold_for_scale_down(gr::rollout_choice c, const config::group_status& status) {
  if (c.move != gr::rollout_move::restart && c.move != gr::rollout_move::switchover) return c;
  if (!status.group_replication) return c;
  for (const auto& l : status.group_replication->leaving)
    if (l.phase != "Stopped") {
      c.move = gr::rollout_move::wait;
      c.site.clear();
      c.phase = "WaitingForMember";
      c.reason = l.site + " is leaving the group (scale-down): nothing is restarted until it is out";
      return c;
    }
  return c;
}

rollout_step gr_rollout_step(const gr::rollout_choice& c) {
  rollout_step out;
  out.phase = c.phase;
  out.reason = c.reason;
  out.rolling_done = c.rolling_done;
  out.stopped = c.stopped;
  switch (c.move) {
    case gr::rollout_move::idle: out.action = rollout_action::idle; break;
    case gr::rollout_move::wait: out.action = rollout_action::wait; break;
    case gr::rollout_move::restart:
      out.action = rollout_action::roll;
      out.sites = {c.site};
      break;
    case gr::rollout_move::switchover:
      out.action = rollout_action::switchover;
      out.target = c.site;
      break;
  }
  return out;
}

}  // namespace br
