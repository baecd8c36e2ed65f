// br::http::server with client certificates (server_options tls_client_ca_file) and the client's
// file-based TLS settings (client_request ca_file, cert_file, key_file), over real loopback TLS:
// required mode refuses a client without a certificate or with one from another CA and serves a
// good one with its names in request::peer; optional mode serves a client without one; the client
// refuses a server certificate for another host name; a rotated client CA is used without a restart.
#include <boost/test/unit_test.hpp>
#include <thread>

#include "io/http/client.hpp"
#include "io/http/server.hpp"
#include "tests/support/test_certs.hpp"

using namespace br::http;
using namespace std::chrono_literals;

namespace {

constexpr auto safety = 20s;  // safety bound only
const std::string host = "site-a.test.svc";
const std::string site_uri = "bloodraven://site/ns/g/site-a";

/// Answers with the verified client certificate's names ("-" when none).
router routes() {
  router r;
  r.get("/who", "who", [](const request& req, responder reply) {
    if (!req.peer) return reply(response::text(200, "-"));
    std::string out = "cn=" + req.peer->common_name;
    for (const auto& n : req.peer->names) out += " name=" + n;
    for (const auto& u : req.peer->uris) out += " uri=" + u;
    reply(response::text(200, out));
  });
  return r;
}

server_options mtls_options(const br::test::test_certs& certs, bool required) {
  server_options o;
  o.name = "mtls-test";
  o.tls_cert_file = certs.cert_file;
  o.tls_key_file = certs.key_file;
  o.tls_client_ca_file = certs.ca_file;
  o.tls_require_client_cert = required;
  o.handshake_timeout = 2s;
  return o;
}

struct client_files {
  std::string ca_file, cert_file, key_file;
};

client_result who(std::uint16_t port, const client_files& f, const std::string& name = host) {
  client_request req;
  req.url = "https://" + name + ":" + std::to_string(port) + "/who";
  req.connect_to = {name + ":" + std::to_string(port) + ":127.0.0.1:" + std::to_string(port)};
  req.ca_file = f.ca_file;
  req.cert_file = f.cert_file;
  req.key_file = f.key_file;
  req.timeout = safety;
  return perform(req);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_mtls)

BOOST_AUTO_TEST_CASE(required_client_certificate) {
  br::test::test_certs certs{{host}};
  br::test::test_certs other{{host}};
  const auto good = certs.issue_peer("client", {"site-a.client.test", site_uri});
  const auto foreign = other.issue_peer("client", {"site-a.client.test", site_uri});
  server srv{mtls_options(certs, true), routes()};
  const auto port = srv.start();

  auto none = who(port, {certs.ca_file, "", ""});
  BOOST_TEST(none.status == 0, none.message);  // handshake refused: no certificate
  BOOST_TEST(to_string(none.error) == "other");

  auto wrong_ca = who(port, {certs.ca_file, foreign.first, foreign.second});
  BOOST_TEST(wrong_ca.status == 0, wrong_ca.message);  // a certificate the client CA did not sign

  auto ok = who(port, {certs.ca_file, good.first, good.second});
  BOOST_TEST(ok.status == 200, ok.message);
  BOOST_TEST(ok.body == "cn=site-a.client.test name=site-a.client.test uri=" + site_uri);
}

BOOST_AUTO_TEST_CASE(optional_client_certificate) {
  br::test::test_certs certs{{host}};
  br::test::test_certs other{{host}};
  const auto good = certs.issue_peer("client", {"operator.client.test"});
  const auto foreign = other.issue_peer("client", {"operator.client.test"});
  server srv{mtls_options(certs, false), routes()};
  const auto port = srv.start();

  auto none = who(port, {certs.ca_file, "", ""});
  BOOST_TEST(none.status == 200, none.message);
  BOOST_TEST(none.body == "-");  // served, with no identity for the route to accept

  auto wrong_ca = who(port, {certs.ca_file, foreign.first, foreign.second});
  BOOST_TEST(wrong_ca.status == 0, wrong_ca.message);  // presented and not verified: refused

  auto ok = who(port, {certs.ca_file, good.first, good.second});
  BOOST_TEST(ok.status == 200, ok.message);
  BOOST_TEST(ok.body == "cn=operator.client.test name=operator.client.test");
}

BOOST_AUTO_TEST_CASE(server_certificate_for_another_host_is_refused_by_the_client) {
  br::test::test_certs certs{{host}};
  const auto good = certs.issue_peer("client", {"c"});
  server srv{mtls_options(certs, true), routes()};
  const auto port = srv.start();
  auto wrong_name = who(port, {certs.ca_file, good.first, good.second}, "site-b.test.svc");
  BOOST_TEST(wrong_name.status == 0, wrong_name.message);
  BOOST_TEST(to_string(wrong_name.error) == "other");
  br::test::test_certs other{{host}};
  auto wrong_ca = who(port, {other.ca_file, good.first, good.second});  // server not trusted
  BOOST_TEST(wrong_ca.status == 0, wrong_ca.message);
  BOOST_TEST(who(port, {certs.ca_file, good.first, good.second}).status == 200);
}

BOOST_AUTO_TEST_CASE(rotated_client_ca_is_used_without_a_restart) {
  br::test::test_certs certs{{host}};
  const auto old_client = certs.issue_peer("old", {"c"});
  server srv{mtls_options(certs, true), routes()};
  const auto port = srv.start();
  BOOST_TEST(who(port, {certs.ca_file, old_client.first, old_client.second}).status == 200);
  certs.reissue({host});  // a new CA, server certificate and CA file in place
  const auto new_client = certs.issue_peer("new", {"c"});
  bool rotated = false;
  const auto deadline = std::chrono::steady_clock::now() + safety;
  while (!rotated && std::chrono::steady_clock::now() < deadline) {
    rotated = who(port, {certs.ca_file, new_client.first, new_client.second}).status == 200;
    if (!rotated) std::this_thread::sleep_for(200ms);
  }
  BOOST_TEST(rotated);
  // The old client certificate no longer verifies against the new client CA.
  auto old = who(port, {certs.ca_file, old_client.first, old_client.second});
  BOOST_TEST(old.status == 0, old.message);
}

BOOST_AUTO_TEST_CASE(unloadable_client_ca_fails_start) {
  br::test::test_certs certs{{host}};
  auto o = mtls_options(certs, true);
  o.tls_client_ca_file = (certs.dir / "missing-ca.crt").string();
  server missing{o, routes()};
  BOOST_CHECK_THROW(missing.start(), std::runtime_error);
  o.tls_client_ca_file = certs.key_file;  // not a certificate
  server not_a_ca{o, routes()};
  BOOST_CHECK_THROW(not_a_ca.start(), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
