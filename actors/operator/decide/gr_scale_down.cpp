// The scale-down of a Group Replication group: which leaving member is stopped next, or why none.
#include "actors/operator/decide/gr_scale_down.hpp"

#include <algorithm>

#include "actors/operator/decide/gtid_rank.hpp"

namespace br::gr {

namespace {

bool settled(const leaving_member& m) { return m.phase == leave_stopped; }

bool out_of_group(const scale_down_facts& f, const leaving_member& m) {
  return m.identified && f.view_known && !m.in_view && !m.listed_by_others &&
         (!m.reachable || m.own_state == member_state::offline);
}

/// The staying ONLINE SECONDARY holding the most transactions ("" = none).
std::string handover_target(const scale_down_facts& f) {
  std::vector<const quorum_member*> candidates;
  for (const auto& m : f.staying)
    if (m.reachable && m.state == member_state::online && m.role == member_role::secondary)
      candidates.push_back(&m);
  std::vector<const std::optional<gtid_set>*> sets;
  for (const auto* c : candidates) sets.push_back(&c->gtid_executed);
  auto i = most_advanced(sets);
  return i ? candidates[*i]->site : std::string{};
}

}  // namespace

std::string_view to_string(scale_down_move m) {
  switch (m) {
    case scale_down_move::idle: return "idle";
    case scale_down_move::wait: return "wait";
    case scale_down_move::record: return "record";
    case scale_down_move::stop: return "stop";
    case scale_down_move::switchover: return "switchover";
    case scale_down_move::stopped: return "stopped";
  }
  return "?";
}

std::size_t scale_down_size(const scale_down_facts& f) {
  std::size_t n = f.staying.size();
  for (const auto& m : f.leaving)
    if (!settled(m)) ++n;
  return std::max(n, f.view_known ? f.view_size : std::size_t{0});
}

scale_down_choice next_gr_scale_down(const scale_down_facts& f) {
  scale_down_choice out;
  auto it = std::find_if(f.leaving.begin(), f.leaving.end(),
                         [](const leaving_member& m) { return !settled(m); });
  if (it == f.leaving.end()) return out;  // idle
  const leaving_member& m = *it;
  out.site = m.site;
  auto wait = [&](std::string why) {
    out.move = scale_down_move::wait;
    out.reason = m.site + " leaves the group: " + std::move(why);
    return out;
  };

  // 1. Already out of the group: its workload may go.
  if (out_of_group(f, m)) {
    out.move = scale_down_move::stopped;
    out.new_size = std::max(f.staying.size(), f.view_size);
    out.reason = m.site + " is out of the group (" +
                 (m.reachable ? std::string{"OFFLINE"} : std::string{"not answering"}) +
                 ", in no member's view): its workload is deleted, its volume kept";
    return out;
  }

  // 2. Only a settled group with its majority loses a member.
  if (f.blocked) return wait("waiting: the group lost its quorum");
  if (!f.view_known) return wait("waiting: no majority agrees on the group's view");
  if (!f.has_quorum) return wait("waiting: the group's view has no quorum");
  if (!f.switchover_target.empty())
    return wait("waiting: the group is making " + f.switchover_target + " its primary");
  for (const auto& s : f.staying)
    if (s.state == member_state::recovering)
      return wait("waiting: " + s.site + " is RECOVERING (joining the group)");
  if (!m.identified) return wait("waiting: its member id was never read (is it still in the group?)");
  if (!m.reachable)
    return wait("waiting: it does not answer, and the group still lists it (" +
                std::string{to_string(m.state)} + ")");
  if (m.own_state == member_state::offline)
    return wait("waiting: it is OFFLINE and the others still list it");

  // 3. The smaller group keeps its majority.
  const std::size_t n = scale_down_size(f);
  // Every member still in the group counts: the staying ones and the leavers not yet out.
  std::vector<quorum_member> all = f.staying;
  for (const auto& l : f.leaving) {
    if (settled(l)) continue;
    quorum_member q;
    q.site = l.site;
    q.reachable = l.reachable;
    q.state = l.in_view ? l.state : l.own_state;
    q.role = l.role;
    all.push_back(q);
  }
  auto p = may_remove(all, n, m.site);
  if (!p.allowed) return wait("waiting: " + p.reason);

  // 4. Never the PRIMARY while others can take over: the group hands its role over first.
  if (m.in_view && m.role == member_role::primary && m.state == member_state::online &&
      n > 1) {
    auto target = handover_target(f);
    if (target.empty())
      return wait("waiting: it is the PRIMARY and no staying ONLINE SECONDARY can take over");
    out.move = scale_down_move::switchover;
    out.target = target;
    out.reason = "handing the primary from " + m.site + " to " + target +
                 " (group_replication_set_as_primary) before " + m.site + " leaves";
    return out;
  }

  // 5. Recorded before the STOP, so a restarted operator resumes the leave.
  out.move = m.phase.empty() ? scale_down_move::record : scale_down_move::stop;
  out.reason = "STOP GROUP_REPLICATION on " + m.site + " (" + p.reason + ")";
  return out;
}

}  // namespace br::gr
