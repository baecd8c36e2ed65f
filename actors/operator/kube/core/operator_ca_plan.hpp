// The operator-generated CA's decisions (issue 23; meant for issue 26's TLS too): which names a
// Service's certificate carries, when a certificate is due for renewal, what to do with the
// material found in the CA Secret, the Secret itself, and the patch that puts the CA into a
// ValidatingWebhookConfiguration's caBundle. Pure: values in, values out. The Kubernetes side
// (reads, creates, updates, files) is operator_ca.hpp.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"

namespace br::op_ca {

using time_point = std::chrono::system_clock::time_point;

/// The CA lives long; the serving certificate is re-issued from it at 2/3 of its 90 days.
inline constexpr std::chrono::hours ca_validity{24 * 3650};
inline constexpr std::chrono::hours serving_validity{24 * 90};

/// The names a Service is called by inside the cluster: <service>, <service>.<ns>,
/// <service>.<ns>.svc (the API server calls a webhook at the last).
std::vector<std::string> service_dns_names(const std::string& service, const std::string& ns);

/// Whether a certificate valid from `not_before` to `not_after` is due for replacement at `now`:
/// from 2/3 of its lifetime on (so also once expired), or when its start is still ahead or its
/// validity is empty.
bool due_for_renewal(time_point not_before, time_point not_after, time_point now);

/// What the Secret holds, as read through io/crypto/x509_inspect (nullopt: absent or unparsable).
struct material_facts {
  std::optional<crypto::cert_info> ca;
  bool ca_key_matches = false;
  std::optional<crypto::cert_info> serving;
  bool serving_signed_by_ca = false;
  bool serving_key_matches = false;
};

enum class ca_step {
  keep,           ///< everything usable: serve it
  issue_serving,  ///< keep the CA, issue a new serving certificate from it
  new_ca,         ///< a new CA and a new serving certificate
};

struct ca_decision {
  ca_step step = ca_step::keep;
  std::string why;  ///< "" for keep, else the reason (logged)
};

/// Pure: new_ca when there is no usable CA (absent, not a CA, its key does not match, due for
/// renewal); else keep when `want_names` is empty (a Secret that holds only the CA); else
/// issue_serving when the serving certificate is absent, not signed by that CA,
/// not matching its key, for other names than `want_names` (as a set), or due for renewal;
/// else keep.
ca_decision decide_ca_material(const material_facts& f, const std::vector<std::string>& want_names,
                               time_point now);

/// The material of a CA Secret: the CA (ca.crt, ca.key) and the serving pair (tls.crt, tls.key).
struct ca_material {
  crypto::pem_pair ca;
  crypto::pem_pair serving;
};

/// The facts of `m` through io/crypto/x509_inspect (a function of the PEM text alone). Also
/// used for a group's TLS Secret against this CA (group_tls_plan.hpp).
material_facts facts_of(const ca_material& m);

/// Pure: the material in a Secret's data (missing or non-base64 keys give empty strings).
ca_material material_of(const nlohmann::json& secret);

/// Pure: Secret `name` in `ns` of type kubernetes.io/tls holding `m` (tls.crt, tls.key, ca.crt,
/// ca.key), labelled as managed by bloodraven with `component`; without a serving pair an Opaque
/// Secret of ca.crt and ca.key. `resource_version` (when not empty) makes an update conditional.
nlohmann::json ca_secret(const std::string& name, const std::string& ns, const ca_material& m,
                         const std::string& resource_version = {},
                         const std::string& component = "webhook-ca");

/// Pure: the JSON patch that sets every webhook's clientConfig.caBundle of the
/// ValidatingWebhookConfiguration `vwc` to `ca_pem` (each replace guarded by a test of the
/// webhook's name at that index, so a reordered list fails the patch instead of writing the wrong
/// entry); an empty array when every caBundle already holds `ca_pem`.
nlohmann::json ca_bundle_patch(const nlohmann::json& vwc, const std::string& ca_pem);

}  // namespace br::op_ca
