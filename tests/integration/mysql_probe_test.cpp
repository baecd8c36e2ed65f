// Integration: probe against a real MySQL 9.7 primary and replica (values cross-checked by SQL).
#include "tests/integration/mysql_test_common.hpp"

using namespace br::test;
namespace m = br::mysql;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(mysql_probe)

BOOST_AUTO_TEST_CASE(probe_primary_and_replica) {
  ensure_pair();
  ensure_marker_table(1);
  auto c1 = admin(1);
  auto c2 = admin(2);
  const br::gtid_set before = gtids_ok(c1);
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, marker("probe"));
  }
  const br::gtid_set primary_set = gtids_ok(c1);
  // RECEIVED_TRANSACTION_SET only holds what this channel received since it was (re)created.
  const br::gtid_set fresh = primary_set.subtract(before);
  BOOST_TEST_REQUIRE(fresh.count() == 1u);
  BOOST_TEST_REQUIRE(!primary_set.empty());
  BOOST_TEST(wait_ok(2, primary_set, 20s) == m::wait_outcome::reached);

  // --- primary
  auto p1 = probe_ok(c1);
  BOOST_TEST(!p1.read_only);
  BOOST_TEST(!p1.super_read_only);
  BOOST_TEST(p1.writable());
  BOOST_TEST(p1.server_uuid == sandbox().sql(1, "SELECT @@server_uuid"));
  BOOST_TEST(std::to_string(p1.server_id) == sandbox().sql(1, "SELECT @@server_id"));
  BOOST_TEST(p1.version.rfind("9.7", 0) == 0u, "version " << p1.version);
  BOOST_TEST(p1.gtid_executed.contains(primary_set));
  auto text1 = br::gtid_set::parse(unescape_batch(sandbox().sql(1, "SELECT @@gtid_executed")));
  BOOST_TEST_REQUIRE(text1.has_value());
  BOOST_TEST(p1.gtid_executed.contains(*text1));  // the server's own text, parsed independently
  BOOST_TEST(!p1.channel.configured);
  BOOST_TEST(p1.channel.io == m::thread_state::off);
  BOOST_TEST(p1.channel.sql == m::thread_state::off);
  BOOST_TEST(!p1.channel.seconds_behind_source.has_value());
  BOOST_TEST(p1.latency.count() > 0);
  BOOST_TEST_MESSAGE("primary probe latency " << p1.latency.count() << " us");

  // --- replica
  auto p2 = probe_ok(c2);
  BOOST_TEST(p2.read_only);
  BOOST_TEST(p2.super_read_only);
  BOOST_TEST(p2.server_uuid == sandbox().sql(2, "SELECT @@server_uuid"));
  BOOST_TEST(p2.server_uuid != p1.server_uuid);
  BOOST_TEST(p2.server_id != p1.server_id);
  BOOST_TEST(p2.version.rfind("9.7", 0) == 0u);
  BOOST_TEST(p2.channel.configured);
  BOOST_TEST(p2.channel.source_host == "127.0.0.1");
  BOOST_TEST(p2.channel.source_port == sandbox().port(1));
  BOOST_TEST(p2.channel.io == m::thread_state::on);
  BOOST_TEST(p2.channel.sql == m::thread_state::on);
  BOOST_TEST(p2.channel.last_io_errno == 0u);
  BOOST_TEST(p2.channel.last_sql_errno == 0u);
  BOOST_TEST(p2.channel.received.contains(fresh));
  BOOST_TEST(p2.gtid_executed.contains(primary_set));
  BOOST_TEST_REQUIRE(p2.channel.seconds_behind_source.has_value());
  BOOST_TEST(*p2.channel.seconds_behind_source >= 0.0);
  BOOST_TEST(*p2.channel.seconds_behind_source < 60.0);
  // RECEIVED_TRANSACTION_SET cross-checked with the server's own text.
  auto recv = br::gtid_set::parse(unescape_batch(sandbox().sql(
      2,
      "SELECT RECEIVED_TRANSACTION_SET FROM performance_schema.replication_connection_status "
      "WHERE CHANNEL_NAME = ''")));
  BOOST_TEST_REQUIRE(recv.has_value());
  BOOST_TEST(p2.channel.received.contains(*recv));
}

