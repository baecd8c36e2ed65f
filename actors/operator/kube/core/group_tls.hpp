// The group TLS controller (issue 26, Kubernetes mode): every `interval` while this operator
// leads, for every MysqlFailoverGroup with spec.tls in the watched namespaces, it makes sure the
// Secret spec.tls.secretName (default "<group>-tls") in the group's namespace holds ca.crt,
// tls.crt and tls.key for every name the group's mysqld and sidecars are reached by:
//  - cert-manager (the cluster serves certificates.cert-manager.io/v1, found by discovery, and the
//    spec names an issuerRef): a Certificate "mysql-<ns>.<group>-tls" in the OPERATOR's namespace
//    (created, updated when the names or the issuer change); the Secret cert-manager issues for it
//    there is copied into the group's namespace, and copied again whenever cert-manager renews it;
//  - otherwise the operator's own CA, kept in a Secret of its namespace (`ca_secret`, created
//    when absent, op_ca::ensure_ca_secret): the group's certificate is issued from it and
//    re-issued at 2/3 of its lifetime, when the names change or when the CA changed.
// The kubelet updates the mounted files when the Secret changes; the pods are not restarted. The
// group's CA is also written to a file of the operator (`ca_dir`), which its MySQL sessions to
// the group verify against.
// Certificates (and their Secrets) of groups deleted or no longer served by cert-manager are
// deleted. The decisions are pure (group_tls_plan.hpp); the calls here block, each with the
// client's deadline, in a detached actor.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/kube/core/group_tls_plan.hpp"
#include "actors/operator/kube/core/lease_lock.hpp"
#include "actors/operator/kube/core/operator_ca.hpp"
#include "io/kube/client.hpp"
#include "io/kube/events.hpp"
#include "messages/interfaces.hpp"

namespace br::group_tls {

/// cert-manager's Certificate resource.
inline const kube::resource_ref certificates{cert_manager_group, cert_manager_version, "certificates", true};

/// Event reasons on the group.
inline constexpr const char* reason_certificate_requested = "TLSCertificateRequested";
inline constexpr const char* reason_secret_copied = "TLSSecretCopied";
inline constexpr const char* reason_secret_issued = "TLSSecretIssued";
inline constexpr const char* reason_secret_conflict = "TLSSecretConflict";
inline constexpr const char* reason_issuer_not_allowed = "TLSIssuerNotAllowed";

struct controller_options {
  std::shared_ptr<kube::client> client;
  std::vector<std::string> namespaces;     ///< the groups' namespaces; empty = all
  std::string operator_ns;                 ///< the Certificates and the CA Secret live here
  std::string ca_secret = "bloodraven-mysql-ca";  ///< the generated CA (ca.crt, ca.key)
  /// Each served group's CA (the ca.crt its pods mount) is written to group_ca_file(ca_dir, ns,
  /// group) for the operator's own MySQL sessions (the group source points them there).
  std::string ca_dir = default_ca_dir;
  std::shared_ptr<op::lease_guard> guard;  ///< no pass while it is not valid; null = none
  std::chrono::milliseconds interval{std::chrono::seconds(10)};
  std::string instance;  ///< Event reportingInstance
  /// The ClusterIssuers groups may name (--tls-cluster-issuers; issuer_refusal). Issuers of
  /// the operator's namespace are always allowed.
  std::vector<std::string> cluster_issuers;
  /// The APIs over mutual TLS (issue 26, --api-tls-ca-secret): the API CA's Secret (the same
  /// options every replica's keeper uses for the operator's own certificate). Set: every site
  /// of every group gets its API Secret (api_tls_plan.hpp), issued from that CA and issued again
  /// when due. Unset: none.
  std::optional<op_ca::operator_ca_options> api_ca;
  /// Events on the groups (de-duplicated across passes); made by spawn_tls_controller when null.
  std::shared_ptr<kube::event_recorder> events;
};

/// spec.tls of `g` as the controller reads it (nullopt: no spec.tls).
std::optional<tls_settings> settings_of(const config::failover_group& g);

/// What one pass did (for logs and tests).
struct pass_result {
  int failures = 0;  ///< API calls that failed (logged)
  int writes = 0;    ///< objects created, updated or deleted
  std::optional<bool> cert_manager;  ///< the discovery's answer (nullopt: it failed)
};

/// One pass (blocking; exposed for tests).
pass_result reconcile_tls_once(const controller_options& o);

/// The controller as a detached actor ticking every `interval`.
ticking_actor spawn_tls_controller(caf::actor_system& sys, controller_options o);

}  // namespace br::group_tls
