// Reading Jobs and their pods' termination messages (see job_status.hpp).
#include "actors/operator/kube/backup/job_status.hpp"

namespace br::backup_ctl {

job_view view_job(const json* job) {
  job_view v;
  if (!job) return v;
  v.exists = true;
  const json st = job->value("status", json::object());
  if (st.value("succeeded", 0) > 0) v.succeeded = true;
  for (const auto& cnd : st.value("conditions", json::array())) {
    if (cnd.value("status", "") != "True") continue;
    if (cnd.value("type", "") == "Complete") v.succeeded = true;
    if (cnd.value("type", "") == "Failed") {
      v.failed = true;
      v.message = cnd.value("message", cnd.value("reason", ""));
    }
  }
  const json ann = (*job)["metadata"].value("annotations", json::object());
  v.source_site = ann.value(std::string{annotation_source}, "");
  v.active_site = ann.value(std::string{annotation_active}, "");
  return v;
}

std::string newest_termination_message(kube::client& c, const std::string& ns,
                                       const std::string& selector, std::string& error) {
  kube::list_options lo;
  lo.label_selector = selector;
  auto pods = c.list(kube::resources::pods, ns, lo);
  if (!pods) {
    error = pods.error().describe();
    return {};
  }
  std::string best, best_time;
  for (const auto& p : (*pods)["items"])
    for (const auto& cs : p.value("status", json::object()).value("containerStatuses", json::array())) {
      const json t = cs.value("state", json::object()).value("terminated", json::object());
      if (!t.contains("message")) continue;
      std::string at = t.value("finishedAt", "");
      if (best.empty() || at > best_time) {
        best = t.value("message", "");
        best_time = at;
      }
    }
  return best;
}

}  // namespace br::backup_ctl
