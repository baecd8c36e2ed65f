// Primary re-assert decision (see primary_reassert.hpp).
#include "actors/operator/decide/primary_reassert.hpp"

#include <algorithm>

namespace br {

namespace {

reassert_decision verdict(reassert_verdict v, std::string site, std::string reason) {
  reassert_decision d;
  d.verdict = v;
  d.site = std::move(site);
  d.reason = std::move(reason);
  return d;
}

}  // namespace

reassert_decision decide_primary_reassert(const reassert_input& in) {
  using rv = reassert_verdict;
  const auto& target = in.last_failover_target;
  if (target.empty()) return verdict(rv::not_applicable, "", "no failover history");
  auto it = std::find_if(in.sites.begin(), in.sites.end(),
                         [&](const site_observation& s) { return s.name == target; });
  if (it == in.sites.end())
    return verdict(rv::not_applicable, target, "last failover target is not a configured site");
  if (it->role != site_role::primary_candidate)
    return verdict(rv::not_applicable, target, "last failover target is not a primary-candidate");
  for (const auto& s : in.sites) {
    bool core = s.role != site_role::read_only;
    if ((core && s.state != site_state::read_only) || s.state == site_state::writable)
      return verdict(rv::not_applicable, target,
                     s.name + " is " + std::string(to_string(s.state)) +
                         "; re-assert needs every site reachable and read-only");
  }
  auto target_set = in.gtid_executed.find(target);
  if (target_set == in.gtid_executed.end())
    return verdict(rv::refused, target, "gtid_executed of " + target + " is unknown");
  gtid_parse_error err;
  auto promoted = gtid_set::parse(in.promotion_gtid_executed, &err);
  if (!promoted)
    return verdict(rv::refused, target,
                   "recorded promotionGtidExecuted cannot be parsed (" + err.to_string() + ")");
  if (!target_set->second.contains(*promoted)) {
    auto lacking = promoted->subtract(target_set->second).count();
    return verdict(rv::refused, target,
                   "lineage mismatch: " + target + " lacks " + std::to_string(lacking) +
                       " transaction(s) of the recorded promotionGtidExecuted");
  }
  for (const auto& s : in.sites) {
    if (s.name == target || s.role == site_role::read_only) continue;
    auto peer = in.gtid_executed.find(s.name);
    if (peer == in.gtid_executed.end())
      return verdict(rv::refused, target, "gtid_executed of " + s.name + " is unknown");
    if (!target_set->second.contains(peer->second)) {
      auto extra = peer->second.subtract(target_set->second).count();
      return verdict(rv::refused, target,
                     "peer divergence: " + s.name + " has " + std::to_string(extra) +
                         " transaction(s) " + target + " lacks");
    }
  }
  if (in.last_reassert) {
    auto allowed_from = *in.last_reassert + in.failover_cooldown;
    if (in.now < allowed_from) {
      auto d = verdict(rv::rate_limited, target,
                       "primary re-assert rate limit (once per failoverCooldown)");
      d.retry_in = allowed_from - in.now;
      return d;
    }
  }
  return verdict(rv::reassert, target,
                 target +
                     " is the last failover target, read-only and holds every site's "
                     "transactions; clearing its fence");
}

}  // namespace br
