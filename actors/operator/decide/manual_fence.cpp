// Manual fence requests: parsing and the acceptance rules (see manual_fence.hpp).
#include "actors/operator/decide/manual_fence.hpp"

#include <algorithm>

namespace br {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

bool declared(const manual_fence_facts& f, const std::string& site) {
  return std::find(f.sites.begin(), f.sites.end(), site) != f.sites.end();
}

bool candidate(const manual_fence_facts& f, const std::string& site) {
  auto it = f.roles.find(site);
  return it == f.roles.end() || it->second == site_role::primary_candidate;
}

manual_fence_verdict refuse(const manual_fence_facts& f, std::string why) {
  return {false, std::move(why), f.fenced};
}

manual_fence_verdict accepted(const std::set<std::string>& added,
                              const std::set<std::string>& removed, std::set<std::string> next) {
  std::string what;
  if (!added.empty()) what = "fenced: " + joined(added);
  if (!removed.empty()) what += (what.empty() ? "" : "; ") + std::string("unfenced: ") + joined(removed);
  return {true, what, std::move(next)};
}

/// The rules for moving from f.fenced to `next`.
manual_fence_verdict check_next(const manual_fence_facts& f, std::set<std::string> next) {
  for (const auto& s : next)
    if (!declared(f, s)) {
      std::string all;
      for (const auto& d : f.sites) all += (all.empty() ? "" : ", ") + d;
      return refuse(f, "unknown site " + s + " (sites: " + all + ")");
    }
  if (next == f.fenced) return {true, "unchanged", next};
  std::set<std::string> added, removed;
  for (const auto& s : next)
    if (!f.fenced.count(s)) added.insert(s);
  for (const auto& s : f.fenced)
    if (!next.count(s)) removed.insert(s);
  if (f.plan_running) return refuse(f, "a plan is running; change the fence when it has finished");
  if (f.gr) {
    if (!added.empty() && !f.gr->view_known)
      return refuse(f, "the group's view is unknown (no majority agrees on it); fence " + joined(added) +
                           " once it is known");
    // Each added member in declared order leaves the group; the next is judged without it.
    auto members = f.gr->members;
    for (const auto& site : f.sites) {
      if (!added.count(site)) continue;
      auto p = gr::may_fence(members, f.gr->declared, site);
      if (!p.allowed) return refuse(f, p.reason);
      for (auto& m : members)
        if (m.site == site) {
          m.fenced = true;
          m.state = gr::member_state::offline;
        }
    }
    return accepted(added, removed, std::move(next));
  }
  if (!f.active_site.empty() && next.count(f.active_site))
    return refuse(f, f.active_site +
                         " is the active primary; move the role first with a planned failover");
  if (!added.empty() && f.active_site.empty())
    return refuse(f, "no active primary is known (failover or bootstrap not finished); fence " +
                         joined(added) + " once the group has a primary");
  bool fences_candidate = std::any_of(added.begin(), added.end(),
                                      [&](const std::string& s) { return candidate(f, s); });
  bool left = std::any_of(f.sites.begin(), f.sites.end(), [&](const std::string& s) {
    return s != f.active_site && candidate(f, s) && !next.count(s);
  });
  if (fences_candidate && !left)
    return refuse(f, "fencing " + joined(added) +
                         " would leave no failover candidate besides the active primary " +
                         f.active_site);
  return accepted(added, removed, std::move(next));
}

}  // namespace

std::set<std::string> parse_fenced_sites(std::string_view value, std::string& error) {
  std::set<std::string> out;
  error.clear();
  value = trim(value);
  if (value.empty()) return out;
  while (true) {
    auto comma = value.find(',');
    auto item = trim(value.substr(0, comma));
    if (item.empty()) {
      error = "empty site name in the list";
      return {};
    }
    out.insert(std::string(item));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

manual_fence_verdict check_fenced_set(const manual_fence_facts& f, std::string_view value) {
  std::string error;
  auto next = parse_fenced_sites(value, error);
  if (!error.empty()) return refuse(f, error);
  return check_next(f, std::move(next));
}

manual_fence_verdict check_fence_request(const manual_fence_facts& f, const std::string& site,
                                         bool on) {
  if (site.empty()) return refuse(f, "no site named");
  if (!declared(f, site)) return check_next(f, {site});  // refused either way: unknown site
  auto next = f.fenced;
  if (on)
    next.insert(site);
  else
    next.erase(site);
  return check_next(f, std::move(next));
}

bool parse_fence_request(std::string_view value, std::string& site, bool& on) {
  auto colon = value.find(':');
  if (colon == std::string_view::npos) return false;
  auto mode = value.substr(0, colon);
  if (mode != "on" && mode != "off") return false;
  on = mode == "on";
  site = std::string(trim(value.substr(colon + 1)));
  return !site.empty();
}

std::map<std::string, site_role> effective_roles(const std::map<std::string, site_role>& roles,
                                                 const std::set<std::string>& fenced) {
  auto out = roles;
  for (const auto& s : fenced) out[s] = site_role::read_only;
  return out;
}

}  // namespace br
