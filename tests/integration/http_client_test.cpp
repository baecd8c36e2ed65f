// Integration tests of the libcurl client: round trips, refused, timeout, send time.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "io/http/client.hpp"
#include "io/http/server.hpp"

using namespace br::http;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

/// A loopback listening socket that never accepts: the kernel completes the handshake, so a
/// client connects and then hears nothing.
struct black_hole {
  int fd = -1;
  std::uint16_t port = 0;
  explicit black_hole(bool listen_too) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    if (listen_too) BOOST_REQUIRE(::listen(fd, 8) == 0);
  }
  ~black_hole() { ::close(fd); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(http_client)

BOOST_AUTO_TEST_CASE(round_trip_all_methods) {
  router r;
  auto echo = [](const request& req, responder reply) {
    reply(
        response::json(200, json{{"method", req.method},
                                 {"body", req.body},
                                 {"x_test", std::string{req.header("x-test").value_or("")}},
                                 {"type", std::string{req.header("content-type").value_or("")}}}));
  };
  for (auto m : {"GET", "POST", "PUT", "PATCH", "DELETE"}) r.add(m, "/echo", "echo", echo);
  server srv{server_options{}, std::move(r)};
  auto port = srv.start();
  const std::string u = "http://127.0.0.1:" + std::to_string(port) + "/echo";

  client c{client::options{10s, 5s, {{"X-Test", "yes"}}}};
  auto before = std::chrono::steady_clock::now();
  auto g = c.get(u);
  BOOST_REQUIRE_MESSAGE(g.error == client_error::none, g.message);
  BOOST_CHECK(g.ok());
  BOOST_CHECK(g.sent_at >= before && g.sent_at <= std::chrono::steady_clock::now());
  auto gj = json::parse(g.body);
  BOOST_CHECK_EQUAL(gj["method"], "GET");
  BOOST_CHECK_EQUAL(gj["x_test"], "yes");

  auto p = c.post(u, R"({"k":1})");
  BOOST_CHECK_EQUAL(p.status, 200);
  BOOST_CHECK_EQUAL(json::parse(p.body)["body"], R"({"k":1})");
  BOOST_CHECK_EQUAL(json::parse(p.body)["type"], "application/json");

  BOOST_CHECK_EQUAL(json::parse(c.put(u, "put-body").body)["method"], "PUT");
  BOOST_CHECK_EQUAL(json::parse(c.patch(u, "patch-body").body)["body"], "patch-body");
  BOOST_CHECK_EQUAL(json::parse(c.del(u).body)["method"], "DELETE");

  auto nf = c.get("http://127.0.0.1:" + std::to_string(port) + "/missing");
  BOOST_CHECK(nf.error == client_error::none);
  BOOST_CHECK_EQUAL(nf.status, 404);
  BOOST_CHECK(!nf.ok());
}

BOOST_AUTO_TEST_CASE(refused_port_is_refused) {
  std::uint16_t port;
  {
    black_hole unused{false};  // bound, not listening: connecting is refused
    port = unused.port;
    client_request req;
    req.url = "http://127.0.0.1:" + std::to_string(port) + "/";
    req.timeout = 10s;
    auto r = perform(req);
    BOOST_CHECK_MESSAGE(r.error == client_error::refused, to_string(r.error) << " " << r.message);
    BOOST_CHECK_EQUAL(r.status, 0);
    BOOST_CHECK(!r.message.empty());
  }
}

BOOST_AUTO_TEST_CASE(silent_server_is_timeout) {
  black_hole hole{true};
  client_request req;
  req.url = "http://127.0.0.1:" + std::to_string(hole.port) + "/";
  req.timeout = 300ms;
  auto r = perform(req);
  BOOST_CHECK_MESSAGE(r.error == client_error::timeout, to_string(r.error) << " " << r.message);
  BOOST_CHECK_EQUAL(r.status, 0);
  BOOST_CHECK(r.sent_at.time_since_epoch().count() != 0);
}

BOOST_AUTO_TEST_CASE(bad_url_is_other_and_does_not_throw) {
  client_request req;
  req.url = "http://[not a url";
  auto r = perform(req);
  BOOST_CHECK(r.error == client_error::other);
}

BOOST_AUTO_TEST_SUITE_END()
