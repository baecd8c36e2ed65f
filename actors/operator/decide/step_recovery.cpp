// step(): sites that may hold writes the active primary lacks (S3, S4). Split-brain losers are
// fenced and marked RecoveryPending; a returning old primary is fenced, its gtid_executed read
// after the fence and classified against the active primary's, read after it: contained -> a recover plan,
// divergent -> RecoveryBlocked (DataLossDetected) until a reclone. Also the primary re-assert and
// the restart of a follower whose receiver stopped for good (decide/receiver_restart.hpp).
#include "actors/operator/decide/receiver_restart.hpp"
#include "actors/operator/decide/cooldown.hpp"
#include "actors/operator/decide/primary_reassert.hpp"
#include "actors/operator/decide/recovery.hpp"
#include "actors/operator/decide/split_brain.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

void handle_split_brain(context& c, const std::vector<site_observation>& obs) {
  auto& st = c.st;
  bool cooldown_allows =
      failover_cooldown(c.clock.wall, last_failover(st.durable), c.rules.failover_cooldown)
          .allowed;
  auto res = resolve_split_brain(obs, st.durable.last_failover_target, c.rules.site_priorities,
                                 cooldown_allows);
  c.alert_once("split:" + to_string(res.tier), "Warning", "SplitBrainDetected", res.message);
  if (res.tier == split_brain_tier::alert) return;
  // A loser may have taken writes: mark it (durably, before anything else) so that it passes the
  // recovery classification before it may replicate again, whatever its channel says (S3, S4).
  std::vector<std::string> unmarked;
  for (const auto& s : res.fence)
    if (auto r = st.durable.recovery.find(s);
        r == st.durable.recovery.end() || r->second.state.empty())
      unmarked.push_back(s);
  if (!unmarked.empty()) persist(c, change_mark_pending{unmarked});
  for (const auto& s : res.fence) c.fence(s);
  if (res.tier == split_brain_tier::priority && res.repromote && !res.fence.empty()) {
    c.metric(metric_kind::split_brain_resolved, res.winner);
    start_plan(c, plan_kind::failover, res.winner, res.fence.front(), true, true);
  }
}

void check_returning(context& c, const std::vector<site_observation>& obs) {
  auto& st = c.st;
  const auto& active = st.view.active_site;
  if (active.empty()) return;
  auto ar = st.reports.find(active);
  if (ar == st.reports.end() || !ar->second.probe_ok) return;
  for (const auto& o : obs) {
    if (o.name == active || st.recovering.count(o.name)) continue;
    // Restore-pending: what it holds was discarded; only its reclone from the restored site ends that.
    if (restore_pending(st.durable.restore_freeze, o.name)) continue;
    bool pending = false;
    if (auto r = st.durable.recovery.find(o.name); r != st.durable.recovery.end()) {
      pending = r->second.state == recovery_state_pending;
      if (!r->second.state.empty() && !pending) continue;  // in progress or blocked
    }
    auto rep = st.reports.find(o.name);
    if (rep == st.reports.end() || !rep->second.probe_ok) continue;
    returning_primary_facts facts;
    facts.site = o.name;
    facts.state = o.state;
    facts.replication_configured = rep->second.probe.channel_configured;
    facts.prior_failover = !st.durable.last_failover_target.empty();
    facts.active_site = active;
    facts.recovery_pending = pending;
    if (!detect_returning_primary(facts)) continue;
    st.recovering.insert(o.name);
    c.log(log_level::info, "returning old primary detected", c.fields(o.name));
    c.fence(o.name, true);
  }
}

void on_fenced(context& c, const input::fenced& in) {
  auto& st = c.st;
  auto it = st.fencing.find(in.site);
  if (it == st.fencing.end()) return;
  bool returning = it->second;
  st.fencing.erase(it);
  if (!returning) return;
  if (!in.ok) {
    st.recovering.erase(in.site);
    return;
  }
  // Read the set only now: a write that landed before the fence is in it (S4).
  c.out.emplace_back(effect::read_gtid{in.site});
}

