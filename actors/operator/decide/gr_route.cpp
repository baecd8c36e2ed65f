// Where a Group Replication group's traffic goes (see gr_route.hpp).
#include "actors/operator/decide/gr_route.hpp"

namespace br {

std::optional<gr_route> gr_route_of(const config::group_replication_status& g,
                                    const std::string& active_site) {
  if (!g.view_known) return std::nullopt;
  gr_route r;
  r.primary = g.primary_member == active_site ? g.primary_member : std::string{};
  for (const auto& m : g.members)
    if (m.state == "ONLINE" && m.role == "SECONDARY") r.secondaries.push_back(m.name);
  return r;
}

}  // namespace br
