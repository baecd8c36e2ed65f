// Which followers' stopped receivers to restart (see receiver_restart.hpp).
#include "actors/operator/decide/receiver_restart.hpp"

#include <algorithm>

namespace br {

std::vector<std::string> restart_receivers(const receiver_restart_input& in) {
  std::vector<std::string> out;
  if (in.busy || in.active_site.empty()) return out;
  auto active = in.reports.find(in.active_site);
  if (active == in.reports.end() || !active->second.probe_ok || !active->second.probe.writable())
    return out;
  for (const auto& [site, r] : in.reports) {
    if (site == in.active_site || !r.probe_ok) continue;
    const auto& p = r.probe;
    if (p.writable() || !p.channel_configured || p.io_state != "OFF" || p.last_sql_errno != 0)
      continue;
    // Only a receiver whose channel last reached the active primary: a follower a plan could not
    // repoint still points at the old primary, and starting it there would let a deposed primary
    // collect (semi-sync) acknowledgements again (review V5 H1).
    if (!p.source_uuid.empty() && p.source_uuid != active->second.probe.server_uuid) continue;
    if (std::find(in.restore_pending.begin(), in.restore_pending.end(), site) != in.restore_pending.end())
      continue;
    if (auto rec = in.recovery.find(site); rec != in.recovery.end() && !rec->second.state.empty())
      continue;
    if (auto last = in.last_restart.find(site);
        last != in.last_restart.end() && in.now - last->second < in.min_interval)
      continue;
    out.push_back(site);
  }
  return out;
}

}  // namespace br
