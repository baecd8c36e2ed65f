// The accepted ranges of configured durations (see duration_limits.hpp).
#include "config/duration_limits.hpp"

namespace br::config {

std::string check_bounds(duration d, const duration_bounds& b) {
  if (d <= duration::zero() && b.min > duration::zero()) return "must be a positive duration";
  if (d < b.min) return "must be at least " + format_duration(b.min);
  if (d > b.max) return "must be at most " + format_duration(b.max);
  return {};
}

}  // namespace br::config
