// MysqlFailoverGroup status plus our topology view fields from docs/safety.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/field_error.hpp"
#include "config/rfc3339.hpp"
#include "messages/topology.hpp"

namespace br::config {

/// status.sites[].recoveryState: "" | RecoveryInProgress | RecoveryBlocked.
enum class recovery_state { none, in_progress, blocked };

std::string_view to_string(recovery_state r);
std::optional<site_state> parse_site_state(std::string_view s);

struct site_status {
  std::string name;
  std::optional<site_role> role;
  site_state state = site_state::unknown;
  std::optional<timestamp> last_seen;
  bool replicating = false;
  std::optional<std::int64_t> seconds_behind_source;  // absent when not replicating
  std::string gtid_executed;
  std::string source_host;
  config::recovery_state recovery_state = config::recovery_state::none;
  std::string divergent_gtid;
  std::optional<std::int64_t> divergent_transaction_count;
  std::optional<bool>
      serving_healthy;  // endpoint health gate (maxLagSeconds / readOnlyMaxLagSeconds)
  bool operator==(const site_status&) const = default;
};

/// Kubernetes-style condition. Types: Ready, Degraded, RecoveryPending, Bootstrapping.
struct condition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  std::optional<timestamp> last_transition_time;
  bool operator==(const condition&) const = default;
};

struct group_status {
  std::string active_site;  // "" while there is no confirmed primary
  std::vector<site_status> sites;
  std::optional<timestamp> last_failover;
  std::string last_failover_target;
  std::string promotion_gtid_executed;
  std::vector<condition> conditions;
  // Ours (docs/safety.md "Topology view and epoch"): the durable copy of the coordinator's view.
  std::uint64_t epoch = 0;
  std::string deposing_site;
  std::optional<timestamp> observed_at;
  bool operator==(const group_status&) const = default;
};

/// Lenient reader: members of the reference status we do not model (updatePhase, restore, pitr,
/// ...) are ignored, so a CR written by the other implementation still loads. Type errors and bad
/// enum values are reported with their paths.
void read(const nlohmann::json& v, const std::string& path, group_status& out, field_errors& errs);

// nlohmann ADL hooks; from_json throws std::invalid_argument listing every error.
void to_json(nlohmann::json& j, const site_status& s);
void to_json(nlohmann::json& j, const condition& c);
void to_json(nlohmann::json& j, const group_status& s);
void from_json(const nlohmann::json& j, group_status& s);

}  // namespace br::config
