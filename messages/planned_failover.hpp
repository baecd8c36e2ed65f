// status.plannedFailover: the latest planned failover request (issue 20), as a value kept in the
// durable state (accepted requests) or in memory (rejected ones).
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

namespace br {

/// Phases: (Deferred ->) Draining -> WaitingForLag -> Promoting -> Resuming -> Succeeded | Failed.
/// Deferred: spec.plannedFailover.onCooldown=defer and the cooldown was active; the request is
/// validated again at retry_after_ms, or Cancelled. The Dragonfly phases are not reached while
/// Dragonfly is not managed (decide/planned_failover.hpp, planned_phase_after_lag).
struct planned_failover_record {
  std::string phase;  ///< "" = no planned failover ever requested
  std::string target;
  std::string source;
  /// Failed: UnknownSite | TargetUnhealthy | CooldownActive | Cancelled | ConcurrentOperation |
  /// LagTimeout | SourceCrashed | ExecuteFailed | InvalidAnnotation; Deferred: CooldownActive;
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
  bool operator==(const planned_failover_record&) const = default;
  bool in_progress() const { return !phase.empty() && phase != "Succeeded" && phase != "Failed"; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_failover_record& x) {
  return f(caf::meta::type_name("planned_failover_record"), x.phase, x.target, x.source, x.reason,
           x.message, x.source_gtid_at_fence, x.plan_id, x.request, x.retry_after_ms, x.max_lag_wait_ms, x.started_ms,
           x.drain_started_ms, x.lag_wait_started_ms, x.promote_started_ms, x.resume_started_ms,
           x.finished_ms);
}

}  // namespace br
