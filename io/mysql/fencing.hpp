// Fencing commands: fence (super_read_only), kill application sessions, promote (writable).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"
#include "io/mysql/dialect.hpp"

namespace br::mysql {

/// SET GLOBAL super_read_only = ON (also sets read_only). Idempotent.
result<void> fence(connection& conn, const dialect& d);

/// super_read_only = OFF, then read_only = OFF, as two statements (the first alone leaves the
/// server read_only). Stops at the first failure.
result<void> promote(connection& conn, const dialect& d);

/// One row of the session list.
struct session_info {
  uint64_t id = 0;
  std::optional<std::string> user;  ///< NULL for threads without an account
  std::string host;
  std::string command;  ///< "Sleep", "Query", "Binlog Dump GTID", "Daemon", ...
};

struct kill_policy {
  /// Accounts (user names, any host) never killed: e.g. the operator's and the monitoring user.
  std::set<std::string> protected_users;
};

/// Pure: is this a session a fence must kill? Kept: our own session, users NULL / "" /
/// "system user" / "event_scheduler", commands "Binlog Dump" / "Binlog Dump GTID" / "Daemon"
/// (replication applier, outbound binlog feeds, event scheduler), and protected users.
bool is_application_session(const session_info& s, uint64_t own_id, const kill_policy& policy);

struct kill_report {
  unsigned killed = 0;        ///< KILL succeeded
  unsigned already_gone = 0;  ///< KILL answered 1094 (the session ended meanwhile)
  unsigned kept = 0;          ///< listed but not an application session
  std::vector<uint64_t> killed_ids;
  std::vector<mysql_error> failures;  ///< other KILL errors (e.g. 1095 missing CONNECTION_ADMIN)
};

/// Lists sessions and KILLs every application session. A KILL that fails with a server error is
/// recorded and the rest are still killed; a connection-level failure (lost, timeout) aborts.
result<kill_report> kill_application_sessions(connection& conn, const dialect& d,
                                              const kill_policy& policy);

}  // namespace br::mysql
