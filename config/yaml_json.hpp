// YAML text to nlohmann::json with YAML 1.2 core-schema scalar typing (what kubectl would send).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "config/field_error.hpp"

namespace br::config {

/// Converts the single YAML document in `text`. Plain scalars become null, booleans
/// (true/false in any case form of the core schema), integers (decimal, 0x, 0o) or floats when they
/// look like one; quoted scalars stay strings. Syntax errors, multiple documents, duplicate keys
/// and non-scalar keys are reported in `errs` (path "<yaml>" for syntax, the field path otherwise).
nlohmann::json yaml_to_json(std::string_view text, field_errors& errs);

}  // namespace br::config
