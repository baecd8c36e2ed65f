// boot_guard: fence first, ask the operator, unfence only when its view names this site (rule 3).
#pragma once

#include <caf/event_based_actor.hpp>

#include <memory>

#include "actors/sidecar/fencing/fencing_monitor.hpp"
#include "actors/sidecar/common/sidecar_handles.hpp"

namespace br::sidecar {

/// Runs once and quits normally (a supervisor does not restart it). Without site, namespace, group
/// and operator address it is skipped. Steps: (1) fence (super_read_only=ON; no
/// session kill at boot); (2) GET /active-site with REQUEST_TIMEOUT; (3) offer the answer to the view
/// cache; (4) unfence only when the fence succeeded AND the cache's view
/// afterwards names this site as active. Error, 503, 404, an empty or other site: stay fenced.
/// Always tells the fencing monitor it finished (for /ready).
ticking_actor::behavior_type boot_guard(ticking_actor::pointer self, monitor_options opts,
                                        std::shared_ptr<sidecar_handles> handles);

}  // namespace br::sidecar
