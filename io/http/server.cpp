// Server lifecycle: bind, accept loop with connection limit, thread pool, graceful stop.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <system_error>
#include <thread>
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
    sessions.erase(id);
  }
  sessions_cv.notify_all();
}

std::size_t core::count() {
  std::lock_guard<std::mutex> lock{sessions_mutex};
  return sessions.size();
}

namespace {

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
  std::shared_ptr<session> s;
  {
    std::lock_guard<std::mutex> lock{c.sessions_mutex};
    if (c.sessions.size() < c.opts.max_connections) {
      s = std::make_shared<session>(c, std::move(socket), ++c.next_id);
      c.sessions.emplace(c.next_id, s);
    }
  }
  if (s) {
    s->start();
  } else {
    std::make_shared<session>(c, std::move(socket), 0)->reject();
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
  for (auto& [id, weak] : c.sessions)
    if (auto s = weak.lock()) out.push_back(std::move(s));
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
  br::log::info("http server listening",
                {{"server", c.opts.name}, {"address", c.opts.address}, {"port", impl_->port}});
  return impl_->port;
}

std::uint16_t server::port() const {
  return impl_->port;
}

std::size_t server::connections() const {
  return impl_->c.count();
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
