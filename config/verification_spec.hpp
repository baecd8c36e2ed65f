// Backup verification settings (reference §2.1 VerificationSpec, per backup profile, and §2.5
// MysqlBackupVerification's spec) as C++ values, with strict reading and validation at field
// paths. What we do not implement is read so validation can refuse it by its path: a scratch
// volume from a storage class (ours is an emptyDir, storage.size its limit), resources,
// ttlSecondsAfterFinished other than 0, concurrencyPolicy Allow.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "config/backup_spec.hpp"
#include "config/field_error.hpp"

namespace br::config {

enum class verification_pitr_mode { none, latest, timestamp };
std::string_view to_string(verification_pitr_mode m);  // "none" | "latest" | "timestamp"

struct verification_sanity_spec {
  std::string query;                                // "query": required in a sanityCheck
  std::int64_t min_rows = 1;                        // "expect.minRows"
  std::optional<std::int64_t> max_duration_seconds;  // "expect.maxDurationSeconds" (1..86400)
  bool operator==(const verification_sanity_spec&) const = default;
};

struct verification_pitr_spec {
  verification_pitr_mode mode = verification_pitr_mode::none;
  std::string timestamp;  // RFC3339, required for mode timestamp
  bool operator==(const verification_pitr_spec&) const = default;
};

struct verification_storage_spec {
  std::string storage_class_name;  // refused: the scratch volume is an emptyDir
  std::string size;                // the emptyDir's sizeLimit (a quantity)
  bool operator==(const verification_storage_spec&) const = default;
};

struct verification_retention_spec {
  std::int64_t keep_successful = 30;  // "keepSuccessful" (>= 1)
  std::int64_t keep_failures = 10;    // "keepFailures" (>= 0)
  bool operator==(const verification_retention_spec&) const = default;
};

/// The settings a verification run uses (shared by the profile's defaults and the object).
struct verification_run_spec {
  std::optional<verification_storage_spec> storage;
  std::optional<bool> keep_on_failure;  // default true
  std::optional<std::int64_t> ttl_seconds_after_finished;  // only 0 is implemented
  std::optional<verification_sanity_spec> sanity_check;
  std::optional<verification_pitr_spec> point_in_time;
  nlohmann::json resources;  // refused when present
  bool operator==(const verification_run_spec&) const = default;
};

/// spec.backup.profiles[].verification.
struct verification_spec {
  bool enabled = false;
  std::string schedule;  // 5-field cron: a CronJob mysql-<g>-verify-<profile> when enabled
  std::string time_zone = "Etc/UTC";
  bool suspend = false;
  concurrency_policy concurrency = concurrency_policy::forbid;  // Forbid | Replace
  std::optional<std::int64_t> starting_deadline_seconds;
  std::int32_t successful_jobs_history_limit = 3;
  std::int32_t failed_jobs_history_limit = 3;
  verification_retention_spec retention_policy;
  verification_run_spec run;  // storage, keepOnFailure, ttl, sanityCheck, pointInTime, resources
  bool operator==(const verification_spec&) const = default;
};

/// A MysqlBackupVerification's spec.
struct backup_verification_spec {
  std::string group;         // failoverGroupRef.name
  std::string profile_name;  // profileName
  std::string backup_ref;    // backupRef.name ("" = the newest Succeeded backup of the profile)
  std::string triggered_by;
  verification_run_spec run;  // overrides the profile's verification settings member by member
  bool operator==(const backup_verification_spec&) const = default;
};

void read(const nlohmann::json& v, const std::string& path, verification_spec& out, field_errors& errs);
nlohmann::json to_json(const verification_spec& v);

/// A MysqlBackupVerification's .spec ("spec" as the path prefix).
backup_verification_spec parse_backup_verification(const nlohmann::json& spec, field_errors& errs);

/// The rules of a profile's verification at `path`; `pitr_profile` is spec.backup.pitr's profile
/// when PITR is enabled ("" = none: pointInTime other than none is refused).
void validate_verification(const verification_spec& v, const std::string& path,
                           const std::string& pitr_profile, field_errors& errs);
/// The rules of one run's settings at `path` ("spec" for an object).
void validate_verification_run(const verification_run_spec& r, const std::string& path,
                               const std::string& pitr_profile, field_errors& errs);

/// The run settings in effect: the object's members, else the profile's, else the defaults.
verification_run_spec effective_run(const verification_run_spec& object, const verification_spec* profile);

}  // namespace br::config
