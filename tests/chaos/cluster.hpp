// Chaos harness: one 3-site group on real MySQL 9.7 (sandbox 31-33), each site (mysqld + sidecar)
// in its own network namespace, the standalone operator in the host namespace; fault injection.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/http/client.hpp"
#include "tests/chaos/chaos_proc.hpp"
#include "tests/chaos/site_sql.hpp"
#include "tests/support/mysql_sandbox.hpp"

namespace br::chaos {

/// Everything a scenario may vary. Defaults: a fast profile for tests.
struct cluster_params {
  std::string policy = "Safe";  ///< promotionPolicy: Safe | Fast
  std::string poll_interval = "500ms";
  int failure_threshold = 3;
  std::string failover_cooldown = "5m";
  std::string promotion_gate_timeout = "30s";
  std::string lease_timeout = "3s";
  std::string peer_check_interval = "1s";
  std::string fence_timeout = "5s";
  std::string request_timeout = "800ms";  ///< sidecar REQUEST_TIMEOUT
  std::string prefer_site;                ///< splitBrainPolicy.preferSite ("" = none)
  std::string relay_drain_timeout;        ///< spec.relayDrainTimeout ("" = the default)
  std::string max_lag_wait;               ///< spec.plannedFailover.maxLagWait ("" = the default)
  std::string drain_timeout;              ///< spec.plannedFailover.drainTimeout ("" = the default)
  std::string third_role = "read-only";   ///< role of s3 (s1, s2 are primary-candidates)
  std::string keys_dir;                   ///< operator and site keys (KEYS_DIR); "" = generated
  std::vector<std::string> operator_extra_args;
  std::map<std::string, std::string> operator_env;
  std::map<std::string, std::string> sidecar_env;  ///< added to every sidecar's environment
  /// Group Replication mode (issue 23): the three servers are OFFLINE members with the plugin
  /// loaded (member_expel_timeout 0), the operator bootstraps s1 and joins s2, s3 over the MySQL
  /// communication stack; sidecars in GR mode. The async-only knobs above are not written.
  bool gr = false;
  /// Semi-synchronous replication (issue 25): > 0 gives the servers the semi-sync plugins
  /// (`mysql-sandbox semisync-config`) before they start and the group file
  /// `replication.semiSync {enabled: true, waitForReplicaCount: semisync_k}`.
  int semisync_k = 0;
  /// TLS everywhere (issue 26), default from BR_CHAOS_TLS=1 (`tools/chaos.sh --tls`, ctest
  /// chaos_smoke_tls): every mysqld gets a certificate of the sandbox CA naming its namespace
  /// address and requires secure transport, the group file has spec.tls and replication.tls,
  /// replication verifies its source, the operator and sidecar APIs serve mutual TLS with the
  /// certificates `bloodraven tls-certs` writes, and the harness's own clients (HTTP, the
  /// workload's MySQL sessions, the CLIs) verify too. Not with gr (refused by the operator).
  bool tls = tls_from_env();
  static bool tls_from_env();
};

/// The group name of GR-mode runs.
inline constexpr const char* chaos_gr_group_name = "7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f";

class cluster {
 public:
  static constexpr int sites = 3;
  /// Sandbox instance of s1 (s2, s3 follow): BR_CHAOS_FIRST_INSTANCE, default 31.
  static int first_instance();

  /// Builds the whole group (network, fresh servers, replication, operator, sidecars) and waits
  /// until it is healthy; throws std::runtime_error with context when it cannot.
  cluster(cluster_params p, std::string work_dir);
  ~cluster();  ///< stops every process it started, removes the namespaces, clears sandbox netns
  cluster(const cluster&) = delete;
  cluster& operator=(const cluster&) = delete;

  const cluster_params& params() const { return p_; }
  static std::string site_name(int k) { return "s" + std::to_string(k + 1); }
  static int site_index(const std::string& name);  ///< -1 when unknown
  int instance(int k) const { return first_instance() + k; }
  const std::string& site_addr(int k) const { return addr_[k]; }
  uint16_t mysql_port(int k) const { return mysql_port_[k]; }
  const std::string& host_addr() const { return host_addr_; }
  std::string operator_url() const;
  /// The sandbox CA's host path when params().tls ("" otherwise): what the workload's MySQL
  /// sessions verify against.
  const std::string& mysql_tls_ca() const { return mysql_ca_; }
  /// GET with the run's API client certificate (the operator's identity) when params().tls.
  br::http::client_result http_get(const std::string& url, std::chrono::milliseconds timeout) const;
  /// With params().tls: what contradicts "everything over verified TLS" on the servers that run
  /// (require_secure_transport off, a TCP session without TLS, a replica channel without TLS or
  /// without source verification or fetching the source's RSA key); `summary` gets the counts.
  std::vector<std::string> tls_findings(std::string& summary);
  std::string socket_path(int k) const;
  br::test::mysql_sandbox& sandbox() { return sandbox_; }
  const std::string& work_dir() const { return dir_; }

