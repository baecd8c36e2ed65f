// A planned failover's Dragonfly phases (issue 24), as pure functions of the record and the
// Dragonfly manager's reports.
//
// With spec.dragonfly.enabled an accepted request starts in WaitingForDragonflySync: before
// MySQL's source is fenced, the cache replica on the target must reach the offset the cache
// master has then (bounded by plannedFailover.maxSyncWait; the manager does the I/O, the
// coordinator waits for its report with a deadline). Reached: the switchover plan starts
// (Draining). Not reached (timeout, the cache unreachable, its offset unreadable, no report):
// onSyncTimeout=fail ends the request Failed/DragonflySyncTimeout with MySQL untouched (nothing
// was fenced or promoted); proceed starts the switchover anyway with sessionsPreserved=false.
// Once MySQL's switchover completed, PromotingDragonfly moves the cache master to the target
// (REPLTAKEOVER, or the fallback); its result is recorded and the request Succeeds either way
// (MySQL has moved; a failed cache move is DragonflyPromotionFailed in the dragonfly part, and
// the manager's own steering moves the cache to MySQL's active site later).
//
// The reference runs both Dragonfly phases between WaitingForLag and Promoting, i.e. with the
// source fenced; here the wait happens before the fence (MySQL stays writable while the cache
// catches up) and the move after MySQL's promotion (MySQL never waits for the cache).
#pragma once

#include <caf/timespan.hpp>

#include <cstdint>
#include <string>

#include "actors/operator/decide/group_step.hpp"
#include "messages/dragonfly_handover.hpp"
#include "messages/planned_failover.hpp"

namespace br {

inline constexpr const char* planned_phase_dragonfly_sync = "WaitingForDragonflySync";
inline constexpr const char* planned_phase_dragonfly_promote = "PromotingDragonfly";

/// The record of an accepted request (planned_started's) before its plan starts: with Dragonfly
/// managed, WaitingForDragonflySync with the dragonfly part filled in from `rules`; else
/// unchanged (Draining).
planned_failover_record planned_sync_started(planned_failover_record r, const dragonfly_rules& rules,
                                             int64_t now_ms);

/// The request the record's current phase asks the Dragonfly manager (sync in
/// WaitingForDragonflySync, promote in PromotingDragonfly).
dragonfly_handover_request planned_handover_request(const planned_failover_record& r);

/// How long the coordinator waits for the manager's report: maxSyncWait plus room for the
/// manager's own bounded reads and commands around the wait.
caf::timespan planned_handover_deadline(const planned_failover_record& r);

/// Whether `rep` answers the request the record waits for (its phase and request number).
bool planned_handover_matches(const planned_failover_record& r, const dragonfly_handover_report& rep);

/// What the sync report means: `start_mysql` (the switchover plan starts with `record`, phase
/// Draining) or not (`record` Failed, DragonflySyncTimeout, finished: MySQL untouched).
struct planned_sync_verdict {
  bool start_mysql = false;
  planned_failover_record record;
  bool timed_out = false;  ///< the sync did not complete (an Event DragonflySyncTimeout)
};
planned_sync_verdict planned_sync_done(planned_failover_record r,
                                       const dragonfly_handover_report& rep, int64_t now_ms);

/// The record after MySQL's switchover completed: PromotingDragonfly with Dragonfly managed,
/// else Succeeded as planned_finished made it. Only a Succeeded record moves on.
planned_failover_record planned_after_mysql(planned_failover_record r, int64_t now_ms);

/// The promote report recorded: Succeeded (MySQL moved) with the method, the target's offset,
/// sessionsPreserved (true only when the sync reached the offset and the move succeeded) or
/// DragonflyPromotionFailed with the manager's error.
planned_failover_record planned_dragonfly_promoted(planned_failover_record r,
                                                   const dragonfly_handover_report& rep,
                                                   int64_t now_ms);

}  // namespace br
