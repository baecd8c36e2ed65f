// Kubernetes mode's Dragonfly traffic label (see dragonfly_pods.hpp).
#include "actors/operator/kube/platform/dragonfly_pods.hpp"

#include "actors/operator/decide/dragonfly_labels.hpp"
#include "config/render/dragonfly.hpp"
#include "config/render/names.hpp"

namespace br {

using nlohmann::json;

namespace {

/// The group's cache pods, or why they could not be listed.
std::string list_cache_pods(kube::client& c, const kube_platform_options& o, std::vector<dragonfly::cache_pod>& out) {
  kube::list_options lo;
  lo.label_selector = render::dragonfly_selector(o.group);
  auto pods = c.list(kube::resources::pods, o.ns, lo, o.call_timeout);
  if (!pods) return "list cache pods: " + pods.error().describe();
  for (const auto& pod : pods->value("items", json::array())) {
    const json md = pod.value("metadata", json::object());
    const json labels = md.value("labels", json::object());
    dragonfly::cache_pod p;
    p.name = md.value("name", "");
    p.site = labels.value(std::string{render::label_site}, "");
    p.role = labels.value(std::string{render::label_dragonfly_role}, "");
    p.traffic = labels.value(std::string{render::label_dragonfly_traffic}, "");
    p.terminating = md.contains("deletionTimestamp");
    out.push_back(std::move(p));
  }
  return "";
}

std::string run(kube::client& c, const kube_platform_options& o, const dragonfly::label_plan& plan) {
  for (const auto& w : plan.writes) {
    if (!o.may_write()) return "not leading: the lease guard is not valid";
    json labels = json::object();
    if (!w.role.empty()) labels[std::string{render::label_dragonfly_role}] = w.role;
    if (!w.traffic.empty()) labels[std::string{render::label_dragonfly_traffic}] = w.traffic;
    auto r = c.merge_patch(kube::resources::pods, o.ns, w.pod, {{"metadata", {{"labels", labels}}}}, {}, o.call_timeout);
    // A pod deleted meanwhile carries no label any more; its replacement starts from the template.
    if (!r && !r.error().not_found()) return "pod " + w.pod + ": " + r.error().describe();
  }
  return plan.problem;
}

template <class Plan>
std::string plan_and_run(kube::client& c, const kube_platform_options& o, const std::string& site, Plan plan) {
  if (!o.may_write()) return "not leading: the lease guard is not valid";
  std::vector<dragonfly::cache_pod> pods;
  if (auto problem = list_cache_pods(c, o, pods); !problem.empty()) return problem;
  return run(c, o, plan(pods, site));
}

}  // namespace

std::string label_dragonfly_master(kube::client& c, const kube_platform_options& o, const std::string& site) {
  return plan_and_run(c, o, site, dragonfly::plan_master_labels);
}

std::string strip_dragonfly_traffic(kube::client& c, const kube_platform_options& o, const std::string& site) {
  return plan_and_run(c, o, site, dragonfly::plan_strip_labels);
}

dragonfly::pod_traffic dragonfly_pod_traffic(kube_platform_options o) {
  dragonfly::pod_traffic t;
  t.label_master = [o](const std::string& site) { return label_dragonfly_master(*o.client, o, site); };
  t.strip = [o](const std::string& site) { return strip_dragonfly_traffic(*o.client, o, site); };
  return t;
}

}  // namespace br
