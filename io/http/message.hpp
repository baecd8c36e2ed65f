// HTTP request/response values and the one-shot responder handed to async handlers (no Beast here).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace br::http {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// The client certificate of a TLS connection, verified against the server's client CA
/// (server_options::tls_client_ca_file). Names as the certificate carries them.
struct tls_peer {
  std::string common_name;
  std::vector<std::string> names;  // subjectAltName DNS names and IP addresses
  std::vector<std::string> uris;   // subjectAltName URIs
};

/// A fully read request. Header names keep their spelling; look them up with header().
struct request {
  std::string method;                        // "GET", "POST", ... as sent
  std::string target;                        // raw request target, e.g. "/status?x=1"
  std::string path;                          // percent-decoded path without the query
  std::map<std::string, std::string> query;  // percent-decoded; last value wins
  header_list headers;
  std::string body;
  std::string remote_address;  // peer IP, for logs
  unsigned version = 11;       // 10 or 11
  /// Set only when the connection is TLS and its client certificate verified.
  std::optional<tls_peer> peer;

  /// Case-insensitive header lookup; nullopt when absent.
  std::optional<std::string_view> header(std::string_view name) const;
  /// Query parameter or `fallback`.
  std::string query_or(const std::string& key, std::string fallback = {}) const;
};

struct response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  header_list headers;  // extra headers (Content-Length and Connection are set by the server)

  /// JSON body; adds Cache-Control: no-store.
  static response json(int status, const nlohmann::json& body);
  static response text(int status, std::string body,
                       std::string content_type = "text/plain; charset=utf-8");
  /// {"error": message}
  static response error(int status, std::string_view message);
};

/// Completes one request. Copyable; call it exactly once, from any thread. Later calls (and
/// calls after the server gave up on the request, e.g. handler timeout or stop) are dropped.
class responder {
 public:
  using sink = std::function<void(response&&)>;

  responder() = default;
  explicit responder(sink s) : state_(std::make_shared<state>(std::move(s))) {}

  void operator()(response r) const;
  /// True once someone called this responder (any copy).
  bool used() const { return state_ && state_->used.load(); }
  explicit operator bool() const { return static_cast<bool>(state_); }

 private:
  struct state {
    explicit state(sink s) : deliver(std::move(s)) {}
    std::atomic<bool> used{false};
    sink deliver;
  };
  std::shared_ptr<state> state_;
};

/// Async handler: must not block; answers through the responder, now or later.
using handler = std::function<void(const request&, responder)>;

}  // namespace br::http
