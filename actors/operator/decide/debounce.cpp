// Per-site debounce state machine (see debounce.hpp for the exact rules).
#include "actors/operator/decide/debounce.hpp"

#include <algorithm>
#include <limits>

namespace br {

namespace {

uint32_t saturating_increment(uint32_t n) {
  return n == std::numeric_limits<uint32_t>::max() ? n : n + 1;
}

}  // namespace

debounce_step debounce(const debounce_state& current, poll_result poll, uint32_t failure_threshold,
                       uint32_t recovery_threshold) {
  failure_threshold = std::max<uint32_t>(failure_threshold, 1);
  recovery_threshold = std::max<uint32_t>(recovery_threshold, 1);
  debounce_state next = current;
  switch (poll) {
    case poll_result::failed:
      next.consecutive_failures = saturating_increment(current.consecutive_failures);
      next.consecutive_writable = 0;
      if (next.consecutive_failures >= failure_threshold) next.state = site_state::unreachable;
      break;
    case poll_result::read_only:
      next.consecutive_failures = 0;
      next.consecutive_writable = 0;
      next.state = site_state::read_only;
      break;
    case poll_result::writable:
      next.consecutive_failures = 0;
      next.consecutive_writable = saturating_increment(current.consecutive_writable);
      if (next.consecutive_writable >= recovery_threshold) next.state = site_state::writable;
      break;
  }
  debounce_step step;
  step.next = next;
  step.from = current.state;
  step.to = next.state;
  step.transitioned = current.state != next.state;
  return step;
}

}  // namespace br
