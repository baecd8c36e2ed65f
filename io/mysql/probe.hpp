// probe: one round trip that reads a server's role, GTID state and replica channel status.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "io/mysql/connection.hpp"
#include "io/mysql/dialect.hpp"
#include "messages/gtid_set.hpp"

namespace br::mysql {

/// One replication channel as the replica sees it.
struct replica_channel {
  bool configured = false;  ///< a row in replication_connection_configuration
  thread_state io = thread_state::off;
  thread_state sql = thread_state::off;
  std::string source_host;
  uint16_t source_port = 0;
  /// The source's server_uuid as the receiver last saw it ("" before its first connection).
  std::string source_uuid;
  /// NULL (nullopt) unless both threads are ON; see mysql8_dialect.cpp for how it is computed.
  std::optional<double> seconds_behind_source;
  unsigned last_io_errno = 0;
  std::string last_io_error;
  unsigned last_sql_errno = 0;
  std::string last_sql_error;
  gtid_set received;  ///< RECEIVED_TRANSACTION_SET
};

/// The semi-synchronous replication plugins as the server reports them (absent: not loaded).
struct semisync_state {
  bool source_loaded = false;  ///< rpl_semi_sync_source plugin variables present
  bool source_enabled = false;
  bool source_on = false;  ///< Rpl_semi_sync_source_status: waiting for acknowledgements now
  std::string wait_point;  ///< "AFTER_SYNC" | "AFTER_COMMIT"
  uint32_t wait_count = 0;  ///< rpl_semi_sync_source_wait_for_replica_count
  uint64_t timeout_ms = 0;  ///< rpl_semi_sync_source_timeout
  bool wait_no_replica = false;
  uint32_t clients = 0;  ///< semi-sync receivers connected now
  bool replica_loaded = false;
  bool replica_enabled = false;
  bool replica_on = false;  ///< Rpl_semi_sync_replica_status
  /// Rpl_semi_sync_source_no_tx: commits since the server started that were not acknowledged
  /// (answered without K receivers: a fallback to asynchronous replication).
  uint64_t no_tx = 0;
  uint32_t wait_sessions = 0;  ///< Rpl_semi_sync_source_wait_sessions: commits waiting now
};

struct probe_result {
  bool read_only = false;
  /// Enforced super_read_only: reads ON only together with read_only (see parse_probe_row).
  bool super_read_only = false;
  gtid_set gtid_executed;
  std::string server_uuid;
  uint32_t server_id = 0;
  std::string version;  ///< e.g. "9.7.4-2"
  replica_channel channel;
  uint64_t uptime_s = 0;  ///< seconds since mysqld started (restart detection)
  int64_t started_at = 0;  ///< the server's UNIX_TIMESTAMP() minus its uptime: its start instant
  semisync_state semisync;
  std::chrono::microseconds latency{0};  ///< wall time of the probe's statements (steady_clock)

  bool writable() const { return !read_only && !super_read_only; }
};

/// Column name -> value, merged from the probe statements' single rows.
using probe_row = std::map<std::string, std::optional<std::string>, std::less<>>;

/// Pure: turns the merged row into a probe_result (latency left 0). Fails with kind other when a
/// required column is missing or a value does not parse.
result<probe_result> parse_probe_row(const probe_row& row, const dialect& d);

/// Runs the dialect's probe statements (one SELECT for mysql8) on an open connection.
result<probe_result> probe(connection& conn, const dialect& d, std::string_view channel = "");

}  // namespace br::mysql
