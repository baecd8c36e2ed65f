// Operator value types: site reports, the topology view (epoch), plans, durable state, events.
#pragma once

#include <caf/meta/type_name.hpp>
#include <caf/timespan.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "messages/decisions.hpp"
#include "messages/mysql.hpp"
#include "messages/topology.hpp"
#include "messages/planned_failover.hpp"

namespace br {

/// What a site_poller reports after each poll: the debounced state and the raw probe.
struct site_report {
  std::string site;
  debounce_step step;   ///< debounced state after this poll (step.next.state)
  bool probe_ok = false;
  site_probe probe;     ///< valid when probe_ok
  std::string error_kind;
  std::string error;
  int64_t polled_at_ms = 0;  ///< wall clock of the poll (unix ms), informational
  /// The poller's clock (the operator process's monotonic clock) when the probe was sent and
  /// when its answer came: orders probes of different sites (the semi-sync in-step judgement).
  mono_time probe_sent{};
  mono_time probe_done{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_report& x) {
  return f(caf::meta::type_name("site_report"), x.site, x.step, x.probe_ok, x.probe, x.error_kind,
           x.error, x.polled_at_ms, x.probe_sent, x.probe_done);
}

/// The authoritative view V = {epoch, activeSite, deposing, observedAt} (docs/safety.md). `active_site`
/// empty with `deposing` set = a transition in progress.
struct topology_view {
  uint64_t epoch = 0;
  std::string active_site;
  std::string deposing;
  int64_t observed_at_ms = 0;  ///< unix ms, informational (epochs order views, not clocks)
  /// "<key id>:<hex>": the operator's Ed25519 signature over (group, epoch, activeSite,
  /// deposing) (actors/common/authority.hpp). Empty inside the operator; set where a view
  /// leaves it, and kept by the sidecars so they can relay it.
  std::string signature;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topology_view& x) {
  return f(caf::meta::type_name("topology_view"), x.epoch, x.active_site, x.deposing,
           x.observed_at_ms, x.signature);
}

/// bootstrap: a new group's seed promoted (docs/architecture.md "How a group comes into being");
/// auto_clone: a non-active site brought in from the active site (CLONE when needed, then
/// replication), for a bootstrap or an empty site that came back.
enum class plan_kind : uint8_t { failover, switchover, recover, reclone, bootstrap, auto_clone };

/// Plans that make their candidate the active primary.
inline bool is_promotion_kind(plan_kind k) {
  return k == plan_kind::failover || k == plan_kind::switchover || k == plan_kind::bootstrap;
}
/// Plans that repair (or bring in) their candidate from the active primary `source`.
inline bool is_repair_kind(plan_kind k) {
  return k == plan_kind::recover || k == plan_kind::reclone || k == plan_kind::auto_clone;
}

/// Steps of a plan, in order. A plan resumes from its persisted phase; phases after `promoting`
/// never promote again.
enum class plan_phase : uint8_t {
  pending,
  fencing_old,      ///< super_read_only=ON on the old primary (skipped when unreachable)
  killing_sessions, ///< kill application sessions on the old primary
  gating,           ///< promotion gate (docs/safety.md)
  draining,         ///< WAIT_FOR_EXECUTED_GTID_SET on the candidate (relayDrainTimeout)
  stopping_replica,
  resetting_replica,
  recording_gtid,   ///< promotionGtidExecuted
  promoting,        ///< super_read_only=OFF, read_only=OFF
  confirming,       ///< a probe confirms the candidate writable (S9)
  steering,         ///< router, DNS, taints
  repointing,       ///< followers CHANGE REPLICATION SOURCE to the new primary
  done,
  failed,
  cloning,          ///< reclone only: CLONE INSTANCE from the active primary (appended: values stay)
  verifying_accounts,  ///< bootstrap: SHOW GRANTS of the operator and replication accounts
  restarting,          ///< auto_clone: wait for the recipient to answer after its CLONE restart
};


/// Transactions a promotion could not carry over, found by the executor and reported exactly
/// (docs/safety.md S3, S4): `discarded` = the candidate had received them (relay log) but not
/// applied them when its replica channel was reset; `stranded` = a reachable follower holds them
/// and the new primary does not (it is left alone and marked RecoveryBlocked).
struct gtid_loss {
  std::string site;
  std::string kind;  ///< "discarded" | "stranded"
  std::string gtid;  ///< the set, server format
  uint64_t count = 0;
  bool operator==(const gtid_loss&) const = default;
};

inline const std::string gtid_loss_discarded = "discarded";
inline const std::string gtid_loss_stranded = "stranded";

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gtid_loss& x) {
  return f(caf::meta::type_name("gtid_loss"), x.site, x.kind, x.gtid, x.count);
}

/// What the executor learns while a plan runs; persisted with every phase so that a resumed
/// executor, and the plan's result, still know it.
struct plan_facts {
  std::string promotion_gtid;  ///< recording_gtid: the candidate's set before promotion
  std::string source_gtid;     ///< switchover: the fenced source's gtid_executed
  std::vector<gtid_loss> losses;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plan_facts& x) {
  return f(caf::meta::type_name("plan_facts"), x.promotion_gtid, x.source_gtid, x.losses);
}

struct failover_plan {
  uint64_t id = 0;
  plan_kind kind = plan_kind::failover;
  std::string group;
  uint64_t epoch = 0;             ///< epoch of the deposing view this plan runs under
  std::string candidate;          ///< site to promote (failover/switchover) or to repair
  std::string old_primary;        ///< may be empty (no primary known)
  bool old_primary_reachable = false;
  std::vector<std::string> followers;  ///< sites to repoint after promotion
  plan_phase phase = plan_phase::pending;  ///< resume point
  std::string promotion_gtid;     ///< recorded at recording_gtid
  gate_policy policy = gate_policy::safe;
  caf::timespan drain_timeout{std::chrono::seconds(30)};
  caf::timespan step_timeout{std::chrono::seconds(10)};
  caf::timespan gate_timeout{std::chrono::minutes(2)};
  /// recover/reclone: the active primary the repaired site replicates (or clones) from.
  std::string source;
  /// switchover: how long the candidate may take to execute the fenced source's whole set
  /// (spec.plannedFailover.maxLagWait); past it the switchover is rolled back.
  caf::timespan max_lag_wait{std::chrono::minutes(5)};
  /// switchover: how long application sessions on the fenced source are killed again (every
  /// second, until none is left) before the wait (spec.plannedFailover.drainTimeout).
  caf::timespan session_drain_timeout{std::chrono::seconds(30)};
  std::string source_gtid;         ///< switchover: recorded at draining
  std::vector<gtid_loss> losses;   ///< recorded before the candidate's channel is reset, and at repointing
  /// reclone: the transactions the request confirmed may be thrown away (the recorded
  /// divergentGtid its prefix matched; empty for a cold reclone). The recipient is cloned only
  /// when everything it holds beyond the donor is inside this set (docs/safety.md S4).
  std::string discard_gtid;
  /// Semi-synchronous replication (docs/safety.md "Semi-synchronous replication"): K (0 = not
  /// in semi-sync mode; every plan kind), and for a failover or switchover whether the old
  /// primary was last seen running it the way rule 4 assumes and the sites judged in step
  /// against it (site -> the mysqld start instant the judgement holds for).
  uint32_t semisync_k = 0;
  bool semisync_confirmed = false;
  std::map<std::string, int64_t> semisync_in_step;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failover_plan& x) {
  return f(caf::meta::type_name("failover_plan"), x.id, x.kind, x.group, x.epoch, x.candidate,
           x.old_primary, x.old_primary_reachable, x.followers, x.phase, x.promotion_gtid,
           x.policy, x.drain_timeout, x.step_timeout, x.gate_timeout, x.source, x.max_lag_wait,
           x.session_drain_timeout, x.source_gtid, x.losses, x.discard_gtid, x.semisync_k,
           x.semisync_confirmed, x.semisync_in_step);
}

struct plan_result {
  uint64_t id = 0;
  bool ok = false;
  plan_phase reached = plan_phase::pending;  ///< last phase completed (or failed at)
  std::string error;                         ///< names the step: "draining: deadline exceeded"
  std::string promotion_gtid;
  /// fencing_old: "fenced" | "skipped: unreachable (plan)" | "skipped: <error kind>" | "" (not run).
  std::string fence_outcome;
  /// repointing: followers left alone, "site: reason" (divergent set, unreachable, error).
  std::vector<std::string> not_repointed;
  /// switchover: the candidate did not catch up with the fenced source in time, nothing was
  /// promoted, and the source must be made the active primary again (rolled back).
  bool source_kept = false;
  std::string source_gtid;
  std::vector<gtid_loss> losses;
  /// auto_clone: "cloned" | "not needed: <why>" (the site replicates without a CLONE).
  std::string clone_outcome;
  /// Semi-sync failover through gate rule 4 onto the no-loss candidate: everything the old
  /// primary holds beyond the new primary was never acknowledged to a client.
  bool semisync_no_loss = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plan_result& x) {
  return f(caf::meta::type_name("plan_result"), x.id, x.ok, x.reached, x.error, x.promotion_gtid,
           x.fence_outcome, x.not_repointed, x.source_kept, x.source_gtid, x.losses,
           x.clone_outcome, x.semisync_no_loss);
}

/// One site of a bootstrap or auto-clone (status.bootstrap.sites[]).
struct bootstrap_site {
  std::string name;
  /// "seed" | "clone" (empty, or behind the seed's purged set: decided again at cloning) |
  /// "replicate" | "divergent" (holds transactions the seed lacks: never cloned)
  std::string action;
  /// Pending | Promoting | Cloning | WaitingForRestart | SetupReplication | Done | Failed | Blocked
  std::string phase = "Pending";
  std::string message;
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  uint32_t attempts = 0;
  bool operator==(const bootstrap_site&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bootstrap_site& x) {
  return f(caf::meta::type_name("bootstrap_site"), x.name, x.action, x.phase, x.message,
           x.started_ms, x.finished_ms, x.attempts);
}

/// The latest bootstrap or auto-clone (status.bootstrap); empty `source` = none ever.
struct bootstrap_record {
  std::string source;  ///< "fresh-deploy" | "auto-clone" | "reclone"
  std::string seed;    ///< the seed (fresh-deploy) or the donor (the active site)
  std::string phase;   ///< Promoting | Cloning | WaitingForRestart | SetupReplication | Done | Failed
  std::string message;
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  std::vector<bootstrap_site> sites;
  bool operator==(const bootstrap_record&) const = default;
  bool in_progress() const { return !source.empty() && phase != "Done"; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bootstrap_record& x) {
  return f(caf::meta::type_name("bootstrap_record"), x.source, x.seed, x.phase, x.message,
           x.started_ms, x.finished_ms, x.sites);
}

/// Per-site recovery bookkeeping that must survive restarts.
struct site_recovery {
  std::string state;  ///< "" | "RecoveryInProgress" | "RecoveryBlocked"
  std::string divergent_gtid;
  uint64_t divergent_count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_recovery& x) {
  return f(caf::meta::type_name("site_recovery"), x.state, x.divergent_gtid, x.divergent_count);
}

/// Everything the coordinator must find again after a restart (S6, S7): written durably before
/// any view is published.
/// An in-place restore's hold on the group (spec.restoreInPlace; decide/restore_freeze.hpp).
struct restore_freeze_record {
  std::string token;    ///< the confirm token armed last ("" = never); each is used once
  bool frozen = false;  ///< while set, step starts no plan and clears no fence
  std::string site;     ///< the active site whose data the restore replaces (fenced meanwhile)
  /// Sites whose reclone from the restored one was asked on this token's word (each once while
  /// it runs or after it succeeded; a failed one may be asked again; reclone_token.hpp).
  std::vector<std::string> recloned;
  /// Restore-pending sites (issue 21 H1): they may hold transactions the restore discarded, which
  /// the restored primary lists as purged, so they would look like clean replicas. Never a
  /// candidate, never a receiver restart or recovery, kept fenced and out of routing, until their
  /// reclone from the restored site succeeded (clone done, replication from it confirmed).
  std::vector<std::string> pending;
  bool operator==(const restore_freeze_record&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, restore_freeze_record& x) {
  return f(caf::meta::type_name("restore_freeze_record"), x.token, x.frozen, x.site, x.recloned,
           x.pending);
}

struct durable_state {
  topology_view view;
  int64_t last_failover_ms = 0;  ///< 0 = never
  std::string last_failover_target;
  std::string promotion_gtid;
  bool plan_active = false;
  failover_plan plan;
  std::map<std::string, site_recovery> recovery;
  /// What the last promotion could not carry over (empty: nothing); shown in the status.
  std::vector<gtid_loss> last_failover_losses;
  /// The latest bootstrap / auto-clone, its phases persisted with the plan's (status.bootstrap).
  bootstrap_record bootstrap;
  /// Sites a DBA fenced by hand (decide/manual_fence.hpp): never candidates, out of routing.
  std::set<std::string> manually_fenced;
  /// status.plannedFailover of the latest accepted planned failover (issue 20): Deferred, its
  /// phases (kept with the plan's own writes) and how it ended; survives an operator restart.
  planned_failover_record planned;
  /// Group Replication groups only (messages/gr.hpp): the sticky bootstrap and group name.
  gr_durable gr;
  /// spec.restoreInPlace: the confirm token recorded before anything changes, and the freeze.
  restore_freeze_record restore_freeze;
  /// The old primary of the latest promotion when it went through semi-sync gate rule 4 onto the
  /// no-loss candidate ("" otherwise): what it holds beyond the active primary was never
  /// acknowledged, so it is recloned instead of blocked (docs/safety.md).
  std::string semisync_unacked_site;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, durable_state& x) {
  return f(caf::meta::type_name("durable_state"), x.view, x.last_failover_ms,
           x.last_failover_target, x.promotion_gtid, x.plan_active, x.plan, x.recovery,
           x.last_failover_losses, x.bootstrap, x.manually_fenced, x.planned, x.gr,
           x.restore_freeze, x.semisync_unacked_site);
}

/// A Kubernetes-style Event (type Normal|Warning, reason from the ).
struct group_event {
  std::string group;
  std::string type = "Normal";
  std::string reason;
  std::string message;
  std::string site;
  uint64_t epoch = 0;
  int64_t time_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_event& x) {
  return f(caf::meta::type_name("group_event"), x.group, x.type, x.reason, x.message, x.site,
           x.epoch, x.time_ms);
}

inline std::string to_string(plan_kind k) {
  switch (k) {
    case plan_kind::failover: return "failover";
    case plan_kind::switchover: return "switchover";
    case plan_kind::recover: return "recover";
    case plan_kind::reclone: return "reclone";
    case plan_kind::bootstrap: return "bootstrap";
    case plan_kind::auto_clone: return "auto_clone";
  }
  return "failover";
}

inline std::string to_string(plan_phase p) {
  switch (p) {
    case plan_phase::pending: return "pending";
    case plan_phase::fencing_old: return "fencing_old";
    case plan_phase::killing_sessions: return "killing_sessions";
    case plan_phase::gating: return "gating";
    case plan_phase::draining: return "draining";
    case plan_phase::stopping_replica: return "stopping_replica";
    case plan_phase::resetting_replica: return "resetting_replica";
    case plan_phase::recording_gtid: return "recording_gtid";
    case plan_phase::promoting: return "promoting";
    case plan_phase::confirming: return "confirming";
    case plan_phase::steering: return "steering";
    case plan_phase::repointing: return "repointing";
    case plan_phase::done: return "done";
    case plan_phase::failed: return "failed";
    case plan_phase::cloning: return "cloning";
    case plan_phase::verifying_accounts: return "verifying_accounts";
    case plan_phase::restarting: return "restarting";
  }
  return "pending";
}

/// A site poller's cadence record (answer to (pollstats); for tools/bench scale).
struct poll_stats {
  uint64_t ticks = 0;
  uint64_t probes = 0;
  uint64_t overlaps = 0;          ///< ticks that found the previous probe still running
  std::vector<int64_t> jitter_us; ///< last samples: tick arrival minus its schedule (>= 0)
  int64_t p50_us = 0;
  int64_t p99_us = 0;
  int64_t max_us = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, poll_stats& x) {
  return f(caf::meta::type_name("poll_stats"), x.ticks, x.probes, x.overlaps, x.jitter_us,
           x.p50_us, x.p99_us, x.max_us);
}

}  // namespace br
