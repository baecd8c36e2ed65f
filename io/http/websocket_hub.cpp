// WebSocket broadcast sessions on the HTTP server's io_context (Beast), one strand per client.
#include "io/http/websocket_hub.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <deque>

#include "io/http/upgraded_connection.hpp"
#include "io/log/log.hpp"

namespace br::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace websocket = beast::websocket;

/// Answers an upgrade request with a plain HTTP error (cap reached, bad Origin) and closes.
struct refusal : std::enable_shared_from_this<refusal> {
  beast::tcp_stream stream;
  bhttp::response<bhttp::string_body> res;
  explicit refusal(beast::tcp_stream s) : stream(std::move(s)) {}
  void run() {
    stream.expires_after(std::chrono::seconds(5));
    bhttp::async_write(stream, res, [self = shared_from_this()](beast::error_code, std::size_t) {
      beast::error_code ignored;
      self->stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
      self->stream.close();
    });
  }
};

void refuse(upgraded_connection& c, int status, const std::string& why) {
  auto r = std::make_shared<refusal>(std::move(c.stream));
  r->res.result(static_cast<unsigned>(status));
  r->res.version(c.raw.version());
  r->res.set(bhttp::field::content_type, "application/json");
  r->res.set(bhttp::field::cache_control, "no-store");
  r->res.keep_alive(false);
  r->res.body() = nlohmann::json{{"error", why}}.dump();
  r->res.prepare_payload();
  r->run();
}

class ws_session : public websocket_hub::session_base,
                   public std::enable_shared_from_this<ws_session> {
 public:
  ws_session(beast::tcp_stream stream, std::shared_ptr<websocket_hub> hub, std::uint64_t id)
      : ws_(std::move(stream)), timer_(ws_.get_executor()), hub_(std::move(hub)), id_(id) {}

  void start(bhttp::request<bhttp::string_body> req) {
    const auto& o = hub_->options();
    beast::get_lowest_layer(ws_).expires_never();  // the websocket timeouts below take over
    websocket::stream_base::timeout t;
    t.handshake_timeout = o.handshake_timeout;
    t.idle_timeout = o.idle_timeout;
    t.keep_alive_pings = true;
    ws_.set_option(t);
    ws_.read_message_max(o.max_incoming_message);
    ws_.text(true);
    req_ = std::move(req);
    ws_.async_accept(req_, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->finish("handshake failed", false);
      self->on_open();
    });
  }

  void post_message(std::shared_ptr<const std::string> text) override {
    asio::post(ws_.get_executor(),
               [self = shared_from_this(), text = std::move(text)] { self->enqueue(text); });
  }

  void post_close() override {
    asio::post(ws_.get_executor(),
               [self = shared_from_this()] { self->finish("server closing", false); });
  }

 private:
  void on_open() {
    std::vector<std::shared_ptr<const std::string>> snapshot;
    hub_->attach_session(id_, shared_from_this(), snapshot);
    for (auto& m : snapshot) enqueue(m);
    read();
  }

  void read() {
    ws_.async_read(rbuf_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) {
        if (ec == beast::error::timeout) return self->finish("ping timeout", true);
        return self->finish(ec == websocket::error::closed ? "client closed" : "read failed",
                            false);
      }
      self->rbuf_.clear();  // clients have nothing to say; control frames are handled by Beast
      self->read();
    });
  }

  void enqueue(const std::shared_ptr<const std::string>& text) {
    if (done_) return;
    if (queue_.size() >= hub_->options().max_queue) return finish("queue full", true);
    queue_.push_back(text);
    if (!writing_) write_next();
  }

  void write_next() {
    writing_ = true;
    const auto seq = ++write_seq_;
    timer_.expires_after(hub_->options().write_timeout);
    timer_.async_wait([self = shared_from_this(), seq](beast::error_code ec) {
      if (!ec && self->write_seq_ == seq && self->writing_) self->finish("write deadline", true);
    });
    ws_.async_write(asio::buffer(*queue_.front()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      ++self->write_seq_;
                      self->timer_.cancel();
                      if (self->done_) return;
                      if (ec) return self->finish("write failed", false);
                      self->queue_.pop_front();
                      if (self->queue_.empty())
                        self->writing_ = false;
                      else
                        self->write_next();
                    });
  }

  void finish(const char* reason, bool dropped) {
    if (done_) return;
    done_ = true;
    writing_ = false;
    queue_.clear();
    timer_.cancel();
    beast::error_code ignored;
    auto& sock = beast::get_lowest_layer(ws_).socket();
    sock.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
    hub_->session_ended(id_, reason, dropped);
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::steady_timer timer_;
  std::shared_ptr<websocket_hub> hub_;
  std::uint64_t id_;
  bhttp::request<bhttp::string_body> req_;
  beast::flat_buffer rbuf_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  bool writing_ = false;
  bool done_ = false;
  std::uint64_t write_seq_ = 0;
};

}  // namespace

