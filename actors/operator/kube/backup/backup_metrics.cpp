// bloodraven_backup_* metrics.
#include "actors/operator/kube/backup/backup_metrics.hpp"

#include <prometheus/gauge.h>

#include "io/metrics/metrics.hpp"

namespace br::backup_ctl::metrics {

prometheus::Counter& backups_total(const std::string& ns, const std::string& group,
                                   const std::string& profile, const std::string& result) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_backups_total")
                            .Help("MysqlBackups that ended, by result (Succeeded | Failed).")
                            .Register(*br::metrics::process_registry());
  return family.Add({{"namespace", ns}, {"group", group}, {"profile", profile}, {"result", result}});
}

prometheus::Counter& cleanups_total(const std::string& ns, const std::string& group,
                                    const std::string& result) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_backup_artifact_cleanups_total")
                            .Help("Artifact cleanup Jobs of deleted MysqlBackups that ended, by result.")
                            .Register(*br::metrics::process_registry());
  return family.Add({{"namespace", ns}, {"group", group}, {"result", result}});
}

void set_last_success(const std::string& ns, const std::string& group, const std::string& profile,
                      double unix_seconds, double age_seconds) {
  static auto& at = prometheus::BuildGauge()
                        .Name("bloodraven_backup_last_success_timestamp_seconds")
                        .Help("completionTime of the newest Succeeded MysqlBackup (unix seconds).")
                        .Register(*br::metrics::process_registry());
  static auto& age = prometheus::BuildGauge()
                         .Name("bloodraven_backup_last_success_age_seconds")
                         .Help("Age of the newest Succeeded MysqlBackup at the backup controller's last pass.")
                         .Register(*br::metrics::process_registry());
  std::map<std::string, std::string> l{{"namespace", ns}, {"group", group}, {"profile", profile}};
  at.Add(l).Set(unix_seconds);
  age.Add(l).Set(age_seconds);
}

}  // namespace br::backup_ctl::metrics
