// step(): planned failover requests and their record (see step_planned.hpp).
#include "actors/operator/decide/step_planned.hpp"

#include <chrono>

#include "actors/operator/decide/planned_dragonfly.hpp"
#include "actors/operator/decide/planned_failover.hpp"

namespace br::step_detail {

namespace {

bool is_planned(const failover_plan& p) { return p.kind == plan_kind::switchover; }

int64_t ms_of(caf::timespan d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

/// A refusal. `stored`: the refused request had been accepted (Deferred, validated again): its
/// record leaves Deferred in the store too; otherwise it is shown from memory only.
void reject(context& c, const std::string& target, const std::string& reason,
            const std::string& message, bool stored) {
  auto rec = planned_rejected(target, c.st.view.active_site, reason, message, c.wall_ms());
  if (stored) {
    rec.request = c.st.durable.planned.request;
    rec.started_ms = c.st.durable.planned.started_ms;
    rec.max_lag_wait_ms = c.st.durable.planned.max_lag_wait_ms;
    c.st.planned = rec;
    persist(c, change_planned{rec});
  } else {
    c.st.planned_refused = rec;
  }
  auto f = c.fields(target);
  f["reason"] = reason;
  f["message"] = message;
  c.log(log_level::warn, "planned failover rejected", f);
  c.emit("Warning", "PlannedFailoverRejected", reason + ": " + message, target);
  c.metric(metric_kind::planned_failover, target, -1, "rejected");
  status_changed(c, true);
  c.answer = "rejected: " + reason + ": " + message;
}

/// Validates a request (`retry`: the stored one, Deferred or back from its Dragonfly sync,
/// validated again) and starts, defers, skips or refuses it. `synced`: the record after the
/// Dragonfly sync (the plan starts with its dragonfly part); without it, a start with Dragonfly
/// managed waits for the sync first (WaitingForDragonflySync).
void validate(context& c, const std::string& target, std::optional<caf::timespan> max_lag_wait,
              bool retry, const planned_failover_record* synced = nullptr) {
  auto& st = c.st;
  const auto& deferred = st.durable.planned;
  std::string running;
  if (st.durable.plan_active)
    running = "another plan (" + to_string(st.durable.plan.kind) + " of " +
              st.durable.plan.candidate + ")";
  else if (st.durable.bootstrap.in_progress())
    running = "the " + st.durable.bootstrap.source + " bootstrap";
  else if (st.durable.restore_freeze.frozen)
    running = "an in-place restore (spec.restoreInPlace, token " + st.durable.restore_freeze.token + ")";
  if (!retry && running.empty() &&
      (st.planned.phase == planned_phase_dragonfly_sync || st.planned.phase == planned_phase_dragonfly_promote))
    running = "the planned failover to " + st.planned.target + " (" + st.planned.phase + ")";
  if (!retry && running.empty() && deferred.phase == "Deferred") {
    if (deferred.target == target) {
      c.answer = "running: planned failover to " + target + " is Deferred (" + deferred.message + ")";
      return;
    }
    running = "a deferred planned failover to " + deferred.target + " (cancel it first)";
  }
  if (running.empty() && busy(st)) {  // transient: not loaded yet, or a durable write in flight
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  planned_facts f;
  f.group = {c.rules.sites, roles_now(c), st.view.active_site, busy(st), st.reports,  // fenced: read-only
             st.durable.restore_freeze.pending};
  f.now_ms = c.wall_ms();
  f.last_failover_ms = st.durable.last_failover_ms;
  f.cooldown = c.rules.failover_cooldown;
  f.running = running;
  f.defer_on_cooldown = c.rules.defer_on_cooldown;
  auto v = check_planned_failover(f, target);
  group_rules rules = c.rules;
  if (max_lag_wait) rules.max_lag_wait = *max_lag_wait;
  uint64_t request = retry ? deferred.request : st.durable.planned.request + 1;
  auto source = st.view.active_site;
  switch (v.decision) {
    case planned_decision::reject:
      reject(c, target, v.reason, v.message, retry);
      return;
    case planned_decision::skip: {
      c.log(log_level::info, "planned failover skipped", c.fields(target));
      c.emit("Normal", "PlannedFailoverSkipped", v.message, target);
      c.answer = "accepted: nothing to do, " + v.message;
      if (retry) {  // the deferred request is over: its target became the active site meanwhile
        auto rec = deferred;
        rec.phase = "Succeeded";
        rec.reason.clear();
        rec.retry_after_ms = 0;
        rec.message = "nothing to do: " + v.message;
        rec.finished_ms = c.wall_ms();
        st.planned = rec;
        persist(c, change_planned{rec});
      }
      return;
    }
    case planned_decision::defer: {
      c.answer = "accepted: " + v.message;
      if (retry && deferred.retry_after_ms == v.retry_after_ms) return;  // nothing new
      auto rec = planned_deferred(target, source, request, ms_of(rules.max_lag_wait),
                                  v.retry_after_ms, retry ? deferred.started_ms : c.wall_ms(),
                                  v.message);
      st.planned = rec;
      persist(c, change_planned{rec});
      auto fl = c.fields(target);
      fl["retryAfterMs"] = v.retry_after_ms;
      c.log(log_level::info, "planned failover deferred", fl);
      return;
    }
    case planned_decision::start:
      break;
  }
  auto rec = planned_started(target, source, st.durable.plan.id + 1, request, rules.max_lag_wait,
                             c.wall_ms());
  if (retry) rec.started_ms = deferred.started_ms;
  if (synced) {
    rec.dragonfly = synced->dragonfly;
    rec.message = synced->message;
  } else if (c.rules.dragonfly.enabled) {
    // MySQL is not touched before the cache replica on the target caught up (or the wait ended).
    rec = planned_sync_started(rec, c.rules.dragonfly, c.wall_ms());
    st.planned = rec;
    persist(c, change_planned{rec});
    c.out.emplace_back(effect::dragonfly_handover{planned_handover_request(rec), planned_handover_deadline(rec)});
    auto fl = c.fields(target);
    fl["source"] = source;
    fl["maxSyncWaitMs"] = rec.dragonfly.max_sync_wait_ms;
    c.log(log_level::info, "planned failover: waiting for the cache replica before the fence", fl);
    status_changed(c, true);
    c.answer = "accepted: " + v.message + " (the cache replica on " + target + " catches up first)";
    return;
  }
  st.planned = rec;
  auto fl = c.fields(target);
  fl["source"] = source;
  fl["maxLagWaitMs"] = rec.max_lag_wait_ms;
  c.log(log_level::info,
        synced  ? "planned failover starts after the cache sync"
        : retry ? "deferred planned failover starts"
                : "planned failover requested",
        fl);
  context with_lag{rules, c.st, c.clock, c.out, c.answer};
  start_plan(with_lag, plan_kind::switchover, target, source, true, true, "", rec);
  c.answer = "accepted: " + v.message;
}

}  // namespace

void on_planned_annotation(context& c, const std::string& value) {
  if (value == planned_cancel_value) return on_planned_cancel(c);
  auto req = parse_planned_annotation(value);
  if (!req.ok) {
    reject(c, "", "InvalidAnnotation",
           std::string(planned_failover_annotation) + "=\"" + value + "\": " + req.error, false);
    return;
  }
  on_planned_request(c, req.target, req.max_lag_wait);
}

void on_planned_request(context& c, const std::string& target,
                        std::optional<caf::timespan> max_lag_wait) {
  validate(c, target, max_lag_wait, false);
}

void on_planned_cancel(context& c) {
  auto& st = c.st;
  const auto& r = st.durable.planned;
  if (r.phase != "Deferred") {
    c.answer = r.in_progress() ? "rejected: the planned failover to " + r.target + " is " +
                                     r.phase + "; only a Deferred one can be cancelled"
                               : std::string("rejected: no planned failover is waiting");
    return;
  }
  if (busy(st)) {
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  auto rec = planned_cancelled(r, c.wall_ms());
  st.planned = rec;
  persist(c, change_planned{rec});
  c.log(log_level::info, "deferred planned failover cancelled", c.fields(rec.target));
  c.answer = "accepted: the deferred planned failover to " + rec.target + " is cancelled";
}

void planned_retry_deferred(context& c) {
  const auto& r = c.st.durable.planned;
  if (r.phase != "Deferred" || c.wall_ms() < r.retry_after_ms) return;
  std::optional<caf::timespan> lag;
  if (r.max_lag_wait_ms > 0) lag = std::chrono::milliseconds(r.max_lag_wait_ms);
  auto target = r.target;
  std::optional<std::string> ignored;
  context quiet{c.rules, c.st, c.clock, c.out, ignored};  // nobody waits for this answer
  validate(quiet, target, lag, true);
}

void planned_record_persisted(context& c, const change_planned& x, bool ok) {
  const auto& r = x.record;
  auto f = c.fields(r.target);
  f["phase"] = r.phase;
  if (!ok) {
    // The store still holds the previous record; a Deferred one is validated again later.
    c.log(log_level::error, "planned failover record not persisted", f);
    c.st.planned = c.st.durable.planned;
    status_changed(c, true);
    return;
  }
  if (r.phase == "Deferred")
    c.emit("Normal", "PlannedFailoverDeferred", r.message, r.target);
  else if (r.reason == "Cancelled")
    c.emit("Normal", "PlannedFailoverFailed", "Cancelled: " + r.message, r.target);
  if (r.phase == "Failed" && r.reason == "Cancelled")
    c.metric(metric_kind::planned_failover, r.target, -1, "failed_other");
  status_changed(c, true);
}

void planned_plan_started(context& c, const failover_plan& plan, bool ok) {
  if (!is_planned(plan)) return;
  if (!ok) {
    auto r = c.st.planned.plan_id == plan.id ? c.st.planned : c.st.durable.planned;
    r.phase = "Failed";
    r.reason = "ExecuteFailed";
    r.message = "the plan could not be persisted; nothing was changed";
    r.finished_ms = c.wall_ms();
    c.st.planned_refused = r;  // the store holds the previous record: this one is memory only
    c.st.planned = c.st.durable.planned;
    c.emit("Warning", "PlannedFailoverFailed", "ExecuteFailed: " + r.message, plan.candidate);
    c.metric(metric_kind::planned_failover, plan.candidate, -1, "failed_other");
    status_changed(c, true);
    return;
  }
  const auto& r = c.st.durable.planned;
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

void planned_phase_persisted(context& c, plan_phase phase, const plan_facts&) {
  const auto& plan = c.st.durable.plan;
  if (!is_planned(plan)) return;
  const auto& r = c.st.durable.planned;
  if (phase == plan_phase::draining && r.plan_id == plan.id) {
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
  const auto& r = c.st.durable.planned;
  if (r.plan_id != x.plan.id) return;
  if (r.phase == planned_phase_dragonfly_promote) {  // MySQL moved: now the cache master
    c.emit("Normal", "DragonflyPromotionStarted",
           "moving the cache master to " + r.target + " (MySQL's new active site)", r.target);
    c.out.emplace_back(effect::dragonfly_handover{planned_handover_request(r), planned_handover_deadline(r)});
    status_changed(c, true);
    return;
  }
  if (r.in_progress()) return;
  planned_ended(c, r);
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

void planned_ended(context& c, const planned_failover_record& r) {
  double seconds = r.started_ms > 0 ? static_cast<double>(r.finished_ms - r.started_ms) / 1000.0 : -1;
  auto f = c.fields(r.target);
  f["phase"] = r.phase;
  f["reason"] = r.reason;
  f["seconds"] = seconds;
  if (r.phase == "Succeeded") {
    c.log(log_level::info, "planned failover succeeded", f);
    c.emit("Normal", "PlannedFailoverCompleted", r.message, r.target);
  } else {
    c.log(log_level::error, "planned failover failed", f);
    c.emit("Warning", "PlannedFailoverFailed", r.reason + ": " + r.message, r.target);
    // The source is gone: the emergency failover must not wait out the failed plan's retry delay.
    if (r.reason == "SourceCrashed") c.st.last_plan_failure.reset();
  }
  c.metric(metric_kind::planned_failover, r.target, seconds, planned_result_label(r));
  status_changed(c, true);
}

void on_planned_dragonfly_report(context& c, const dragonfly_handover_report& rep) {
  auto& st = c.st;
  const auto& r = st.planned;
  auto f = c.fields(r.target);
  f["step"] = rep.promote ? "promote" : "sync";
  f["request"] = rep.request;
  f["ok"] = rep.ok;
  f["master"] = rep.master;
  f["sourceOffset"] = rep.source_offset;
  f["targetOffset"] = rep.target_offset;
  f["waitedMs"] = rep.waited_ms;
  if (!rep.method.empty()) f["method"] = rep.method;
  if (!rep.error.empty()) f["error"] = rep.error;
  if (!planned_handover_matches(r, rep)) {
    c.log(log_level::debug, "planned failover: a Dragonfly report for no waiting phase, ignored", f);
    return;
  }
  c.log(rep.ok ? log_level::info : log_level::warn,
        rep.promote ? "planned failover: the cache master's move reported" : "planned failover: the cache sync reported", f);
  if (!rep.promote) {
    st.planned_sync_report = rep;
    planned_continue_after_sync(c);
    return;
  }
  auto rec = planned_dragonfly_promoted(r, rep, c.wall_ms());
  st.planned = rec;
  persist(c, change_planned{rec});
  if (rep.ok)
    c.emit("Normal", "DragonflyPromotionCompleted", rec.dragonfly.message, rec.target);
  else
    c.emit("Warning", "DragonflyPromotionFailed", rec.dragonfly.message, rec.target);
  planned_ended(c, rec);
}

void planned_continue_after_sync(context& c) {
  auto& st = c.st;
  if (!st.planned_sync_report) return;
  if (!planned_handover_matches(st.planned, *st.planned_sync_report)) {
    st.planned_sync_report.reset();
    return;
  }
  if (busy(st)) return;  // a write or another plan: validated again once it is over
  auto rep = *st.planned_sync_report;
  st.planned_sync_report.reset();
  auto v = planned_sync_done(st.planned, rep, c.wall_ms());
  const auto& rec = v.record;
  if (v.timed_out)
    c.emit("Warning", "DragonflySyncTimeout",
           rec.dragonfly.message + (v.start_mysql ? "; MySQL proceeds (onSyncTimeout=proceed), sessionsPreserved=false"
                                                  : "; rolled back before MySQL was touched (onSyncTimeout=fail)"),
           rec.target);
  if (!v.start_mysql) {  // nothing was fenced or promoted: the request ends here
    st.planned = rec;
    persist(c, change_planned{rec});
    planned_ended(c, rec);
    return;
  }
  std::optional<caf::timespan> lag;
  if (rec.max_lag_wait_ms > 0) lag = std::chrono::milliseconds(rec.max_lag_wait_ms);
  std::optional<std::string> ignored;
  context quiet{c.rules, c.st, c.clock, c.out, ignored};  // nobody waits for this answer
  auto synced = rec;
  validate(quiet, synced.target, lag, true, &synced);  // the group may have changed meanwhile
}

void planned_resume_dragonfly(context& c) {
  const auto& r = c.st.durable.planned;
  if (!r.dragonfly.enabled) return;
  const bool sync = r.phase == planned_phase_dragonfly_sync && !c.st.durable.plan_active;
  if (!sync && r.phase != planned_phase_dragonfly_promote) return;
  c.log(log_level::info, "planned failover: asking the Dragonfly manager again after a restart", c.fields(r.target));
  c.out.emplace_back(effect::dragonfly_handover{planned_handover_request(r), planned_handover_deadline(r)});
}

}  // namespace br::step_detail
