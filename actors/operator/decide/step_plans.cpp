// step(): plans. A plan is persisted (with its deposing view) before its executor starts; every
// phase the executor completes is persisted before it goes on; the result is persisted before
// the new view is published. Also the two requests that start plans: reclone and switchover.
#include <chrono>

#include "actors/operator/decide/bootstrap.hpp"
#include "actors/operator/decide/coordinator_decide.hpp"
#include "actors/operator/decide/manual_fence.hpp"
#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/reclone_token.hpp"
#include "actors/operator/decide/recovery.hpp"
#include "actors/operator/decide/step_context.hpp"
#include "actors/operator/decide/step_planned.hpp"
#include "actors/operator/decide/switchover_request.hpp"

namespace br::step_detail {

namespace {

bool is_promotion(plan_kind k) { return is_promotion_kind(k); }
bool is_bootstrap_kind(plan_kind k) { return k == plan_kind::bootstrap || k == plan_kind::auto_clone; }

/// Every transaction a promotion could not carry over, said once each: log, Event, metric
/// (docs/safety.md S3, S4). Stranded sites are RecoveryBlocked by the same durable change.
void report_losses(context& c, const failover_plan& plan, const std::vector<gtid_loss>& losses) {
  for (const auto& l : losses) {
    auto f = c.fields(l.site);
    f["kind"] = l.kind;
    f["gtid"] = l.gtid;
    f["count"] = l.count;
    f["newPrimary"] = plan.candidate;
    bool stranded = l.kind == gtid_loss_stranded;
    c.log(log_level::error,
          stranded ? "transactions stranded: a follower holds transactions the new primary lacks"
                   : "transactions lost: received by the candidate but not applied before promotion",
          f);
    c.emit("Warning", stranded ? "TransactionsStranded" : "TransactionsLost",
           std::to_string(l.count) + (stranded ? " transactions held by " + l.site +
                                                     " are not on the new primary " + plan.candidate +
                                                     " (" + l.site + " is RecoveryBlocked): "
                                               : " transactions received by " + l.site +
                                                     " were not applied before its promotion and are lost: ") +
               l.gtid,
           l.site);
    c.metric(metric_kind::transactions_lost, l.site, static_cast<double>(l.count), l.kind);
  }
}

}  // namespace

void run_executor(context& c) {
  auto& st = c.st;
  st.executor_running = true;
  auto f = c.fields(st.durable.plan.candidate);
  f["plan"] = st.durable.plan.id;
  f["kind"] = to_string(st.durable.plan.kind);
  f["phase"] = to_string(st.durable.plan.phase);
  c.log(log_level::info, "executor started", f);
  c.out.emplace_back(effect::start_executor{st.durable.plan});
}

namespace {

void start_persisted(context& c, const change_start_plan& x, bool ok) {
  const auto& plan = x.plan;
  auto f = c.fields(plan.candidate);
  f["kind"] = to_string(plan.kind);
  f["oldPrimary"] = plan.old_primary;
  if (!ok) {
    c.log(log_level::error, "plan not started: state not persisted", f);
    c.st.last_plan_failure = c.clock.now;
    planned_plan_started(c, plan, false);
    return;
  }
  c.st.respawns = 0;
  planned_plan_started(c, plan, true);
  if (plan.kind == plan_kind::bootstrap) {
    c.log(log_level::info, "bootstrap started", f);
    c.emit("Normal", "BootstrapStarted",
           "bootstrap of a new group started: seed " + plan.candidate + " becomes the active site at epoch " +
               std::to_string(plan.epoch + 1),
           plan.candidate);
  } else if (plan.kind == plan_kind::auto_clone) {
    f["donor"] = plan.source;
    c.log(log_level::info, "site brought in from the active site", f);
    if (c.st.durable.bootstrap.source == "auto-clone")
      c.emit("Normal", "AutoCloneStarted",
             plan.candidate + " came back empty: cloning it from the active site " + plan.source,
             plan.candidate);
  } else if (is_promotion(plan.kind)) {
    c.log(log_level::info, "initiating failover", f);
    c.emit("Normal", "FailoverStarted",
           "failover from " + (plan.old_primary.empty() ? std::string("(none)") : plan.old_primary) +
               " to " + plan.candidate + " started at epoch " + std::to_string(plan.epoch),
           plan.candidate);
  } else {
    c.log(log_level::info, "plan started", f);
  }
  run_executor(c);
}

void done_persisted(context& c, const change_plan_done& x, bool ok) {
  const auto& plan = x.plan;
  const auto& res = x.result;
  if (!ok) {
    // The store still holds the plan as running and no executor runs: without another write the
    // group would stay busy until a restart. The same result is offered again on a later poll.
    c.st.unrecorded_result = x;
    c.st.unrecorded_result->again = true;
    c.st.unrecorded_at = c.clock.now;
    auto f = c.fields(plan.candidate);
    f["plan"] = plan.id;
    f["kind"] = to_string(plan.kind);
    f["ok"] = res.ok;
    c.log(log_level::warn, "plan result not recorded: offered again on the next poll", f);
    if (x.again) return;  // the first refusal said the rest
  } else {
    c.st.unrecorded_result.reset();
    c.st.unrecorded_at.reset();
  }
  if (ok) bootstrap_plan_done(c, x);
  if (ok) planned_plan_done(c, x);
  if (ok && x.again && !res.ok) {
    // A failure (or a rollback) was logged, counted and announced at the first refusal.
    auto f = c.fields(plan.candidate);
    f["plan"] = plan.id;
    f["kind"] = to_string(plan.kind);
    c.log(log_level::info, "plan result recorded", f);
    if (res.source_kept && is_promotion(plan.kind))
      c.out.emplace_back(effect::reassert{plan.old_primary, c.rules.policy == gate_policy::safe,
                                                   c.rules.semisync_k});
    return;
  }
  if (is_bootstrap_kind(plan.kind)) {
    auto f = c.fields(plan.candidate);
    f["plan"] = plan.id;
    f["kind"] = to_string(plan.kind);
    f["ok"] = res.ok;
    if (!res.ok) f["error"] = res.error;
    c.log(res.ok ? log_level::info : log_level::error,
          res.ok ? "bootstrap plan done" : "bootstrap plan failed", f);
    return;
  }
  auto f = c.fields(plan.candidate);
  f["plan"] = plan.id;
  f["kind"] = to_string(plan.kind);
  if (!res.ok && res.source_kept && is_promotion(plan.kind)) {
    // A switchover that could not prove the candidate holds everything the source acknowledged,
    // or a semi-sync failover that found no site holding every acknowledged commit: nothing was
    // promoted, the source is the active primary again (new epoch) once persisted.
    const bool switchover = plan.kind == plan_kind::switchover;
    f["error"] = res.error;
    f["source"] = plan.old_primary;
    f["sourceGtid"] = res.source_gtid;
    c.log(log_level::error,
          switchover ? "switchover rolled back: the source stays the active primary"
                     : "semi-sync failover abandoned: the old primary stays the active primary",
          f);
    c.metric(metric_kind::failover_failure, plan.candidate, 0, to_string(res.reached));
    c.emit("Warning", switchover ? "SwitchoverRolledBack" : "FailoverFailed",
           to_string(plan.kind) + " from " + plan.old_primary + " to " + plan.candidate +
               (switchover ? " rolled back (" : " abandoned, nothing promoted (") + res.error +
               "); " + plan.old_primary + " stays the active primary" +
               (ok ? "" : " once the state is persisted"),
           plan.old_primary);
    // A semi-sync failover rolled back: the old primary's no_tx baseline stays its own under the
    // new epoch, so a retry while it is still dead reads the same delta (its raw count could
    // hold commits released before it became primary and drop the no-loss requirement: review
    // V6 M3).
    if (ok && !switchover && c.st.semisync_no_tx_base)
      c.st.semisync_no_tx_base->epoch = c.st.durable.view.epoch;
    if (ok) c.out.emplace_back(effect::reassert{plan.old_primary, c.rules.policy == gate_policy::safe,
                                                   c.rules.semisync_k});
    return;
  }
  if (!res.ok) {
    f["error"] = res.error;
    f["reached"] = to_string(res.reached);
    c.log(log_level::error, "plan failed", f);
    if (is_promotion(plan.kind))
      c.metric(metric_kind::failover_failure, plan.candidate, 0, to_string(res.reached));
    std::string reason = is_promotion(plan.kind)             ? "FailoverFailed"
                         : plan.kind == plan_kind::reclone ? "RecloneFailed"
                                                           : "RecoveryFailed";
    c.emit("Warning", reason,
           to_string(plan.kind) + " of " + plan.candidate + " failed: " + res.error,
           plan.candidate);
    return;
  }
  if (!ok) return;  // stays plan_active: offered again on a later poll (record_refused_result)
  if (is_promotion(plan.kind)) {
    report_losses(c, plan, res.losses);
    c.log(log_level::info, "failover executed", f);
    c.emit("Normal", "FailoverExecuted",
           "promoted " + plan.candidate + " at epoch " + std::to_string(c.st.view.epoch),
           plan.candidate);
    if (plan.kind == plan_kind::failover) {
      double seconds = -1;
      if (c.st.plan_started)
        seconds = std::chrono::duration<double>(c.clock.now - *c.st.plan_started).count();
      c.metric(metric_kind::failover, plan.candidate, seconds);
    }
    return;
  }
  c.log(log_level::info, "recovery complete", f);
  c.metric(metric_kind::divergent, plan.candidate, 0);
  std::string how = to_string(plan.kind);
  if (plan.kind == plan_kind::reclone)
    how += plan.discard_gtid.empty()
               ? std::string(" of a site holding nothing beyond ") + plan.source
           : plan.discard_gtid.rfind("restore=", 0) == 0
               ? "; what it held beyond " + plan.source + " is discarded by the in-place restore (" +
                     plan.discard_gtid + ")"
               : "; the confirmed divergent transactions were replaced: " + plan.discard_gtid;
  c.emit("Normal", "RecoveryComplete", plan.candidate + " rejoined as a replica (" + how + ")",
         plan.candidate);
}

}  // namespace

void start_plan(context& c, plan_kind kind, const std::string& candidate,
                const std::string& old_primary, bool old_reachable, bool bump,
                const std::string& discard_gtid, std::optional<planned_failover_record> planned) {
  auto& st = c.st;
  const auto& rules = c.rules;
  st.plan_started = c.clock.now;
  failover_plan plan;
  plan.id = st.durable.plan.id + 1;
  plan.kind = kind;
  plan.group = rules.group;
  plan.epoch = bump ? st.durable.view.epoch + 1 : st.durable.view.epoch;
  plan.candidate = candidate;
  plan.old_primary = old_primary;
  plan.old_primary_reachable = old_reachable;
  // Recover and reclone repair `candidate` from the current active primary.
  if (is_repair_kind(kind)) plan.source = st.durable.view.active_site;
  if (is_promotion(kind)) plan.followers = plan_followers(rules.sites, candidate, old_primary);
  plan.policy = rules.policy;
  plan.drain_timeout = rules.drain_timeout;
  plan.step_timeout = rules.step_timeout;
  plan.gate_timeout = rules.gate_timeout;
  plan.max_lag_wait = rules.max_lag_wait;
  plan.session_drain_timeout = rules.session_drain_timeout;
  if (kind == plan_kind::reclone) plan.discard_gtid = discard_gtid;
  semisync_plan(c, plan);
  persist(c, change_start_plan{std::move(plan), bump, c.wall_ms(), std::move(planned)});
}

void record_refused_result(context& c) {
  auto& st = c.st;
  if (!st.unrecorded_result || st.persisting || !st.persist_queue.empty()) return;
  if (st.unrecorded_at && c.clock.now - *st.unrecorded_at < c.rules.poll_interval) return;
  auto change = std::move(*st.unrecorded_result);
  st.unrecorded_result.reset();
  // Only the plan the store still holds as running (a reload may have resumed it meanwhile).
  if (!st.durable.plan_active || st.durable.plan.id != change.plan.id || st.executor_running) return;
  auto f = c.fields(change.plan.candidate);
  f["plan"] = change.plan.id;
  f["ok"] = change.result.ok;
  c.log(log_level::info, "recording the plan result again", f);
  persist(c, std::move(change));
}

void plan_persisted(context& c, const durable_change& change, bool ok) {
  if (auto x = std::get_if<change_start_plan>(&change)) {
    start_persisted(c, *x, ok);
  } else if (auto y = std::get_if<change_plan_done>(&change)) {
    done_persisted(c, *y, ok);
  } else if (auto z = std::get_if<change_phase>(&change)) {
    auto f = c.fields(c.st.durable.plan.candidate);
    f["plan"] = z->plan_id;
    f["phase"] = to_string(z->phase);
    c.log(log_level::info, "plan phase", f);
    if (ok) planned_phase_persisted(c, z->phase, z->facts);
    c.out.emplace_back(effect::reply{z->reply, ok});
  }
}

void on_phase(context& c, const input::phase& in) {
  auto& st = c.st;
  if (!st.durable.plan_active || st.durable.plan.id != in.plan_id) {
    c.out.emplace_back(effect::reply{in.reply, false});
    return;
  }
  persist(c, change_phase{in.plan_id, in.phase, in.facts, in.reply, c.wall_ms()});
}

void on_plan_done(context& c, const plan_result& res) {
  auto& st = c.st;
  if (!st.durable.plan_active || res.id != st.durable.plan.id) {
    auto f = c.fields();
    f["plan"] = res.id;
    c.log(log_level::warn, "result of an unknown plan ignored", f);
    return;
  }
  st.executor_running = false;
  if (!res.ok) st.last_plan_failure = c.clock.now;
  change_plan_done done{st.durable.plan, res, c.wall_ms()};
  auto src = st.reports.find(done.plan.old_primary);
  done.source_reachable = src != st.reports.end() && src->second.probe_ok;
  persist(c, std::move(done));
}

void on_executor_down(context& c, const std::string& reason) {
  auto& st = c.st;
  if (!st.executor_running) return;
  st.executor_running = false;
  if (!st.durable.plan_active) return;
  const auto& plan = st.durable.plan;
  auto f = c.fields(plan.candidate);
  f["plan"] = plan.id;
  f["phase"] = to_string(plan.phase);
  f["reason"] = reason;
  if (st.respawns >= c.rules.max_executor_respawns) {
    c.log(log_level::error, "executor crashed too often; plan failed", f);
    plan_result r;
    r.id = plan.id;
    r.reached = plan.phase;
    r.error = plan.phase == plan_phase::pending
                  ? "executor: crashed repeatedly"
                  : to_string(plan.phase) + ": executor crashed repeatedly";
    on_plan_done(c, r);
    return;
  }
  ++st.respawns;
  c.log(log_level::warn, "executor died; resuming the plan from its persisted phase", f);
  run_executor(c);
}

void on_annotate(context& c, const input::annotate& in) {
  auto& st = c.st;
  if (in.key == planned_failover_annotation) {
    on_planned_annotation(c, in.value);
    return;
  }
  if (in.key == fenced_sites_annotation) return on_fence_annotation(c, in.value);
  if (in.key == fence_request_key) return on_fence_request(c, in.value);
  if (in.key == restore_freeze_key) return on_restore_freeze_request(c, in.value);
  if (in.key != reclone_annotation) {
    c.answer = "rejected: unknown annotation " + in.key;
    return;
  }
  if (st.durable.plan_active) {
    // Final: the requester (annotation, CLI) learns it and asks again later.
    std::string why = "another plan (" + std::string(to_string(st.durable.plan.kind)) +
                      ") is running; request the reclone again when it has finished";
    c.log(log_level::warn, "reclone rejected", {{"reason", why}});
    c.emit("Warning", "RecloneRejected", why, "");
    c.answer = "rejected: " + why;
    return;
  }
  if (st.durable.restore_freeze.frozen) {
    std::string why = "the group is frozen by an in-place restore (spec.restoreInPlace, token " +
                      st.durable.restore_freeze.token + "); request the reclone again when it has ended";
    c.log(log_level::warn, "reclone rejected", {{"reason", why}});
    c.emit("Warning", "RecloneRejected", why, "");
    c.answer = "rejected: " + why;
    return;
  }
  if (busy(st)) {  // transient: not loaded yet, or a durable write in flight
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  std::map<std::string, std::string> divergent;
  for (const auto& [site, r] : st.durable.recovery)
    if (!r.divergent_gtid.empty()) divergent[site] = r.divergent_gtid;
  auto v = validate_reclone_token(in.value, c.rules.group, c.rules.sites, divergent,
                                  st.view.active_site, st.durable.restore_freeze);
  if (!v.accepted) {
    auto f = c.fields(v.site);
    f["reason"] = v.reason;
    c.log(log_level::warn, "reclone rejected", f);
    c.emit("Warning", "RecloneRejected", v.reason, v.site);
    c.answer = "rejected: " + v.reason;
    return;
  }
  c.log(log_level::info, "reclone requested", c.fields(v.site));
  c.emit("Normal", "RecloneRequested",
         "reclone of " + v.site + " requested (" + to_string(v.kind) + ")", v.site);
  c.metric(metric_kind::reclone, v.site);
  // The executor clones only when what the site holds beyond the donor is inside what this
  // request confirmed: the matched divergentGtid, or nothing for a cold reclone.
  std::string confirmed;
  if (v.kind == reclone_kind::divergent_prefix) confirmed = divergent[v.site];
  if (v.kind == reclone_kind::restore_token) {
    // The token confirms the discard once per site: recorded with the plan, before it runs.
    auto rec = st.durable.restore_freeze;
    rec.recloned.push_back(v.site);
    persist(c, change_restore_freeze{rec, st.durable.restore_freeze});
    confirmed = restore_discard(rec.token);
  }
  start_plan(c, plan_kind::reclone, v.site, "", false, false, confirmed);
  c.answer = "accepted: reclone of " + v.site + " (" + to_string(v.kind) + ")";
}

}  // namespace br::step_detail
