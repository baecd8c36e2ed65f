// Pure renderers of the backup controller's Kubernetes objects: the CronJob per schedule (runs
// `bloodraven trigger-backup`), the backup Job (`bloodraven backup run`) and the artifact cleanup
// Job (`bloodraven backup delete`), with the profile's storage as BLOODRAVEN_BACKUP_* variables
// (contract 1: S3 credentials as files from the profile's Secret, never as values).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "config/backup_spec.hpp"
#include "config/failover_group.hpp"

namespace br::backup_ctl {

using json = nlohmann::json;

struct render_settings {
  /// The image with the bloodraven binary (the operator's own: BLOODRAVEN_OPERATOR_IMAGE);
  /// spec.backup.image wins.
  std::string image = "ghcr.io/shipstream/bloodraven:1.0.0";
  /// The ServiceAccount the CronJob pods run as: allowed to create MysqlBackups in the group's
  /// namespace (the chart's backup-trigger RBAC), nothing else.
  std::string trigger_service_account = "bloodraven-backup-trigger";
  /// Where a Job reaches a site's MySQL: "" = the site Service
  /// mysql-<g>-<site>.<ns>.svc.cluster.local:3306 (tests give addresses of their own).
  std::function<std::string(const std::string& ns, const std::string& group,
                            const std::string& site)>
      site_address;
};

inline constexpr const char* mysql_creds_dir = "/run/bloodraven/mysql-creds";
inline constexpr const char* aws_creds_dir = "/run/bloodraven/aws-creds";
inline constexpr const char* pvc_mount = "/backups";

/// BLOODRAVEN_BACKUP_* (or another prefix) for a profile's storage.
json storage_env(const config::backup_storage_spec& s, const std::string& prefix);
/// The volume and mount a profile's storage needs (S3: its credentials Secret at `creds_dir`;
/// PVC: the claim at `mount_path`).
void add_storage_volume(const config::backup_storage_spec& s, json& pod_spec, json& container,
                        const std::string& volume_name, const std::string& mount_path = pvc_mount,
                        const std::string& creds_dir = aws_creds_dir);

/// A Job around one `bloodraven` container (restartPolicy Never, no ServiceAccount token, the
/// operator's fixed secure contexts, a /tmp emptyDir as the work directory, the result in
/// /dev/termination-log); `args` follow the binary. Shared by the backup, cleanup and restore
/// Jobs.
json bloodraven_job(const config::failover_group& g, const std::string& name, const json& labels,
                    const json& owner, json args, std::int64_t backoff_limit,
                    std::int64_t active_deadline_seconds, const render_settings& r);
/// Where a Job reaches `site`'s MySQL (render_settings::site_address, else the site Service).
std::string site_mysql_address(const config::failover_group& g, const std::string& site,
                               const render_settings& r);
/// Two keys of the group's operator Secret as the files username/password in mysql_creds_dir:
/// by default the operator account's; the backup Job reads the backup account's
/// (MYSQL_BACKUP_USER/MYSQL_BACKUP_PASSWORD, optional).
void add_mysql_creds(const config::failover_group& g, json& pod_spec, json& container,
                     const std::string& user_key = "username",
                     const std::string& password_key = "password", bool optional = false);

/// spec.tls (issue 26): the group's TLS Secret mounted read-only at /etc/mysql/tls in
/// `container` and its args given `--tls-ca /etc/mysql/tls/ca.crt` (every session and tool
/// verifies CA and host name); `server_files` adds --tls-cert/--tls-key (verify's scratch server
/// serves the group certificate, which names 127.0.0.1). Without spec.tls, nothing.
void add_mysql_tls(const config::failover_group& g, json& pod_spec, json& container, bool server_files = false);

/// app.kubernetes.io/name of the CronJobs', Jobs' and their pods' labels: not "mysql", which the
/// group's PodDisruptionBudget and Services select (a backup pod counted by the PDB's
/// minAvailable could let every MySQL pod be evicted).
inline constexpr const char* job_pod_name_label = "bloodraven";

json render_cronjob(const config::failover_group& g, const config::backup_schedule_spec& s,
                    const render_settings& r);
json render_backup_job(const json& backup, const config::failover_group& g,
                       const config::backup_profile_spec& p, const std::string& source_site,
                       const std::string& active_site, const render_settings& r);
json render_cleanup_job(const json& backup, const config::failover_group& g,
                        const config::backup_profile_spec& p, const render_settings& r);

}  // namespace br::backup_ctl
