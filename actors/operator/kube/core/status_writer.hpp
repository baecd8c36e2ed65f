// Kubernetes status writer: the only writer of a MysqlFailoverGroup's status (+ anti-flap annotations).
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br {

/// The MysqlFailoverGroup resource.
inline const kube::resource_ref& mfg_resource = kube::resources::mysqlfailovergroups;

/// Annotations holding the out-of-band copy of the anti-flap record.
inline constexpr const char* annotation_last_failover = "bloodraven.shipstream.io/last-failover";
inline constexpr const char* annotation_last_failover_target =
    "bloodraven.shipstream.io/last-failover-target";

struct status_writer_options {
  std::shared_ptr<kube::client> client;
  std::string ns;
  std::string name;
  std::string path;  ///< registry path ("root/group_source/status:orders.default")
  /// Writes only while this is valid (S8); null = always (tests without an elector).
  std::shared_ptr<op::lease_guard> guard;
  std::chrono::milliseconds call_timeout{5000};
  int conflict_attempts = 5;  ///< 409 -> fresh read, at most this many writes per attempt
  std::chrono::milliseconds backoff_initial{500};
  std::chrono::milliseconds backoff_max{30000};
};

/// JSON equality (member order and number spelling do not matter): what "nothing changed" means.
bool status_semantically_equal(const nlohmann::json& a, const nlohmann::json& b);

/// The status to write: `desired` over the current one. Members the coordinator owns (activeSite,
/// sites, lastFailover(Target), promotionGtidExecuted, conditions, epoch, deposingSite,
/// observedAt) come from `desired` only (absent = cleared) when `owns_all` (a coordinator status);
/// otherwise (only the spec conditions are known) just the members present are replaced.
/// Others (updatePhase, ...) always survive. `desired.dragonfly` (the Dragonfly manager's part)
/// is merged member by member into the current one; null there removes status.dragonfly.
nlohmann::json merge_status(const nlohmann::json& current, const nlohmann::json& desired,
                            bool owns_all);

/// The merge patch recording status.lastFailover/lastFailoverTarget in the two annotations
/// (RFC 3339 UTC, second precision), or null when there is nothing newer to record: the
/// annotations never move backwards.
nlohmann::json anti_flap_patch(const nlohmann::json& annotations, const nlohmann::json& status);

/// The group's status as written: the coordinator's status with `spec_conditions` (conditions
/// about the object itself, e.g. Ready=False/InvalidSpec, from the group source) replacing the
/// coordinator's conditions of the same type and appended otherwise.
nlohmann::json compose_status(const nlohmann::json& coordinator_status,
                              const nlohmann::json& spec_conditions);

/// The group's status with the reconciler's part laid over it: its `conditions` (e.g.
/// WorkloadReady, ReconcileSuccess) replace conditions of the same type or are appended, every
/// other member (updatePhase, reconcileInfo) replaces the member of that name.
nlohmann::json with_reconciler_status(const nlohmann::json& status, const nlohmann::json& part);

/// Spawns the writer: a non-blocking front (latest-wins: a burst of updates becomes at most one
/// write of the newest; semantically equal updates are skipped) and a detached worker for the
/// blocking API calls. Failed writes are retried with exponential backoff; the sender is never
/// blocked or answered. Accepts (status, group, json) as status_writer_actor; the JSON may be
/// any subset of the status. The group source sets the spec conditions with (spec, json array)
/// (kube_status_writer_actor); an empty array clears them. The
/// reconciler sets its part with (reconcile, json object) the same way (see
/// with_reconciler_status); the written status is coordinator, then reconciler, then spec
/// conditions. The Dragonfly manager sets status.dragonfly with (dragonfly, json object), the
/// group source removes it with (dragonfly, "null") when a group runs without Dragonfly.
kube_status_writer_actor spawn_kube_status_writer(caf::actor_system& sys,
                                                  status_writer_options o);

}  // namespace br
