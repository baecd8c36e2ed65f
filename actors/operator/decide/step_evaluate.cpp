// step(): the cross-site evaluation and what each verdict leads to: fence writable
// non-candidates, fail over (behind its guards), resolve a split brain, adopt the writable
// primary on first start, recover a returning primary, re-assert, or alert.
#include <chrono>

#include "actors/operator/decide/cooldown.hpp"
#include "actors/operator/decide/coordinator_decide.hpp"
#include "actors/operator/decide/evaluate.hpp"
#include "actors/operator/decide/rank_candidates.hpp"
#include "actors/operator/decide/step_context.hpp"
#include "actors/operator/decide/step_planned.hpp"

namespace br::step_detail {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// The failover guards, in order: a recent failed plan (retry delay), the anti-flap cooldown,
/// a candidate whose gtid_executed is unknown, candidates with incomparable sets. Then the plan.
void maybe_failover(context& c, const group_evaluation& ev,
                    const std::vector<site_observation>& obs) {
  auto& st = c.st;
  const auto& rules = c.rules;
  if (st.last_plan_failure && c.clock.now - *st.last_plan_failure < rules.plan_retry_delay)
    return;
  auto cd = failover_cooldown(c.clock.wall, last_failover(st.durable), rules.failover_cooldown);
  if (!cd.allowed) {
    if (st.alerts.insert("cooldown").second) {
      auto f = c.fields();
      f["remainingMs"] = std::chrono::duration_cast<std::chrono::milliseconds>(cd.remaining).count();
      f["lastFailoverTarget"] = st.durable.last_failover_target;
      c.log(log_level::warn, "failover blocked by anti-flap cooldown", f);
    }
    return;
  }
  std::vector<std::string> missing;
  auto sets = candidate_sets(rules.sites, ev.candidates, st.good_probes, missing);
  if (!missing.empty()) {
    auto names = joined(missing);
    c.alert_once("gtid-unknown:" + names, "Warning", "FailoverBlocked",
                 "failover blocked: gtid_executed of " + names + " is unknown");
    return;
  }
  auto ranking = rank_candidates(sets, rules.site_priorities);
  if (ranking.incomparable || !ranking.has_winner()) {
    c.alert_once("incomparable:" + ranking.incomparable_a + "/" + ranking.incomparable_b,
                 "Warning", "FailoverBlocked",
                 "failover blocked: candidates " + ranking.incomparable_a + " and " +
                     ranking.incomparable_b + " hold incomparable GTID sets (" + ranking.message +
                     ")");
    return;
  }
  auto old = choose_old_primary(st.view, obs);
  bool reachable = false;
  if (auto r = st.reports.find(old); r != st.reports.end())
    reachable = r->second.step.next.state != site_state::unreachable;
  start_plan(c, plan_kind::failover, ranking.winner, old, reachable, true);
}

/// First start (no view yet): adopt the single writable primary candidate as the active site,
/// unless history names another site as the last failover target.
void maybe_adopt(context& c, const group_evaluation& ev) {
  auto& st = c.st;
  if (ev.writable.size() != 1 || !st.view.active_site.empty() || !st.view.deposing.empty()) return;
  const auto& w = ev.writable.front();
  if (c.role_of(w) != site_role::primary_candidate) return;
  if (!st.durable.last_failover_target.empty() && w != st.durable.last_failover_target) return;
  c.log(log_level::info, "adopting the writable primary", c.fields(w));
  persist(c, change_adopt{w, c.wall_ms()});
}

}  // namespace

void evaluate_and_act(context& c) {
  auto& st = c.st;
  if (!st.loaded) return;
  st.last_evaluation = c.clock.now;
  auto obs = build_observations(c.rules.sites, roles_now(c), st.reports);
  auto ev = evaluate(obs, c.rules.site_priorities);
  if (!st.evaluated || ev.verdict != st.evaluation.verdict || ev.message != st.evaluation.message) {
    auto f = c.fields();
    f["verdict"] = to_string(ev.verdict);
    f["message"] = ev.message;
    c.log(log_level::info, "group evaluation changed", f);
  }
  st.evaluation = ev;
  st.evaluated = true;
  status_changed(c, false);
  if (ev.verdict == group_verdict::healthy) st.alerts.clear();
  record_refused_result(c);
  if (busy(st)) {
    planned_note_deferral(c);
    return;
  }
  reconcile_fence(c);
  if (busy(st)) return;
  // spec.restoreInPlace froze the group: its active site is fenced on purpose while the restore
  // Job replaces its data; nothing may fail over, re-assert, clone or recover meanwhile.
  if (freeze_holds(c, ev)) return;
  // A new group seeded from a backup: nothing is promoted, adopted, cloned or fenced before its
  // restore succeeded (the restore target is writable while the Job loads it).
  if (hold_for_restore(c)) return;
  // A group that never had a primary and has no writable site is bootstrapped (or waits, or is
  // refused) instead of failing over or alerting (step_bootstrap.cpp).
  if (ev.writable.empty() && maybe_bootstrap(c)) return;
  switch (ev.verdict) {
    case group_verdict::fence:
      for (const auto& s : ev.fence) c.fence(s);
      break;
    case group_verdict::failover:
      maybe_failover(c, ev, obs);
      break;
    case group_verdict::split_brain:
      handle_split_brain(c, obs);
      break;
    case group_verdict::healthy:
    case group_verdict::degraded:
      maybe_adopt(c, ev);
      continue_bootstrap(c);
      maybe_auto_clone(c);
      // While a fresh-deploy bootstrap brings its sites in, they are not returning primaries.
      if (!busy(st) && !(st.durable.bootstrap.source == "fresh-deploy" &&
                         st.durable.bootstrap.phase != "Done"))
        check_returning(c, obs);
      maybe_restart_receivers(c);
      if (!busy(st)) planned_retry_deferred(c);
      if (!busy(st)) planned_continue_after_sync(c);  // a cache sync reported while busy
      break;
    case group_verdict::no_primary:
      maybe_reassert(c, obs);
      c.alert_once("no-primary", "Warning", "NoPrimaryDetected", ev.message);
      break;
    case group_verdict::total_loss:
      c.alert_once("total-loss", "Warning", "TotalLossDetected", ev.message);
      break;
  }
}

}  // namespace br::step_detail
