// The registry actor: who is alive in the supervision tree, their step, errors and restarts.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <string>

#include "messages/interfaces.hpp"

namespace br {

/// Spawns the registry and publishes it in the actor system's named registry under "registry",
/// so any actor can reach it with `find_registry`.
registry_actor spawn_registry(caf::actor_system& sys);

/// The registry published by spawn_registry, or an invalid handle.
registry_actor find_registry(caf::actor_system& sys);

/// "root/group:orders" -> parent "root", name "group:orders".
std::string parent_of(const std::string& path);
std::string name_of(const std::string& path);

/// Convenience calls for any event-based actor (typed or not); no-ops when no registry runs.
/// They send from `self` so the registry can monitor the announcing actor.
template <class Self>
void announce(Self* self, const std::string& path, const std::string& kind) {
  if (auto r = find_registry(self->system()))
    self->send(r, announce_atom::value,
               actor_entry{path, name_of(path), kind, parent_of(path), self->id()});
}

template <class Self>
void report_step(Self* self, const std::string& path, const std::string& step) {
  if (auto r = find_registry(self->system())) self->send(r, step_atom::value, path, step);
}

template <class Self>
void report_error(Self* self, const std::string& path, const std::string& error) {
  if (auto r = find_registry(self->system())) self->send(r, error_atom::value, path, error);
}

}  // namespace br
