// Integration: error classification under real faults (kill -9, SIGSTOP) of a MySQL 9.7 server.
// Uses instance 3 so the shared replicating pair 1+2 is never disturbed; stops it at the end.
#include "tests/integration/mysql_test_common.hpp"

using namespace br::test;
namespace m = br::mysql;
using namespace std::chrono_literals;

namespace {

constexpr int kVictim = 3;

/// Brings the victim back whatever happens in the test body (never throws).
struct restore_victim {
  bool paused = false;
  bool killed = false;
  ~restore_victim() {
    if (paused) sandbox().run({"resume", std::to_string(kVictim)});
    if (killed) sandbox().run({"start", std::to_string(kVictim)});
  }
};

m::connect_options victim_options(std::chrono::milliseconds read_timeout) {
  auto o = sandbox().options(kVictim, "bloodraven");
  o.connect_timeout = 2s;
  o.read_timeout = read_timeout;
  o.write_timeout = read_timeout;
  return o;
}

void ensure_victim() {
  ensure_pair();
  if (!sandbox().running(kVictim)) sandbox().up(kVictim);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mysql_faults)

BOOST_AUTO_TEST_CASE(kill9_during_an_open_connection) {
  ensure_victim();
  restore_victim guard;
  auto conn = open_or_fail(victim_options(2s));
  BOOST_TEST_REQUIRE(conn.query("SELECT 1").ok());

  sandbox().kill9(kVictim);
  guard.killed = true;
  auto t0 = std::chrono::steady_clock::now();
  auto r = conn.query("SELECT 1");
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST_MESSAGE("after kill -9, open connection: " << r.error().to_string() << " in " << took
                                                        << " ms");
  BOOST_TEST((r.error().kind == m::error_kind::lost_connection ||
              r.error().kind == m::error_kind::refused));
  BOOST_TEST(took < 2000.0 * 3 + 2000.0);

  t0 = std::chrono::steady_clock::now();
  auto fresh = m::connection::open(victim_options(2s));
  const double took_connect = ms_since(t0);
  BOOST_TEST_REQUIRE(!fresh.ok());
  BOOST_TEST_MESSAGE("after kill -9, new connect: " << fresh.error().to_string() << " in "
                                                    << took_connect << " ms");
  BOOST_TEST(fresh.error().kind == m::error_kind::refused);

  sandbox().start(kVictim);
  guard.killed = false;
  auto again = open_or_fail(victim_options(2s));
  BOOST_TEST(again.query("SELECT 1").ok());
}

BOOST_AUTO_TEST_CASE(sigstop_gives_timeout_at_the_read_timeout) {
  ensure_victim();
  restore_victim guard;
  const auto read_timeout = 2s;
  auto conn = open_or_fail(victim_options(read_timeout));
  BOOST_TEST_REQUIRE(conn.query("SELECT 1").ok());

  sandbox().pause(kVictim);
  guard.paused = true;
  auto t0 = std::chrono::steady_clock::now();
  auto r = conn.query("SELECT 1");
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST_MESSAGE("paused server, open connection: " << r.error().to_string() << " after "
                                                        << took << " ms (read_timeout 2000 ms)");
  BOOST_TEST(r.error().kind == m::error_kind::timeout);
  BOOST_TEST(took < 2000.0 * 3 + 2000.0);

  // Connecting to a paused server: the kernel accepts, the handshake never comes.
  t0 = std::chrono::steady_clock::now();
  auto fresh = m::connection::open(victim_options(read_timeout));
  const double took_connect = ms_since(t0);
  BOOST_TEST_REQUIRE(!fresh.ok());
  BOOST_TEST_MESSAGE("paused server, new connect: " << fresh.error().to_string() << " after "
                                                    << took_connect
                                                    << " ms (connect_timeout 2000 ms)");
  BOOST_TEST(fresh.error().kind == m::error_kind::timeout);
  BOOST_TEST(took_connect < 2000.0 * 3 + 2000.0);

  sandbox().resume(kVictim);
  guard.paused = false;
  auto again = open_or_fail(victim_options(read_timeout));
  BOOST_TEST(again.query("SELECT 1").ok());
  sandbox().stop(kVictim);  // save memory; the next user starts it again
}

BOOST_AUTO_TEST_CASE(dead_port_is_refused_fast) {
  ensure_victim();
  sandbox().stop(kVictim);
  auto t0 = std::chrono::steady_clock::now();
  auto c = m::connection::open(victim_options(2s));
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(!c.ok());
  BOOST_TEST_MESSAGE("stopped server: " << c.error().to_string() << " in " << took << " ms");
  BOOST_TEST(c.error().kind == m::error_kind::refused);
  BOOST_TEST((c.error().code == 2002u || c.error().code == 2003u));
}

BOOST_AUTO_TEST_SUITE_END()
