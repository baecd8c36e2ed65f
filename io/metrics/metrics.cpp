// Process-wide Prometheus registry: build info, start time, actor restarts, text rendering.
#include "io/metrics/metrics.hpp"

#include <prometheus/text_serializer.h>

#include <chrono>
#include <mutex>

namespace br::metrics {

std::shared_ptr<prometheus::Registry> process_registry() {
  static auto registry = std::make_shared<prometheus::Registry>();
  return registry;
}

void init_process_metrics(const std::string& binary, const std::string& version) {
  static std::once_flag once;
  std::call_once(once, [&] {
    auto& reg = *process_registry();
    prometheus::BuildGauge()
        .Name("bloodraven_build_info")
        .Help("Build information of this Bloodraven binary; the value is always 1.")
        .Register(reg)
        .Add({{"binary", binary}, {"version", version}})
        .Set(1);
    auto now = std::chrono::system_clock::now().time_since_epoch();
    prometheus::BuildGauge()
        .Name("process_start_time_seconds")
        .Help("Start time of the process since the Unix epoch in seconds.")
        .Register(reg)
        .Add({})
        .Set(std::chrono::duration<double>(now).count());
  });
}

prometheus::Counter& actor_restarts(const std::string& path) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_actor_restarts_total")
                            .Help("Restarts of an actor by its supervisor, by actor path.")
                            .Register(*process_registry());
  return family.Add({{"actor", path}});
}

std::string render_text() {
  return prometheus::TextSerializer().Serialize(process_registry()->Collect());
}

}  // namespace br::metrics
