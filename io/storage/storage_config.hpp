// Storage settings from the environment, one prefix per user (issue 21, contract 1):
//   <P>_STORAGE_TYPE          S3 | PVC
//   <P>_PVC_MOUNT_PATH        absolute directory (PVC)
//   <P>_S3_BUCKET             bucket (S3)
//   <P>_S3_PREFIX             key prefix inside the bucket, may be empty
//   <P>_S3_REGION             default us-east-1
//   <P>_S3_ENDPOINT           optional http(s):// URL (MinIO, Ceph, rclone); default AWS
//   <P>_S3_FORCE_PATH_STYLE   true | false (default false; automatic for an IP or localhost endpoint)
//   <P>_S3_CREDENTIALS_DIR    directory with files AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
//                             optionally AWS_SESSION_TOKEN (files, never environment values)
// The sidecar's archiver uses P = BLOODRAVEN_PITR; backup/restore use P = BLOODRAVEN_BACKUP.
// Errors name the variable; secrets never appear in errors, logs or describe().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "io/storage/object_store.hpp"

namespace br::storage {

enum class storage_type { pvc, s3 };

struct s3_credentials {
  std::string access_key_id;
  std::string secret_access_key;  ///< never logged
  std::string session_token;      ///< "" = none; never logged
};

/// Limits of the S3 client (defaults for production; tests shrink them).
struct s3_tuning {
  uint64_t multipart_threshold = 64ull << 20;  ///< files larger than this go multipart
  uint64_t part_size = 64ull << 20;            ///< S3 minimum is 5 MiB except the last part
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{std::chrono::minutes(10)};  ///< one HTTP request, whole
  /// Below this many bytes per second for 30 s a transfer is abandoned (retried).
  long low_speed_bytes = 1024;
  int max_attempts = 5;  ///< per request; transport errors, 429 and 5xx are retried
  std::chrono::milliseconds backoff_base{200};
  std::chrono::milliseconds backoff_max{10000};
  std::size_t max_response_bytes = 4u << 20;  ///< any response body kept in memory
};

struct storage_config {
  storage_type type = storage_type::pvc;
  std::string pvc_mount_path;
  std::string s3_bucket;
  std::string s3_prefix;  ///< normalised: no leading '/', ends with '/' unless empty
  std::string s3_region = "us-east-1";
  std::string s3_endpoint;  ///< "" = https://s3.<region>.amazonaws.com
  bool s3_force_path_style = false;
  std::string s3_credentials_dir;
  s3_credentials credentials;  ///< read from s3_credentials_dir at parse time
  s3_tuning tuning;

  /// "S3" or "PVC".
  std::string type_name() const { return type == storage_type::s3 ? "S3" : "PVC"; }
  /// Where the root is, without secrets: "s3://bucket/prefix/" or "/mount/path/".
  std::string describe() const;
};

/// A getenv-like lookup: nullopt = not set.
using env_lookup = std::function<std::optional<std::string>(const std::string& name)>;
/// Reads a small file whole; nullopt when it cannot be read.
using secret_reader = std::function<std::optional<std::string>(const std::string& path)>;

struct storage_config_result {
  std::optional<storage_config> config;
  std::string error;  ///< names the variable when config is empty
};

/// Parses `<prefix>_*`. Credentials come from the files in <prefix>_S3_CREDENTIALS_DIR.
storage_config_result parse_storage_config(const std::string& prefix, const env_lookup& env,
                                           const secret_reader& read = {});

/// ::getenv as an env_lookup.
env_lookup process_env();
/// A file read whole (at most 64 KiB), trailing newline kept.
std::optional<std::string> read_secret_file(const std::string& path);
/// Reads the credentials files of `dir`; "" on success, else the problem (names the file).
std::string read_credentials(const std::string& dir, const secret_reader& read, s3_credentials& out);

/// The store the configuration describes.
std::unique_ptr<object_store> make_store(const storage_config& cfg);

}  // namespace br::storage
