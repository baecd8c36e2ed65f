// One HTTP/1.1 connection: deadlines, routing, async handler completion, keep-alive, close.
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>

#include "io/http/server_core.hpp"
#include "io/http/upgraded_connection.hpp"
#include "io/log/log.hpp"

namespace br::http::detail {

namespace bhttp = beast::http;
using std::chrono::steady_clock;

namespace {

bool quiet_close_error(const beast::error_code& ec) {
  // TLS: a peer closing without close_notify, or any TLS-level failure after the handshake.
  if (ec == asio::ssl::error::stream_truncated || ec.category() == asio::error::get_ssl_category())
    return true;
  return ec == asio::error::operation_aborted || ec == beast::error::timeout ||
         ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
         ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::bad_descriptor;
}

bool wants_upgrade(const bhttp::request<bhttp::string_body>& h) {
  return h.count(bhttp::field::upgrade) > 0 &&
         bhttp::token_list{h[bhttp::field::connection]}.exists("upgrade");
}

std::string_view sv(beast::string_view s) {
  return {s.data(), s.size()};
}

std::variant<beast::tcp_stream, tls_stream> make_stream(tcp::socket&& socket,
                                                        asio::ssl::context* tls) {
  if (tls) return std::variant<beast::tcp_stream, tls_stream>{std::in_place_index<1>, std::move(socket), *tls};
  return std::variant<beast::tcp_stream, tls_stream>{std::in_place_index<0>, std::move(socket)};
}

}  // namespace

session::session(core& c, tcp::socket&& socket, std::uint64_t id)
    : c_(c),
      id_(id),
      tls_(c.tls ? c.tls->current() : nullptr),
      stream_(make_stream(std::move(socket), tls_.get())),
      exec_(lowest().get_executor()),
      handler_timer_(exec_) {
  beast::error_code ec;
  auto ep = lowest().socket().remote_endpoint(ec);
  if (!ec) remote_ = ep.address().to_string();
}

session::~session() {
  c_.unregister(id_);
  if (rejecting_) c_.rejection_done();
}

beast::tcp_stream& session::lowest() {
  return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); },
                    stream_);
}

template <class Then>
void session::after_handshake(Then then) {
  auto* tls = std::get_if<tls_stream>(&stream_);
  if (!tls) return then();
  lowest().expires_after(c_.opts.handshake_timeout);
  tls->async_handshake(asio::ssl::stream_base::server,
                       [self = shared_from_this(), then = std::move(then)](beast::error_code ec) mutable {
                         if (ec) {
                           if (br::log::current_level() <= br::log::level::debug)
                             br::log::debug("tls handshake failed", {{"server", self->c_.opts.name},
                                                                      {"client", self->remote_},
                                                                      {"error", ec.message()}});
                           return self->close_now();
                         }
                         if (self->c_.tls->verifies_clients())
                           self->peer_ = verified_peer(std::get<tls_stream>(self->stream_).native_handle());
                         then();
                       });
}

void session::start() {
  asio::dispatch(exec_, [self = shared_from_this()] {
    self->after_handshake([self] { self->read_next(); });
  });
}

void session::reject(const char* name, const char* message) {
  rejecting_ = true;
  asio::dispatch(exec_, [self = shared_from_this(), name, message] {
    self->after_handshake([self, name, message] {
      self->cur_name_ = name;
      self->cur_started_ = steady_clock::now();
      self->send(response::error(503, message), true, true);
    });
  });
}

void session::on_server_stop() {
  asio::post(exec_, [self = shared_from_this()] {
    if (self->phase_ == phase::reading || self->phase_ == phase::lingering) self->close_now();
  });
}

void session::force_close() {
  asio::post(exec_, [self = shared_from_this()] { self->close_now(); });
}

void session::read_next() {
  if (c_.stopping) return close_now();
  phase_ = phase::reading;
  if (first_request_ || buffer_.size() > 0) return read_header();
  // Keep-alive: wait for the first byte under the idle timeout, then the header deadline.
  lowest().expires_after(c_.opts.idle_timeout);
  std::visit(
      [this](auto& s) {
        s.async_read_some(buffer_.prepare(2048),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            if (ec) return self->close_now();
                            self->buffer_.commit(n);
                            self->read_header();
                          });
      },
      stream_);
}

