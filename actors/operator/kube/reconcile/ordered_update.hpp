// What a rollout does next: replicas one at a time, then a handoff, then the old primary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/group_spec.hpp"
#include "messages/topology.hpp"

namespace br {

/// One site as the reconciler sees it: its workload (Deployment) and the coordinator's status.
struct rollout_site {
  std::string name;
  site_role role = site_role::primary_candidate;
  bool drifted = false;         ///< the live Deployment needs replacing (render::needs_rollout)
  bool workload_ready = false;  ///< the Deployment observed its newest generation, a pod is ready
  std::string state;            ///< coordinator: writable | read-only | unreachable | unknown
  bool replicating = false;
  std::optional<int64_t> lag_seconds;
  int64_t last_seen_ms = 0;  ///< coordinator's last good poll (unix ms); 0 = never
  bool recovering = false;   ///< a recovery plan is repairing it
};

struct rollout_inputs {
  config::update_strategy strategy = config::update_strategy::ordered_update;
  std::vector<rollout_site> sites;  ///< spec order
  std::string active_site;          ///< the coordinator's view; "" = none or a transition
  bool transition = false;          ///< the view is deposing (a promotion plan runs)
  std::string rolling;              ///< the site rolled last, until it is confirmed caught up
  int64_t rolled_at_ms = 0;         ///< when it was rolled (unix ms)
  int64_t caught_up_lag_seconds = 0;  ///< "caught up" = replicating with at most this lag
};

enum class rollout_action { idle, wait, roll, switchover };

struct rollout_step {
  rollout_action action = rollout_action::idle;
  std::vector<std::string> sites;  ///< roll: the sites to replace now
  std::string target;              ///< switchover: who takes the primary
  std::string reason;              ///< wait: what it waits for; otherwise what it does
  bool rolling_done = false;       ///< inputs.rolling is confirmed: forget it
  /// A rolled member did not come back within its bound (Group Replication): the rollout
  /// stopped (a Warning Event, the reason in the WorkloadReady condition).
  bool stopped = false;
  /// status.updatePhase: "" when nothing is drifted, else UpdatingReplica | WaitingForReplica |
  /// HandingOver | Blocked | Recreating.
  std::string phase;
};

/// Pure: a replica that is read-only, replicating, within `max_lag`, and (when `since_ms` > 0)
/// polled after `since_ms`.
bool replica_caught_up(const rollout_site& s, int64_t max_lag, int64_t since_ms);

/// Pure: the next step of an update. OrderedUpdate: wait while the last rolled site is not
/// ready and caught up (polled after its roll); roll drifted non-active sites one at a time in
/// spec order; when only the active site is left, hand the primary to a caught-up, rolled
/// primary-candidate by a planned switchover; the old primary is then a non-active site and rolls
/// last. The active site is never rolled. Recreate: every drifted site at once.
rollout_step next_rollout_step(const rollout_inputs& in);

}  // namespace br
