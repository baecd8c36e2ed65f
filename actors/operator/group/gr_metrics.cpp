// Group Replication gauges, registered once on the process registry.
#include "actors/operator/group/gr_metrics.hpp"

#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include <map>

#include "io/metrics/metrics.hpp"

namespace br::gr_metrics {

namespace {

prometheus::Family<prometheus::Gauge>& gauge(const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(*metrics::process_registry());
}

prometheus::Labels labels(const opmetrics::group_labels& g) {
  return {{"namespace", g.namespace_name}, {"group", g.group}};
}

}  // namespace

void set_from_status(const opmetrics::group_labels& g, const config::group_replication_status& s) {
  static auto& quorum =
      gauge("bloodraven_gr_has_quorum", "1 when the agreed view of the group has quorum.");
  static auto& bootstrapped =
      gauge("bloodraven_gr_bootstrapped", "1 once the group was bootstrapped (sticky).");
  static auto& view_size = gauge("bloodraven_gr_view_size",
                                 "The largest view the group agreed on (the quorum denominator).");
  static auto& members =
      gauge("bloodraven_gr_members", "Members of the group per state of the agreed view.");
  auto l = labels(g);
  quorum.Add(l).Set(s.has_quorum ? 1 : 0);
  bootstrapped.Add(l).Set(s.bootstrapped ? 1 : 0);
  view_size.Add(l).Set(static_cast<double>(s.observed_view_max));
  std::map<std::string, double> count = {{"ONLINE", 0},  {"RECOVERING", 0},  {"OFFLINE", 0},
                                         {"ERROR", 0},   {"UNREACHABLE", 0}, {"UNKNOWN", 0}};
  for (const auto& m : s.members) count[m.state.empty() ? "UNKNOWN" : m.state] += 1;
  for (const auto& [state, n] : count) {
    auto ls = l;
    ls["state"] = state;
    members.Add(ls).Set(n);
  }
}

}  // namespace br::gr_metrics
