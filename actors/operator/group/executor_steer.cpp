// Executor step of the steer family (after the promotion was confirmed, S9): point the router at
// the new primary, flip DNS to its lbIP, taint every other non-reader site and untaint the new one;
// a switchover then kills the old primary's sessions once more (decide/session_drain).
// A failed platform write is a warning: the reconcile loop heals it and the followers still need
// repointing.
#include "actors/operator/group/executor_core.hpp"

#include "actors/common/registry.hpp"
#include "actors/operator/decide/session_drain.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "io/log/log.hpp"

namespace br::executor {

namespace {

void steer_taints(exec_ptr self);

/// Switchover, once everything points at the new primary: the old primary's application
/// sessions are killed once more (decide/session_drain), so clients that reconnected to it
/// during the plan reconnect to the new one. Best effort: it is fenced, nothing it holds commits.
void kill_after_steering(exec_ptr self) {
  auto& st = self->state;
  if (!kill_old_sessions(st.plan.kind, session_kill_point::after_steering, st.fenced_old)) {
    step_done(self);
    return;
  }
  kill_old_primary_sessions(self, " after steering");
}

void steering_warning(exec_ptr self, const std::string& what, const std::string& site) {
  // The promotion is confirmed; a failed platform write is healed by the reconcile loop, and the
  // followers still need repointing, so the plan goes on.
  auto f = fields(self, site);
  f["error"] = what;
  log::warn("steering call failed; continuing", f);
  report_error(self, self->state.path, "steering: " + what);
}

void steer_dns(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  auto ip = st.deps.lb_ips.count(cand) ? st.deps.lb_ips.at(cand) : std::string();
  if (!st.deps.platform.dns || ip.empty()) {
    log::info("dns update skipped: no dns actor or no lbIP", fields(self, cand));
    steer_taints(self);
    return;
  }
  self->request(st.deps.platform.dns, remaining(self) + request_slack, dns_atom::value,
                st.plan.group, cand, ip)
      .then(
          if_current<bool>(self, [=](bool ok) {
            if (!ok) {
              steering_warning(self, "dns update refused", cand);
            } else {
              log::info("dns points to the new primary", fields(self, cand));
              // A flip: the record moved away from the deposed primary (a split-brain
              // re-promotion of the same site rewrites the same value).
              const auto& p = self->state.plan;
              if (p.candidate != p.old_primary)
                opmetrics::dns_flips({self->state.deps.namespace_name, p.group}, cand).Increment();
            }
            steer_taints(self);
          }),
          if_current<caf::error&>(self, [=](caf::error& e) {
            steering_warning(self, "dns update: " + to_string(e), cand);
            steer_taints(self);
          }));
}

void steer_taints(exec_ptr self) {
  auto& st = self->state;
  // Readers are never tainted; every other non-active site is, the new active one is untainted.
  while (st.taint_index < st.deps.sites.size()) {
    const auto& site = st.deps.sites[st.taint_index];
    auto role = st.deps.roles.count(site) ? st.deps.roles.at(site) : site_role::primary_candidate;
    if (role != site_role::read_only && st.deps.platform.taints) break;
    ++st.taint_index;
  }
  if (st.taint_index >= st.deps.sites.size()) {
    kill_after_steering(self);
    return;
  }
  auto site = st.deps.sites[st.taint_index++];
  bool taint = site != st.plan.candidate;
  self->request(st.deps.platform.taints, remaining(self) + request_slack, taint_atom::value,
                st.plan.group, site, taint)
      .then(
          if_current<bool>(self, [=](bool ok) {
            if (!ok)
              steering_warning(self, std::string(taint ? "taint" : "untaint") + " refused", site);
            else
              opmetrics::taint_operations({self->state.deps.namespace_name, self->state.plan.group},
                                          site, taint ? "taint" : "untaint")
                  .Increment();
            steer_taints(self);
          }),
          if_current<caf::error&>(self, [=](caf::error& e) {
            steering_warning(self, std::string(taint ? "taint: " : "untaint: ") + to_string(e),
                             site);
            steer_taints(self);
          }));
}

}  // namespace

void run_steering(exec_ptr self) {
  auto& st = self->state;
  st.taint_index = 0;
  auto cand = st.plan.candidate;
  if (!st.deps.platform.router) {
    steer_dns(self);
    return;
  }
  std::vector<std::string> replicas;
  for (const auto& f : st.plan.followers)
    if (f != cand) replicas.push_back(f);
  self->request(st.deps.platform.router, remaining(self) + request_slack, route_atom::value,
                st.plan.group, cand, replicas)
      .then(
          if_current<bool>(self, [=](bool ok) {
            if (!ok) steering_warning(self, "router update refused", cand);
            steer_dns(self);
          }),
          if_current<caf::error&>(self, [=](caf::error& e) {
            steering_warning(self, "router update: " + to_string(e), cand);
            steer_dns(self);
          }));
}

}  // namespace br::executor
