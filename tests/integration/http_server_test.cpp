// Integration tests of br::http::server: routing, limits (total, per client), deadlines, timeouts,
// stop, metrics, the liveness listener.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "io/http/client.hpp"
#include "io/http/liveness.hpp"
#include "io/http/server.hpp"

using namespace br::http;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// Safety bound only: every wait below normally ends on an event long before this.
constexpr auto safety = 20s;

std::string url(std::uint16_t port, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(port) + path;
}

client_result fetch(std::uint16_t port, const std::string& path, std::string method = "GET",
                    std::string body = {},
                    std::vector<std::pair<std::string, std::string>> h = {}) {
  client_request req;
  req.method = std::move(method);
  req.url = url(port, path);
  req.body = std::move(body);
  req.headers = std::move(h);
  req.timeout = safety;
  return perform(req);
}

/// A raw TCP connection for misbehaving clients, from `from` (any 127/8 address is loopback on
/// Linux, so 127.0.0.2 is a second client).
struct raw_conn {
  int fd = -1;
  explicit raw_conn(std::uint16_t port, const char* from = nullptr) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd >= 0);
    if (from) {
      sockaddr_in src{};
      src.sin_family = AF_INET;
      BOOST_REQUIRE_EQUAL(::inet_pton(AF_INET, from, &src.sin_addr), 1);
      BOOST_REQUIRE_EQUAL(::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src), 0);
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE_EQUAL(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  }
  ~raw_conn() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  void send(std::string_view s) const {
    BOOST_REQUIRE_EQUAL(::send(fd, s.data(), s.size(), MSG_NOSIGNAL),
                        static_cast<ssize_t>(s.size()));
  }
  enum class state { nothing, data, closed };
  /// Waits up to `wait` for something to happen on the socket.
  state poll_state(std::chrono::milliseconds wait, std::string* got = nullptr) const {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return state::nothing;
    char buf[4096];
    auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return state::closed;
    if (got) got->append(buf, static_cast<std::size_t>(n));
    return state::data;
  }
  /// Reads until the peer closes (or the safety bound); returns everything read.
  std::pair<bool, std::string> read_until_close() const {
    std::string all;
    auto deadline = std::chrono::steady_clock::now() + safety;
    while (std::chrono::steady_clock::now() < deadline) {
      auto s = poll_state(200ms, &all);
      if (s == state::closed) return {true, all};
    }
    return {false, all};
  }
};

router demo_routes() {
  router r;
  r.get("/status", "status", [](const request& req, responder reply) {
    reply(response::json(200, json{{"a", req.query_or("a")}, {"b", req.query_or("b")}}));
  });
  r.post("/echo", "echo",
         [](const request& req, responder reply) { reply(response::text(200, req.body)); });
  r.get("/never", "never", [](const request&, responder) {});
  r.get("/throws", "throws", [](const request&, responder) { throw std::runtime_error("boom"); });
  return r;
}

