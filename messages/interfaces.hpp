// The catalogue of typed actor interfaces: who talks to whom, with which messages.
#pragma once

#include <caf/typed_actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/actor.hpp>

#include <cstdint>
#include <string>

#include "messages/actor_info.hpp"
#include "messages/atoms.hpp"

namespace br {

/// Registry: the record of every live actor, for /debug/actors.
/// - (announce, entry): an actor (re)joins the tree; the registry monitors it.
/// - (announce, entry, handle): a supervisor announces a child it started; monitored likewise.
/// - (step, path, text): the actor's current step or state summary changed.
/// - (error, path, text): the actor's last error.
/// - (restarts, path, n): a supervisor restarted the actor at `path`; n = total restarts so far.
/// - (tree) -> JSON text of the whole supervision tree.
using registry_actor = caf::typed_actor<
    caf::reacts_to<announce_atom, actor_entry>,
    caf::reacts_to<announce_atom, actor_entry, caf::actor>,
    caf::reacts_to<step_atom, std::string, std::string>,
    caf::reacts_to<error_atom, std::string, std::string>,
    caf::reacts_to<restarts_atom, std::string, uint64_t>,
    caf::replies_to<tree_atom>::with<std::string>>;

/// Supervisor (dynamically typed `caf::actor`, because it traps exits of arbitrary children):
/// - (child, name) -> caf::actor: the current handle of a running child, or an error.
/// - (restarts, name) -> uint64_t: how often that child was restarted.
/// - (stop) -> bool: stops children in reverse start order, waits for each, then quits normally.

}  // namespace br
