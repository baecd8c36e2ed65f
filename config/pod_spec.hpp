// Pod and Service shaping members of the spec ("pods a user can run"): container resources,
// tolerations and Service templates, with their strict readers, JSON and validation.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/field_error.hpp"

namespace br::config {

/// Kubernetes ResourceRequirements: quantities as written ("500m", "1Gi"), checked by
/// validate_resources. No `claims` (dynamic resource allocation is not supported).
struct resource_requirements {
  std::map<std::string, std::string> requests;
  std::map<std::string, std::string> limits;
  bool operator==(const resource_requirements&) const = default;
};

/// A pod toleration (added after the operator's own readonly-taint toleration).
struct toleration_spec {
  std::string key;
  std::string op;  // "operator": Equal (default) | Exists
  std::string value;
  std::string effect;  // "" | NoSchedule | PreferNoSchedule | NoExecute
  std::optional<std::int64_t> toleration_seconds;
  bool operator==(const toleration_spec&) const = default;
};

/// An extra Service port (never the MySQL or sidecar ports).
struct service_port_spec {
  std::string name;
  std::int32_t port = 0;
  std::optional<std::int32_t> target_port;  // default: port
  std::string protocol = "TCP";
  std::optional<std::int32_t> node_port;
  bool operator==(const service_port_spec&) const = default;
};

/// MOCO-style Service template: metadata {labels, annotations}, spec {type, externalTrafficPolicy,
/// ports}. Applied to the Service the field names (primaryServiceTemplate: mysql-<g>-primary,
/// replicaServiceTemplate: mysql-<g>-replicas, sites[].serviceTemplate: mysql-<g>-<site>).
struct service_template_spec {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string type = "ClusterIP";  // ClusterIP | LoadBalancer | NodePort
  std::string external_traffic_policy;  // Cluster | Local, only for non-ClusterIP
  std::vector<service_port_spec> ports;
  bool operator==(const service_template_spec&) const = default;
};

void read(const nlohmann::json& v, const std::string& path, resource_requirements& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, toleration_spec& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, service_port_spec& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, service_template_spec& out,
          field_errors& errs);

nlohmann::json to_json(const resource_requirements& r);
nlohmann::json to_json(const toleration_spec& t);
nlohmann::json to_json(const service_template_spec& s);

/// A Kubernetes quantity ("500m", "1Gi", "1e3", "0.5") as a number, or nullopt when `text` is not
/// one (strict: the API server's grammar, no spaces, no unknown suffix). Negative values parse
/// (the caller refuses them).
std::optional<long double> parse_quantity(std::string_view text);

/// ResourceRequirements rules at `path` (e.g. "spec.resources"): resource names cpu, memory,
/// ephemeral-storage, hugepages-<size> or an extended resource "domain/name"; quantities strict
/// and not negative; extended resources whole numbers; a request not above its limit.
void validate_resources(const resource_requirements& r, const std::string& path,
                        field_errors& errs);

/// Toleration shape: operator Equal|Exists, Exists without value, an empty key only with Exists,
/// effect one of the three (or empty), tolerationSeconds only with NoExecute.
void validate_toleration(const toleration_spec& t, const std::string& path, field_errors& errs);

/// Service template rules: type, externalTrafficPolicy only for LoadBalancer/NodePort, extra ports
/// named, unique, 1..65535 and never the reserved names/ports, nodePort only for
/// NodePort/LoadBalancer, labels that do not override the operator's selector labels.
void validate_service_template(const service_template_spec& s, const std::string& path,
                               const std::vector<std::int32_t>& reserved_ports,
                               field_errors& errs);

/// Label (or annotation) key syntax: [prefix/]name, prefix a DNS subdomain (<= 253), name
/// <= 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric.
bool is_qualified_name(std::string_view key);
/// Label value syntax: empty or <= 63 characters like a qualified name's name part.
bool is_label_value(std::string_view value);
/// Keys the operator sets itself on pods and Services: the app.kubernetes.io name/instance/
/// managed-by labels and everything under shipstream.io/ and bloodraven.shipstream.io/.
bool is_operator_key(std::string_view key);

}  // namespace br::config