namespace {

/// Asks for the active primary's set, for every returning site whose own set is read by now.
void read_active_set(context& c) {
  auto& st = c.st;
  st.active_read_covers.clear();
  for (const auto& [site, set] : st.returning_sets) st.active_read_covers.insert(site);
  st.active_read_site = st.view.active_site;
  c.out.emplace_back(effect::read_gtid{st.active_read_site});
}

void drop_returning(context& c, const std::string& site) {
  c.st.recovering.erase(site);
  c.st.returning_sets.erase(site);
}

/// The active primary's set, read after the returning sites' own: classify each of them.
void on_active_set(context& c, const input::gtid_read& in) {
  auto& st = c.st;
  st.active_read_site.clear();
  auto covers = std::move(st.active_read_covers);
  st.active_read_covers.clear();
  std::optional<gtid_set> active_set;
  if (in.outcome && in.outcome->ok && in.site == st.view.active_site)
    active_set = gtid_set::parse(in.outcome->value);
  for (const auto& site : covers) {
    auto it = st.returning_sets.find(site);
    if (it == st.returning_sets.end()) continue;
    auto old_set = gtid_set::parse(it->second);
    if (!old_set || !active_set || busy(st)) {  // checked again on a later poll
      drop_returning(c, site);
      continue;
    }
    st.returning_sets.erase(it);
    auto cls = classify_recovery(*old_set, *active_set);
    if (cls.kind == recovery_kind::contained) {
      st.recovering.erase(site);
      start_plan(c, plan_kind::recover, site, "", false, false);
      continue;
    }
    if (!site.empty() && site == st.durable.semisync_unacked_site) {
      // The old primary of a semi-sync failover through gate rule 4 onto the no-loss candidate:
      // nothing it holds beyond the active primary was acknowledged to a client (docs/safety.md),
      // so it is not blocked but recloned, the transactions reported as discarded.
      st.recovering.erase(site);
      auto f = c.fields(site);
      f["divergentGtid"] = cls.divergent_gtid;
      f["divergentCount"] = cls.divergent_count;
      c.log(log_level::warn, "divergent but unacknowledged transactions: recloning", f);
      c.metric(metric_kind::divergent, site, static_cast<double>(cls.divergent_count));
      c.emit("Warning", "UnacknowledgedTransactionsDiscarded",
             site + " holds " + std::to_string(cls.divergent_count) +
                 " transactions the active primary " + st.view.active_site + " lacks (" +
                 cls.divergent_gtid + "); semi-synchronous replication never acknowledged them "
                 "(the failover went through gate rule 4), so it is recloned without them",
             site);
      start_plan(c, plan_kind::reclone, site, "", false, false, cls.divergent_gtid);
      continue;
    }
    persist(c, change_mark_blocked{site, cls.divergent_gtid, cls.divergent_count});
  }
  if (!st.returning_sets.empty()) read_active_set(c);  // sites read after that request
}

}  // namespace

void on_gtid_read(context& c, const input::gtid_read& in) {
  auto& st = c.st;
  if (!st.active_read_site.empty() && in.site == st.active_read_site) {
    on_active_set(c, in);
    return;
  }
  const auto& site = in.site;
  if (!st.recovering.count(site)) return;
  std::optional<gtid_set> old_set;
  if (in.outcome && in.outcome->ok) old_set = gtid_set::parse(in.outcome->value);
  if (!old_set || st.view.active_site.empty() || busy(st)) {
    drop_returning(c, site);
    return;
  }
  // The active primary's set is read only now: a polled one may predate transactions this site
  // already replicated from it, which would look divergent.
  st.returning_sets[site] = in.outcome->value;
  if (st.active_read_site.empty()) read_active_set(c);
}

