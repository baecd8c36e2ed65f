// The operator's per-group Prometheus metrics, registered once on the process registry.
#include "actors/operator/group/operator_metrics.hpp"

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

prometheus::Counter& transactions_lost(const group_labels& g, const std::string& site,
                                       const std::string& kind) {
  static auto& family =
      prometheus::BuildCounter()
          .Name("bloodraven_transactions_lost_total")
          .Help("Transactions a promotion could not carry over: discarded (received by the "
                "candidate, not applied) or stranded (held by a follower the new primary lacks).")
          .Register(*metrics::process_registry());
  auto l = labels(g, site);
  l["kind"] = kind;
  return family.Add(l);
}

prometheus::Histogram& bootstrap_phase_seconds(const group_labels& g, const std::string& phase) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_bootstrap_phase_seconds")
                            .Help("Duration of a bootstrap or auto-clone phase, per phase.")
                            .Register(*metrics::process_registry());
  return family.Add({{"namespace", g.namespace_name}, {"group", g.group}, {"phase", phase}},
                    prometheus::Histogram::BucketBoundaries{0.5, 1, 2, 5, 10, 20, 30, 60, 120,
                                                            300, 600, 1800});
}

prometheus::Counter& clone_operations(const group_labels& g, const std::string& site,
                                      const std::string& source) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_clone_operations_total")
                            .Help("Sites brought in from the active site by a bootstrap, "
                                  "auto-clone or reclone plan that completed.")
                            .Register(*metrics::process_registry());
  auto l = labels(g, site);
  l["source"] = source;
  return family.Add(l);
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

// -- replication --------------------------------------------------------------------------------

namespace {

prometheus::Family<prometheus::Gauge>& lag_family() {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_replication_lag_seconds")
                            .Help("Seconds behind the source per follower; -1 when NULL.")
                            .Register(*metrics::process_registry());
  return family;
}

prometheus::Labels site_role_labels(const group_labels& g, const std::string& site,
                                    const std::string& role) {
  auto l = labels(g, site);
  l["role"] = role;
  return l;
}

}  // namespace

void set_replication_lag(const group_labels& g, const std::string& site, const std::string& role,
                         bool follower, double seconds_behind) {
  auto& family = lag_family();
  auto l = site_role_labels(g, site, role);
  if (!follower) {
    if (family.Has(l)) family.Remove(&family.Add(l));
    return;
  }
  family.Add(l).Set(seconds_behind < 0 ? -1 : seconds_behind);
}

void set_replication_running(const group_labels& g, const std::string& site,
                             const std::string& role, bool io_running, bool sql_running) {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_replication_running")
                            .Help("1 when the replica thread (io or sql) is running.")
                            .Register(*metrics::process_registry());
  auto l = site_role_labels(g, site, role);
  l["thread"] = "io";
  family.Add(l).Set(io_running ? 1 : 0);
  l["thread"] = "sql";
  family.Add(l).Set(sql_running ? 1 : 0);
}

/// Semi-sync (issue 25): commits waiting for acknowledgements and the receivers acknowledging,
/// per site whose source plugin is loaded (the series is removed when it is not).
void set_semisync(const group_labels& g, const std::string& site, const site_semisync& s) {
  static auto& waiting = prometheus::BuildGauge()
                             .Name("bloodraven_semisync_waiting_sessions")
                             .Help("Commits waiting for semi-sync acknowledgements now "
                                   "(Rpl_semi_sync_source_wait_sessions).")
                             .Register(*metrics::process_registry());
  static auto& clients = prometheus::BuildGauge()
                             .Name("bloodraven_semisync_clients")
                             .Help("Semi-sync replicas connected to the site "
                                   "(Rpl_semi_sync_source_clients).")
                             .Register(*metrics::process_registry());
  auto l = labels(g, site);
  for (auto* family : {&waiting, &clients}) {
    if (!s.source_loaded && family->Has(l)) family->Remove(&family->Add(l));
  }
  if (!s.source_loaded) return;
  waiting.Add(l).Set(s.wait_sessions);
  clients.Add(l).Set(s.clients);
}

void observe_probe(const group_labels& g, const std::string& site, site_role role,
                   bool is_active, const site_probe& p) {
  auto r = std::string(to_string(role));
  set_replication_lag(g, site, r, !is_active, p.seconds_behind);
  set_replication_running(g, site, r, p.channel_configured && p.io_state == "ON",
                          p.channel_configured && p.sql_state == "ON");
  set_semisync(g, site, p.semisync);
}

// -- failover -----------------------------------------------------------------------------------

void observe_failover_duration(const group_labels& g, const std::string& target_site,
                               double seconds) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_failover_duration_seconds")
                            .Help("Automatic failover: plan start to confirmed promotion.")
                            .Register(*metrics::process_registry());
  family
      .Add({{"namespace", g.namespace_name}, {"group", g.group}, {"target_site", target_site}},
           prometheus::Histogram::BucketBoundaries{1, 2, 5, 10, 20, 30, 60, 120, 300})
      .Observe(seconds);
}

void observe_promotion_gate_wait(const group_labels& g, const std::string& target_site,
                                 double seconds) {
  static auto& family = prometheus::BuildHistogram()
                            .Name("bloodraven_promotion_gate_wait_seconds")
                            .Help("Time a failover plan waited at the promotion gate.")
                            .Register(*metrics::process_registry());
  family
      .Add({{"namespace", g.namespace_name}, {"group", g.group}, {"target_site", target_site}},
           prometheus::Histogram::BucketBoundaries{0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120})
      .Observe(seconds);
}

prometheus::Counter& failover_failures(const group_labels& g, const std::string& target_site,
                                       const std::string& reason) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_failover_failures_total")
                            .Help("Failover plans that ended in an error.")
                            .Register(*metrics::process_registry());
  return family.Add({{"namespace", g.namespace_name},
                     {"group", g.group},
                     {"target_site", target_site},
                     {"reason", reason}});
}

prometheus::Counter& dns_flips(const group_labels& g, const std::string& site) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_dns_flips_total")
                            .Help("DNS record changes (counted only when the value changed).")
                            .Register(*metrics::process_registry());
  return family.Add(labels(g, site));
}

prometheus::Counter& taint_operations(const group_labels& g, const std::string& site,
                                      const std::string& action) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_taint_operations_total")
                            .Help("Node taint operations per site (taint or untaint).")
                            .Register(*metrics::process_registry());
  auto l = labels(g, site);
  l["action"] = action;
  return family.Add(l);
}

// -- status WebSocket -----------------------------------------------------------------------------

void set_websocket_clients(double n) {
  static auto& g = prometheus::BuildGauge()
                       .Name("bloodraven_websocket_connected_clients")
                       .Help("Clients connected to GET /ws/status.")
                       .Register(*metrics::process_registry())
                       .Add({});
  g.Set(n);
}

prometheus::Counter& websocket_dropped(const std::string& reason) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_websocket_dropped_clients_total")
                            .Help("Status WebSocket clients dropped (slow or unresponsive).")
                            .Register(*metrics::process_registry());
  return family.Add({{"reason", reason}});
}

prometheus::Counter& websocket_messages() {
  static auto& c = prometheus::BuildCounter()
                       .Name("bloodraven_websocket_messages_total")
                       .Help("Status messages published to GET /ws/status clients.")
                       .Register(*metrics::process_registry())
                       .Add({});
  return c;
}

}  // namespace br::opmetrics