BOOST_AUTO_TEST_CASE(probe_is_one_statement_round_trip) {
  ensure_pair();
  auto c = admin(2);
  // The session's Questions counter counts every statement the client sends, SHOW included.
  auto questions = [&c]() -> long {
    auto r = c.query("SHOW SESSION STATUS LIKE 'Questions'");
    BOOST_TEST_REQUIRE(r.ok());
    BOOST_TEST_REQUIRE(r->rows.size() == 1u);
    return std::stol(r->rows[0][1].value_or("-1"));
  };
  const long before = questions();
  auto p = probe_ok(c);
  const long after = questions();
  BOOST_TEST(after - before == 2);  // the probe's single SELECT + the second SHOW STATUS
  BOOST_TEST(m::mysql8().probe_statements("", c.quoter()).size() == 1u);
  BOOST_TEST(p.channel.configured);
}

BOOST_AUTO_TEST_CASE(probe_sees_a_stopped_applier_and_its_error_fields) {
  ensure_pair();
  auto c2 = admin(2);
  auto st = m::stop_replica(c2, m::mysql8(), "", m::replica_threads::sql_thread);
  BOOST_TEST_REQUIRE(st.ok(), (st.ok() ? "" : st.error().to_string()));
  auto p = probe_ok(c2);
  BOOST_TEST(p.channel.configured);
  BOOST_TEST(p.channel.io == m::thread_state::on);
  BOOST_TEST(p.channel.sql == m::thread_state::off);
  BOOST_TEST(!p.channel.seconds_behind_source.has_value());  // NULL like SHOW REPLICA STATUS
  auto go = m::start_replica(c2, m::mysql8(), "", m::replica_threads::sql_thread);
  BOOST_TEST_REQUIRE(go.ok(), (go.ok() ? "" : go.error().to_string()));
  BOOST_TEST(probe_ok(c2).channel.sql == m::thread_state::on);
}

