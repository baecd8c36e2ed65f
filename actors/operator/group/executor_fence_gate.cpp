// Executor steps of the fence-and-gate family: fence the old primary, kill its sessions, push the
// deposing view to every sidecar and hold the promotion at the gate (docs/safety.md, gate rules).
#include "actors/operator/group/executor_core.hpp"

#include <algorithm>

#include "actors/common/registry.hpp"
#include "actors/operator/decide/promotion_gate.hpp"
#include "actors/operator/decide/session_drain.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "actors/operator/group/view_push.hpp"
#include "io/log/log.hpp"

namespace br::executor {

void run_fencing_old(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  if (is_repair_kind(p.kind)) {
    // Repairing a site: it is fenced before anything else touches it.
    run_sql_must(self, mysql_op::fence, p.candidate, [=] { step_done(self); });
    return;
  }
  if (p.old_primary.empty()) {
    st.result.fence_outcome = "skipped: no old primary";
    log::warn("old primary fence skipped", fields(self, ""));
    step_done(self);
    return;
  }
  if (!p.old_primary_reachable) {
    st.old_unreachable = true;
    st.result.fence_outcome = "skipped: unreachable (plan)";
    auto f = fields(self, p.old_primary);
    f["reason"] = st.result.fence_outcome;
    log::warn("old primary fence skipped", f);
    step_done(self);
    return;
  }
  run_sql(self, mysql_op::fence, p.old_primary, [=](mysql_outcome& o) {
    auto& s = self->state;
    auto f = fields(self, s.plan.old_primary);
    if (o.ok) {
      s.fenced_old = true;
      s.result.fence_outcome = "fenced";
      log::info("old primary fenced", f);
      step_done(self);
    } else if (is_connection_error(o.error_kind)) {
      s.old_unreachable = true;
      s.result.fence_outcome = "skipped: " + o.error_kind;
      f["reason"] = s.result.fence_outcome;
      f["error"] = describe(o);
      log::warn("old primary fence skipped", f);
      step_done(self);
    } else {
      // Reachable but refusing: promoting now could leave two writable sites (S1/S2).
      fail(self, "fence of old primary " + s.plan.old_primary + " failed: " + describe(o));
    }
  });
}

void kill_old_primary_sessions(exec_ptr self, const std::string& when) {
  run_sql(self, mysql_op::kill_sessions, self->state.plan.old_primary, [=](mysql_outcome& o) {
    auto f = fields(self, self->state.plan.old_primary);
    if (o.ok) {
      f["killed"] = o.value;
      log::info("old primary sessions killed" + when, f);
    } else {
      // Best effort: the server is already fenced, so a surviving session cannot write.
      f["error"] = describe(o);
      log::warn("old primary session kill" + when + " failed; continuing", f);
    }
    step_done(self);
  });
}

void run_killing_sessions(exec_ptr self) {
  auto& st = self->state;
  // One round, never repeated (decide/session_drain: the fence already stops every commit; a
  // switchover kills once more after steering, when a reconnecting client reaches the new primary).
  if (!kill_old_sessions(st.plan.kind, session_kill_point::at_fence, st.fenced_old)) {
    log::info("session kill skipped: old primary not fenced by the operator",
              fields(self, st.plan.old_primary));
    step_done(self);
    return;
  }
  kill_old_primary_sessions(self, "");
}

void evaluate_gate(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  if (p.old_primary.empty()) {
    log::info("promotion gate open: no old primary in the plan", fields(self, p.candidate));
    step_done(self);
    return;
  }
  semisync_stop_receivers(self);
  gate_input in;
  in.semisync_cannot_ack = semisync_rule4(self);
  in.operator_fenced_old_primary = st.fenced_old;
  in.old_primary_sidecar_acked = st.old_acked;
  in.old_primary_unreachable = st.old_unreachable;
  for (const auto& s : st.deps.sites)
    if (s != p.old_primary) in.other_sites.push_back(s);
  in.peer_acks = st.peer_acks;
  in.policy = p.policy;
  in.started = st.gate_started;
  in.now = now_of(self);
  in.lease_timeout = st.deps.lease_timeout;
  in.peer_check_interval = st.deps.peer_check_interval;
  in.fence_timeout = st.deps.sidecar_fence_timeout;
  in.request_timeout = st.deps.sidecar_request_timeout;
  in.gate_timeout = p.gate_timeout;
  auto d = promotion_gate(in);
  if (d.verdict == gate_verdict::open && semisync_needs_no_loss(self) && !st.ss_no_loss) {
    // Semi-sync, old primary confirmed: whichever rule opened, only the no-loss candidate is
    // promoted (a lagging candidate would lose what another site received and the old primary
    // acknowledged). Wait for the stops' probes; the step deadline ends a wait that never holds.
    d.reason += "; semi-sync: waiting for the no-loss candidate (" + st.ss_reason + ")";
    if (in.now >= st.gate_started + p.gate_timeout) {
      d.verdict = gate_verdict::timed_out;
    } else {
      d.verdict = gate_verdict::wait;
      d.until = std::min(in.now + st.deps.push_retry, st.gate_started + p.gate_timeout);
    }
  }
  auto f = fields(self, p.candidate);
  f["rule"] = to_string(d.rule);
  f["reason"] = d.reason;
  f["policy"] = to_string(p.policy);
  switch (d.verdict) {
    case gate_verdict::open:
      log::info("promotion gate open", f);
      opmetrics::observe_promotion_gate_wait(
          {st.deps.namespace_name, p.group}, p.candidate,
          std::chrono::duration<double>(in.now - st.gate_started).count());
      if (st.push_inflight.count(p.candidate)) {
        // A deposing view still on its way to the candidate's sidecar must not arrive after the
        // promotion: it would take it for a view that deposes it too. Wait for that push to
        // answer (bounded by the request timeout), then promote. A late deposing view at any
        // other sidecar only fences a server that is not the new primary (and the hung old
        // primary's sidecar, still trying to fence, would cost the whole request timeout).
        st.gate_opened = true;
        report_step(self, st.path, "gate open; waiting for outstanding view pushes");
        return;
      }
      step_done(self);
      return;
    case gate_verdict::timed_out:
      log::error("promotion gate timed out", f);
      fail(self, "promotion gate timed out");
      return;
    case gate_verdict::wait: {
      auto delay = std::max<caf::timespan>(d.until - in.now, std::chrono::milliseconds(1));
      report_step(self, st.path, "gating: " + d.reason);
      self->delayed_send(self, delay, gate_atom::value, st.seq);
      return;
    }
  }
}

namespace {

/// The deposing view of this plan: no active site, the old primary being deposed.
topology_view deposing_view(const failover_plan& p, const wall_source& clock) {
  topology_view v;
  v.epoch = p.epoch;
  v.deposing = p.old_primary;
  v.observed_at_ms = unix_ms(clock);
  return v;
}

}  // namespace

bool gating_now(exec_ptr self, uint64_t seq) {
  auto& s = self->state;
  return !s.finished && s.seq == seq && s.current == plan_phase::gating && !s.persisting;
}

/// PUT /view of the deposing view to one sidecar; retried every push_retry until it acknowledges
/// or the gate is decided. An acknowledgement is only counted while this gating step runs.
void push_deposing(exec_ptr self, const std::string& site) {
  auto& st = self->state;
  if (st.push_inflight.count(site) || !st.deps.http_worker) return;
  if (site == st.plan.old_primary ? st.old_acked : st.peer_acks.count(site) > 0) return;
  if (!st.deps.keys || !st.deps.keys->signer) return;  // nothing signed can leave: no pushes
  auto addr = st.deps.sidecars.find(site);
  if (addr == st.deps.sidecars.end() || addr->second.empty()) return;
  auto& w = (*st.push_workers)[site];
  if (!w) w = st.deps.http_worker();
  auto keys = st.deps.keys;
  auto group = st.deps.authority_group;
  auto view = auth::sign_view(*keys->signer, group, deposing_view(st.plan, st.deps.wall_clock));
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      st.deps.sidecar_request_timeout);
  auto nonce = auth::new_nonce();
  auto call = view_push_call(addr->second, view, nonce, timeout);
  auto seq = st.seq;
  st.push_inflight.insert(site);
  auto retry = [=] {
    auto& s = self->state;
    s.push_inflight.erase(site);
    if (!gating_now(self, seq)) return;
    if (s.gate_opened) {
      if (!s.push_inflight.count(s.plan.candidate)) step_done(self);
      return;
    }
    self->delayed_send(self, s.deps.push_retry, push_atom::value, site, seq);
  };
  self->request(w, st.deps.sidecar_request_timeout + request_slack, http_call_atom::value, call)
      .then(
          [=](const http_reply& r) {
            auto a = parse_view_ack(site, view, nonce, keys->keys_of_site(site), group, r);
            if (!gating_now(self, seq)) {
              self->state.push_inflight.erase(site);
              return;
            }
            auto f = fields(self, site);
            f["viewEpoch"] = view.epoch;
            if (!a.acked) {
              f["error"] = a.error;
              f["status"] = a.status;
              log::debug("deposing view not acknowledged yet", f);
              retry();
              return;
            }
            auto& s = self->state;
            s.push_inflight.erase(site);
            if (s.gate_opened) {
              if (!s.push_inflight.count(s.plan.candidate)) step_done(self);
              return;
            }
            f["fenced"] = a.fenced;
            f["mysqlReachable"] = a.mysql_reachable;
            if (site == s.plan.old_primary) {
              s.old_acked = true;
              log::info("old primary's sidecar acknowledged the deposing view (gate rule 2)", f);
            } else {
              s.peer_acks[site] = now_of(self);
              log::info("sidecar acknowledged the deposing view", f);
            }
            evaluate_gate(self);
          },
          [=](caf::error&) { retry(); });
}

void run_gating(exec_ptr self) {
  auto& st = self->state;
  st.gate_started = now_of(self);
  if (!st.plan.old_primary.empty())
    for (const auto& site : st.deps.sites) push_deposing(self, site);
  evaluate_gate(self);
}

}  // namespace br::executor
