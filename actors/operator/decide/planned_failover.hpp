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
/// The request value that cancels a Deferred planned failover (`bloodraven switchover --cancel`;
/// in Kubernetes, removing the annotation). Never a site name: a site never starts with '!'.
inline constexpr const char* planned_cancel_value = "!cancel";

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
  bool defer_on_cooldown = false;  ///< spec.plannedFailover.onCooldown=defer
};

enum class planned_decision : uint8_t { start, skip, reject, defer };

struct planned_verdict {
  planned_decision decision = planned_decision::reject;
  std::string reason;   ///< reject: UnknownSite | TargetUnhealthy | CooldownActive | ConcurrentOperation
  std::string message;  ///< one line for the Event, the status and the requester
  int64_t retry_after_ms = 0;  ///< defer: when the cooldown ends
};

/// Pure, in this order: unknown site; target already active (skip: PlannedFailoverSkipped);
/// another operation running or no confirmed writable source (ConcurrentOperation); target not a
/// read-only, replicating primary-candidate polled successfully (TargetUnhealthy); the anti-flap
/// cooldown (CooldownActive: rejected, or deferred until it ends with onCooldown=defer).
planned_verdict check_planned_failover(const planned_facts& f, const std::string& target);

/// The record of a request deferred by the cooldown (phase Deferred, reason CooldownActive).
planned_failover_record planned_deferred(const std::string& target, const std::string& source,
                                         uint64_t request, int64_t max_lag_wait_ms,
                                         int64_t retry_after_ms, int64_t started_ms,
                                         const std::string& message);

/// A Deferred record cancelled (annotation removed, `bloodraven switchover --cancel`): Failed,
/// Cancelled. Any other record is returned unchanged (only a Deferred request can be cancelled:
/// a running plan is never interrupted halfway).
planned_failover_record planned_cancelled(planned_failover_record r, int64_t now_ms);

/// The phase after WaitingForLag: the Dragonfly seam. With Dragonfly managed (issue 24) the plan
/// goes WaitingForDragonflySync -> PromotingDragonfly -> Promoting; without, straight to
/// Promoting (the two phases are skipped, as the reference says).
std::string planned_phase_after_lag(bool dragonfly_managed);

/// The bloodraven_planned_failovers_total result label of an ended record: success |
/// failed_timeout (LagTimeout, DragonflySyncTimeout) | failed_other.
std::string planned_result_label(const planned_failover_record& r);

/// The record of a request refused before any plan ran (phase Failed, started = finished = now).
planned_failover_record planned_rejected(const std::string& target, const std::string& source,
                                         const std::string& reason, const std::string& message,
                                         int64_t now_ms);

/// The record of accepted request number `request` whose switchover plan `plan_id` is being
/// started: Draining.
planned_failover_record planned_started(const std::string& target, const std::string& source,
                                        uint64_t plan_id, uint64_t request,
                                        caf::timespan max_lag_wait, int64_t now_ms);

/// The record after the executor completed (and persisted) `done`: fencing_old, killing_sessions
/// keep Draining; gating starts WaitingForLag; draining (the catch-up) records sourceGtidAtFence
/// and starts planned_phase_after_lag(false) (Promoting); confirming starts Resuming. Other
/// phases change nothing.
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

/// The record status.plannedFailover shows: the accepted one while it is in progress, else the
/// newer of the accepted one and the latest refused request.
const planned_failover_record& planned_shown(const planned_failover_record& accepted,
                                             const planned_failover_record& refused);

/// The PlannedFailover condition of the shown record (nullopt: no request ever): True while it
/// is in progress (reason = the phase), False once it ended (reason Succeeded or why it failed).
std::optional<config::condition> planned_condition_of(const planned_failover_record& r);

/// status.plannedFailover of a record (nullopt: no request ever).
std::optional<config::planned_failover_status> planned_status_of(const planned_failover_record& r);

}  // namespace br
