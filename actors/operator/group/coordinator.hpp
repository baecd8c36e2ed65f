// coordinator: one per group; the actor around step() (decide/group_step.hpp): it gathers inputs,
// steps the group and carries out the effects (store, MySQL, sidecars, platform, metrics).
#pragma once

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/timespan.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/common/child_lookup.hpp"
#include "actors/operator/decide/admin_handoff.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/topology.hpp"
#include "actors/operator/group/executor_deps.hpp"
#include "messages/decisions.hpp"
#include "messages/interfaces.hpp"
#include "messages/operator.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

struct coordinator_config {
  /// The rules' inputs from the spec (group, sites, roles, priorities, timings, policy).
  group_rules rules;
  /// Whose rules: the topology's step decides (decide/topology.hpp).
  const topology* topo = &async_replication_topology();
  std::string namespace_name;
  std::string path;  ///< registry path
  /// Status changes are coalesced for this long (view changes are written at once).
  caf::timespan status_coalesce{std::chrono::milliseconds(500)};
  caf::timespan store_timeout{std::chrono::seconds(10)};
  caf::timespan command_timeout{std::chrono::seconds(5)};
  /// Handed to every executor (the coordinator fills in its own handle).
  executor_deps deps;
  executor_factory make_executor;
  /// Wall clock for the cooldown record (injectable so virtual-time tests can drive it).
  wall_source wall_clock;
  /// The group supervisor, asked for the Dragonfly manager (a planned failover's cache steps);
  /// null: none is asked (every request is answered "no Dragonfly manager").
  caf::actor supervisor;
};

/// The coordinator actor's state: the group's rules and their state (actors/operator/decide/
/// group_step.hpp decides everything), plus what only the actor can hold: handles, promises and
/// the bookkeeping of requests in flight.
struct coordinator_state {
  coordinator_config cfg;
  group_state group;
  executor_actor executor;
  /// Answers owed to executors for (phase, ...) requests, by the id handed to step().
  std::map<uint64_t, caf::typed_response_promise<bool>> phase_replies;
  uint64_t next_reply = 1;
  std::optional<config::group_status> last_status;  ///< the last one published
  bool status_flush_scheduled = false;
  /// The last admin request taken (decide/admin_handoff.hpp): a repeat is not acted on again.
  taken_request taken;
  // Best-effort pushes of every published view to the sidecars (one worker per sidecar).
  /// Shared with the exit hook that stops them (it runs after the state is destroyed).
  std::shared_ptr<std::map<std::string, http_worker_actor>> push_workers =
      std::make_shared<std::map<std::string, http_worker_actor>>();
  std::set<std::string> push_inflight;
  /// The group's Dragonfly manager, found by asking the supervisor (actors/common/child_lookup.hpp).
  child_ref<dragonfly_manager_actor> dragonfly;
  static inline const char* name = "coordinator";
};

using coordinator_self = coordinator_actor::stateful_pointer<coordinator_state>;

/// The coordinator's behaviour (a typed actor: exactly coordinator_actor's messages); spawn it with
/// spawn_coordinator or from a supervisor with `sup->spawn(coordinator, cfg)`. It turns each
/// message or reply into a group_input, calls step() and carries out the effects; it decides
/// nothing itself.
coordinator_actor::behavior_type coordinator(coordinator_self self, coordinator_config cfg);

coordinator_actor spawn_coordinator(caf::actor_system& sys, coordinator_config cfg);

}  // namespace br
