// Pure decisions of the reconciler: object writes, reconciler version, workload readiness.
#include "actors/operator/kube/reconcile/reconcile_plan.hpp"

#include <algorithm>

#include "config/render/names.hpp"
#include "config/render/options.hpp"

namespace br {

using nlohmann::json;

bool json_includes(const json& have, const json& want) {
  if (want.is_object()) {
    if (!have.is_object()) return want.empty();
    for (auto it = want.begin(); it != want.end(); ++it)
      if (!have.contains(it.key()) || !json_includes(have[it.key()], it.value())) return false;
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!json_includes(have[i], want[i])) return false;
    return true;
  }
  return have == want;
}

namespace {

json meta(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return nullptr;
  return obj["metadata"].value(key, json(nullptr));
}

}  // namespace

object_write plan_object_write(const json& live, const json& desired) {
  if (!live.is_object() || live.empty()) return {object_write_kind::create, desired};
  const auto kind = desired.value("kind", std::string{});
  if (kind == "PersistentVolumeClaim" || kind == "Deployment") return {};
  bool same = json_includes(meta(live, "labels"), meta(desired, "labels")) &&
              json_includes(meta(live, "annotations"), meta(desired, "annotations")) &&
              meta(live, "ownerReferences") == meta(desired, "ownerReferences");
  if (kind == "ConfigMap")
    same = same && live.value("data", json::object()) == desired.value("data", json::object());
  else if (kind == "Role")  // exactly: a rule left over would keep granting it
    same = same && live.value("rules", json::array()) == desired.value("rules", json::array());
  else if (kind == "RoleBinding")
    same = same && json_includes(live, {{"roleRef", desired.value("roleRef", json::object())},
                                        {"subjects", desired.value("subjects", json::array())}});
  else
    same = same && json_includes(live.value("spec", json::object()),
                                 desired.value("spec", json::object()));
  if (same) return {};
  json out = desired;
  out["metadata"]["resourceVersion"] = meta(live, "resourceVersion");
  // Keep labels and annotations others put on the object; ours win.
  for (const char* m : {"labels", "annotations"}) {
    json merged = meta(live, m);
    if (!merged.is_object()) merged = json::object();
    json mine = meta(desired, m);
    if (mine.is_object())
      for (auto it = mine.begin(); it != mine.end(); ++it) merged[it.key()] = it.value();
    out["metadata"][m] = merged;
  }
  if (kind == "Service" && live.contains("spec") && live["spec"].is_object())
    for (const char* k : {"clusterIP", "clusterIPs"})
      if (live["spec"].contains(k)) out["spec"][k] = live["spec"][k];
  return {object_write_kind::update, out};
}

int choose_reconciler_version(const std::optional<reconcile_info>& recorded, int64_t generation) {
  if (!recorded || !render::is_supported_reconciler_version(recorded->version))
    return render::current_reconciler_version;
  if (recorded->generation != generation) return render::current_reconciler_version;
  return recorded->version;
}

std::optional<reconcile_info> read_reconcile_info(const json& status) {
  if (!status.is_object() || !status.contains("reconcileInfo")) return std::nullopt;
  const auto& ri = status["reconcileInfo"];
  if (!ri.is_object() || !ri.contains("reconcilerVersion") || !ri.contains("generation") ||
      !ri["reconcilerVersion"].is_number_integer() || !ri["generation"].is_number_integer())
    return std::nullopt;
  return reconcile_info{ri["reconcilerVersion"].get<int>(), ri["generation"].get<int64_t>()};
}

bool deployment_ready(const json& live) {
  if (!live.is_object()) return false;
  const json st = live.value("status", json::object());
  const int64_t gen = live.contains("metadata") ? live["metadata"].value("generation", int64_t{0})
                                                 : 0;
  return st.value("observedGeneration", int64_t{0}) >= gen && gen > 0 &&
         st.value("updatedReplicas", 0) >= 1 && st.value("readyReplicas", 0) >= 1;
}

}  // namespace br

namespace br {

std::vector<std::string> my_cnf_config_maps(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) return out;
  const std::string key{render::annotation_config_hash};
  for (const auto& cm : list["items"]) {
    auto annotations = meta(cm, "annotations");
    auto name = meta(cm, "name");
    if (annotations.is_object() && annotations.contains(key) && name.is_string())
      out.push_back(name.get<std::string>());
  }
  return out;
}

}  // namespace br

namespace br {

std::map<std::string, std::vector<std::string>> pods_by_site(const json& pod_list) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& p : pod_list.value("items", json::array())) {
    if (!p.is_object() || !p.contains("metadata") || !p["metadata"].is_object()) continue;
    const auto& md = p["metadata"];
    auto labels = md.value("labels", json::object());
    if (!labels.is_object()) continue;
    auto site = labels.value(std::string{render::label_site}, "");
    auto name = md.value("name", "");
    if (!site.empty() && !name.empty()) out[site].push_back(name);
  }
  return out;
}

std::vector<std::string> stale_site_objects(const json& list,
                                            const std::vector<std::string>& sites) {
  std::vector<std::string> out;
  for (const auto& o : list.value("items", json::array())) {
    if (!o.is_object() || !o.contains("metadata") || !o["metadata"].is_object()) continue;
    auto labels = o["metadata"].value("labels", json::object());
    if (!labels.is_object()) continue;
    auto site = labels.value(std::string{render::label_site}, "");
    if (site.empty()) continue;  // group-wide objects are not a site's
    if (std::find(sites.begin(), sites.end(), site) == sites.end())
      out.push_back(o["metadata"].value("name", ""));
  }
  return out;
}

std::vector<std::string> site_objects(const json& list, const std::vector<std::string>& sites) {
  std::vector<std::string> out;
  for (const auto& o : list.value("items", json::array())) {
    if (!o.is_object() || !o.contains("metadata") || !o["metadata"].is_object()) continue;
    auto labels = o["metadata"].value("labels", json::object());
    if (!labels.is_object()) continue;
    auto site = labels.value(std::string{render::label_site}, "");
    if (!site.empty() && std::find(sites.begin(), sites.end(), site) != sites.end())
      out.push_back(o["metadata"].value("name", ""));
  }
  return out;
}

std::vector<std::string> gr_left_sites(const json& status, const std::vector<std::string>& declared) {
  std::vector<std::string> out;
  if (!status.is_object()) return out;
  const auto gr = status.value("groupReplication", json::object());
  if (!gr.is_object()) return out;
  const auto leaving = gr.value("leaving", json::array());
  if (!leaving.is_array()) return out;
  for (const auto& l : leaving) {
    if (!l.is_object() || l.value("phase", "") != "Stopped") continue;
    auto site = l.value("site", "");
    if (site.empty() || std::find(declared.begin(), declared.end(), site) != declared.end())
      continue;
    out.push_back(site);
  }
  return out;
}

}  // namespace br
