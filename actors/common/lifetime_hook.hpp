// A child whose only job is to run `on_stop` when the supervision tree stops it (things that live
// outside the tree but must not outlive it: worker pools, WebSocket sessions, the local platform).
#pragma once

#include <functional>
#include <string>

#include "actors/common/supervisor.hpp"

namespace br {

/// A child spec named `name` (kind "lifetime_hook") running `on_stop` when it stops. Put it first
/// among its siblings: children stop in reverse start order, so it runs last.
child_spec lifetime_hook(std::string name, std::function<void()> on_stop);

}  // namespace br