template <class Pred>
bool eventually(Pred p) {
  auto deadline = std::chrono::steady_clock::now() + safety;
  while (std::chrono::steady_clock::now() < deadline) {
    if (p()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_server)

BOOST_AUTO_TEST_CASE(json_route_with_query_404_405) {
  server srv{server_options{}, demo_routes()};
  auto port = srv.start();
  BOOST_REQUIRE_NE(port, 0);
  BOOST_CHECK_EQUAL(srv.port(), port);

  auto ok = fetch(port, "/status?a=hello%20world&b=x+y&c");
  BOOST_REQUIRE(ok.error == client_error::none);
  BOOST_CHECK_EQUAL(ok.status, 200);
  BOOST_CHECK_EQUAL(ok.header("content-type").value_or(""), "application/json");
  BOOST_CHECK_EQUAL(ok.header("cache-control").value_or(""), "no-store");
  BOOST_CHECK_EQUAL(ok.header("content-length").value_or(""), std::to_string(ok.body.size()));
  auto body = json::parse(ok.body);
  BOOST_CHECK_EQUAL(body["a"], "hello world");
  BOOST_CHECK_EQUAL(body["b"], "x y");

  auto missing = fetch(port, "/nope?x=1");
  BOOST_CHECK_EQUAL(missing.status, 404);
  auto mb = json::parse(missing.body);
  BOOST_CHECK_EQUAL(mb["error"], "not found");
  BOOST_CHECK_EQUAL(mb["path"], "/nope");

  auto wrong = fetch(port, "/status", "POST", "{}");
  BOOST_CHECK_EQUAL(wrong.status, 405);
  BOOST_CHECK_EQUAL(wrong.header("allow").value_or(""), "GET");
  BOOST_CHECK(json::parse(wrong.body).contains("error"));

  auto head = fetch(port, "/status", "HEAD");
  BOOST_CHECK_EQUAL(head.status, 200);
  BOOST_CHECK(head.body.empty());

  auto bad_query = fetch(port, "/status?a=%zz");
  BOOST_CHECK_EQUAL(bad_query.status, 400);

  auto thrown = fetch(port, "/throws");
  BOOST_CHECK_EQUAL(thrown.status, 500);
}

BOOST_AUTO_TEST_CASE(malformed_request_gets_400) {
  server srv{server_options{}, demo_routes()};
  auto port = srv.start();
  raw_conn c{port};
  c.send("THIS IS NOT HTTP\r\n\r\n");
  auto [closed, got] = c.read_until_close();
  BOOST_CHECK(closed);
  BOOST_CHECK_MESSAGE(got.rfind("HTTP/1.1 400", 0) == 0, got);
  BOOST_CHECK(got.find("\"error\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(oversize_body_413_and_server_keeps_serving) {
  server_options o;
  o.max_body_bytes = 1024;
  o.max_header_bytes = 2048;
  server srv{o, demo_routes()};
  auto port = srv.start();

  auto small = fetch(port, "/echo", "POST", std::string(512, 'a'));
  BOOST_CHECK_EQUAL(small.status, 200);
  BOOST_CHECK_EQUAL(small.body, std::string(512, 'a'));

  auto big = fetch(port, "/echo", "POST", std::string(256 * 1024, 'b'));
  BOOST_CHECK_EQUAL(big.status, 413);
  BOOST_CHECK_EQUAL(json::parse(big.body.empty() ? "{}" : big.body).value("error", ""),
                    "request body too large");

  auto huge_header = fetch(port, "/status", "GET", {}, {{"X-Big", std::string(4096, 'h')}});
  BOOST_CHECK_EQUAL(huge_header.status, 431);

  auto after = fetch(port, "/status?a=1");
  BOOST_CHECK_EQUAL(after.status, 200);
}

BOOST_AUTO_TEST_CASE(stalled_clients_do_not_delay_others) {
  server_options o;
  o.header_timeout = 60s;  // the stalled ones must still be open when we look
  server srv{o, demo_routes()};
  auto port = srv.start();

  std::vector<std::unique_ptr<raw_conn>> stalled;
  for (int i = 0; i < 4; ++i) {  // more than the 2 io threads
    stalled.push_back(std::make_unique<raw_conn>(port));
    stalled.back()->send("GET /sta");
  }
  BOOST_REQUIRE(eventually([&] { return srv.connections() == 4; }));

  auto r = fetch(port, "/status?a=ok");
  BOOST_CHECK_EQUAL(r.status, 200);
  // Event order: the other request finished; the stalled ones got no answer and are open.
  for (auto& c : stalled) BOOST_CHECK(c->poll_state(0ms) == raw_conn::state::nothing);
  // The client's own connection goes away; the four stalled ones stay.
  BOOST_CHECK(eventually([&] { return srv.connections() == 4; }));
}

BOOST_AUTO_TEST_CASE(stalled_client_closed_after_header_deadline) {
  server_options o;
  o.header_timeout = 300ms;
  server srv{o, demo_routes()};
  auto port = srv.start();
  raw_conn c{port};
  c.send("GET /status HT");
  auto [closed, got] = c.read_until_close();
  BOOST_CHECK(closed);
  BOOST_CHECK_MESSAGE(got.empty(), got);
  BOOST_CHECK(eventually([&] { return srv.connections() == 0; }));
}

BOOST_AUTO_TEST_CASE(idle_keep_alive_connection_closed) {
  server_options o;
  o.idle_timeout = 300ms;
  server srv{o, demo_routes()};
  auto port = srv.start();
  raw_conn c{port};
  c.send("GET /status?a=1 HTTP/1.1\r\nHost: x\r\n\r\n");
  auto [closed, got] = c.read_until_close();
  BOOST_CHECK(closed);
  BOOST_CHECK(got.rfind("HTTP/1.1 200", 0) == 0);
}

BOOST_AUTO_TEST_CASE(connection_limit_gives_503) {
  server_options o;
  o.max_connections = 2;
  server srv{o, demo_routes()};
  auto port = srv.start();
  auto a = std::make_unique<raw_conn>(port);
  raw_conn b{port};
  BOOST_REQUIRE(eventually([&] { return srv.connections() == 2; }));

  auto r = fetch(port, "/status");
  BOOST_CHECK_EQUAL(r.status, 503);
  BOOST_CHECK(json::parse(r.body.empty() ? "{}" : r.body).contains("error"));

  a.reset();  // frees a slot once the server notices
  BOOST_CHECK(eventually([&] { return fetch(port, "/status").status == 200; }));
}

BOOST_AUTO_TEST_CASE(per_client_limit_gives_503_to_that_client_only) {
  auto registry = std::make_shared<prometheus::Registry>();
  server_options o;
  o.name = "test";
  o.max_connections = 16;
  o.max_connections_per_client = 3;
  o.header_timeout = safety;  // the idle connections below hold their slots for the whole test
  o.registry = registry;
  server srv{o, demo_routes()};
  auto port = srv.start();
  std::vector<std::unique_ptr<raw_conn>> mine;
  for (int i = 0; i < 3; ++i) mine.push_back(std::make_unique<raw_conn>(port, "127.0.0.1"));
  BOOST_REQUIRE(eventually([&] { return srv.connections() == 3; }));
  BOOST_CHECK_EQUAL(srv.clients(), 1u);

  // The same client's next connection is answered 503 at once and closed.
  raw_conn extra{port, "127.0.0.1"};
  auto [closed, got] = extra.read_until_close();
  BOOST_CHECK(closed);
  BOOST_CHECK_MESSAGE(got.rfind("HTTP/1.1 503", 0) == 0, got);
  BOOST_CHECK(got.find("too many connections from this client") != std::string::npos);
  // Another client address is served, with slots to spare.
  raw_conn other{port, "127.0.0.2"};
  other.send("GET /status?a=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto [other_closed, other_got] = other.read_until_close();
  BOOST_CHECK(other_closed);
  BOOST_CHECK_MESSAGE(other_got.rfind("HTTP/1.1 200", 0) == 0, other_got);
  auto text = prometheus::TextSerializer{}.Serialize(registry->Collect());
  BOOST_CHECK_MESSAGE(
      text.find("bloodraven_http_requests_total{handler=\"client_over_capacity\","
                "method=\"OTHER\",server=\"test\",status=\"5xx\"} 1") != std::string::npos,
      text);

  // The client's entry goes when its last connection does; then it gets slots again.
  mine.clear();
  BOOST_CHECK(eventually([&] { return srv.connections() == 0 && srv.clients() == 0; }));
  raw_conn again{port, "127.0.0.1"};
  again.send("GET /status?a=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  BOOST_CHECK(again.read_until_close().second.rfind("HTTP/1.1 200", 0) == 0);
}

BOOST_AUTO_TEST_CASE(liveness_listener_answers_while_the_api_listener_is_full) {
  server_options o;
  o.max_connections = 4;
  o.header_timeout = safety;
  server api{o, demo_routes()};
  auto port = api.start();
  server live{liveness_options("127.0.0.1", 0), liveness_routes()};
  auto live_port = live.start();

  // A flood from 127.0.0.1 takes every slot of the API listener...
  std::vector<std::unique_ptr<raw_conn>> flood;
  for (int i = 0; i < 4; ++i) flood.push_back(std::make_unique<raw_conn>(port, "127.0.0.1"));
  BOOST_REQUIRE(eventually([&] { return api.connections() == 4; }));
  BOOST_CHECK_EQUAL(fetch(port, "/status").status, 503);
  // ...and hits the liveness port with its whole budget, where it gets only its per-client share.
  for (std::size_t i = 0; i < live.options().max_connections; ++i)
    flood.push_back(std::make_unique<raw_conn>(live_port, "127.0.0.1"));

  // The kubelet probes from its own address and is answered (accepted after the flood: the
  // listen queue is FIFO and the server admits one connection at a time).
  raw_conn probe{live_port, "127.0.0.3"};
  probe.send("GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto [closed, got] = probe.read_until_close();
  BOOST_CHECK(closed);
  BOOST_CHECK_MESSAGE(got.rfind("HTTP/1.1 200", 0) == 0, got);
  BOOST_CHECK(got.size() >= 2 && got.substr(got.size() - 2) == "ok");
  // The flood's last connection was over its client's share there.
  auto [flood_closed, flood_got] = flood.back()->read_until_close();
  BOOST_CHECK(flood_closed);
  BOOST_CHECK_MESSAGE(flood_got.find("too many connections from this client") != std::string::npos,
                      flood_got);
}

BOOST_AUTO_TEST_CASE(handler_that_never_answers_gets_503) {
  server_options o;
  o.handler_timeout = 300ms;
  std::mutex m;
  std::vector<responder> kept;
  router r = demo_routes();
  r.get("/hold", "hold", [&](const request&, responder reply) {
    std::lock_guard<std::mutex> l{m};
    kept.push_back(std::move(reply));
  });
  server srv{o, std::move(r)};
  auto port = srv.start();

  auto never = fetch(port, "/never");
  BOOST_CHECK_EQUAL(never.status, 503);
  BOOST_CHECK_EQUAL(json::parse(never.body).value("error", ""), "timeout waiting for never");

  auto held = fetch(port, "/hold");
  BOOST_CHECK_EQUAL(held.status, 503);
  {
    std::lock_guard<std::mutex> l{m};
    BOOST_REQUIRE_EQUAL(kept.size(), 1u);
    kept[0](response::text(200, "late"));  // dropped safely
    kept[0](response::text(200, "twice"));
  }
  BOOST_CHECK_EQUAL(fetch(port, "/status").status, 200);
  srv.stop();
  std::lock_guard<std::mutex> l{m};
  kept[0](response::text(200, "after stop"));  // still safe
}

BOOST_AUTO_TEST_CASE(stop_completes_in_flight_request_and_returns) {
  server_options o;
  o.stop_grace = 30s;  // returning well before this shows stop() did not wait it out
  std::promise<void> entered;
  std::vector<std::thread> workers;
  std::mutex m;
  router r;
  r.get("/slow", "slow", [&](const request&, responder reply) {
    std::lock_guard<std::mutex> l{m};
    workers.emplace_back([reply] {
      std::this_thread::sleep_for(300ms);
      reply(response::text(200, "done"));
    });
    entered.set_value();
  });
  server srv{o, std::move(r)};
  auto port = srv.start();
  raw_conn idle{port};  // an idle connection must not hold stop() up

  auto pending = std::async(std::launch::async, [&] { return fetch(port, "/slow"); });
  BOOST_REQUIRE(entered.get_future().wait_for(safety) == std::future_status::ready);
  auto t0 = std::chrono::steady_clock::now();
  srv.stop();
  auto took = std::chrono::steady_clock::now() - t0;
  BOOST_CHECK_MESSAGE(took < 25s, "stop() waited out the grace period");
  auto res = pending.get();
  BOOST_CHECK_EQUAL(res.status, 200);
  BOOST_CHECK_EQUAL(res.body, "done");
  BOOST_CHECK_EQUAL(res.header("connection").value_or(""), "close");
  BOOST_CHECK(idle.read_until_close().first);
  srv.stop();  // idempotent
  auto refused = fetch(port, "/slow");
  BOOST_CHECK(refused.error != client_error::none);
  std::lock_guard<std::mutex> l{m};
  for (auto& t : workers) t.join();
}

BOOST_AUTO_TEST_CASE(concurrent_stop_calls) {
  server srv{server_options{}, demo_routes()};
  srv.start();
  std::thread a{[&] { srv.stop(); }};
  std::thread b{[&] { srv.stop(); }};
  a.join();
  b.join();
  srv.stop();
  BOOST_CHECK_EQUAL(srv.connections(), 0u);
}

BOOST_AUTO_TEST_CASE(upgrade_route_takes_over_the_socket) {
  std::mutex m;
  std::vector<upgraded_ptr> taken;
  std::string seen_path;
  router r = demo_routes();
  r.add_upgrade(
      "/ws", "ws",
      [&](const request& req, upgraded_ptr c) {
        std::lock_guard<std::mutex> l{m};
        seen_path = req.path;
        taken.push_back(std::move(c));
      },
      [](const request&, responder reply) { reply(response::text(200, "plain")); });
  server srv{server_options{}, std::move(r)};
  auto port = srv.start();

  BOOST_CHECK_EQUAL(fetch(port, "/ws").body, "plain");  // no Upgrade header: plain handler

  raw_conn c{port};
  c.send("GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
  BOOST_REQUIRE(eventually([&] {
    std::lock_guard<std::mutex> l{m};
    return taken.size() == 1;
  }));
  BOOST_CHECK_EQUAL(seen_path, "/ws");
  BOOST_CHECK(eventually([&] { return srv.connections() == 0; }));  // no longer the server's
  BOOST_CHECK(c.poll_state(0ms) == raw_conn::state::nothing);       // and nothing written
  {
    std::lock_guard<std::mutex> l{m};
    taken.clear();  // the owner closes it (before the server goes away)
  }
  BOOST_CHECK(c.read_until_close().first);
}

BOOST_AUTO_TEST_CASE(start_fails_on_a_taken_port) {
  server first{server_options{}, demo_routes()};
  server_options o;
  o.port = first.start();
  server second{o, demo_routes()};
  BOOST_CHECK_THROW(second.start(), std::system_error);
}

BOOST_AUTO_TEST_CASE(metrics_count_requests) {
  auto registry = std::make_shared<prometheus::Registry>();
  server_options o;
  o.name = "test";
  o.registry = registry;
  server srv{o, demo_routes()};
  auto port = srv.start();
  BOOST_CHECK_EQUAL(fetch(port, "/status").status, 200);
  BOOST_CHECK_EQUAL(fetch(port, "/status").status, 200);
  BOOST_CHECK_EQUAL(fetch(port, "/raw/path/42").status, 404);
  auto text = prometheus::TextSerializer{}.Serialize(registry->Collect());
  BOOST_CHECK_MESSAGE(
      text.find("bloodraven_http_requests_total{handler=\"status\",method=\"GET\",server=\"test\","
                "status=\"2xx\"} 2") != std::string::npos,
      text);
  BOOST_CHECK(text.find("handler=\"not_found\"") != std::string::npos);
  BOOST_CHECK(text.find("/raw/path") == std::string::npos);
  BOOST_CHECK(text.find("bloodraven_http_request_duration_seconds_count") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
