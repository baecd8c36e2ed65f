// Blocking HTTP client on libcurl with hard timeouts; results are values, never exceptions.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace br::http {

enum class client_error {
  none,     // a response arrived (any status)
  refused,  // connection refused: host up, nothing listening
  timeout,  // connect or total timeout
  other,    // DNS, reset, protocol, too large, ...
};

std::string_view to_string(client_error e);

struct client_result {
  int status = 0;  // 0 when no response
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  client_error error = client_error::none;
  std::string message;  // curl's text when error != none
  bool too_large = false;  // the body passed max_response_bytes (error == other)
  uint64_t body_bytes_to_fd = 0;  // bytes written to client_request::response_fd
  /// steady_clock just before the request was performed (contact is counted from here).
  std::chrono::steady_clock::time_point sent_at{};
  std::chrono::steady_clock::duration elapsed{};

  /// A response arrived with status 2xx.
  bool ok() const { return error == client_error::none && status >= 200 && status < 300; }
  std::optional<std::string> header(std::string_view lower_name) const;
};

struct client_request {
  std::string method = "GET";  // GET POST PUT PATCH DELETE (any token works)
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{5000};  // hard total
  std::chrono::milliseconds connect_timeout{2000};
  std::size_t max_response_bytes = 16u << 20;
  /// libcurl's own SigV4 signing (CURLOPT_AWS_SIGV4), e.g. "aws:amz:us-east-1:s3"; "" = none.
  /// The key pair goes in username/password (CURLOPT_USERNAME/PASSWORD; never logged).
  std::string aws_sigv4;
  std::string username, password;
  /// Streams the request body from [body_offset, body_offset + body_length) of this open file
  /// instead of `body` (the caller keeps the fd). -1 = use `body`.
  int body_fd = -1;
  uint64_t body_offset = 0, body_length = 0;
  /// Streams a 2xx response body into this open file instead of `body` (no size cap; the caller
  /// checks what arrived). Other statuses keep their (capped) body in memory. -1 = memory.
  int response_fd = -1;
  /// A transfer slower than low_speed_bytes per second for low_speed_time is abandoned
  /// (timeout). 0 = off.
  long low_speed_bytes = 0;
  std::chrono::seconds low_speed_time{30};
  /// https: verify the server against this PEM CA bundle instead of the system's (the peer and
  /// its host name are always verified). "" = the system bundle.
  std::string ca_pem;
  /// https: the same from a PEM file, read at each request (so a rotated file counts at once);
  /// ignored when ca_pem is set.
  std::string ca_file;
  /// https: a client certificate (PEM chain) and its key, read at each request; "" = none.
  std::string cert_file, key_file;
  /// Connection redirects, curl's "host:port:connect-host:connect-port" form
  /// (CURLOPT_CONNECT_TO): connect elsewhere while the URL's host is still the one verified.
  std::vector<std::string> connect_to;
};

/// Performs one request on a fresh easy handle. Blocks the caller for at most `timeout`
/// (call it from a detached actor or worker, never from a scheduler thread). Thread-safe.
client_result perform(const client_request& req) noexcept;

/// Convenience calls with shared defaults.
class client {
 public:
  struct options {
    std::chrono::milliseconds timeout{5000};
    std::chrono::milliseconds connect_timeout{2000};
    std::vector<std::pair<std::string, std::string>> headers;  // sent with every request
  };
  client() = default;
  explicit client(options o) : opts_(std::move(o)) {}

  client_result get(const std::string& url) const noexcept { return call("GET", url, {}, {}); }
  client_result del(const std::string& url) const noexcept { return call("DELETE", url, {}, {}); }
  client_result post(const std::string& url, std::string body,
                     std::string content_type = "application/json") const noexcept {
    return call("POST", url, std::move(body), std::move(content_type));
  }
  client_result put(const std::string& url, std::string body,
                    std::string content_type = "application/json") const noexcept {
    return call("PUT", url, std::move(body), std::move(content_type));
  }
  client_result patch(const std::string& url, std::string body,
                      std::string content_type = "application/json") const noexcept {
    return call("PATCH", url, std::move(body), std::move(content_type));
  }
  client_result call(std::string method, const std::string& url, std::string body,
                     std::string content_type) const noexcept;

 private:
  options opts_;
};

}  // namespace br::http
