// spec.initFromBackup (reference §2.1 InitFromBackupSpec, §3.14) as C++ values: where the backup
// is (a MysqlBackup of this group, an S3 location or a directory on a claim), an optional point
// in time, and the members of the reference we do not implement, read so that validation can
// refuse them with their path. spec.restoreInPlace (the same source and point in time, a confirm
// token) is read and validated with its paths, then refused: its controller is not built.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "config/backup_spec.hpp"
#include "config/field_error.hpp"

namespace br::config {

struct mysql_backup_ref_spec {
  std::string name;  // a MysqlBackup in the group's namespace
  bool operator==(const mysql_backup_ref_spec&) const = default;
};

/// source.pvc: the backup's own directory (`<subPath>/backup.json`) on a claim.
struct restore_pvc_source {
  std::string claim_name;  // "claimName"
  std::string sub_path;    // "subPath": the backup's directory, relative to the claim's root
  bool operator==(const restore_pvc_source&) const = default;
};

/// Exactly one member is set (validation).
struct restore_source_spec {
  std::optional<mysql_backup_ref_spec> mysql_backup_ref;  // "mysqlBackupRef"
  /// The S3 block of a backup profile; `prefix` is the backup's own directory
  /// (`<profile prefix>/<backup name>`, where its backup.json is).
  std::optional<s3_storage_spec> s3;
  std::optional<restore_pvc_source> pvc;
  bool operator==(const restore_source_spec&) const = default;
};

struct point_in_time_spec {
  /// RFC 3339 or "YYYY-MM-DD HH:MM:SS" (UTC), whole seconds; exclusive (mysqlbinlog
  /// --stop-datetime).
  std::string stop_datetime;  // "stopDatetime"
  /// Ours: replay up to and including this GTID set (mysqlbinlog --include-gtids); the engine's
  /// GTID bound. Excludes stopDatetime.
  std::string stop_gtid;  // "stopGtid"
  nlohmann::json exclude_gtids;  // "excludeGtids": refused (the engine has no exclusion)
  bool operator==(const point_in_time_spec&) const = default;
};

struct init_from_backup_spec {
  restore_source_spec source;
  std::optional<point_in_time_spec> point_in_time;  // "pointInTime"
  nlohmann::json load_options;  // "loadOptions": refused (the dump is loaded whole)
  nlohmann::json decryption;    // refused (backups are not encrypted)
  bool operator==(const init_from_backup_spec&) const = default;
};

void read(const nlohmann::json& v, const std::string& path, init_from_backup_spec& out,
          field_errors& errs);
nlohmann::json to_json(const init_from_backup_spec& spec);

/// spec.restoreInPlace (reference §2.1 RestoreInPlaceSpec): replace a running group's data by a
/// backup. `confirm` arms it: an RFC 3339 time that must be strictly newer than
/// status.restoreInPlace.confirmTokenUsed (the controller's check). Full instance only:
/// loadOptions (includeSchemas with one entry = the per-schema variant) and decryption are read
/// to be refused with their path.
struct restore_in_place_spec {
  std::string confirm;
  restore_source_spec source;
  std::optional<point_in_time_spec> point_in_time;  // "pointInTime"
  nlohmann::json load_options;  // "loadOptions": refused
  nlohmann::json decryption;    // refused
  bool operator==(const restore_in_place_spec&) const = default;
};

void read(const nlohmann::json& v, const std::string& path, restore_in_place_spec& out,
          field_errors& errs);
nlohmann::json to_json(const restore_in_place_spec& spec);

/// Every rule of spec.initFromBackup with its field path under `path`: exactly one source;
/// mysqlBackupRef.name a DNS subdomain and spec.backup present (the backup's profile gives the
/// storage); the S3 block as a backup profile's (config::validate_storage) with a prefix naming
/// the backup's directory; pvc.claimName and a relative subPath naming the backup's directory;
/// pointInTime: one of stopDatetime (parsable) / stopGtid (a GTID set is checked by the Job),
/// needs spec.backup.pitr enabled (its profile is the archive replayed); excludeGtids, loadOptions
/// and decryption refused. `backup`: spec.backup (null when absent).
void validate_init_from_backup(const init_from_backup_spec& spec, const backup_spec* backup,
                               const std::string& path, field_errors& errs);

/// Every rule of spec.restoreInPlace with its field path under `path`: `confirm` required and
/// RFC 3339; source and pointInTime as for initFromBackup (the same rules, under this path);
/// loadOptions refused (includeSchemas with one entry: the per-schema restore is not built),
/// decryption refused. The controller checks the rest against the live objects (the token
/// against status, stopDatetime against the MysqlBackup's startTime).
void validate_restore_in_place(const restore_in_place_spec& spec, const backup_spec* backup,
                               const std::string& path, field_errors& errs);

/// The backup name and the store holding it for an S3 or PVC source: the last segment of the
/// prefix / subPath is the backup's name, the rest is the store's prefix / subPath. Empty name
/// when the location has no segment.
struct split_location {
  std::string parent;
  std::string name;
};
split_location split_backup_location(std::string_view location);

/// Why a group's bootstrap waits for its restore: spec.initFromBackup is set and
/// `status` (the MysqlFailoverGroup's .status) does not say status.restore.phase Succeeded, or
/// status.restore.phase is Running (a Job still loading, even with initFromBackup removed);
/// "" when nothing is held. The text is stable while held (the group is restarted when it
/// changes, see group_source).
std::string restore_bootstrap_hold(const std::optional<init_from_backup_spec>& spec,
                                   const nlohmann::json& status);

}  // namespace br::config