  // faults
  void kill9_mysqld(int k);  ///< SIGKILL by PID (no sandbox lock); stays down until start_mysqld
  /// SIGKILL to several sites' mysqld at the same instant (PIDs looked up first; one kill9 call
  /// per site would land seconds apart on a loaded host, long enough for a failover between them).
  /// The exit code 137 ends each restart loop, so they stay down until start_mysqld.
  void kill9_mysqld_together(const std::vector<int>& ks);
  void start_mysqld(int k);      ///< starts it again (boots fenced: S5)
  void shutdown_mysqld(int k);   ///< SQL SHUTDOWN (clean; the restart loop ends)
  void pause_mysqld(int k);      ///< SIGSTOP (a hung server: connections open, nothing answers)
  void resume_mysqld(int k);     ///< SIGCONT
  void partition(int k);         ///< from everything
  void partition_from(int k, const std::vector<std::string>& addrs);
  void heal(int k);
  /// `bloodraven switchover` against the operator, signed with the run's operator key: the
  /// CLI's exit code (0 = accepted) and its output.
  std::pair<int, std::string> request_switchover(const std::string& target);
  /// `bloodraven recover` (GR guarded quorum recovery, value "<id>@<plan digest>"), signed the
  /// same way: exit code and output.
  std::pair<int, std::string> request_recover(const std::string& value);
  /// The group's status.groupReplication from GET /status (null when absent).
  nlohmann::json gr_status() const;
  void kill_sidecar(int k);
  void start_sidecar(int k);
  void kill_operator();
  void start_operator();         ///< same port, same state dir

  /// GET /active-site (nullptr body on failure) and GET /status.
  nlohmann::json active_view() const;
  nlohmann::json status() const;
  nlohmann::json events() const;  ///< GET /events
  /// Sites the operator's /status reports as divergent / recovery-blocked.
  std::vector<std::string> divergent_sites() const;

  /// Out-of-band root SQL (unix socket); one session per site, used by the scenario thread only.
  site_sql& sql(int k) { return *sql_[k]; }

  /// "file: line" for every sanitizer report (ASan ERROR, UBSan runtime error) in our processes'
  /// logs so far.
  std::vector<std::string> sanitizer_findings() const;
  /// SIGTERM to the operator and the sidecars (each 10 s, then SIGKILL); "" when all exited 0,
  /// else what did not.
  std::string stop_processes();

  /// Appends a marker line to the run's own log (events.log).
  void note(const std::string& line);

 private:
  void shutdown() noexcept;  ///< idempotent: what the destructor and a failed constructor run
  void shutdown_all();
  void setup_network();
  void teardown_network() noexcept;
  void write_group_file();
  void setup_gr_members();      ///< GR: servers as OFFLINE members (before the operator starts)
  void wait_gr_bootstrapped();  ///< GR: the operator bootstrapped s1 and joined the others
  void net(const std::vector<std::string>& args);
  bool wait_operator_view(const std::string& site, int seconds);
  void setup_tls();  ///< certificates and server options (after the network, before the resets)
  void verify_replication_tls(int k);  ///< the replica channel: verified, no RSA key fetch
  std::vector<std::string> api_tls_args(const std::string& cert) const;  ///< --tls-* flags
  std::string api_scheme() const { return api_tls_dir_.empty() ? "http://" : "https://"; }
  nlohmann::json get_json(const std::string& url) const;

  cluster_params p_;
  std::string dir_;
  br::test::mysql_sandbox sandbox_;
  int run_id_ = 0;
  bool down_ = false;
  std::string host_addr_;
  std::array<std::string, sites> addr_{}, netns_{};
  std::array<uint16_t, sites> mysql_port_{};
  uint16_t sidecar_port_ = 0, operator_port_ = 0;
  std::string group_file_, keys_dir_;
  std::string mysql_ca_, api_tls_dir_;  ///< with params().tls: sandbox CA, API certificates
  std::unique_ptr<process> operator_;
  std::array<std::unique_ptr<process>, sites> sidecar_;
  std::array<std::unique_ptr<site_sql>, sites> sql_;
};

}  // namespace br::chaos
