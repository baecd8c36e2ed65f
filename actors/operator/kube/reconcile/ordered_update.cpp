// What a rollout does next: replicas one at a time, then a handoff, then the old primary.
#include "actors/operator/kube/reconcile/ordered_update.hpp"

namespace br {

bool replica_caught_up(const rollout_site& s, int64_t max_lag, int64_t since_ms) {
  if (s.state != "read-only" || !s.replicating || s.recovering) return false;
  if (!s.lag_seconds || *s.lag_seconds > max_lag) return false;
  return since_ms <= 0 || s.last_seen_ms > since_ms;
}

rollout_step next_rollout_step(const rollout_inputs& in) {
  rollout_step out;
  std::vector<const rollout_site*> drifted;
  for (const auto& s : in.sites)
    if (s.drifted) drifted.push_back(&s);
  auto wait = [&](std::string phase, std::string why) {
    out.action = rollout_action::wait;
    out.phase = std::move(phase);
    out.reason = std::move(why);
    return out;
  };

  if (!in.rolling.empty()) {
    const rollout_site* r = nullptr;
    for (const auto& s : in.sites)
      if (s.name == in.rolling) r = &s;
    if (r && in.strategy == config::update_strategy::ordered_update) {
      if (!r->workload_ready) return wait("WaitingForReplica", in.rolling + " is not ready yet");
      // The new primary of a handoff is rolled before it; every other rolled site must be a
      // caught-up replica, observed after its restart.
      if (r->name != in.active_site &&
          !replica_caught_up(*r, in.caught_up_lag_seconds, in.rolled_at_ms))
        return wait("WaitingForReplica", in.rolling + " is not replicating and caught up yet");
    }
    out.rolling_done = true;
  }
  if (drifted.empty()) return out;  // idle

  if (in.strategy == config::update_strategy::recreate) {
    out.action = rollout_action::roll;
    out.phase = "Recreating";
    for (auto* s : drifted) out.sites.push_back(s->name);
    out.reason = "Recreate: every drifted site at once";
    return out;
  }
  if (in.transition) return wait("HandingOver", "a promotion is in progress");
  if (in.active_site.empty()) return wait("Blocked", "no active primary");

  for (auto* s : drifted)
    if (s->name != in.active_site) {
      if (s->recovering) return wait("Blocked", s->name + " is being recovered");
      out.action = rollout_action::roll;
      out.sites = {s->name};
      out.phase = "UpdatingReplica";
      out.reason = "rolling " + s->name + " (not the active site)";
      return out;
    }

  // Only the active site is left: hand it over first.
  for (const auto& s : in.sites)
    if (s.name != in.active_site && s.role == site_role::primary_candidate && !s.drifted &&
        s.workload_ready && replica_caught_up(s, in.caught_up_lag_seconds, 0)) {
      out.action = rollout_action::switchover;
      out.target = s.name;
      out.phase = "HandingOver";
      out.reason = "handing the primary from " + in.active_site + " to " + s.name +
                   " before rolling " + in.active_site;
      return out;
    }
  return wait("Blocked", "no caught-up primary-candidate to hand " + in.active_site + " over to");
}

}  // namespace br
