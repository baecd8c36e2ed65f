// Tie-break order shared by the decisions: sitePriorities entries first (list order), then the
// remaining sites in declared (spec.sites) order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace br {

/// Sort key: smaller ranks first. Sites named in `priorities` get their list index; the others
/// get priorities.size() + their declared index.
inline size_t site_order_key(const std::string& name, size_t declared_index,
                             const std::vector<std::string>& priorities) {
  auto it = std::find(priorities.begin(), priorities.end(), name);
  if (it != priorities.end()) return static_cast<size_t>(it - priorities.begin());
  return priorities.size() + declared_index;
}

/// "a, b, c"
inline std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace br
