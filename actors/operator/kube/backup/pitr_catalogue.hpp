// GET /pitr-cutoff's backup catalogue in Kubernetes mode: the MysqlBackups of the group's
// namespace, listed on each request (5 s limit, no cache).
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/operator/api/operator_api.hpp"
#include "io/kube/client.hpp"

namespace br::backup_ctl {

/// Pure: the minimum completionTime over the Succeeded, non-deleting MysqlBackups of `group`
/// and `profile` among `items` (reference §4.1); has_cutoff false when there is none.
pitr_answer pitr_cutoff_of(const nlohmann::json& items, const std::string& group,
                           const std::string& profile);

/// The operator API's pitr_source over the Kubernetes API (a failed list answers 500).
pitr_source make_pitr_source(std::shared_ptr<kube::client> client,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace br::backup_ctl
