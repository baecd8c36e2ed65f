// A whole MysqlFailoverGroup document (apiVersion, kind, metadata, spec, status) and its loaders.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "config/field_error.hpp"
#include "config/group_spec.hpp"
#include "config/group_status.hpp"

namespace br::config {

struct failover_group {
  std::string api_version{group_api_version};
  std::string kind{group_kind};
  object_meta metadata;
  group_spec spec;
  std::optional<group_status> status;
  bool operator==(const failover_group&) const = default;
};

struct parse_result {
  failover_group group;
  field_errors errors;   // empty when the text parsed cleanly
  bool readable = true;  // false when the text was not a JSON/YAML object at all
  bool ok() const { return errors.empty(); }
};

/// Parses either a whole CR document (recognised by any of apiVersion, kind, metadata, spec,
/// status at the top) or a bare spec object. apiVersion and kind, when present, must be
/// shipstream.io/v1alpha1 and MysqlFailoverGroup. Unknown spec fields are errors; unknown
/// metadata fields (uid, managedFields, ...) are ignored; status is read leniently. Paths are
/// always rooted at "spec"/"metadata"/"status", also for a bare spec. Defaults fill every absent
/// field. Does not validate (see validate()).
parse_result parse_group(const nlohmann::json& doc);
parse_result parse_group_json(std::string_view text);
parse_result parse_group_yaml(std::string_view text);

/// Parse, then validate for `mode`: every error of both stages, parse errors first.
parse_result load_group_json(std::string_view text, run_mode mode);
parse_result load_group_yaml(std::string_view text, run_mode mode);

/// The document back as JSON (status included when present).
nlohmann::json to_json(const failover_group& g);

}  // namespace br::config
