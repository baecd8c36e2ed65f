// Asynchronous HTTP/1.1 server (Boost.Beast behind a pimpl): options, start, stop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/http/router.hpp"

namespace prometheus {
class Registry;
}

namespace br::http {

struct server_options {
  std::string name = "http";                        // "server" label in logs and metrics
  std::string address = "127.0.0.1";                // IPv4 or IPv6 literal; "0.0.0.0" for all
  std::uint16_t port = 0;                           // 0 = ephemeral; start() returns the bound port
  std::size_t threads = 2;                          // io_context threads
  std::size_t max_body_bytes = 1u << 20;            // larger -> 413
  std::size_t max_header_bytes = 16u << 10;         // larger -> 431
  std::size_t max_connections = 256;                // beyond -> 503 and close
  std::size_t max_connections_per_client = 32;      // per remote IP; beyond -> 503; 0 = no limit
  std::chrono::milliseconds header_timeout{5000};   // from connection / first byte to full header
  std::chrono::milliseconds body_timeout{10000};    // to read the body after the header
  std::chrono::milliseconds write_timeout{10000};   // to write one response
  std::chrono::milliseconds idle_timeout{30000};    // keep-alive wait for the next request
  std::chrono::milliseconds handler_timeout{5000};  // then 503 "timeout waiting for <route>"
  std::chrono::milliseconds stop_grace{2000};       // stop() waits this long for in-flight requests
  // HTTPS when tls_cert_file is set: the PEM certificate chain and key (TLS 1.2 or newer), read
  // again when either file changes (checked at most once a second, on a new connection; a pair
  // that does not load keeps the previous one). Every limit and timeout above applies as well;
  // upgrade routes are not served over TLS (400).
  std::string tls_cert_file;
  std::string tls_key_file;
  // Client certificates (with tls_cert_file): the PEM CA bundle they must chain to, re-read with
  // the pair. Required: a handshake without a certificate is refused; not required: a client may
  // connect without one (the route decides), but one it presents must verify. A verified
  // certificate's names reach the handler as request::peer. "" = none asked for.
  std::string tls_client_ca_file;
  bool tls_require_client_cert = true;
  std::chrono::milliseconds handshake_timeout{5000};  // TLS: from connection to handshake done
  std::shared_ptr<prometheus::Registry> registry;   // null -> no metrics
};

class server {
 public:
  server(server_options options, router routes);
  ~server();  // calls stop()
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Binds, listens, starts the thread pool, logs "http server listening" and returns the bound
  /// port. Throws std::system_error when it cannot bind, std::runtime_error when the TLS files
  /// do not load; calling it twice returns the port.
  std::uint16_t start();
  /// The bound port (0 before start()).
  std::uint16_t port() const;
  /// Stops accepting, closes idle connections, waits up to stop_grace for in-flight requests
  /// (their responses go out with "Connection: close"), then closes the rest and joins the
  /// threads. Idempotent and thread-safe; must not be called from a handler (it joins the
  /// threads that run handlers).
  void stop();
  /// Connections currently owned by the server (for tests and /debug).
  std::size_t connections() const;
  /// Distinct client addresses among those connections (the per-client table's size).
  std::size_t clients() const;
  const server_options& options() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace br::http
