// bloodraven-sidecar settings: flag/environment table, clamps and validation.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/api_tls.hpp"
#include "config/process_flags.hpp"

namespace br::config {

struct sidecar_config {
  std::string listen = ":8080";
  std::string health_listen;  ///< HEALTH_LISTEN_ADDR: liveness-only listener (GET /livez); "" = off
  /// BLOODRAVEN_TLS_*: the API served over HTTPS, and the operator and peers called over HTTPS
  /// with this certificate as the client's (issue 26); off = plain HTTP.
  api_tls_settings api_tls;
  std::string log_level = "info";
  std::string site, pod_namespace, group;
  std::string operator_address;     ///< "" = no operator (boot guard skipped)
  std::vector<std::string> peers;   ///< sidecar host:port list
  std::chrono::nanoseconds lease_timeout = std::chrono::seconds(20);
  std::chrono::nanoseconds peer_check_interval = std::chrono::seconds(5);
  std::chrono::nanoseconds fence_timeout = std::chrono::seconds(20);
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds shutdown_timeout = std::chrono::seconds(5);
  std::string mysql_host = "127.0.0.1";
  uint16_t mysql_port = 3306;
  std::string mysql_user;
  std::string mysql_password;  ///< never logged
  /// MYSQL_TLS_CA (issue 26, spec.tls): set = the local server's certificate verified against
  /// this CA (chain and MYSQL_HOST as its name); "" = sessions as before.
  std::string mysql_tls_ca;
  /// MYSQL_TLS_WATCH: the server's certificate files (comma-separated); when they change,
  /// ALTER INSTANCE RELOAD TLS every MYSQL_TLS_WATCH_INTERVAL at most (tls_watcher.hpp).
  std::vector<std::string> mysql_tls_watch;
  std::chrono::nanoseconds mysql_tls_watch_interval = std::chrono::seconds(10);
  std::string state_dir;       ///< "" = the view is not persisted
  /// KEYS_DIR: operator.pub, site-<site>.key, site-*.pub (actors/common/key_dir.hpp); required
  /// when topology-aware; "" otherwise = no view is ever adopted.
  std::string keys_dir;
  bool dead_mans_switch = true;  ///< DEAD_MANS_SWITCH: docs/safety.md rule 7 heartbeats
  /// REPLICATION_MODE=groupReplication (issue 22): the group fences itself, so no fencing monitor
  /// and no boot guard run; the probe reads the member's group view and /ready, /gr/primary,
  /// /gr/replica and /gr/reader answer from it.
  bool group_replication = false;
  std::size_t gr_members = 0;  ///< GR_MEMBERS: the group's declared member count (0 = unknown)
  std::string gr_group_name;   ///< GR_GROUP_NAME: the group's name ("" = not checked)
  /// GR_WATCH_INTERVAL: how often the GR watcher reads the member's view to ring the operator's
  /// doorbell on a change (actors/sidecar/runtime/gr_watcher.hpp).
  std::chrono::nanoseconds gr_watch_interval = std::chrono::milliseconds(250);
  /// GR_POD_DOORBELL: also set the gr-observed annotation on this sidecar's own Pod
  /// (MY_POD_NAME in POD_NAMESPACE) with the in-cluster ServiceAccount token.
  bool gr_pod_doorbell = false;
  std::string pod_name;  ///< MY_POD_NAME (downward API)
  /// Binlog archiver for PITR: a mounted directory (PVC) or S3.
  struct pitr_settings {
    bool enabled = false;
    std::string binlog_dir = "/var/lib/mysql";
    std::string binlog_index = "mysql-bin.index";
    std::chrono::nanoseconds poll_interval = std::chrono::seconds(60);
    std::string storage_type;    ///< "PVC" or "S3"
    std::string pvc_mount_path;  ///< objects under <mount>/binlogs/<site>
    /// The BLOODRAVEN_PITR_* storage variables as given (STORAGE_TYPE, PVC_MOUNT_PATH, S3_*), for
    /// io/storage's parse_storage_config (prefix BLOODRAVEN_PITR).
    std::map<std::string, std::string> storage_env;
    /// Retention from the operator's /pitr-cutoff (needs the operator address, namespace and
    /// group); "" = no retention sweep.
    std::string profile_name;
    std::chrono::nanoseconds retention_interval = std::chrono::hours(1);
  } pitr;
  /// Adjustments made (clamps, missing optional settings); main logs each as a warning.
  std::vector<std::string> warnings;

  /// Site, namespace, group and operator address are all set: boot guard and topology-aware
  /// fencing can ask the operator.
  bool topology_aware() const {
    return !site.empty() && !pod_namespace.empty() && !group.empty() && !operator_address.empty();
  }
};

/// Every flag with its environment variable (flags mirror the variables).
std::vector<flag_def> sidecar_flag_defs();

/// Reads a whole small file; nullopt when it cannot be read. Injected so tests need no files.
using file_reader = std::function<std::optional<std::string>(const std::string& path)>;
std::optional<std::string> read_small_file(const std::string& path);

/// A secret file's content without its trailing newline (Kubernetes mounts and `echo` leave one).
std::string trim_newline(std::string s);

struct sidecar_config_result {
  std::optional<sidecar_config> config;
  std::string error;  ///< names the variable (and the flag) when config is empty
};

/// Turns parsed flags (already syntax-checked by their flag_def checks) into the configuration:
/// PEER_ADDRESSES, else the legacy PEER_ADDRESS; credentials from MYSQL_CREDS_DIR (files
/// `username`, `password`) else MYSQL_USER/MYSQL_PASSWORD; KEYS_DIR (required when topology-aware);
/// clamps PEER_CHECK_INTERVAL >= 1s and LEASE_TIMEOUT >= max(3s, 3 x PEER_CHECK_INTERVAL) with a
/// warning naming the variable.
sidecar_config_result build_sidecar_config(const parsed_flags& flags, const file_reader& read_file);

/// The clamps alone (pure): returns the warnings it produced.
std::vector<std::string> clamp_intervals(std::chrono::nanoseconds& peer_check_interval,
                                         std::chrono::nanoseconds& lease_timeout);

}  // namespace br::config
