// Server lifecycle: bind, accept loop with connection limit, thread pool, graceful stop.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "io/http/server_core.hpp"
#include "io/log/log.hpp"

namespace br::http {

namespace detail {

core::core(server_options o, router r)
    : opts(std::move(o)), routes(std::move(r)), metrics(opts.registry, opts.name) {}

void core::unregister(std::uint64_t id) {
  if (id == 0) return;
  {
    std::lock_guard<std::mutex> lock{sessions_mutex};
    auto it = sessions.find(id);
    if (it == sessions.end()) return;  // already unregistered (handed over, then destroyed)
    auto pc = per_client.find(it->second.client);
    if (pc != per_client.end() && --pc->second == 0) per_client.erase(pc);
    sessions.erase(it);
  }
  sessions_cv.notify_all();
}

void core::rejection_done() {
  std::lock_guard<std::mutex> lock{sessions_mutex};
  if (rejecting > 0) --rejecting;
}

std::size_t core::count() {
  std::lock_guard<std::mutex> lock{sessions_mutex};
  return sessions.size();
}

namespace {

constexpr auto reject_log_interval = std::chrono::seconds{10};

/// The client a connection is charged to; IPv4-mapped IPv6 counts as the IPv4 address.
asio::ip::address client_of(const tcp::socket& socket, beast::error_code& ec) {
  const auto a = socket.remote_endpoint(ec).address();
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
  return a;
}

enum class verdict { serve, over_total, over_client };

struct admission {
  verdict v = verdict::serve;
  std::shared_ptr<session> s;      // serve: counted; otherwise the 503 sender, or null: just close
  std::uint64_t log_rejected = 0;  // > 0: write the rate-limited line with this many rejections
  std::uint64_t log_unanswered = 0;
};

/// Decides under the sessions lock: a slot (counted per client), a 503 (while fewer than
/// max_connections rejections are in flight), or a plain close; and whether to log now.
admission admit(core& c, tcp::socket& socket, const asio::ip::address& client) {
  admission a;
  std::lock_guard<std::mutex> lock{c.sessions_mutex};
  auto pc = c.per_client.find(client);
  const std::size_t mine = pc == c.per_client.end() ? 0 : pc->second;
  if (c.sessions.size() >= c.opts.max_connections) {
    a.v = verdict::over_total;
  } else if (c.opts.max_connections_per_client > 0 && mine >= c.opts.max_connections_per_client) {
    a.v = verdict::over_client;
  }
  if (a.v == verdict::serve) {
    a.s = std::make_shared<session>(c, std::move(socket), ++c.next_id);
    c.sessions.emplace(c.next_id, core::slot{a.s, client});
    ++c.per_client[client];
    return a;
  }
  // Rejected sessions are bounded too: each holds a socket until its 503 is out.
  if (c.rejecting < std::max<std::size_t>(1, c.opts.max_connections)) {
    ++c.rejecting;
    a.s = std::make_shared<session>(c, std::move(socket), 0);
  } else {
    ++c.unanswered_unlogged;
  }
  ++c.rejected_unlogged;
  const auto now = std::chrono::steady_clock::now();
  if (c.last_reject_log == std::chrono::steady_clock::time_point{} ||
      now - c.last_reject_log >= reject_log_interval) {
    a.log_rejected = std::exchange(c.rejected_unlogged, 0);
    a.log_unanswered = std::exchange(c.unanswered_unlogged, 0);
    c.last_reject_log = now;
  }
  return a;
}

void do_accept(core& c);

void on_accept(core& c, beast::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || c.stopping) return;
  if (ec) {
    // E.g. EMFILE: back off instead of spinning.
    br::log::warn("http accept failed", {{"server", c.opts.name}, {"error", ec.message()}});
    c.accept_retry->expires_after(std::chrono::milliseconds{100});
    c.accept_retry->async_wait([&c](beast::error_code e) {
      if (!e) do_accept(c);
    });
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  const auto client = client_of(socket, ec);
  if (ec) return do_accept(c);  // the peer is already gone; the socket closes here
  auto a = admit(c, socket, client);
  const bool per_client = a.v == verdict::over_client;
  if (a.log_rejected > 0) {
    br::log::warn("http connections rejected",
                  {{"server", c.opts.name},
                   {"reason", per_client ? "max_connections_per_client" : "max_connections"},
                   {"client", client.to_string()},
                   {"rejected", a.log_rejected},
                   {"unanswered", a.log_unanswered}});
  }
  if (a.v == verdict::serve) {
    a.s->start();
  } else if (a.s) {
    if (per_client)
      a.s->reject("client_over_capacity", "too many connections from this client");
    else
      a.s->reject("over_capacity", "too many connections");
  }
  do_accept(c);
}

void do_accept(core& c) {
  c.acceptor->async_accept(asio::make_strand(c.ioc), [&c](beast::error_code ec, tcp::socket s) {
    on_accept(c, ec, std::move(s));
  });
}

std::vector<std::shared_ptr<session>> snapshot(core& c) {
  std::vector<std::shared_ptr<session>> out;
  std::lock_guard<std::mutex> lock{c.sessions_mutex};
  for (auto& [id, slot] : c.sessions)
    if (auto s = slot.s.lock()) out.push_back(std::move(s));
  return out;
}

}  // namespace
}  // namespace detail

struct server::impl {
  impl(server_options o, router r) : c(std::move(o), std::move(r)) {}
  detail::core c;
  std::mutex lifecycle;  // serialises start/stop
  bool started = false;
  bool stopped = false;
  std::uint16_t port = 0;
  std::optional<detail::asio::executor_work_guard<detail::asio::io_context::executor_type>> work;
  std::vector<std::thread> threads;
};

server::server(server_options options, router routes)
    : impl_(std::make_unique<impl>(std::move(options), std::move(routes))) {}

server::~server() {
  stop();
}

std::uint16_t server::start() {
  namespace asio = detail::asio;
  std::lock_guard<std::mutex> lock{impl_->lifecycle};
  if (impl_->started) return impl_->port;
  auto& c = impl_->c;
  detail::beast::error_code ec;
  auto fail = [&](const char* what) {
    // Asio reports errno values; surface them as std::system_error for callers.
    throw std::system_error(std::error_code{ec.value(), std::system_category()},
                            "http server " + c.opts.name + ": " + what + " " + c.opts.address +
                                ":" + std::to_string(c.opts.port));
  };
  const auto addr = asio::ip::make_address(c.opts.address, ec);
  if (ec) fail("bad address");
  const detail::tcp::endpoint ep{addr, c.opts.port};
  if (!c.opts.tls_cert_file.empty() && !c.tls)
    c.tls = std::make_unique<detail::tls_files>(
        detail::tls_settings{c.opts.tls_cert_file, c.opts.tls_key_file, c.opts.tls_client_ca_file,
                             c.opts.tls_require_client_cert});
  c.acceptor.emplace(asio::make_strand(c.ioc));
  if (c.acceptor->open(ep.protocol(), ec); ec) fail("open");
  if (c.acceptor->set_option(asio::socket_base::reuse_address(true), ec); ec) fail("reuse_address");
  if (c.acceptor->bind(ep, ec); ec) fail("bind");
  if (c.acceptor->listen(asio::socket_base::max_listen_connections, ec); ec) fail("listen");
  c.accept_retry.emplace(c.acceptor->get_executor());
  impl_->port = c.acceptor->local_endpoint().port();
  impl_->work.emplace(c.ioc.get_executor());
  const std::size_t n = std::max<std::size_t>(1, c.opts.threads);
  for (std::size_t i = 0; i < n; ++i) {
    impl_->threads.emplace_back([&c] {
      for (;;) {
        try {
          c.ioc.run();
          return;
        } catch (const std::exception& e) {
          br::log::error("http io thread caught exception",
                         {{"server", c.opts.name}, {"error", e.what()}});
        }
      }
    });
  }
  asio::post(c.acceptor->get_executor(), [&c] { detail::do_accept(c); });
  impl_->started = true;
  br::log::info("http server listening", {{"server", c.opts.name},
                                         {"address", c.opts.address},
                                         {"port", impl_->port},
                                         {"tls", c.tls != nullptr},
                                         {"client_certificates",
                                          !c.tls || c.opts.tls_client_ca_file.empty() ? "none"
                                          : c.opts.tls_require_client_cert         ? "required"
                                                                                   : "verified when given"}});
  return impl_->port;
}

std::uint16_t server::port() const {
  return impl_->port;
}

std::size_t server::connections() const {
  return impl_->c.count();
}

std::size_t server::clients() const {
  std::lock_guard<std::mutex> lock{impl_->c.sessions_mutex};
  return impl_->c.per_client.size();
}

const server_options& server::options() const {
  return impl_->c.opts;
}

void server::stop() {
  namespace asio = detail::asio;
  std::lock_guard<std::mutex> lock{impl_->lifecycle};
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  auto& c = impl_->c;
  const auto t0 = std::chrono::steady_clock::now();
  c.stopping = true;
  asio::post(c.acceptor->get_executor(), [&c] {
    detail::beast::error_code ignored;
    c.acceptor->close(ignored);
    c.accept_retry->cancel();
  });
  for (auto& s : detail::snapshot(c)) s->on_server_stop();

  auto idle = [&c] { return c.sessions.empty(); };
  bool drained;
  {
    std::unique_lock<std::mutex> l{c.sessions_mutex};
    drained = c.sessions_cv.wait_for(l, c.opts.stop_grace, idle);
  }
  if (!drained) {
    for (auto& s : detail::snapshot(c)) s->force_close();
    std::unique_lock<std::mutex> l{c.sessions_mutex};
    c.sessions_cv.wait_for(l, std::chrono::milliseconds{500}, idle);
  }
  impl_->work.reset();
  c.ioc.stop();
  for (auto& t : impl_->threads)
    if (t.joinable()) t.join();
  {
    std::lock_guard<std::mutex> g{c.gate->m};
    c.gate->open = false;
  }
  br::log::info("http server stopped",
                {{"server", c.opts.name},
                 {"port", impl_->port},
                 {"drained", drained},
                 {"stop_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count()}});
}

}  // namespace br::http
