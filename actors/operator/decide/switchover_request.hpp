// Whether the coordinator accepts a requested planned switchover (ordered updates hand the primary over).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "messages/operator.hpp"
#include "messages/topology.hpp"

namespace br {

struct switchover_facts {
  std::vector<std::string> sites;
  std::map<std::string, site_role> roles;
  std::string active_site;  ///< "" while no primary is confirmed or a transition runs
  bool busy = false;        ///< a plan runs or state is being persisted
  std::map<std::string, site_report> reports;  ///< latest report per site
  /// Restore-pending sites (decide/restore_freeze.hpp): refused as targets, naming why.
  std::vector<std::string> restore_pending;
};

struct switchover_verdict {
  bool accepted = false;
  std::string reason;  ///< why not (or what will happen)
};

/// Pure: a switchover to `target` is accepted only when the group is idle with a writable active
/// primary, and the target is another primary-candidate that is read-only and replicating at
/// its last poll. Cooldown does not apply: the handoff is planned (fence, drain, then promote),
/// so it cannot flap on a transient fault.
switchover_verdict check_switchover(const switchover_facts& f, const std::string& target);

}  // namespace br
