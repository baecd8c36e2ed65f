// Deleting a group: untaint every site's nodes, then drop the graceful-shutdown finalizer.
#include "actors/operator/kube/platform/kube_finalizer.hpp"

#include "actors/operator/kube/platform/kube_taints.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/render/names.hpp"
#include "io/kube/retry.hpp"

namespace br {

using nlohmann::json;

std::optional<json> without_finalizer(const json& finalizers, std::string_view name) {
  if (!finalizers.is_array()) return std::nullopt;
  json out = json::array();
  bool found = false;
  for (const auto& f : finalizers) {
    if (f.is_string() && f.get<std::string>() == name)
      found = true;
    else
      out.push_back(f);
  }
  if (!found) return std::nullopt;
  return out;
}

std::string finalize_group(kube::client& c, const kube_platform_options& o,
                           const config::group_spec& spec,
                           const std::function<void()>& before_release) {
  std::string problems;
  for (const auto& s : spec.sites) {
    auto p = set_nodes_taint(c, o, s.name, s.taint_node_selector, false);
    if (!p.empty()) problems += (problems.empty() ? "" : "; ") + ("site " + s.name + ": " + p);
  }
  if (!problems.empty()) return problems;
  if (before_release) before_release();
  auto r = kube::update_with_retry(
      [&]() { return c.get(mfg_resource, o.ns, o.group, o.call_timeout); },
      [&](json& obj) {
        auto next = without_finalizer(obj["metadata"].value("finalizers", json::array()),
                                      render::finalizer_graceful_shutdown);
        if (!next || !o.may_write()) return false;
        obj["metadata"]["finalizers"] = *next;
        return true;
      },
      [&](const json& obj) { return c.update(mfg_resource, obj, o.call_timeout); });
  if (!r && !r.error().not_found()) return "finalizer: " + r.error().describe();
  return o.may_write() ? "" : "not leading: the lease guard is not valid";
}

}  // namespace br
