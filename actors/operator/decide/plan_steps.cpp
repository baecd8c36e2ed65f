// Plan step lists, resume points and step deadlines (see plan_steps.hpp).
#include "actors/operator/decide/plan_steps.hpp"

#include <algorithm>

namespace br {

std::vector<plan_phase> plan_steps(plan_kind kind) {
  using p = plan_phase;
  switch (kind) {
    case plan_kind::failover:
    case plan_kind::switchover:
      return {p::fencing_old,      p::killing_sessions,  p::gating,         p::draining,
              p::stopping_replica, p::resetting_replica, p::recording_gtid, p::promoting,
              p::confirming,       p::steering,          p::repointing};
    case plan_kind::recover:
      return {p::fencing_old, p::stopping_replica, p::resetting_replica, p::repointing,
              p::confirming};
    case plan_kind::bootstrap:
      return {p::verifying_accounts, p::stopping_replica, p::resetting_replica, p::recording_gtid,
              p::promoting,          p::confirming,       p::steering};
    case plan_kind::auto_clone:
    case plan_kind::reclone:
      return {p::fencing_old,       p::cloning,    p::restarting, p::stopping_replica,
              p::resetting_replica, p::repointing, p::confirming};
  }
  return {};
}

resume_plan resume_steps(plan_kind kind, plan_phase persisted) {
  resume_plan r;
  auto all = plan_steps(kind);
  if (persisted == plan_phase::pending) {
    r.steps = all;
    return r;
  }
  if (persisted == plan_phase::done) {
    r.promotion_done = is_promotion_kind(kind);
    return r;
  }
  auto it = std::find(all.begin(), all.end(), persisted);
  if (it == all.end()) {
    r.ok = false;
    r.error = "phase " + to_string(persisted) + " is not a step of a " + to_string(kind) + " plan";
    return r;
  }
  r.steps.assign(it + 1, all.end());
  auto ahead = [&](plan_phase x) {
    return std::find(r.steps.begin(), r.steps.end(), x) != r.steps.end();
  };
  // Rule 1 of the gate (the operator fenced the old primary) is a fact of this run, not of the
  // persisted state: fence again (idempotent) so the gate can open after a restart.
  if (ahead(plan_phase::gating) && !ahead(plan_phase::fencing_old))
    r.steps.insert(r.steps.begin(), plan_phase::fencing_old);
  auto promo = std::find(all.begin(), all.end(), plan_phase::promoting);
  if (promo != all.end() && it >= promo) {
    r.promotion_done = true;
    if (ahead(plan_phase::steering) && !ahead(plan_phase::confirming))
      r.steps.insert(r.steps.begin(), plan_phase::confirming);
  }
  return r;
}

caf::timespan step_deadline(plan_phase phase, const failover_plan& plan,
                            caf::timespan clone_timeout) {
  switch (phase) {
    case plan_phase::gating:
      return plan.gate_timeout + plan.step_timeout;
    case plan_phase::killing_sessions:
      return plan.kind == plan_kind::switchover ? plan.session_drain_timeout + plan.step_timeout
                                                : plan.step_timeout;
    case plan_phase::draining:
      // Switchover: fence again, read the source's set, then wait up to maxLagWait for the
      // candidate to execute it (three short commands around the wait).
      return plan.kind == plan_kind::switchover ? plan.max_lag_wait + 3 * plan.step_timeout
                                                : plan.drain_timeout;
    case plan_phase::cloning:
    case plan_phase::restarting:
      return std::max(plan.step_timeout, clone_timeout) + plan.step_timeout;
    case plan_phase::verifying_accounts:
      // Two SHOW GRANTS per site (the plan's followers and its candidate).
      return plan.step_timeout * static_cast<int64_t>(2 * (plan.followers.size() + 1));
    case plan_phase::repointing: {
      auto n =
          std::max<size_t>(1, plan.kind == plan_kind::failover || plan.kind == plan_kind::switchover
                                  ? plan.followers.size()
                                  : 1);
      return plan.step_timeout * static_cast<int64_t>(n);
    }
    default:
      return plan.step_timeout;
  }
}

}  // namespace br
