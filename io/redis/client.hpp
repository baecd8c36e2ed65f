// A RESP client for Dragonfly and Valkey over hiredis (Debian libhiredis 0.14), blocking and
// bounded: the connect, every socket read/write and each whole command have deadlines, and a
// reply larger than `max_reply_bytes` or an array longer than `max_array_elements` is refused
// (the connection is then dropped), so a slow or hostile server can neither hang a caller nor grow
// its memory without bound. Callers are detached actors (the Dragonfly manager's workers).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct redisContext;  // from <hiredis/hiredis.h>; kept out of our headers

namespace br::redis {

enum class error_kind : uint8_t {
  refused,       ///< nothing accepted the TCP connection
  timeout,       ///< a connect/read/write or command deadline expired
  io,            ///< the connection broke (EOF, reset); the command's outcome is unknown
  auth,          ///< AUTH was refused (wrong or missing password)
  server_error,  ///< the server answered with an error reply ("-ERR ...")
  protocol,      ///< malformed reply, or one beyond the size limits
};

std::string_view to_string(error_kind k);

struct redis_error {
  error_kind kind = error_kind::io;
  std::string message;  ///< never contains the password
  std::string to_string() const;
};

struct reply {
  enum class type : uint8_t { string, status, integer, array, nil };
  type kind = type::nil;
  std::string str;  ///< string and status
  long long integer = 0;
  std::vector<reply> elements;
};

/// A command's outcome: the reply, or why there is none.
struct response {
  std::optional<reply> value;
  redis_error error;  ///< meaningful when !value
  bool ok() const { return value.has_value(); }
};

struct connect_options {
  std::string host = "127.0.0.1";
  uint16_t port = 6379;
  std::string password;  ///< "" = no AUTH; never logged
  std::chrono::milliseconds connect_timeout{1000};
  /// Per socket read/write and per command: a command returns within about twice this (the
  /// deadline is checked between reads, each read bounded by it too).
  std::chrono::milliseconds io_timeout{2000};
  std::size_t max_reply_bytes = 1u << 20;           ///< bytes one reply may take in, parsed or not
  int max_array_elements = 4096;

  std::string describe() const;  ///< "host:port"
};

class client {
 public:
  /// Connects (and AUTHs when a password is set). Null with `err` set on failure.
  static std::unique_ptr<client> connect(const connect_options& o, redis_error& err);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  /// One command, argv[0] the command name. After an io/timeout/protocol error the connection
  /// is closed and every later command fails with io.
  response command(const std::vector<std::string>& argv);

  const connect_options& options() const { return o_; }

 private:
  client(connect_options o, redisContext* ctx);
  connect_options o_;
  redisContext* ctx_ = nullptr;
  bool broken_ = false;
};

}  // namespace br::redis
