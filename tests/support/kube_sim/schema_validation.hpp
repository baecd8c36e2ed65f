// Validates (and prunes) an object against a CRD's structural openAPIV3Schema.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace br::kube_sim {

struct field_error {
  std::string reason;  // FieldValueInvalid | FieldValueRequired | FieldValueNotSupported
  std::string field;   // e.g. "spec.sites[0].port"
  std::string message;
};

/// Checks types, required, enum, min/max, lengths, item counts and patterns; drops fields the
/// schema does not declare (unless x-kubernetes-preserve-unknown-fields), as the API server
/// prunes them. apiVersion, kind and metadata at the root are not checked.
/// Paths of pruned fields are appended to `pruned` when given (fieldValidation=Strict rejects them).
std::vector<field_error> validate_and_prune(const nlohmann::json& schema, nlohmann::json& object,
                                           std::vector<std::string>* pruned = nullptr);

}  // namespace br::kube_sim
