// Executor steps under semi-synchronous replication (docs/safety.md "Semi-synchronous
// replication: gate rule 4 and the no-loss candidate"): while gating, the receivers of every
// other site are stopped and probed; once so few can still receive from the old primary that it
// cannot collect K acknowledgements, and the plan's candidate holds everything the in-step sites
// received, the gate opens without waiting for leases (rule 4). The candidate's source side is
// switched on before it is made writable.
#include <algorithm>

#include "actors/operator/group/executor_core.hpp"

#include "actors/operator/decide/plan_steps.hpp"
#include "actors/operator/decide/semisync_gate.hpp"
#include "actors/operator/decide/semisync_in_step.hpp"
#include "io/log/log.hpp"
#include "messages/gtid_set.hpp"

namespace br::executor {

namespace {

bool semisync_failover(const executor_state& st) {
  return st.plan.semisync_k > 0 && st.plan.kind == plan_kind::failover &&
         !st.plan.old_primary.empty();
}

semisync_site_fact fact_of(const executor_state& st, const std::string& site) {
  semisync_site_fact f;
  f.site = site;
  auto it = st.ss_stopped.find(site);
  if (it == st.ss_stopped.end()) return f;
  const auto& p = it->second;
  f.reached = true;
  // No receiver runs: the channel is gone or its IO thread is OFF (CONNECTING still counts as
  // running: it may reach the old primary any moment).
  f.receiver_stopped = !p.channel_configured || p.io_state == "OFF";
  auto rec = st.plan.semisync_in_step.find(site);
  // The judgement holds only for the mysqld start it was made for (a restart discards relay
  // logs); the plan carries the records of the old primary's epoch.
  f.in_step = rec != st.plan.semisync_in_step.end() &&
              still_in_step({true, rec->second, 0}, p.started_at, 0);
  auto executed = gtid_set::parse(p.gtid_executed);
  auto received = gtid_set::parse(p.received_gtid);
  if (executed && received) f.received = executed->unite(*received);
  return f;
}

}  // namespace

void semisync_stop_receivers(exec_ptr self) {
  auto& st = self->state;
  if (!semisync_failover(st) || st.gate_opened) return;
  for (const auto& site : st.deps.sites) {
    if (site == st.plan.old_primary || st.ss_stopped.count(site) || st.ss_inflight.count(site))
      continue;
    st.ss_inflight.insert(site);
    run_sql(self, mysql_op::stop_io_thread, site, [=](mysql_outcome& o) {
      auto& s = self->state;
      s.ss_inflight.erase(site);
      auto f = fields(self, site);
      if (!o.ok) {
        f["error"] = describe(o);
        log::info("semi-sync: receiver stop failed; retrying", f);
        self->delayed_send(self, s.deps.push_retry, gate_atom::value, s.seq);
        return;
      }
      f["io"] = o.probe.io_state;
      f["received"] = o.probe.received_gtid;
      f["startedAt"] = o.probe.started_at;
      log::info("semi-sync: receiver stopped", f);
      s.ss_stopped[site] = o.probe;
      if (gating_now(self, s.seq) && !s.gate_opened) evaluate_gate(self);
    });
  }
}

bool semisync_needs_no_loss(exec_ptr self) {
  const auto& st = self->state;
  return semisync_failover(st) && st.plan.semisync_confirmed;
}

bool semisync_failover_kept(const executor_state& st) {
  if (!semisync_failover(st) || !st.plan.semisync_confirmed) return false;
  const auto all = plan_steps(st.plan.kind);
  const auto cur = std::find(all.begin(), all.end(), st.current);
  const auto stop = std::find(all.begin(), all.end(), plan_phase::stopping_replica);
  return cur != all.end() && cur < stop;
}

bool semisync_rule4(exec_ptr self) {
  auto& st = self->state;
  if (!semisync_failover(st)) return false;
  semisync_gate_input in;
  in.enabled = true;
  in.wait_for_replica_count = st.plan.semisync_k;
  in.old_primary_confirmed = st.plan.semisync_confirmed;
  for (const auto& site : st.deps.sites)
    if (site != st.plan.old_primary) in.others.push_back(fact_of(st, site));
  in.eligible = {st.plan.candidate};
  auto r = semisync_gate(in);
  if (r.reason != st.ss_reason) {
    st.ss_reason = r.reason;
    auto f = fields(self, st.plan.candidate);
    f["cannotAck"] = r.cannot_ack;
    f["noLossCandidate"] = r.candidate;
    f["reason"] = r.reason;
    log::info("semi-sync gate facts", f);
  }
  if (r.candidate != st.plan.candidate) return false;
  // The candidate holds every acknowledged commit: its drain becomes mandatory, whichever rule
  // opens the gate.
  st.ss_no_loss = true;
  st.result.semisync_no_loss = true;
  st.ss_drain_target = fact_of(st, st.plan.candidate).received->to_string();
  return r.cannot_ack;
}

void semisync_source_before_promotion(exec_ptr self, std::function<void()> next) {
  auto k = self->state.plan.semisync_k;
  if (k == 0) {
    next();
    return;
  }
  run_sql_must(self, mysql_op::semisync_source, self->state.plan.candidate, next,
               [=](mysql_command& c) { c.semisync_k = k; });
}

}  // namespace br::executor