void recovery_persisted(context& c, const change_mark_blocked& x, bool ok) {
  c.st.recovering.erase(x.site);
  if (!ok) return;
  c.metric(metric_kind::divergent, x.site, static_cast<double>(x.divergent_count));
  auto msg = x.site + " has " + std::to_string(x.divergent_count) +
             " transactions the active primary " + c.st.view.active_site + " lacks (" +
             x.divergent_gtid + "); it stays fenced until recloned";
  auto f = c.fields(x.site);
  f["divergentGtid"] = x.divergent_gtid;
  f["divergentCount"] = x.divergent_count;
  c.log(log_level::warn, "divergent transactions detected", f);
  c.emit("Warning", "DataLossDetected", msg, x.site);
}

void maybe_reassert(context& c, const std::vector<site_observation>& obs) {
  auto& st = c.st;
  if (st.view.active_site.empty() || st.view.active_site != st.durable.last_failover_target)
    return;
  reassert_input in;
  in.sites = obs;
  for (const auto& [site, p] : st.good_probes)
    if (auto set = gtid_set::parse(p.gtid_executed)) in.gtid_executed[site] = *set;
  in.last_failover_target = st.durable.last_failover_target;
  in.promotion_gtid_executed = st.durable.promotion_gtid;
  in.now = c.clock.wall;
  in.last_reassert = st.last_reassert;
  in.failover_cooldown = c.rules.failover_cooldown;
  auto d = decide_primary_reassert(in);
  if (d.verdict == reassert_verdict::refused) {
    if (st.alerts.insert("reassert-refused:" + d.reason).second) {
      auto f = c.fields(d.site);
      f["reason"] = d.reason;
      c.log(log_level::warn, "primary re-assert refused", f);
    }
    return;
  }
  if (d.verdict != reassert_verdict::reassert) return;
  st.last_reassert = in.now;
  c.log(log_level::info, "primary re-assert: clearing the fence", c.fields(d.site));
  c.out.emplace_back(effect::reassert{d.site, c.rules.policy == gate_policy::safe,
                                                   c.rules.semisync_k});
}

void maybe_restart_receivers(context& c) {
  auto& st = c.st;
  receiver_restart_input in;
  in.active_site = st.view.active_site;
  in.reports = st.reports;
  in.recovery = st.durable.recovery;
  in.restore_pending = st.durable.restore_freeze.pending;
  in.busy = busy(st);
  in.now = c.clock.now;
  in.last_restart = st.receiver_restarts;
  for (const auto& site : restart_receivers(in)) {
    if (!st.receiver_inflight.insert(site).second) continue;
    st.receiver_restarts[site] = c.clock.now;
    auto f = c.fields(site);
    const auto& p = st.reports[site].probe;
    f["ioError"] = p.last_io_error;
    f["ioErrno"] = p.last_io_errno;
    c.log(log_level::warn, "follower's replication receiver is stopped; starting it", f);
    c.out.emplace_back(effect::start_receiver{site});
  }
}

void on_receiver_started(context& c, const input::receiver_started& in) {
  c.st.receiver_inflight.erase(in.site);
  auto f = c.fields(in.site);
  if (!in.outcome || !in.outcome->ok) {
    f["error"] = in.outcome ? in.outcome->error : std::string("no answer");
    c.log(log_level::warn, "restarting the follower's receiver failed", f);
    return;
  }
  c.log(log_level::info, "follower's receiver restarted", f);
  c.emit("Normal", "ReplicationRestarted",
         "the replication receiver of " + in.site + " had stopped; restarted it (source " +
             c.st.view.active_site + " is healthy)",
         in.site);
}

void on_reassert_done(context& c, const input::reassert_done& in) {
  if (!in.outcome) return;
  auto f = c.fields(in.site);
  if (!in.outcome->ok) {
    f["error"] = in.outcome->error;
    c.log(log_level::warn, "primary re-assert failed", f);
    return;
  }
  c.metric(metric_kind::reassert, in.site);
  c.log(log_level::info, "primary re-asserted", f);
}

}  // namespace br::step_detail
