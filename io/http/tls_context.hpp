// The HTTP server's TLS context from PEM files, re-read when they change (certificate rotation
// without a restart: a mounted Secret is updated in place). Internal to the server.
#pragma once

#include <array>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "io/fs/file_stamp.hpp"
#include "io/http/message.hpp"

namespace br::http::detail {

/// What the server loads: its pair, and optionally the CA its clients' certificates must chain to.
struct tls_settings {
  std::string cert_file, key_file;
  std::string client_ca_file;  // "" = no client certificates asked for
  bool require_client_cert = true;
};

class tls_files {
 public:
  /// Loads the files now; throws std::runtime_error naming the file when it cannot.
  explicit tls_files(tls_settings settings);
  /// The context for a new connection. At most once a second it compares the files' change
  /// times and sizes with the loaded ones and loads them again when they differ; files that
  /// do not load (half-written, key not matching, CA unreadable) keep the previous context and
  /// are logged. Connections keep the context they started with.
  std::shared_ptr<boost::asio::ssl::context> current();
  /// Whether client certificates are asked for (and so request::peer can be set).
  bool verifies_clients() const { return !s_.client_ca_file.empty(); }

 private:
  using stamp_set = std::array<fs::file_stamp, 3>;  // cert, key, client CA (io/fs/file_stamp.hpp)
  std::shared_ptr<boost::asio::ssl::context> load() const;  // throws
  stamp_set stamps() const;

  tls_settings s_;
  std::mutex m_;
  std::shared_ptr<boost::asio::ssl::context> ctx_;
  stamp_set loaded_;
  std::chrono::steady_clock::time_point checked_{};
};

/// The verified client certificate of a finished handshake; nullopt when none was presented or
/// it did not verify.
std::optional<tls_peer> verified_peer(SSL* ssl);

}  // namespace br::http::detail
