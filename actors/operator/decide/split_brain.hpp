// Split-brain resolution: which writable sites to fence when more than one site is writable.
//
// Tiers ():
//   1. history: last_failover_target is non-empty, names a primary-candidate that is writable
//      -> fence every other writable site, regardless of policy (the site we promoted last keeps
//      its writes: the others are returning old primaries). No re-promotion is needed.
//   2. priority: no history (last_failover_target empty) and site_priorities non-empty (the
//      caller folds a legacy preferSite in as the single entry) -> the winner is the FIRST
//      priority entry that is writable and primary-candidate; every other writable site is
//      fenced and the winner is re-promoted through the normal path (epoch, DNS, taints).
//      The re-promotion is subject to the anti-flap cooldown: when `cooldown_allows` is false,
//      the losers are still fenced (fencing only reduces the number of writers, so it is safe at
//      any time) but `repromote` is false and `repromote_deferred` true.
//      No entry matches -> alert only. Never falls back to declared order.
//   3. otherwise (no history and no priorities; or history naming a site that is not writable,
//      which we cannot interpret) -> alert only, nothing is fenced.
// Call it when evaluate() returned split_brain; with fewer than two writable sites it returns
// alert with an explanatory message and no fence.
#pragma once

#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {

split_brain_resolution resolve_split_brain(const std::vector<site_observation>& sites,
                                           const std::string& last_failover_target,
                                           const std::vector<std::string>& site_priorities,
                                           bool cooldown_allows);

}  // namespace br
