// The sidecar's Prometheus metric families, registered once on the process registry.
#include "actors/sidecar/sidecar_metrics.hpp"

#include "io/metrics/metrics.hpp"

namespace br::sidecar {

namespace {

prometheus::Family<prometheus::Counter>& fence_family() {
  static auto& f = prometheus::BuildCounter()
                       .Name("bloodraven_sidecar_self_fence_total")
                       .Help("Self-fences performed by this sidecar, by reason")
                       .Register(*metrics::process_registry());
  return f;
}

}  // namespace

prometheus::Counter& self_fence_counter(const std::string& reason) {
  return fence_family().Add({{"reason", reason}});
}

prometheus::Gauge& view_epoch_gauge() {
  static auto& g = prometheus::BuildGauge()
                       .Name("bloodraven_sidecar_view_epoch")
                       .Help("Epoch of the topology view cached by this sidecar")
                       .Register(*metrics::process_registry())
                       .Add({});
  return g;
}

}  // namespace br::sidecar
