// A group's TLS certificate in Kubernetes mode: the pure decisions (see the header).
#include "actors/operator/kube/core/group_tls_plan.hpp"

#include <arpa/inet.h>

#include <algorithm>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "config/render/gr_member.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"

namespace br::group_tls {

tls_source choose_source(const tls_settings& s, bool certificate_kind_served) {
  return certificate_kind_served && !s.issuer_name.empty() ? tls_source::cert_manager
                                                           : tls_source::generated_ca;
}

std::string issuer_refusal(const tls_settings& s, const std::vector<std::string>& cluster_issuers) {
  if (s.issuer_name.empty() || s.issuer_kind != "ClusterIssuer") return {};
  if (std::find(cluster_issuers.begin(), cluster_issuers.end(), s.issuer_name) != cluster_issuers.end())
    return {};
  return "spec.tls.issuerRef names ClusterIssuer " + s.issuer_name +
         ", which the operator is not allowed to use (--tls-cluster-issuers" +
         (cluster_issuers.empty() ? std::string{" is empty"} : " lists others") +
         "); name an Issuer of the operator's namespace, or ask the operator's administrators";
}

bool serves_certificates(const json& resource_list) {
  if (!resource_list.is_object()) return false;
  const json rs = resource_list.value("resources", json::array());
  if (!rs.is_array()) return false;
  return std::any_of(rs.begin(), rs.end(), [](const json& r) {
    return r.is_object() && r.value("name", json{}) == "certificates";
  });
}

std::vector<std::string> cert_names::all() const {
  auto out = dns;
  out.insert(out.end(), ips.begin(), ips.end());
  return out;
}

cert_names group_cert_names(const config::failover_group& g) {
  const auto& group = g.metadata.name;
  const auto& ns = g.metadata.namespace_name;
  std::vector<std::string> services;
  for (const auto& s : g.spec.sites) services.push_back(render::site_name(group, s.name));
  services.push_back(render::primary_service_name(group));
  services.push_back(render::replicas_service_name(group));
  if (render::is_group_replication(g.spec)) services.push_back(render::readers_service_name(group));
  cert_names out;
  // The short names first: the first name is also the subject's common name, at most 64 bytes.
  for (const auto& svc : services) out.dns.push_back(svc);
  for (const auto& svc : services) {
    out.dns.push_back(svc + "." + ns);
    out.dns.push_back(svc + "." + ns + ".svc");
    out.dns.push_back(svc + "." + ns + ".svc.cluster.local");
  }
  out.dns.push_back("localhost");
  out.ips.push_back("127.0.0.1");
  // A Group Replication member's own localAddress: with spec.tls the others verify its
  // certificate against that host name (group_replication_ssl_mode VERIFY_IDENTITY).
  if (render::is_group_replication(g.spec))
    for (const auto& s : g.spec.sites) {
      if (!s.group_replication || s.group_replication->local_address.empty()) continue;
      std::string host = s.group_replication->local_address;
      host = host.substr(0, host.rfind(':'));
      if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
      in6_addr buf{};
      const bool ip = inet_pton(AF_INET, host.c_str(), &buf) == 1 ||
                      inet_pton(AF_INET6, host.c_str(), &buf) == 1;
      auto& list = ip ? out.ips : out.dns;
      if (!host.empty() && std::find(list.begin(), list.end(), host) == list.end())
        list.push_back(host);
    }
  return out;
}

std::string group_ca_file(const std::string& dir, const std::string& ns, const std::string& group) {
  return dir + "/" + ns + "/" + group + "/ca.crt";
}

namespace {

/// The PEM certificate blocks of `text`, each with its END line and a newline.
std::vector<std::string> pem_blocks(const std::string& text) {
  static const std::string begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----";
  std::vector<std::string> out;
  for (std::size_t at = text.find(begin); at != std::string::npos; at = text.find(begin, at)) {
    auto stop = text.find(end, at);
    if (stop == std::string::npos) break;
    stop += end.size();
    out.push_back(text.substr(at, stop - at) + "\n");
    at = stop;
  }
  return out;
}

}  // namespace

std::string ca_file_bundle(const std::string& ca_pem, const std::string& existing) {
  const auto fresh = pem_blocks(ca_pem);
  std::string out = ca_pem;
  if (!out.empty() && out.back() != '\n') out += "\n";
  int kept = 0;
  for (const auto& b : pem_blocks(existing)) {
    if (kept == 3) break;
    if (std::find(fresh.begin(), fresh.end(), b) != fresh.end() || out.find(b) != std::string::npos) continue;
    out += b;
    ++kept;
  }
  return out;
}

std::string certificate_name(const std::string& group_ns, const std::string& group) {
  return "mysql-" + group_ns + "." + group + "-tls";
}

json tls_labels(const config::failover_group& g) {
  return {{std::string{render::label_managed_by}, "bloodraven"},
          {component_label, component_value},
          {std::string{render::label_group}, g.metadata.name},
          {label_group_namespace, g.metadata.namespace_name}};
}

json certificate(const config::failover_group& g, const tls_settings& s, const std::string& operator_ns) {
  const auto name = certificate_name(g.metadata.namespace_name, g.metadata.name);
  const auto names = group_cert_names(g);
  json issuer = {{"name", s.issuer_name}, {"group", cert_manager_group}};
  if (!s.issuer_kind.empty()) issuer["kind"] = s.issuer_kind;
  return {{"apiVersion", std::string{cert_manager_group} + "/" + cert_manager_version},
          {"kind", "Certificate"},
          {"metadata", {{"name", name}, {"namespace", operator_ns}, {"labels", tls_labels(g)}}},
          {"spec",
           {{"secretName", name},
            {"secretTemplate", {{"labels", tls_labels(g)}}},
            {"dnsNames", names.dns},
            {"ipAddresses", names.ips},
            {"issuerRef", issuer},
            {"usages", json::array({"server auth", "client auth", "digital signature", "key encipherment"})},
            {"privateKey", {{"algorithm", "ECDSA"}, {"size", 256}, {"rotationPolicy", "Always"}}}}}};
}

namespace {

bool labels_hold(const json& have, const json& want) {
  const json labels = have.value("metadata", json::object()).value("labels", json::object());
  if (!labels.is_object()) return false;
  for (const auto& [k, v] : want.items())
    if (labels.value(k, json{}) != v) return false;
  return true;
}

}  // namespace

std::optional<json> certificate_write(const json& have, const json& want) {
  if (!have.is_object()) return want;
  if (have.value("spec", json{}) == want["spec"] && labels_hold(have, want["metadata"]["labels"]))
    return std::nullopt;
  json out = want;
  // Keeps what others added to its metadata (annotations, cert-manager's own fields); ours wins.
  json md = have.value("metadata", json::object());
  for (const auto& [k, v] : want["metadata"]["labels"].items()) md["labels"][k] = v;
  out["metadata"] = md;
  return out;
}

json group_secret(const config::failover_group& g, const tls_settings& s, const std::string& ca_pem,
                  const std::string& cert_pem, const std::string& key_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "kubernetes.io/tls"},
          {"metadata",
           {{"name", s.secret_name},
            {"namespace", g.metadata.namespace_name},
            {"labels", tls_labels(g)},
            {"ownerReferences", json::array({render::owner_reference(g)})}}},
          {"data",
           {{"ca.crt", base64_encode(ca_pem)},
            {"tls.crt", base64_encode(cert_pem)},
            {"tls.key", base64_encode(key_pem)}}}};
}

