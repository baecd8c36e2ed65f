// Process-wide Prometheus registry and the metrics every binary exports.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

namespace br::metrics {

/// The registry every component registers on (one per process).
std::shared_ptr<prometheus::Registry> process_registry();

/// Sets bloodraven_build_info{version,binary} and process_start_time_seconds. Call once at start.
void init_process_metrics(const std::string& binary, const std::string& version);

/// bloodraven_actor_restarts_total{actor=<path>}.
prometheus::Counter& actor_restarts(const std::string& path);

/// Prometheus text exposition (format 0.0.4) of the process registry.
std::string render_text();

}  // namespace br::metrics
