// The APIs over mutual TLS in Kubernetes mode: the pure decisions (see the header).
#include "actors/operator/kube/core/api_tls_plan.hpp"

#include "actors/common/peer_identity.hpp"
#include "actors/operator/kube/core/generated_credentials.hpp"
#include "config/render/api_tls_pod.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"

namespace br::api_tls {

namespace {

/// <svc>, <svc>.<ns>, <svc>.<ns>.svc, <svc>.<ns>.svc.cluster.local, localhost, 127.0.0.1, `uri`.
std::vector<std::string> names_for(const std::string& service, const std::string& ns, std::string uri) {
  auto out = op_ca::service_dns_names(service, ns);
  out.push_back(service + "." + ns + ".svc.cluster.local");
  out.push_back("localhost");
  out.push_back("127.0.0.1");
  out.push_back(std::move(uri));
  return out;
}

}  // namespace

std::vector<std::string> operator_cert_names(const std::string& service, const std::string& ns) {
  return names_for(service, ns, std::string{auth::operator_identity_uri});
}

std::vector<std::string> site_cert_names(const config::failover_group& g, const std::string& site) {
  const auto& ns = g.metadata.namespace_name;
  return names_for(render::site_name(g.metadata.name, site), ns,
                   auth::site_identity_uri(ns, g.metadata.name, site));
}

json site_labels(const config::failover_group& g, const std::string& site) {
  return {{std::string{render::label_managed_by}, "bloodraven"},
          {group_tls::component_label, site_component},
          {std::string{render::label_group}, g.metadata.name},
          {label_group_namespace, g.metadata.namespace_name},
          {std::string{render::label_site}, site}};
}

json site_secret(const config::failover_group& g, const std::string& site, const std::string& ca_pem,
                 const crypto::pem_pair& leaf) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "kubernetes.io/tls"},
          {"metadata",
           {{"name", render::api_tls_secret_name(g.metadata.name, site)},
            {"namespace", g.metadata.namespace_name},
            {"labels", site_labels(g, site)},
            {"ownerReferences", json::array({render::owner_reference(g)})}}},
          {"data",
           {{"ca.crt", base64_encode(ca_pem)},
            {"tls.crt", base64_encode(leaf.cert_pem)},
            {"tls.key", base64_encode(leaf.key_pem)}}}};
}

bool ours(const json& secret, const config::failover_group& g, const std::string& site) {
  if (!secret.is_object()) return false;
  const json labels = secret.value("metadata", json::object()).value("labels", json::object());
  if (!labels.is_object()) return false;
  const json want = site_labels(g, site);
  for (const auto& [k, v] : want.items())
    if (labels.value(k, json{}) != v) return false;
  return true;
}

group_tls::issue_decision decide_site(const config::failover_group& g, const std::string& site,
                                      const crypto::pem_pair& ca, const json& have,
                                      op_ca::time_point now) {
  return group_tls::decide_issue(group_tls::facts_of(ours(have, g, site), ca, have),
                                 site_cert_names(g, site), now);
}

std::string operator_api_tls(const std::string& ca_secret, const std::string& dir, bool standalone,
                             config::api_tls_settings& tls) {
  if (ca_secret.empty()) return {};
  if (standalone)
    return "--api-tls-ca-secret (BLOODRAVEN_API_TLS_CA_SECRET) is for Kubernetes mode; standalone "
           "mode names the files with --tls-cert-file, --tls-key-file and --tls-ca-file";
  if (!tls.cert_file.empty() || !tls.key_file.empty() || !tls.ca_file.empty())
    return "--api-tls-ca-secret (BLOODRAVEN_API_TLS_CA_SECRET) writes the API certificate itself: "
           "drop --tls-cert-file, --tls-key-file and --tls-ca-file";
  if (dir.empty()) return "--api-tls-dir (BLOODRAVEN_API_TLS_DIR) must not be empty with --api-tls-ca-secret";
  tls.cert_file = dir + "/tls.crt";
  tls.key_file = dir + "/tls.key";
  tls.ca_file = dir + "/ca.crt";
  return {};
}

}  // namespace br::api_tls
