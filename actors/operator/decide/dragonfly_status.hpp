// status.dragonfly (pure): what the Dragonfly manager reports after a poll, as the JSON member the
// Kubernetes status writer lays over the group's status (merged member by member, so a
// lastFailover recorded before an operator restart stays until a newer one).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/decide/dragonfly_steer.hpp"

namespace br::dragonfly {

/// The last cache master change the manager made.
struct cache_failover {
  std::string time;  ///< RFC 3339
  std::string from;  ///< "" when there was no master before
  std::string to;
  std::string method;  ///< REPLTAKEOVER | REPLICAOF NO ONE
  std::string reason;  ///< MasterLost | MovedToActiveSite
  /// The new master had every write of the old one when it took over (REPLTAKEOVER, or the old
  /// master's traffic stopped and the replica caught up to its offset); false after a lost master.
  bool sessions_preserved = false;
};

struct status_facts {
  std::string master_site;  ///< the recorded master after this poll's commands
  std::optional<bool> takeover_supported;  ///< unset until probed
  std::string takeover_message;
  std::string takeover_probe_time;  ///< RFC 3339, "" until probed
  std::optional<cache_failover> last_failover;  ///< unset: not sent (the stored one stays)
};

/// {enabled, phase, message, masterSite, sites[{name, role, ready, offset, lagBytes,
/// masterLinkStatus, message}], replTakeoverSupported/ProbeMessage/ProbeTime (once probed),
/// lastFailover{time, fromSite, toSite, method, reason, sessionsPreserved} (when known)}.
/// role is the site's class (master, replica, stale-master, unconfigured, unreachable, unknown);
/// offset is the server's replication offset (a master's master_repl_offset, a replica's own),
/// absent when unknown; lagBytes only for a replica following the recorded master (its offset
/// behind the master's, at least 0). Messages are capped at 256 bytes (they quote what the
/// servers answered).
nlohmann::json status_json(const steer_input& in, const steer_plan& plan, const status_facts& f);

}  // namespace br::dragonfly
