// Pure decisions of the reconciler: which write an object needs, which reconciler version a group uses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace br {

enum class object_write_kind { none, create, update };

struct object_write {
  object_write_kind kind = object_write_kind::none;
  nlohmann::json object;  ///< create: the desired object; update: it with the live resourceVersion
};

/// Pure: what makes the live object (null when absent) match the rendered one, by kind.
/// ConfigMap: create, or update when data differs. PersistentVolumeClaim: create only (its spec
/// is immutable). Deployment: create only (replacing one is a rollout: next_rollout_step).
/// Role: update when its rules differ in any way (a rule left over would keep granting it).
/// RoleBinding: update when roleRef or subjects differ.
/// Service, PodDisruptionBudget and others: update when a rendered spec value, label, annotation
/// or owner reference is missing or different in the live object (server-filled fields such as
/// clusterIP or a port's protocol are not differences; an update keeps the live clusterIP).
object_write plan_object_write(const nlohmann::json& live, const nlohmann::json& desired);

/// Pure: every member of `want` is in `have` with the same value (recursively; arrays must
/// have the same length, element by element).
bool json_includes(const nlohmann::json& have, const nlohmann::json& want);

/// What a group records about its reconciliation (status.reconcileInfo).
struct reconcile_info {
  int version = 0;
  int64_t generation = 0;
};

/// Pure: a group keeps the reconciler version it was last reconciled with until its
/// spec is edited (the generation moves); a new group, an edited one, or one recorded with a
/// version this operator no longer supports gets the current version.
int choose_reconciler_version(const std::optional<reconcile_info>& recorded, int64_t generation);

/// status.reconcileInfo as recorded, when it is well-formed.
std::optional<reconcile_info> read_reconcile_info(const nlohmann::json& status);

/// Pure: the Deployment has observed its newest generation and has an updated, ready pod.
bool deployment_ready(const nlohmann::json& live);

}  // namespace br

namespace br {

/// Pure: the names of the listed ConfigMaps that are rendered my.cnf ConfigMaps (they carry the
/// config-hash annotation). Only these may ever be deleted as unused: the group's durable state
/// ConfigMap carries the group label too.
std::vector<std::string> my_cnf_config_maps(const nlohmann::json& list);

}  // namespace br

namespace br {

/// Pure: the names of the listed pods by their site label (pods without one are left out).
std::map<std::string, std::vector<std::string>> pods_by_site(const nlohmann::json& pod_list);

/// Pure: the names of the listed objects whose site label names a site not in `sites` (objects
/// of a removed site); objects without a site label are never stale.
std::vector<std::string> stale_site_objects(const nlohmann::json& list,
                                            const std::vector<std::string>& sites);

/// Pure: the names of the listed objects whose site label is one of `sites`.
std::vector<std::string> site_objects(const nlohmann::json& list,
                                      const std::vector<std::string>& sites);

/// Pure, Group Replication scale-down: the sites the group's status
/// (status.groupReplication.leaving[]) shows Stopped, i.e. out of the group, that `declared`
/// does not name: their workload may be deleted (never a site still declared, never one not
/// shown Stopped, whatever else the status says).
std::vector<std::string> gr_left_sites(const nlohmann::json& status,
                                       const std::vector<std::string>& declared);

}  // namespace br
