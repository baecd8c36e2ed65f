// The group's pods' gr-observed annotations as wake-ups (see gr_pod_doorbell.hpp).
#include "actors/operator/decide/gr_pod_doorbell.hpp"

#include "config/render/member_rbac.hpp"  // the annotation's name only (a constant)

namespace br {

bool gr_pod_doorbell_tracker::on_event(const std::string& type, const nlohmann::json& pod) {
  if (!pod.is_object() || !pod.contains("metadata") || !pod["metadata"].is_object()) return false;
  const auto& md = pod["metadata"];
  if (!md.contains("name") || !md["name"].is_string()) return false;
  const auto name = md["name"].get<std::string>();
  if (type == "DELETED") {
    seen_.erase(name);
    return false;
  }
  if (type != "ADDED" && type != "MODIFIED") return false;
  std::string value;
  const auto annotations = md.value("annotations", nlohmann::json::object());
  if (annotations.is_object() && annotations.contains(render::gr_observed_annotation) &&
      annotations[render::gr_observed_annotation].is_string())
    value = annotations[render::gr_observed_annotation].get<std::string>();
  if (value.empty()) return false;
  auto it = seen_.find(name);
  if (it != seen_.end() && it->second == value) return false;
  seen_[name] = value;
  return true;
}

}  // namespace br
