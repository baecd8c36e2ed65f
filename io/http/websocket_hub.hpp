// WebSocket broadcast endpoint: bounded per-client queues, write deadline, pings, Origin list, cap.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/http/router.hpp"

namespace br::http {

struct websocket_options {
  std::size_t max_clients = 100;  ///< further upgrade requests get HTTP 429
  /// Allowed Origin header values; "*" allows every origin. A request without Origin (not a
  /// browser) is always allowed: the list protects browsers' ambient access, not the socket.
  std::vector<std::string> allowed_origins{"*"};
  std::size_t max_queue = 32;  ///< messages waiting per client; one more drops the client
  std::chrono::milliseconds write_timeout{5000};  ///< one message write; slower -> dropped
  /// No frame from the client for this long -> dropped; a ping goes out at half of it.
  std::chrono::milliseconds idle_timeout{20000};
  std::chrono::milliseconds handshake_timeout{5000};
  std::size_t max_incoming_message = 4096;  ///< clients only send control frames
};

/// Parses "a,b , c" into {"a","b","c"} (empty items dropped).
std::vector<std::string> split_origins(const std::string& csv);
/// True when `origin` may connect under `allowed` (exact match, or "*" in the list).
bool origin_allowed(const std::vector<std::string>& allowed, const std::string& origin);

/// Fans published text out to every connected client. publish() never waits on a client: it
/// posts the message to each client's strand, where it joins that client's bounded queue. A
/// client whose queue is full, whose write misses the deadline or who stops answering pings is
/// closed and forgotten. Thread-safe.
class websocket_hub : public std::enable_shared_from_this<websocket_hub> {
 public:
  explicit websocket_hub(websocket_options o);
  ~websocket_hub();

  /// The route handler for router::add_upgrade.
  upgrade_handler upgrade();

  /// Queues `text` for every client and remembers it as the latest message for `key`
  /// (a newly connected client first receives the latest message of every key).
  void publish(const std::string& key, std::string text);
  /// Forgets a key (e.g. a group that went away).
  void forget(const std::string& key);

  /// Stops accepting, closes every client. Call before the HTTP server is destroyed; after it,
  /// publish() is a no-op. Idempotent.
  void close_all();

  std::size_t clients() const;
  /// Clients closed by the hub (queue full, write deadline, ping timeout) since start.
  std::uint64_t dropped() const { return dropped_.load(); }
  /// Upgrade requests refused because of the cap.
  std::uint64_t refused() const { return refused_.load(); }
  const websocket_options& options() const { return opts_; }

  /// Observers (e.g. metrics); called from I/O threads, must not block.
  std::function<void(std::size_t clients)> on_clients;
  std::function<void(const std::string& reason)> on_drop;

  // Session callbacks (internal).
  struct session_base {
    virtual ~session_base() = default;
    virtual void post_message(std::shared_ptr<const std::string> text) = 0;
    virtual void post_close() = 0;
  };
  /// A handshake finished: the session takes its slot and receives the latest messages.
  void attach_session(std::uint64_t id, const std::shared_ptr<session_base>& s,
                      std::vector<std::shared_ptr<const std::string>>& snapshot);
  void session_ended(std::uint64_t id, const char* reason, bool dropped);

 private:
  bool admit(std::uint64_t& id, int& status, std::string& why, const std::string& origin);

  websocket_options opts_;
  mutable std::mutex mx_;
  bool closed_ = false;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::weak_ptr<session_base>> sessions_;  // admitted (slot held)
  std::map<std::string, std::shared_ptr<const std::string>> latest_;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace br::http