void session::read_header() {
  first_request_ = false;
  cur_method_ = "OTHER";  // until a request line is parsed
  cur_name_ = "unknown";
  cur_version_ = 11;
  cur_keep_alive_ = false;
  cur_head_ = false;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(c_.opts.max_header_bytes));
  parser_->body_limit(static_cast<std::uint64_t>(c_.opts.max_body_bytes));
  lowest().expires_after(c_.opts.header_timeout);
  std::visit(
      [this](auto& s) {
        bhttp::async_read_header(
            s, buffer_, *parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
      },
      stream_);
}

void session::take_request_line() {
  const auto& h = parser_->get();
  cur_method_ = std::string{h.method_string()};
  cur_version_ = h.version() == 10 ? 10 : 11;
  cur_keep_alive_ = h.keep_alive();
  cur_head_ = h.method() == bhttp::verb::head;
  auto target = parse_target(sv(h.target()));
  cur_name_ = target ? c_.routes.find(cur_method_, target->path).name : "bad_request";
}

void session::on_header(beast::error_code ec) {
  cur_started_ = steady_clock::now();
  if (ec) return on_read_error(ec);
  take_request_line();
  if (parser_->is_done()) return dispatch();
  auto expect = parser_->get()[bhttp::field::expect];
  if (beast::iequals(expect, "100-continue")) return send_continue();
  read_body();
}

void session::send_continue() {
  static constexpr std::string_view msg = "HTTP/1.1 100 Continue\r\n\r\n";
  lowest().expires_after(c_.opts.write_timeout);
  std::visit(
      [this](auto& s) {
        asio::async_write(s, asio::buffer(msg.data(), msg.size()),
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) return self->close_now();
                            self->read_body();
                          });
      },
      stream_);
}

void session::read_body() {
  lowest().expires_after(c_.opts.body_timeout);
  std::visit(
      [this](auto& s) {
        bhttp::async_read(s, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) return self->on_read_error(ec);
                            self->dispatch();
                          });
      },
      stream_);
}

void session::on_read_error(beast::error_code ec) {
  if (phase_ == phase::closed) return;
  if (parser_ && parser_->is_header_done()) take_request_line();
  cur_keep_alive_ = false;
  if (ec == bhttp::error::body_limit) {
    return send(response::error(413, "request body too large"), true, true);
  }
  if (ec == bhttp::error::header_limit) {
    return send(response::error(431, "request header too large"), true, true);
  }
  if (quiet_close_error(ec)) return close_now();  // timeouts, resets, clean EOF: no answer
  cur_name_ = "bad_request";
  send(response::error(400, "malformed request"), true, true);
}

void session::dispatch() {
  auto& h = parser_->get();
  auto target = parse_target(sv(h.target()));
  if (!target) return send(response::error(400, "malformed request target"), false, false);
  auto m = c_.routes.find(cur_method_, target->path);
  cur_name_ = m.name;
  if (m.kind == router::outcome::not_found) {
    return send(response::json(404, nlohmann::json{{"error", "not found"}, {"path", target->path}}),
                false, false);
  }
  if (m.kind == router::outcome::method_not_allowed) {
    auto r = response::json(
        405, nlohmann::json{
                 {"error", "method not allowed"}, {"method", cur_method_}, {"allow", m.allow}});
    r.headers.emplace_back("Allow", m.allow);
    return send(std::move(r), false, false);
  }
  request req;
  req.method = cur_method_;
  req.target = std::string{h.target()};
  req.path = std::move(target->path);
  req.query = std::move(target->query);
  for (const auto& f : h)
    req.headers.emplace_back(std::string{f.name_string()}, std::string{f.value()});
  req.body = std::move(h.body());
  req.remote_address = remote_;
  req.version = cur_version_;
  req.peer = peer_;

  const route& rt = *m.found;
  if (rt.on_upgrade && wants_upgrade(h)) {
    if (tls_) return send(response::error(400, "upgrade is not served over TLS"), false, false);
    // Extension point: the route owns the socket from here on.
    upgraded_ptr conn{new upgraded_connection{std::move(std::get<beast::tcp_stream>(stream_)),
                                              std::move(buffer_), parser_->release()}};
    phase_ = phase::handed_over;
    c_.unregister(id_);
    c_.metrics.observe(cur_name_, cur_method_, 101, steady_clock::now() - cur_started_);
    try {
      rt.on_upgrade(req, std::move(conn));
    } catch (const std::exception& e) {
      br::log::error("http upgrade handler failed",
                     {{"server", c_.opts.name}, {"handler", cur_name_}, {"error", e.what()}});
    }
    return;
  }
  if (!rt.on_request) return send(response::error(426, "upgrade required"), false, false);

  phase_ = phase::handling;
  const auto gen = ++gen_;
  handler_timer_.expires_after(c_.opts.handler_timeout);
  handler_timer_.async_wait([self = shared_from_this(), gen](beast::error_code ec) {
    if (!ec) self->on_handler_timeout(gen);
  });
  auto reply = make_responder(gen);
  try {
    rt.on_request(req, reply);
  } catch (const std::exception& e) {
    br::log::error("http handler threw",
                   {{"server", c_.opts.name}, {"handler", cur_name_}, {"error", e.what()}});
    reply(response::error(500, "internal error in " + cur_name_));
  } catch (...) {
    reply(response::error(500, "internal error in " + cur_name_));
  }
}

