// A group's TLS certificate in Kubernetes mode (issue 26, spec.tls): the pure decisions. Where the
// certificate comes from (cert-manager when the cluster serves its Certificate kind and the spec
// names an issuer, else the operator's generated CA), the names it carries, the cert-manager
// Certificate the operator keeps in its own namespace, the copy of the issued Secret into the
// group's namespace (MOCO's rule: the Certificate lives beside the operator, the copy beside the
// pods) and, without cert-manager, when the operator issues or re-issues the group's certificate
// from its CA. Values in, values out; the API side is group_tls.hpp.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/core/operator_ca_plan.hpp"
#include "config/failover_group.hpp"

namespace br::group_tls {

using nlohmann::json;

/// spec.tls as this controller reads it.
struct tls_settings {
  std::string issuer_name;  ///< issuerRef.name; "" = no issuer (the generated CA)
  std::string issuer_kind;  ///< issuerRef.kind: Issuer (in the operator's namespace) | ClusterIssuer
  std::string secret_name;  ///< the Secret in the group's namespace the pods mount
};

/// cert-manager's Certificate kind (namespaced, in the operator's namespace).
inline constexpr const char* cert_manager_group = "cert-manager.io";
inline constexpr const char* cert_manager_version = "v1";

/// Label values on everything this controller writes (with the group's name and namespace labels).
inline constexpr const char* component_label = "app.kubernetes.io/component";
inline constexpr const char* component_value = "mysql-tls";

/// Where a group's certificate comes from.
enum class tls_source {
  cert_manager,  ///< a Certificate in the operator's namespace, its Secret copied to the group's
  generated_ca,  ///< issued by the operator from the CA it keeps in a Secret of its namespace
};

/// Pure: cert-manager only when the cluster serves certificates.cert-manager.io/v1 AND the spec
/// names an issuer (without an issuerRef there is nothing to ask cert-manager for: the generated
/// CA serves the group even where cert-manager is installed).
tls_source choose_source(const tls_settings& s, bool certificate_kind_served);

/// Pure: why the group may not name its issuer ("" = it may). An Issuer is looked up in the
/// operator's namespace, which its administrators control: always allowed. A ClusterIssuer signs
/// for the whole cluster (a company CA, say): only one the operator was given
/// (--tls-cluster-issuers) may be named, or any group could have the operator request a
/// certificate from it for its names and copy the key into its namespace (review V7 H2).
std::string issuer_refusal(const tls_settings& s, const std::vector<std::string>& cluster_issuers);

/// Pure: whether a discovery answer for /apis/cert-manager.io/v1 (an APIResourceList) lists the
/// `certificates` resource.
bool serves_certificates(const json& resource_list);

/// The names a group's certificate carries.
struct cert_names {
  std::vector<std::string> dns;  ///< DNS subjectAltNames, the shortest first
  std::vector<std::string> ips;  ///< IP subjectAltNames
  /// dns then ips: the list x509_issue takes and x509_inspect reads back.
  std::vector<std::string> all() const;
};

/// Pure: every name a client or a replica reaches a site's mysqld or sidecar by: each site's
/// Service (mysql-<g>-<site>: the operator's and the replicas' address, the sidecars' peer
/// address, the Group Replication local address), the -primary and -replicas Services (and
/// -readers in Group Replication mode), each as <svc>, <svc>.<ns>, <svc>.<ns>.svc and
/// <svc>.<ns>.svc.cluster.local; and localhost / 127.0.0.1, where the sidecar reaches its own
/// mysqld. The pods of a Deployment have no stable host names of their own, so none is listed.
cert_names group_cert_names(const config::failover_group& g);

/// "mysql-<group namespace>.<group>-tls": the Certificate and the Secret cert-manager writes, in
/// the operator's namespace (a namespace holds no dot, so no two groups share the name).
std::string certificate_name(const std::string& group_ns, const std::string& group);

/// The labels on the Certificate (and asked of cert-manager for its Secret, and put on the copy):
/// managed-by bloodraven, component mysql-tls, the group's name and namespace.
json tls_labels(const config::failover_group& g);

/// Pure: the cert-manager Certificate for `g` in `operator_ns`: secretName = its own name,
/// dnsNames and ipAddresses from group_cert_names, the spec's issuerRef (group cert-manager.io),
/// usages server auth and client auth, an ECDSA P-256 key rotated at every renewal, the Secret
/// labelled (secretTemplate) as the group's.
json certificate(const config::failover_group& g, const tls_settings& s, const std::string& operator_ns);

/// Pure: the write that brings the Certificate `have` (null when absent) to `want`: nullopt when
/// spec and our labels agree, else `want` carrying have's resourceVersion (a conditional update).
std::optional<json> certificate_write(const json& have, const json& want);

/// The Secret in the group's namespace the pods mount: type kubernetes.io/tls with ca.crt,
/// tls.crt and tls.key, owned by the group (garbage-collected with it), labelled tls_labels.
json group_secret(const config::failover_group& g, const tls_settings& s, const std::string& ca_pem,
                  const std::string& cert_pem, const std::string& key_pem);

/// Whether `secret` (as read) is one this controller wrote for `g` (managed-by bloodraven,
/// component mysql-tls, the group's label). A Secret of the same name that is not is never
/// overwritten.
bool ours(const json& secret, const config::failover_group& g);

enum class copy_step {
  wait,      ///< cert-manager has not issued yet (the Secret or one of its keys is missing)
  keep,      ///< the copy already holds what was issued
  write,     ///< create (have absent) or update (have's resourceVersion) the copy to `object`
  conflict,  ///< a Secret of that name exists in the group's namespace and is not ours
};

struct copy_decision {
  copy_step step = copy_step::wait;
  std::string why;  ///< for wait and conflict
  json object;      ///< for write
};

/// Pure: the copy of the issued Secret `issued` (null when absent) over `have` (the group's
/// Secret as read, null when absent). cert-manager writes ca.crt, tls.crt and tls.key; without
/// ca.crt (an issuer that does not return its CA) there is nothing the replicas could verify
/// against, so the copy waits and says so.
copy_decision decide_copy(const config::failover_group& g, const tls_settings& s, const json& issued,
                          const json& have);

enum class issue_step {
  keep,      ///< the group's Secret holds a usable certificate from the CA for the right names
  issue,     ///< issue a new certificate from the CA and write the Secret
  rewrite,   ///< the certificate is good but ca.crt is not the CA: write the Secret with the CA
  conflict,  ///< a Secret of that name exists in the group's namespace and is not ours
  no_ca,     ///< the CA material is not usable (the CA Secret's keeper must fix it first)
};

struct issue_decision {
  issue_step step = issue_step::keep;
  std::string why;
};

/// What the group's Secret holds (read through io/crypto), against the CA.
struct issued_facts {
  bool exists = false;
  bool ours = false;
  op_ca::material_facts material;  ///< ca: the CA's; serving: the group Secret's tls pair
  bool ca_pem_matches = false;     ///< the group Secret's ca.crt is the CA's certificate
};

/// Pure (values through io/crypto's inspection): the facts of `have` (the group's Secret as
/// read, null when absent) against the CA pair `ca`.
issued_facts facts_of(const config::failover_group& g, const crypto::pem_pair& ca, const json& have);

/// The same with `ours` decided by the caller (the APIs' per-site Secrets, api_tls_plan.hpp).
issued_facts facts_of(bool ours, const crypto::pem_pair& ca, const json& have);

/// Pure, without cert-manager: conflict when the Secret exists and is not ours; no_ca when the CA
/// is unusable; issue when the certificate is absent, not from the CA, not matching its key, for
/// other names than `want_names` or due for renewal (2/3 of its lifetime, op_ca::due_for_renewal);
/// rewrite when only ca.crt differs; else keep.
issue_decision decide_issue(const issued_facts& f, const std::vector<std::string>& want_names,
                            op_ca::time_point now);

/// Where the operator keeps each group's CA as a file (its MySQL sessions verify the servers
/// against it: group_credentials::mysql_tls_ca_file): under the chart's /tmp emptyDir.
inline constexpr const char* default_ca_dir = "/tmp/bloodraven-tls";

/// "<dir>/<namespace>/<group>/ca.crt".
std::string group_ca_file(const std::string& dir, const std::string& ns, const std::string& group);

/// What the operator's CA file holds once the group's CA is `ca_pem` and the file held
/// `existing`: `ca_pem` first, then the certificates of `existing` it lacks (at most 3: the CAs
/// before it, newest first). Pods take a minute or more to serve a certificate of a new CA (the
/// kubelet's sync, then the sidecar's reload); trusting only the new CA at once would make every
/// site unreachable meanwhile, and a site that reloaded first reachable while the primary is not
/// (a failover of a healthy primary: review V7 M2). The cost: a replaced CA stays trusted by the
/// operator until two more changes.
std::string ca_file_bundle(const std::string& ca_pem, const std::string& existing);

/// What a group is, for the clean-up of the operator's namespace.
enum class group_intent {
  absent,        ///< no such group object (deleted), or terminating
  unknown,       ///< the object does not parse or validate: its intent is unknown, keep things
  cert_manager,  ///< spec.tls served by cert-manager
  other,         ///< no spec.tls, or the generated CA
};

/// Pure: the Certificates (ours, as listed in the operator's namespace: their name, group and
/// group namespace labels) to delete, with their issued Secret (same name): those whose group is
/// absent or no longer asks cert-manager. A group whose spec cannot be read keeps its
/// Certificate (deleting it would make cert-manager issue a new key once the spec is fixed).
/// `intents` is keyed "<namespace>/<name>"; a group missing from it counts as absent. Only
/// Certificates of groups in `namespaces` (the operator's watched namespaces; empty = all) are
/// judged: another namespace's groups were not listed.
std::vector<std::string> stale_certificates(const std::vector<json>& certificates,
                                            const std::map<std::string, group_intent>& intents,
                                            const std::vector<std::string>& namespaces);

}  // namespace br::group_tls
