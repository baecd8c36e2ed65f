// The poller's wake-up gate (issue 22, the Group Replication doorbell): an authenticated
// gr-observed report from a sidecar asks every poller of its group to poll now instead of at its
// next tick. A wake carries no authority (the verdict still comes only from the cross-validated
// round the polls feed), but it must not let a flood of reports make a poller probe in a tight
// loop: at most one wake-started probe per `min_gap`; wakes in between are coalesced into one
// probe at the end of the gap (never dropped: the change that rang may come after the last probe
// started). Pure.
#pragma once

#include <chrono>
#include <optional>

namespace br {

struct wake_gate_state {
  /// When the last wake-started probe began (none yet: the first wake probes at once).
  std::optional<std::chrono::steady_clock::time_point> last_wake_probe;
  /// A coalesced wake is waiting (for the probe in flight, or for the gap to pass).
  bool pending = false;
};

enum class wake_action {
  probe_now,      ///< start a probe now (record it in last_wake_probe)
  after_probe,    ///< a probe is in flight (it may have read the server before the change):
                  ///< ask again when it returns
  later,          ///< too soon after the last wake probe: ask again after `delay`
  coalesced,      ///< a wake is already waiting: nothing to do
};

struct wake_decision {
  wake_action action = wake_action::coalesced;
  std::chrono::nanoseconds delay{0};
};

/// What to do with a wake (or with a waiting wake that is due again: clear `pending` first).
wake_decision decide_wake(const wake_gate_state& s, bool probe_in_flight,
                          std::chrono::steady_clock::time_point now,
                          std::chrono::nanoseconds min_gap);

/// The gate after `d` was carried out at `now`.
wake_gate_state after_wake(wake_gate_state s, const wake_decision& d,
                           std::chrono::steady_clock::time_point now);

const char* to_string(wake_action a);

}  // namespace br
