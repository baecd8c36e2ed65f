// The coordinator's hands: carrying out the effects step() returns (internal to the coordinator).
#pragma once

#include <caf/atom.hpp>
#include <caf/stateful_actor.hpp>

#include <optional>
#include <string>

#include "actors/operator/group/coordinator.hpp"

namespace br {


/// Steps the group with `in` and carries out the effects; returns step()'s answer.
std::optional<std::string> step_group(coordinator_self self, const group_input& in);

/// Carries out one effect. MySQL commands, store writes and pushes run asynchronously; their
/// replies come back to step_group as inputs.
void carry_out(coordinator_self self, const group_effect& e);

/// Writes the status now when it differs from the last one written.
void flush_status(coordinator_self self);

/// The wall clock (injectable for virtual-time tests).
wall_time coordinator_wall_now(coordinator_self self);

}  // namespace br
