// The operator-generated CA's decisions (see the header).
#include "actors/operator/kube/core/operator_ca_plan.hpp"

#include <algorithm>

#include "io/codec/base64.hpp"

namespace br::op_ca {

using nlohmann::json;

std::vector<std::string> service_dns_names(const std::string& service, const std::string& ns) {
  return {service, service + "." + ns, service + "." + ns + ".svc"};
}

bool due_for_renewal(time_point not_before, time_point not_after, time_point now) {
  if (not_after <= not_before || now < not_before) return true;
  return now - not_before >= (not_after - not_before) * 2 / 3;
}

namespace {

bool same_names(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return a == b;
}

}  // namespace

ca_decision decide_ca_material(const material_facts& f, const std::vector<std::string>& want_names,
                               time_point now) {
  if (!f.ca) return {ca_step::new_ca, "no CA certificate"};
  if (!f.ca->is_ca) return {ca_step::new_ca, "ca.crt is not a CA certificate"};
  if (!f.ca_key_matches) return {ca_step::new_ca, "ca.key does not belong to ca.crt"};
  if (due_for_renewal(f.ca->not_before, f.ca->not_after, now))
    return {ca_step::new_ca, "the CA is due for renewal"};
  if (want_names.empty()) return {ca_step::keep, ""};
  if (!f.serving) return {ca_step::issue_serving, "no serving certificate"};
  if (!f.serving_signed_by_ca) return {ca_step::issue_serving, "tls.crt is not signed by the CA"};
  if (!f.serving_key_matches) return {ca_step::issue_serving, "tls.key does not belong to tls.crt"};
  // URI subjectAltNames count as names (the APIs' bloodraven:// identities, issue 26).
  auto have_names = f.serving->names;
  have_names.insert(have_names.end(), f.serving->uris.begin(), f.serving->uris.end());
  if (!same_names(have_names, want_names))
    return {ca_step::issue_serving, "tls.crt names other hosts"};
  if (due_for_renewal(f.serving->not_before, f.serving->not_after, now))
    return {ca_step::issue_serving, "the serving certificate is due for renewal"};
  return {ca_step::keep, ""};
}

material_facts facts_of(const ca_material& m) {
  material_facts f;
  f.ca = crypto::inspect_cert(m.ca.cert_pem);
  f.ca_key_matches = crypto::key_matches(m.ca.cert_pem, m.ca.key_pem);
  f.serving = crypto::inspect_cert(m.serving.cert_pem);
  f.serving_signed_by_ca = crypto::signed_by(m.serving.cert_pem, m.ca.cert_pem);
  f.serving_key_matches = crypto::key_matches(m.serving.cert_pem, m.serving.key_pem);
  return f;
}

ca_material material_of(const json& secret) {
  auto item = [&](const char* key) {
    const json data = secret.value("data", json::object());
    if (!data.is_object() || !data.contains(key) || !data[key].is_string()) return std::string{};
    return base64_decode(data[key].get<std::string>()).value_or(std::string{});
  };
  return {{item("ca.crt"), item("ca.key")}, {item("tls.crt"), item("tls.key")}};
}

json ca_secret(const std::string& name, const std::string& ns, const ca_material& m,
               const std::string& resource_version, const std::string& component) {
  json s = {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata",
             {{"name", name},
              {"namespace", ns},
              {"labels", {{"app.kubernetes.io/managed-by", "bloodraven"},
                          {"app.kubernetes.io/component", component}}}}},
            {"type", "kubernetes.io/tls"},
            {"data",
             {{"ca.crt", base64_encode(m.ca.cert_pem)},
              {"ca.key", base64_encode(m.ca.key_pem)},
              {"tls.crt", base64_encode(m.serving.cert_pem)},
              {"tls.key", base64_encode(m.serving.key_pem)}}}};
  if (m.serving.cert_pem.empty() && m.serving.key_pem.empty()) {  // only the CA
    s["type"] = "Opaque";
    s["data"].erase("tls.crt");
    s["data"].erase("tls.key");
  }
  if (!resource_version.empty()) s["metadata"]["resourceVersion"] = resource_version;
  return s;
}

json ca_bundle_patch(const json& vwc, const std::string& ca_pem) {
  json ops = json::array();
  const json hooks = vwc.value("webhooks", json::array());
  if (!hooks.is_array()) return ops;
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    const json& h = hooks[i];
    const bool has_cc = h.is_object() && h.contains("clientConfig") && h["clientConfig"].is_object();
    const json have = has_cc ? h["clientConfig"].value("caBundle", json{}) : json{};
    if (have.is_string() && base64_decode(have.get<std::string>()) == ca_pem) continue;
    const std::string at = "/webhooks/" + std::to_string(i);
    ops.push_back({{"op", "test"}, {"path", at + "/name"}, {"value", h.is_object() ? h.value("name", json{}) : json{}}});
    if (!has_cc) ops.push_back({{"op", "add"}, {"path", at + "/clientConfig"}, {"value", json::object()}});
    ops.push_back({{"op", "add"}, {"path", at + "/clientConfig/caBundle"}, {"value", base64_encode(ca_pem)}});
  }
  return ops;
}

}  // namespace br::op_ca
