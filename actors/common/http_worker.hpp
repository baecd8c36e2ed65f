// Detached HTTP worker (sidecar remotes, operator view pushes): one blocking libcurl request at a time, hard timeouts.
#pragma once

#include <caf/actor_system.hpp>

#include "messages/interfaces.hpp"

namespace br {

/// One worker per remote (operator, each peer) so a hanging remote never delays the others.
http_worker_actor spawn_http_worker(caf::actor_system& sys);

}  // namespace br
