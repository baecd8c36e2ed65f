// durable_state <-> JSON (the standalone state file; also handy in logs and tests).
#pragma once

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "messages/operator.hpp"

namespace br {

nlohmann::json durable_state_to_json(const durable_state& s);

/// Strict: a missing or mistyped member is an error naming it (a corrupt state file must never be
/// mistaken for a fresh one).
caf::expected<durable_state> durable_state_from_json(const nlohmann::json& j);

caf::expected<plan_kind> parse_plan_kind(const std::string& s);
caf::expected<plan_phase> parse_plan_phase(const std::string& s);

}  // namespace br
