// The operator's per-group Prometheus metrics (with namespace/group labels).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <string>

#include "messages/mysql.hpp"
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
/// Transactions a promotion could not carry over, by site and kind (discarded | stranded).
prometheus::Histogram& bootstrap_phase_seconds(const group_labels& g, const std::string& phase);
prometheus::Counter& clone_operations(const group_labels& g, const std::string& site,
                                      const std::string& source);
prometheus::Counter& transactions_lost(const group_labels& g, const std::string& site,
                                       const std::string& kind);
prometheus::Gauge& divergent_transactions(const group_labels& g, const std::string& site);
prometheus::Histogram& poll_latency(const group_labels& g, const std::string& site);

// -- replication (: namespace, group, site, role) ---------------------------------

/// bloodraven_replication_lag_seconds: seconds behind source, -1 when NULL. Followers only: the
/// active site's series is removed, so a stale lag of a promoted site never lingers.
void set_replication_lag(const group_labels& g, const std::string& site, const std::string& role,
                         bool follower, double seconds_behind);
/// bloodraven_replication_running{thread=io|sql}: 1 when that replica thread is ON.
void set_replication_running(const group_labels& g, const std::string& site,
                             const std::string& role, bool io_running, bool sql_running);
/// bloodraven_semisync_waiting_sessions and bloodraven_semisync_clients (issue 25): per site whose
/// semi-sync source plugin is loaded; the series are removed when it is not.
void set_semisync(const group_labels& g, const std::string& site, const site_semisync& s);
/// All of the above from one successful probe (the coordinator's per-report hook).
void observe_probe(const group_labels& g, const std::string& site, site_role role,
                   bool is_active, const site_probe& p);

// -- failover (observer hooks for the coordinator / executor) ----------------------------------

/// bloodraven_failover_duration_seconds{target_site}: detection (plan start) to confirmed
/// promotion + steering, automatic failovers.
void observe_failover_duration(const group_labels& g, const std::string& target_site,
                               double seconds);
/// bloodraven_promotion_gate_wait_seconds{target_site}: time the promotion gate held a plan.
void observe_promotion_gate_wait(const group_labels& g, const std::string& target_site,
                                 double seconds);
/// bloodraven_failover_failures_total{target_site, reason}: a failover plan that ended in an
/// error. `reason` must come from a fixed set (the failed step's name), never free text.
prometheus::Counter& failover_failures(const group_labels& g, const std::string& target_site,
                                       const std::string& reason);
/// bloodraven_dns_flips_total{site}: the DNS record value actually changed.
prometheus::Counter& dns_flips(const group_labels& g, const std::string& site);
/// bloodraven_taint_operations_total{site, action=taint|untaint}.
prometheus::Counter& taint_operations(const group_labels& g, const std::string& site,
                                      const std::string& action);

// -- status WebSocket --------------------------------------------------------------------------

/// bloodraven_websocket_connected_clients (no labels, as in the reference).
void set_websocket_clients(double n);
/// bloodraven_websocket_dropped_clients_total{reason}: queue full / write deadline / ping timeout.
prometheus::Counter& websocket_dropped(const std::string& reason);
/// bloodraven_websocket_messages_total: status messages published to the hub.
prometheus::Counter& websocket_messages();

}  // namespace br::opmetrics
