// Dragonfly's Kubernetes objects for a group with spec.dragonfly.enabled.
#include "config/render/dragonfly.hpp"

#include <set>

#include "config/render/dragonfly_args.hpp"
#include "config/render/names.hpp"

namespace br::render {
namespace {

using json = nlohmann::json;

json metadata(const config::failover_group& g, const std::string& name, std::string_view site,
              const render_options& opts) {
  json md = object_metadata(g, name, site, opts.reconciler_version);
  md["labels"] = dragonfly_labels(g.metadata.name, site);
  return md;
}

json tcp_probe(int initial_delay, int period) {
  return {{"tcpSocket", {{"port", "client"}}},
          {"initialDelaySeconds", initial_delay},
          {"periodSeconds", period}};
}

json container(const config::failover_group& g) {
  const auto& d = g.spec.dragonfly;
  json c = {{"name", dragonfly_container},
            {"image", d.image},
            {"args", dragonfly_args(d)},
            {"ports",
             json::array({{{"name", "client"}, {"containerPort", d.port}, {"protocol", "TCP"}},
                          {{"name", "admin"}, {"containerPort", d.admin_port}, {"protocol", "TCP"}}})},
            {"livenessProbe", tcp_probe(5, 10)},
            {"readinessProbe", tcp_probe(2, 5)},
            {"volumeMounts", json::array({{{"name", "data"}, {"mountPath", "/data"}}})},
            {"securityContext",
             {{"allowPrivilegeEscalation", false},
              {"capabilities", {{"drop", json::array({"ALL"})}}}}}};
  if (d.auth)
    c["env"] = json::array({{{"name", dragonfly_password_env},
                             {"valueFrom",
                              {{"secretKeyRef",
                                {{"name", d.auth->secret_name}, {"key", d.auth->password_key}}}}}}});
  return c;
}

json stateful_set(const config::failover_group& g, const config::site_spec& site,
                  const render_options& opts) {
  const auto& group = g.metadata.name;
  const auto name = dragonfly_site_name(group, site.name);
  json pod_labels = dragonfly_labels(group, site.name);
  pod_labels[std::string{label_dragonfly_role}] = "replica";
  pod_labels[std::string{label_dragonfly_traffic}] = "enabled";
  json pod_spec = {
      {"automountServiceAccountToken", false},
      {"securityContext", {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", json::array({container(g)})},
      // Cache state only: lost with the pod (the replica resyncs from the master).
      {"volumes", json::array({{{"name", "data"}, {"emptyDir", json::object()}}})},
      // Dragonfly follows the active site; the readonly taint is for write-dependent apps.
      {"tolerations",
       json::array({{{"key", taint_key(group)}, {"operator", "Exists"}, {"effect", "NoExecute"}}})},
  };
  if (!site.zone.empty()) pod_spec["nodeSelector"] = {{"topology.kubernetes.io/zone", site.zone}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", metadata(g, name, site.name, opts)},
          {"spec",
           {{"replicas", 1},
            {"serviceName", name},
            {"selector", {{"matchLabels", dragonfly_labels(group, site.name)}}},
            {"template", {{"metadata", {{"labels", pod_labels}}}, {"spec", pod_spec}}}}}};
}

json service_port(const char* name, int number) {
  return {{"name", name}, {"port", number}, {"targetPort", name}, {"protocol", "TCP"}};
}

json service(json md, json selector, json ports) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", std::move(md)},
          {"spec", {{"type", "ClusterIP"}, {"selector", std::move(selector)}, {"ports", std::move(ports)}}}};
}

}  // namespace

std::string dragonfly_site_name(std::string_view group, std::string_view site) {
  return std::string{group} + "-dragonfly-" + std::string{site};
}

std::string dragonfly_active_service_name(std::string_view group) {
  return std::string{group} + "-dragonfly";
}

json dragonfly_labels(std::string_view group, std::string_view site) {
  json labels = standard_labels(group, site);
  labels[std::string{label_name}] = "dragonfly";
  return labels;
}

std::string dragonfly_selector(std::string_view group) {
  return std::string{label_name} + "=dragonfly," + std::string{label_group} + "=" +
         std::string{group} + "," + std::string{label_managed_by} + "=bloodraven";
}

render_result render_dragonfly(const config::failover_group& g, const render_options& opts) {
  render_result r;
  const auto& d = g.spec.dragonfly;
  if (!d.enabled) return r;
  const auto& group = g.metadata.name;
  for (std::size_t i = 0; i < g.spec.sites.size(); ++i) {
    // A StatefulSet's pods carry controller-revision-hash=<name>-<10 characters>, a label value
    // (at most 63).
    auto name = dragonfly_site_name(group, g.spec.sites[i].name);
    if (name.size() > 52)
      r.errors.push_back({"spec.sites[" + std::to_string(i) + "].name",
                          "derived Dragonfly StatefulSet name \"" + name + "\" is " +
                              std::to_string(name.size()) +
                              " characters; shorten the group or site name (limit 52)"});
  }
  if (!r.errors.empty()) return r;
  for (const auto& site : g.spec.sites) {
    const auto name = dragonfly_site_name(group, site.name);
    r.objects.push_back(stateful_set(g, site, opts));
    r.objects.push_back(service(metadata(g, name, site.name, opts), dragonfly_labels(group, site.name),
                                json::array({service_port("client", d.port),
                                             service_port("admin", d.admin_port)})));
    r.objects.push_back({{"apiVersion", "policy/v1"},
                         {"kind", "PodDisruptionBudget"},
                         {"metadata", metadata(g, name, site.name, opts)},
                         {"spec",
                          {{"minAvailable", 1},
                           {"selector", {{"matchLabels", dragonfly_labels(group, site.name)}}}}}});
  }
  json active = dragonfly_labels(group);
  active[std::string{label_dragonfly_role}] = "master";
  active[std::string{label_dragonfly_traffic}] = "enabled";
  r.objects.push_back(service(metadata(g, dragonfly_active_service_name(group), {}, opts),
                              std::move(active), json::array({service_port("client", d.port)})));
  return r;
}

std::vector<std::string> stale_dragonfly_objects(const nlohmann::json& live, std::string_view kind,
                                                 const std::vector<nlohmann::json>& desired) {
  std::set<std::pair<std::string, std::string>> keep;
  for (const auto& obj : desired)
    keep.emplace(obj.value("kind", ""), obj["metadata"].value("name", ""));
  std::vector<std::string> out;
  if (!live.is_object() || !live.contains("items") || !live["items"].is_array()) return out;
  for (const auto& item : live["items"]) {
    if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object()) continue;
    auto name = item["metadata"].value("name", "");
    if (!name.empty() && !keep.contains({std::string{kind}, name})) out.push_back(name);
  }
  return out;
}

}  // namespace br::render
