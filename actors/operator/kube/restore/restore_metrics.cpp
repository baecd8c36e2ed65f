// bloodraven_restore_* metrics.
#include "actors/operator/kube/restore/restore_metrics.hpp"

#include <map>

#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include "io/metrics/metrics.hpp"

namespace br::restore_ctl::metrics {

void restore_succeeded(const std::string& ns, const std::string& group, const std::string& kind,
                       const std::string& target_site, double duration_seconds,
                       double completed_unix, std::optional<std::int64_t> source_size_bytes) {
  static auto& duration = prometheus::BuildHistogram()
                              .Name("bloodraven_restore_duration_seconds")
                              .Help("Duration of restores that succeeded (Job start to its result).")
                              .Register(*br::metrics::process_registry());
  static auto& last = prometheus::BuildGauge()
                          .Name("bloodraven_restore_last_success_timestamp_seconds")
                          .Help("Completion of the newest restore that succeeded (unix seconds).")
                          .Register(*br::metrics::process_registry());
  static auto& size = prometheus::BuildGauge()
                          .Name("bloodraven_restore_last_source_size_bytes")
                          .Help("Stored size of the backup the newest successful restore loaded.")
                          .Register(*br::metrics::process_registry());
  std::map<std::string, std::string> l{
      {"namespace", ns}, {"group", group}, {"restore_kind", kind}, {"target_site", target_site}};
  static const prometheus::Histogram::BucketBoundaries buckets{15,   30,   60,    120,   300,  600,
                                                               1200, 1800, 3600,  7200,  14400, 28800};
  if (duration_seconds >= 0) duration.Add(l, buckets).Observe(duration_seconds);
  last.Add(l).Set(completed_unix);
  if (source_size_bytes)
    size.Add(l).Set(static_cast<double>(*source_size_bytes));
  else if (size.Has(l))
    size.Remove(&size.Add(l));
}

}  // namespace br::restore_ctl::metrics
