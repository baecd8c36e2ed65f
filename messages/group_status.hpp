// The group status as a value: what the coordinator answers to (status) and publishes to the
// status writers. It becomes JSON only at the edges (HTTP API, /ws/status, the Kubernetes status
// subresource): config/group_status.hpp holds the JSON mapping and the lenient reader.
//
// The types keep the namespace br::config (where the JSON mapping and the CR model that embeds
// them live, found by argument-dependent lookup); they are defined here, in the lowest layer, so
// that the actor interfaces (messages/interfaces.hpp) can carry them.
#pragma once

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/none.hpp>
#include <caf/meta/type_name.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "messages/topology.hpp"

namespace br {

/// Inspects a std::optional member (CAF 0.17 only knows caf::optional): a presence flag, then the
/// value when present. Pass it as a temporary: `f(..., opt_field{x.member}, ...)`.
template <class T>
struct opt_field {
  std::optional<T>& x;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, opt_field<T>& o) {
  bool has = o.x.has_value();
  T value = has ? *o.x : T{};
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (has)
      o.x = std::move(value);
    else
      o.x.reset();
    return caf::none;
  });
  return f(has, value, load);
}

/// A millisecond wall-clock time point inspected as milliseconds since the epoch.
struct ms_time_field {
  std::optional<std::chrono::sys_time<std::chrono::milliseconds>>& x;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ms_time_field& o) {
  std::optional<int64_t> ms;
  if (o.x) ms = o.x->time_since_epoch().count();
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (ms)
      o.x = std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(*ms));
    else
      o.x.reset();
    return caf::none;
  });
  return f(opt_field<int64_t>{ms}, load);
}

}  // namespace br

namespace br::config {

using timestamp = std::chrono::sys_time<std::chrono::milliseconds>;

/// status.sites[].recoveryState: "" | RecoveryInProgress | RecoveryBlocked.
enum class recovery_state : uint8_t { none, in_progress, blocked };

/// status.sites[].semiSync (issue 25): the semi-synchronous replication plugins as the site's
/// latest probe read them; absent when neither plugin is loaded.
struct site_semisync_status {
  std::string role;               // "source" (its source side enabled) | "replica" | "off"
  bool source_on = false;         // Rpl_semi_sync_source_status: waiting for acks, not fallen back
  std::uint32_t clients = 0;      // semi-sync receivers connected to it
  std::uint32_t wait_count = 0;   // rpl_semi_sync_source_wait_for_replica_count
  std::uint32_t waiting_sessions = 0;  // commits waiting for acknowledgements now
  bool replica_on = false;        // Rpl_semi_sync_replica_status: its receiver acknowledges
  bool operator==(const site_semisync_status&) const = default;
};

struct site_status {
  std::string name;
  std::optional<site_role> role;
  site_state state = site_state::unknown;
  std::optional<timestamp> last_seen;
  bool replicating = false;
  std::optional<std::int64_t> seconds_behind_source;  // absent when not replicating
  std::string gtid_executed;
  std::string source_host;
  config::recovery_state recovery_state = config::recovery_state::none;
  std::string divergent_gtid;
  std::optional<std::int64_t> divergent_transaction_count;
  std::optional<bool>
      serving_healthy;  // endpoint health gate (maxLagSeconds / readOnlyMaxLagSeconds)
  bool manually_fenced = false;  // fenced by request (decide/manual_fence.hpp): out of routing
  bool restore_pending = false;  // not recloned since an in-place restore (decide/restore_freeze.hpp)
  std::optional<site_semisync_status> semi_sync;
  bool operator==(const site_status&) const = default;
};

/// Kubernetes-style condition. Types: Ready, Degraded, RecoveryPending, Bootstrapping, SitesFenced, PlannedFailover.
struct condition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  std::optional<timestamp> last_transition_time;
  bool operator==(const condition&) const = default;
};

/// status.lastFailoverLosses[]: transactions the last promotion could not carry over.
struct transaction_loss {
  std::string site;
  std::string kind;      // "discarded" (the candidate's unapplied relay log) | "stranded"
  std::string gtid_set;
  std::int64_t count = 0;
  bool operator==(const transaction_loss&) const = default;
};

/// status.bootstrap.sites[]: one site of the latest bootstrap / auto-clone / reclone.
struct bootstrap_site_status {
  std::string name;
  std::string phase;  // Pending|Promoting|Cloning|WaitingForRestart|SetupReplication|Done|Failed|Blocked
  std::string message;
  std::optional<timestamp> started_at;
  std::optional<timestamp> finished_at;
  bool operator==(const bootstrap_site_status&) const = default;
};

/// status.bootstrap (contract of issue 19): the latest bootstrap (fresh-deploy), auto-clone or
/// reclone, or why a new group is not bootstrapped yet (phase Pending: waiting; Failed: refused).
struct bootstrap_status {
  std::string phase;   // Pending|Promoting|Cloning|WaitingForRestart|SetupReplication|Done|Failed
  std::string source;  // fresh-deploy | auto-clone | reclone
  std::string seed_site;
  std::string message;
  std::vector<bootstrap_site_status> sites;
  bool operator==(const bootstrap_status&) const = default;
};

