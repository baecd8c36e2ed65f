// The operator-generated CA, Kubernetes side (issue 23: the status webhook's certificate when
// neither cert-manager nor Helm provides one; written to be reused by issue 26's TLS): the CA and a
// serving certificate for a Service live in one Secret of the operator's namespace; every
// operator replica reads it (creating it when absent, re-issuing the serving certificate when
// due), serves from files it writes (the HTTP server re-reads them when they change) and keeps
// the ValidatingWebhookConfiguration's caBundle equal to the CA. The decisions are pure, in
// operator_ca_plan.hpp; these functions block (API calls with the client's deadlines) and run in
// main before the listener starts and then in a detached actor.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "actors/operator/kube/core/operator_ca_plan.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br::op_ca {

struct operator_ca_options {
  std::shared_ptr<kube::client> client;
  std::string ns;                     ///< the operator's namespace (the Secret's and the Service's)
  std::string secret;                 ///< the Secret holding the CA and the serving pair
  std::string service;                ///< the Service the certificate is for (its DNS names);
                                      ///< "" = the Secret keeps only the CA (ensure_ca_secret)
  std::string component = "webhook-ca";  ///< the Secret's app.kubernetes.io/component label
  std::string webhook_configuration;  ///< the ValidatingWebhookConfiguration ("" = none to keep)
  std::string cert_file, key_file;    ///< where the serving pair is written for the HTTP server
  /// Issue 26 (the APIs over mutual TLS): when not empty, the serving certificate's names instead
  /// of service_dns_names(service) (URI SANs included); client_auth: it is also a client
  /// certificate (issue_peer_cert); ca_file: where the CA is written too ("" = not written).
  std::vector<std::string> names;
  bool client_auth = false;
  std::string ca_file;
  std::string log_name = "webhook CA";  ///< what the log lines call this material
  std::chrono::milliseconds interval{std::chrono::minutes{1}};  ///< between passes
  /// Always null: every replica serves the webhook, so every replica keeps its material (the
  /// writes are conditional and converge on one CA). Here for guarded_pass_behavior.
  std::shared_ptr<op::lease_guard> guard;
};

/// The ValidatingWebhookConfiguration resource (cluster-scoped).
inline const kube::resource_ref validating_webhook_configurations{
    "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false};

/// Reads the Secret and acts on decide_ca_material (with no Service, only the CA: issue 26's
/// group certificates are issued from it elsewhere, group_tls.hpp): keep; issue a serving certificate from the
/// CA (conditional update); a new CA (create when absent, else conditional update). A create
/// that meets 409 AlreadyExists or an update that meets 409 Conflict reads the Secret again and
/// decides on what another replica wrote (so two replicas never end with two CAs). The material
/// to serve, or what failed.
std::variant<ca_material, std::string> ensure_ca_secret(const operator_ca_options& o, time_point now);

/// Writes the serving pair to `cert_file` (0644) and `key_file` (0600), and the CA to `ca_file`
/// (0644, when not ""), each atomically and only when its content differs. "" or what failed.
std::string write_serving_files(const ca_material& m, const std::string& cert_file,
                                const std::string& key_file, const std::string& ca_file = {});

/// Patches the ValidatingWebhookConfiguration's caBundles to `ca_pem` when any differs
/// (ca_bundle_patch). "" or what failed.
std::string sync_ca_bundle(const operator_ca_options& o, const std::string& ca_pem);

/// One pass: ensure_ca_secret, write_serving_files, sync_ca_bundle; failures are logged and
/// counted (the next pass tries again).
int operator_ca_pass(const operator_ca_options& o);

/// Before the webhook listener starts (it needs the files): ensure_ca_secret and
/// write_serving_files, tried every second until they succeed or `deadline` passes. "" or the
/// last failure.
std::string prepare_operator_ca(const operator_ca_options& o, std::chrono::milliseconds deadline);

/// A detached actor running operator_ca_pass now and every `interval`.
ticking_actor spawn_operator_ca_keeper(caf::actor_system& sys, operator_ca_options o);

}  // namespace br::op_ca