bool ours(const json& secret, const config::failover_group& g) {
  if (!secret.is_object()) return false;
  const json labels = secret.value("metadata", json::object()).value("labels", json::object());
  return labels.is_object() && labels.value(std::string{render::label_managed_by}, json{}) == "bloodraven" &&
         labels.value(component_label, json{}) == component_value &&
         labels.value(std::string{render::label_group}, json{}) == g.metadata.name;
}

copy_decision decide_copy(const config::failover_group& g, const tls_settings& s, const json& issued,
                          const json& have) {
  if (have.is_object() && !ours(have, g))
    return {copy_step::conflict,
            "Secret " + s.secret_name + " in namespace " + g.metadata.namespace_name +
                " exists and was not written by bloodraven for this group",
            {}};
  if (!issued.is_object()) return {copy_step::wait, "cert-manager has not written the Secret yet", {}};
  const auto m = op_ca::material_of(issued);
  if (m.serving.cert_pem.empty() || m.serving.key_pem.empty())
    return {copy_step::wait, "the issued Secret has no tls.crt or tls.key yet", {}};
  if (m.ca.cert_pem.empty())
    return {copy_step::wait,
            "the issued Secret has no ca.crt (the issuer does not return its CA; replicas could not verify)",
            {}};
  json want = group_secret(g, s, m.ca.cert_pem, m.serving.cert_pem, m.serving.key_pem);
  auto write = copy_write(have.is_object() ? have : json(nullptr), want);
  if (!write) return {copy_step::keep, "", {}};
  return {copy_step::write, "", *write};
}

