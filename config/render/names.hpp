// Names, label keys and common metadata of the Kubernetes objects the operator owns for a group.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/failover_group.hpp"

namespace br::render {

using json = nlohmann::json;

// Label keys.
inline constexpr std::string_view label_name = "app.kubernetes.io/name";
inline constexpr std::string_view label_instance = "app.kubernetes.io/instance";
inline constexpr std::string_view label_managed_by = "app.kubernetes.io/managed-by";
inline constexpr std::string_view label_group = "shipstream.io/failover-group";
inline constexpr std::string_view label_site = "shipstream.io/site";
inline constexpr std::string_view label_role = "shipstream.io/role";        // primary | replica
inline constexpr std::string_view label_healthy = "shipstream.io/healthy";  // yes | no
/// Group Replication mode only: "yes" on every ONLINE member (the -readers Service selects it).
inline constexpr std::string_view label_reader = "shipstream.io/reader";  // yes | no

// Annotation keys.
inline constexpr std::string_view annotation_reconciler_version =
    "bloodraven.shipstream.io/reconciler-version";
inline constexpr std::string_view annotation_spec_hash = "shipstream.io/spec-hash";
inline constexpr std::string_view annotation_config_hash = "shipstream.io/config-hash";

inline constexpr std::string_view finalizer_graceful_shutdown = "shipstream.io/graceful-shutdown";
inline constexpr std::string_view field_manager = "bloodraven";

inline constexpr std::string_view mysql_container = "mysql";
inline constexpr std::string_view sidecar_container = "sidecar";
inline constexpr std::string_view init_datadir_container_name = "init-datadir";  // version 6
inline constexpr int mysql_port = 3306;
inline constexpr int sidecar_port = 8080;
inline constexpr int sidecar_health_port = 8081;  // liveness-only listener (GET /livez), v >= 3

/// "mysql-<g>-<site>": the site's Deployment and Service.
std::string site_name(std::string_view group, std::string_view site);
/// "mysql-<g>-<site>-data".
std::string pvc_name(std::string_view group, std::string_view site);
/// "mysql-<g>-primary" / "mysql-<g>-replicas".
std::string primary_service_name(std::string_view group);
std::string replicas_service_name(std::string_view group);
/// "mysql-<g>-readers": Group Replication mode only, every ONLINE member.
std::string readers_service_name(std::string_view group);
/// "mysql-<g>" (PodDisruptionBudget).
std::string pdb_name(std::string_view group);
/// "bloodraven-<g>" (DNSEndpoint).
std::string dns_endpoint_name(std::string_view group);
/// "mysql-<g>-keys": the group's Ed25519 keys (operator.key/.pub, site-<s>.key/.pub), generated
/// by the operator per group. Each site's pod mounts only operator.pub, its own site key and the
/// sites' public keys (docs/safety.md "Threat model").
std::string keys_secret(std::string_view group);
/// "shipstream.io/db-readonly-<g>".
std::string taint_key(std::string_view group);
/// "<site Service>.<ns>.svc.cluster.local": the site's DNS name in the cluster.
std::string site_service_host(std::string_view group, std::string_view site,
                              std::string_view namespace_name);
/// "<peer Service>.<ns>.svc.cluster.local:8080": how sidecars reach each other.
std::string sidecar_peer_address(std::string_view group, std::string_view site,
                                 std::string_view namespace_name);

/// Group Replication mode: "<site Service>.<ns>.svc.cluster.local:3306", the member's
/// group_replication_local_address (the MySQL communication stack: a MySQL listener of the
/// member). The site Service is headless in this mode, so the name resolves to the pod's own
/// address (the member checks it reaches its own group communication there).
std::string gr_local_address(std::string_view group, std::string_view site,
                             std::string_view namespace_name);

/// The standard Kubernetes labels; `site` empty for group-wide objects (no site to name).
json standard_labels(std::string_view group, std::string_view site = {});

/// metadata {name, namespace, labels, annotations{reconciler-version}, ownerReferences[group]}.
json object_metadata(const config::failover_group& g, const std::string& name,
                     std::string_view site, int reconciler_version);

/// The controller ownerReference pointing at the group (garbage collection on delete).
json owner_reference(const config::failover_group& g);

}  // namespace br::render