std::vector<std::string> split_origins(const std::string& csv) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    auto b = cur.find_first_not_of(" \t");
    auto e = cur.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : csv) {
    if (c == ',')
      flush();
    else
      cur += c;
  }
  flush();
  return out;
}

bool origin_allowed(const std::vector<std::string>& allowed, const std::string& origin) {
  for (const auto& a : allowed)
    if (a == "*" || a == origin) return true;
  return false;
}

websocket_hub::websocket_hub(websocket_options o) : opts_(std::move(o)) {}

websocket_hub::~websocket_hub() = default;

bool websocket_hub::admit(std::uint64_t& id, int& status, std::string& why,
                          const std::string& origin) {
  std::lock_guard<std::mutex> lk(mx_);
  if (closed_) {
    status = 503;
    why = "shutting down";
    return false;
  }
  if (!origin.empty() && !origin_allowed(opts_.allowed_origins, origin)) {
    status = 403;
    why = "origin not allowed";
    return false;
  }
  if (sessions_.size() >= opts_.max_clients) {
    status = 429;
    why = "too many websocket clients (limit " + std::to_string(opts_.max_clients) + ")";
    refused_.fetch_add(1);
    return false;
  }
  id = next_id_++;
  sessions_.emplace(id, std::weak_ptr<session_base>{});  // holds the slot during the handshake
  return true;
}

void websocket_hub::attach_session(std::uint64_t id, const std::shared_ptr<session_base>& s,
                                   std::vector<std::shared_ptr<const std::string>>& snapshot) {
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> lk(mx_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || closed_) {
      if (closed_) s->post_close();
      return;
    }
    it->second = s;
    for (const auto& [k, v] : latest_) snapshot.push_back(v);
    n = sessions_.size();
  }
  if (on_clients) on_clients(n);
}

void websocket_hub::session_ended(std::uint64_t id, const char* reason, bool dropped) {
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> lk(mx_);
    sessions_.erase(id);
    n = sessions_.size();
  }
  if (dropped) {
    dropped_.fetch_add(1);
    br::log::warn("websocket client dropped", {{"reason", reason}, {"client", id}});
    if (on_drop) on_drop(reason);
  }
  if (on_clients) on_clients(n);
}

upgrade_handler websocket_hub::upgrade() {
  std::weak_ptr<websocket_hub> weak = shared_from_this();
  return [weak](const request& req, upgraded_ptr conn) {
    auto hub = weak.lock();
    if (!hub || !conn) return;
    std::string origin{req.header("Origin").value_or("")};
    std::uint64_t id = 0;
    int status = 0;
    std::string why;
    if (!hub->admit(id, status, why, origin)) {
      br::log::info("websocket upgrade refused",
                    {{"status", status}, {"reason", why}, {"origin", origin},
                     {"remote", req.remote_address}});
      refuse(*conn, status, why);
      return;
    }
    auto s = std::make_shared<ws_session>(std::move(conn->stream), hub, id);
    s->start(std::move(conn->raw));
  };
}

void websocket_hub::publish(const std::string& key, std::string text) {
  auto msg = std::make_shared<const std::string>(std::move(text));
  std::lock_guard<std::mutex> lk(mx_);
  if (closed_) return;
  latest_[key] = msg;
  // Posting under the lock: close_all() cannot slip in between, so nothing is posted to an
  // io_context after the owner declared it going away.
  for (auto& [id, w] : sessions_)
    if (auto s = w.lock()) s->post_message(msg);
}

void websocket_hub::forget(const std::string& key) {
  std::lock_guard<std::mutex> lk(mx_);
  latest_.erase(key);
}

void websocket_hub::close_all() {
  std::lock_guard<std::mutex> lk(mx_);
  if (closed_) return;
  closed_ = true;
  for (auto& [id, w] : sessions_)
    if (auto s = w.lock()) s->post_close();
  latest_.clear();
}

std::size_t websocket_hub::clients() const {
  std::lock_guard<std::mutex> lk(mx_);
  return sessions_.size();
}

}  // namespace br::http
