// Inputs to rendering that come from the operator process rather than from the group's spec.
#pragma once

#include <string>

namespace br::render {

/// Bumped when rendering changes in a way that would roll existing workloads. Groups keep the
/// version they were created with until their spec is edited, so an operator upgrade
/// alone never restarts MySQL.
///   1: first release.
///   2: the sidecar mounts its keys from the group's keys Secret (KEYS_DIR): the operator's
///      public key, its own site's private key, the sites' public keys (signed views, acks).
///   3: the sidecar also listens on a liveness-only port (HEALTH_LISTEN_ADDR=:8081, container
///      port "health") and its livenessProbe is GET /livez there, so a connection flood on the
///      API port cannot get the sidecar restarted (and a healthy primary fenced by its boot guard).
///   4: the sidecar gets FENCE_TIMEOUT and REQUEST_TIMEOUT from spec.sidecar (the values the
///      operator's gate rule 3 counts, instead of the sidecar's own defaults) and
///      SIDECAR_STATE_DIR on a writable emptyDir ("sidecar-state"), so its view (view.json)
///      survives a container restart on a read-only root filesystem.
///   5: pods a user can run (render_deployment's comment): the ServiceAccount mysql-<g>, secure
///      default security contexts with a read-only root, the init ConfigMap mysql-<g>-init with
///      the accounts script, resources, tolerations, affinity, priorityClassName, podLabels and
///      podAnnotations, the sidecar's credentials reduced to username/password, and the Service
///      templates. The ServiceAccount and init ConfigMap are rendered only from this version.
///   6: an init container ("init-datadir") initialises an empty data directory with the fence on
///      (mysqld --initialize-insecure --init-file: root password and accounts), because the
///      image's own first start cannot run under super_read_only=ON; the mysql container no
///      longer mounts the accounts script nor gets the accounts' passwords.
///   7: the init container also gets MYSQL_BACKUP_USER/PASSWORD (optional keys of the
///      credentials Secret): the backup account the backup Jobs dump with (accounts.hpp).
inline constexpr int current_reconciler_version = 7;
inline constexpr int oldest_reconciler_version = 1;

inline bool is_supported_reconciler_version(int v) {
  return v >= oldest_reconciler_version && v <= current_reconciler_version;
}

struct render_options {
  /// Used when spec.sidecarImage is empty (the operator's --sidecar-image).
  std::string default_sidecar_image = "ghcr.io/shipstream/bloodraven-sidecar:1.0.0";
  int reconciler_version = current_reconciler_version;
  /// The operator's --api-tls-ca-secret (issue 26): the sidecars serve and call the APIs over
  /// mutual TLS with the site's certificate Secret (api_tls_pod.hpp). Not a reconciler version:
  /// switching the operator's setting rolls the pods once.
  bool api_tls = false;
};

}  // namespace br::render
