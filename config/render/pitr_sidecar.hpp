// The binlog archiver's settings rendered into the sidecar when spec.backup.pitr.enabled:
// BLOODRAVEN_PITR_* (contract 1 of issue 21: storage type, PVC mount or S3 bucket/prefix/region/
// endpoint/path style and a credentials directory of files), the archive volume, and the
// my.cnf max_binlog_size from pitr.maxBinlogSize.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "config/backup_spec.hpp"
#include "config/group_spec.hpp"

namespace br::render {

inline constexpr const char* pitr_pvc_mount = "/backups";
inline constexpr const char* pitr_s3_creds_dir = "/run/bloodraven/aws-creds";
inline constexpr const char* pitr_volume = "pitr-archive";

/// `<prefix>_STORAGE_TYPE` and the storage's variables; S3 credentials are read from files in
/// `s3_creds_dir` (never environment values); PVC is mounted at `pvc_mount`.
nlohmann::json storage_env(const config::backup_storage_spec& s, const std::string& prefix,
                           const std::string& pvc_mount, const std::string& s3_creds_dir);

/// The profile PITR archives to: null when spec.backup.pitr is not enabled (or names no
/// profile of the spec).
const config::backup_profile_spec* pitr_profile(const config::group_spec& spec);

/// Adds the archiver's env, volume and mount to a rendered site pod (its sidecar container is
/// `sidecar`); nothing when PITR is off.
void add_pitr_archiver(const config::group_spec& spec, nlohmann::json& pod_spec,
                       nlohmann::json& sidecar);

/// max_binlog_size in bytes when PITR is on (smaller files narrow the unarchived tail).
std::optional<std::int64_t> pitr_max_binlog_size(const config::group_spec& spec);

}  // namespace br::render
