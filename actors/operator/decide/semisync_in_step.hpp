// The in-step judgement of semi-synchronous replication (docs/safety.md "Semi-synchronous
// replication"): does a replica still hold every transaction it received from the active primary?
//
// A replica loses received transactions only by restarting (relay_log_recovery discards what was
// received but not applied). So: a replica is judged in step once a probe taken after its last
// restart shows it receiving from the active primary and holding the primary's whole executed set
// read just before that probe; it stays in step until it restarts (its start instant moves) or a
// new primary is promoted (judged again against the new one). Pure; the coordinator keeps the
// records in memory (an operator restart judges again on the next polls).
#pragma once

#include <caf/timespan.hpp>

#include <cstdint>
#include <string>

#include "messages/gtid_set.hpp"

namespace br {

struct in_step_record {
  bool in_step = false;
  /// The replica's mysqld start instant when judged (unix seconds on the server's own clock:
  /// its UNIX_TIMESTAMP() minus its uptime, read in the probe, so the reader's clock does not matter).
  int64_t started_at = 0;
  /// The view epoch of the primary it was judged against.
  uint64_t epoch = 0;
  bool operator==(const in_step_record&) const = default;
};

struct in_step_facts {
  uint64_t epoch = 0;          ///< current view epoch (the active primary's)
  gtid_set primary_executed;   ///< the active primary's gtid_executed, read before the replica
  int64_t started_at = 0;      ///< the replica's start instant from this probe
  uint64_t uptime_s = 0;       ///< the replica's uptime from this probe
  bool receiving_from_primary = false;  ///< its receiver runs, from the active primary
  gtid_set received;           ///< gtid_executed united with the channel's received set
  /// Real reads are not one instant: the primary's set is read by one probe, the replica's by a
  /// later one. `ordered`: the primary's probe had answered before the replica's was sent (so its
  /// set is no newer than the replica's). `window_s`: seconds from the primary's probe being sent
  /// to the replica's answer, rounded up; a restart of the replica inside that window (after the
  /// primary's read) could have discarded a transaction committed after it, so the replica is
  /// judged only when its uptime is longer than the window. The simulation reads both at once.
  bool ordered = true;
  uint64_t window_s = 0;
};

/// Start instants closer than this are the same start (uptime has one-second resolution and the
/// probe's clock reading and the server's are not taken at the same instant).
constexpr int64_t in_step_start_tolerance_s = 2;
/// Judged in step only once the server has run longer than this: a later restart then moves the
/// start instant by at least this much (the restart comes after the judging probe), more than the
/// tolerance, so no restart goes unseen.
constexpr uint64_t in_step_min_uptime_s = 2 * in_step_start_tolerance_s + 1;

in_step_record judge_in_step(const in_step_record& before, const in_step_facts& now);

/// Seconds from `from` to `to` rounded up (0 when `to` is not later).
uint64_t window_seconds(caf::timespan elapsed);

/// At a failover: the record still holds for a probe showing `started_at`, against the primary
/// that was active at `epoch` (a restart since, or a record of another primary, does not).
bool still_in_step(const in_step_record& r, int64_t started_at, uint64_t epoch);

}  // namespace br
