// Kubernetes mode's Dragonfly traffic label (see dragonfly_labels.hpp).
#include "actors/operator/decide/dragonfly_labels.hpp"

namespace br::dragonfly {

label_plan plan_master_labels(const std::vector<cache_pod>& pods, const std::string& master) {
  label_plan p;
  for (const auto& pod : pods)
    if (pod.site != master && pod.role != role_replica) p.writes.push_back({pod.name, role_replica, ""});
  const cache_pod* target = nullptr;
  for (const auto& pod : pods)
    if (pod.site == master && !pod.terminating) target = &pod;
  if (!target) {
    p.problem = "no live pod for site " + master;
    return p;
  }
  // A terminating pod of the master's site is left as it is: it is going away.
  label_write w{target->name, target->role == role_master ? "" : role_master,
                target->traffic == traffic_enabled ? "" : traffic_enabled};
  if (!w.role.empty() || !w.traffic.empty()) p.writes.push_back(std::move(w));
  return p;
}

label_plan plan_strip_labels(const std::vector<cache_pod>& pods, const std::string& site) {
  label_plan p;
  for (const auto& pod : pods)
    if (pod.site == site && pod.traffic != traffic_disabled) p.writes.push_back({pod.name, "", traffic_disabled});
  return p;
}

}  // namespace br::dragonfly
