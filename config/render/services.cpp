// Services (per site, primary, replicas) and the group's PodDisruptionBudget.
#include "config/render/services.hpp"

#include "config/render/names.hpp"

namespace br::render {
namespace {

json group_selector(const std::string& group) {
  return {{label_name, "mysql"}, {label_group, group}};
}

json port(const char* name, int number) {
  return {{"name", name}, {"port", number}, {"targetPort", name}, {"protocol", "TCP"}};
}

json service(json metadata, json selector, json ports, bool publish_not_ready) {
  json spec = {
      {"type", "ClusterIP"}, {"selector", std::move(selector)}, {"ports", std::move(ports)}};
  if (publish_not_ready) spec["publishNotReadyAddresses"] = true;
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)}};
}

}  // namespace

json render_site_service(const config::failover_group& g, std::size_t site_index,
                         const render_options& opts) {
  const auto& site = g.spec.sites.at(site_index).name;
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_site}] = site;
  // Peers must reach a sidecar whose mysqld is down (pod not Ready): the lease rule counts a
  // reachable peer sidecar, and hiding it could make a healthy primary fence itself.
  return service(object_metadata(g, site_name(group, site), site, opts.reconciler_version),
                 std::move(selector),
                 json::array({port("mysql", mysql_port), port("sidecar", sidecar_port)}), true);
}

json render_primary_service(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_role}] = "primary";
  return service(object_metadata(g, primary_service_name(group), {}, opts.reconciler_version),
                 std::move(selector), json::array({port("mysql", mysql_port)}), false);
}

json render_replicas_service(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_role}] = "replica";
  selector[std::string{label_healthy}] = "yes";
  return service(object_metadata(g, replicas_service_name(group), {}, opts.reconciler_version),
                 std::move(selector), json::array({port("mysql", mysql_port)}), false);
}

json render_pdb(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", object_metadata(g, pdb_name(group), {}, opts.reconciler_version)},
          {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", group_selector(group)}}}}}};
}

}  // namespace br::render