/// status.plannedFailover (issue 20): the latest planned failover request and how far it got.
/// status.plannedFailover.dragonfly (issue 24): the cache's part of a planned failover.
struct planned_dragonfly_status {
  bool enabled = false;
  std::optional<timestamp> sync_wait_start_time;
  std::optional<int64_t> source_offset_at_drain;
  bool offset_capture_failed = false;
  std::optional<int64_t> target_offset_at_promotion;
  std::optional<int64_t> sync_wait_ms;  // JSON syncWaitSeconds
  std::optional<bool> sessions_preserved;
  std::string promotion_method;  // REPLTAKEOVER | REPLICAOF NO ONE | skipped
  std::string reason;            // DragonflySyncTimeout | DragonflyPromotionFailed
  std::string message;
  bool operator==(const planned_dragonfly_status&) const = default;
};

struct planned_failover_status {
  std::string phase;  // Deferred|WaitingForDragonflySync|Draining|WaitingForLag|Promoting|
                      // Resuming|PromotingDragonfly|Succeeded|Failed
  std::string target;
  std::string source_primary;
  std::string reason;  // Failed: UnknownSite|TargetUnhealthy|CooldownActive|Cancelled|
                       // ConcurrentOperation|LagTimeout|SourceCrashed|ExecuteFailed|
                       // InvalidAnnotation|DragonflySyncTimeout; Deferred: CooldownActive
  std::string message;
  std::string source_gtid_at_fence;
  std::string max_lag_wait;  // Go duration text
  std::optional<timestamp> start_time;
  std::optional<timestamp> drain_start_time;
  std::optional<timestamp> lag_wait_start_time;
  std::optional<timestamp> promote_start_time;
  std::optional<timestamp> resume_start_time;
  std::optional<timestamp> completion_time;
  std::optional<timestamp> retry_after;  // Deferred: when it is validated again
  std::optional<planned_dragonfly_status> dragonfly;  // with Dragonfly managed
  bool operator==(const planned_failover_status&) const = default;
};

/// status.groupReplication.members[]: one member as the agreed view shows it (issue 22).
struct gr_member_status {
  std::string name;       // the site
  std::string member_id;  // its server_uuid ("" while never read)
  std::string state;      // ONLINE|RECOVERING|OFFLINE|ERROR|UNREACHABLE|UNKNOWN (not in the view)
  std::string role;       // PRIMARY|SECONDARY|""
  bool reachable = false;  // the operator read it in the latest round
  bool operator==(const gr_member_status&) const = default;
};

/// status.groupReplication.recoveryPlan: while the group is Blocked by a quorum loss, the
/// recovery the operator would run if asked now (issue 23; it computes it again when asked).
struct gr_recovery_plan_status {
  std::string kind;     // forceMembers | rebootstrap | blocked (refused, `reason` says why)
  std::string survivor;
  std::vector<std::string> rejoin;
  std::string reason;
  std::vector<std::string> at_risk;  // per other member: what it may lose
  std::string digest;  // what a request must name to confirm this plan (<id>@<digest>)
  bool operator==(const gr_recovery_plan_status&) const = default;
};

/// status.groupReplication.lastRecovery: the latest recovery request and how it went.
struct gr_last_recovery_status {
  std::string request;
  std::string result;  // QuorumRecoveryStarted | QuorumRecovered | QuorumRecoveryRefused | QuorumRecoveryFailed
  std::string message;
  bool operator==(const gr_last_recovery_status&) const = default;
};

/// status.groupReplication.leaving[]: a member whose site was removed from the spec (issue 23
/// scale-down): Waiting (not stopped yet: `message` says why), Stopping (recorded, STOP GROUP_REPLICATION
/// sent or due), Stopped (out of the group: the reconciler deletes its workload, keeps its PVC).
struct gr_leaving_status {
  std::string site;
  std::string member_id;
  std::string phase;
  std::string message;
  bool operator==(const gr_leaving_status&) const = default;
};

/// status.groupReplication: the cross-validated view of a Group Replication group.
struct group_replication_status {
  std::string group_name;
  bool bootstrapped = false;
  std::string primary_member;  // the site of the agreed ONLINE PRIMARY ("" = none)
  bool has_quorum = false;
  std::string view_id;
  std::int64_t observed_view_max = 0;
  bool view_known = false;  // ours: a majority agreed on one view (else nothing is acted on)
  std::string message;      // ours: the verdict, or what the group waits for
  std::string switchover_target;  // ours: a set_as_primary request in flight
  std::vector<gr_member_status> members;
  std::string phase;  // Pending | Running | Blocked (quorum lost) | Recovering
  std::optional<gr_recovery_plan_status> recovery_plan;
  std::optional<gr_last_recovery_status> last_recovery;
  std::vector<gr_leaving_status> leaving;  // ours: members leaving after a scale-down
  bool operator==(const group_replication_status&) const = default;
};

