// step(): planned failover requests and their record (see step_planned.hpp).
#include "actors/operator/decide/step_planned.hpp"

#include <chrono>

#include "actors/operator/decide/planned_failover.hpp"

namespace br::step_detail {

namespace {

bool is_planned(const failover_plan& p) { return p.kind == plan_kind::switchover; }

/// The record of the running switchover plan (rebuilt when the operator restarted mid-plan).
planned_failover_record& record_of(context& c, const failover_plan& plan) {
  auto& r = c.st.planned;
  if (r.plan_id != plan.id || !r.in_progress()) {
    r = planned_started(plan.candidate, plan.old_primary, plan.id, plan.max_lag_wait, 0);
    r.message = "rebuilt after an operator restart: " + r.message;
  }
  return r;
}

void reject(context& c, const std::string& target, const std::string& reason,
            const std::string& message) {
  c.st.planned = planned_rejected(target, c.st.view.active_site, reason, message, c.wall_ms());
  auto f = c.fields(target);
  f["reason"] = reason;
  f["message"] = message;
  c.log(log_level::warn, "planned failover rejected", f);
  c.emit("Warning", "PlannedFailoverRejected", reason + ": " + message, target);
  c.metric(metric_kind::planned_failover, target, -1, "rejected");
  status_changed(c, true);
  c.answer = "rejected: " + reason + ": " + message;
}

}  // namespace

void on_planned_annotation(context& c, const std::string& value) {
  auto req = parse_planned_annotation(value);
  if (!req.ok) {
    reject(c, "", "InvalidAnnotation",
           std::string(planned_failover_annotation) + "=\"" + value + "\": " + req.error);
    return;
  }
  on_planned_request(c, req.target, req.max_lag_wait);
}

void on_planned_request(context& c, const std::string& target,
                        std::optional<caf::timespan> max_lag_wait) {
  auto& st = c.st;
  std::string running;
  if (st.durable.plan_active)
    running = "another plan (" + to_string(st.durable.plan.kind) + " of " +
              st.durable.plan.candidate + ")";
  else if (st.durable.bootstrap.in_progress())
    running = "the " + st.durable.bootstrap.source + " bootstrap";
  if (running.empty() && busy(st)) {  // transient: not loaded yet, or a durable write in flight
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  planned_facts f;
  f.group = {c.rules.sites, roles_now(c), st.view.active_site, busy(st), st.reports};  // fenced: read-only
  f.now_ms = c.wall_ms();
  f.last_failover_ms = st.durable.last_failover_ms;
  f.cooldown = c.rules.failover_cooldown;
  f.running = running;
  auto v = check_planned_failover(f, target);
  if (v.decision == planned_decision::reject) {
    reject(c, target, v.reason, v.message);
    return;
  }
  if (v.decision == planned_decision::skip) {
    c.log(log_level::info, "planned failover skipped", c.fields(target));
    c.emit("Normal", "PlannedFailoverSkipped", v.message, target);
    c.answer = "accepted: nothing to do, " + v.message;
    return;
  }
  group_rules rules = c.rules;
  if (max_lag_wait) rules.max_lag_wait = *max_lag_wait;
  auto source = st.view.active_site;
  st.planned = planned_started(target, source, st.durable.plan.id + 1, rules.max_lag_wait,
                               c.wall_ms());
  auto fl = c.fields(target);
  fl["source"] = source;
  fl["maxLagWaitMs"] = st.planned.max_lag_wait_ms;
  c.log(log_level::info, "planned failover requested", fl);
  context with_lag{rules, c.st, c.clock, c.out, c.answer};
  start_plan(with_lag, plan_kind::switchover, target, source, true, true);
  c.answer = "accepted: " + v.message;
}

void planned_plan_started(context& c, const failover_plan& plan, bool ok) {
  if (!is_planned(plan)) return;
  auto& r = record_of(c, plan);
  if (!ok) {
    r.phase = "Failed";
    r.reason = "ExecuteFailed";
    r.message = "the plan could not be persisted; nothing was changed";
    r.finished_ms = c.wall_ms();
    c.emit("Warning", "PlannedFailoverFailed", "ExecuteFailed: " + r.message, plan.candidate);
    c.metric(metric_kind::planned_failover, plan.candidate, -1, "failed_other");
    status_changed(c, true);
    return;
  }
  c.emit("Normal", "PlannedFailoverStarted",
         "planned failover from " + plan.old_primary + " to " + plan.candidate + " started at epoch " +
             std::to_string(plan.epoch) + " (maxLagWait " +
             std::to_string(r.max_lag_wait_ms / 1000) + " s)",
         plan.candidate);
  c.emit("Normal", "PlannedFailoverDraining",
         "fencing " + plan.old_primary + " (super_read_only) and killing its application sessions",
         plan.old_primary);
  status_changed(c, true);
}

void planned_phase_persisted(context& c, plan_phase phase, const plan_facts& facts) {
  const auto& plan = c.st.durable.plan;
  if (!is_planned(plan)) return;
  auto& r = record_of(c, plan);
  auto before = r.phase;
  r = planned_advanced(r, phase, facts.source_gtid, c.wall_ms());
  if (r.phase == before) return;
  if (phase == plan_phase::draining) {
    double waited = r.lag_wait_started_ms > 0
                        ? static_cast<double>(r.promote_started_ms - r.lag_wait_started_ms) / 1000.0
                        : -1;
    c.emit("Normal", "PlannedFailoverLagOK",
           plan.candidate + " executed every transaction of the fenced source " + plan.old_primary +
               " (" + r.source_gtid_at_fence + ")",
           plan.candidate);
    if (waited >= 0) c.metric(metric_kind::planned_lag_wait, plan.candidate, waited);
  }
  status_changed(c, true);
}

void planned_plan_done(context& c, const change_plan_done& x) {
  if (!is_planned(x.plan)) return;
  if (c.st.planned.plan_id == x.plan.id && !c.st.planned.in_progress()) return;  // said already
  auto& r = record_of(c, x.plan);
  auto src = c.st.reports.find(x.plan.old_primary);
  bool reachable = src != c.st.reports.end() && src->second.probe_ok;
  auto o = planned_finished(r, x.result, reachable, c.wall_ms());
  r = o.record;
  double seconds = r.started_ms > 0 ? static_cast<double>(r.finished_ms - r.started_ms) / 1000.0 : -1;
  auto f = c.fields(x.plan.candidate);
  f["phase"] = r.phase;
  f["reason"] = r.reason;
  f["seconds"] = seconds;
  if (r.phase == "Succeeded") {
    c.log(log_level::info, "planned failover succeeded", f);
    c.emit("Normal", "PlannedFailoverCompleted", r.message, x.plan.candidate);
  } else {
    c.log(log_level::error, "planned failover failed", f);
    c.emit("Warning", "PlannedFailoverFailed", r.reason + ": " + r.message, x.plan.candidate);
    // The source is gone: the emergency failover must not wait out the failed plan's retry delay.
    if (r.reason == "SourceCrashed") c.st.last_plan_failure.reset();
  }
  c.metric(metric_kind::planned_failover, x.plan.candidate, seconds, o.result);
  status_changed(c, true);
}

void planned_note_deferral(context& c) {
  auto& st = c.st;
  if (!st.durable.plan_active || !is_planned(st.durable.plan)) return;
  if (st.planned_deferral_logged == st.durable.plan.id) return;
  st.planned_deferral_logged = st.durable.plan.id;
  auto f = c.fields(st.durable.plan.candidate);
  f["plan"] = st.durable.plan.id;
  c.log(log_level::info, "cross-site action deferred: planned failover in progress", f);
}

}  // namespace br::step_detail
