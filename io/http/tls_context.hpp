// The HTTP server's TLS context from PEM files, re-read when they change (certificate rotation
// without a restart: a mounted Secret is updated in place). Internal to the server.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace br::http::detail {

/// A file's change time and size (size -1: missing).
struct file_stamp {
  long long mtime_ns = 0;
  long long size = -1;
  bool operator==(const file_stamp&) const = default;
};

class tls_files {
 public:
  /// Loads the pair now; throws std::runtime_error naming the file when it cannot.
  tls_files(std::string cert_file, std::string key_file);
  /// The context for a new connection. At most once a second it compares the files' change
  /// times and sizes with the loaded ones and loads them again when they differ; a pair that
  /// does not load (half-written, key not matching) keeps the previous context and is logged.
  /// Connections keep the context they started with.
  std::shared_ptr<boost::asio::ssl::context> current();

 private:
  std::shared_ptr<boost::asio::ssl::context> load() const;  // throws
  std::pair<file_stamp, file_stamp> stamps() const;

  std::string cert_file_, key_file_;
  std::mutex m_;
  std::shared_ptr<boost::asio::ssl::context> ctx_;
  std::pair<file_stamp, file_stamp> loaded_;
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace br::http::detail
