// Whether a live workload must be replaced by its newly rendered form.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace br::render {

/// Hash of a rendered Deployment's spec with the parts that have their own rollout reason taken
/// out (config hash, config volume name, sidecar image) and the live-patched role/healthy labels
/// removed. Stored in the spec-hash annotation so the live object never has to be compared field
/// by field with API-server defaults filled in.
std::string workload_spec_hash(const nlohmann::json& deployment);

struct rollout_decision {
  bool needed = false;
  /// Any of "absent", "spec", "config", "reconciler-version", "sidecar-image", in this order.
  std::vector<std::string> reasons;
};

/// Compares the live Deployment (null when absent) with the desired one. A rollout is needed
/// when spec-relevant fields changed (spec-hash), my.cnf changed (config hash), the reconciler
/// version differs, or the sidecar image changed. Role/healthy labels, status, resourceVersion
/// and other server-side fields never cause one.
rollout_decision needs_rollout(const nlohmann::json& live, const nlohmann::json& desired);

}  // namespace br::render
