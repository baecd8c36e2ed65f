// The operator and sidecar APIs over mutual TLS in Kubernetes mode (issue 26): the pure
// decisions. With --api-tls-ca-secret the operator keeps an API CA in a Secret of its namespace
// (op_ca, a CA of its own: never the MySQL CA, whose group certificates carry no bloodraven://
// identity and would be accepted as any site), serves and calls with a certificate from it
// (bloodraven://operator, its Service's names) and issues every site of every group a Secret
// mysql-<group>-<site>-api-tls in the group's namespace (bloodraven://site/<ns>/<group>/<site>
// and the names the operator and the peers dial), issued again at 2/3 of its life. Values in,
// values out; the API side is group_tls.cpp (the same controller pass), the pod side
// config/render/api_tls_pod.hpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/core/group_tls_plan.hpp"
#include "config/api_tls.hpp"
#include "config/failover_group.hpp"

namespace br::api_tls {

using nlohmann::json;

/// The chart's default name of the API CA Secret (release namespace).
inline constexpr const char* default_ca_secret = "bloodraven-api-ca";
/// app.kubernetes.io/component of the API CA Secret and of the sites' Secrets.
inline constexpr const char* ca_component = "api-ca";
inline constexpr const char* site_component = "api-tls";
/// Where the operator writes its own API certificate, key and the CA (the chart's /tmp emptyDir).
inline constexpr const char* default_dir = "/tmp/bloodraven-api-tls";

/// Pure: the names of the operator's API certificate: its Service (`service`, `service`.`ns`,
/// .svc, .svc.cluster.local: the sidecars' BLOODRAVEN_ADDRESS), localhost and 127.0.0.1 (a
/// port-forward, a probe inside the pod), and the URI SAN bloodraven://operator.
std::vector<std::string> operator_cert_names(const std::string& service, const std::string& ns);

/// Pure: the names of site `site`'s API certificate: its Service (mysql-<g>-<site>, with .ns,
/// .ns.svc and .ns.svc.cluster.local: render::sidecar_peer_address, which the operator and the
/// peer sidecars dial), localhost, 127.0.0.1 and the URI SAN bloodraven://site/<ns>/<g>/<site>.
std::vector<std::string> site_cert_names(const config::failover_group& g, const std::string& site);

/// The labels on a site's Secret: managed-by bloodraven, component api-tls, the group, its
/// namespace and the site.
json site_labels(const config::failover_group& g, const std::string& site);

/// Pure: the site's Secret (kubernetes.io/tls: ca.crt, tls.crt, tls.key), owned by the group.
json site_secret(const config::failover_group& g, const std::string& site, const std::string& ca_pem,
                 const crypto::pem_pair& leaf);

/// Whether `secret` is the one this operator wrote for that site (its labels).
bool ours(const json& secret, const config::failover_group& g, const std::string& site);

/// Pure (io/crypto's inspection of PEM text): what to do with the site's Secret `have` (null when
/// absent) against the API CA: group_tls::decide_issue's steps (issue when absent, due at 2/3, not
/// from this CA, other names; rewrite when only ca.crt differs; conflict when not ours).
group_tls::issue_decision decide_site(const config::failover_group& g, const std::string& site,
                                      const crypto::pem_pair& ca, const json& have,
                                      op_ca::time_point now);

/// Pure: the operator's API TLS with --api-tls-ca-secret `ca_secret` (Kubernetes mode): its
/// files under `dir` (tls.crt, tls.key, ca.crt, written by the operator itself from the API CA
/// Secret) into `tls`, whose client-auth setting (--tls-client-auth) is kept. "" when off
/// (`ca_secret` empty) or set, else why the flags do not go together: standalone mode (its
/// files are named there), or --tls-cert-file/--tls-key-file/--tls-ca-file given as well.
std::string operator_api_tls(const std::string& ca_secret, const std::string& dir, bool standalone,
                             config::api_tls_settings& tls);

}  // namespace br::api_tls
