// GET /pitr-cutoff from Succeeded MysqlBackups (see pitr_catalogue.hpp).
#include "actors/operator/kube/backup/pitr_catalogue.hpp"

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "config/rfc3339.hpp"

namespace br::backup_ctl {

pitr_answer pitr_cutoff_of(const nlohmann::json& items, const std::string& group,
                           const std::string& profile) {
  pitr_answer a;
  if (!items.is_array()) return a;
  for (const auto& b : items) {
    if (!b.is_object() || b.value("metadata", nlohmann::json::object()).contains("deletionTimestamp"))
      continue;
    const auto spec = b.value("spec", nlohmann::json::object());
    const auto st = b.value("status", nlohmann::json::object());
    if (spec.value("failoverGroupRef", nlohmann::json::object()).value("name", "") != group ||
        spec.value("profileName", "") != profile || st.value("phase", "") != "Succeeded")
      continue;
    auto t = config::parse_rfc3339(st.value("completionTime", ""));
    if (!t) continue;
    auto ms = t->time_since_epoch().count();
    if (!a.has_cutoff || ms < a.cutoff_ms) a.cutoff_ms = ms;
    a.has_cutoff = true;
  }
  return a;
}

pitr_source make_pitr_source(std::shared_ptr<kube::client> client,
                             std::chrono::milliseconds timeout) {
  return [client, timeout](const std::string& ns, const std::string& group,
                           const std::string& profile) {
    auto got = client->list_all(resources::mysqlbackups, ns, {}, timeout);
    if (!got) {
      pitr_answer a;
      a.ok = false;
      a.error = got.error().describe();
      return a;
    }
    return pitr_cutoff_of((*got)["items"], group, profile);
  };
}

}  // namespace br::backup_ctl
