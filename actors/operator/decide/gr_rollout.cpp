// The ordered update of a Group Replication group: which member restarts next, or why none may.
#include "actors/operator/decide/gr_rollout.hpp"

#include <algorithm>

#include "actors/operator/decide/gr_quorum.hpp"
#include "actors/operator/decide/gtid_rank.hpp"

namespace br::gr {

namespace {

std::string state_text(const rollout_member& m) {
  return std::string{to_string(m.state)} +
         (m.role == member_role::none ? "" : " " + std::string{to_string(m.role)});
}

/// The candidate holding the most transactions (gtid_rank.hpp): declared order breaks ties and
/// decides among incomparable or unknown sets.
const rollout_member* most_advanced(const std::vector<const rollout_member*>& candidates) {
  std::vector<const std::optional<gtid_set>*> sets;
  for (const auto* c : candidates) sets.push_back(&c->gtid_executed);
  auto i = gr::most_advanced(sets);
  return i ? candidates[*i] : nullptr;
}

}  // namespace

std::string_view to_string(rollout_move m) {
  switch (m) {
    case rollout_move::idle: return "idle";
    case rollout_move::wait: return "wait";
    case rollout_move::restart: return "restart";
    case rollout_move::switchover: return "switchover";
  }
  return "?";
}

rollout_choice next_gr_rollout(const rollout_facts& in) {
  rollout_choice out;
  auto wait = [&](std::string phase, std::string why) {
    out.move = rollout_move::wait;
    out.phase = std::move(phase);
    out.reason = std::move(why);
    return out;
  };

  // 1. The member restarted last must be back before anything else happens.
  if (!in.rolling.empty()) {
    auto it = std::find_if(in.members.begin(), in.members.end(),
                           [&](const rollout_member& m) { return m.site == in.rolling; });
    if (it != in.members.end()) {
      const bool same_view = !in.rolled_view_id.empty() && in.view_id == in.rolled_view_id;
      const bool back = in.view_known && it->workload_ready && !same_view &&
                        it->state == member_state::online && it->last_seen_ms > in.rolled_at_ms;
      if (!back) {
        const std::string now = !it->workload_ready ? "its pod is not ready"
                                : same_view ? "the group's view has not changed since"
                                            : state_text(*it);
        if (in.now_ms - in.rolled_at_ms >= in.rejoin_timeout_ms) {
          out.stopped = true;
          return wait("Blocked", in.rolling + " did not come back ONLINE within " +
                                     std::to_string(in.rejoin_timeout_ms / 1000) +
                                     " s of its restart (" + now +
                                     "): the rollout is stopped until it is ONLINE");
        }
        return wait("WaitingForMember",
                    "waiting for " + in.rolling + " to be ONLINE again after its restart (" +
                        now + ")");
      }
    }
    out.rolling_done = true;
  }

  std::vector<const rollout_member*> drifted;
  for (const auto& m : in.members)
    if (m.drifted) drifted.push_back(&m);
  if (drifted.empty()) return out;  // idle

  // 2. Only a settled group with its majority is restarted.
  if (in.blocked) return wait("Blocked", "the group lost its quorum: nothing is restarted");
  if (!in.view_known) return wait("Blocked", "no majority agrees on the group's view");
  if (!in.has_quorum) return wait("Blocked", "the group's view has no quorum");
  if (!in.switchover_target.empty())
    return wait("HandingOver", "the group is making " + in.switchover_target + " its primary");
  for (const auto& m : in.members)
    if (m.state == member_state::recovering)
      return wait("WaitingForMember", m.site + " is RECOVERING (joining the group)");
  // A member whose workload is rolled (not drifted) but not ready is being restarted, also one
  // this reconciler no longer remembers (it restarted): its old server may still show ONLINE.
  for (const auto& m : in.members)
    if (!m.drifted && !m.workload_ready)
      return wait("WaitingForMember", m.site + "'s pod is not ready (a restart in progress)");

  const std::size_t size = std::max(in.group_size, in.members.size());
  const std::size_t need = quorum_of(size);
  const auto online = static_cast<std::size_t>(
      std::count_if(in.members.begin(), in.members.end(),
                    [](const rollout_member& m) { return m.state == member_state::online; }));
  const std::string counts = std::to_string(online) + " of " + std::to_string(size) +
                             " ONLINE, the majority is " + std::to_string(need);

  // 3. A drifted member already out of the group takes nothing from the majority.
  for (const auto* m : drifted)
    if (m->state != member_state::online) {
      if (online < need) return wait("Blocked", "the group has no majority ONLINE (" + counts + ")");
      out.move = rollout_move::restart;
      out.site = m->site;
      out.phase = "UpdatingSecondary";
      out.reason = "restarting " + m->site + " (" + state_text(*m) + ": not in the group)";
      return out;
    }

  // 4. Every member ONLINE before one leaves.
  for (const auto& m : in.members)
    if (m.state != member_state::online)
      return wait("Blocked", m.site + " is not ONLINE (" + state_text(m) +
                                 "): every member must be ONLINE before one is restarted");

  // 5. Secondaries first, one at a time, each only when the rest keep the majority.
  for (const auto* m : drifted) {
    if (m->role == member_role::primary) continue;
    if (online - 1 < need)
      return wait("Blocked", "restarting " + m->site + " would leave " +
                                 std::to_string(online - 1) + " of " + std::to_string(size) +
                                 " ONLINE, below the majority " + std::to_string(need));
    out.move = rollout_move::restart;
    out.site = m->site;
    out.phase = "UpdatingSecondary";
    out.reason = "restarting SECONDARY " + m->site + " (" + counts + ")";
    return out;
  }

  // 6. Only the primary is left: the group hands its role over first.
  const rollout_member* primary = drifted.front();
  std::vector<const rollout_member*> targets;
  for (const auto& m : in.members)
    if (&m != primary && m.role == member_role::secondary && !m.drifted && m.workload_ready &&
        m.last_seen_ms > 0)
      targets.push_back(&m);
  const auto* target = most_advanced(targets);
  if (!target)
    return wait("Blocked", "no rolled, ready ONLINE SECONDARY to hand the primary " +
                               primary->site + " over to");
  out.move = rollout_move::switchover;
  out.site = target->site;
  out.phase = "HandingOver";
  out.reason = "handing the primary from " + primary->site + " to " + target->site +
               " (group_replication_set_as_primary) before restarting " + primary->site;
  return out;
}

}  // namespace br::gr
