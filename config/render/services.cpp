// Services (per site, primary, replicas, readers) and the group's PodDisruptionBudget.
#include "config/render/services.hpp"

#include "config/render/gr_member.hpp"
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

/// Version 5: a Service template's labels, annotations, type, externalTrafficPolicy and extra
/// ports (validation keeps the operator's keys, names and ports out of them).
json templated(json svc, const std::optional<config::service_template_spec>& t, int version) {
  if (!t || version < 5) return svc;
  auto& md = svc["metadata"];
  for (const auto& [k, v] : t->labels) md["labels"][k] = v;
  for (const auto& [k, v] : t->annotations) md["annotations"][k] = v;
  auto& spec = svc["spec"];
  spec["type"] = t->type;
  if (!t->external_traffic_policy.empty())
    spec["externalTrafficPolicy"] = t->external_traffic_policy;
  for (const auto& p : t->ports) {
    json port = {{"name", p.name},
                 {"port", p.port},
                 {"targetPort", p.target_port.value_or(p.port)},
                 {"protocol", p.protocol}};
    if (p.node_port) port["nodePort"] = *p.node_port;
    spec["ports"].push_back(std::move(port));
  }
  return svc;
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
  json ports = json::array({port("mysql", mysql_port), port("sidecar", sidecar_port)});
  const bool gr = is_group_replication(g.spec);
  // Group Replication: the members reach each other's group communication on the mysql port
  // (the MySQL communication stack), joiners and recovering members included (hence not-ready
  // addresses too).
  json svc = templated(
      service(object_metadata(g, site_name(group, site), site, opts.reconciler_version),
              std::move(selector), std::move(ports), true),
      g.spec.sites.at(site_index).service_template, opts.reconciler_version);
  // Headless in Group Replication mode: the name resolves to the pod's own address, which is
  // what group_replication_local_address needs (the member checks it reaches itself there) and
  // what the other members' distributed recovery connects to (report_host).
  if (gr) svc["spec"]["clusterIP"] = "None";
  return svc;
}

json render_primary_service(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_role}] = "primary";
  return templated(
      service(object_metadata(g, primary_service_name(group), {}, opts.reconciler_version),
              std::move(selector), json::array({port("mysql", mysql_port)}), false),
      g.spec.primary_service_template, opts.reconciler_version);
}

json render_replicas_service(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_role}] = "replica";
  selector[std::string{label_healthy}] = "yes";
  return templated(
      service(object_metadata(g, replicas_service_name(group), {}, opts.reconciler_version),
              std::move(selector), json::array({port("mysql", mysql_port)}), false),
      g.spec.replica_service_template, opts.reconciler_version);
}

json render_readers_service(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json selector = group_selector(group);
  selector[std::string{label_reader}] = "yes";
  // Only the router's verdict (every ONLINE member) puts a pod here; never not-ready addresses.
  return service(object_metadata(g, readers_service_name(group), {}, opts.reconciler_version),
                 std::move(selector), json::array({port("mysql", mysql_port)}), false);
}

json render_pdb(const config::failover_group& g, const render_options& opts) {
  const auto& group = g.metadata.name;
  json spec = {{"selector", {{"matchLabels", group_selector(group)}}}};
  // Group Replication: a voluntary disruption (a drain) may take members only while the rest
  // keep the group's majority (issue 23's quorum guard). Async: one pod of the group stays up.
  if (is_group_replication(g.spec))
    spec["maxUnavailable"] = config::gr_pdb_max_unavailable(g.spec.sites.size());
  else
    spec["minAvailable"] = 1;
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", object_metadata(g, pdb_name(group), {}, opts.reconciler_version)},
          {"spec", std::move(spec)}};
}

}  // namespace br::render
