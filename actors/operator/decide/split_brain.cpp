// Split-brain resolution tiers (see split_brain.hpp).
#include "actors/operator/decide/split_brain.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"

namespace br {

namespace {

const site_observation* find_site(const std::vector<site_observation>& sites,
                                  const std::string& name) {
  auto it = std::find_if(sites.begin(), sites.end(),
                         [&](const site_observation& s) { return s.name == name; });
  return it == sites.end() ? nullptr : &*it;
}

bool writable_candidate(const site_observation* s) {
  return s != nullptr && s->state == site_state::writable &&
         s->role == site_role::primary_candidate;
}

}  // namespace

split_brain_resolution resolve_split_brain(const std::vector<site_observation>& sites,
                                           const std::string& last_failover_target,
                                           const std::vector<std::string>& site_priorities,
                                           bool cooldown_allows) {
  split_brain_resolution out;
  std::vector<std::string> writable;
  for (const auto& s : sites)
    if (s.state == site_state::writable) writable.push_back(s.name);
  auto header = "SPLIT BRAIN: " + std::to_string(writable.size()) + " sites are writable (" +
                join_names(writable) + ")";
  auto losers = [&](const std::string& winner) {
    std::vector<std::string> v;
    for (const auto& w : writable)
      if (w != winner) v.push_back(w);
    return v;
  };
  if (writable.size() < 2) {
    out.message = "no split brain: " + std::to_string(writable.size()) + " writable site(s)";
    return out;
  }

  // Tier 1: our own history names the authority.
  if (!last_failover_target.empty()) {
    if (writable_candidate(find_site(sites, last_failover_target))) {
      out.tier = split_brain_tier::history;
      out.winner = last_failover_target;
      out.fence = losers(out.winner);
      out.message = header + "; last failover target " + out.winner +
                    " keeps its writes, fencing " + join_names(out.fence);
      return out;
    }
    out.message = header + "; last failover target " + last_failover_target +
                  " is not a writable primary-candidate; alert only, no automatic action";
    return out;
  }

  // Tier 2: sitePriorities, first entry that is writable and primary-candidate.
  if (!site_priorities.empty()) {
    for (const auto& p : site_priorities) {
      if (!writable_candidate(find_site(sites, p))) continue;
      out.tier = split_brain_tier::priority;
      out.winner = p;
      out.fence = losers(p);
      out.repromote = cooldown_allows;
      out.repromote_deferred = !cooldown_allows;
      out.message = header + "; split-brain auto-resolve: fencing non-preferred site(s) " +
                    join_names(out.fence) + " per spec.splitBrainPolicy.sitePriorities, " + p +
                    (cooldown_allows ? " is re-promoted"
                                     : " keeps its writes; re-promotion deferred by the "
                                       "anti-flap cooldown");
      return out;
    }
    out.message = header + "; no spec.splitBrainPolicy.sitePriorities entry (" +
                  join_names(site_priorities) +
                  ") is a writable primary-candidate; alert only, no automatic action";
    return out;
  }

  // Tier 3.
  out.message = header +
                "; no failover history and no sitePriorities; alert only, no "
                "automatic action";
  return out;
}

}  // namespace br
