// Kubernetes node taints: read-modify-write of spec.taints on the nodes a site's selector picks.
#include "actors/operator/kube/platform/kube_taints.hpp"

#include <caf/all.hpp>

#include "config/group_validate.hpp"
#include "config/render/names.hpp"
#include "config/render/traffic.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

std::string label_selector(const config::string_map& selector) {
  std::string out;
  for (const auto& [k, v] : selector) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

bool has_readonly_taint(const json& node_taints, const std::string& group) {
  if (!node_taints.is_array()) return false;
  auto want = render::readonly_taint(group);
  for (const auto& t : node_taints)
    if (t.is_object() && t.value("key", "") == want["key"] &&
        t.value("effect", "") == want["effect"] && t.value("value", "") == want["value"])
      return true;
  return false;
}

bool may_taint_node(const json& node_labels, const std::string& group, const std::string& site) {
  if (!node_labels.is_object()) return false;
  auto it = node_labels.find(config::site_node_label(group));
  return it != node_labels.end() && it->is_string() && it->get<std::string>() == site;
}

std::string set_nodes_taint(kube::client& c, const kube_platform_options& o,
                            const std::string& site, const config::string_map& selector,
                            bool present, size_t* written) {
  if (written) *written = 0;
  if (selector.empty()) return "";
  if (!o.may_write()) return "not leading: the lease guard is not valid";
  kube::list_options lo;
  lo.label_selector = label_selector(selector);
  auto nodes = c.list(kube::resources::nodes, "", lo, o.call_timeout);
  if (!nodes) return "list nodes: " + nodes.error().describe();
  std::string problems;
  for (const auto& node : nodes->value("items", json::array())) {
    auto name = node["metadata"].value("name", "");
    bool outside = false;
    bool wrote = false;
    kube::retry_options ro;
    ro.attempts = 5;
    auto r = kube::update_with_retry(
        [&]() { return c.get(kube::resources::nodes, "", name, o.call_timeout); },
        [&](json& obj) {
          json taints = obj.contains("spec") ? obj["spec"].value("taints", json::array())
                                             : json::array();
          if (has_readonly_taint(taints, o.group) == present) return false;
          if (!o.may_write()) return false;
          json labels = obj.contains("metadata") ? obj["metadata"].value("labels", json::object())
                                                 : json::object();
          if (present && !may_taint_node(labels, o.group, site)) {
            outside = true;
            return false;
          }
          obj["spec"]["taints"] = render::with_readonly_taint(taints, o.group, present);
          wrote = true;
          return true;
        },
        [&](const json& obj) { return c.update(kube::resources::nodes, obj, o.call_timeout); },
        ro);
    if (r && wrote && written) ++*written;
    if (!r && !r.error().not_found())
      problems += (problems.empty() ? "" : "; ") + ("node " + name + ": " + r.error().describe());
    else if (outside)
      problems += (problems.empty() ? "" : "; ") +
                  ("node " + name + " not tainted: it lacks the label " +
                   config::site_node_label(o.group) + "=" + site);
  }
  if (problems.empty() && !o.may_write()) return "not leading: the lease guard is not valid";
  return problems;
}

namespace {

taint_actor::behavior_type kube_taints(taint_actor::pointer, kube_platform_options o) {
  return {[o](taint_atom, const std::string&, const std::string& site, bool on) {
    auto g = o.context ? o.context->get() : config::failover_group{};
    const auto* s = config::find_site(g.spec, site);
    if (!s || s->role == site_role::read_only || s->taint_node_selector.empty()) return true;
    size_t written = 0;
    auto problem = set_nodes_taint(*o.client, o, site, s->taint_node_selector, on, &written);
    json f = {{"group", o.group}, {"namespace", o.ns}, {"site", site}, {"taint", on}};
    if (!problem.empty()) {
      f["error"] = problem;
      log::warn("node taint not applied", f);
      return false;
    }
    // Asked on every poll: said at info only when a node changed.
    f["nodes"] = written;
    if (written > 0)
      log::info(on ? "site nodes tainted" : "site nodes untainted", f);
    else
      log::debug(on ? "site nodes already tainted" : "site nodes already untainted", f);
    return true;
  }};
}

}  // namespace

taint_actor spawn_kube_taints(caf::actor_system& sys, kube_platform_options o) {
  return sys.spawn<caf::detached>(kube_taints, std::move(o));
}

}  // namespace br