issued_facts facts_of(const config::failover_group& g, const crypto::pem_pair& ca, const json& have) {
  return facts_of(ours(have, g), ca, have);
}

issued_facts facts_of(bool is_ours, const crypto::pem_pair& ca, const json& have) {
  issued_facts f;
  f.exists = have.is_object();
  f.ours = is_ours;
  const auto m = have.is_object() ? op_ca::material_of(have) : op_ca::ca_material{};
  f.material = op_ca::facts_of({ca, m.serving});
  f.ca_pem_matches = !ca.cert_pem.empty() && m.ca.cert_pem == ca.cert_pem;
  return f;
}

issue_decision decide_issue(const issued_facts& f, const std::vector<std::string>& want_names,
                            op_ca::time_point now) {
  if (f.exists && !f.ours)
    return {issue_step::conflict, "the Secret exists and was not written by bloodraven for this group"};
  if (!f.exists) return {issue_step::issue, "no Secret yet"};
  const auto d = op_ca::decide_ca_material(f.material, want_names, now);
  switch (d.step) {
    case op_ca::ca_step::new_ca:
      return {issue_step::no_ca, d.why};
    case op_ca::ca_step::issue_serving:
      return {issue_step::issue, d.why};
    case op_ca::ca_step::keep:
      break;
  }
  if (!f.ca_pem_matches) return {issue_step::rewrite, "ca.crt is not the operator's CA"};
  return {issue_step::keep, ""};
}

std::vector<std::string> stale_certificates(const std::vector<json>& certificates,
                                            const std::map<std::string, group_intent>& intents,
                                            const std::vector<std::string>& namespaces) {
  std::vector<std::string> out;
  for (const auto& c : certificates) {
    if (!c.is_object()) continue;
    const json md = c.value("metadata", json::object());
    const json labels = md.value("labels", json::object());
    if (!labels.is_object() || labels.value(std::string{render::label_managed_by}, json{}) != "bloodraven" ||
        labels.value(component_label, json{}) != component_value)
      continue;
    const std::string ns = labels.value(label_group_namespace, std::string{});
    const std::string group = labels.value(std::string{render::label_group}, std::string{});
    if (ns.empty() || group.empty()) continue;
    if (!namespaces.empty() && std::find(namespaces.begin(), namespaces.end(), ns) == namespaces.end())
      continue;
    auto it = intents.find(ns + "/" + group);
    const auto intent = it == intents.end() ? group_intent::absent : it->second;
    if (intent == group_intent::absent || intent == group_intent::other)
      out.push_back(md.value("name", std::string{}));
  }
  return out;
}

}  // namespace br::group_tls
