// The operator's per-group Prometheus metrics (reference §5 names, with namespace/group labels).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <string>

#include "messages/topology.hpp"

namespace br::opmetrics {

/// Labels shared by every group-scoped series.
struct group_labels {
  std::string namespace_name;
  std::string group;
};

prometheus::Counter& state_transitions(const group_labels& g, const std::string& site,
                                       site_state from, site_state to);
/// State-set gauge: sets the series of `state` to 1 and the other three states to 0.
void set_site_state(const group_labels& g, const std::string& site, site_role role,
                    site_state state);
prometheus::Counter& failovers(const group_labels& g, const std::string& target_site);
prometheus::Counter& split_brain_auto_resolve(const group_labels& g, const std::string& prefer_site);
prometheus::Counter& primary_reassert(const group_labels& g, const std::string& site);
prometheus::Counter& reclone_operations(const group_labels& g, const std::string& site);
prometheus::Gauge& divergent_transactions(const group_labels& g, const std::string& site);
prometheus::Histogram& poll_latency(const group_labels& g, const std::string& site);

}  // namespace br::opmetrics
