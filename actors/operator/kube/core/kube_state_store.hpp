// Kubernetes durable state store (S6/S7): the coordinator's durable state in a per-group ConfigMap.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br {

struct kube_state_store_options {
  std::shared_ptr<kube::client> client;
  std::string ns;
  std::string group;
  std::string group_uid;  ///< ownerReference: the ConfigMap goes when the group is deleted
  std::shared_ptr<op::lease_guard> guard;  ///< persist refuses while not valid (S8); null = always
  std::chrono::milliseconds call_timeout{2000};
  std::chrono::milliseconds persist_budget{7000};  ///< below the coordinator's store_timeout
  std::chrono::milliseconds max_future_skew{std::chrono::minutes(5)};
};

/// "mysql-<group>-state".
std::string state_configmap_name(const std::string& group);
inline constexpr const char* state_configmap_key = "state.json";

/// What load() returns, from the three copies: the ConfigMap (authoritative), the CR status
/// (the second copy of the view: status.epoch/activeSite/deposingSite, lastFailover) and the
/// anti-flap annotations. The epoch never goes below any copy's (S6); the anti-flap record is the
/// newer valid copy (S7, merge_durable_failover_record). `warnings` get logged. Pure.
durable_state rehydrate_state(caf::optional<durable_state> configmap, const nlohmann::json& group_object,
                              wall_time now, caf::timespan max_future_skew,
                              std::vector<std::string>& warnings);

/// Detached actor answering persist (true once the API acknowledged the write) and load.
state_store_actor spawn_kube_state_store(caf::actor_system& sys, kube_state_store_options o);

}  // namespace br
