// spec.backup (reference §2.1 BackupSpec) as C++ values: profiles (S3 | PVC storage, retention),
// schedules (one CronJob each), the backup Job's limits and PITR. Members of the reference we do
// not implement are read so that validation can refuse them with their path (never ignored).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/duration.hpp"
#include "config/field_error.hpp"

namespace br::config {

enum class backup_storage_type { none, s3, pvc };
enum class concurrency_policy { allow, forbid, replace };

std::string_view to_string(backup_storage_type t);  // "S3" | "PVC" | ""
std::string_view to_string(concurrency_policy p);   // "Allow" | "Forbid" | "Replace"

struct s3_storage_spec {
  std::string bucket;
  std::string prefix;
  std::string region;        // empty: us-east-1
  std::string endpoint_url;  // "endpointURL": MinIO/Ceph/rclone
  bool force_path_style = false;  // "forcePathStyle" (ours)
  std::string credentials_secret;  // "credentialsSecret": AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
  std::string storage_class;       // "storageClass": refused (informational only in the reference)
  bool operator==(const s3_storage_spec&) const = default;
};

struct pvc_storage_spec {
  std::string claim_name;          // "claimName": required (provisioning is not implemented)
  std::string sub_path;            // "subPath"
  std::string storage_class_name;  // refused: only meaningful when the operator provisions
  std::string size;                // refused: same
  bool operator==(const pvc_storage_spec&) const = default;
};

struct backup_storage_spec {
  backup_storage_type type = backup_storage_type::none;
  std::optional<s3_storage_spec> s3;
  std::optional<pvc_storage_spec> pvc;
  bool operator==(const backup_storage_spec&) const = default;
};

/// A backup is kept if ANY rule keeps it (reference RetentionPolicy).
struct retention_policy_spec {
  std::int64_t count = 0;         // keep the newest N Succeeded; 0 = no count rule
  std::int64_t max_age_days = 0;  // keep Succeeded younger than this; 0 = no age rule
  std::int64_t min_keep = 1;      // floor: the newest N Succeeded are always kept
  std::int64_t max_failed_keep = 10;  // Failed backups kept (newest first)
  bool operator==(const retention_policy_spec&) const = default;
};

struct backup_profile_spec {
  std::string name;
  backup_storage_spec storage;
  std::optional<std::int64_t> retention;  // legacy: count=N, minKeep=1, maxFailedKeep=10
  std::optional<retention_policy_spec> retention_policy;  // "retentionPolicy"
  nlohmann::json dump;          // refused when present (mysqlsh dump options)
  nlohmann::json verification;  // refused when present (MysqlBackupVerification)
  nlohmann::json encryption;    // refused when present
  bool operator==(const backup_profile_spec&) const = default;
};

/// The policy a profile's backups are kept by: retentionPolicy, else the legacy `retention`
/// (default 7) as {count, minKeep 1, maxFailedKeep 10}.
retention_policy_spec effective_retention(const backup_profile_spec& p);

struct backup_schedule_spec {
  std::string name;
  std::string profile_name;  // "profileName"
  std::string schedule;      // 5-field cron
  std::string time_zone = "Etc/UTC";  // "timeZone" -> CronJob.spec.timeZone
  bool suspend = false;
  std::optional<std::int64_t> starting_deadline_seconds;  // "startingDeadlineSeconds"
  concurrency_policy concurrency = concurrency_policy::forbid;  // "concurrencyPolicy"
  std::int32_t successful_jobs_history_limit = 3;
  std::int32_t failed_jobs_history_limit = 3;
  bool operator==(const backup_schedule_spec&) const = default;
};

struct pitr_spec {
  bool enabled = false;
  std::string profile_name;             // "profileName": required when enabled (enforced here)
  std::string max_binlog_size = "100M";  // "maxBinlogSize" -> my.cnf max_binlog_size
  duration archive_poll_interval = std::chrono::seconds(60);  // "archivePollInterval"
  bool operator==(const pitr_spec&) const = default;
};

struct backup_spec {
  std::string image;  // the backup Job's image; empty: the operator's own image
  std::vector<backup_profile_spec> profiles;
  std::vector<backup_schedule_spec> schedules;
  std::int64_t max_lag_seconds_for_source = 300;  // "maxLagSecondsForSource"
  std::int64_t active_deadline_seconds = 7200;    // "activeDeadlineSeconds", >= 60
  std::int32_t backoff_limit = 2;                 // "backoffLimit"
  pitr_spec pitr;
  // Refused when present (not implemented): kept raw so validation can name them.
  nlohmann::json image_pull_secrets, resources, retry, pod_security_context,
      container_security_context, staging_volume_size_limit;
  bool operator==(const backup_spec&) const = default;
};

/// Null when absent.
const backup_profile_spec* find_profile(const backup_spec& spec, std::string_view name);

/// "100M", "1G", "4096", "512K" -> bytes (K/M/G are powers of 1024, as MySQL reads them);
/// nullopt when malformed.
std::optional<std::int64_t> parse_binlog_size(std::string_view text);

void read(const nlohmann::json& v, const std::string& path, backup_spec& out, field_errors& errs);
/// A profile's S3 block alone (also spec.initFromBackup.source.s3).
void read(const nlohmann::json& v, const std::string& path, s3_storage_spec& out,
          field_errors& errs);
nlohmann::json to_json(const backup_spec& spec);

/// Every rule of spec.backup with its field path under `path` ("spec.backup"): unique DNS-label
/// profile and schedule names, storage (S3 bucket and credentialsSecret, PVC claimName), retention
/// ranges, schedules naming a known profile with a valid 5-field cron (config/cron.hpp), time zone,
/// history limits, PITR naming a known profile, binlog size and poll interval ranges, and the
/// refusal of the members not implemented. (The CronJob name length, which needs the group's
/// name, is checked by config::validate.)
void validate_backup(const backup_spec& spec, const std::string& path, field_errors& errs);

/// The storage rules of a backup profile (type, S3 bucket/credentialsSecret/endpointURL, PVC
/// claimName/subPath, the refused members) at `path` (".type", ".s3.bucket", ...); shared with
/// spec.initFromBackup's S3 source.
void validate_storage(const backup_storage_spec& storage, const std::string& path,
                      field_errors& errs);

}  // namespace br::config
