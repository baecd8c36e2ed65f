// Traffic steering objects: the external-dns DNSEndpoint and the per-site node taints.
#include "config/render/traffic.hpp"

#include "config/render/names.hpp"

namespace br::render {

std::optional<json> render_dns_endpoint(const config::failover_group& g,
                                        std::string_view active_site, const render_options& opts) {
  const auto* site = active_site.empty() ? nullptr : config::find_site(g.spec, active_site);
  if (!site || site->role != site_role::primary_candidate || site->lb_ip.empty())
    return std::nullopt;
  json endpoint = {{"dnsName", g.spec.dns.hostname},
                   {"recordType", "A"},
                   {"recordTTL", g.spec.dns.ttl},
                   {"targets", json::array({site->lb_ip})}};
  return json{{"apiVersion", "externaldns.k8s.io/v1alpha1"},
              {"kind", "DNSEndpoint"},
              {"metadata",
               object_metadata(g, dns_endpoint_name(g.metadata.name), {}, opts.reconciler_version)},
              {"spec", {{"endpoints", json::array({std::move(endpoint)})}}}};
}

json readonly_taint(std::string_view group) {
  return {{"key", taint_key(group)}, {"value", "true"}, {"effect", "NoExecute"}};
}

std::vector<site_taint> plan_taints(const config::group_spec& spec, std::string_view active_site) {
  std::vector<site_taint> out;
  if (active_site.empty()) return out;
  for (const auto& s : spec.sites) {
    if (s.role == site_role::read_only || s.taint_node_selector.empty()) continue;
    out.push_back({s.name, s.taint_node_selector, s.name != active_site});
  }
  return out;
}

json with_readonly_taint(const json& node_taints, std::string_view group, bool present) {
  std::string key = taint_key(group);
  json out = json::array();
  if (node_taints.is_array())
    for (const auto& t : node_taints)
      if (!(t.is_object() && t.value("key", "") == key && t.value("effect", "") == "NoExecute"))
        out.push_back(t);
  if (present) out.push_back(readonly_taint(group));
  return out;
}

}  // namespace br::render
