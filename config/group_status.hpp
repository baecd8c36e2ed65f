// MysqlFailoverGroup status as JSON: the mapping and the lenient reader of the value types in
// messages/group_status.hpp (the coordinator's status plus our topology view fields).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/field_error.hpp"
#include "config/rfc3339.hpp"
#include "messages/group_status.hpp"
#include "messages/topology.hpp"

namespace br::config {

std::string_view to_string(recovery_state r);
std::optional<site_state> parse_site_state(std::string_view s);

/// Lenient reader: members of the reference status we do not model (updatePhase, restore, pitr,
/// ...) are ignored, so a CR written by the other implementation still loads. Type errors and bad
/// enum values are reported with their paths.
void read(const nlohmann::json& v, const std::string& path, group_status& out, field_errors& errs);

// nlohmann ADL hooks; from_json throws std::invalid_argument listing every error.
void to_json(nlohmann::json& j, const site_status& s);
void to_json(nlohmann::json& j, const condition& c);
void to_json(nlohmann::json& j, const bootstrap_site_status& s);
void to_json(nlohmann::json& j, const bootstrap_status& s);
void to_json(nlohmann::json& j, const planned_dragonfly_status& s);
void to_json(nlohmann::json& j, const planned_failover_status& s);
void to_json(nlohmann::json& j, const gr_member_status& m);
void to_json(nlohmann::json& j, const gr_recovery_plan_status& p);
void to_json(nlohmann::json& j, const gr_last_recovery_status& r);
void to_json(nlohmann::json& j, const gr_leaving_status& l);
void to_json(nlohmann::json& j, const group_replication_status& g);
void to_json(nlohmann::json& j, const group_status& s);
void from_json(const nlohmann::json& j, group_status& s);

}  // namespace br::config
