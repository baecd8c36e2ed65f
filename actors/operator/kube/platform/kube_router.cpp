// Kubernetes router: patches the role/healthy labels of a group's live pods.
#include "actors/operator/kube/platform/kube_router.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "config/render/gr_member.hpp"
#include "config/render/names.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

pod_role_labels desired_pod_labels(const std::string& site, const std::string& primary,
                                   const std::vector<std::string>& healthy_replicas,
                                   bool group_replication) {
  const std::string reader = group_replication ? "yes" : "";
  if (!primary.empty() && site == primary) return {"primary", "yes", reader};
  bool healthy =
      std::find(healthy_replicas.begin(), healthy_replicas.end(), site) != healthy_replicas.end();
  if (healthy) return {"replica", "yes", reader};
  return {"replica", "no", group_replication ? "no" : ""};
}

json pod_label_patch(const json& pod, const pod_role_labels& want) {
  const json labels = pod.is_object() && pod.contains("metadata") && pod["metadata"].is_object()
                          ? pod["metadata"].value("labels", json::object())
                          : json::object();
  auto has = [&](std::string_view key, const std::string& value) {
    auto it = labels.find(std::string{key});
    return it != labels.end() && it->is_string() && it->get<std::string>() == value;
  };
  if (has(render::label_role, want.role) && has(render::label_healthy, want.healthy) &&
      (want.reader.empty() || has(render::label_reader, want.reader)))
    return nullptr;
  json patch = {{"metadata",
                 {{"labels",
                   {{std::string{render::label_role}, want.role},
                    {std::string{render::label_healthy}, want.healthy}}}}}};
  if (!want.reader.empty())
    patch["metadata"]["labels"][std::string{render::label_reader}] = want.reader;
  return patch;
}

std::string group_pod_selector(const std::string& group) {
  return std::string{render::label_group} + "=" + group + "," + std::string{render::label_name} +
         "=mysql";
}

std::string sync_pod_labels(kube::client& c, const kube_platform_options& o,
                            const std::string& primary, const std::vector<std::string>& replicas) {
  if (!o.may_write()) return "not leading: the lease guard is not valid";
  kube::list_options lo;
  lo.label_selector = group_pod_selector(o.group);
  auto pods = c.list(kube::resources::pods, o.ns, lo, o.call_timeout);
  if (!pods) return "list pods: " + pods.error().describe();
  std::string problems;
  const bool gr = o.context && render::is_group_replication(o.context->get().spec);
  for (const auto& pod : pods->value("items", json::array())) {
    const json md = pod.value("metadata", json::object());
    auto site = md.value("labels", json::object()).value(std::string{render::label_site}, "");
    if (site.empty() || md.contains("deletionTimestamp")) continue;
    auto patch = pod_label_patch(pod, desired_pod_labels(site, primary, replicas, gr));
    if (patch.is_null()) continue;
    if (!o.may_write()) return "not leading: the lease guard is not valid";
    auto name = md.value("name", "");
    auto r = c.merge_patch(kube::resources::pods, o.ns, name, patch, {}, o.call_timeout);
    // A pod deleted meanwhile has no labels to fix; its replacement gets them on the next sync.
    if (!r && !r.error().not_found())
      problems += (problems.empty() ? "" : "; ") + ("pod " + name + ": " + r.error().describe());
  }
  return problems;
}

namespace {

router_actor::behavior_type kube_router(router_actor::pointer, kube_platform_options o) {
  return {[o](route_atom, const std::string&, const std::string& primary,
              const std::vector<std::string>& replicas) {
    auto problem = sync_pod_labels(*o.client, o, primary, replicas);
    if (!problem.empty())
      log::warn("pod labels not synced",
                {{"group", o.group}, {"namespace", o.ns}, {"primary", primary}, {"error", problem}});
    return problem.empty();
  }};
}

}  // namespace

router_actor spawn_kube_router(caf::actor_system& sys, kube_platform_options o) {
  return sys.spawn<caf::detached>(kube_router, std::move(o));
}

}  // namespace br
