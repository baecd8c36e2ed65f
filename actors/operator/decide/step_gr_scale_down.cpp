// step(): the scale-down of a Group Replication group (issue 23; decide/gr_scale_down.hpp for the
// rules). A member whose site was removed from the spec (rules.gr.leaving: in Kubernetes mode its
// workload still exists) is still polled; one at a time, while the smaller group keeps its
// majority, the leave is recorded durably (durable_state.gr.leaving, phase Stopping) and only then
// STOP GROUP_REPLICATION is sent to it (the PRIMARY is first handed to a staying member). Once it is
// out of every other member's view the record says Stopped, the quorum denominator starts again
// from the smaller group, and the reconciler deletes the site's workload (status.groupReplication
// .leaving). A record is dropped when its site is declared again or has no workload left.
#include <algorithm>
#include <string>

#include "actors/operator/decide/gr_scale_down.hpp"
#include "actors/operator/decide/step_context.hpp"
#include "messages/gtid_set.hpp"

namespace br::step_detail {

namespace {

bool declared(const context& c, const std::string& site) {
  return std::find(c.rules.sites.begin(), c.rules.sites.end(), site) != c.rules.sites.end();
}

bool leaving(const context& c, const std::string& site) {
  const auto& l = c.rules.gr.leaving;
  return std::find(l.begin(), l.end(), site) != l.end();
}

const gr_leave_record* record_of(const context& c, const std::string& site) {
  for (const auto& r : c.st.durable.gr.leaving)
    if (r.site == site) return &r;
  return nullptr;
}

/// The leaving member's MEMBER_ID: its own word this run, else the record's ("" = never read).
std::string member_id_of(const context& c, const std::string& site) {
  if (auto p = c.st.good_probes.find(site); p != c.st.good_probes.end() && !p->second.gr.member_id.empty())
    return p->second.gr.member_id;
  const auto* r = record_of(c, site);
  return r ? r->member_id : std::string{};
}

gr::scale_down_facts facts_of(const context& c) {
  const auto& g = c.st.gr;
  gr::scale_down_facts f;
  f.staying = gr_quorum_members(c);
  for (auto& m : f.staying)
    if (gr_snapshot_of(c, m.site))
      m.gtid_executed = gtid_set::parse(c.st.reports.at(m.site).probe.gtid_executed);
  f.view_known = g.evaluated && g.view.known;
  f.has_quorum = f.view_known && g.view.has_quorum;
  f.blocked = g.blocked || c.st.durable.gr.recovery_open;
  f.view_size = f.view_known ? g.view.members.size() : 0;
  f.switchover_target = g.switchover_target;
  for (const auto& site : c.rules.gr.leaving) {
    if (declared(c, site)) continue;
    gr::leaving_member m;
    m.site = site;
    if (const auto* r = record_of(c, site)) m.phase = r->phase;
    const std::string id = member_id_of(c, site);
    m.identified = !id.empty();
    if (const gr_snapshot* s = gr_snapshot_of(c, site)) {
      m.reachable = true;
      m.own_state = gr_own_state(*s);
    }
    if (f.view_known)
      for (const auto& v : g.view.members)
        if (!id.empty() && v.member_id == id) {
          m.in_view = true;
          m.state = v.state;
          m.role = v.role;
        }
    for (const auto& other : c.rules.sites)
      if (const gr_snapshot* s = gr_snapshot_of(c, other))
        for (const auto& row : s->rows)
          if (!id.empty() && row.member_id == id) m.listed_by_others = true;
    f.leaving.push_back(std::move(m));
  }
  return f;
}

/// The leave records with `site`'s set to `phase` (added when absent).
std::vector<gr_leave_record> with_phase(const context& c, const std::string& site,
                                        std::string_view phase) {
  auto out = c.st.durable.gr.leaving;
  auto it = std::find_if(out.begin(), out.end(), [&](const auto& r) { return r.site == site; });
  if (it == out.end()) it = out.insert(out.end(), gr_leave_record{site, {}, {}});
  it->member_id = member_id_of(c, site);
  it->phase = std::string{phase};
  return out;
}

void persist_leaving(context& c, std::vector<gr_leave_record> records, std::string stop = {},
                     std::optional<uint64_t> view_max_after = std::nullopt) {
  change_gr x;
  x.gr = c.st.durable.gr;
  x.gr.leaving = std::move(records);
  x.leave_update = true;
  x.leave_stop = std::move(stop);
  x.view_max_after = view_max_after;
  x.at_ms = c.wall_ms();
  persist(c, std::move(x));
}

}  // namespace

void gr_warn_group_size(context& c) {
  auto size = gr::check_group_size(c.rules.sites.size());
  if (size.verdict == gr::size_verdict::even_warning)
    c.alert_once("gr-size-even", "Warning", "GroupSizeEven",
                 "spec.sites declares an even number of members: " + size.message);
}

bool gr_scale_down(context& c) {
  auto& g = c.st.gr;
  const auto& d = c.st.durable.gr;
  // Records of sites declared again, or whose workload is gone (no longer leaving), are dropped.
  std::vector<gr_leave_record> kept;
  for (const auto& r : d.leaving)
    if (!declared(c, r.site) && leaving(c, r.site)) kept.push_back(r);
  if (kept != d.leaving) {
    persist_leaving(c, std::move(kept));
    return true;
  }
  auto choice = gr::next_gr_scale_down(facts_of(c));
  if (choice.site != g.leave_site || choice.reason != g.leave_note) status_changed(c, true);
  g.leave_site = choice.site;
  g.leave_note = choice.reason;
  auto f = c.fields(choice.site);
  f["reason"] = choice.reason;
  switch (choice.move) {
    case gr::scale_down_move::idle:
    case gr::scale_down_move::wait:
      return false;  // the rest of the step goes on (a staying member may need a START)
    case gr::scale_down_move::stopped:
      c.log(log_level::info, "leaving member out of the group", f);
      c.emit("Normal", "MemberRemoved", choice.reason, choice.site);
      persist_leaving(c, with_phase(c, choice.site, gr::leave_stopped), {}, choice.new_size);
      return true;
    case gr::scale_down_move::switchover: {
      auto answer = on_gr_switchover(c, choice.target);
      f["answer"] = answer;
      c.log(log_level::info, "scale-down hands the primary over", f);
      return answer.rfind("accepted", 0) == 0;
    }
    case gr::scale_down_move::record:
      // Recorded first: a restarted operator resumes the leave instead of forgetting it.
      c.emit("Normal", "MemberLeaving", choice.reason, choice.site);
      persist_leaving(c, with_phase(c, choice.site, gr::leave_stopping), choice.site);
      return true;
    case gr::scale_down_move::stop:
      gr_send(c, choice.site, mysql_op::gr_stop);
      return true;
  }
  return false;
}

void gr_leave_persisted(context& c, const change_gr& x, bool ok) {
  if (!ok) {
    c.log(log_level::warn, "scale-down record not stored; decided again next round",
          c.fields(x.leave_stop));
    return;
  }
  status_changed(c, true);
  if (!x.leave_stop.empty()) gr_send(c, x.leave_stop, mysql_op::gr_stop);
}

std::vector<config::gr_leaving_status> gr_leaving_status_of(const group_rules& rules,
                                                            const group_state& st) {
  std::vector<config::gr_leaving_status> out;
  for (const auto& site : rules.gr.leaving) {
    if (std::find(rules.sites.begin(), rules.sites.end(), site) != rules.sites.end()) continue;
    config::gr_leaving_status s;
    s.site = site;
    s.phase = "Waiting";
    if (auto p = st.good_probes.find(site); p != st.good_probes.end()) s.member_id = p->second.gr.member_id;
    for (const auto& r : st.durable.gr.leaving)
      if (r.site == site) {
        s.phase = r.phase;
        if (s.member_id.empty()) s.member_id = r.member_id;
      }
    if (site == st.gr.leave_site) s.message = st.gr.leave_note;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace br::step_detail
