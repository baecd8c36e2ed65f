// spec.tls in the pods (see the header).
#include "config/render/tls_pod.hpp"

#include "config/render/names.hpp"
#include "config/tls_spec.hpp"

namespace br::render {

using nlohmann::json;

namespace {

void add_volume(const config::failover_group& g, json& pod_spec) {
  json items = json::array();
  for (const char* k : {"ca.crt", "tls.crt", "tls.key"}) items.push_back({{"key", k}, {"path", k}});
  pod_spec["volumes"].push_back(
      {{"name", tls_volume},
       {"secret",
        {{"secretName", config::effective_tls_secret_name(*g.spec.tls, g.metadata.name)},
         {"defaultMode", 0440},
         {"items", std::move(items)}}}});
}

void add_mount(json& container) {
  container["volumeMounts"].push_back(
      {{"name", tls_volume}, {"mountPath", std::string{config::mysql_tls_dir}}, {"readOnly", true}});
}

}  // namespace

bool add_tls_volume_to(const config::failover_group& g, json& pod_spec, json& container) {
  if (!g.spec.tls) return false;
  add_volume(g, pod_spec);
  add_mount(container);
  return true;
}

void add_tls_volume(const config::failover_group& g, json& pod_spec) {
  if (!g.spec.tls) return;
  add_volume(g, pod_spec);
  for (auto& c : pod_spec["containers"]) {
    const auto name = c.value("name", std::string{});
    if (name != mysql_container && name != sidecar_container) continue;
    add_mount(c);
    if (name != sidecar_container) continue;
    // The sidecar verifies its local mysqld against the CA (127.0.0.1 is among the certificate's
    // names), and has it re-read the files when the kubelet updates them (tls_watcher).
    auto env = [](const char* k, std::string v) { return json{{"name", k}, {"value", std::move(v)}}; };
    c["env"].push_back(env("MYSQL_TLS_CA", std::string{config::mysql_tls_ca_file}));
    c["env"].push_back(env("MYSQL_TLS_WATCH", std::string{config::mysql_tls_ca_file} + "," +
                                                  std::string{config::mysql_tls_cert_file} + "," +
                                                  std::string{config::mysql_tls_key_file}));
  }
}

}  // namespace br::render
