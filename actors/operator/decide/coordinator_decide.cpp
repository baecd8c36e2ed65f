// Pure helpers of the coordinator (observations, old primary, followers, candidate sets, status).
#include "actors/operator/decide/coordinator_decide.hpp"

#include <algorithm>
#include <chrono>

#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/site_order.hpp"

namespace br {

std::vector<site_observation> build_observations(const std::vector<std::string>& sites,
                                                 const std::map<std::string, site_role>& roles,
                                                 const std::map<std::string, site_report>& reports) {
  std::vector<site_observation> out;
  out.reserve(sites.size());
  for (const auto& s : sites) {
    site_observation o;
    o.name = s;
    if (auto r = roles.find(s); r != roles.end()) o.role = r->second;
    if (auto r = reports.find(s); r != reports.end()) o.state = r->second.step.next.state;
    out.push_back(std::move(o));
  }
  return out;
}

bool report_changes_facts(const site_report* prev, const site_report& next) {
  if (prev == nullptr) return true;
  if (next.step.transitioned || prev->step.next.state != next.step.next.state) return true;
  if (prev->probe_ok != next.probe_ok) return true;
  if (!next.probe_ok) return false;
  return prev->probe.writable() != next.probe.writable() ||
         prev->probe.channel_configured != next.probe.channel_configured;
}

std::string choose_old_primary(const topology_view& view,
                               const std::vector<site_observation>& observations) {
  if (!view.active_site.empty()) return view.active_site;
  if (!view.deposing.empty()) return view.deposing;
  for (const auto& o : observations)
    if (o.role == site_role::primary_candidate && o.state == site_state::unreachable) return o.name;
  return "";
}

std::vector<std::string> plan_followers(const std::vector<std::string>& sites,
                                        const std::string& candidate,
                                        const std::string& old_primary) {
  std::vector<std::string> out;
  for (const auto& s : sites)
    if (s != candidate && s != old_primary) out.push_back(s);
  return out;
}

std::vector<candidate_gtid> candidate_sets(const std::vector<std::string>& sites,
                                           const std::vector<std::string>& candidates,
                                           const std::map<std::string, site_probe>& probes,
                                           std::vector<std::string>& missing) {
  std::vector<candidate_gtid> out;
  for (const auto& s : sites) {
    if (std::find(candidates.begin(), candidates.end(), s) == candidates.end()) continue;
    auto p = probes.find(s);
    if (p == probes.end()) {
      missing.push_back(s);
      continue;
    }
    auto set = gtid_set::parse(p->second.gtid_executed);
    auto received = gtid_set::parse(p->second.received_gtid);
    if (!set || !received) {
      missing.push_back(s);
      continue;
    }
    // What the candidate can reach once its relay log is drained: executed and received.
    out.push_back({s, set->unite(*received)});
  }
  return out;
}

namespace {

std::optional<config::timestamp> ms_stamp(int64_t ms) {
  if (ms <= 0) return std::nullopt;
  return config::timestamp(std::chrono::milliseconds(ms));
}

/// status.bootstrap and the Bootstrapping condition: the latest record, or the note of a new
/// group that waits or was refused.
void add_bootstrap_status(config::group_status& st, const bootstrap_record& rec,
                          const std::string& note) {
  config::bootstrap_status b;
  bool fresh_waiting = !note.empty();
  if (!rec.source.empty()) {
    b.phase = rec.phase;
    b.source = rec.source;
    b.seed_site = rec.seed;
    b.message = rec.message;
    for (const auto& s : rec.sites)
      b.sites.push_back({s.name, s.phase, s.message, ms_stamp(s.started_ms), ms_stamp(s.finished_ms)});
  }
  if (fresh_waiting) {
    bool refused = note.rfind("refused", 0) == 0;
    if (rec.source.empty() || rec.phase != "Failed") b.phase = refused ? "Failed" : "Pending";
    if (b.source.empty()) b.source = "fresh-deploy";
    b.message = note;
  }
  if (b.phase.empty()) return;
  bool active = b.phase != "Done" && b.phase != "Failed";
  st.conditions.push_back({"Bootstrapping", active ? "True" : "False",
                           b.phase == "Done" ? "BootstrapCompleted"
                           : b.phase == "Failed" ? "BootstrapFailed"
                                                 : "Bootstrap" + b.phase,
                           b.message.empty() ? b.source + " " + b.phase : b.message,
                           std::nullopt});
  st.bootstrap = std::move(b);
}

}  // namespace

config::group_status build_group_status(const status_inputs& in) {
  using namespace std::chrono;
  config::group_status st;
  st.active_site = in.view.active_site;
  st.deposing_site = in.view.deposing;
  st.epoch = in.view.epoch;
  if (in.view.observed_at_ms > 0)
    st.observed_at = config::timestamp(milliseconds(in.view.observed_at_ms / 1000 * 1000));
  if (in.durable.last_failover_ms > 0)
    st.last_failover = config::timestamp(milliseconds(in.durable.last_failover_ms));
  st.last_failover_target = in.durable.last_failover_target;
  st.promotion_gtid_executed = in.durable.promotion_gtid;
  for (const auto& l : in.durable.last_failover_losses)
    st.last_failover_losses.push_back(
        {l.site, l.kind, l.gtid, static_cast<std::int64_t>(l.count)});
  bool recovering = false, blocked = false;
  std::string recovery_message;
  for (const auto& name : in.sites) {
    config::site_status s;
    s.name = name;
    if (auto r = in.roles.find(name); r != in.roles.end()) s.role = r->second;
    s.manually_fenced = in.durable.manually_fenced.count(name) > 0;
    s.restore_pending = restore_pending(in.durable.restore_freeze, name);
    if (auto r = in.reports.find(name); r != in.reports.end()) s.state = r->second.step.next.state;
    if (auto t = in.last_seen_ms.find(name); t != in.last_seen_ms.end())
      s.last_seen = config::timestamp(milliseconds(t->second / 1000 * 1000));
    if (auto p = in.good_probes.find(name); p != in.good_probes.end()) {
      s.gtid_executed = p->second.gtid_executed;
      s.replicating = p->second.replicating();
      s.source_host = p->second.source_host;
      if (s.replicating && p->second.seconds_behind >= 0)
        s.seconds_behind_source = static_cast<int64_t>(p->second.seconds_behind);
      // Semi-sync (issue 25): the plugins' state, when either is loaded.
      if (const auto& ss = p->second.semisync; ss.source_loaded || ss.replica_loaded)
        s.semi_sync = config::site_semisync_status{
            ss.source_enabled ? "source" : ss.replica_enabled ? "replica" : "off",
            ss.source_on, ss.clients, ss.wait_count, ss.wait_sessions, ss.replica_on};
    }
    if (auto r = in.durable.recovery.find(name); r != in.durable.recovery.end()) {
      if (r->second.state == "RecoveryBlocked") {
        s.recovery_state = config::recovery_state::blocked;
        s.divergent_gtid = r->second.divergent_gtid;
        s.divergent_transaction_count = static_cast<int64_t>(r->second.divergent_count);
        blocked = true;
        recovery_message = name + " has " + std::to_string(r->second.divergent_count) +
                           " divergent transactions";
      } else if (r->second.state == "RecoveryInProgress") {
        s.recovery_state = config::recovery_state::in_progress;
        recovering = true;
        if (recovery_message.empty()) recovery_message = name + " is rejoining";
      }
    }
    st.sites.push_back(std::move(s));
  }
  if (in.group_replication) {
    // The group's own health as the agreed view shows it (the async evaluation does not run).
    const auto& g = *in.group_replication;
    st.group_replication = g;
    std::string reason = "Healthy", message;
    std::string not_online;
    for (const auto& m : g.members)
      if (m.state != "ONLINE") not_online += (not_online.empty() ? "" : ", ") + m.name + " " + m.state;
    if (g.phase == "Blocked")
      reason = "QuorumLost", message = g.message;
    else if (!g.view_known)
      reason = "GroupViewUnknown", message = g.message;
    else if (!g.has_quorum)
      reason = "QuorumLost", message = g.message;
    else if (g.primary_member.empty() || g.primary_member != st.active_site)
      reason = "NoPrimary", message = "the group has no agreed ONLINE PRIMARY yet";
    else if (!not_online.empty())
      reason = "MembersNotOnline", message = not_online;
    bool healthy = reason == "Healthy";
    st.conditions.push_back({"Ready", healthy ? "True" : "False", reason, message, std::nullopt});
    st.conditions.push_back({"Degraded", healthy ? "False" : "True", reason, message, std::nullopt});
    // Guarded quorum recovery (issue 23): the latest request's outcome; True while it runs.
    if (g.last_recovery && !g.last_recovery->message.empty())
      st.conditions.push_back({"QuorumRecovery", g.phase == "Recovering" ? "True" : "False",
                               g.last_recovery->result, g.last_recovery->message, std::nullopt});
    // Scale-down (decide/gr_scale_down.hpp): True while a removed site's member leaves.
    if (!g.leaving.empty()) {
      std::string reason = "MembersRemoved", message;
      bool running = false;
      for (const auto& l : g.leaving) {
        if (l.phase == "Stopped") continue;
        running = true;
        if (reason != "ScaleDownWaiting")
          reason = l.phase == "Waiting" ? "ScaleDownWaiting" : "MemberStopping";
        message += (message.empty() ? "" : "; ") +
                   (l.message.empty() ? l.site + " " + l.phase : l.message);
      }
      if (!running) {
        for (const auto& l : g.leaving) message += (message.empty() ? "" : ", ") + l.site;
        message += " left the group; their workload is deleted, their volumes kept";
      }
      st.conditions.push_back({"ScaleDown", running ? "True" : "False", reason, message, std::nullopt});
    }
  }
  if (in.evaluated) {
    bool healthy = in.evaluation.verdict == group_verdict::healthy;
    st.conditions.push_back({"Ready", healthy ? "True" : "False",
                             healthy ? "Healthy" : in.evaluation.reason, in.evaluation.message,
                             std::nullopt});
    st.conditions.push_back({"Degraded", healthy ? "False" : "True", in.evaluation.reason,
                             in.evaluation.message, std::nullopt});
  }
  if (blocked || recovering)
    st.conditions.push_back({"RecoveryPending", "True",
                             blocked ? "DivergentTransactions" : "RecoveryInProgress",
                             recovery_message, std::nullopt});
  add_bootstrap_status(st, in.durable.bootstrap, in.bootstrap_note);
  const auto& planned = planned_shown(in.planned, in.planned_refused);
  st.planned_failover = planned_status_of(planned);
  if (auto cond = planned_condition_of(planned)) st.conditions.push_back(std::move(*cond));
  // Manual fence (decide/manual_fence.hpp): which sites, or why the requested set is refused.
  if (!in.fence_note.empty()) {
    st.conditions.push_back({"SitesFenced", in.durable.manually_fenced.empty() ? "False" : "True",
                             "FenceRejected", in.fence_note, std::nullopt});
  } else if (!in.durable.manually_fenced.empty()) {
    std::string names;
    for (const auto& s : in.durable.manually_fenced) names += (names.empty() ? "" : ", ") + s;
    st.conditions.push_back(
        {"SitesFenced", "True", "ManuallyFenced", "fenced by request: " + names, std::nullopt});
  }
  // spec.restoreInPlace's freeze (decide/restore_freeze.hpp): while it holds, the reconciler
  // labels no pod primary (restore_frozen in kube/reconcile/reconciler.hpp).
  if (in.durable.restore_freeze.frozen)
    st.conditions.push_back({std::string(restore_frozen_condition), "True", "Frozen",
                             "frozen by the in-place restore of token " + in.durable.restore_freeze.token +
                                 "; " + in.durable.restore_freeze.site +
                                 " fenced, no pod labelled primary, no failover until it ends",
                             std::nullopt});
  // Sites not yet recloned since the restore: out of routing, never candidates (H1 of issue 21).
  if (!in.durable.restore_freeze.pending.empty())
    st.conditions.push_back({"RestorePending", "True", "NotRecloned",
                             "not recloned from the restored site since the in-place restore of token " +
                                 in.durable.restore_freeze.token + ": " + join_names(in.durable.restore_freeze.pending),
                             std::nullopt});
  return st;
}

}  // namespace br
