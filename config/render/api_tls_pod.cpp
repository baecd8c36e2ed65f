// The site's API certificate in its pod (see the header).
#include "config/render/api_tls_pod.hpp"

#include "config/render/names.hpp"

namespace br::render {

using nlohmann::json;

std::string api_tls_secret_name(std::string_view group, std::string_view site) {
  return site_name(group, site) + "-api-tls";
}

void add_api_tls(const config::failover_group& g, std::size_t site_index, json& pod_spec) {
  json items = json::array();
  for (const char* k : {"ca.crt", "tls.crt", "tls.key"}) items.push_back({{"key", k}, {"path", k}});
  pod_spec["volumes"].push_back(
      {{"name", api_tls_volume},
       {"secret",
        {{"secretName", api_tls_secret_name(g.metadata.name, g.spec.sites.at(site_index).name)},
         {"defaultMode", 0440},
         {"items", std::move(items)}}}});
  const std::string dir = api_tls_dir;
  for (auto& c : pod_spec["containers"]) {
    if (c.value("name", std::string{}) != sidecar_container) continue;
    c["volumeMounts"].push_back({{"name", api_tls_volume}, {"mountPath", dir}, {"readOnly", true}});
    auto env = [](const char* k, std::string v) { return json{{"name", k}, {"value", std::move(v)}}; };
    c["env"].push_back(env("BLOODRAVEN_TLS_CERT_FILE", dir + "/tls.crt"));
    c["env"].push_back(env("BLOODRAVEN_TLS_KEY_FILE", dir + "/tls.key"));
    c["env"].push_back(env("BLOODRAVEN_TLS_CA_FILE", dir + "/ca.crt"));
    c["env"].push_back(env("BLOODRAVEN_TLS_CLIENT_AUTH", "request"));
    for (const char* probe : {"livenessProbe", "readinessProbe"}) {
      if (!c.contains(probe) || !c[probe].contains("httpGet")) continue;
      auto& get = c[probe]["httpGet"];
      if (get.value("port", json{}) == sidecar_port) get["scheme"] = "HTTPS";
    }
  }
}

}  // namespace br::render
