// Whether a live workload must be replaced by its newly rendered form.
#include "config/render/rollout.hpp"

#include "config/render/content_hash.hpp"
#include "config/render/names.hpp"

namespace br::render {
namespace {

using json = nlohmann::json;

// Missing members read as "" so an object from an older operator compares as changed.
std::string string_at(const json& doc, const json::json_pointer& p) {
  if (!doc.is_object() || !doc.contains(p)) return {};
  const auto& v = doc.at(p);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string annotation(const json& obj, std::string_view key) {
  return string_at(obj, json::json_pointer{"/metadata/annotations"} / std::string{key});
}

std::string pod_annotation(const json& obj, std::string_view key) {
  return string_at(obj,
                   json::json_pointer{"/spec/template/metadata/annotations"} / std::string{key});
}

std::string container_image(const json& obj, std::string_view name) {
  json::json_pointer p{"/spec/template/spec/containers"};
  if (!obj.is_object() || !obj.contains(p) || !obj.at(p).is_array()) return {};
  for (const auto& c : obj.at(p))
    if (c.is_object() && c.value("name", "") == name) return c.value("image", "");
  return {};
}

}  // namespace

std::string workload_spec_hash(const json& deployment) {
  json spec = deployment.value("spec", json::object());
  if (spec.contains("template") && spec["template"].is_object()) {
    auto& tmpl = spec["template"];
    if (tmpl.contains("metadata")) {
      auto& meta = tmpl["metadata"];
      if (meta.contains("labels") && meta["labels"].is_object()) {
        meta["labels"].erase(std::string{label_role});
        meta["labels"].erase(std::string{label_healthy});
      }
      if (meta.contains("annotations") && meta["annotations"].is_object())
        meta["annotations"].erase(std::string{annotation_config_hash});
    }
    auto& pod = tmpl["spec"];
    if (pod.is_object() && pod.contains("containers") && pod["containers"].is_array())
      for (auto& c : pod["containers"])
        if (c.is_object() && c.value("name", "") == sidecar_container) c.erase("image");
    if (pod.is_object() && pod.contains("volumes") && pod["volumes"].is_array())
      for (auto& v : pod["volumes"])
        if (v.is_object() && v.contains("configMap") && v["configMap"].is_object())
          v["configMap"].erase("name");
  }
  // dump() of nlohmann::json orders object keys, so equal specs give equal text.
  return content_hash(spec.dump());
}

rollout_decision needs_rollout(const json& live, const json& desired) {
  rollout_decision d;
  if (!live.is_object() || live.empty()) {
    d.needed = true;
    d.reasons.push_back("absent");
    return d;
  }
  if (annotation(live, annotation_spec_hash) != annotation(desired, annotation_spec_hash))
    d.reasons.push_back("spec");
  if (pod_annotation(live, annotation_config_hash) !=
      pod_annotation(desired, annotation_config_hash))
    d.reasons.push_back("config");
  if (annotation(live, annotation_reconciler_version) !=
      annotation(desired, annotation_reconciler_version))
    d.reasons.push_back("reconciler-version");
  if (container_image(live, sidecar_container) != container_image(desired, sidecar_container))
    d.reasons.push_back("sidecar-image");
  d.needed = !d.reasons.empty();
  return d;
}

}  // namespace br::render
