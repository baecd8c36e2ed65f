// Per-site workload objects: the single-replica Deployment (mysql + sidecar) and its PVC.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "config/failover_group.hpp"
#include "config/render/options.hpp"

namespace br::render {

/// The official mysql image's mysql uid and gid.
inline constexpr int mysql_uid = 999;

/// Mount points shared by the containers.
inline constexpr const char* data_dir = "/var/lib/mysql";
inline constexpr const char* conf_dir = "/etc/mysql/conf.d";
inline constexpr const char* creds_dir = "/etc/mysql/creds/operator";
inline constexpr const char* keys_dir = "/etc/bloodraven/keys";  // version >= 2
/// The sidecar's own writable directory (SIDECAR_STATE_DIR, view.json), an emptyDir; version >= 4.
inline constexpr const char* sidecar_state_dir = "/var/lib/bloodraven-sidecar";
inline constexpr const char* sidecar_state_volume = "sidecar-state";
/// emptyDir sizeLimit: view.json and its temporary copy are a few KiB.
inline constexpr const char* sidecar_state_size_limit = "16Mi";

/// The Secret holding the operator credentials (keys username, password, MYSQL_ROOT_PASSWORD):
/// credentials.operatorSecret, else secretName.
std::string credentials_secret(const config::group_spec& spec);

/// spec.sidecarImage, else the operator's default.
std::string sidecar_image(const config::group_spec& spec, const render_options& opts);

/// The sidecar's environment for site `site_index`; from reconciler version 2
/// on it names the mounted keys directory (KEYS_DIR), from version 3 on the liveness-only
/// listener (HEALTH_LISTEN_ADDR), from version 4 on the spec's fenceTimeout and requestTimeout
/// (FENCE_TIMEOUT, REQUEST_TIMEOUT: the values the operator's gate rule 3 counts) and the
/// writable state directory (SIDECAR_STATE_DIR).
nlohmann::json sidecar_env(const config::failover_group& g, std::size_t site_index,
                           int reconciler_version = current_reconciler_version);

/// Deployment mysql-<g>-<site>: replicas 1, strategy Recreate, pod labels role=replica and
/// healthy=no (the live values are patched on pods, never on the template), config volume from
/// `config_map`, annotation spec-hash over everything that needs a rollout when it changes.
/// From reconciler version 5: ServiceAccount mysql-<g> without a mounted token, the pod security
/// context (spec.podSecurityContext, else non-root uid/gid/fsGroup 999, seccomp RuntimeDefault)
/// and the mysql container's (spec.containerSecurityContext, else read-only root, no privilege
/// escalation, capabilities dropped) with emptyDirs at /tmp and /var/run/mysqld, the init
/// ConfigMap at /docker-entrypoint-initdb.d with the accounts' environment, resources (mysqld:
/// sites[].resources else spec.resources; sidecar: spec.sidecarResources), spec.tolerations
/// after the operator's, affinity, priorityClassName, podLabels/podAnnotations, and the sidecar's
/// credentials volume reduced to username and password.
nlohmann::json render_deployment(const config::failover_group& g, std::size_t site_index,
                                 const std::string& config_map, const std::string& config_hash,
                                 const render_options& opts);

/// PVC mysql-<g>-<site>-data (ReadWriteOnce, sites[i].storage).
nlohmann::json render_pvc(const config::failover_group& g, std::size_t site_index,
                          const render_options& opts);

}  // namespace br::render
