// Planned failover metrics (issue 20), with the namespace/group labels of operator_metrics.
#pragma once

#include <prometheus/counter.h>

#include <string>

#include "actors/operator/group/operator_metrics.hpp"

namespace br::planned_metrics {

/// bloodraven_planned_failovers_total{target_site, result}: result is
/// success | rejected | failed_timeout | failed_other.
prometheus::Counter& planned_failovers(const opmetrics::group_labels& g,
                                       const std::string& target_site, const std::string& result);
/// bloodraven_planned_failover_duration_seconds{target_site}: request accepted -> plan ended.
void observe_duration(const opmetrics::group_labels& g, const std::string& target_site,
                      double seconds);
/// bloodraven_planned_failover_lag_wait_seconds{target_site}: the catch-up wait.
void observe_lag_wait(const opmetrics::group_labels& g, const std::string& target_site,
                      double seconds);

}  // namespace br::planned_metrics
