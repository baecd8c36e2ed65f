// Replication commands: read/wait for GTIDs, stop/start/reset the replica, change its source.
#pragma once

#include <chrono>
#include <ostream>
#include <string_view>

#include "io/mysql/connection.hpp"
#include "io/mysql/dialect.hpp"
#include "messages/gtid_set.hpp"

namespace br::mysql {

/// @@global.gtid_executed, parsed.
result<gtid_set> read_gtid_executed(connection& conn, const dialect& d);

enum class wait_outcome { reached, timed_out };
std::string_view to_string(wait_outcome o);
inline std::ostream& operator<<(std::ostream& os, wait_outcome o) {
  return os << to_string(o);
}

/// WAIT_FOR_EXECUTED_GTID_SET(set, timeout) on a dedicated session opened from `opts` whose read
/// timeout is raised above the wait (timeout + max(5 s, opts.read_timeout)), so the client never
/// gives up before the server answers. `timeout` below 1 s is raised to 1 s (0 would mean
/// "forever" to some servers). Connection and server failures come back as errors; "not there
/// yet at the deadline" is the outcome timed_out.
result<wait_outcome> wait_for_executed(const connect_options& opts, const dialect& d,
                                       const gtid_set& set, std::chrono::seconds timeout);

result<void> stop_replica(connection& conn, const dialect& d, std::string_view channel = "",
                          replica_threads which = replica_threads::both);
result<void> start_replica(connection& conn, const dialect& d, std::string_view channel = "",
                           replica_threads which = replica_threads::both);
/// RESET REPLICA ALL: removes the channel (and its relay logs). The threads must be stopped.
result<void> reset_replica_all(connection& conn, const dialect& d, std::string_view channel = "");
/// CHANGE REPLICATION SOURCE ... SOURCE_AUTO_POSITION = 1. The threads must be stopped. Errors
/// never contain the password.
result<void> change_source(connection& conn, const dialect& d, const replication_source& src,
                           std::string_view channel = "");

}  // namespace br::mysql
