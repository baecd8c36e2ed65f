// One-for-one supervisor: restarts failed children with exponential backoff and a restart budget.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "messages/atoms.hpp"

namespace br {

/// How a supervisor reacts to failures. A child that exits normally is never restarted.
struct restart_policy {
  caf::timespan backoff_base = std::chrono::milliseconds(200);  ///< delay before the 1st restart
  caf::timespan backoff_cap = std::chrono::seconds(30);         ///< delay never exceeds this
  size_t max_restarts = 5;                                      ///< budget: restarts within window
  caf::timespan window = std::chrono::seconds(60);
  caf::timespan stop_timeout = std::chrono::seconds(2);  ///< per child, then it is killed
};

/// How to start one child. `start` spawns it (from the supervisor) and returns its handle;
/// `path` is the child's place in the tree ("root/group:orders"), which it should use when it
/// reports steps to the registry.
struct child_spec {
  std::string name;
  std::string kind;
  std::function<caf::actor(caf::local_actor* sup, const std::string& path)> start;
};

/// What a child_spec's `start` returns for a child spawned as a typed actor: the supervisor holds
/// children of every kind as caf::actor (it only starts, stops and watches them). Its siblings
/// get the typed interface back with ask_child (actors/common/child_lookup.hpp).
template <class Handle>
caf::actor as_child(const Handle& h) {
  return caf::actor_cast<caf::actor>(h);  // typed to untyped: loses no authority, only the type
}

/// The handle of the supervisor that runs a child_spec's `start` (it passes itself; supervisors
/// are dynamically typed), for children that ask it for their siblings.
inline caf::actor supervisor_handle(caf::local_actor* sup) {
  return caf::actor_cast<caf::actor>(sup);  // untyped to untyped
}

/// Delay before the n-th restart within the window (n >= 1): base * 2^(n-1), capped.
caf::timespan backoff_delay(const restart_policy& p, size_t n);

/// Spawns a supervisor at `path` that starts `children` in order.
/// Messages: (child, name) -> actor; (restarts, name) -> uint64_t; (stop) -> bool (stops children
/// in reverse order, then quits normally); (child, child_spec) adds and starts a child at runtime.
/// When a child exhausts the budget the supervisor quits with an error naming the child; its
/// parent (linked or monitoring) sees that reason.
caf::actor spawn_supervisor(caf::actor_system& sys, std::string path, restart_policy policy,
                            std::vector<child_spec> children);

/// A child_spec that runs a nested supervisor.
child_spec supervisor_child(std::string name, restart_policy policy,
                            std::vector<child_spec> children);

}  // namespace br

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(br::child_spec)
