// Whether the coordinator accepts a requested planned switchover.
#include "actors/operator/decide/switchover_request.hpp"

#include <algorithm>

namespace br {

switchover_verdict check_switchover(const switchover_facts& f, const std::string& target) {
  auto no = [](std::string why) { return switchover_verdict{false, std::move(why)}; };
  if (std::find(f.sites.begin(), f.sites.end(), target) == f.sites.end())
    return no("unknown site " + target);
  if (std::find(f.restore_pending.begin(), f.restore_pending.end(), target) != f.restore_pending.end())
    return no(target + " is restore-pending: it may hold transactions the in-place restore discarded; it "
              "becomes a candidate once recloned from the restored site");
  auto role = f.roles.count(target) ? f.roles.at(target) : site_role::primary_candidate;
  if (role != site_role::primary_candidate)
    return no(target + " is not a primary-candidate (role " + std::string(to_string(role)) + ")");
  if (f.busy) return no("another plan is running");
  if (f.active_site.empty()) return no("no active primary to hand over from");
  if (f.active_site == target) return no(target + " is already the active site");
  auto active = f.reports.find(f.active_site);
  if (active == f.reports.end() || active->second.step.next.state != site_state::writable)
    return no("active site " + f.active_site + " is not confirmed writable");
  auto it = f.reports.find(target);
  if (it == f.reports.end() || !it->second.probe_ok)
    return no(target + " has not been polled successfully");
  const auto& r = it->second;
  if (r.step.next.state != site_state::read_only) return no(target + " is not read-only");
  if (!r.probe.replicating()) return no(target + " is not replicating");
  return {true, "switchover from " + f.active_site + " to " + target};
}

}  // namespace br
