// Chaos harness: what the planned-failover scenarios (planned_scenarios_test.cpp) read and check:
// status.plannedFailover, a site's replication source, GTID containment, Events, and the
// steered writer's unavailability inside one window.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/chaos/cluster.hpp"
#include "tests/chaos/invariants.hpp"

namespace br::chaos {

/// The group's status.plannedFailover from the operator's /status (an empty object when absent
/// or unreachable).
nlohmann::json planned_status(const cluster& c);

/// status.sites[] entry of `site` (an empty object when absent or unreachable).
nlohmann::json site_status(const cluster& c, const std::string& site);

/// Site k replicates from site `source` (its channel names source's address and port, IO and
/// SQL threads ON), read out of band.
bool replicates_from(cluster& c, int k, int source);

/// Site k's gtid_executed is contained in site `primary`'s (no divergence).
bool gtid_contained(cluster& c, int k, int primary);

/// A planned failover from site `source` to site `target` may be requested: the operator names
/// `source` active and reports it writable and `target` read-only, no planned failover is running,
/// and `target` replicates from `source` (read out of band; /status does not show replication).
bool ready_for_planned(cluster& c, int source, int target);

/// status.lastFailoverLosses of the group (an empty array when absent or unreachable): what the
/// last promotion could not carry over. A planned failover must leave it empty.
nlohmann::json last_failover_losses(const cluster& c);

/// An Event with this reason whose message contains `text` ("" = any).
bool has_event(const nlohmann::json& events, const std::string& reason, const std::string& text);

/// The steered writer's longest time without an ack, counting only acks up to `to_ms` and gaps
/// that end at or after `from_ms` (one switchover's window).
int64_t window_unavailability_ms(const std::vector<ack>& acks, int64_t from_ms, int64_t to_ms);

}  // namespace br::chaos
