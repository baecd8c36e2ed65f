// The operator's per-group Prometheus metrics, registered once on the process registry.
#include "actors/operator/operator_metrics.hpp"

#include <prometheus/family.h>

#include "io/metrics/metrics.hpp"

namespace br::opmetrics {

namespace {

prometheus::Labels labels(const group_labels& g, const std::string& site) {
  return {{"namespace", g.namespace_name}, {"group", g.group}, {"site", site}};
}

}  // namespace

prometheus::Counter& state_transitions(const group_labels& g, const std::string& site,
                                       site_state from, site_state to) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_state_transitions_total")
                            .Help("Debounced site state transitions.")
                            .Register(*metrics::process_registry());
  auto l = labels(g, site);
  l["from"] = std::string(to_string(from));
  l["to"] = std::string(to_string(to));
  return family.Add(l);
}

void set_site_state(const group_labels& g, const std::string& site, site_role role,
                    site_state state) {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_site_state")
                            .Help("Debounced site state (state set: 1 for the current state).")
                            .Register(*metrics::process_registry());
  for (auto s : {site_state::writable, site_state::read_only, site_state::unreachable,
                 site_state::unknown}) {
    auto l = labels(g, site);
    l["role"] = std::string(to_string(role));
    l["state"] = std::string(to_string(s));
    family.Add(l).Set(s == state ? 1 : 0);
  }
}

prometheus::Counter& failovers(const group_labels& g, const std::string& target_site) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_failovers_total")
                            .Help("Automatic failovers, counted after a confirmed promotion.")
                            .Register(*metrics::process_registry());
  return family.Add({{"namespace", g.namespace_name}, {"group", g.group},
                     {"target_site", target_site}});
}

prometheus::Counter& split_brain_auto_resolve(const group_labels& g,
                                              const std::string& prefer_site) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_split_brain_auto_resolve_total")
                            .Help("Split brains resolved by sitePriorities (tier 2).")
                            .Register(*metrics::process_registry());
  return family.Add({{"namespace", g.namespace_name}, {"group", g.group},
                     {"prefer_site", prefer_site}});
}

prometheus::Counter& primary_reassert(const group_labels& g, const std::string& site) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_primary_reassert_total")
                            .Help("Fences cleared on the last failover target (primary re-assert).")
                            .Register(*metrics::process_registry());
  return family.Add(labels(g, site));
}

prometheus::Counter& reclone_operations(const group_labels& g, const std::string& site) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_reclone_operations_total")
                            .Help("Accepted reclone requests.")
                            .Register(*metrics::process_registry());
  return family.Add(labels(g, site));
}

prometheus::Gauge& divergent_transactions(const group_labels& g, const std::string& site) {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_divergent_transactions")
                            .Help("Transactions on a returning site that the active primary lacks.")
                            .Register(*metrics::process_registry());
  return family.Add(labels(g, site));
}

prometheus::Histogram& poll_latency(const group_labels& g, const std::string& site) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_poll_latency_seconds")
                            .Help("Latency of one site probe, as seen by its poller.")
                            .Register(*metrics::process_registry());
  return family.Add(labels(g, site),
                    prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                            0.5, 1, 2.5, 5, 10});
}

}  // namespace br::opmetrics
