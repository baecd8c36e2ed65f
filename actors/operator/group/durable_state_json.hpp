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

/// S6 at the store: "" when writing `next` over the stored text is fine, else why not (the stored
/// view's epoch is higher: a write from a stale or superseded writer). Stored text that is empty
/// or not a durable state does not block the write (a fresh or repaired store).
std::string epoch_regression(const std::string& stored_text, const durable_state& next);

caf::expected<plan_kind> parse_plan_kind(const std::string& s);
caf::expected<plan_phase> parse_plan_phase(const std::string& s);

}  // namespace br
