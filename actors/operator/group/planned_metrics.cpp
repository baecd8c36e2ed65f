// Planned failover metrics, registered once on the process registry.
#include "actors/operator/group/planned_metrics.hpp"

#include <prometheus/family.h>
#include <prometheus/histogram.h>

#include "io/metrics/metrics.hpp"

namespace br::planned_metrics {

namespace {

prometheus::Labels labels(const opmetrics::group_labels& g, const std::string& target_site) {
  return {{"namespace", g.namespace_name}, {"group", g.group}, {"target_site", target_site}};
}

}  // namespace

prometheus::Counter& planned_failovers(const opmetrics::group_labels& g,
                                       const std::string& target_site, const std::string& result) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_planned_failovers_total")
                            .Help("Planned failover requests by result.")
                            .Register(*metrics::process_registry());
  auto l = labels(g, target_site);
  l["result"] = result;
  return family.Add(l);
}

void observe_duration(const opmetrics::group_labels& g, const std::string& target_site,
                      double seconds) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_planned_failover_duration_seconds")
                            .Help("Planned failover duration, request accepted to plan ended.")
                            .Register(*metrics::process_registry());
  family.Add(labels(g, target_site),
             prometheus::Histogram::BucketBoundaries{1, 2, 5, 10, 30, 60, 120, 300})
      .Observe(seconds);
}

void observe_lag_wait(const opmetrics::group_labels& g, const std::string& target_site,
                      double seconds) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_planned_failover_lag_wait_seconds")
                            .Help("Time a planned failover waited for the target to catch up.")
                            .Register(*metrics::process_registry());
  family.Add(labels(g, target_site),
             prometheus::Histogram::BucketBoundaries{0.5, 1, 2, 5, 10, 30, 60, 120, 300})
      .Observe(seconds);
}

}  // namespace br::planned_metrics