struct group_status {
  std::string active_site;  // "" while there is no confirmed primary
  std::vector<site_status> sites;
  std::optional<timestamp> last_failover;
  std::string last_failover_target;
  std::string promotion_gtid_executed;
  std::vector<condition> conditions;
  // Ours (docs/safety.md "Topology view and epoch"): the durable copy of the coordinator's view.
  std::uint64_t epoch = 0;
  std::string deposing_site;
  std::optional<timestamp> observed_at;
  std::vector<transaction_loss> last_failover_losses;
  std::optional<bootstrap_status> bootstrap;
  std::optional<planned_failover_status> planned_failover;
  std::optional<group_replication_status> group_replication;  // GR groups only
  bool operator==(const group_status&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bootstrap_site_status& x) {
  return f(caf::meta::type_name("bootstrap_site_status"), x.name, x.phase, x.message,
           ms_time_field{x.started_at}, ms_time_field{x.finished_at});
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bootstrap_status& x) {
  return f(caf::meta::type_name("bootstrap_status"), x.phase, x.source, x.seed_site, x.message,
           x.sites);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_member_status& x) {
  return f(caf::meta::type_name("gr_member_status"), x.name, x.member_id, x.state, x.role,
           x.reachable);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_recovery_plan_status& x) {
  return f(caf::meta::type_name("gr_recovery_plan_status"), x.kind, x.survivor, x.rejoin, x.reason,
           x.at_risk);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_last_recovery_status& x) {
  return f(caf::meta::type_name("gr_last_recovery_status"), x.request, x.result, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_leaving_status& x) {
  return f(caf::meta::type_name("gr_leaving_status"), x.site, x.member_id, x.phase, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_replication_status& x) {
  return f(caf::meta::type_name("group_replication_status"), x.group_name, x.bootstrapped,
           x.primary_member, x.has_quorum, x.view_id, x.observed_view_max, x.view_known, x.message,
           x.switchover_target, x.members, x.phase,
           opt_field<gr_recovery_plan_status>{x.recovery_plan},
           opt_field<gr_last_recovery_status>{x.last_recovery}, x.leaving);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_dragonfly_status& x) {
  return f(caf::meta::type_name("planned_dragonfly_status"), x.enabled,
           ms_time_field{x.sync_wait_start_time}, opt_field<int64_t>{x.source_offset_at_drain},
           x.offset_capture_failed, opt_field<int64_t>{x.target_offset_at_promotion},
           opt_field<int64_t>{x.sync_wait_ms}, opt_field<bool>{x.sessions_preserved},
           x.promotion_method, x.reason, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_failover_status& x) {
  return f(caf::meta::type_name("planned_failover_status"), x.phase, x.target, x.source_primary,
           x.reason, x.message, x.source_gtid_at_fence, x.max_lag_wait,
           ms_time_field{x.start_time}, ms_time_field{x.drain_start_time},
           ms_time_field{x.lag_wait_start_time}, ms_time_field{x.promote_start_time},
           ms_time_field{x.resume_start_time}, ms_time_field{x.completion_time},
           ms_time_field{x.retry_after}, opt_field<planned_dragonfly_status>{x.dragonfly});
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_semisync_status& x) {
  return f(caf::meta::type_name("site_semisync_status"), x.role, x.source_on, x.clients,
           x.wait_count, x.waiting_sessions, x.replica_on);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_status& x) {
  return f(caf::meta::type_name("site_status"), x.name, opt_field<site_role>{x.role}, x.state,
           ms_time_field{x.last_seen}, x.replicating,
           opt_field<std::int64_t>{x.seconds_behind_source}, x.gtid_executed, x.source_host,
           x.recovery_state, x.divergent_gtid,
           opt_field<std::int64_t>{x.divergent_transaction_count},
           opt_field<bool>{x.serving_healthy}, x.manually_fenced,
           x.restore_pending, opt_field<site_semisync_status>{x.semi_sync});
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, condition& x) {
  return f(caf::meta::type_name("condition"), x.type, x.status, x.reason, x.message,
           ms_time_field{x.last_transition_time});
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, transaction_loss& x) {
  return f(caf::meta::type_name("transaction_loss"), x.site, x.kind, x.gtid_set, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_status& x) {
  return f(caf::meta::type_name("group_status"), x.active_site, x.sites,
           ms_time_field{x.last_failover}, x.last_failover_target, x.promotion_gtid_executed,
           x.conditions, x.epoch, x.deposing_site, ms_time_field{x.observed_at},
           x.last_failover_losses, opt_field<bootstrap_status>{x.bootstrap},
           opt_field<planned_failover_status>{x.planned_failover},
           opt_field<group_replication_status>{x.group_replication});
}

}  // namespace br::config
