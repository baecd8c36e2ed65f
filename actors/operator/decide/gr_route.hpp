// Where a Group Replication group's traffic goes, from its published status (issue 22): the one
// rule the standalone route file and the Kubernetes pod labels both follow.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "messages/group_status.hpp"

namespace br {

struct gr_route {
  std::string primary;                   ///< "" while the view's active site is not the PRIMARY
  std::vector<std::string> secondaries;  ///< ONLINE SECONDARY members, in the status's order
};

/// Pure: from the agreed view only (nullopt while it is unknown: nothing changes). The primary
/// once the view's active site is the group's ONLINE PRIMARY; the ONLINE secondaries. Members
/// that are not ONLINE are in no list (and so, in Kubernetes, in no Service: -readers is the
/// primary plus the secondaries).
std::optional<gr_route> gr_route_of(const config::group_replication_status& g,
                                    const std::string& active_site);

}  // namespace br
