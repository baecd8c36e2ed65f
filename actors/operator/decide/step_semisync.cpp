// step(): semi-synchronous replication (docs/safety.md "Semi-synchronous replication"). The
// in-step judgement of each replica against the active primary, made on every poll while no plan
// runs, and the facts a failover plan carries to the executor's gate (rule 4, the no-loss
// candidate).
#include "actors/operator/decide/semisync_gate.hpp"
#include "actors/operator/decide/semisync_in_step.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

namespace {

/// The relay logs of these sites are deleted by the plan (RESET REPLICA, a repoint, a CLONE).
std::vector<std::string> sites_reset_by(const failover_plan& plan) {
  if (is_promotion_kind(plan.kind)) {
    auto all = plan.followers;
    all.push_back(plan.candidate);
    if (!plan.old_primary.empty()) all.push_back(plan.old_primary);
    return all;
  }
  return {plan.candidate};
}

}  // namespace

void judge_semisync(context& c, const site_report& r) {
  auto& st = c.st;
  if (c.rules.semisync_k == 0 || !r.probe_ok) return;
  // A plan may be repointing or resetting channels right now: judge only between plans.
  if (busy(st) || st.durable.plan_active) return;
  const auto& active = st.view.active_site;
  if (active.empty()) return;
  if (r.site == active) {
    const auto& ss = r.probe.semisync;
    if (r.probe.writable() &&
        (!ss.source_enabled || ss.wait_count != c.rules.semisync_k ||
         ss.timeout_ms < semisync_timeout_max_ms || !ss.wait_no_replica ||
         ss.wait_point != "AFTER_SYNC")) {
      // A primary adopted writable (never promoted by the operator), or one whose settings were
      // changed by hand: switched on, at most once per poll interval, and said once (the group is
      // not semi-synchronous until then; rule 4 does not apply to it).
      if (!st.semisync_switch_sent || c.clock.now - *st.semisync_switch_sent >= c.rules.poll_interval) {
        st.semisync_switch_sent = c.clock.now;
        c.out.emplace_back(effect::semisync_source{r.site, c.rules.semisync_k});
      }
      c.alert_once("semisync-source-off:" + r.site, "Warning", "SemiSyncSourceOff",
                   r.site + " is the active primary but its semi-synchronous source side is not "
                   "on as configured (" + (ss.source_loaded ? "enabled " +
                   std::string(ss.source_enabled ? "ON" : "OFF") + ", K " +
                   std::to_string(ss.wait_count) : std::string("plugin not loaded")) +
                   "); switching it on", r.site);
    }
    auto& base = st.semisync_no_tx_base;
    if (!base || base->epoch != st.view.epoch || r.probe.semisync.no_tx < base->no_tx)
      base = group_state::no_tx_base{st.view.epoch, r.probe.semisync.no_tx};
    st.semisync_primary = group_state::primary_read{r.site,           st.view.epoch,
                                                    r.probe.gtid_executed, r.probe.server_uuid,
                                                    r.probe_sent,     r.probe_done};
    return;
  }
  const auto& p = st.semisync_primary;
  if (!p || p->site != active || p->epoch != st.view.epoch) return;
  auto primary_set = gtid_set::parse(p->gtid_executed);
  auto executed = gtid_set::parse(r.probe.gtid_executed);
  auto received = gtid_set::parse(r.probe.received_gtid);
  if (!primary_set || !executed || !received) return;
  in_step_facts f;
  f.epoch = st.view.epoch;
  f.primary_executed = *primary_set;
  f.started_at = r.probe.started_at;
  f.uptime_s = r.probe.uptime_s;
  f.receiving_from_primary = r.probe.io_state == "ON" && !p->server_uuid.empty() &&
                             r.probe.source_uuid == p->server_uuid;
  f.received = executed->unite(*received);
  f.ordered = p->done <= r.probe_sent;
  f.window_s = window_seconds(r.probe_done - p->sent);
  auto& rec = st.semisync_in_step[r.site];
  auto next = judge_in_step(rec, f);
  if (next.in_step != rec.in_step) {
    auto fl = c.fields(r.site);
    fl["inStep"] = next.in_step;
    fl["startedAt"] = next.started_at;
    c.log(log_level::info,
          next.in_step ? "semi-sync: replica judged in step with the primary"
                       : "semi-sync: replica no longer in step (restarted or a new primary)",
          fl);
  }
  rec = next;
}

void semisync_plan(context& c, failover_plan& plan) {
  auto& st = c.st;
  if (c.rules.semisync_k == 0) return;
  // Every plan switches the sides it touches: the promoted site's source on, repointed or repaired
  // sites' source off and receiver on.
  plan.semisync_k = c.rules.semisync_k;
  if (is_promotion_kind(plan.kind) && plan.kind != plan_kind::bootstrap && !plan.old_primary.empty()) {
    std::string why;
    if (auto it = st.good_probes.find(plan.old_primary); it != st.good_probes.end()) {
      auto ss = it->second.semisync;
      const auto& base = st.semisync_no_tx_base;
      if (base && base->epoch == st.view.epoch && ss.no_tx >= base->no_tx) ss.no_tx -= base->no_tx;
      plan.semisync_confirmed = semisync_source_confirmed(ss, c.rules.semisync_k,
                                                          c.rules.sites.size() - 1,
                                                          semisync_timeout_max_ms, &why);
    } else
      why = "never probed";
    for (const auto& [site, rec] : st.semisync_in_step)
      if (rec.in_step && rec.epoch == st.view.epoch && site != plan.old_primary)
        plan.semisync_in_step[site] = rec.started_at;
    auto f = c.fields(plan.candidate);
    f["sourceConfirmed"] = plan.semisync_confirmed;
    if (!why.empty()) f["why"] = why;
    f["inStep"] = plan.semisync_in_step.size();
    c.log(log_level::info, "semi-sync facts of the plan", f);
  }
  for (const auto& site : sites_reset_by(plan)) st.semisync_in_step.erase(site);
  if (is_promotion_kind(plan.kind)) st.semisync_primary.reset();
}

}  // namespace br::step_detail
