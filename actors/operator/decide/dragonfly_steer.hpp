// The Dragonfly manager's decisions for one poll (pure): classify each site's cache server,
// keep the replicas attached to the master, steer traffic away from a stale master, and choose
// a new master when the recorded one is lost or sits elsewhere than MySQL's active site.
//
// Dragonfly is cache/session state, never durable: the rules prefer keeping sessions (a graceful
// REPLTAKEOVER of a synced replica) but never hold MySQL or wait for a human to move the cache,
// with one exception: a master that is not ours and provably took writes (a stale master) is
// never rejoined by the operator, because REPLICAOF would discard what it holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/dragonfly.hpp"

namespace br::dragonfly {

/// One site's server as the manager read it this poll.
struct site_observation {
  std::string site;
  bool reachable = false;
  replication_info info;  ///< meaningful when reachable
  std::string host;              ///< the address other sites' replicas use to follow it
  uint16_t port = 6379;
};

struct steer_input {
  std::vector<site_observation> sites;  ///< declared order
  std::string master_site;   ///< the recorded Dragonfly master ("" before the first one)
  std::string mysql_active;  ///< MySQL's active site
  /// Consecutive polls the recorded master was unreachable, this one included; the replica is
  /// promoted when it reaches `lost_after_polls` (a blip does not move the cache).
  int master_unreachable_polls = 0;
  int lost_after_polls = 3;
  bool takeover_supported = false;  ///< the servers advertise REPLTAKEOVER (Dragonfly)
  /// Old masters this manager demoted after their replica had all their writes (REPLTAKEOVER, or
  /// traffic stopped, sessions killed and the replica caught up): their data is contained in the
  /// new master's, so REPLICAOF on them discards nothing. Every other master holding writes is stale.
  std::vector<std::string> rejoinable;
  bool paused = false;              ///< a planned failover runs: observe and report only
};

enum class site_class : uint8_t { master, replica, stale_master, unconfigured, unreachable, unknown };
std::string_view to_string(site_class c);

struct site_verdict {
  std::string site;
  site_class cls = site_class::unknown;
  bool ready = false;
  std::string why;  ///< one line: what the class and readiness rest on
};

enum class action_kind : uint8_t {
  replicaof,      ///< REPLICAOF host port on `site`
  takeover,       ///< REPLTAKEOVER on `site` (graceful: its master hands over, then follows it)
  promote,        ///< REPLICAOF NO ONE on `site` (sessions written after the last sync are lost)
  strip_traffic,  ///< dragonfly-traffic=disabled on `site` (the active endpoint stops selecting it)
  wait_sync,      ///< wait (up to maxSyncWait) until `site` reached the offset its master `host` has now
  client_kill,    ///< CLIENT KILL TYPE NORMAL on `site` (its clients reconnect through the endpoint)
  pause_writes,   ///< CLIENT PAUSE <maxSyncWait> WRITE on `site`: no client write is acked there
                  ///< after its offset was read (the router may still send it clients until its
                  ///< check notices the stripped traffic); replication to its replicas goes on
  unpause_writes, ///< CLIENT UNPAUSE on `site` (also run by the manager when a later step failed)
  label_master,   ///< dragonfly-role=master, traffic enabled, on `site`; role=replica elsewhere
  event,          ///< an Event: type, reason, message; `site` when it is about one site
};

struct action {
  action_kind kind = action_kind::event;
  std::string site;
  std::string host;  ///< replicaof
  uint16_t port = 0;
  std::string event_type, reason, message;
  /// A failure is logged and the plan goes on (the old master after a move may be shut down:
  /// Dragonfly ends a master that handed over with REPLTAKEOVER).
  bool best_effort = false;
};

struct steer_plan {
  std::vector<site_verdict> sites;
  std::string master_site;  ///< the master after this plan (recorded when it changes)
  std::string phase;        ///< ConfiguringReplication | Degraded | Ready
  std::string phase_reason;
  std::vector<action> actions;  ///< in order; a paused plan holds none
};

/// Classes: unreachable (no answer); unknown (no role in INFO); replica; master when it is the
/// recorded master (or, before any, the one rule 1 picks); a master elsewhere is unconfigured when
/// it provably holds nothing (INFO keyspace read and empty, no replicas: a server that just
/// started), else stale_master (also when its keyspace is unknown). A master is ready when reachable; a replica when its link is up,
/// it heard from its master (last IO >= 0), is not syncing and not loading.
///
/// Master choice, in this order:
/// 1. none recorded: MySQL's active site when it answers as a master, else the only master that
///    holds data (rule 3 then moves it to MySQL's active site on a later poll).
/// 2. the recorded master lost (unreachable for lost_after_polls polls, or at once when MySQL's
///    active site is elsewhere, or back as an empty master while a replica that followed it
///    holds data): promote a reachable replica: one that followed it, not syncing or loading,
///    the highest offset, then MySQL's active site; REPLICAOF NO ONE (the master is gone, nothing
///    to take over from). Rule 3 moves it to MySQL's active site later.
/// 3. the recorded master reachable but not on MySQL's active site, and that site's server a ready
///    replica of it (link up, streaming): move the master there: REPLTAKEOVER when supported (it
///    waits for the replica itself), else strip the old master's traffic, pause its client writes
///    (CLIENT PAUSE WRITE: a client the router still sends there until its check notices gets no
///    acked write the replica would miss), kill its client sessions, wait until the replica
///    reached the old master's offset, REPLICAOF NO ONE (the pause is lifted at the end). Then
///    (best effort) the old master's sessions are killed and it follows the new master; it is
///    rejoinable from then on. A replica that is not ready is waited for (the cache stays where it
///    is, serving).
/// Then every other site that is a replica following another server or with its link down, or
/// unconfigured, gets REPLICAOF the master; a stale master gets its traffic stripped and a Warning
/// Event, never REPLICAOF, unless it is `rejoinable`.
/// The serving master's traffic is asserted in every plan (label_master, idempotent), so a switch
/// that failed is repaired by the next poll. A recorded master that answers as a replica of another
/// reachable master (a takeover whose answer was lost) hands the record to that master.
/// Phase: no ready master -> ConfiguringReplication; a stale master or an unreachable site ->
/// Degraded; a replica not ready -> ConfiguringReplication; else Ready.
steer_plan plan_steering(const steer_input& in);

}  // namespace br::dragonfly
