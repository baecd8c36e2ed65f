// Epoch recovery at start (docs/safety.md S6): before the coordinator acts on the state it
// loaded, it asks every site's sidecar which signed view it holds and resumes above the highest
// (decide/epoch_floor.hpp). One round, each request bounded by the sidecar request timeout.
#pragma once

#include "actors/operator/group/coordinator.hpp"
#include "actors/operator/group/coordinator_effects.hpp"

namespace br {

/// Steps input::loaded with `stored` raised to the sidecars' highest verified view. Without
/// keys, an HTTP worker or sidecars it steps `stored` at once.
void load_after_epoch_recovery(coordinator_self self, durable_state stored);

}  // namespace br
