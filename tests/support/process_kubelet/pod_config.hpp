// Process kubelet (tests): pure pieces, table-tested in kube_kubelet_unit_test.cpp. How a pod's
// container environment is resolved from its spec, which pods a Service selects, and the text of
// the cluster's hosts file and of the Service DNAT rules (the kube-proxy SIMULATION).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace br::test::kubelet {

using json = nlohmann::json;

/// Objects a container's env and volumes may refer to, by name.
struct pod_refs {
  std::map<std::string, json> secrets;     ///< name -> Secret object (data base64)
  std::map<std::string, json> configmaps;  ///< name -> ConfigMap object
};

struct env_result {
  std::vector<std::pair<std::string, std::string>> env;  ///< in spec order, later wins on dupes
  std::string error;  ///< non-empty: CreateContainerConfigError with this message
};

/// The container's env (envFrom first, then env), resolved exactly as a kubelet does: value,
/// valueFrom.secretKeyRef / configMapKeyRef (missing object or key: error unless optional),
/// fieldRef metadata.name / metadata.namespace / status.podIP / spec.nodeName; anything else
/// is an error naming the field.
env_result resolve_env(const json& container, const json& pod, const std::string& pod_ip,
                       const pod_refs& refs);

/// Equality-based selector (map) against labels; an empty selector selects nothing (Services).
bool selector_matches(const json& selector, const json& labels);

/// One file of a ConfigMap/Secret volume: relative path, bytes, mode.
struct volume_file {
  std::string path;
  std::string content;
  int mode = 0644;
};
struct volume_files {
  std::vector<volume_file> files;
  std::string error;  ///< missing object/key (not optional)
};
/// The files a configMap or secret volume source projects (items or every key; defaultMode).
volume_files project_volume(const json& volume, const pod_refs& refs);

/// The files of a projected volume (the kube-api-access shape a ServiceAccount token is mounted
/// with): configMap and secret sources as project_volume; downwardAPI items by fieldRef; a
/// serviceAccountToken source is a SIMULATION: the file holds "process-kubelet:<ns>:<account>"
/// (the API simulator authenticates by identity header, not by tokens). A configMap source
/// named kube-root-ca.crt is skipped when absent (the process kubelet's API is plain HTTP and
/// nothing publishes that ConfigMap); any other unknown source is an error.
volume_files project_projected(const json& volume, const json& pod, const pod_refs& refs);

/// A Service endpoint: a pod's IP and the resolved target port.
struct endpoint {
  std::string ip;
  int port = 0;
};
/// The Service's port "port" -> endpoints among `pods` (objects with status.podIP set by us and
/// a Ready condition): selector match, readiness unless publishNotReadyAddresses, targetPort by
/// number or by container port name. Sorted by pod name.
std::map<int, std::vector<endpoint>> service_endpoints(const json& service,
                                                       const std::vector<json>& pods);

/// A headless Service (spec.clusterIP "None"): its name resolves to its first endpoint's pod IP
/// (in service_endpoints' order; "" when it has none), as cluster DNS answers for a Service
/// selecting one pod. No ClusterIP and no DNAT rule.
bool is_headless(const json& service);
std::string headless_address(const json& service, const std::vector<json>& pods);

/// DNAT rules for one network namespace: "-A <chain> -d CIP/32 -p tcp --dport P -j DNAT
/// --to-destination IP:TP" (first endpoint; a Service without endpoints gets no rule), as an
/// iptables-restore --noflush document for the nat table that flushes and refills `chain`.
struct service_rule {
  std::string cluster_ip;
  int port = 0;
  endpoint target;
};
std::string nat_rules_document(const std::string& chain, const std::vector<service_rule>& rules);

/// hosts(5) text: localhost lines, then "<ip> <name>.<ns>.svc.cluster.local <name>.<ns>.svc
/// <name>.<ns>" per Service (sorted by key "ns/name").
std::string hosts_text(const std::map<std::string, std::string>& cluster_ip_by_ns_name);

/// `path` (absolute, as a container sees it) inside `root`, following symlinks inside the root
/// as the container would (an absolute link target is relative to root; ".." never leaves it).
/// Components that do not exist are appended as they are.
std::string path_in_root(const std::string& root, const std::string& path);

}  // namespace br::test::kubelet
