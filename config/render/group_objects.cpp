// Everything the operator owns for one group, rendered from its spec in apply order.
#include "config/render/group_objects.hpp"

#include <set>

#include "config/render/accounts.hpp"
#include "config/render/content_hash.hpp"
#include "config/render/gr_member.hpp"
#include "config/render/my_cnf.hpp"
#include "config/render/names.hpp"
#include "config/render/services.hpp"
#include "config/render/workload.hpp"

namespace br::render {
namespace {

// Service names are DNS-1035 labels: at most 63 characters.
void check_names(const config::failover_group& g, config::field_errors& errs) {
  const auto& group = g.metadata.name;
  auto check = [&](const std::string& path, const std::string& name) {
    if (name.size() > 63)
      errs.push_back({path, "derived Service name \"" + name + "\" is " +
                                std::to_string(name.size()) +
                                " characters; shorten the group or site name (limit 63)"});
  };
  check("metadata.name", replicas_service_name(group));
  for (std::size_t i = 0; i < g.spec.sites.size(); ++i) {
    const auto& site = g.spec.sites[i].name;
    std::string path = "spec.sites[" + std::to_string(i) + "].name";
    check(path, site_name(group, site));
    // The site Service would be the group's primary or replicas Service.
    if (site == "primary" || site == "replicas" ||
        (site == "readers" && is_group_replication(g.spec)))
      errs.push_back({path, "site name \"" + site + "\" is reserved (mysql-<group>-" + site +
                                " is a group Service)"});
  }
}

}  // namespace

render_result render_group(const config::failover_group& g, const render_options& opts) {
  render_result r;
  if (!is_supported_reconciler_version(opts.reconciler_version))
    r.errors.push_back({"metadata.annotations", "reconciler version " +
                                                    std::to_string(opts.reconciler_version) +
                                                    " is not supported by this operator"});
  check_names(g, r.errors);
  const auto& sites = g.spec.sites;
  std::vector<std::string> contents;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    auto cnf = render_my_cnf(g, i);
    // Group-level mysqlConf errors repeat for every site; report them once.
    for (auto& e : cnf.errors)
      if (i == 0 || e.path.starts_with("spec.sites[")) r.errors.push_back(std::move(e));
    contents.push_back(std::move(cnf.content));
  }
  if (!r.errors.empty()) return r;

  if (opts.reconciler_version >= 5) {
    r.objects.push_back(render_service_account(g, opts.reconciler_version));
    r.objects.push_back(render_init_config_map(g, opts.reconciler_version));
  }
  for (std::size_t i = 0; i < sites.size(); ++i)
    r.objects.push_back(render_config_map(g, i, contents[i], opts.reconciler_version));
  for (std::size_t i = 0; i < sites.size(); ++i) r.objects.push_back(render_pvc(g, i, opts));
  for (std::size_t i = 0; i < sites.size(); ++i)
    r.objects.push_back(
        render_deployment(g, i, config_map_name(g.metadata.name, sites[i].name, contents[i]),
                          content_hash(contents[i]), opts));
  for (std::size_t i = 0; i < sites.size(); ++i)
    r.objects.push_back(render_site_service(g, i, opts));
  r.objects.push_back(render_primary_service(g, opts));
  r.objects.push_back(render_replicas_service(g, opts));
  if (is_group_replication(g.spec)) r.objects.push_back(render_readers_service(g, opts));
  r.objects.push_back(render_pdb(g, opts));
  return r;
}

std::vector<std::string> unused_config_maps(const std::vector<std::string>& live_config_maps,
                                            const std::vector<nlohmann::json>& live_deployments,
                                            const std::vector<nlohmann::json>& desired) {
  std::set<std::string> keep;
  for (const auto& obj : desired)
    if (obj.value("kind", "") == "ConfigMap") keep.insert(obj["metadata"].value("name", ""));
  nlohmann::json::json_pointer volumes{"/spec/template/spec/volumes"};
  for (const auto& d : live_deployments) {
    if (!d.is_object() || !d.contains(volumes) || !d.at(volumes).is_array()) continue;
    for (const auto& v : d.at(volumes))
      if (v.is_object() && v.contains("configMap") && v["configMap"].is_object())
        keep.insert(v["configMap"].value("name", ""));
  }
  std::vector<std::string> out;
  for (const auto& name : live_config_maps)
    if (!keep.contains(name)) out.push_back(name);
  return out;
}

}  // namespace br::render
