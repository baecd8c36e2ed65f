// br::http::server over TLS (server_options tls_cert_file/tls_key_file): verified requests, a
// wrong CA or host name refused, plain HTTP and silent clients closed (handshake deadline), the
// body limit, certificate rotation without a restart, unloadable files refused at start.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <thread>

#include "io/http/client.hpp"
#include "io/http/server.hpp"
#include "tests/support/test_certs.hpp"

using namespace br::http;
using namespace std::chrono_literals;

namespace {

constexpr auto safety = 20s;  // safety bound only
const std::string host = "webhook.test.svc";

router routes() {
  router r;
  r.post("/echo", "echo", [](const request& req, responder reply) { reply(response::text(200, req.body)); });
  return r;
}

server_options tls_options(const br::test::test_certs& certs) {
  server_options o;
  o.name = "tls-test";
  o.tls_cert_file = certs.cert_file;
  o.tls_key_file = certs.key_file;
  o.handshake_timeout = 300ms;
  o.max_body_bytes = 1024;
  return o;
}

client_result post(std::uint16_t port, const std::string& ca_pem, std::string body = "hi",
                   const std::string& name = host) {
  client_request req;
  req.method = "POST";
  req.url = "https://" + name + ":" + std::to_string(port) + "/echo";
  req.connect_to = {name + ":" + std::to_string(port) + ":127.0.0.1:" + std::to_string(port)};
  req.ca_pem = ca_pem;
  req.body = std::move(body);
  req.timeout = safety;
  return perform(req);
}

/// Connects over plain TCP, sends `bytes` (may be empty) and waits for the server to close;
/// returns what was read and whether it closed within the safety bound.
std::pair<bool, std::string> raw_until_close(std::uint16_t port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE_EQUAL(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  if (!bytes.empty()) ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string all;
  bool closed = false;
  const auto deadline = std::chrono::steady_clock::now() + safety;
  while (!closed && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buf[4096];
    auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) closed = true;
    else all.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return {closed, all};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_tls)

BOOST_AUTO_TEST_CASE(verified_request_is_served) {
  br::test::test_certs certs{{host}};
  server srv{tls_options(certs), routes()};
  const auto port = srv.start();
  auto r = post(port, certs.ca.cert_pem, "hello over tls");
  BOOST_TEST(to_string(r.error) == "none", r.message);
  BOOST_TEST(r.status == 200);
  BOOST_TEST(r.body == "hello over tls");
}

BOOST_AUTO_TEST_CASE(another_ca_or_host_name_is_refused_by_the_client) {
  br::test::test_certs certs{{host}};
  br::test::test_certs other{{host}};
  server srv{tls_options(certs), routes()};
  const auto port = srv.start();
  auto wrong_ca = post(port, other.ca.cert_pem);
  BOOST_TEST(to_string(wrong_ca.error) == "other", wrong_ca.message);
  BOOST_TEST(wrong_ca.status == 0);
  auto wrong_name = post(port, certs.ca.cert_pem, "hi", "elsewhere.test.svc");
  BOOST_TEST(to_string(wrong_name.error) == "other", wrong_name.message);
  BOOST_TEST(wrong_name.status == 0);
  BOOST_TEST(post(port, certs.ca.cert_pem).status == 200);  // still serving
}

BOOST_AUTO_TEST_CASE(plain_http_and_silent_clients_are_closed) {
  br::test::test_certs certs{{host}};
  server srv{tls_options(certs), routes()};
  const auto port = srv.start();
  // Plain HTTP is not a TLS ClientHello: the handshake fails and the connection closes with no
  // HTTP answer.
  auto plain = raw_until_close(port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi");
  BOOST_TEST(plain.first);
  BOOST_TEST(plain.second.find("HTTP/1.1") == std::string::npos);
  // A client that connects and says nothing is closed by the handshake deadline (300 ms here).
  auto silent = raw_until_close(port, "");
  BOOST_TEST(silent.first);
  // Both sessions are gone (unregistered just after the close, on the server's threads).
  const auto deadline = std::chrono::steady_clock::now() + safety;
  while (srv.connections() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  BOOST_TEST(srv.connections() == 0u);
  BOOST_TEST(post(port, certs.ca.cert_pem).status == 200);
}

BOOST_AUTO_TEST_CASE(body_limit_applies_over_tls) {
  br::test::test_certs certs{{host}};
  server srv{tls_options(certs), routes()};
  const auto port = srv.start();
  auto big = post(port, certs.ca.cert_pem, std::string(4096, 'x'));
  BOOST_TEST(big.status == 413);
  BOOST_TEST(post(port, certs.ca.cert_pem).status == 200);
}

BOOST_AUTO_TEST_CASE(rotated_certificate_is_served_without_a_restart) {
  br::test::test_certs certs{{host}};
  server srv{tls_options(certs), routes()};
  const auto port = srv.start();
  const std::string old_ca = certs.ca.cert_pem;
  BOOST_TEST(post(port, old_ca).status == 200);
  certs.reissue({host});  // a new CA and certificate in place, as a renewed Secret
  bool rotated = false;
  const auto deadline = std::chrono::steady_clock::now() + safety;
  while (!rotated && std::chrono::steady_clock::now() < deadline) {
    rotated = post(port, certs.ca.cert_pem).status == 200;
    if (!rotated) std::this_thread::sleep_for(200ms);
  }
  BOOST_TEST(rotated);
  BOOST_TEST(post(port, old_ca).status == 0);  // the old CA no longer verifies the server
}

BOOST_AUTO_TEST_CASE(unloadable_files_fail_start) {
  br::test::test_certs certs{{host}};
  auto o = tls_options(certs);
  o.tls_key_file = (certs.dir / "missing.key").string();
  server missing{o, routes()};
  BOOST_CHECK_THROW(missing.start(), std::runtime_error);
  br::test::test_certs other{{host}};
  o.tls_key_file = other.key_file;  // a key of another certificate
  server mismatched{o, routes()};
  BOOST_CHECK_THROW(mismatched.start(), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
