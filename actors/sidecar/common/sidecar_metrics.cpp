// The sidecar's Prometheus metric families, registered once on the process registry.
#include "actors/sidecar/common/sidecar_metrics.hpp"

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

prometheus::Gauge& gauge(const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(*metrics::process_registry()).Add({});
}

}  // namespace

prometheus::Counter& self_fence_counter(const std::string& reason) {
  return fence_family().Add({{"reason", reason}});
}

prometheus::Gauge& view_epoch_gauge() {
  static auto& g = gauge("bloodraven_sidecar_view_epoch", "Epoch of the topology view cached by this sidecar");
  return g;
}

prometheus::Counter& archived_files_counter() {
  static auto& c = prometheus::BuildCounter()
                       .Name("bloodraven_archiver_files_archived_total")
                       .Help("Binlog files this sidecar archived for PITR")
                       .Register(*metrics::process_registry())
                       .Add({});
  return c;
}

prometheus::Gauge& archiver_failures_gauge() {
  static auto& g = gauge("bloodraven_archiver_upload_failures",
                         "Failed binlog archiver scans since the sidecar started");
  return g;
}

prometheus::Gauge& archiver_last_upload_gauge() {
  static auto& g = gauge("bloodraven_archiver_last_upload_timestamp_seconds",
                         "Unix time of the last binlog archived by this sidecar");
  return g;
}

prometheus::Gauge& archiver_backlog_gauge() {
  static auto& g = gauge("bloodraven_archiver_backlog_files",
                         "Sealed binlogs not archived yet after the last scan");
  return g;
}

}  // namespace br::sidecar
