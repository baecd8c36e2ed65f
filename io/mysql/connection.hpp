// RAII MySQL connection (MariaDB Connector/C) with hard connect/read/write timeouts; query/exec.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/mysql/error.hpp"
#include "io/mysql/result.hpp"
#include "io/mysql/sql_text.hpp"

struct st_mysql;  // MYSQL from <mysql.h>; kept out of our headers

namespace br::mysql {

enum class tls_mode {
  disabled,   ///< plain TCP (caching_sha2 then fetches the server's RSA key by itself)
  preferred,  ///< TLS when the server offers it
  required,   ///< fail the connect when TLS cannot be negotiated
  /// TLS required, the server's certificate verified against tls_ca_file (chain) and its name
  /// against `host` (DNS name or IP address SAN): spec.tls. No RSA key is fetched (the password
  /// travels inside the verified TLS session). Without tls_ca_file the connect fails.
  verify_identity,
};

struct connect_options {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;  ///< never logged, never copied into error messages
  std::string database;  ///< "" = none
  /// The C API takes whole seconds: sub-second values are rounded up, and anything <= 0 becomes
  /// 1 s (0 would mean "wait forever" to the C API; this layer only has hard timeouts).
  std::chrono::milliseconds connect_timeout{std::chrono::seconds{2}};
  std::chrono::milliseconds read_timeout{std::chrono::seconds{5}};
  std::chrono::milliseconds write_timeout{std::chrono::seconds{5}};
  tls_mode tls = tls_mode::disabled;
  /// PEM files, read at every connect (a rotated CA reaches the next session). verify_identity
  /// needs the CA; the client certificate and key are optional and go together.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  /// Run "SET SESSION sql_log_bin = 0" as part of the connect (no extra round trip per
  /// statement), so nothing this session executes can become an errant GTID on a replica.
  /// Needs SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN; the connect fails without it.
  bool disable_session_binlog = false;

  /// "user@host:port" (no password).
  std::string describe() const;
};

/// Whole seconds as the C API needs them: ceil(d), at least 1.
unsigned to_c_api_seconds(std::chrono::milliseconds d);

using row = std::vector<std::optional<std::string>>;  ///< NULL = nullopt

struct query_result {
  std::vector<std::string> columns;
  std::vector<row> rows;

  /// Index of a column by exact name, or -1.
  int column_index(std::string_view name) const;
  /// Value of `name` in row `r` (nullopt for NULL or a missing column).
  std::optional<std::string> get(size_t r, std::string_view name) const;
};

/// One session. Not thread-safe; move-only; closes on destruction. After a lost_connection or
/// timeout error the session is dead: open a new one.
class connection {
 public:
  static result<connection> open(const connect_options& opts);

  connection(connection&&) noexcept;
  connection& operator=(connection&&) noexcept;
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  /// Runs one statement (multi-statements are not enabled) and reads its whole result set.
  result<query_result> query(std::string_view sql);
  /// Runs one statement that returns no rows (a result set, if any, is read and dropped);
  /// returns the affected row count.
  result<uint64_t> exec(std::string_view sql);
  /// Like exec, for statements carrying secrets: errors are redacted of them.
  result<uint64_t> exec_secret(std::string_view sql, const std::vector<std::string>& secrets);
  /// Like query with redaction.
  result<query_result> query_secret(std::string_view sql, const std::vector<std::string>& secrets);

  /// Server-side connection id (what KILL and PROCESSLIST_ID use).
  uint64_t id() const;
  std::string server_version() const;
  /// Cipher in use, or "" when the session is not encrypted.
  std::string tls_cipher() const;
  /// Quoting that matches the server's current sql_mode (NO_BACKSLASH_ESCAPES).
  sql_quoter quoter() const;
  const connect_options& options() const { return opts_; }

 private:
  connection(st_mysql* handle, connect_options opts);
  mysql_error last_error(std::chrono::milliseconds elapsed, std::chrono::milliseconds timeout,
                         const std::vector<std::string>& secrets) const;
  result<query_result> run(std::string_view sql, const std::vector<std::string>& secrets,
                           bool keep_rows);

  st_mysql* handle_ = nullptr;
  connect_options opts_;
};

}  // namespace br::mysql
