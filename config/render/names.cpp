// Names, label keys and common metadata of the Kubernetes objects the operator owns for a group.
#include "config/render/names.hpp"

namespace br::render {

std::string site_name(std::string_view group, std::string_view site) {
  return "mysql-" + std::string{group} + "-" + std::string{site};
}

std::string pvc_name(std::string_view group, std::string_view site) {
  return site_name(group, site) + "-data";
}

std::string primary_service_name(std::string_view group) {
  return "mysql-" + std::string{group} + "-primary";
}

std::string replicas_service_name(std::string_view group) {
  return "mysql-" + std::string{group} + "-replicas";
}

std::string readers_service_name(std::string_view group) {
  return "mysql-" + std::string{group} + "-readers";
}

std::string pdb_name(std::string_view group) {
  return "mysql-" + std::string{group};
}

std::string dns_endpoint_name(std::string_view group) {
  return "bloodraven-" + std::string{group};
}

std::string keys_secret(std::string_view group) {
  return "mysql-" + std::string{group} + "-keys";
}

std::string taint_key(std::string_view group) {
  return "shipstream.io/db-readonly-" + std::string{group};
}

std::string site_service_host(std::string_view group, std::string_view site,
                              std::string_view namespace_name) {
  return site_name(group, site) + "." + std::string{namespace_name} + ".svc.cluster.local";
}

std::string sidecar_peer_address(std::string_view group, std::string_view site,
                                 std::string_view namespace_name) {
  return site_service_host(group, site, namespace_name) + ":" + std::to_string(sidecar_port);
}

std::string gr_local_address(std::string_view group, std::string_view site,
                             std::string_view namespace_name) {
  return site_service_host(group, site, namespace_name) + ":" + std::to_string(mysql_port);
}

json standard_labels(std::string_view group, std::string_view site) {
  json labels = {{label_name, "mysql"},
                 {label_instance, group},
                 {label_group, group},
                 {label_managed_by, "bloodraven"}};
  if (!site.empty()) labels[std::string{label_site}] = site;
  return labels;
}

json owner_reference(const config::failover_group& g) {
  return {{"apiVersion", g.api_version}, {"kind", g.kind},     {"name", g.metadata.name},
          {"uid", g.metadata.uid},       {"controller", true}, {"blockOwnerDeletion", true}};
}

json object_metadata(const config::failover_group& g, const std::string& name,
                     std::string_view site, int reconciler_version) {
  return {{"name", name},
          {"namespace", g.metadata.namespace_name},
          {"labels", standard_labels(g.metadata.name, site)},
          {"annotations", {{annotation_reconciler_version, std::to_string(reconciler_version)}}},
          {"ownerReferences", json::array({owner_reference(g)})}};
}

}  // namespace br::render
