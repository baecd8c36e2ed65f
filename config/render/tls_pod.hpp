// spec.tls in Kubernetes mode (issue 26): the group's TLS Secret in the pods. One Secret volume
// ("tls": ca.crt, tls.crt, tls.key of spec.tls.secretName, group-readable through fsGroup) mounted
// read-only at /etc/mysql/tls in the mysqld and sidecar containers (the init container copies the
// mysqld container's mounts). A Secret volume (no subPath) is updated in place by the kubelet when
// the Secret changes, so a renewed certificate reaches the running containers without a restart.
#pragma once

#include <nlohmann/json.hpp>

#include "config/failover_group.hpp"

namespace br::render {

inline constexpr const char* tls_volume = "tls";

/// With spec.tls: adds the volume to `pod_spec` and its mount to the containers named mysql and
/// sidecar, and to the sidecar's environment MYSQL_TLS_CA (its sessions to the local mysqld
/// verified) and MYSQL_TLS_WATCH (the three files: ALTER INSTANCE RELOAD TLS when they change);
/// without it, nothing.
void add_tls_volume(const config::failover_group& g, nlohmann::json& pod_spec);

/// With spec.tls: the same Secret volume added to `pod_spec` and mounted read-only at
/// /etc/mysql/tls in `container` only (a backup, restore or verify Job's); true when added.
bool add_tls_volume_to(const config::failover_group& g, nlohmann::json& pod_spec, nlohmann::json& container);

}  // namespace br::render
