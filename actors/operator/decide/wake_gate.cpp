// The poller's wake-up gate (see wake_gate.hpp).
#include "actors/operator/decide/wake_gate.hpp"

namespace br {

wake_decision decide_wake(const wake_gate_state& s, bool probe_in_flight,
                          std::chrono::steady_clock::time_point now,
                          std::chrono::nanoseconds min_gap) {
  if (s.pending) return {wake_action::coalesced, {}};
  if (probe_in_flight) return {wake_action::after_probe, {}};
  if (s.last_wake_probe && now - *s.last_wake_probe < min_gap)
    return {wake_action::later, *s.last_wake_probe + min_gap - now};
  return {wake_action::probe_now, {}};
}

wake_gate_state after_wake(wake_gate_state s, const wake_decision& d,
                           std::chrono::steady_clock::time_point now) {
  switch (d.action) {
    case wake_action::probe_now:
      s.last_wake_probe = now;
      break;
    case wake_action::after_probe:
    case wake_action::later:
      s.pending = true;
      break;
    case wake_action::coalesced:
      break;
  }
  return s;
}

const char* to_string(wake_action a) {
  switch (a) {
    case wake_action::probe_now: return "probe_now";
    case wake_action::after_probe: return "after_probe";
    case wake_action::later: return "later";
    case wake_action::coalesced: return "coalesced";
  }
  return "?";
}

}  // namespace br
