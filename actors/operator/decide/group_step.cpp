// step(): the dispatch, the durable-state discipline (persist before publish, one write at a
// time, epochs never go back) and the handling of site reports.
#include "actors/operator/decide/group_step.hpp"

#include <algorithm>

#include "actors/operator/decide/bootstrap_record.hpp"
#include "actors/operator/decide/coordinator_decide.hpp"
#include "actors/operator/decide/planned_dragonfly.hpp"
#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/decide/recovery.hpp"
#include "actors/operator/decide/step_context.hpp"
#include "actors/operator/decide/step_planned.hpp"

namespace br {

namespace {

/// The planned failover record of the running switchover plan: rebuilt when the store holds none
/// for it (a state written before records were kept with the plan).
planned_failover_record& planned_of(durable_state& d, int64_t at_ms) {
  if (d.planned.plan_id != d.plan.id)
    d.planned = planned_started(d.plan.candidate, d.plan.old_primary, d.plan.id,
                                d.planned.request + 1, d.plan.max_lag_wait, at_ms);
  return d.planned;
}

}  // namespace

durable_state apply_change(durable_state d, const durable_change& c) {
  std::visit(
      overload{
          [&](const change_adopt& x) { d.view = {d.view.epoch + 1, x.site, "", x.at_ms, {}}; },
          [&](const change_start_plan& x) {
            if (x.bump) d.view = {x.plan.epoch, "", x.plan.old_primary, x.at_ms, {}};
            d.plan_active = true;
            d.plan = x.plan;
            if (x.planned) {
              d.planned = *x.planned;
              d.planned.plan_id = x.plan.id;
            }
            record_plan_started(d.bootstrap, x.plan, x.at_ms);
            if (x.plan.kind == plan_kind::recover)
              d.recovery[x.plan.candidate].state = "RecoveryInProgress";
            // Classified once: a later divergence of that site is no longer covered by the
            // semi-sync failover's "never acknowledged" (review V5 M3).
            if (is_repair_kind(x.plan.kind) && x.plan.candidate == d.semisync_unacked_site)
              d.semisync_unacked_site.clear();
          },
          [&](const change_plan_done& x) {
            const auto& plan = x.plan;
            bool promotion = is_promotion_kind(plan.kind);
            d.plan_active = false;
            record_plan_done(d.bootstrap, plan, x.result, x.at_ms);
            // A restore-pending site is released only by its reclone's success (issue 21 M7).
            if (plan.kind == plan_kind::reclone)
              d.restore_freeze = after_reclone(d.restore_freeze, plan.candidate, x.result.ok);
            if (plan.kind == plan_kind::switchover && d.planned.plan_id == plan.id &&
                d.planned.in_progress())
              d.planned = planned_after_mysql(
                  planned_finished(d.planned, x.result, x.source_reachable, x.at_ms).record, x.at_ms);
            if (!x.result.ok) {
              d.plan.phase = plan_phase::failed;
              // A failed rejoin is tried again on a later poll (after plan_retry_delay).
              if (plan.kind == plan_kind::recover)
                d.recovery[plan.candidate] = {recovery_state_pending, "", 0};
              // A reclone refused because the site holds transactions nobody confirmed: blocked
              // with everything it holds beyond the donor, for a person to confirm.
              if (plan.kind == plan_kind::reclone)
                for (const auto& l : x.result.losses)
                  if (l.kind == gtid_loss_stranded && l.site == plan.candidate)
                    d.recovery[l.site] = {"RecoveryBlocked", l.gtid, l.count};
              // A switchover rolled back before promotion: the fenced source is the active
              // primary again, under a new epoch (the coordinator then unfences it).
              if (promotion && x.result.source_kept && !plan.old_primary.empty())
                d.view = {std::max(plan.epoch, d.view.epoch) + 1, plan.old_primary, "", x.at_ms, {}};
              return;
            }
            d.plan.phase = plan_phase::done;
            if (!promotion) {
              d.recovery.erase(plan.candidate);
              return;
            }
            d.view = {std::max(plan.epoch, d.view.epoch) + 1, plan.candidate, "", x.at_ms, {}};
            // A bootstrap is no failover: it starts no anti-flap cooldown (S7).
            if (plan.kind != plan_kind::bootstrap) d.last_failover_ms = x.at_ms;
            d.last_failover_target = plan.candidate;
            d.promotion_gtid =
                x.result.promotion_gtid.empty() ? d.plan.promotion_gtid : x.result.promotion_gtid;
            d.plan.promotion_gtid = d.promotion_gtid;
            d.last_failover_losses = x.result.losses;
            d.semisync_unacked_site = x.result.semisync_no_loss ? plan.old_primary : "";
            if (plan.kind != plan_kind::bootstrap)
              note_promoted_during_bootstrap(d.bootstrap, plan.candidate, x.at_ms);
            // A follower that holds transactions the new primary lacks can no longer follow it.
            for (const auto& l : x.result.losses)
              if (l.kind == gtid_loss_stranded) d.recovery[l.site] = {"RecoveryBlocked", l.gtid, l.count};
          },
          [&](const change_phase& x) {
            if (d.plan.kind == plan_kind::switchover)
              planned_of(d, x.at_ms) =
                  planned_advanced(planned_of(d, x.at_ms), x.phase, x.facts.source_gtid, x.at_ms);
            d.plan.phase = x.phase;
            record_plan_phase(d.bootstrap, d.plan, x.phase);
            if (!x.facts.promotion_gtid.empty()) d.plan.promotion_gtid = x.facts.promotion_gtid;
            if (!x.facts.source_gtid.empty()) d.plan.source_gtid = x.facts.source_gtid;
            if (!x.facts.losses.empty()) d.plan.losses = x.facts.losses;
          },
          [&](const change_mark_pending& x) {
            for (const auto& s : x.sites)
              if (d.recovery[s].state.empty()) d.recovery[s].state = recovery_state_pending;
          },
          [&](const change_mark_blocked& x) {
            d.recovery[x.site] = {"RecoveryBlocked", x.divergent_gtid, x.divergent_count};
          },
          [&](const change_manual_fence& x) { d.manually_fenced = x.sites; },
          [&](const change_restore_freeze& x) { d.restore_freeze = x.record; },
          [&](const change_planned& x) { d.planned = x.record; },
          [&](const change_gr& x) {
            d.gr = merge_gr(d.gr, x.gr);
            if (x.recovery_begin) {
              d.gr.recovery_request = x.gr.recovery_request;
              d.gr.recovery_kind = x.gr.recovery_kind;
              d.gr.recovery_site = x.gr.recovery_site;
              d.gr.recovery_open = true;
            }
            if (x.recovery_end) d.gr.recovery_open = false;
            if (x.view_max_after) d.gr.observed_view_max = *x.view_max_after;
            if (x.leave_update) d.gr.leaving = x.gr.leaving;
            if (x.active) d.view = {d.view.epoch + 1, *x.active, "", x.at_ms, {}};
          },
          [&](const change_bootstrap& x) {
            d.bootstrap = x.record;
            for (const auto& b : x.blocked)
              d.recovery[b.site] = {"RecoveryBlocked", b.divergent_gtid, b.divergent_count};
          },
      },
      c);
  return d;
}

bool busy(const group_state& s) {
  return !s.loaded || s.persisting.has_value() || !s.persist_queue.empty() ||
         s.durable.plan_active;
}

namespace step_detail {

namespace {

void start_next_persist(context& c) {
  auto& st = c.st;
  if (st.persisting || st.persist_queue.empty()) return;
  st.persisting = std::move(st.persist_queue.front());
  st.persist_queue.pop_front();
  auto next = apply_change(st.durable, *st.persisting);
  // S6: the epoch never goes backwards, whatever a change computed.
  next.view.epoch = std::max(next.view.epoch, st.durable.view.epoch);
  st.persisting_next = next;
  c.out.emplace_back(effect::persist{std::move(next)});
}

/// The durable view becomes the published one (only ever after it was persisted).
void publish(context& c) {
  auto& st = c.st;
  const auto& d = st.durable.view;
  if (st.view.epoch != d.epoch || st.view.active_site != d.active_site ||
      st.view.deposing != d.deposing) {
    st.view = d;
    auto f = c.fields();
    f["activeSite"] = st.view.active_site;
    f["deposing"] = st.view.deposing;
    c.log(log_level::info, "view published", f);
    // Group Replication: the group fences itself; the sidecars get no async view to enforce.
    if (!c.rules.gr.enabled) c.out.emplace_back(effect::publish{st.view});
  }
  status_changed(c, true);
}

/// The follow-up of a change once the store answered.
void change_persisted(context& c, const durable_change& change, bool ok) {
  std::visit(overload{
                 [&](const change_adopt&) {},
                 [&](const change_mark_pending&) {},
                 [&](const change_mark_blocked& x) { recovery_persisted(c, x, ok); },
                 [&](const change_bootstrap& x) { bootstrap_persisted(c, x, ok); },
                 [&](const change_manual_fence& x) { fence_persisted(c, x, ok); },
                 [&](const change_restore_freeze& x) { restore_freeze_persisted(c, x, ok); },
                 [&](const change_planned& x) { planned_record_persisted(c, x, ok); },
                 [&](const change_gr& x) { gr_persisted(c, x, ok); },
                 [&](const auto&) { plan_persisted(c, change, ok); },
             },
             change);
}

/// The topology's evaluation after a report or a load.
void evaluate(context& c) {
  if (c.rules.gr.enabled) {
    gr_evaluate(c);
  } else if (!(c.st.durable.gr == gr_durable{})) {
    // The mode is immutable: a group that ran as Group Replication is never run by the async
    // rules (they would adopt, fence and repoint members of a group).
    c.alert_once("gr-mode", "Warning", "ReplicationModeChanged",
                 "this group has run as Group Replication (group " + c.st.durable.gr.group_name +
                     "): spec.replication.mode is immutable; nothing is done");
  } else {
    evaluate_and_act(c);
  }
}

}  // namespace

void on_persisted(context& c, const input::persisted& in) {
  bool ok = in.ok;
  auto& st = c.st;
  if (!st.persisting) return;  // nothing was asked: a stray answer
  // The write counts as running until its follow-up is done: a change the follow-up queues waits
  // its turn, and busy() holds throughout.
  auto change = *st.persisting;
  if (ok) {
    bool planned_moved = !(st.persisting_next.planned == st.durable.planned);
    st.durable = std::move(st.persisting_next);
    if (planned_moved) st.planned = st.durable.planned;  // the stored record is the one shown
    publish(c);
  } else {
    auto f = c.fields();
    if (!in.error.empty()) f["error"] = in.error;
    c.log(log_level::error, in.error.empty() ? "state persist refused" : "state persist failed", f);
  }
  change_persisted(c, change, ok);
  st.persisting.reset();
  start_next_persist(c);
}

void on_loaded(context& c, durable_state d) {
  auto& st = c.st;
  st.durable = std::move(d);
  st.loaded = true;
  st.planned = st.durable.planned;  // status.plannedFailover survives a restart
  auto f = c.fields();
  f["activeSite"] = st.durable.view.active_site;
  f["planActive"] = st.durable.plan_active;
  c.log(log_level::info, "durable state loaded", f);
  for (const auto& [site, r] : st.durable.recovery)
    if (r.state == "RecoveryBlocked")
      c.metric(metric_kind::divergent, site, static_cast<double>(r.divergent_count));
  publish(c);
  if (st.durable.plan_active) {
    c.log(log_level::info, "resuming the persisted plan", c.fields(st.durable.plan.candidate));
    run_executor(c);
  }
  planned_resume_dragonfly(c);  // a Dragonfly phase the restart interrupted is asked again
  evaluate(c);
}

void on_report(context& c, site_report r) {
  auto& st = c.st;
  const auto& rules = c.rules;
  if (std::find(rules.sites.begin(), rules.sites.end(), r.site) == rules.sites.end() &&
      std::find(rules.gr.leaving.begin(), rules.gr.leaving.end(), r.site) == rules.gr.leaving.end())
    return;  // a leaving Group Replication member is still polled (decide/gr_scale_down.hpp)
  auto prev_it = st.reports.find(r.site);
  const site_report* prev = prev_it == st.reports.end() ? nullptr : &prev_it->second;
  bool changed = report_changes_facts(prev, r) ||
                 (rules.gr.enabled && (!prev || !(prev->probe.gr == r.probe.gr)));
  auto role = c.role_of(r.site);
  if (r.step.transitioned) {
    auto f = c.fields(r.site);
    f["from"] = std::string(to_string(r.step.from));
    f["to"] = std::string(to_string(r.step.to));
    c.log(log_level::info, "site state changed", f);
    effect::metric m;
    m.kind = metric_kind::state_transition;
    m.site = r.site;
    m.from = r.step.from;
    m.to = r.step.to;
    c.metric(std::move(m));
  }
  if (!prev || r.step.transitioned) {
    effect::metric m;
    m.kind = metric_kind::site_state;
    m.site = r.site;
    m.role = role;
    m.to = r.step.next.state;
    c.metric(std::move(m));
  }
  if (r.probe_ok) {
    st.good_probes[r.site] = r.probe;
    st.last_seen_ms[r.site] = r.polled_at_ms;
    effect::metric m;
    m.kind = metric_kind::probe;
    m.site = r.site;
    m.role = role;
    m.active = r.site == st.view.active_site;
    m.probe = r.probe;
    c.metric(std::move(m));
  }
  if (!rules.gr.enabled) maybe_heartbeat(c, r.site, r);  // no dead man's switch in GR (S7 is async)
  if (!rules.gr.enabled && r.probe_ok && r.site == st.view.active_site &&
      r.probe.semisync.source_loaded) {
    auto w = judge_semisync_waiting(st.semisync_waiting, r.site, r.probe.semisync);
    st.semisync_waiting = w.next;
    if (w.raise) {
      auto f = c.fields(r.site);
      f["reason"] = "SemiSyncWaiting";
      c.log(log_level::warn, w.message, f);
      c.emit("Warning", "SemiSyncWaiting", w.message, r.site);
    }
  }
  if (!rules.gr.enabled) judge_semisync(c, r);
  auto site = r.site;
  st.reports[site] = std::move(r);
  // Unchanged reports are evaluated at most once per poll interval: with many sites this keeps
  // the cost linear, and timed conditions (cooldown expiry, retries) are still rechecked.
  if (changed || !st.last_evaluation || c.clock.now - *st.last_evaluation >= rules.poll_interval)
    evaluate(c);
  else
    status_changed(c, false);
}

void persist(context& c, durable_change change) {
  c.st.persist_queue.push_back(std::move(change));
  start_next_persist(c);
}

void status_changed(context& c, bool now) { c.out.emplace_back(effect::status{now}); }

}  // namespace step_detail

step_result step(const group_rules& rules, group_state state, const group_input& in,
                 const step_clock& clock) {
  using namespace step_detail;
  return stepped(rules, std::move(state), clock, [&](context& c) {
  std::visit(overload{
                 [&](const input::loaded& x) { on_loaded(c, x.durable); },
                 [&](const input::report& x) { on_report(c, x.report); },
                 [&](const input::persisted& x) { on_persisted(c, x); },
                 [&](const input::phase& x) { on_phase(c, x); },
                 [&](const input::plan_done& x) { on_plan_done(c, x.result); },
                 [&](const input::executor_down& x) { on_executor_down(c, x.reason); },
                 [&](const input::annotate& x) { on_annotate(c, x); },
                 [&](const input::switchover& x) { on_planned_annotation(c, x.target); },
                 [&](const input::fenced& x) { on_fenced(c, x); },
                 [&](const input::gtid_read& x) { on_gtid_read(c, x); },
                 [&](const input::heartbeat_done& x) { on_heartbeat_done(c, x); },
                 [&](const input::reassert_done& x) { on_reassert_done(c, x); },
                 [&](const input::receiver_started& x) { on_receiver_started(c, x); },
                 [&](const input::dragonfly_report& x) { on_planned_dragonfly_report(c, x.report); },
                 [&](const input::gr_done& x) {
                   c.log(log_level::warn, "group replication reply in an async group",
                         c.fields(x.site));
                 },
             },
             in);
  });
}

}  // namespace br
