// Primary re-assert: clear the fence on the last failover target when its own
// sidecar fenced it (stale lease) and nothing else can serve writes.
//
// reassert when ALL hold:
//   - last_failover_target is known, is in `sites`, and is a primary-candidate;
//   - every core site (primary-candidate, dr-only) is reachable and read-only; readers are
//     ignored like everywhere else in health decisions, except that a writable reader makes this
//     not applicable (evaluate() fences it first);
//   - the target's gtid_executed contains the recorded promotionGtidExecuted (lineage) and every
//     other core site's gtid_executed (no peer holds a transaction the target lacks);
//   - no re-assert ran within failover_cooldown (last_reassert + cooldown <= now).
// Verdicts: not_applicable (quiet: preconditions absent), refused (WARN: unparsable recorded
// promotion GTID, missing GTID sets, lineage mismatch, peer divergence), rate_limited (with
// retry_in), reassert. The promotion GTID text "" parses as the empty set (a group promoted
// before any transaction).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {

struct reassert_input {
  std::vector<site_observation> sites;
  std::map<std::string, gtid_set> gtid_executed;  ///< per site name; every core site needed
  std::string last_failover_target;
  std::string promotion_gtid_executed;  ///< status.promotionGtidExecuted as recorded (text)
  wall_time now{};
  std::optional<wall_time> last_reassert;
  caf::timespan failover_cooldown{0};
};

reassert_decision decide_primary_reassert(const reassert_input& in);

}  // namespace br
