// bloodraven-sidecar settings: flag table, credentials files, keys directory, clamps.
#include "config/sidecar_config.hpp"

#include "config/api_tls.hpp"

#include <fstream>
#include <sstream>

#include "config/duration.hpp"
#include "config/duration_limits.hpp"

namespace br::config {

namespace {

std::string check_port(const std::string& v) {
  if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos)
    return "must be a port number from 1 to 65535";
  auto n = std::stoul(v);
  if (n == 0 || n > 65535) return "must be a port number from 1 to 65535";
  return {};
}

auto within(const duration_bounds& b) { return check_duration_within(b.min, b.max); }

std::vector<std::string> split_list(const std::string& v) {
  std::vector<std::string> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(' ');
    auto e = item.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

}  // namespace

std::string trim_newline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<flag_def> sidecar_flag_defs() {
  std::vector<flag_def> defs{
      {"listen", "LISTEN_ADDR", ":8080", "HTTP address of the sidecar API", false,
       check_listen_address},
      {"health-listen", "HEALTH_LISTEN_ADDR", "",
       "liveness-only address (GET /livez) with its own small connection budget, so a flood of "
       "the API listener cannot fail the liveness probe (empty: off; Kubernetes pods use :8081)",
       false,
       [](const std::string& v) { return v.empty() ? std::string{} : check_listen_address(v); }},
      {"log-level", "LOG_LEVEL", "info", "debug, info, warn or error", false, check_log_level},
      {"site", "MY_SITE", "", "name of the site this sidecar runs in", false, {}},
      {"namespace", "POD_NAMESPACE", "", "namespace of the failover group", false, {}},
      {"group", "FAILOVER_GROUP", "", "name of the failover group", false, {}},
      {"operator-address", "BLOODRAVEN_ADDRESS", "", "operator status API host:port", false,
       check_host_port_list},
      {"peers", "PEER_ADDRESSES", "", "comma-separated peer sidecar host:port list", false,
       check_host_port_list},
      {"peer", "PEER_ADDRESS", "", "legacy single peer host:port (used when PEER_ADDRESSES is empty)",
       false, check_host_port_list},
      {"lease-timeout", "LEASE_TIMEOUT", "20s",
       "fence when neither the operator nor an anchoring peer answered for this long "
       "(clamped to at least max(3s, 3 x PEER_CHECK_INTERVAL); at most 1h)",
       false, within(limits::lease_timeout)},
      {"peer-check-interval", "PEER_CHECK_INTERVAL", "5s",
       "fencing tick (clamped to at least 1s; at most 1m)", false,
       within(limits::peer_check_interval)},
      {"fence-timeout", "FENCE_TIMEOUT", "20s",
       "deadline of one fence (super_read_only=ON, kill sessions, confirm); 1s to 10m", false,
       within(limits::fence_timeout)},
      {"request-timeout", "REQUEST_TIMEOUT", "2s",
       "deadline of each HTTP request to the operator and peers; 100ms to 1m", false,
       within(limits::request_timeout)},
      {"mysql-creds-dir", "MYSQL_CREDS_DIR", "",
       "directory with `username` and `password` files (preferred over MYSQL_USER/MYSQL_PASSWORD)",
       false, {}},
      {"mysql-user", "MYSQL_USER", "", "MySQL user when MYSQL_CREDS_DIR is not set", false, {}},
      {"mysql-password", "MYSQL_PASSWORD", "",
       "MySQL password when MYSQL_CREDS_DIR is not set (prefer the environment or the creds dir)",
       false, {}},
      {"mysql-host", "MYSQL_HOST", "127.0.0.1", "local MySQL host", false, {}},
      {"mysql-port", "MYSQL_PORT", "3306", "local MySQL port", false, check_port},
      {"mysql-tls-ca", "MYSQL_TLS_CA", "",
       "CA file the local MySQL server's certificate is verified against (chain and MYSQL_HOST); "
       "empty = no verified TLS", false, {}},
      {"mysql-tls-watch", "MYSQL_TLS_WATCH", "",
       "comma-separated certificate files of the local server; when they change, ALTER INSTANCE "
       "RELOAD TLS", false, {}},
      {"mysql-tls-watch-interval", "MYSQL_TLS_WATCH_INTERVAL", "10s",
       "how often MYSQL_TLS_WATCH is checked; 1s to 10m", false,
       check_duration_within(std::chrono::seconds(1), std::chrono::minutes(10))},
      {"state-dir", "SIDECAR_STATE_DIR", "",
       "directory where the cached view is persisted (view.json); empty = not persisted", false, {}},
      {"keys-dir", "KEYS_DIR", "",
       "directory with operator.pub (the operator's view keys), site-<MY_SITE>.key (this site's "
       "own key) and the sites' site-<s>.pub; required with BLOODRAVEN_ADDRESS", false, {}},
      {"dead-mans-switch", "DEAD_MANS_SWITCH", "true",
       "keep the in-database dead man's switch (docs/safety.md rule 7) armed and its heartbeat fresh "
       "while this server is the writable primary",
       false, check_bool},
      {"replication-mode", "REPLICATION_MODE", "async",
       "async (fencing, boot guard, dead man's switch) or groupReplication (the group fences "
       "itself; the sidecar reports the member's state)",
       false,
       [](const std::string& v) -> std::string {
         return v == "async" || v == "groupReplication"
                    ? std::string{}
                    : "must be async or groupReplication, got \"" + v + "\"";
       }},
      {"gr-members", "GR_MEMBERS", "0",
       "groupReplication: the group's declared member count; a member serves only while a "
       "majority of it is ONLINE in its view (0 = its own view's size)",
       false,
       [](const std::string& v) -> std::string {
         return !v.empty() && v.size() <= 1 && v[0] >= '0' && v[0] <= '9'
                    ? std::string{}
                    : "must be a number from 0 to 9, got \"" + v + "\"";
       }},
      {"gr-group-name", "GR_GROUP_NAME", "",
       "groupReplication: the group's name; a member of another group serves nobody (empty: not "
       "checked)",
       false, {}},
      {"gr-watch-interval", "GR_WATCH_INTERVAL", "250ms",
       "groupReplication: how often the member's view is read; a change is reported to the "
       "operator at once (a signed gr-observed report: the operator polls the group now)",
       false, check_duration_within(std::chrono::milliseconds(50), std::chrono::minutes(1))},
      {"gr-pod-doorbell", "GR_POD_DOORBELL", "false",
       "groupReplication in Kubernetes: on each change also set the annotation "
       "bloodraven.shipstream.io/gr-observed on this sidecar's own Pod (MY_POD_NAME in "
       "POD_NAMESPACE; in-cluster ServiceAccount token)",
       false, check_bool},
      {"pod-name", "MY_POD_NAME", "", "this pod's name (downward API)", false, {}},
      {"shutdown-timeout", "SIDECAR_SHUTDOWN_TIMEOUT", "5s",
       "deadline for a clean stop after SIGTERM (at most 10m)", false,
       within(limits::shutdown_timeout)},
      {"pitr-enabled", "BLOODRAVEN_PITR_ENABLED", "false",
       "archive sealed binlogs for point-in-time recovery (primary only)", false, check_bool},
      {"pitr-binlog-dir", "BLOODRAVEN_PITR_BINLOG_DIR", "/var/lib/mysql",
       "directory of the binlog files", false, {}},
      {"pitr-binlog-index", "BLOODRAVEN_PITR_BINLOG_INDEX", "mysql-bin.index",
       "binlog index file (relative to the binlog directory unless absolute)", false, {}},
      {"pitr-poll-interval", "BLOODRAVEN_PITR_POLL_INTERVAL", "60s",
       "interval of the archiver's scans (at most 24h)", false,
       within(limits::pitr_poll_interval)},
      {"pitr-storage-type", "BLOODRAVEN_PITR_STORAGE_TYPE", "",
       "archive storage: PVC (a mounted directory) or S3", false, {}},
      {"pitr-pvc-mount-path", "BLOODRAVEN_PITR_PVC_MOUNT_PATH", "",
       "mount path of the backup volume when the storage is PVC", false, {}},
      {"pitr-s3-bucket", "BLOODRAVEN_PITR_S3_BUCKET", "", "S3 bucket of the archive", false, {}},
      {"pitr-s3-prefix", "BLOODRAVEN_PITR_S3_PREFIX", "", "key prefix inside the bucket (may be empty)",
       false, {}},
      {"pitr-s3-region", "BLOODRAVEN_PITR_S3_REGION", "us-east-1", "S3 region (signing scope)", false, {}},
      {"pitr-s3-endpoint", "BLOODRAVEN_PITR_S3_ENDPOINT", "",
       "S3 endpoint URL for MinIO/Ceph-likes (default: AWS)", false, {}},
      {"pitr-s3-force-path-style", "BLOODRAVEN_PITR_S3_FORCE_PATH_STYLE", "false",
       "path-style S3 URLs (automatic for an IP or localhost endpoint)", false, check_bool},
      {"pitr-s3-credentials-dir", "BLOODRAVEN_PITR_S3_CREDENTIALS_DIR", "",
       "directory with files AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and optionally AWS_SESSION_TOKEN",
       false, {}},
      {"pitr-profile-name", "BLOODRAVEN_PITR_PROFILE_NAME", "",
       "backup profile whose /pitr-cutoff drives the archive's retention (empty: no retention)", false, {}},
      {"pitr-retention-interval", "BLOODRAVEN_PITR_RETENTION_INTERVAL", "1h",
       "interval of the retention sweep (at most 24h)", false, within(limits::pitr_poll_interval)},
  };
  for (auto& d : api_tls_flag_defs()) defs.push_back(std::move(d));
  return defs;
}

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) return std::nullopt;
  auto s = os.str();
  if (s.size() > 64 * 1024) return std::nullopt;
  return s;
}

