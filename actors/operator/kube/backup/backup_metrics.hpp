// bloodraven_backup_* metrics (Kubernetes backup controller).
#pragma once

#include <prometheus/counter.h>

#include <string>

namespace br::backup_ctl::metrics {

/// bloodraven_backups_total{namespace,group,profile,result=Succeeded|Failed}: backups that ended.
prometheus::Counter& backups_total(const std::string& ns, const std::string& group,
                                   const std::string& profile, const std::string& result);
/// bloodraven_backup_artifact_cleanups_total{namespace,group,result}.
prometheus::Counter& cleanups_total(const std::string& ns, const std::string& group,
                                    const std::string& result);
/// bloodraven_backup_last_success_timestamp_seconds and
/// bloodraven_backup_last_success_age_seconds{namespace,group,profile}: the newest Succeeded
/// backup's completionTime, and its age at the controller's last pass.
void set_last_success(const std::string& ns, const std::string& group, const std::string& profile,
                      double unix_seconds, double age_seconds);

}  // namespace br::backup_ctl::metrics
