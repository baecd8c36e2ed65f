// Cross-site evaluation (see evaluate.hpp for the rule order).
#include "actors/operator/decide/evaluate.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"

namespace br {

namespace {

bool is_core(const site_observation& s) {
  return s.role != site_role::read_only;
}

std::vector<std::string> names_where(const std::vector<site_observation>& sites, auto pred) {
  std::vector<std::string> out;
  for (const auto& s : sites)
    if (pred(s)) out.push_back(s.name);
  return out;
}

group_evaluation make(group_verdict v, std::string reason, std::string message) {
  group_evaluation e;
  e.verdict = v;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

}  // namespace

group_evaluation evaluate(const std::vector<site_observation>& sites,
                          const std::vector<std::string>& site_priorities) {
  auto writable = names_where(sites, [](auto& s) { return s.state == site_state::writable; });
  auto unreachable =
      names_where(sites, [](auto& s) { return is_core(s) && s.state == site_state::unreachable; });
  auto unknown =
      names_where(sites, [](auto& s) { return is_core(s) && s.state == site_state::unknown; });
  size_t core_count = static_cast<size_t>(
      std::count_if(sites.begin(), sites.end(), [](auto& s) { return is_core(s); }));
  auto finish = [&](group_evaluation e) {
    e.writable = writable;
    e.unreachable = unreachable;
    return e;
  };

  // 1. Writable non-candidates: fence, nothing else this cycle.
  std::vector<std::string> fence;
  std::string fence_text;
  for (const auto& s : sites) {
    if (s.state == site_state::writable && s.role != site_role::primary_candidate) {
      fence.push_back(s.name);
      if (!fence_text.empty()) fence_text += ", ";
      fence_text += s.name + " (" + std::string(to_string(s.role)) + ")";
    }
  }
  if (!fence.empty()) {
    auto e =
        make(group_verdict::fence, "Degraded",
             "fencing writable non-candidate site(s): " + fence_text + "; no promotion this cycle");
    e.fence = std::move(fence);
    return finish(std::move(e));
  }

  if (core_count == 0)
    return finish(make(group_verdict::no_primary, "NoPrimary",
                       "NO PRIMARY: no primary-candidate or dr-only site configured"));

  // 2. Total loss of the core sites.
  if (unreachable.size() == core_count)
    return finish(
        make(group_verdict::total_loss, "TotalLoss", "TOTAL LOSS: all sites are unreachable"));

  // 3. Split brain (only candidates can be writable here).
  if (writable.size() > 1) {
    return finish(make(group_verdict::split_brain, "SplitBrain",
                       "SPLIT BRAIN: " + std::to_string(writable.size()) + " sites are writable (" +
                           join_names(writable) + ")"));
  }

  // 4. No writable site.
  if (writable.empty()) {
    if (!unknown.empty()) {
      return finish(make(group_verdict::degraded, "Degraded",
                         "no writable site; waiting for a conclusive poll of " +
                             join_names(unknown) + " before any automatic action"));
    }
    std::vector<std::pair<size_t, std::string>> ranked;
    for (size_t i = 0; i < sites.size(); ++i) {
      const auto& s = sites[i];
      if (s.role == site_role::primary_candidate && s.state == site_state::read_only)
        ranked.emplace_back(site_order_key(s.name, i, site_priorities), s.name);
    }
    if (!unreachable.empty() && !ranked.empty()) {
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](auto& a, auto& b) { return a.first < b.first; });
      auto e = make(group_verdict::failover, "Degraded", "");
      for (auto& r : ranked) e.candidates.push_back(r.second);
      e.message = "FAILOVER: no writable site, " + join_names(unreachable) +
                  " unreachable; promotion candidates: " + join_names(e.candidates);
      return finish(std::move(e));
    }
    auto read_only_core = std::count_if(sites.begin(), sites.end(), [](auto& s) {
      return is_core(s) && s.state == site_state::read_only;
    });
    std::string text;
    if (static_cast<size_t>(read_only_core) == core_count)
      text = core_count == 2
                 ? "NO PRIMARY: both sites are read-only"
                 : "NO PRIMARY: all " + std::to_string(core_count) + " sites are read-only";
    else
      text = "NO PRIMARY: no writable site available";
    return finish(make(group_verdict::no_primary, "NoPrimary", std::move(text)));
  }

  // 5. Exactly one writable (candidate) site.
  const auto& primary = writable.front();
  if (!unreachable.empty())
    return finish(make(group_verdict::degraded, "Degraded",
                       join_names(unreachable) + " unreachable while " + primary + " is primary"));
  if (!unknown.empty())
    return finish(make(group_verdict::degraded, "Degraded",
                       join_names(unknown) + " state unknown while " + primary + " is primary"));
  return finish(make(group_verdict::healthy, "Healthy", primary + " is primary"));
}

}  // namespace br
