// The dialect seam: SQL text per operation and status column names, one implementation per flavor.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "io/mysql/sql_text.hpp"
#include "messages/gtid_set.hpp"

namespace br::mysql {

/// State of a replication thread (IO/receiver or SQL/applier) of one channel.
enum class thread_state { off, on, connecting, unknown };
std::string_view to_string(thread_state s);
inline std::ostream& operator<<(std::ostream& os, thread_state s) {
  return os << to_string(s);
}

/// Which replication threads STOP/START REPLICA addresses.
enum class replica_threads { both, io_thread, sql_thread };

/// Where a replica should pull from (CHANGE REPLICATION SOURCE / CHANGE MASTER).
struct replication_source {
  std::string host;
  uint16_t port = 3306;
  std::string user;
  std::string password;        ///< never logged
  bool ssl = true;             ///< SOURCE_SSL
  bool get_public_key = true;  ///< GET_SOURCE_PUBLIC_KEY (caching_sha2 w/o TLS)
  /// spec.tls: the CA file as the replica's mysqld sees it. Set: SOURCE_SSL = 1, SOURCE_SSL_CA,
  /// SOURCE_SSL_VERIFY_SERVER_CERT = 1 (chain and host name) and no public-key fetching,
  /// whatever `ssl` and `get_public_key` say. (`{}`: brace-initialisers may stop before it.)
  std::string ssl_ca{};
  std::chrono::seconds connect_retry{std::chrono::seconds{10}};  ///< SOURCE_CONNECT_RETRY
  /// SOURCE_RETRY_COUNT: 60480 x 10 s = 7 days, the inter-site outage a follower rides out by
  /// itself (10 retries gave up after 100 s and left the IO thread stopped for good). Beyond it,
  /// the operator restarts a follower's stopped receiver when its source is healthy.
  unsigned retry_count = 60480;
};

/// The donor of a CLONE INSTANCE.
struct clone_donor {
  std::string host;
  uint16_t port = 3306;
  std::string user;      ///< needs BACKUP_ADMIN on the donor
  std::string password;  ///< never logged
  /// spec.tls: the CA as the recipient's mysqld sees it. Set: clone_ssl_ca is set to it and the
  /// CLONE requires TLS, so the donor's certificate must chain to it (MySQL 9.7's clone client
  /// checks the chain, not the host name). (`{}`: brace-initialisers may stop before it.)
  std::string ssl_ca{};
};

/// Names of the columns the dialect's probe statements produce, per probe field.
struct status_columns {
  std::string read_only, super_read_only, gtid_executed, server_uuid, server_id, version;
  std::string channel_configured, io_state, sql_state, source_host, source_port;
  std::string seconds_behind_source, last_io_errno, last_io_error, last_sql_errno, last_sql_error;
  std::string received_set;
  std::string uptime, started_at;
  std::string ss_source_enabled, ss_source_status, ss_wait_point, ss_wait_count, ss_timeout;
  std::string ss_wait_no_replica, ss_clients, ss_replica_enabled, ss_replica_status;
  std::string source_uuid, ss_no_tx, ss_wait_sessions;
};

/// Names of the columns of list_sessions_sql().
struct session_columns {
  std::string id, user, host, command;
};

class dialect {
 public:
  virtual ~dialect() = default;
  virtual std::string_view name() const = 0;

  // --- probe: the statements run in order; each must return at most one row. The column names
  // of all results together are resolved through probe_columns().
  virtual std::vector<std::string> probe_statements(std::string_view channel,
                                                    const sql_quoter& q) const = 0;
  virtual const status_columns& probe_columns() const = 0;
  virtual thread_state parse_thread_state(const std::optional<std::string>& value) const = 0;

  // --- fencing / promotion
  virtual std::string fence_sql() const = 0;
  virtual std::vector<std::string> promote_sql() const = 0;
  virtual std::string list_sessions_sql() const = 0;
  virtual const session_columns& list_sessions_columns() const = 0;
  virtual std::string kill_sql(uint64_t connection_id) const = 0;
  /// Sessions holding a lock SET GLOBAL super_read_only=ON waits for; same columns as
  /// list_sessions_sql(). Empty when the server cannot tell (lock instrumentation off).
  virtual std::string list_lock_holders_sql() const = 0;
  /// Session statement bounding every lock wait of this session (whole seconds, at least 1).
  virtual std::string set_lock_wait_timeout_sql(std::chrono::seconds timeout) const = 0;
  /// Session statement putting lock_wait_timeout back to the server's global value.
  virtual std::string reset_lock_wait_timeout_sql() const = 0;
  /// Session statement that keeps this session's statements out of the binary log.
  virtual std::string disable_session_binlog_sql() const = 0;

  // --- replication control
  virtual std::string gtid_executed_sql() const = 0;
  /// One row, one column: 0 = reached, 1 = timed out.
  virtual std::string wait_for_executed_sql(const gtid_set& set, std::chrono::seconds timeout,
                                            const sql_quoter& q) const = 0;
  virtual std::string stop_replica_sql(std::string_view channel, replica_threads which,
                                       const sql_quoter& q) const = 0;
  virtual std::string start_replica_sql(std::string_view channel, replica_threads which,
                                        const sql_quoter& q) const = 0;
  virtual std::string reset_replica_all_sql(std::string_view channel,
                                            const sql_quoter& q) const = 0;
  /// Always sets auto-positioning.
  virtual std::string change_source_sql(const replication_source& src, std::string_view channel,
                                        const sql_quoter& q) const = 0;

  // --- clone (flavors without CLONE return false and the command fails with kind other)
  virtual bool supports_clone() const = 0;
  virtual std::string set_clone_donor_list_sql(const clone_donor& donor,
                                               const sql_quoter& q) const = 0;
  virtual std::string clone_sql(const clone_donor& donor, const sql_quoter& q) const = 0;
  /// SET GLOBAL clone_ssl_ca to donor.ssl_ca (run before clone_sql when it is set).
  virtual std::string set_clone_ssl_ca_sql(const clone_donor& donor, const sql_quoter& q) const = 0;
  /// One row (or none before any clone): columns state, error_no, error_message, begin_time.
  /// The row survives restarts and describes the LAST clone, whichever it was.
  virtual std::string clone_status_sql() const = 0;
  /// What lets CLONE run on a fenced recipient: super_read_only off, read_only kept on (the
  /// recipient stays fenced to accounts without CONNECTION_ADMIN).
  virtual std::vector<std::string> unfence_for_clone_sql() const = 0;
};

}  // namespace br::mysql