std::vector<std::string> clamp_intervals(std::chrono::nanoseconds& interval,
                                         std::chrono::nanoseconds& lease) {
  using namespace std::chrono_literals;
  std::vector<std::string> warnings;
  if (interval < 1s) {
    warnings.push_back("PEER_CHECK_INTERVAL " + format_duration(interval) +
                       " is below the minimum; clamped to 1s");
    interval = 1s;
  }
  auto min_lease = std::max<std::chrono::nanoseconds>(3s, 3 * interval);
  if (lease < min_lease) {
    warnings.push_back("LEASE_TIMEOUT " + format_duration(lease) +
                       " is below max(3s, 3 x PEER_CHECK_INTERVAL); clamped to " +
                       format_duration(min_lease));
    lease = min_lease;
  }
  return warnings;
}

sidecar_config_result build_sidecar_config(const parsed_flags& flags, const file_reader& read_file) {
  sidecar_config_result out;
  sidecar_config c;
  auto v = [&](const char* name) {
    auto it = flags.values.find(name);
    return it == flags.values.end() ? std::string{} : it->second;
  };
  auto fail = [&](std::string msg) {
    out.error = std::move(msg);
    return out;
  };
  c.listen = v("listen");
  if (auto err = read_api_tls(flags.values, c.api_tls); !err.empty()) return fail(err);
  c.health_listen = v("health-listen");
  c.log_level = v("log-level");
  c.site = v("site");
  c.pod_namespace = v("namespace");
  c.group = v("group");
  c.operator_address = v("operator-address");
  if (split_list(c.operator_address).size() > 1)
    return fail("invalid value \"" + c.operator_address +
                "\" for BLOODRAVEN_ADDRESS (--operator-address): must be one host:port");
  c.peers = split_list(v("peers"));
  if (c.peers.empty()) c.peers = split_list(v("peer"));
  c.lease_timeout = to_duration(v("lease-timeout"));
  c.peer_check_interval = to_duration(v("peer-check-interval"));
  c.fence_timeout = to_duration(v("fence-timeout"));
  c.dead_mans_switch = v("dead-mans-switch") == "true" || v("dead-mans-switch") == "1";
  c.group_replication = v("replication-mode") == "groupReplication";
  c.gr_members = static_cast<std::size_t>(v("gr-members")[0] - '0');
  c.gr_group_name = v("gr-group-name");
  c.gr_watch_interval = to_duration(v("gr-watch-interval"));
  c.pod_name = v("pod-name");
  c.gr_pod_doorbell = v("gr-pod-doorbell") == "true" || v("gr-pod-doorbell") == "1";
  if (c.gr_pod_doorbell && (c.pod_name.empty() || c.pod_namespace.empty()))
    return fail("GR_POD_DOORBELL (--gr-pod-doorbell) needs MY_POD_NAME (--pod-name) and "
                "POD_NAMESPACE (--namespace): the Pod it annotates");
  c.request_timeout = to_duration(v("request-timeout"));
  c.shutdown_timeout = to_duration(v("shutdown-timeout"));
  c.warnings = clamp_intervals(c.peer_check_interval, c.lease_timeout);
  if (c.request_timeout > c.peer_check_interval)
    c.warnings.push_back("REQUEST_TIMEOUT is longer than PEER_CHECK_INTERVAL; ticks will be skipped "
                         "while requests hang");
  c.mysql_host = v("mysql-host");
  if (c.mysql_host.empty()) return fail("MYSQL_HOST (--mysql-host) must not be empty");
  c.mysql_port = static_cast<uint16_t>(std::stoul(v("mysql-port")));
  c.mysql_tls_ca = v("mysql-tls-ca");
  const std::string watch = v("mysql-tls-watch");
  for (std::string_view rest = watch; !rest.empty();) {
    auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    if (!item.empty()) c.mysql_tls_watch.emplace_back(item);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  c.mysql_tls_watch_interval = to_duration(v("mysql-tls-watch-interval"));

  auto creds = v("mysql-creds-dir");
  if (!creds.empty()) {
    auto user = read_file(creds + "/username");
    auto pass = read_file(creds + "/password");
    if (!user) return fail("MYSQL_CREDS_DIR (--mysql-creds-dir): cannot read " + creds + "/username");
    if (!pass) return fail("MYSQL_CREDS_DIR (--mysql-creds-dir): cannot read " + creds + "/password");
    c.mysql_user = trim_newline(*user);
    c.mysql_password = trim_newline(*pass);
    if (c.mysql_user.empty())
      return fail("MYSQL_CREDS_DIR (--mysql-creds-dir): " + creds + "/username is empty");
  } else {
    c.mysql_user = v("mysql-user");
    c.mysql_password = v("mysql-password");
    if (c.mysql_user.empty())
      c.warnings.push_back("no MySQL credentials (MYSQL_CREDS_DIR or MYSQL_USER): local MySQL "
                           "calls will fail and nothing can be fenced");
  }

  c.state_dir = v("state-dir");
  if (c.state_dir.empty())
    c.warnings.push_back("SIDECAR_STATE_DIR is not set: the cached view is not persisted and a "
                         "restart forgets it");
  c.keys_dir = v("keys-dir");
  if (c.keys_dir.empty() && c.topology_aware()) {
    return fail("KEYS_DIR (--keys-dir): required when BLOODRAVEN_ADDRESS is set: the sidecar "
                "accepts only views the operator signed");
  }
  if (c.keys_dir.empty())
    c.warnings.push_back("KEYS_DIR is not set: no view is adopted and every PUT /view is refused");
  c.pitr.enabled = v("pitr-enabled") == "true" || v("pitr-enabled") == "1";
  c.pitr.binlog_dir = v("pitr-binlog-dir");
  c.pitr.binlog_index = v("pitr-binlog-index");
  c.pitr.poll_interval = to_duration(v("pitr-poll-interval"));
  c.pitr.storage_type = v("pitr-storage-type");
  c.pitr.pvc_mount_path = v("pitr-pvc-mount-path");
  c.pitr.storage_env = {{"BLOODRAVEN_PITR_STORAGE_TYPE", c.pitr.storage_type},
                        {"BLOODRAVEN_PITR_PVC_MOUNT_PATH", c.pitr.pvc_mount_path},
                        {"BLOODRAVEN_PITR_S3_BUCKET", v("pitr-s3-bucket")},
                        {"BLOODRAVEN_PITR_S3_PREFIX", v("pitr-s3-prefix")},
                        {"BLOODRAVEN_PITR_S3_REGION", v("pitr-s3-region")},
                        {"BLOODRAVEN_PITR_S3_ENDPOINT", v("pitr-s3-endpoint")},
                        {"BLOODRAVEN_PITR_S3_FORCE_PATH_STYLE", v("pitr-s3-force-path-style")},
                        {"BLOODRAVEN_PITR_S3_CREDENTIALS_DIR", v("pitr-s3-credentials-dir")}};
  c.pitr.profile_name = v("pitr-profile-name");
  c.pitr.retention_interval = to_duration(v("pitr-retention-interval"));
  if (c.pitr.enabled) {
    if (c.site.empty())
      return fail("BLOODRAVEN_PITR_ENABLED needs MY_SITE (--site): the archive keeps one manifest per site");
    if (c.pitr.storage_type != "PVC" && c.pitr.storage_type != "S3")
      return fail("BLOODRAVEN_PITR_STORAGE_TYPE (--pitr-storage-type): must be PVC or S3 when "
                  "BLOODRAVEN_PITR_ENABLED is on, got \"" + c.pitr.storage_type + "\"");
    if (c.pitr.storage_type == "PVC" && (c.pitr.pvc_mount_path.empty() || c.pitr.pvc_mount_path.front() != '/'))
      return fail("BLOODRAVEN_PITR_PVC_MOUNT_PATH (--pitr-pvc-mount-path): must be an absolute path "
                  "when the storage is PVC");
    if (c.pitr.storage_type == "S3") {
      if (v("pitr-s3-bucket").empty())
        return fail("BLOODRAVEN_PITR_S3_BUCKET (--pitr-s3-bucket): required when the storage is S3");
      auto dir = v("pitr-s3-credentials-dir");
      if (dir.empty())
        return fail("BLOODRAVEN_PITR_S3_CREDENTIALS_DIR (--pitr-s3-credentials-dir): required when the "
                    "storage is S3 (files AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
      for (const char* f : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"})
        if (auto text = read_file(dir + "/" + f); !text || trim_newline(*text).empty())
          return fail("BLOODRAVEN_PITR_S3_CREDENTIALS_DIR (--pitr-s3-credentials-dir): cannot read " + dir +
                      "/" + f);
    }
    if (!c.pitr.profile_name.empty() && !c.topology_aware())
      c.warnings.push_back("BLOODRAVEN_PITR_PROFILE_NAME is set but MY_SITE, POD_NAMESPACE, FAILOVER_GROUP and "
                           "BLOODRAVEN_ADDRESS are not all set: no retention sweep");
    if (c.pitr.retention_interval < std::chrono::seconds(1)) {
      c.warnings.push_back("BLOODRAVEN_PITR_RETENTION_INTERVAL is below the minimum; clamped to 1s");
      c.pitr.retention_interval = std::chrono::seconds(1);
    }
    if (c.pitr.binlog_dir.empty() || c.pitr.binlog_index.empty())
      return fail("BLOODRAVEN_PITR_BINLOG_DIR and BLOODRAVEN_PITR_BINLOG_INDEX must not be empty");
    if (c.pitr.poll_interval < std::chrono::seconds(1)) {
      c.warnings.push_back("BLOODRAVEN_PITR_POLL_INTERVAL " + format_duration(c.pitr.poll_interval) +
                           " is below the minimum; clamped to 1s");
      c.pitr.poll_interval = std::chrono::seconds(1);
    }
  }
  if (!c.topology_aware())
    c.warnings.push_back("MY_SITE, POD_NAMESPACE, FAILOVER_GROUP and BLOODRAVEN_ADDRESS are not "
                         "all set: boot guard skipped, only the lease rule applies");
  out.config = std::move(c);
  return out;
}

}  // namespace br::config
