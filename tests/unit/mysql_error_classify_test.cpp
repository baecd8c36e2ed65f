// Unit tests of the MySQL error classifier, timeout rounding and secret redaction.
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/mysql/down_check.hpp"

#include "io/mysql/connection.hpp"
#include "io/mysql/error.hpp"

using namespace br::mysql;
using namespace std::chrono_literals;

namespace {
error_kind kind_of(unsigned code, std::string_view msg, failure_context ctx = {}) {
  return classify_error(code, msg, "HY000", ctx).kind;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(mysql_error_classify)

BOOST_AUTO_TEST_CASE(dead_port_is_refused) {
  // Connector/C reports a closed port as 2002 with errno 115/111, in well under a millisecond.
  BOOST_TEST(kind_of(2002, "Can't connect to server on '127.0.0.1' (115)", {0ms, 2000ms}) ==
             error_kind::refused);
  BOOST_TEST(kind_of(2003, "Can't connect to MySQL server on '10.0.0.1:3306' (111)") ==
             error_kind::refused);
  BOOST_TEST(kind_of(2005, "Unknown server host 'nope' (-2)") == error_kind::refused);
}

BOOST_AUTO_TEST_CASE(connect_that_timed_out_is_timeout) {
  BOOST_TEST(kind_of(2002, "Can't connect to server on '10.1.1.1' (110)") == error_kind::timeout);
  BOOST_TEST(kind_of(2003, "Can't connect to MySQL server on 'x' (110 \"Connection timed out\")") ==
             error_kind::timeout);
  // No errno in the text, but it took the whole connect timeout.
  BOOST_TEST(kind_of(2003, "Can't connect to MySQL server on 'x'", {2001ms, 2000ms}) ==
             error_kind::timeout);
}

BOOST_AUTO_TEST_CASE(lost_connection_fast_is_lost) {
  BOOST_TEST(kind_of(2013, "Lost connection to server during query", {5ms, 1000ms}) ==
             error_kind::lost_connection);
  BOOST_TEST(kind_of(2006, "Server has gone away") == error_kind::lost_connection);
  BOOST_TEST(kind_of(2055, "Lost connection to server at 'reading', system error: 104") ==
             error_kind::lost_connection);
  BOOST_TEST(kind_of(2013,
                     "Lost connection to server at 'handshake: reading initial communication "
                     "packet', system error: 104",
                     {2ms, 2000ms}) == error_kind::lost_connection);
  BOOST_TEST(kind_of(4031, "The client was disconnected by the server because of inactivity") ==
             error_kind::lost_connection);
  BOOST_TEST(kind_of(1053, "Server shutdown in progress") == error_kind::lost_connection);
}

BOOST_AUTO_TEST_CASE(lost_connection_at_the_read_timeout_is_timeout) {
  // Measured: a SIGSTOPped server gives a plain 2013 after exactly READ_TIMEOUT (1002 ms for 1 s).
  BOOST_TEST(kind_of(2013, "Lost connection to server during query", {1002ms, 1000ms}) ==
             error_kind::timeout);
  BOOST_TEST(kind_of(2013, "Lost connection to server during query", {950ms, 1000ms}) ==
             error_kind::timeout);
  BOOST_TEST(kind_of(2013, "Lost connection to server during query", {700ms, 1000ms}) ==
             error_kind::lost_connection);
  BOOST_TEST(kind_of(2013,
                     "Lost connection to server at 'handshake: reading initial communication "
                     "packet', system error: 110") == error_kind::timeout);
  BOOST_TEST(kind_of(2055, "Lost connection to server at 'x', system error: 110") ==
             error_kind::timeout);
  BOOST_TEST(kind_of(2013, "read timeout") == error_kind::timeout);
  // The timeout heuristic never turns a server-side disconnect into a timeout.
  BOOST_TEST(kind_of(4031, "disconnected by the server because of inactivity", {9s, 1s}) ==
             error_kind::lost_connection);
}

BOOST_AUTO_TEST_CASE(auth_failures) {
  for (unsigned code : {1045u, 1044u, 1698u, 1130u, 2059u, 2061u})
    BOOST_TEST((kind_of(code, "denied") == error_kind::auth), "code " << code);
  BOOST_TEST(kind_of(1045, "Plugin caching_sha2_password could not be loaded") == error_kind::auth);
}

BOOST_AUTO_TEST_CASE(server_errors_keep_their_code) {
  auto e = classify_error(1290,
                          "The MySQL server is running with the --super-read-only option so it "
                          "cannot execute this statement",
                          "HY000");
  BOOST_TEST((e.kind == error_kind::server_error));
  BOOST_TEST(e.code == 1290u);
  BOOST_TEST(e.sql_state == "HY000");
  BOOST_TEST(e.message.find("super-read-only") != std::string::npos);
  BOOST_TEST(kind_of(1094, "Unknown thread id: 42") == error_kind::server_error);
  BOOST_TEST(kind_of(3707, "Restart server failed") == error_kind::server_error);
  BOOST_TEST(kind_of(13117, "whatever") == error_kind::server_error);
  // A server error that merely mentions a timeout stays a server error.
  BOOST_TEST(kind_of(1205, "Lock wait timeout exceeded; try restarting transaction") ==
             error_kind::server_error);
}

BOOST_AUTO_TEST_CASE(other_client_errors_are_protocol_and_zero_is_other) {
  BOOST_TEST(kind_of(2026, "SSL connection error: unknown error number") == error_kind::protocol);
  BOOST_TEST(kind_of(2014, "Commands out of sync") == error_kind::protocol);
  BOOST_TEST(kind_of(2027, "Malformed packet") == error_kind::protocol);
  BOOST_TEST(kind_of(0, "") == error_kind::other);
}

BOOST_AUTO_TEST_CASE(to_string_names_kind_code_and_state) {
  auto e = classify_error(2013, "Lost connection to server during query", "HY000");
  BOOST_TEST(e.to_string() ==
             "lost_connection 2013 (HY000): Lost connection to server during query");
  BOOST_TEST(to_string(error_kind::timeout) == "timeout");
}

BOOST_AUTO_TEST_CASE(reached_timeout_boundaries) {
  BOOST_TEST(!reached_timeout(0ms, 0ms));
  BOOST_TEST(!reached_timeout(5000ms, 0ms));  // unknown timeout: never
  BOOST_TEST(reached_timeout(900ms, 1000ms));
  BOOST_TEST(!reached_timeout(899ms, 1000ms));
  BOOST_TEST(reached_timeout(9000ms, 10000ms));
  BOOST_TEST(!reached_timeout(8999ms, 10000ms));
}

BOOST_AUTO_TEST_CASE(timeouts_round_up_to_whole_seconds) {
  BOOST_TEST(to_c_api_seconds(0ms) == 1u);
  BOOST_TEST(to_c_api_seconds(-5ms) == 1u);
  BOOST_TEST(to_c_api_seconds(1ms) == 1u);
  BOOST_TEST(to_c_api_seconds(1000ms) == 1u);
  BOOST_TEST(to_c_api_seconds(1001ms) == 2u);
  BOOST_TEST(to_c_api_seconds(2500ms) == 3u);
  BOOST_TEST(to_c_api_seconds(std::chrono::milliseconds(30s)) == 30u);
}

// provably_down: the only failure a sidecar may acknowledge a deposing view on without a fence
// (gate rule 2). A failed connect is only the trigger; the proof is a fresh TCP connect to the
// loopback address that the kernel refuses (nothing listens there).
namespace {

/// A listening loopback socket on an ephemeral port (closed by the destructor).
struct listener {
  int fd = -1;
  uint16_t port = 0;
  explicit listener(const char* addr = "127.0.0.1") {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, addr, &a.sin_addr);
    BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    BOOST_REQUIRE(::listen(fd, 1) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~listener() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(loopback_hosts) {
  for (const char* h : {"127.0.0.1", "127.0.0.2", "127.255.0.1", "::1", "localhost"})
    BOOST_TEST(loopback_host(h), h);
  for (const char* h : {"10.0.0.7", "127.example.com", "128.0.0.1", "db-0.db", "", "::2",
                        "/run/mysqld/mysqld.sock"})
    BOOST_TEST(!loopback_host(h), h);
}

BOOST_AUTO_TEST_CASE(provably_down_only_when_the_kernel_refuses_the_port) {
  // What the linked connector reports for a stopped mysqld on 127.0.0.1 (2002, errno 115 of its
  // non-blocking connect), and for other failures.
  auto connect_failed = classify_error(2002, "Can't connect to server on '127.0.0.1' (115)", "HY000");
  auto host_error = classify_error(2003, "Can't connect to MySQL server on '127.0.0.1' (111)", "HY000");
  auto lost = classify_error(2013, "Lost connection to server during query", "HY000");
  auto gone = classify_error(2006, "Server has gone away", "HY000");
  auto denied = classify_error(1045, "Access denied for user 'x'@'localhost'", "28000");

  listener l;  // a port something listens on: a running (maybe overloaded) server
  BOOST_TEST(!tcp_refused("127.0.0.1", l.port, 500ms));
  BOOST_TEST(!provably_down(connect_failed, "127.0.0.1", l.port));
  BOOST_TEST(!provably_down(host_error, "127.0.0.1", l.port));
  auto port = l.port;
  l.close();  // nothing listens now: refused
  BOOST_TEST(tcp_refused("127.0.0.1", port, 500ms));
  BOOST_TEST(tcp_refused("localhost", port, 500ms));
  BOOST_TEST(provably_down(connect_failed, "127.0.0.1", port));
  BOOST_TEST(provably_down(host_error, "127.0.0.1", port));
  BOOST_TEST(provably_down(connect_failed, "localhost", port));
  // Other failures of a running server, a remote host or a name prove nothing, even on a dead port.
  BOOST_TEST(!provably_down(lost, "127.0.0.1", port));
  BOOST_TEST(!provably_down(gone, "127.0.0.1", port));
  BOOST_TEST(!provably_down(denied, "127.0.0.1", port));
  BOOST_TEST(!provably_down(connect_failed, "10.0.0.7", port));
  BOOST_TEST(!provably_down(connect_failed, "127.example.com", port));
  BOOST_TEST(!tcp_refused("not-an-address", port, 100ms));
}

BOOST_AUTO_TEST_CASE(redact_removes_raw_and_quoted_secrets) {
  BOOST_TEST(redact("near 'SOURCE_PASSWORD = 's3cr3t', SOURCE_AUTO'", {"s3cr3t"}) ==
             "near 'SOURCE_PASSWORD = '***', SOURCE_AUTO'");
  // As it appears inside a quoted literal: quote doubled, backslash escaped.
  BOOST_TEST(redact("IDENTIFIED BY 'it''s\\\\x'", {"it's\\x"}) == "IDENTIFIED BY '***'");
  BOOST_TEST(redact("pw pw pw", {"pw"}) == "*** *** ***");
  BOOST_TEST(redact("nothing here", {"", "zzz"}) == "nothing here");
  BOOST_TEST(redact("a*b", {"*"}) == "a***b");
}

BOOST_AUTO_TEST_CASE(connect_options_describe_has_no_password) {
  connect_options o;
  o.user = "bloodraven";
  o.password = "bloodravenpw-secret";
  o.port = 3317;
  BOOST_TEST(o.describe() == "bloodraven@127.0.0.1:3317");
}

BOOST_AUTO_TEST_SUITE_END()
