// Which of several members holds the most transactions, by their GTID sets (pure). Shared by the
// Group Replication rollout's switchover target and the GR backup source choice.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "messages/gtid_set.hpp"

namespace br::gr {

/// The index of the entry holding the most transactions: the first, in the given order, whose
/// known set contains every other known set (unknown sets are not compared); when the known sets
/// are incomparable or none is known, the first entry. nullopt for an empty list.
inline std::optional<std::size_t> most_advanced(
    const std::vector<const std::optional<gtid_set>*>& sets) {
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (!*sets[i]) continue;
    bool all = true;
    for (const auto* o : sets)
      if (*o && !(*sets[i])->contains(**o)) all = false;
    if (all) return i;
  }
  if (sets.empty()) return std::nullopt;
  return std::size_t{0};
}

}  // namespace br::gr
