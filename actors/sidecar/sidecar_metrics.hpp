// The sidecar's Prometheus metrics (on the process registry).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include <string>

namespace br::sidecar {

/// bloodraven_sidecar_self_fence_total{reason="mismatch|transition|lease|push"}.
prometheus::Counter& self_fence_counter(const std::string& reason);
/// bloodraven_sidecar_view_epoch: epoch of the cached view.
prometheus::Gauge& view_epoch_gauge();

}  // namespace br::sidecar
