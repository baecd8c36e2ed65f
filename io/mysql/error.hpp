// mysql_error and the pure classifier that maps C API/server error codes to failure kinds.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace br::mysql {

/// What went wrong, in the terms the decision layer needs.
enum class error_kind {
  refused,          ///< nothing accepted the TCP connection (dead port, unknown host)
  timeout,          ///< a connect/read/write deadline expired (hung server, blackholed network)
  lost_connection,  ///< an established connection broke; the last statement's outcome is unknown
  auth,             ///< credentials/plugin/host not accepted
  server_error,     ///< the server executed and rejected the statement; see `code`
  protocol,         ///< other client library errors (TLS, malformed packet, out of sync)
  other,  ///< produced by this layer: unexpected result shape, unparsable value, precondition
};

std::string_view to_string(error_kind k);
inline std::ostream& operator<<(std::ostream& os, error_kind k) {
  return os << to_string(k);
}

struct mysql_error {
  error_kind kind = error_kind::other;
  unsigned code = 0;      ///< server errno (1xxx, 3xxx+) or client errno (2xxx); 0 when ours
  std::string message;    ///< never contains a password (see redact())
  std::string sql_state;  ///< "HY000", "08S01", ... ("" when unknown)

  /// "lost_connection 2013 (08S01): Lost connection to server during query"
  std::string to_string() const;
};

/// Facts about the failed step that the code alone does not carry.
struct failure_context {
  std::chrono::milliseconds elapsed{0};  ///< time the failed call took
  std::chrono::milliseconds timeout{0};  ///< the C API timeout that applied to it (0 = unknown)
};

/// Pure classification (measured against Connector/C 3.3 + MySQL 9.7 / MariaDB 10.11):
/// - 2002/2003/2005: refused, unless the text says it timed out (errno 110) or it took ~the
///   connect timeout -> timeout
/// - 2013/2006/2055, 4031 (disconnected for inactivity), 1053 (server shutdown), 1927 (killed):
///   lost_connection, unless errno 110 / "timed out" / "timeout" in the text or it took ~the
///   timeout that applied (Connector/C reports a read timeout as a plain 2013) -> timeout
/// - 1045/1044/1698/1130/2059/2061: auth
/// - other client errors (2000-2999): protocol; code 0: other
/// - every other code (server errors: < 2000 and >= 3000): server_error
mysql_error classify_error(unsigned code, std::string_view message, std::string_view sql_state,
                           failure_context ctx = {});

/// True when `elapsed` is within 10% (at least 100 ms) below `timeout` or beyond it.
bool reached_timeout(std::chrono::milliseconds elapsed, std::chrono::milliseconds timeout);

/// Replaces every occurrence of each secret (raw, and as it appears inside a quoted SQL literal)
/// with "***". Empty secrets are ignored.
std::string redact(std::string text, const std::vector<std::string>& secrets);

/// An error produced by this layer (kind other, code 0).
mysql_error make_error(error_kind kind, std::string message);

}  // namespace br::mysql
