// Planned failover (issue 20): the request (annotation or admin API), its validation, and the
// phase record (status.plannedFailover), as pure functions. The plan itself is the switchover
// plan (plan_kind::switchover, decide/plan_steps): fence the source, kill its sessions, wait until
// the target executed the source's whole set (maxLagWait) or roll back, promote, steer.
#pragma once

#include <caf/timespan.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "actors/operator/decide/switchover_request.hpp"
#include "messages/group_status.hpp"
#include "messages/planned_failover.hpp"

namespace br {

inline constexpr const char* planned_failover_annotation =
    "bloodraven.shipstream.io/planned-failover";

/// A parsed `<site>[:maxLagWait=<duration>]`.
struct planned_request {
  bool ok = false;
  std::string target;
  std::optional<caf::timespan> max_lag_wait;  ///< overrides spec.plannedFailover.maxLagWait
  std::string error;                          ///< when !ok: why (InvalidAnnotation)
};

/// Pure: the annotation's value. The site is a DNS label (lower-case letters, digits, '-');
/// the only option is maxLagWait, a Go duration within spec.plannedFailover.maxLagWait's range.
planned_request parse_planned_annotation(const std::string& value);

/// What the coordinator knows when a request arrives.
struct planned_facts {
  switchover_facts group;
  int64_t now_ms = 0;
  int64_t last_failover_ms = 0;  ///< 0 = never
  caf::timespan cooldown{};
  /// The other operation that owns the group (a plan, a bootstrap), "" when none.
  std::string running;
};

enum class planned_decision : uint8_t { start, skip, reject };

struct planned_verdict {
  planned_decision decision = planned_decision::reject;
  std::string reason;   ///< reject: UnknownSite | TargetUnhealthy | CooldownActive | ConcurrentOperation
  std::string message;  ///< one line for the Event, the status and the requester
};

/// Pure, in this order: unknown site; target already active (skip: PlannedFailoverSkipped);
/// another operation running or no confirmed writable source (ConcurrentOperation); target not a
/// read-only, replicating primary-candidate polled successfully (TargetUnhealthy); the anti-flap
/// cooldown (CooldownActive: rejected, since onCooldown=defer is refused by validation).
planned_verdict check_planned_failover(const planned_facts& f, const std::string& target);

/// The record of a request refused before any plan ran (phase Failed, started = finished = now).
planned_failover_record planned_rejected(const std::string& target, const std::string& source,
                                         const std::string& reason, const std::string& message,
                                         int64_t now_ms);

/// The record of an accepted request whose switchover plan `plan_id` is being started: Draining.
planned_failover_record planned_started(const std::string& target, const std::string& source,
                                        uint64_t plan_id, caf::timespan max_lag_wait,
                                        int64_t now_ms);

/// The record after the executor completed (and persisted) `done`: fencing_old, killing_sessions
/// keep Draining; gating starts WaitingForLag; draining (the catch-up) records sourceGtidAtFence
/// and starts Promoting; confirming starts Resuming. Other phases change nothing.
planned_failover_record planned_advanced(planned_failover_record r, plan_phase done,
                                         const std::string& source_gtid, int64_t now_ms);

/// How a planned failover ended: the record (Succeeded | Failed with its reason), and the
/// metric's result label (success | failed_timeout | failed_other).
struct planned_outcome {
  planned_failover_record record;
  std::string result;
};

/// `source_reachable`: the source answered its last poll. Rules: ok -> Succeeded; failed before
/// promotion (source_kept) with the source unreachable -> SourceCrashed (the emergency failover
/// takes over); rolled back with "LagTimeout" in the error -> LagTimeout (failed_timeout); any
/// other failure -> ExecuteFailed (rolled back when source_kept, else not).
planned_outcome planned_finished(planned_failover_record r, const plan_result& res,
                                 bool source_reachable, int64_t now_ms);

/// status.plannedFailover of a record (nullopt: no request ever).
std::optional<config::planned_failover_status> planned_status_of(const planned_failover_record& r);

}  // namespace br
