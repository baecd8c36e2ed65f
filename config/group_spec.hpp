// MysqlFailoverGroup spec (shipstream.io/v1alpha1) as C++ values, with the reference's defaults.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/backup_spec.hpp"
#include "config/duration.hpp"
#include "config/field_error.hpp"
#include "config/pod_spec.hpp"
#include "config/restore_spec.hpp"
#include "config/replication_mode.hpp"
#include "config/tls_spec.hpp"
#include "messages/topology.hpp"

namespace br::config {

using namespace std::chrono_literals;
using string_map = std::map<std::string, std::string>;

inline constexpr std::string_view group_api_version = "shipstream.io/v1alpha1";
inline constexpr std::string_view group_kind = "MysqlFailoverGroup";

/// Where the group's definition comes from; validation rules differ (see group_validate.hpp).
enum class run_mode { kubernetes, standalone };

enum class promotion_policy { safe, fast };               // "Safe" | "Fast" (docs/safety.md)
enum class update_strategy { ordered_update, recreate };  // "OrderedUpdate" | "Recreate"
enum class cooldown_action { reject, defer };             // plannedFailover.onCooldown
enum class sync_timeout_action { proceed, fail };         // dragonfly.plannedFailover.onSyncTimeout

std::string_view to_string(promotion_policy p);
std::string_view to_string(update_strategy u);
std::string_view to_string(cooldown_action a);
std::string_view to_string(sync_timeout_action a);

/// The subset of Kubernetes ObjectMeta we use. Other server-populated members are ignored.
struct object_meta {
  std::string name;
  std::string namespace_name;  // "namespace"
  string_map annotations;
  string_map labels;
  std::int64_t generation = 0;
  std::string resource_version;  // "resourceVersion"
  std::string uid;
  bool operator==(const object_meta&) const = default;
};

struct storage_spec {
  std::string storage_class_name;  // "storageClassName"; empty = cluster default
  std::string size;                // e.g. "100Gi"
  bool operator==(const storage_spec&) const = default;
};

/// sites[].address: how the operator reaches MySQL in standalone mode (no Services there).
struct address_spec {
  std::string host;
  std::int32_t port = 3306;
  bool operator==(const address_spec&) const = default;
};

struct site_spec {
  std::string name;
  site_role role = site_role::primary_candidate;
  std::string zone;
  std::string lb_ip;               // "lbIP": DNS A-record target when active
  string_map taint_node_selector;  // nodes receiving this group's readonly taint
  storage_spec storage;
  string_map mysql_conf;                // per-site my.cnf overrides, applied after the group's
  std::optional<address_spec> address;  // standalone mode
  std::string sidecar_address;          // "sidecarAddress" host:port, standalone mode
  std::string dragonfly_address;        // "dragonflyAddress" host:port of its cache, standalone mode
  /// mysqld's container resources for this site; replaces spec.resources as a whole.
  std::optional<resource_requirements> resources;
  /// The site Service mysql-<g>-<site> (labels, annotations, type, extra ports).
  std::optional<service_template_spec> service_template;  // "serviceTemplate"
  /// Group Replication mode only: the member's own settings (config/replication_mode.hpp).
  std::optional<site_group_replication_spec> group_replication;  // "groupReplication"
  bool operator==(const site_spec&) const = default;
};

/// Per-role Secrets (reference CredentialsSpec). operatorSecret is required when set.
struct credentials_spec {
  std::string operator_secret;
  std::string app_secret;
  std::string read_only_secret;
  std::string monitor_secret;
  std::string backup_secret;
  bool operator==(const credentials_spec&) const = default;
};

struct dns_spec {
  std::string hostname;
  std::int64_t ttl = 60;
  bool operator==(const dns_spec&) const = default;
};

/// Who wins a split brain when there is no failover history. The single preferSite and the
/// reference's ordered sitePriorities are both accepted, but not together (validation error).
struct split_brain_policy_spec {
  std::string prefer_site;
  std::vector<std::string> site_priorities;
  bool operator==(const split_brain_policy_spec&) const = default;
};

struct sidecar_spec {
  duration lease_timeout = 20s;
  duration peer_check_interval = 5s;
  std::string bloodraven_address;  // empty: bloodraven.<namespace>.svc.cluster.local:8082
  duration fence_timeout = 20s;    // ours: deadline for fence + session kill (docs/safety.md rule 3)
  /// ours: deadline of each sidecar HTTP request (operator, peers) and of the operator's requests
  /// to the sidecars; the fourth term of the rule-3 wait. Rendered as REQUEST_TIMEOUT.
  duration request_timeout = 2s;
  bool operator==(const sidecar_spec&) const = default;
};

/// spec.replication.semiSync (issue 25): semi-synchronous replication, AFTER_SYNC, the primary
/// answering a commit only once `wait_for_replica_count` replicas received it (docs/safety.md).
/// Async mode only; 1 <= waitForReplicaCount <= sites - 1 when enabled (replication_validate.cpp).
struct semi_sync_spec {
  bool enabled = false;                      // "enabled"
  std::uint32_t wait_for_replica_count = 1;  // "waitForReplicaCount"
  bool operator==(const semi_sync_spec&) const = default;
};

/// Replication credentials: inline user/password, or a Secret holding MYSQL_REPLICATION_USER and
/// MYSQL_REPLICATION_PASSWORD; neither means "use the operator credentials" (reference default).
struct replication_spec {
  std::int64_t max_lag_seconds = 300;
  std::optional<std::int64_t> read_only_max_lag_seconds;  // absent: inherit maxLagSeconds
  std::string user;
  std::string password;
  std::string secret_name;
  bool tls = false;
  replication_mode mode = replication_mode::async;  // "mode"; immutable once the group has run
  /// "groupReplication": only with mode groupReplication (config/replication_mode.hpp).
  std::optional<group_replication_spec> group_replication;
  semi_sync_spec semi_sync;  // "semiSync"
  bool operator==(const replication_spec&) const = default;
};

struct planned_failover_spec {
  duration max_lag_wait = 5min;
  duration drain_timeout = 30s;
  cooldown_action on_cooldown = cooldown_action::reject;
  bool operator==(const planned_failover_spec&) const = default;
};

struct dragonfly_auth_spec {
  std::string secret_name;
  std::string password_key = "password";
  bool operator==(const dragonfly_auth_spec&) const = default;
};

struct dragonfly_planned_failover_spec {
  duration max_sync_wait = 30s;
  sync_timeout_action on_sync_timeout = sync_timeout_action::proceed;
  bool operator==(const dragonfly_planned_failover_spec&) const = default;
};

struct dragonfly_spec {
  bool enabled = false;
  std::string image;
  std::int32_t port = 6379;
  std::int32_t admin_port = 9999;
  std::int64_t max_memory_mb = 0;     // 0: unset
  std::int32_t proactor_threads = 0;  // 0: unset
  std::vector<std::string> args;
  std::optional<dragonfly_auth_spec> auth;
  dragonfly_planned_failover_spec planned_failover;
  bool operator==(const dragonfly_spec&) const = default;
};

/// spec.bootstrap: how a new group comes into being (reference §3.11).
struct bootstrap_spec {
  /// The site whose data every other site is cloned from on a fresh deploy; empty: the default
  /// of effective_seed_site. Must name a primary-candidate site.
  std::string seed_site;
  bool operator==(const bootstrap_spec&) const = default;
};

struct group_spec {
  std::string image = "mysql:9.7";
  std::string sidecar_image;  // empty: the operator's own --sidecar-image default
  std::vector<site_spec> sites;
  std::string secret_name;
  std::optional<credentials_spec> credentials;
  dns_spec dns;
  duration poll_interval = 2s;
  std::int32_t failure_threshold = 3;
  std::int32_t recovery_threshold = 2;
  duration failover_cooldown = 5min;
  duration connection_drain_timeout = 30s;
  duration relay_drain_timeout = 30s;  // ours: the relay-log drain limit (30 s before this field existed)
  string_map mysql_conf;
  replication_spec replication;
  config::update_strategy update_strategy = config::update_strategy::ordered_update;
  std::int64_t clone_timeout = 3600;  // seconds, >= 60
  split_brain_policy_spec split_brain_policy;
  sidecar_spec sidecar;
  config::promotion_policy promotion_policy = config::promotion_policy::safe;
  duration promotion_gate_timeout = 2min;
  planned_failover_spec planned_failover;
  dragonfly_spec dragonfly;
  std::optional<backup_spec> backup;  // spec.backup (config/backup_spec.hpp); absent: no backups
  bootstrap_spec bootstrap;
  /// spec.initFromBackup (config/restore_spec.hpp): a new group seeded from a backup (Kubernetes
  /// mode; the restore controller in actors/operator/kube/restore/).
  std::optional<init_from_backup_spec> init_from_backup;
  std::optional<restore_in_place_spec> restore_in_place;  // "restoreInPlace" (kube/restore/restore_in_place.hpp)
  // Pods a user can run (config/pod_spec.hpp; rendered from reconciler version 5 on).
  std::optional<resource_requirements> resources;          // mysqld; sites[].resources wins
  std::optional<resource_requirements> sidecar_resources;  // "sidecarResources"
  string_map pod_labels;                                   // "podLabels"; operator keys refused
  string_map pod_annotations;                              // "podAnnotations"; operator keys refused
  std::vector<toleration_spec> tolerations;                // after the operator's own
  nlohmann::json affinity;                                 // core/v1 Affinity as given; null: none
  std::string priority_class_name;                         // "priorityClassName"
  nlohmann::json pod_security_context;        // "podSecurityContext" as given; null: secure default
  nlohmann::json container_security_context;  // mysql container's, as given; null: secure default
  std::optional<service_template_spec> primary_service_template;  // mysql-<g>-primary
  std::optional<service_template_spec> replica_service_template;  // mysql-<g>-replicas
  std::optional<tls_spec> tls;  // spec.tls (config/tls_spec.hpp); absent: plain-text MySQL
  bool operator==(const group_spec&) const = default;
};

/// Null when absent.
const site_spec* find_site(const group_spec& spec, std::string_view name);

/// The bootstrap seed: spec.bootstrap.seedSite, else splitBrainPolicy.preferSite, else the first
/// sitePriorities entry, else the first primary-candidate site in declared order; empty when the
/// spec has no primary-candidate site (an invalid spec).
std::string effective_seed_site(const group_spec& spec);

/// The sidecar's operator address: spec.sidecar.bloodravenAddress, else the in-cluster Service.
std::string effective_bloodraven_address(const group_spec& spec, std::string_view namespace_name);

/// "host:port" or "[v6]:port" with port 1..65535.
std::optional<address_spec> parse_host_port(std::string_view text);

/// Reads spec members from JSON. Strict: unknown members are errors. `path` is "spec" normally.
void read(const nlohmann::json& v, const std::string& path, group_spec& out, field_errors& errs);

/// Canonical JSON (camelCase, durations as strings); parse(to_json(s)) == s.
nlohmann::json to_json(const group_spec& spec);
nlohmann::json to_json(const object_meta& meta);

}  // namespace br::config

namespace br::config {

// Enum readers shared with the status parser.
void read(const nlohmann::json& v, const std::string& path, site_role& out, field_errors& errs);

}  // namespace br::config