// Semi-sync plugins (issue 25): the probe reads their variables and status from performance_schema
// (NULLs without the plugins) and the server's uptime. The plugins are removed again at the end.
BOOST_AUTO_TEST_CASE(probe_reads_semisync_state_and_uptime) {
  ensure_pair();
  // Replicas are fenced: the statements run with the fence lifted, unlogged, then fenced again.
  auto unfenced = [](int i, const std::string& sql) {
    sandbox().sql(i, "SET SESSION sql_log_bin=0; SET @sro=@@GLOBAL.super_read_only; "
                     "SET GLOBAL super_read_only=OFF; " + sql + "; SET GLOBAL super_read_only=@sro");
  };
  auto loaded = [](int i, const char* plugin) {
    return !sandbox().sql(i, std::string("SELECT 1 FROM information_schema.plugins WHERE "
                                         "plugin_name='") + plugin + "'").empty();
  };
  auto restart_receiver = [] { sandbox().sql(2, "STOP REPLICA IO_THREAD; START REPLICA IO_THREAD"); };
  auto remove = [&] {  // the replica side first: the source's plugin refuses to go while used
    if (loaded(2, "rpl_semi_sync_replica")) {
      sandbox().sql(2, "SET GLOBAL rpl_semi_sync_replica_enabled=OFF");
      restart_receiver();
      unfenced(2, "UNINSTALL PLUGIN rpl_semi_sync_replica");
    }
    if (loaded(1, "rpl_semi_sync_source")) {
      sandbox().sql(1, "SET GLOBAL rpl_semi_sync_source_enabled=OFF");
      unfenced(1, "UNINSTALL PLUGIN rpl_semi_sync_source");
    }
  };
  remove();  // a previous run that stopped half way
  auto c1 = admin(1);
  auto c2 = admin(2);
  auto p1 = probe_ok(c1);
  BOOST_TEST(!p1.semisync.source_loaded);
  BOOST_TEST(!p1.semisync.source_on);
  BOOST_TEST(p1.uptime_s > 0u);
  BOOST_TEST(std::to_string(p1.uptime_s).size() <= 10u);
  // The start instant is the server's own clock minus its uptime: stable from probe to probe.
  const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  BOOST_TEST(std::llabs(p1.started_at + static_cast<int64_t>(p1.uptime_s) - now_s) <= 5);
  std::this_thread::sleep_for(1100ms);
  BOOST_TEST(std::llabs(probe_ok(c1).started_at - p1.started_at) <= 1);

  unfenced(1, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'");
  unfenced(2, "INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'");
  sandbox().sql(1, "SET GLOBAL rpl_semi_sync_source_wait_point='AFTER_SYNC'; "
                   "SET GLOBAL rpl_semi_sync_source_timeout=123456; "
                   "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count=1; "
                   "SET GLOBAL rpl_semi_sync_source_enabled=ON");
  sandbox().sql(2, "SET GLOBAL rpl_semi_sync_replica_enabled=ON");
  restart_receiver();
  m::probe_result s1;
  for (int i = 0; i < 100; ++i) {  // the receiver reconnects as a semi-sync client
    s1 = probe_ok(c1);
    if (s1.semisync.clients >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  BOOST_TEST(s1.semisync.source_loaded);
  BOOST_TEST(s1.semisync.source_enabled);
  BOOST_TEST(s1.semisync.source_on);
  BOOST_TEST(s1.semisync.wait_point == "AFTER_SYNC");
  BOOST_TEST(s1.semisync.wait_count == 1u);
  BOOST_TEST(s1.semisync.timeout_ms == 123456u);
  BOOST_TEST(s1.semisync.wait_no_replica);  // the server's default
  BOOST_TEST(s1.semisync.clients == 1u);
  BOOST_TEST(!s1.semisync.replica_loaded);
  auto s2 = probe_ok(c2);
  BOOST_TEST(s2.semisync.replica_loaded);
  BOOST_TEST(s2.semisync.replica_enabled);
  BOOST_TEST(s2.semisync.replica_on);
  BOOST_TEST(!s2.semisync.source_loaded);
  BOOST_TEST(s2.channel.io == m::thread_state::on);

  remove();
  auto after = probe_ok(c1);
  BOOST_TEST(!after.semisync.source_loaded);
  BOOST_TEST(!probe_ok(c2).semisync.replica_loaded);
}

BOOST_AUTO_TEST_CASE(connect_errors_are_classified) {
  ensure_pair();
  // Wrong password: auth, and the password is nowhere in the message.
  auto o = sandbox().options(1, "bloodraven");
  o.password = "definitely-wrong-pw-1234";
  auto bad = m::connection::open(o);
  BOOST_TEST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.error().kind == m::error_kind::auth);
  BOOST_TEST(bad.error().code == 1045u);
  BOOST_TEST(bad.error().message.find("definitely-wrong-pw-1234") == std::string::npos);
  // TLS required works against the sandbox (caching_sha2 over TLS).
  auto t = sandbox().options(1, "bloodraven");
  t.tls = m::tls_mode::required;
  auto tls = open_or_fail(t);
  BOOST_TEST(!tls.tls_cipher().empty());
  auto plain = open_or_fail(sandbox().options(1, "bloodraven"));
  BOOST_TEST(plain.tls_cipher().empty());
  // disable_session_binlog really sets sql_log_bin=0 for the session.
  auto a = admin(1);
  auto r = a.query("SELECT @@session.sql_log_bin");
  BOOST_TEST_REQUIRE(r.ok());
  BOOST_TEST(r->rows[0][0].value_or("") == "0");
  // A server error keeps its code.
  auto e = a.exec("SELECT * FROM appdb.no_such_table_here");
  BOOST_TEST_REQUIRE(!e.ok());
  BOOST_TEST(e.error().kind == m::error_kind::server_error);
  BOOST_TEST(e.error().code == 1146u);
  BOOST_TEST(e.error().sql_state == "42S02");
}

BOOST_AUTO_TEST_SUITE_END()
