// Label and field selector parsing and matching, as the Kubernetes API server accepts them.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace br::kube_sim {

/// One requirement of a label selector: key op values.
struct label_requirement {
  enum class op { equals, not_equals, in, not_in, exists, not_exists };
  std::string key;
  op kind = op::exists;
  std::vector<std::string> values;
};

struct label_selector {
  std::vector<label_requirement> requirements;  // all must hold; empty = everything
  bool matches(const nlohmann::json& labels) const;
};

/// Parses "a=b,c!=d,e in (x,y),f notin (z),g,!h"; nullopt with `error` set when malformed.
std::optional<label_selector> parse_label_selector(const std::string& text, std::string& error);

/// Field selectors: only metadata.name and metadata.namespace with =, == and != (as for CRs).
struct field_selector {
  struct term {
    std::string field;
    std::string value;
    bool negate = false;
  };
  std::vector<term> terms;
  bool matches(const nlohmann::json& object) const;
};
std::optional<field_selector> parse_field_selector(const std::string& text, std::string& error);

}  // namespace br::kube_sim
