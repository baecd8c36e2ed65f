// Promotion-candidate ranking by GTID containment, then sitePriorities, then declared order.
#include "actors/operator/decide/rank_candidates.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"

namespace br {

namespace {

bool strictly_contains(const gtid_set& a, const gtid_set& b) {
  return a != b && a.contains(b);
}

}  // namespace

candidate_ranking rank_candidates(const std::vector<candidate_gtid>& candidates,
                                  const std::vector<std::string>& site_priorities) {
  candidate_ranking out;
  if (candidates.empty()) {
    out.message = "no promotion candidate";
    return out;
  }
  // Indices into `candidates`, by priority key (stable: declared order for equal keys).
  std::vector<size_t> remaining(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) remaining[i] = i;
  std::stable_sort(remaining.begin(), remaining.end(), [&](size_t a, size_t b) {
    return site_order_key(candidates[a].name, a, site_priorities) <
           site_order_key(candidates[b].name, b, site_priorities);
  });
  auto is_maximal = [&](size_t i, const std::vector<size_t>& pool) {
    return std::none_of(pool.begin(), pool.end(), [&](size_t j) {
      return j != i && strictly_contains(candidates[j].executed, candidates[i].executed);
    });
  };
  // The best candidates: maximal over the whole set, in priority order.
  std::vector<size_t> maximal;
  for (size_t i : remaining)
    if (is_maximal(i, remaining)) maximal.push_back(i);
  // Greedy linear extension of the containment order.
  while (!remaining.empty()) {
    auto it = std::find_if(remaining.begin(), remaining.end(),
                           [&](size_t i) { return is_maximal(i, remaining); });
    // A finite partial order always has a maximal element; guard anyway.
    if (it == remaining.end()) it = remaining.begin();
    out.order.push_back(candidates[*it].name);
    remaining.erase(it);
  }
  const auto& top = candidates[maximal.front()];
  for (size_t k = 1; k < maximal.size(); ++k) {
    const auto& other = candidates[maximal[k]];
    if (other.executed != top.executed) {
      out.incomparable = true;
      out.incomparable_a = top.name;
      out.incomparable_b = other.name;
      out.a_only = top.executed.subtract(other.executed);
      out.b_only = other.executed.subtract(top.executed);
      out.message = "candidates " + top.name + " and " + other.name +
                    " hold incomparable GTID sets (" + top.name + " alone has " +
                    std::to_string(out.a_only.count()) + " transaction(s), " + other.name +
                    " alone has " + std::to_string(out.b_only.count()) +
                    "); refusing to pick a promotion target";
      return out;
    }
  }
  out.winner = top.name;
  for (const auto& name : out.order) {
    if (name == out.winner) continue;
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const candidate_gtid& c) { return c.name == name; });
    auto missing = top.executed.subtract(it->executed);
    if (!missing.empty()) {
      candidate_gap gap;
      gap.name = name;
      gap.missing_count = missing.count();
      gap.missing = std::move(missing);
      out.behind.push_back(std::move(gap));
    }
  }
  out.message = "promotion target " + out.winner;
  if (!out.behind.empty()) {
    out.message += "; behind it:";
    for (const auto& g : out.behind)
      out.message += " " + g.name + " (" + std::to_string(g.missing_count) + " missing)";
  }
  return out;
}

}  // namespace br
