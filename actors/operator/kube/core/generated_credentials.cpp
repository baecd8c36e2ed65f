// Generated credentials: the operator Secret of a new group, created with random passwords when absent.
#include "actors/operator/kube/core/generated_credentials.hpp"

#include <random>

#include "actors/operator/kube/core/kube_credentials.hpp"
#include "config/render/names.hpp"

namespace br {

using nlohmann::json;

bool may_generate_operator_secret(const config::failover_group& g, bool group_pvcs_exist) {
  if (!g.spec.credentials || g.spec.credentials->operator_secret.empty()) return false;
  if (group_pvcs_exist) return false;
  if (!g.status) return true;
  const auto& s = *g.status;
  return s.active_site.empty() && s.sites.empty() && s.epoch == 0;
}

namespace {

/// An Opaque Secret `name` in the group's namespace, labelled as the group's and owned by it.
json group_owned_secret(const config::failover_group& g, const std::string& name, json data) {
  json md = {{"name", name},
             {"namespace", g.metadata.namespace_name},
             {"labels", render::standard_labels(g.metadata.name)},
             {"ownerReferences", json::array({render::owner_reference(g)})}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "Opaque"},
          {"metadata", std::move(md)},
          {"data", std::move(data)}};
}

}  // namespace

json generated_operator_secret(const config::failover_group& g,
                               const std::function<std::string(size_t)>& random_text) {
  return group_owned_secret(g, g.spec.credentials->operator_secret,
                            {{"username", base64_encode("bloodraven")},
                             {"password", base64_encode(random_text(32))},
                             {"MYSQL_ROOT_PASSWORD", base64_encode(random_text(32))}});
}

json generated_sidecar_token_secret(const config::failover_group& g, const std::string& token) {
  return group_owned_secret(g, render::sidecar_token_secret(g.metadata.name),
                            {{std::string{render::sidecar_token_key}, base64_encode(token)}});
}

std::string sidecar_token_of(const json& secret) {
  if (!secret.is_object()) return "";
  auto data = secret.value("data", json::object());
  auto it = data.find(std::string{render::sidecar_token_key});
  if (it == data.end() || !it->is_string()) return "";
  auto decoded = base64_decode(it->get<std::string>());
  return decoded ? *decoded : "";
}

std::string random_password(size_t n) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::uniform_int_distribution<size_t> pick(0, sizeof(alphabet) - 2);
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(alphabet[pick(rd)]);
  return out;
}

}  // namespace br
