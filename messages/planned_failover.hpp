// status.plannedFailover: the latest planned failover request (issue 20), as a value kept in the
// durable state (accepted requests) or in memory (rejected ones).
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

namespace br {

/// The cache's part of a planned failover (status.plannedFailover.dragonfly; issue 24,
/// decide/planned_dragonfly.hpp). Offsets are -1 while unknown.
struct planned_dragonfly_record {
  bool enabled = false;          ///< spec.dragonfly.enabled when the request was accepted
  bool fail_on_timeout = false;  ///< spec.dragonfly.plannedFailover.onSyncTimeout=fail
  int64_t max_sync_wait_ms = 0;  ///< spec.dragonfly.plannedFailover.maxSyncWait
  int64_t sync_wait_started_ms = 0;
  int64_t sync_wait_ms = -1;     ///< how long the wait took (-1: not ended)
  int64_t source_offset = -1;    ///< the cache master's master_repl_offset, captured first
  bool offset_capture_failed = false;
  int64_t target_offset = -1;    ///< the target's offset when the wait ended, then at promotion
  std::string sessions_preserved;  ///< "" (not known yet) | "true" | "false"
  std::string promotion_method;    ///< REPLTAKEOVER | REPLICAOF NO ONE | skipped
  std::string reason;              ///< DragonflySyncTimeout | DragonflyPromotionFailed | ""
  std::string message;
  bool operator==(const planned_dragonfly_record&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_dragonfly_record& x) {
  return f(caf::meta::type_name("planned_dragonfly_record"), x.enabled, x.fail_on_timeout,
           x.max_sync_wait_ms, x.sync_wait_started_ms, x.sync_wait_ms, x.source_offset,
           x.offset_capture_failed, x.target_offset, x.sessions_preserved, x.promotion_method,
           x.reason, x.message);
}

/// Phases: (Deferred ->) [WaitingForDragonflySync ->] Draining -> WaitingForLag -> Promoting ->
/// Resuming -> [PromotingDragonfly ->] Succeeded | Failed. Deferred: spec.plannedFailover
/// .onCooldown=defer and the cooldown was active; the request is validated again at
/// retry_after_ms, or Cancelled. The two Dragonfly phases only with Dragonfly managed
/// (decide/planned_dragonfly.hpp): the cache replica on the target catches up before MySQL is
/// touched, and the cache master moves after MySQL's switchover completed.
struct planned_failover_record {
  std::string phase;  ///< "" = no planned failover ever requested
  std::string target;
  std::string source;
  /// Failed: UnknownSite | TargetUnhealthy | CooldownActive | Cancelled | ConcurrentOperation |
  /// LagTimeout | SourceCrashed | ExecuteFailed | InvalidAnnotation | DragonflySyncTimeout;
  /// Deferred: CooldownActive;
  /// Succeeded: "".
  std::string reason;
  std::string message;
  std::string source_gtid_at_fence;
  uint64_t plan_id = 0;  ///< the switchover plan that runs it (0: none yet)
  /// The number of the accepted request this record is about (1, 2, ...; 0: a request refused
  /// before it was accepted). Requests are told apart by it, plans by plan_id.
  uint64_t request = 0;
  int64_t retry_after_ms = 0;  ///< Deferred: when it is validated again
  int64_t max_lag_wait_ms = 0;
  int64_t started_ms = 0;
  int64_t drain_started_ms = 0;
  int64_t lag_wait_started_ms = 0;
  int64_t promote_started_ms = 0;
  int64_t resume_started_ms = 0;
  int64_t finished_ms = 0;
  planned_dragonfly_record dragonfly;
  bool operator==(const planned_failover_record&) const = default;
  bool in_progress() const { return !phase.empty() && phase != "Succeeded" && phase != "Failed"; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_failover_record& x) {
  return f(caf::meta::type_name("planned_failover_record"), x.phase, x.target, x.source, x.reason,
           x.message, x.source_gtid_at_fence, x.plan_id, x.request, x.retry_after_ms, x.max_lag_wait_ms, x.started_ms,
           x.drain_started_ms, x.lag_wait_started_ms, x.promote_started_ms, x.resume_started_ms,
           x.finished_ms, x.dragonfly);
}

}  // namespace br
