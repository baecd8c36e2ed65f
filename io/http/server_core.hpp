// Server internals shared by server.cpp and session.cpp (includes Beast: never include publicly).
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>

#include "io/http/http_metrics.hpp"
#include "io/http/server.hpp"
#include "io/http/tls_context.hpp"

namespace br::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;

/// Responders may outlive the io_context; they post into it only while the gate is open.
struct post_gate {
  std::mutex m;
  bool open = true;
};

class session;

/// Everything sessions share. `ioc` is declared late so it is destroyed before the registry
/// (pending handlers own sessions whose destructors unregister), and `acceptor` after it.
struct core {
  core(server_options o, router r);

  server_options opts;
  router routes;
  http_metrics metrics;
  std::shared_ptr<post_gate> gate = std::make_shared<post_gate>();
  std::atomic<bool> stopping{false};

  /// A counted connection and the client it is charged to.
  struct slot {
    std::weak_ptr<session> s;
    asio::ip::address client;
  };
  std::mutex sessions_mutex;  // guards everything down to `next_id`
  std::condition_variable sessions_cv;
  std::map<std::uint64_t, slot> sessions;                   // counted toward max_connections
  std::map<asio::ip::address, std::size_t> per_client;      // live counted connections; no zeros
  std::size_t rejecting = 0;                                // sessions busy answering a 503
  std::uint64_t rejected_unlogged = 0;                      // since the last rejection log line
  std::uint64_t unanswered_unlogged = 0;                    // of those, closed without a 503
  std::chrono::steady_clock::time_point last_reject_log{};  // at most one line per 10 s
  std::uint64_t next_id = 0;

  std::unique_ptr<tls_files> tls;  // set by start() when opts.tls_cert_file is

  asio::io_context ioc;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_retry;

  void unregister(std::uint64_t id);
  std::size_t count();
  void rejection_done();
};

/// One HTTP/1.1 connection; every member function runs on the connection's strand except
/// the public entry points, which post onto it.
class session : public std::enable_shared_from_this<session> {
 public:
  session(core& c, tcp::socket&& socket, std::uint64_t id);
  ~session();

  void start();  // serve requests
  /// Answers 503 `message` (logged and counted as handler `name`) and closes; the session was
  /// counted in core::rejecting and calls core::rejection_done() when it dies.
  void reject(const char* name, const char* message);
  void on_server_stop();  // close if not busy with a request
  void force_close();     // close whatever it is doing

 private:
  enum class phase { reading, handling, writing, lingering, closed, handed_over };

  beast::tcp_stream& lowest();  // the TCP stream under TLS, or the plain one
  /// Runs `then` once the TLS handshake is done (at once on plain HTTP); closes on failure.
  template <class Then>
  void after_handshake(Then then);
  void read_next();
  void read_header();
  void on_header(beast::error_code ec);
  void send_continue();
  void read_body();
  void on_read_error(beast::error_code ec);
  void dispatch();
  void complete(std::uint64_t gen, response r);
  void on_handler_timeout(std::uint64_t gen);
  void send(response r, bool close_after, bool linger);
  void on_write(bool keep_alive, beast::error_code ec);
  void linger_close();
  void drain();
  void close_now();
  void take_request_line();
  responder make_responder(std::uint64_t gen);

  core& c_;
  std::uint64_t id_;
  std::shared_ptr<asio::ssl::context> tls_;  // the context stream_ uses; null on plain HTTP
  std::variant<beast::tcp_stream, tls_stream> stream_;
  asio::any_io_executor exec_;  // the connection's strand; safe to read from any thread
  beast::flat_buffer buffer_;
  std::optional<beast::http::request_parser<beast::http::string_body>> parser_;
  beast::http::response<beast::http::string_body> res_;
  asio::steady_timer handler_timer_;
  std::array<char, 4096> scratch_{};
  phase phase_ = phase::reading;
  bool first_request_ = true;
  bool linger_ = false;
  bool rejecting_ = false;
  std::uint64_t gen_ = 0;  // request generation: late responder calls compare against it
  std::string remote_;
  std::optional<tls_peer> peer_;  // the verified client certificate, once the handshake is done
  // The request being served (for the response, logs and metrics).
  std::string cur_method_ = "OTHER";
  std::string cur_name_ = "unknown";
  unsigned cur_version_ = 11;
  bool cur_keep_alive_ = false;
  bool cur_head_ = false;
  std::chrono::steady_clock::time_point cur_started_{};
};

}  // namespace br::http::detail
