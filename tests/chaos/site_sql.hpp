// Chaos harness: out-of-band SQL to a sandbox instance as root over its unix socket (works while
// the instance's network namespace is partitioned), with hard timeouts.
#pragma once

#include <optional>
#include <string>
#include <vector>

struct st_mysql;

namespace br::chaos {

class site_sql {
 public:
  explicit site_sql(std::string socket_path) : socket_(std::move(socket_path)) {}
  site_sql(const site_sql&) = delete;
  site_sql& operator=(const site_sql&) = delete;
  ~site_sql() { close(); }

  /// Rows of one statement (NULL -> nullopt); nullopt when the server cannot be reached or the
  /// statement failed (error() says why). Reconnects on the next call after a failure.
  std::optional<std::vector<std::vector<std::optional<std::string>>>> query(const std::string& sql);
  /// First column of the first row, "" when absent; nullopt on failure.
  std::optional<std::string> scalar(const std::string& sql);
  bool exec(const std::string& sql) { return query(sql).has_value(); }
  const std::string& error() const { return error_; }
  void close();

 private:
  bool connect();
  std::string socket_;
  st_mysql* h_ = nullptr;
  std::string error_;
};

}  // namespace br::chaos