responder session::make_responder(std::uint64_t gen) {
  std::weak_ptr<session> weak = shared_from_this();
  return responder{[weak, gate = c_.gate, gen](response&& r) {
    // Under the gate the io_context is alive; `self` dies inside the lock if it is the last.
    std::lock_guard<std::mutex> lock{gate->m};
    if (!gate->open) return;
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->exec_,
               [self, gen, r = std::move(r)]() mutable { self->complete(gen, std::move(r)); });
  }};
}

void session::complete(std::uint64_t gen, response r) {
  if (gen != gen_ || phase_ != phase::handling) return;  // late: timed out or closed
  send(std::move(r), false, false);
}

void session::on_handler_timeout(std::uint64_t gen) {
  if (gen != gen_ || phase_ != phase::handling) return;
  br::log::warn("http handler timed out", {{"server", c_.opts.name}, {"handler", cur_name_}});
  send(response::error(503, "timeout waiting for " + cur_name_), false, false);
}

void session::send(response r, bool close_after, bool linger) {
  if (phase_ == phase::closed || phase_ == phase::handed_over) return;
  handler_timer_.cancel();
  phase_ = phase::writing;
  linger_ = linger;
  const bool keep = cur_keep_alive_ && !close_after && !c_.stopping;
  if (r.status < 100 || r.status > 999) r = response::error(500, "invalid status from handler");
  res_ = {};
  res_.result(static_cast<unsigned>(r.status));
  res_.version(cur_version_);
  res_.set(bhttp::field::server, "bloodraven");
  res_.set(bhttp::field::content_type, r.content_type);
  for (auto& [k, v] : r.headers) res_.insert(k, v);
  res_.body() = std::move(r.body);
  res_.keep_alive(keep);
  res_.prepare_payload();
  if (cur_head_) {
    const auto n = res_.body().size();
    res_.body().clear();
    res_.content_length(n);
  }
  c_.metrics.observe(cur_name_, cur_method_, r.status, steady_clock::now() - cur_started_);
  if (br::log::current_level() <= br::log::level::debug) {
    br::log::debug("http request", {{"server", c_.opts.name},
                                    {"handler", cur_name_},
                                    {"method", cur_method_},
                                    {"status", r.status}});
  }
  lowest().expires_after(c_.opts.write_timeout);
  std::visit(
      [this, keep](auto& s) {
        bhttp::async_write(s, res_,
                           [self = shared_from_this(), keep](beast::error_code ec, std::size_t) {
                             self->on_write(keep, ec);
                           });
      },
      stream_);
}

void session::on_write(bool keep_alive, beast::error_code ec) {
  if (ec || phase_ == phase::closed) return close_now();
  if (keep_alive) return read_next();
  if (linger_) return linger_close();
  beast::error_code ignored;
  lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  close_now();
}

// After an early answer the client may still be sending; closing at once would reset the
// connection and could destroy our response in flight. Half-close, then drain briefly.
void session::linger_close() {
  phase_ = phase::lingering;
  beast::error_code ignored;
  lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  lowest().expires_after(
      std::min<std::chrono::milliseconds>(c_.opts.body_timeout, std::chrono::milliseconds{2000}));
  drain();
}

void session::drain() {
  std::visit(
      [this](auto& s) {
        s.async_read_some(asio::buffer(scratch_),
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec || self->phase_ != phase::lingering) return self->close_now();
                            self->drain();
                          });
      },
      stream_);
}

void session::close_now() {
  if (phase_ == phase::closed || phase_ == phase::handed_over) return;
  phase_ = phase::closed;
  handler_timer_.cancel();
  beast::error_code ignored;
  lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
  lowest().socket().close(ignored);
}

}  // namespace br::http::detail

namespace br::http {
void upgraded_connection_deleter::operator()(upgraded_connection* c) const {
  delete c;
}
}  // namespace br::http
